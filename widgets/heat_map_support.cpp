// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/heat_map_support.h"

#include <algorithm>
#include <cmath>

namespace rsalab {

QCPColorGradient viridisGradient() {
  static const QRgb kStops[] = {0x440154, 0x482878, 0x3E4989, 0x31688E, 0x26828E,
                                0x1F9E89, 0x35B779, 0x6DCD59, 0xB4DE2C, 0xFDE725};
  constexpr int n = static_cast<int>(sizeof(kStops) / sizeof(kStops[0]));
  QCPColorGradient g;
  g.clearColorStops();
  for (int i = 0; i < n; ++i) g.setColorStopAt(double(i) / (n - 1), QColor(kStops[i]));
  g.setColorInterpolation(QCPColorGradient::ciRGB);
  g.setLevelCount(256);
  g.setNanHandling(QCPColorGradient::nhNanColor);
  g.setNanColor(QColor(200, 200, 200));
  return g;
}

QCPColorGradient divergingGradient() {
  static const QRgb kStops[] = {0x2166AC, 0x4393C3, 0x92C5DE, 0xD1E5F0, 0xF7F7F7,
                                0xFDDBC7, 0xF4A582, 0xD6604D, 0xB2182B};
  constexpr int n = static_cast<int>(sizeof(kStops) / sizeof(kStops[0]));
  QCPColorGradient g;
  g.clearColorStops();
  for (int i = 0; i < n; ++i) g.setColorStopAt(double(i) / (n - 1), QColor(kStops[i]));
  g.setColorInterpolation(QCPColorGradient::ciRGB);
  g.setLevelCount(257);  // odd: 0 (the centre) falls exactly on a level, so it stays white
  g.setNanHandling(QCPColorGradient::nhNanColor);
  g.setNanColor(QColor(200, 200, 200));
  return g;
}

ColorMode resolveColorMode(ColorMode requested, const Matrix& m) {
  if (requested != ColorMode::kAuto) return requested;
  for (float v : m.values) {
    if (v < 0) return ColorMode::kDiverging;
  }
  return ColorMode::kSequential;
}

QCPRange colorRangeFor(ColorMode resolved, const Matrix& m) {
  double lo = INFINITY, hi = -INFINITY, amax = 0;
  for (float v : m.values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, double(v));
    hi = std::max(hi, double(v));
    amax = std::max(amax, std::abs(double(v)));
  }
  if (resolved == ColorMode::kDiverging) {
    if (!(amax > 0)) amax = 1;
    return QCPRange(-amax, amax);
  }
  if (!std::isfinite(lo)) return QCPRange(0, 1);
  if (!(hi > lo)) return QCPRange(lo - 0.5, hi + 0.5);
  return QCPRange(lo, hi);
}

QCPRange unitedRange(ColorMode resolved, const QCPRange& a, const QCPRange& b) {
  if (resolved == ColorMode::kDiverging) {
    const double amax =
        std::max({std::abs(a.lower), std::abs(a.upper), std::abs(b.lower), std::abs(b.upper)});
    return QCPRange(-amax, amax);
  }
  return QCPRange(std::min(a.lower, b.lower), std::max(a.upper, b.upper));
}

Matrix downsampleBlockMean(const Matrix& m, int64_t max_rows, int64_t max_cols) {
  if (m.rows <= max_rows && m.cols <= max_cols) return m;
  Matrix out;
  out.rows = std::min(m.rows, max_rows);
  out.cols = std::min(m.cols, max_cols);
  out.values.assign(static_cast<size_t>(out.rows * out.cols), 0.f);
  // Block i covers source rows [floor(i·R/r), floor((i+1)·R/r)): every source cell counted once.
  auto bound = [](int64_t i, int64_t full, int64_t n) { return i * full / n; };
  std::vector<double> sum(static_cast<size_t>(out.cols));
  std::vector<int64_t> count(static_cast<size_t>(out.cols));
  for (int64_t i = 0; i < out.rows; ++i) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(count.begin(), count.end(), 0);
    for (int64_t r = bound(i, m.rows, out.rows); r < bound(i + 1, m.rows, out.rows); ++r) {
      const float* row = m.values.data() + r * m.cols;
      for (int64_t j = 0; j < out.cols; ++j) {
        for (int64_t c = bound(j, m.cols, out.cols); c < bound(j + 1, m.cols, out.cols); ++c) {
          if (std::isfinite(row[c])) {
            sum[size_t(j)] += row[c];
            ++count[size_t(j)];
          }
        }
      }
    }
    for (int64_t j = 0; j < out.cols; ++j) {
      out.values[size_t(i * out.cols + j)] =
          count[size_t(j)] ? float(sum[size_t(j)] / double(count[size_t(j)])) : NAN;
    }
  }
  return out;
}

void fillColorMap(QCPColorMap* map, const Matrix& drawn, int64_t full_rows, int64_t full_cols) {
  auto* data = map->data();
  const int nx = int(drawn.cols), ny = int(drawn.rows);
  // Drawn cell j spans full_cols/nx source columns; its centre in source coordinates:
  const double sx = double(full_cols) / std::max(nx, 1), sy = double(full_rows) / std::max(ny, 1);
  const QCPRange keys(0.5 * sx - 0.5, (nx - 0.5) * sx - 0.5);
  const QCPRange values(0.5 * sy - 0.5, (ny - 0.5) * sy - 0.5);
  if (data->keySize() != nx || data->valueSize() != ny) data->setSize(nx, ny);
  // A single cell has an empty key range; QCustomPlot then draws it one unit wide around the key.
  data->setRange(keys, values);
  for (int r = 0; r < ny; ++r) {
    for (int c = 0; c < nx; ++c) data->setCell(c, r, drawn.at(r, c));
  }
}

QString positionText(int index, const QStringList& labels) {
  if (index >= 0 && index < labels.size() && !labels[index].isEmpty()) {
    return QStringLiteral("%1 (%2)").arg(index).arg(labels[index]);
  }
  return QString::number(index);
}

}  // namespace rsalab
