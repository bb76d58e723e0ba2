#include "engine/core/claims.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/core/linear_rnn_demo.h"
#include "engine/training/sweep_io.h"

namespace rsalab {

namespace {

std::string number(double v, int precision = 3) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", precision, v);
  return text;
}

bool isRecurrentModel(const std::string& m) { return m == "rnn" || m == "lstm" || m == "gru"; }

// Claims 1 and 2: does a model of `is_model` win most cells of the region?
ClaimVerdict regionClaim(const RegimeMap& map, const std::string& claim,
                         bool (*is_model)(const std::string&), bool high_axis, bool small_n) {
  ClaimVerdict v;
  v.claim = claim;
  const size_t na = map.axis_values.size(), nn = map.sizes.size();
  bool present = false;
  for (const auto& m : map.models) present = present || is_model(m);
  if (!present || na < 2 || nn < 2) {
    v.detail = !present ? "its model is not on the map" : "the map needs 2+ axis values and sizes";
    return v;
  }
  const size_t third = std::max<size_t>(1, (na + 1) / 3), half = std::max<size_t>(1, nn / 2);
  const double a_lo = high_axis ? map.axis_values[na - third] : map.axis_values.front();
  const double a_hi = high_axis ? map.axis_values.back() : map.axis_values[third - 1];
  const int64_t n_lo = small_n ? map.sizes.front() : map.sizes[nn - half];
  const int64_t n_hi = small_n ? map.sizes[half - 1] : map.sizes.back();
  int cells = 0, wins = 0, ties = 0, tied_best = 0, pending = 0, unjudged = 0;
  std::map<std::string, int> others;
  for (const auto& w : map.winners) {
    if (w.axis_value < a_lo - kAxisTolerance || w.axis_value > a_hi + kAxisTolerance) continue;
    if (w.size < n_lo || w.size > n_hi) continue;
    ++cells;
    if (w.verdict == RegimeVerdict::Pending) ++pending;
    if (w.verdict == RegimeVerdict::Tie) ++ties;
    if (w.verdict == RegimeVerdict::Tie && !w.judged) ++unjudged;
    if (w.verdict == RegimeVerdict::Tie && (is_model(w.best) || is_model(w.runner_up))) ++tied_best;
    if (w.verdict != RegimeVerdict::Winner) continue;
    if (is_model(w.best))
      ++wins;
    else
      ++others[w.best];
  }
  const std::string region = "a in [" + number(a_lo) + ", " + number(a_hi) + "], N in [" +
                             std::to_string(n_lo) + ", " + std::to_string(n_hi) + "]";
  // A single seed cannot name a winner: such a region stays undecided rather than "fails".
  v.decided = cells > 0 && pending == 0 && unjudged == 0;
  v.holds = v.decided && 2 * wins > cells;
  v.detail = std::to_string(wins) + " of " + std::to_string(cells) + " cells won outright (" +
             region + "), " + std::to_string(tied_best) +
             " tied for best within the seeds' spread, " + std::to_string(ties - tied_best) +
             " other tie(s)";
  for (const auto& [m, n] : others) v.detail += ", " + m + " wins " + std::to_string(n);
  if (pending) v.detail += ", " + std::to_string(pending) + " cell(s) still pending";
  if (unjudged) v.detail += ", " + std::to_string(unjudged) + " cell(s) with one seed (no spread)";
  return v;
}

}  // namespace

std::vector<ClaimVerdict> figure1Verdicts(const RegimeMap& map) {
  std::vector<ClaimVerdict> out;
  out.push_back(regionClaim(
      map, "A recurrent model (RNN) wins where the signal is recurrent and data are scarce.",
      isRecurrentModel, /*high_axis=*/true, /*small_n=*/true));
  out.push_back(regionClaim(
      map, "The Transformer wins where the signal is not recurrent and data are plentiful.",
      [](const std::string& m) { return m == "transformer"; }, false, false));
  ClaimVerdict rsa;
  rsa.claim = "RSA does well across the plane (wins or ties for best in 3/4 of the cells).";
  const bool present = std::find(map.models.begin(), map.models.end(), "rsa") != map.models.end();
  int cells = 0, good = 0, pending = 0, unjudged = 0;
  for (const auto& w : map.winners) {
    ++cells;
    if (w.verdict == RegimeVerdict::Pending) ++pending;
    if (w.verdict == RegimeVerdict::Tie && !w.judged) ++unjudged;
    const bool tied_best =
        w.verdict == RegimeVerdict::Tie && (w.best == "rsa" || w.runner_up == "rsa");
    if ((w.verdict == RegimeVerdict::Winner && w.best == "rsa") || tied_best) ++good;
  }
  rsa.decided = present && cells > 0 && pending == 0 && unjudged == 0;
  rsa.holds = rsa.decided && 4 * good >= 3 * cells;
  rsa.detail = present ? "rsa wins or ties for best in " + std::to_string(good) + " of " +
                             std::to_string(cells) + " cells"
                       : "rsa is not on the map";
  if (pending) rsa.detail += " (" + std::to_string(pending) + " pending)";
  if (unjudged) rsa.detail += " (" + std::to_string(unjudged) + " with one seed: no spread)";
  out.push_back(rsa);
  return out;
}

double signTestPValue(int wins, int n) {
  if (n <= 0) return 1.0;
  const int k = std::min(wins, n - wins);
  double tail = 0, term = std::pow(0.5, n);  // C(n, 0) / 2^n
  for (int i = 0; i <= k; ++i) {
    tail += term;
    term *= static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return std::min(1.0, 2 * tail);
}

ClaimVerdict sampleEfficiencyVerdict(const std::vector<SweepRow>& rows, const std::string& better,
                                     const std::string& than) {
  ClaimVerdict v;
  v.claim = better + " is more sample-efficient than " + than +
            ": its excess test loss is lower than " + than +
            "'s on the same (N, seed), beyond the seeds' spread (a sign test).";
  std::map<std::pair<int64_t, uint64_t>, std::map<std::string, double>> pairs;  // (N, seed)
  for (const auto& r : rows) {
    if (r.reference || !r.ok() || (r.model != better && r.model != than)) continue;
    const double y = std::isfinite(r.bayes_floor) ? r.excess() : r.test_loss;
    if (std::isfinite(y)) pairs[{r.size, r.seed}][r.model] = y;
  }
  int wins = 0, losses = 0, ties = 0;
  std::map<int64_t, std::pair<int, int>> per_n;  // N → (wins, pairs)
  std::vector<double> differences;
  for (const auto& [key, models] : pairs) {
    if (models.size() < 2) continue;
    const double d = models.at(better) - models.at(than);
    differences.push_back(d);
    auto& slot = per_n[key.first];
    slot.second += 1;
    if (d < 0) ++wins, ++slot.first;
    if (d > 0) ++losses;
    if (d == 0) ++ties;
  }
  const int n = wins + losses;
  const double p = signTestPValue(wins, n);
  std::sort(differences.begin(), differences.end());
  std::string by_n;
  for (const auto& [size, c] : per_n)
    by_n += (by_n.empty() ? "" : ", ") + std::to_string(c.first) + "/" + std::to_string(c.second) +
            " at N = " + std::to_string(size);
  v.decided = n > 0 && p < kClaimAlpha;
  v.holds = v.decided && wins > losses;
  v.inconclusive = n > 0 && !v.decided;
  v.detail =
      better + " lower in " + std::to_string(wins) + " of " + std::to_string(n) +
      " pairs (N, seed)" + (ties ? " (" + std::to_string(ties) + " exact ties left out)" : "") +
      ", sign test p = " + number(p, 2) +
      (differences.empty() ? std::string()
                           : ", median difference " + number(differences[differences.size() / 2])) +
      (by_n.empty() ? std::string() : "; " + by_n);
  if (n == 0) v.detail = "no (N, seed) with both " + better + " and " + than;
  return v;
}

std::vector<ClaimVerdict> sweepPresetVerdicts(const std::string& rule,
                                              const std::vector<SweepRow>& rows) {
  if (rule == "figure1") return figure1Verdicts(buildRegimeMap(regimePoints(rows)));
  if (rule == "rsa>transformer") return {sampleEfficiencyVerdict(rows, "rsa", "transformer")};
  return {};
}

std::vector<ClaimVerdict> runPresetVerdicts(const std::string& rule, const InspectionRecord& record,
                                            const GroundTruth& truth, int64_t length) {
  ClaimVerdict v;
  if (rule == "recover") {
    v.claim = "An RSA head recovers the recurrence that generated its data (every REM within " +
              number(kRecoveryTolerance) + ").";
    const auto matches = matchRems(record, truth, length);
    double worst = 0;
    int matched = 0;
    for (const auto& m : matches) {
      if (!m.match.matched) continue;
      ++matched;
      worst = std::max(worst, m.match.maxDelta());
    }
    v.decided = !matches.empty();
    v.holds = remsRecovered(matches);
    v.detail = std::to_string(matched) + " of " + std::to_string(matches.size()) +
               " REM head(s) matched; largest parameter difference " + number(worst);
    return {v};
  }
  if (rule == "fixed-point") {
    v.claim =
        "StarSaber's layers approach a fixed point: the residual ‖h^{l+1} − h^l‖ / ‖h^l‖ "
        "falls layer by layer.";
    std::vector<double> r;
    for (const auto& layer : record.layers) r.push_back(layer.residual);
    int falls = 0;
    std::string list;
    for (size_t l = 0; l < r.size(); ++l) {
      list += (list.empty() ? "" : " → ") + number(r[l]);
      if (l > 0 && r[l] < r[l - 1]) ++falls;
    }
    v.decided = r.size() >= 2;
    v.holds = v.decided && falls == static_cast<int>(r.size()) - 1;
    v.detail = "residual per layer " + list + " (falls at " + std::to_string(falls) + " of " +
               std::to_string(r.empty() ? 0 : r.size() - 1) + " steps)";
    return {v};
  }
  return {};
}

ClaimVerdict linearRnnVerdict(double max_error, int64_t values, double tolerance) {
  ClaimVerdict v;
  v.claim = "A linear RNN is a sum of REMs: h = Z + Σ REM terms equals the recurrence.";
  v.decided = values > 0 && std::isfinite(max_error);
  v.holds = v.decided && max_error <= tolerance;
  v.detail = "max |recurrence − REM sum| = " + number(max_error) + " over " +
             std::to_string(values) + " values (tolerance " + number(tolerance) + ")";
  return v;
}

ClaimVerdict linearRnnDemoVerdict(unsigned seed) {
  const LinearRnnDemo demo = LinearRnnDemo::random(seed);
  return linearRnnVerdict(demo.maxError(), int64_t{demo.T} * LinearRnnDemo::kN);
}

std::string verdictLine(const ClaimVerdict& v) {
  const char* outcome = v.decided        ? (v.holds ? "holds: " : "does not hold here: ")
                        : v.inconclusive ? "inconclusive: "
                                         : "undecided: ";
  return outcome + v.claim + " — " + v.detail;
}

}  // namespace rsalab
