// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/curve_series.h"

#include <algorithm>
#include <cmath>

namespace rsalab {

void CurveSeries::append(double step, double samples_seen, double value) {
  steps_.push_back(step);
  samples_.push_back(samples_seen);
  values_.push_back(value);
  if (std::isfinite(value)) {
    min_ = std::isnan(min_) ? value : std::min(min_, value);
    max_ = std::isnan(max_) ? value : std::max(max_, value);
    if (value > 0)
      min_positive_ = std::isnan(min_positive_) ? value : std::min(min_positive_, value);
  }
  smoothNext(value);
}

void CurveSeries::clear() { *this = CurveSeries(); }

void CurveSeries::setSmoothing(double alpha) {
  alpha = std::clamp(alpha, 0.0, 0.999);
  if (alpha == alpha_) return;
  alpha_ = alpha;
  smoothed_.clear();
  ema_ = ema_weight_ = 0;
  for (double v : values_) smoothNext(v);
}

void CurveSeries::smoothNext(double value) {
  if (std::isfinite(value)) {
    ema_ = alpha_ * ema_ + (1 - alpha_) * value;
    ema_weight_ = alpha_ * ema_weight_ + (1 - alpha_);  // = 1 - α^{n}
  }
  smoothed_.push_back(ema_weight_ > 0 ? ema_ / ema_weight_ : value);
}

void decimateMinMax(const std::vector<double>& x, const std::vector<double>& y, double lo,
                    double hi, int columns, bool positive_only, QVector<QCPGraphData>* out) {
  auto usable = [&](size_t i) { return std::isfinite(y[i]) && (!positive_only || y[i] > 0); };
  if (x.empty() || !(hi > lo) || columns < 1) return;
  const size_t begin = size_t(std::lower_bound(x.begin(), x.end(), lo) - x.begin());
  const size_t end = size_t(std::upper_bound(x.begin(), x.end(), hi) - x.begin());
  // The nearest usable point left of the range, so the line enters from the edge.
  for (size_t i = begin; i-- > 0;) {
    if (usable(i)) {
      out->append(QCPGraphData(x[i], y[i]));
      break;
    }
  }
  const double per_column = double(columns) / (hi - lo);
  long bucket = -1;
  size_t min_i = 0, max_i = 0;
  auto flush = [&]() {
    if (bucket < 0) return;
    const size_t a = std::min(min_i, max_i), b = std::max(min_i, max_i);
    out->append(QCPGraphData(x[a], y[a]));
    if (b != a) out->append(QCPGraphData(x[b], y[b]));
  };
  for (size_t i = begin; i < end; ++i) {
    if (!usable(i)) continue;
    const long column = std::min(long((x[i] - lo) * per_column), long(columns - 1));
    if (column != bucket) {
      flush();
      bucket = column;
      min_i = max_i = i;
    } else if (y[i] < y[min_i]) {
      min_i = i;
    } else if (y[i] > y[max_i]) {
      max_i = i;
    }
  }
  flush();
  for (size_t i = end; i < x.size(); ++i) {
    if (usable(i)) {
      out->append(QCPGraphData(x[i], y[i]));
      break;
    }
  }
}

}  // namespace rsalab
