// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/skill_interval.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>

#include "engine/core/forecast/t_distribution.h"
#include "engine/core/io/enums.h"

namespace rsalab {
namespace {

const EnumName<SkillVerdict> kVerdicts[] = {
    {SkillVerdict::Beats, "beats"},
    {SkillVerdict::Ties, "ties"},
    {SkillVerdict::Loses, "loses"},
    {SkillVerdict::TooFew, "too few test targets to decide"}};

// The q-quantile of sorted values (type 7: linear between order statistics).
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::string signedText(double v, int digits) {
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// Diebold–Mariano with the Harvey–Leybourne–Newbold correction (see the header).
void dieboldMariano(const std::vector<double>& m, const std::vector<double>& a, int64_t horizon,
                    SkillInterval& out) {
  const auto n = static_cast<int64_t>(m.size());
  const auto nd = static_cast<double>(n);
  std::vector<double> d(m.size());
  double mean = 0;
  for (size_t t = 0; t < m.size(); ++t) mean += (d[t] = m[t] - a[t]);
  mean /= nd;
  auto gamma = [&](int64_t k) {
    double s = 0;
    for (int64_t t = k; t < n; ++t)
      s += (d[static_cast<size_t>(t)] - mean) * (d[static_cast<size_t>(t - k)] - mean);
    return s / nd;
  };
  const int64_t h = std::clamp<int64_t>(horizon, 1, n - 1);
  const int64_t lags = dieboldMarianoLags(horizon, n);
  double v = gamma(0);
  for (int64_t k = 1; k <= lags; ++k)
    v += 2 * (1 - static_cast<double>(k) / static_cast<double>(lags + 1)) * gamma(k);
  if (!(v > 0)) v = gamma(0);
  if (!(v > 0)) {  // identical errors: no difference to test
    out.dm_statistic = 0;
    out.dm_p = 1;
    return;
  }
  const double hd = static_cast<double>(h);
  const double correction = (nd + 1 - 2 * hd + hd * (hd - 1) / nd) / nd;
  const double dm = mean / std::sqrt(v / nd) * std::sqrt(std::max(correction, 0.0));
  out.dm_statistic = dm;
  // NaN without GSL (t_distribution.h): no p-value rather than p = 1.
  const double p = 2 * forecast::tUpperTail(std::fabs(dm), nd - 1);
  out.dm_p = std::isnan(p) ? p : std::min(1.0, p);
}

}  // namespace

const char* skillVerdictName(SkillVerdict verdict) { return nameOf(kVerdicts, verdict); }

std::optional<SkillVerdict> parseSkillVerdict(const std::string& name) {
  return parseName(kVerdicts, name);
}

int64_t dieboldMarianoLags(int64_t horizon, int64_t targets) {
  if (targets < 2) return 0;
  const auto rule = static_cast<int64_t>(
      std::floor(4 * std::pow(static_cast<double>(targets) / 100.0, 2.0 / 9.0)));
  return std::min(targets - 1, std::max(std::max<int64_t>(horizon, 1) - 1, rule));
}

int64_t skillMinTargets(int64_t horizon) { return 2 * std::max<int64_t>(horizon, 1) + 10; }

SkillVerdict SkillInterval::verdict() const {
  if (!valid() || targets < skillMinTargets(horizon)) return SkillVerdict::TooFew;
  if (!(dm_p < kSkillLevel)) return SkillVerdict::Ties;  // also: no p-value (NaN)
  if (skill > 0) return SkillVerdict::Beats;
  if (skill < 0) return SkillVerdict::Loses;
  return SkillVerdict::Ties;
}

std::string SkillInterval::text(int digits, const std::string& word) const {
  if (!std::isfinite(skill)) return "n/a";
  if (!valid()) return signedText(skill, digits) + " (no interval)";
  std::ostringstream s;
  s << signedText(skill, digits) << " [" << signedText(low, digits) << ", "
    << signedText(high, digits) << "], DM p = " << std::setprecision(2) << dm_p << ": "
    << (word.empty() ? skillVerdictName(verdict()) : word);
  return s.str();
}

int64_t skillBlockLength(int64_t horizon, int64_t targets) {
  const auto rate = static_cast<int64_t>(std::lround(std::cbrt(static_cast<double>(targets))));
  return std::clamp<int64_t>(std::max(horizon, rate), 1, std::max<int64_t>(targets, 1));
}

SkillInterval pairedSkillInterval(const std::vector<double>& model_errors,
                                  const std::vector<double>& anchor_errors, int64_t block,
                                  int64_t horizon, int resamples, uint64_t seed) {
  SkillInterval out;
  const size_t n = model_errors.size();
  if (n < 2 || anchor_errors.size() != n || resamples < 1) return out;
  for (size_t t = 0; t < n; ++t)
    if (!std::isfinite(model_errors[t]) || !std::isfinite(anchor_errors[t])) return out;
  double sum_m = 0, sum_a = 0;
  for (size_t t = 0; t < n; ++t) sum_m += model_errors[t], sum_a += anchor_errors[t];
  if (!(sum_a > 0)) return out;
  out.skill = 1 - sum_m / sum_a;
  out.targets = static_cast<int64_t>(n);
  out.horizon = std::max<int64_t>(horizon, 1);
  const auto b = static_cast<size_t>(std::clamp<int64_t>(block, 1, static_cast<int64_t>(n)));
  out.block = static_cast<int64_t>(b);
  out.resamples = resamples;
  // Prefix sums over the targets followed by their first b again (a block wraps around the
  // end): a block's sum in O(1).
  std::vector<double> pm(n + b + 1, 0.0), pa(n + b + 1, 0.0);
  for (size_t t = 0; t < n + b; ++t) {
    pm[t + 1] = pm[t] + model_errors[t % n];
    pa[t + 1] = pa[t] + anchor_errors[t % n];
  }
  std::mt19937_64 rng(seed);
  const uint64_t starts = n;
  std::vector<double> skills;
  skills.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    double m = 0, a = 0;
    for (size_t filled = 0; filled < n;) {
      const auto s = static_cast<size_t>(rng() % starts);
      const size_t take = std::min(b, n - filled);  // the last block is cut to n targets
      m += pm[s + take] - pm[s];
      a += pa[s + take] - pa[s];
      filled += take;
    }
    // A resample of only zero anchor errors has no skill: it counts as the worst case.
    skills.push_back(a > 0 ? 1 - m / a : -std::numeric_limits<double>::infinity());
  }
  std::sort(skills.begin(), skills.end());
  out.low = quantile(skills, 0.025);
  out.high = quantile(skills, 0.975);
  dieboldMariano(model_errors, anchor_errors, horizon, out);
  return out;
}

SkillInterval skillIntervalVersusBest(const std::vector<double>& model_errors,
                                      const std::vector<ReferenceScore>& references,
                                      int64_t horizon) {
  const auto* best = bestAnchor(references);
  if (!best) return {};
  const auto n = static_cast<int64_t>(model_errors.size());
  return pairedSkillInterval(model_errors, best->test_errors, skillBlockLength(horizon, n),
                             horizon);
}

std::vector<double> maseScales(const std::vector<double>& values, int64_t columns,
                               int64_t train_end, int64_t period) {
  std::vector<double> scale(static_cast<size_t>(std::max<int64_t>(columns, 0)), 1.0);
  if (columns < 1) return scale;
  const int64_t P = period > 0 && train_end > period ? period : 1;
  for (int64_t c = 0; c < columns; ++c) {
    double sum = 0;
    int64_t count = 0;
    for (int64_t t = P; t < train_end; ++t, ++count)
      sum += std::fabs(values[static_cast<size_t>(t * columns + c)] -
                       values[static_cast<size_t>((t - P) * columns + c)]);
    const double mae = count > 0 ? sum / static_cast<double>(count) : 0.0;
    scale[static_cast<size_t>(c)] = mae > 1e-12 ? mae : 1.0;
  }
  return scale;
}

}  // namespace rsalab
