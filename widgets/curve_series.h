// SPDX-License-Identifier: GPL-3.0-or-later
// CurveSeries: every point of one training curve (step, samples seen, value) plus its EMA-smoothed
// copy, and the per-pixel min/max decimation LossCurveView draws from. All points are kept; only
// drawing is decimated, so zooming in always shows the real data.
#pragma once

#include <qcustomplot.h>

#include <vector>

namespace rsalab {

class CurveSeries {
 public:
  // Steps (and samples) must be non-decreasing within a series: a restarted run is a new series.
  void append(double step, double samples_seen, double value);
  void clear();
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }

  const std::vector<double>& steps() const { return steps_; }
  const std::vector<double>& samplesSeen() const { return samples_; }
  const std::vector<double>& values() const { return values_; }
  const std::vector<double>& smoothed() const { return smoothed_; }

  // Debiased exponential moving average, as TensorBoard draws it:
  //   m_t = α·m_{t-1} + (1-α)·y_t, m_{-1} = 0;  s_t = m_t / (1 - α^{t+1}).
  // α = 0 leaves the curve unchanged; non-finite values are skipped (s_t repeats s_{t-1}).
  void setSmoothing(double alpha);  // clamped to [0, 0.999]
  double smoothing() const { return alpha_; }

  // Value bounds over finite values (the smoothed curve stays inside them); the smallest positive
  // value for log axes. NaN when there is none.
  double minValue() const { return min_; }
  double maxValue() const { return max_; }
  double minPositiveValue() const { return min_positive_; }

 private:
  void smoothNext(double value);

  std::vector<double> steps_, samples_, values_, smoothed_;
  double alpha_ = 0;
  double ema_ = 0;         // biased running average m_t
  double ema_weight_ = 0;  // 1 - α^{n} over the finite values seen
  double min_ = NAN, max_ = NAN, min_positive_ = NAN;
};

// Appends to `out` at most two points (the minimum and the maximum, in data order) per pixel
// column of the range [lo, hi] split into `columns` columns, plus the nearest point outside the
// range on each side so lines run to the plot edges. `x` must be sorted ascending. Points with a
// non-finite value, or a non-positive one when `positive_only` (log axes), are skipped.
void decimateMinMax(const std::vector<double>& x, const std::vector<double>& y, double lo,
                    double hi, int columns, bool positive_only, QVector<QCPGraphData>* out);

}  // namespace rsalab
