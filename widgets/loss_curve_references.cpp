// SPDX-License-Identifier: GPL-3.0-or-later
// LossCurveView's reference lines (baselines, anchors and the Bayes floor): kept per run, drawn
// once per distinct (label, loss) while one of their runs is shown.
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "widgets/loss_curve_view.h"

namespace rsalab {

namespace {
const QColor kReferenceColor(105, 105, 105);
}  // namespace

void LossCurveView::setReferenceLines(const RunId& run_id,
                                      const std::vector<ReferenceLine>& lines) {
  if (lines.empty()) {
    references_.erase(run_id);
  } else {
    references_[run_id] = lines;
  }
  markDirty();
}

std::vector<ReferenceLine> LossCurveView::visibleReferences() const {
  std::vector<ReferenceLine> out;
  for (const auto& [id, lines] : references_) {
    auto run = runs_.find(id);
    if (run != runs_.end() && !run->second.visible) continue;
    for (const auto& line : lines) {
      if (!std::isfinite(line.loss)) continue;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const ReferenceLine& o) {
        return o.label == line.label && o.loss == line.loss && o.best == line.best;
      });
      if (!seen) out.push_back(line);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const ReferenceLine& a, const ReferenceLine& b) { return a.loss > b.loss; });
  return out;
}

QStringList LossCurveView::drawnReferenceLabels() const {
  QStringList labels;
  for (const auto* text : reference_texts_) labels << text->text();
  return labels;
}

void LossCurveView::drawReferences() {
  for (auto* line : reference_lines_) plot_->removeItem(line);
  for (auto* text : reference_texts_) plot_->removeItem(text);
  reference_lines_.clear();
  reference_texts_.clear();
  QFont f = font();
  f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1));
  for (const auto& r : visibleReferences()) {
    if (log_y_ && r.loss <= 0) continue;
    auto* line = new QCPItemStraightLine(plot_);
    line->setPen(QPen(r.best ? kReferenceColor.darker(160) : kReferenceColor, r.best ? 2.0 : 1.2,
                      Qt::DashLine));
    for (QCPItemPosition* p : {line->point1, line->point2}) {
      p->setTypeX(QCPItemPosition::ptAxisRectRatio);  // the whole width
      p->setTypeY(QCPItemPosition::ptPlotCoords);
    }
    line->point1->setCoords(0, r.loss);
    line->point2->setCoords(1, r.loss);
    auto* text = new QCPItemText(plot_);
    text->setText(
        QString("%1%2 %3").arg(r.best ? "best reference: " : "", r.label).arg(r.loss, 0, 'g', 3));
    text->setColor(kReferenceColor.darker(130));
    text->setFont(f);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setTypeY(QCPItemPosition::ptPlotCoords);
    // Ending at 3/4 of the width: clear of the first, high steps.
    text->position->setCoords(0.75, r.loss);
    text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    text->setPadding(QMargins(2, 0, 2, 1));
    text->setBrush(QColor(255, 255, 255, 190));  // readable over the curves
    reference_lines_.push_back(line);
    reference_texts_.push_back(text);
  }
}

}  // namespace rsalab
