// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/long_horizon.h"

#include <cmath>
#include <stdexcept>

namespace rsalab::forecast {

const char* longHorizonFeaturesName(LongHorizonFeatures f) {
  return f == LongHorizonFeatures::Multivariate ? "M" : "S";
}

LongHorizonFeatures parseLongHorizonFeatures(const std::string& text) {
  if (text == "M" || text == "multivariate") return LongHorizonFeatures::Multivariate;
  if (text == "S" || text == "univariate") return LongHorizonFeatures::Univariate;
  throw std::invalid_argument("features '" + text +
                              "': use M (every column to every column) or S (OT to OT)");
}

namespace {

std::vector<int64_t> range(int64_t first, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t s = first; s <= last; ++s) out.push_back(s);
  return out;
}

}  // namespace

LongHorizonWindows longHorizonWindows(const LongHorizonSplit& split, int64_t rows, int64_t L,
                                      int64_t H, double train_fraction) {
  if (L < 1 || H < 1)
    throw std::invalid_argument("input length " + std::to_string(L) + " and horizon " +
                                std::to_string(H) + " must be at least 1");
  if (rows < split.test_end)
    throw std::invalid_argument("the series has " + std::to_string(rows) +
                                " rows; the protocol uses the first " +
                                std::to_string(split.test_end));
  if (!(train_fraction > 0 && train_fraction <= 1))
    throw std::invalid_argument("train fraction " + std::to_string(train_fraction) +
                                " is outside (0, 1]");
  const int64_t shortest =
      std::min(split.validation_end - split.train_end, split.test_end - split.validation_end);
  if (split.train_end < L + H || shortest < H)
    throw std::invalid_argument("input length " + std::to_string(L) + " + horizon " +
                                std::to_string(H) + " do not fit the split's parts");
  LongHorizonWindows w;
  w.train = range(0, split.train_end - L - H);
  w.validation = range(split.train_end - L, split.validation_end - L - H);
  w.test = range(split.validation_end - L, split.test_end - L - H);
  const auto all = static_cast<int64_t>(w.train.size());
  const auto keep = static_cast<int64_t>(std::ceil(train_fraction * static_cast<double>(all)));
  w.train.erase(w.train.begin(), w.train.begin() + (all - std::max<int64_t>(1, keep)));
  return w;
}

ColumnScaling fitTrainScaling(const std::vector<double>& values, int64_t C, int64_t train_end) {
  if (C < 1 || train_end < 1 || static_cast<int64_t>(values.size()) < train_end * C)
    throw std::invalid_argument("fitTrainScaling: fewer than train_end rows");
  ColumnScaling s;
  s.mean.assign(static_cast<size_t>(C), 0.0);
  s.stddev.assign(static_cast<size_t>(C), 0.0);
  for (int64_t c = 0; c < C; ++c) {
    double sum = 0;
    for (int64_t r = 0; r < train_end; ++r) sum += values[static_cast<size_t>(r * C + c)];
    const double mean = sum / static_cast<double>(train_end);
    double ss = 0;
    for (int64_t r = 0; r < train_end; ++r) {
      const double d = values[static_cast<size_t>(r * C + c)] - mean;
      ss += d * d;
    }
    const double sd = std::sqrt(ss / static_cast<double>(train_end));
    s.mean[static_cast<size_t>(c)] = mean;
    s.stddev[static_cast<size_t>(c)] = sd > 0 ? sd : 1.0;
  }
  return s;
}

LongHorizonScores scoreLongHorizon(const std::vector<float>& forecast,
                                   const std::vector<float>& target, int64_t H, int64_t C,
                                   int64_t column) {
  const auto per = static_cast<size_t>(H * C);
  if (H < 1 || C < 1 || forecast.size() != target.size() || target.empty() ||
      target.size() % per != 0 || column < 0 || column >= C)
    throw std::invalid_argument("scoreLongHorizon: forecast and target must both be (N, H, C)");
  const size_t N = target.size() / per;
  LongHorizonScores s;
  s.column_mse.assign(static_cast<size_t>(C), 0.0);
  double se = 0, ae = 0;
  for (size_t n = 0; n < N; ++n) {
    double window = 0, window_column = 0;
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t c = 0; c < C; ++c) {
        const size_t i = n * per + static_cast<size_t>(h * C + c);
        const double e = static_cast<double>(forecast[i]) - static_cast<double>(target[i]);
        window += e * e;
        ae += std::fabs(e);
        s.column_mse[static_cast<size_t>(c)] += e * e;
        if (c == column) window_column += e * e;
      }
    }
    se += window;
    s.window_mse.push_back(window / static_cast<double>(per));
    s.window_column_mse.push_back(window_column / static_cast<double>(H));
  }
  const double count = static_cast<double>(N * per);
  s.mse = se / count;
  s.mae = ae / count;
  for (auto& v : s.column_mse) v /= static_cast<double>(N) * static_cast<double>(H);
  return s;
}

namespace {

std::vector<float> gather(const std::vector<double>& z, int64_t C,
                          const std::vector<int64_t>& starts, int64_t L, int64_t H,
                          bool persistence) {
  std::vector<float> out;
  out.reserve(starts.size() * static_cast<size_t>(H * C));
  for (int64_t s : starts) {
    for (int64_t h = 0; h < H; ++h) {
      const int64_t row = persistence ? s + L - 1 : s + L + h;
      if (s < 0 || (row + 1) * C > static_cast<int64_t>(z.size()))
        throw std::invalid_argument("window " + std::to_string(s) + " runs past the series");
      for (int64_t c = 0; c < C; ++c) out.push_back(static_cast<float>(z[row * C + c]));
    }
  }
  return out;
}

}  // namespace

std::vector<float> longHorizonTargets(const std::vector<double>& z, int64_t C,
                                      const std::vector<int64_t>& starts, int64_t L, int64_t H) {
  return gather(z, C, starts, L, H, /*persistence=*/false);
}

std::vector<float> persistenceForecasts(const std::vector<double>& z, int64_t C,
                                        const std::vector<int64_t>& starts, int64_t L, int64_t H) {
  return gather(z, C, starts, L, H, /*persistence=*/true);
}

}  // namespace rsalab::forecast
