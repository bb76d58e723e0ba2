// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/ground_truth.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/core/io/text.h"

namespace rsalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTwoPi = 6.283185307179586;

double frobenius(const std::vector<double>& a) {
  double s = 0;
  for (double v : a) s += v * v;
  return std::sqrt(s);
}

}  // namespace

std::vector<double> GroundTruth::lambdas() const {
  std::vector<double> out;
  for (const auto& c : components)
    if (c.kind == RemKind::Regular && std::find(out.begin(), out.end(), c.base) == out.end())
      out.push_back(c.base);
  return out;
}

std::vector<std::pair<double, double>> GroundTruth::cyclical() const {
  std::vector<std::pair<double, double>> out;
  for (const auto& c : components) {
    if (c.kind == RemKind::Regular) continue;
    const std::pair<double, double> p{c.base, c.theta};
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

std::vector<double> remClosedForm(RemKind kind, double base, double theta, int64_t dilation,
                                  int64_t T) {
  T = std::max<int64_t>(T, 0);
  dilation = std::max<int64_t>(dilation, 1);
  std::vector<double> P(static_cast<size_t>(T * T), 0.0);
  for (int64_t lag = dilation; lag < T; lag += dilation) {
    const double k = static_cast<double>(lag / dilation);
    // base^k with an integer k: exact sign for negative λ, 0^k = 0 for k ≥ 1.
    double value = std::pow(base, k);
    if (kind == RemKind::Cos) value *= std::cos(theta * k);
    if (kind == RemKind::Sin) value *= std::sin(theta * k);
    for (int64_t j = 0; j + lag < T; ++j) P[static_cast<size_t>((j + lag) * T + j)] = value;
  }
  return P;
}

double RemMatch::maxDelta() const {
  if (!matched) return kNaN;
  return std::max(delta_base, delta_theta);
}

std::string RemMatch::status() const {
  if (!has_rem) return "no REM";
  if (!matched) return "no true component of this kind";
  if (kind == RemKind::Regular)
    return "λ*=" + formatNumber(truth.base) + " |Δλ|=" + formatNumber(delta_base, 2) + " rel.F " +
           formatNumber(rel_frobenius, 2);
  return "γ*=" + formatNumber(truth.base) + " θ*=" + formatNumber(truth.theta) +
         " |Δγ|=" + formatNumber(delta_base, 2) + " |Δθ|=" + formatNumber(delta_theta, 2) +
         " rel.F " + formatNumber(rel_frobenius, 2);
}

RemMatch matchRem(RemKind kind, double base, double theta, int64_t dilation,
                  const GroundTruth& truth, int64_t T) {
  RemMatch best;
  best.has_rem = true;
  best.kind = kind;
  best.learned_base = base;
  // θ folded into [0, π]: cos(−θk) = cos(θk), and sin(−θk) = −sin(θk) is the same REM up to the
  // sign of its amplitude (which the value path learns); θ + 2π is θ.
  if (kind != RemKind::Regular) theta = std::abs(std::remainder(theta, kTwoPi));
  best.learned_theta = kind == RemKind::Regular ? 0.0 : theta;
  if (T < 2) return best;
  const auto learned = remClosedForm(kind, base, best.learned_theta, dilation, T);
  for (const auto& c : truth.components) {
    if (c.kind != kind) continue;
    const auto target = remClosedForm(c.kind, c.base, c.theta, 1, T);
    const double norm = frobenius(target);
    std::vector<double> diff(target.size());
    for (size_t i = 0; i < diff.size(); ++i) diff[i] = learned[i] - target[i];
    const double rel = norm > 0 ? frobenius(diff) / norm : kNaN;
    if (best.matched && !(rel < best.rel_frobenius)) continue;
    best.matched = true;
    best.truth = c;
    best.rel_frobenius = rel;
    best.delta_base = std::abs(base - c.base);
    best.delta_theta = kind == RemKind::Regular ? 0.0 : std::abs(theta - c.theta);
  }
  return best;
}

RemMatch matchRem(const HeadInspection& head, const GroundTruth& truth, int64_t T) {
  if (!head.has_rem) return RemMatch{};
  const RemKind kind = head.rem_kind;
  const bool regular = kind == RemKind::Regular;
  return matchRem(kind, regular ? head.lambda : head.gamma, regular ? 0.0 : head.theta,
                  head.dilation, truth, T);
}

std::vector<HeadMatch> matchRems(const InspectionRecord& record, const GroundTruth& truth,
                                 int64_t T) {
  std::vector<HeadMatch> out;
  for (size_t l = 0; l < record.layers.size(); ++l) {
    const auto& heads = record.layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      if (!heads[h].has_rem) continue;
      out.push_back(
          {static_cast<int64_t>(l), static_cast<int64_t>(h), matchRem(heads[h], truth, T)});
    }
  }
  return out;
}

bool remsRecovered(const std::vector<HeadMatch>& matches, double tolerance) {
  if (matches.empty()) return false;
  for (const auto& m : matches)
    if (!m.match.matched || !(m.match.maxDelta() <= tolerance)) return false;
  return true;
}

double gaussianWindowFloor(const std::vector<double>& acov, int64_t T, int64_t H) {
  const int64_t n = T + H;
  if (T < 1 || H < 1 || static_cast<int64_t>(acov.size()) < n) return kNaN;
  // Cholesky of the n × n Toeplitz covariance: s = L e with e white, so the rows 0..t span
  // e_0..e_t and Var(s_i | s_0..s_t) = Σ_{k=t+1..i} L[i][k]² for i > t.
  std::vector<double> L(static_cast<size_t>(n * n), 0.0);
  auto at = [&L, n](int64_t i, int64_t j) -> double& { return L[static_cast<size_t>(i * n + j)]; };
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      double s = acov[static_cast<size_t>(i - j)];
      for (int64_t k = 0; k < j; ++k) s -= at(i, k) * at(j, k);
      if (i == j) {
        at(i, i) = s > 0 ? std::sqrt(s) : 0.0;  // a singular direction: predicted exactly
      } else {
        at(i, j) = at(j, j) > 0 ? s / at(j, j) : 0.0;
      }
    }
  }
  double total = 0;
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t h = 1; h <= H; ++h) {
      const int64_t i = t + h;
      double v = 0;
      for (int64_t k = t + 1; k <= i; ++k) v += at(i, k) * at(i, k);
      total += v;
    }
  }
  return total / static_cast<double>(T * H);
}

}  // namespace rsalab
