// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/anchors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/core/forecast/anchors_build.h"
#include "engine/core/io/text.h"

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
      {"ets", "ETS", &etsForecast, 24, 2},
      {"auto_arima", "auto ARIMA", &autoArimaForecast, 24, 3},
      {"theta", "Theta", &thetaForecast, 1 << 30, 1},
  };
  return table;
}

const AnchorBudget& anchorBudget(AnchorMode mode) {
  static const AnchorBudget table[] = {
      {AnchorMode::All, 8192, 48000, 1, 12},
      {AnchorMode::Fast, 2000, 12000, 1, 0},
      {AnchorMode::None, 0, 0, 0, 0},
  };
  for (const auto& b : table)
    if (b.mode == mode) return b;
  return table[0];
}

namespace {

int64_t fitRows(const AnchorInput& in) {
  const auto& b = anchorBudget(in.mode);
  const int64_t limit =
      in.max_fit_rows > 0
          ? in.max_fit_rows
          : std::min(b.max_fit_rows, b.period_rows / std::max<int64_t>(1, in.period));
  return std::min(in.train_end, std::max<int64_t>(1, limit));
}

std::string columnName(const AnchorInput& in, int64_t c) {
  const auto k = static_cast<size_t>(c);
  if (k < in.column_names.size() && !in.column_names[k].empty()) return in.column_names[k];
  return "column " + std::to_string(c + 1);
}

// One anchor on one column: its squared errors summed over the validation and the test origins.
struct Fit {
  size_t row = 0;
  int64_t column = 0;
  bool done = false;
  std::string model, error;
  double validation = 0, test = 0;  // sums of e² / scale² over origins and steps
  // Per test origin, over its steps: the sum of e² / scale² and of |e| / scale / MASE scale.
  std::vector<double> test_squared, test_scaled;
  double seconds = 0;
};

}  // namespace

std::string anchorPlan(const AnchorInput& in) {
  if (in.mode == AnchorMode::None || in.columns > in.max_columns || in.columns < 1) return "";
  if (!anchorsAvailable()) return kNoAnchors;
  const int64_t fits = static_cast<int64_t>(anchorTable().size()) * in.columns;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const int64_t threads =
      std::min<int64_t>(fits, in.threads > 0 ? in.threads : static_cast<int64_t>(cores));
  const std::string labels =
      joined(anchorTable(), ", ", [](const auto& row) { return std::string(row.label); });
  const auto& b = anchorBudget(in.mode);
  std::string text =
      labels + " on " + std::to_string(in.columns) + " column(s), fitted on " +
      (fitRows(in) < in.train_end ? "the last " + std::to_string(fitRows(in)) + " of the " +
                                        std::to_string(in.train_end) + " train rows"
                                  : "the " + std::to_string(in.train_end) + " train rows") +
      ", period " + std::to_string(std::max<int64_t>(1, in.period));
  if (!in.period_rule.empty()) text += " (" + in.period_rule + ")";
  if (in.period > b.long_period && in.period > 1)
    text += ", seasonal ARIMA orders ≤ " + std::to_string(b.max_seasonal_order);
  text += "; " + std::to_string(fits) + " fits on " + std::to_string(threads) + " thread(s)";
  text += " (--anchors " + std::string(anchorModeName(in.mode)) + ")";
  return text;
}

AnchorScores computeAnchors(const AnchorInput& in) {
  const int64_t C = in.columns, H = in.horizon;
  if (C < 1 || in.values.size() % static_cast<size_t>(C) != 0 ||
      in.scale.size() != static_cast<size_t>(C))
    throw std::invalid_argument("anchors: the series is not (rows × columns) with a scale each");
  const int64_t L = static_cast<int64_t>(in.values.size()) / C;
  AnchorScores out;
  if (in.mode == AnchorMode::None) {
    out.notes.push_back("anchors (ETS, ARIMA, Theta) not fitted: --anchors none");
    return out;
  }
  if (!anchorsAvailable()) {
    out.notes.push_back(kNoAnchors);
    return out;
  }
  if (C > in.max_columns) {
    out.notes.push_back("anchors (ETS, ARIMA, Theta) left out: " + std::to_string(C) +
                        " columns, more than " + std::to_string(in.max_columns) +
                        " univariate fits each; choose columns with --target");
    return out;
  }
  // The fit window: the whole train part, or its tail when it is long. Rows before it are never
  // read (the state starts at the window), so every origin is shifted by `offset`.
  const int64_t offset = in.train_end - fitRows(in);
  if (offset > 0)
    out.notes.push_back("anchors fitted on the last " + std::to_string(in.train_end - offset) +
                        " of the " + std::to_string(in.train_end) + " train rows (--anchors " +
                        anchorModeName(in.mode) + ")");
  const auto& budget = anchorBudget(in.mode);
  const int64_t period = std::max<int64_t>(1, in.period);
  const int64_t seasonal_order = period > budget.long_period ? budget.max_seasonal_order : 2;
  if (period > 1 && seasonal_order < 2)
    out.notes.push_back("auto ARIMA searched seasonal orders P, Q ≤ " +
                        std::to_string(seasonal_order) + " (period " + std::to_string(period) +
                        ", --anchors " + anchorModeName(in.mode) + ")");
  // Validation and test origins in one increasing list: one pass per anchor and column.
  std::vector<int64_t> origins = in.validation_origins;
  origins.insert(origins.end(), in.test_origins.begin(), in.test_origins.end());
  std::sort(origins.begin(), origins.end());
  origins.erase(std::unique(origins.begin(), origins.end()), origins.end());
  auto position = [&](int64_t o) {
    return static_cast<size_t>(std::lower_bound(origins.begin(), origins.end(), o) -
                               origins.begin());
  };
  const auto& table = anchorTable();
  for (size_t r = 0; r < table.size(); ++r)
    if (period > table[r].max_period)
      out.notes.push_back(std::string(table[r].label) +
                          " fitted without a season: P = " + std::to_string(period) +
                          " is above its limit " + std::to_string(table[r].max_period));

  // Every (anchor, column) fit is independent: the costliest anchors are started first.
  std::vector<Fit> fits;
  for (size_t r = 0; r < table.size(); ++r)
    for (int64_t c = 0; c < C; ++c) {
      Fit fit;
      fit.row = r;
      fit.column = c;
      fits.push_back(fit);
    }
  std::stable_sort(fits.begin(), fits.end(), [&](const Fit& a, const Fit& b) {
    return table[a.row].cost > table[b.row].cost;
  });
  auto fitOne = [&](Fit& fit) {
    const auto& row = table[fit.row];
    const int64_t c = fit.column;
    UnivariateProblem p;
    p.y.reserve(static_cast<size_t>(L - offset));
    for (int64_t r = offset; r < L; ++r) p.y.push_back(in.values[static_cast<size_t>(r * C + c)]);
    p.fit_end = in.train_end - offset;
    p.period = period > row.max_period ? 1 : period;
    p.max_seasonal_order = seasonal_order;
    p.horizon = H;
    for (int64_t o : origins) p.origins.push_back(o - offset);
    const auto start = std::chrono::steady_clock::now();
    try {
      const auto f = row.forecast(p);
      const double s1 = in.scale[static_cast<size_t>(c)];
      const double mase = in.mase_scale.size() == static_cast<size_t>(C)
                              ? in.mase_scale[static_cast<size_t>(c)]
                              : std::nan("");
      auto sum = [&](const std::vector<int64_t>& part, bool per_target) {
        double total = 0;
        for (int64_t o : part) {
          const size_t k = position(o);
          double sq = 0, ab = 0;
          for (int64_t h = 1; h <= H; ++h) {
            const double e = f.mean[k * static_cast<size_t>(H) + static_cast<size_t>(h - 1)] -
                             in.values[static_cast<size_t>((o + h) * C + c)];
            sq += e * e / (s1 * s1);
            ab += std::fabs(e) / s1 / mase;
          }
          total += sq;
          if (per_target) fit.test_squared.push_back(sq), fit.test_scaled.push_back(ab);
        }
        return total;
      };
      fit.validation = sum(in.validation_origins, false);
      fit.test = sum(in.test_origins, true);
      fit.model = f.model;
    } catch (const std::exception& e) {
      fit.error = e.what();
    }
    fit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fit.done = true;
  };

  const auto started = std::chrono::steady_clock::now();
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers =
      std::min(fits.size(), static_cast<size_t>(in.threads > 0 ? in.threads : cores));
  std::atomic<size_t> next{0};
  std::mutex report;
  int64_t finished = 0;
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < fits.size();) {
      if (in.cancel && in.cancel->load()) return;
      fitOne(fits[k]);
      std::lock_guard<std::mutex> lock(report);
      ++finished;
      if (in.progress) {
        const Fit& f = fits[k];
        in.progress({table[f.row].label, columnName(in, f.column), f.model, f.error, f.seconds,
                     finished, static_cast<int64_t>(fits.size())});
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const double per_validation = static_cast<double>(in.validation_origins.size() * H) * C;
  const double per_test = static_cast<double>(in.test_origins.size() * H) * C;
  for (size_t r = 0; r < table.size(); ++r) {
    const auto& row = table[r];
    double validation = 0, test = 0;
    const size_t targets = in.test_origins.size();
    std::vector<double> squared(targets, 0.0), scaled(targets, 0.0);
    std::string failure;
    std::vector<std::string> forms;  // the distinct chosen forms, in column order
    bool complete = true;
    for (const auto& f : fits) {
      if (f.row != r) continue;
      if (!f.done) {
        complete = false;
        continue;
      }
      if (!f.error.empty()) {
        if (failure.empty())
          failure = (C > 1 ? columnName(in, f.column) + ": " : std::string()) + f.error;
        continue;
      }
      validation += f.validation;
      test += f.test;
      for (size_t t = 0; t < targets && t < f.test_squared.size(); ++t)
        squared[t] += f.test_squared[t], scaled[t] += f.test_scaled[t];
      if (std::find(forms.begin(), forms.end(), f.model) == forms.end()) forms.push_back(f.model);
    }
    if (!complete) {
      out.cancelled = true;
      continue;
    }
    if (!failure.empty()) {
      out.notes.push_back(std::string(row.label) + " left out: " + failure);
      continue;
    }
    validation = in.validation_origins.empty() ? std::nan("") : validation / per_validation;
    test = in.test_origins.empty() ? std::nan("") : test / per_test;
    if (!std::isfinite(validation) && !in.validation_origins.empty()) {
      out.notes.push_back(std::string(row.label) + " left out: a non-finite forecast");
      continue;
    }
    // The label names the chosen forms; with more than two (one fit per column of a wide series)
    // it counts them instead, and the progress lines name each.
    std::string label = forms.size() > 2
                            ? std::string(row.label) + " (" + std::to_string(C) + " column fits, " +
                                  std::to_string(forms.size()) + " forms)"
                            : joined(forms);
    if (label.empty()) label = row.label;
    ReferenceScore score{row.name, label, validation, test};
    const double per = static_cast<double>(H * C);
    double mase = 0;
    for (size_t t = 0; t < targets; ++t) {
      squared[t] /= per;
      mase += (scaled[t] /= per);
    }
    score.test_mase = targets > 0 ? mase / static_cast<double>(targets) : std::nan("");
    score.test_errors = std::move(squared);
    out.scores.push_back(std::move(score));
  }
  return out;
}

}  // namespace rsalab::forecast
