// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/elided_label.h"

#include <QPainter>
#include <QStyle>

namespace rsalab {

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent) : QFrame(parent) {
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  setText(text);
}

void ElidedLabel::setText(const QString& text) {
  const QString line = QString(text).replace('\n', ' ');
  if (line == text_) return;
  text_ = line;
  updateToolTip();
  updateGeometry();
  update();
}

QString ElidedLabel::shownText() const {
  return fontMetrics().elidedText(text_, Qt::ElideRight, contentsRect().width());
}

QSize ElidedLabel::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  return {fm.horizontalAdvance(text_) + 2 * frameWidth() + 4, fm.height() + 2 * frameWidth()};
}

QSize ElidedLabel::minimumSizeHint() const {
  const QFontMetrics fm = fontMetrics();
  return {fm.horizontalAdvance(QStringLiteral("…")) * 4, fm.height() + 2 * frameWidth()};
}

void ElidedLabel::paintEvent(QPaintEvent* event) {
  QFrame::paintEvent(event);
  QPainter painter(this);
  painter.setPen(palette().color(foregroundRole()));
  painter.drawText(contentsRect(), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine,
                   shownText());
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
  QFrame::resizeEvent(event);
  updateToolTip();
}

void ElidedLabel::updateToolTip() { setToolTip(isElided() ? text_ : QString()); }

}  // namespace rsalab
