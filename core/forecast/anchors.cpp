// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/forecast/anchors.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rsalab::forecast {

void checkProblem(const UnivariateProblem& p) {
  const auto L = static_cast<int64_t>(p.y.size());
  if (p.fit_end < 1 || p.fit_end > L)
    throw std::invalid_argument("anchor: fit_end " + std::to_string(p.fit_end) + " outside 1.." +
                                std::to_string(L));
  if (p.horizon < 1 || p.period < 1)
    throw std::invalid_argument("anchor: horizon and period must be ≥ 1");
  for (size_t k = 0; k < p.origins.size(); ++k) {
    const int64_t o = p.origins[k];
    if (o < p.fit_end - 1 || o > L - 1 - p.horizon)
      throw std::invalid_argument("anchor: origin " + std::to_string(o) + " outside " +
                                  std::to_string(p.fit_end - 1) + ".." +
                                  std::to_string(L - 1 - p.horizon));
    if (k > 0 && o <= p.origins[k - 1])
      throw std::invalid_argument("anchor: origins must increase");
  }
  for (double v : p.y)
    if (!std::isfinite(v)) throw std::invalid_argument("anchor: the series has a non-finite value");
}

const std::vector<AnchorRow>& anchorTable() {
  static const std::vector<AnchorRow> table = {
      {"ets", "ETS", &etsForecast, 24},
      {"auto_arima", "auto ARIMA", &autoArimaForecast, 24},
      {"theta", "Theta", &thetaForecast, 1 << 30},
  };
  return table;
}

AnchorScores computeAnchors(const AnchorInput& in) {
  const int64_t C = in.columns, H = in.horizon;
  if (C < 1 || in.values.size() % static_cast<size_t>(C) != 0 ||
      in.scale.size() != static_cast<size_t>(C))
    throw std::invalid_argument("anchors: the series is not (rows × columns) with a scale each");
  const int64_t L = static_cast<int64_t>(in.values.size()) / C;
  // The fit window: the whole train part, or its tail when it is very long. Rows before it are
  // never read (the state starts at the window), so every origin is shifted by `offset`.
  const int64_t offset = std::max<int64_t>(0, in.train_end - in.max_fit_rows);
  AnchorScores out;
  if (C > in.max_columns) {
    out.notes.push_back("anchors (ETS, ARIMA, Theta) left out: " + std::to_string(C) +
                        " columns, more than " + std::to_string(in.max_columns) +
                        " univariate fits each; choose columns with --target");
    return out;
  }
  if (offset > 0)
    out.notes.push_back("anchors fitted on the last " + std::to_string(in.train_end - offset) +
                        " of the " + std::to_string(in.train_end) + " train rows");
  // Validation and test origins in one increasing list: one pass per anchor and column.
  std::vector<int64_t> origins = in.validation_origins;
  origins.insert(origins.end(), in.test_origins.begin(), in.test_origins.end());
  std::sort(origins.begin(), origins.end());
  origins.erase(std::unique(origins.begin(), origins.end()), origins.end());
  auto position = [&](int64_t o) {
    return std::lower_bound(origins.begin(), origins.end(), o) - origins.begin();
  };
  for (const auto& row : anchorTable()) {
    double validation = 0, test = 0;
    std::string forms;
    bool ok = true;
    for (int64_t c = 0; c < C && ok; ++c) {
      UnivariateProblem p;
      p.y.reserve(static_cast<size_t>(L - offset));
      for (int64_t r = offset; r < L; ++r) p.y.push_back(in.values[static_cast<size_t>(r * C + c)]);
      p.fit_end = in.train_end - offset;
      p.period = std::max<int64_t>(1, in.period);
      if (p.period > row.max_period) {
        if (c == 0)
          out.notes.push_back(std::string(row.label) +
                              " fitted without a season: P = " + std::to_string(p.period) +
                              " is above its limit " + std::to_string(row.max_period));
        p.period = 1;
      }
      p.horizon = H;
      for (int64_t o : origins) p.origins.push_back(o - offset);
      try {
        const auto f = row.forecast(p);
        const double s2 = in.scale[static_cast<size_t>(c)] * in.scale[static_cast<size_t>(c)];
        auto mse = [&](const std::vector<int64_t>& part) {
          double sum = 0;
          for (int64_t o : part) {
            const auto k = static_cast<size_t>(position(o));
            for (int64_t h = 1; h <= H; ++h) {
              const double e = f.mean[k * static_cast<size_t>(H) + static_cast<size_t>(h - 1)] -
                               in.values[static_cast<size_t>((o + h) * C + c)];
              sum += e * e / s2;
            }
          }
          return part.empty() ? std::nan("") : sum / static_cast<double>(part.size() * H);
        };
        validation += mse(in.validation_origins) / static_cast<double>(C);
        test += mse(in.test_origins) / static_cast<double>(C);
        if (C == 1 || forms.empty())
          forms = f.model;
        else if (forms.find(f.model) == std::string::npos)
          forms += ", " + f.model;
      } catch (const std::exception& e) {
        out.notes.push_back(std::string(row.label) + " left out: " +
                            (C > 1 ? "column " + std::to_string(c + 1) + ": " : "") + e.what());
        ok = false;
      }
    }
    if (!ok) continue;
    if (!std::isfinite(validation) && !in.validation_origins.empty()) {
      out.notes.push_back(std::string(row.label) + " left out: a non-finite forecast");
      continue;
    }
    out.scores.push_back({row.name, forms.empty() ? row.label : forms, validation, test});
  }
  return out;
}

}  // namespace rsalab::forecast
