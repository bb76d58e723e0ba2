#include "widgets/rem_similarity.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace rsalab {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string shortNumber(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v;
  return s.str();
}
}  // namespace

std::vector<double> remClosedForm(const std::string& kind, double base, double theta,
                                  int64_t dilation, int64_t T) {
  T = std::max<int64_t>(T, 0);
  dilation = std::max<int64_t>(dilation, 1);
  std::vector<double> P(static_cast<size_t>(T * T), 0.0);
  for (int64_t lag = dilation; lag < T; lag += dilation) {
    const double k = static_cast<double>(lag / dilation);
    // base^k with an integer k: exact sign for negative λ, 0^k = 0 for k ≥ 1.
    double value = std::pow(base, k);
    if (kind == "cos") value *= std::cos(theta * k);
    if (kind == "sin") value *= std::sin(theta * k);
    for (int64_t j = 0; j + lag < T; ++j) P[static_cast<size_t>((j + lag) * T + j)] = value;
  }
  return P;
}

double cosineSimilarity(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return kNaN;
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na <= 0 || nb <= 0) return kNaN;
  return dot / (std::sqrt(na) * std::sqrt(nb));
}

double remTruthSimilarity(const HeadInspection& head, const RemTruth& truth, int64_t T,
                          std::string* best) {
  if (!head.has_rem || truth.empty() || T < 2) return kNaN;
  const bool regular = head.rem_kind == "regular";
  const auto learned = remClosedForm(head.rem_kind, regular ? head.lambda : head.gamma,
                                     regular ? 0.0 : head.theta, head.dilation, T);
  double score = kNaN;
  auto consider = [&](const std::string& kind, double base, double theta,
                      const std::string& label) {
    const double s = cosineSimilarity(learned, remClosedForm(kind, base, theta, 1, T));
    if (std::isnan(s) || (!std::isnan(score) && s <= score)) return;
    score = s;
    if (best) *best = label;
  };
  for (double l : truth.lambdas) consider("regular", l, 0.0, "λ=" + shortNumber(l));
  for (size_t k = 0; k < truth.gammas.size() && k < truth.thetas.size(); ++k) {
    const std::string pair =
        "γ=" + shortNumber(truth.gammas[k]) + " θ=" + shortNumber(truth.thetas[k]);
    consider("cos", truth.gammas[k], truth.thetas[k], "cos " + pair);
    consider("sin", truth.gammas[k], truth.thetas[k], "sin " + pair);
  }
  return score;
}

}  // namespace rsalab
