// SPDX-License-Identifier: GPL-3.0-or-later
// Automatic ARIMA. The method is Hyndman & Khandakar (2008), "Automatic time series forecasting:
// the forecast package for R", Journal of Statistical Software 27(3). The defaults and limits
// below that the paper does not fix are the R forecast package's (auto.arima's help page and its
// source, forecast 8.20), credited to the package, not to the paper: the seasonal-strength
// threshold 0.64 for D, the budget of 94 fitted models in the stepwise search, the switch to a
// conditional-sum-of-squares search above 150 rows or for a period above 12, the 1.01 margin of
// the roots, and the order limits. Written from those descriptions in our own words:
//   * D (0 or 1) from the seasonal strength of an STL decomposition of the fit part: one seasonal
//     difference when it is at least 0.64 (engine/core/forecast/stl.h);
//   * d (0 … 2) by repeated KPSS tests of level stationarity (Kwiatkowski, Phillips, Schmidt &
//     Shin 1992) at the 5 % level on the seasonally differenced series, with ⌊3 √n / 13⌋
//     Bartlett lags (forecast::ndiffs): difference while the test rejects;
//   * the orders' limits from the n rows of the fit part: p, q ≤ min(5, ⌊n/3⌋), P, Q ≤
//     min(2, ⌊n/(3m)⌋), and p, q ≤ m − 1 when seasonal terms are allowed;
//   * the stepwise search: the starting orders (2,2)(1,1), (0,0)(0,0), (1,0)(1,0), (0,1)(0,1)
//     (each capped by the limits), with a constant when d + D ≤ 1, and (0,0)(0,0) without it;
//     then from the current order the moves P−1, Q−1, P+1, Q+1, both of P and Q by ±1 in the four
//     sign combinations, the same for p and q, and the constant switched, in that order: the
//     first that lowers the AICc becomes the current order and the moves start again;
//   * orders with a root of the expanded AR or MA polynomial within 1.01 of the unit circle are
//     passed over;
//   * on a long series (more than 150 rows, or a period above 12) the search scores orders by
//     their conditional-sum-of-squares fit, all on the same rows, and only the chosen order (or,
//     failing it, the next best) is fitted by exact maximum likelihood.
// The differenced series and its Kalman filter carry the forecasts; they are summed back into
// the series through the differencing polynomial (arima::originForecasts).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "engine/core/forecast/arima_model.h"
#include "engine/core/forecast/forecast.h"
#include "engine/core/forecast/series_tools.h"
#include "engine/core/forecast/stl.h"

namespace rsalab::forecast {
namespace {

using arima::Order;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kKpssCritical5 = 0.463;  // the level-stationarity test's 5 % point (KPSS 1992)
constexpr double kSeasonalStrength = 0.64;
// The search's limits: p, q ≤ 5, at most two differences, and a budget of 94 fitted orders.
constexpr int kMaxP = 5, kMaxQ = 5, kMaxD = 2, kMaxModels = 94;
constexpr int kExactAttempts = 3;  // exact refits of a long series' best CSS orders, at most

// The KPSS statistic for level stationarity: the partial sums of the demeaned series against
// its long-run variance (Bartlett weights over l = ⌊3 √n / 13⌋ lags, forecast::ndiffs' choice).
double kpssStatistic(const std::vector<double>& x) {
  const auto n = static_cast<int64_t>(x.size());
  const double mean = sampleMean(x);
  std::vector<double> e(x.size());
  for (size_t i = 0; i < x.size(); ++i) e[i] = x[i] - mean;
  double partial = 0, sum_partials = 0, variance = 0;
  for (double v : e) {
    partial += v;
    sum_partials += partial * partial;
    variance += v * v;
  }
  const auto lags = static_cast<int64_t>(std::floor(3 * std::sqrt(static_cast<double>(n)) / 13));
  for (int64_t s = 1; s <= lags && s < n; ++s) {
    double cross = 0;
    for (int64_t t = s; t < n; ++t)
      cross += e[static_cast<size_t>(t)] * e[static_cast<size_t>(t - s)];
    variance += 2 * (1 - static_cast<double>(s) / static_cast<double>(lags + 1)) * cross;
  }
  const double nd = static_cast<double>(n);
  variance /= nd;
  return variance > 0 ? sum_partials / (nd * nd * variance) : 0;
}

int chooseDifferences(std::vector<double> x) {
  int d = 0;
  while (d < kMaxD && x.size() > 3 && !isConstant(x) && kpssStatistic(x) > kKpssCritical5) {
    x = arima::difference(x, 1, 0, 1);
    ++d;
  }
  return d;
}

struct Search {
  const std::vector<double>& w;
  bool approximate;
  int64_t css_from;
  int max_p, max_q, max_P, max_Q;
  bool allow_constant;
  std::map<Order, arima::Fit> tried;

  double score(const Order& o) {
    auto found = tried.find(o);
    if (found != tried.end()) return found->second.aicc;
    arima::Fit f =
        arima::fit(w, o, approximate ? arima::Method::Css : arima::Method::Exact, css_from);
    if (!std::isfinite(f.aicc) || arima::nearUnitRoot(f.coef, o.m)) f.aicc = kInf;
    return tried.emplace(o, f).first->second.aicc;
  }
  bool valid(const Order& o) const {
    return o.p >= 0 && o.q >= 0 && o.P >= 0 && o.Q >= 0 && o.p <= max_p && o.q <= max_q &&
           o.P <= max_P && o.Q <= max_Q && (allow_constant || !o.constant);
  }

  Order run(const Order& base) {
    Order current = base;
    double best = kInf;
    auto consider = [&](Order o) {
      const double v = score(o);
      if (v < best) best = v, current = o;
    };
    auto start = [&](int p, int q, int P, int Q, bool constant) {
      Order o = base;
      o.p = std::min(p, max_p), o.q = std::min(q, max_q);
      o.P = std::min(P, max_P), o.Q = std::min(Q, max_Q);
      o.constant = constant;
      consider(o);
    };
    start(2, 2, 1, 1, base.constant);
    start(0, 0, 0, 0, base.constant);
    start(1, 0, 1, 0, base.constant);
    start(0, 1, 0, 1, base.constant);
    if (base.constant) start(0, 0, 0, 0, false);
    // The moves in forecast::auto.arima's order: seasonal, then non-seasonal, then the constant.
    static const int kMoves[][4] = {{0, 0, -1, 0},  {0, 0, 0, -1}, {0, 0, 1, 0},  {0, 0, 0, 1},
                                    {0, 0, -1, -1}, {0, 0, -1, 1}, {0, 0, 1, -1}, {0, 0, 1, 1},
                                    {-1, 0, 0, 0},  {0, -1, 0, 0}, {1, 0, 0, 0},  {0, 1, 0, 0},
                                    {-1, -1, 0, 0}, {-1, 1, 0, 0}, {1, -1, 0, 0}, {1, 1, 0, 0}};
    bool moved = true;
    while (moved && static_cast<int>(tried.size()) < kMaxModels) {
      moved = false;
      std::vector<Order> neighbours;
      for (const auto& move : kMoves) {
        Order o = current;
        o.p += move[0], o.q += move[1], o.P += move[2], o.Q += move[3];
        neighbours.push_back(o);
      }
      Order toggled = current;
      toggled.constant = !current.constant;
      neighbours.push_back(toggled);
      for (const Order& o : neighbours) {
        if (!valid(o) || tried.count(o) || static_cast<int>(tried.size()) >= kMaxModels) continue;
        const double v = score(o);
        if (v < best) {
          best = v, current = o, moved = true;
          break;
        }
      }
    }
    return current;
  }
};

// The differenced fit part is constant (a straight line, a fixed season): the order without
// autoregressive or moving-average terms, its constant that value, its innovations zero (no
// likelihood, so no AICc).
arima::Fit deterministicFit(const std::vector<double>& w, Order base) {
  base.constant = w.front() != 0;
  if (base.constant && base.d + base.D > 1)
    throw std::runtime_error("ARIMA: the twice-differenced fit part is a nonzero constant");
  arima::Fit f;
  f.order = base;
  f.coef.mean = w.front();
  f.aicc = std::numeric_limits<double>::quiet_NaN();  // no likelihood: σ² = 0
  f.observations = static_cast<int64_t>(w.size());
  return f;
}

// The stepwise search, then (on a long series) the exact fit of the best CSS orders in turn:
// the first that keeps clear of the unit circle is taken. Exact fits are costly there, so after
// three that drift onto it (typically a seasonal AR and MA pair cancelling towards a seasonal
// difference) the best of those is kept: it is still strictly stationary and invertible.
arima::Fit searchAndFit(const std::vector<double>& w, Order base, int64_t n,
                        int64_t max_seasonal_order) {
  Search search{w, n > 150 || base.m > 12, 0, 0, 0, 0, 0, base.d + base.D <= 1, {}};
  // forecast::auto.arima's limits from the fit part's n rows (seasonal terms only with a season).
  const auto third = static_cast<int>(std::min<int64_t>(n / 3, 1000));
  search.max_p = std::min(kMaxP, third), search.max_q = std::min(kMaxQ, third);
  if (base.m > 1) {
    const auto seasonal = static_cast<int>(
        std::min<int64_t>({2, std::max<int64_t>(0, max_seasonal_order), n / (3 * base.m)}));
    search.max_P = search.max_Q = seasonal;
    const auto below_period = static_cast<int>(std::min<int64_t>(base.m - 1, 1000));
    if (seasonal > 0) {
      search.max_p = std::min(search.max_p, below_period);
      search.max_q = std::min(search.max_q, below_period);
    }
  }
  // Every CSS score starts at the row the largest order considered needs.
  search.css_from = search.max_p + base.m * search.max_P;
  base.constant = search.allow_constant;
  const Order chosen = search.run(base);
  if (!search.approximate) return search.tried.at(chosen);
  std::vector<std::pair<double, Order>> ranked;
  for (const auto& [order, f] : search.tried)
    if (std::isfinite(f.aicc)) ranked.emplace_back(f.aicc, order);
  std::sort(ranked.begin(), ranked.end());
  arima::Fit fallback;
  fallback.aicc = kInf;
  int attempts = 0;
  for (const auto& entry : ranked) {
    // From the CSS estimate of a long series, where every likelihood pass is costly, the exact
    // fit gets half the usual iteration budget.
    arima::Fit f = arima::fit(w, entry.second, arima::Method::Exact, 0, 50);
    ++attempts;
    if (std::isfinite(f.aicc) && !arima::nearUnitRoot(f.coef, f.order.m)) return f;
    if (f.aicc < fallback.aicc) fallback = f;
    if (attempts >= kExactAttempts && std::isfinite(fallback.aicc)) break;
  }
  return fallback;
}

}  // namespace

UnivariateForecast autoArimaForecast(const UnivariateProblem& p) {
  checkProblem(p);
  const std::vector<double> train(p.y.begin(), p.y.begin() + p.fit_end);
  const auto n = static_cast<int64_t>(train.size());
  if (n < 8 || isConstant(train))
    throw std::runtime_error("ARIMA: the fit part is constant or shorter than 8 rows");
  Order base;
  base.m = p.period;
  const bool seasonal = p.period > 1 && n >= 2 * p.period + 1;
  if (seasonal && seasonalStrength(train, p.period) >= kSeasonalStrength) base.D = 1;
  if (!seasonal) base.m = 1;
  base.d = chooseDifferences(arima::difference(train, 0, base.D, base.m));
  const auto w = arima::difference(train, base.d, base.D, base.m);
  if (static_cast<int64_t>(w.size()) < 5)
    throw std::runtime_error("ARIMA: the differenced fit part is too short");
  const bool deterministic = isConstant(w);
  const arima::Fit final_fit =
      deterministic ? deterministicFit(w, base) : searchAndFit(w, base, n, p.max_seasonal_order);
  if (!deterministic && !std::isfinite(final_fit.aicc))
    throw std::runtime_error("ARIMA: no order could be fitted");

  UnivariateForecast out;
  out.mean = arima::originForecasts(final_fit.order, final_fit.coef, p.y, p.origins, p.horizon);
  out.model = arima::describe(final_fit.order);
  out.aicc = final_fit.aicc;
  return out;
}

}  // namespace rsalab::forecast
