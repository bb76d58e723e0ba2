// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/family_claims.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "engine/core/io/text.h"

namespace rsalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Least-squares slope of y on x; NaN with fewer than 2 distinct x.
double slope(const std::vector<std::pair<double, double>>& points) {
  if (points.size() < 2) return kNaN;
  double mx = 0, my = 0;
  for (const auto& [x, y] : points) {
    mx += x;
    my += y;
  }
  mx /= static_cast<double>(points.size());
  my /= static_cast<double>(points.size());
  double sxy = 0, sxx = 0;
  for (const auto& [x, y] : points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) * (x - mx);
  }
  return sxx > 0 ? sxy / sxx : kNaN;
}

// "1.9 [1.4, 2.6] over 5 seeds" for a log factor's mean and interval, as factors.
std::string factorText(const PairedDifference& d) {
  return "×" + formatNumber(std::exp(d.mean), 3) + " [" + formatNumber(std::exp(d.lo), 3) + ", " +
         formatNumber(std::exp(d.hi), 3) + "] over " + std::to_string(d.pairs) + " seeds";
}

bool isModelRow(const SweepRow& row) { return !row.reference && row.ok(); }

}  // namespace

bool MapRegion::contains(double axis_value, int64_t size) const {
  return axis_value >= a_lo - kAxisTolerance && axis_value <= a_hi + kAxisTolerance &&
         size >= n_lo && size <= n_hi;
}

std::string MapRegion::text() const {
  return "a in [" + formatNumber(a_lo) + ", " + formatNumber(a_hi) + "], N in [" +
         std::to_string(n_lo) + ", " + std::to_string(n_hi) + "]";
}

MapRegion figure1Region(const RegimeMap& map, bool high_axis, bool small_n) {
  const size_t na = map.axis_values.size(), nn = map.sizes.size();
  MapRegion r;
  if (na < 2 || nn < 2) return r;
  const size_t third = std::max<size_t>(1, (na + 1) / 3), half = std::max<size_t>(1, nn / 2);
  r.a_lo = high_axis ? map.axis_values[na - third] : map.axis_values.front();
  r.a_hi = high_axis ? map.axis_values.back() : map.axis_values[third - 1];
  r.n_lo = small_n ? map.sizes.front() : map.sizes[nn - half];
  r.n_hi = small_n ? map.sizes[half - 1] : map.sizes.back();
  return r;
}

double runMemoryHorizon(const std::vector<double>& decays) {
  if (decays.empty()) return kNaN;
  double mean = 0;
  for (double d : decays) mean += std::fabs(d) / static_cast<double>(decays.size());
  return mean >= 1 ? std::numeric_limits<double>::infinity() : 1.0 / (1.0 - mean);
}

ClaimVerdict selectiveDecayVerdict(const std::vector<SweepRow>& rows,
                                   const std::vector<std::string>& models) {
  ClaimVerdict v;
  v.claim = "Selective decay follows the recurrent share: " + joined(models, ", ") +
            " remember further back (a longer memory horizon) as more of the target is "
            "recurrent, by more than the seeds' spread.";
  // model → seed → (a, log horizon) per run
  std::map<std::string, std::map<uint64_t, std::vector<std::pair<double, double>>>> runs;
  std::map<std::string, std::map<double, std::vector<double>>> by_share;  // model → a → horizons
  for (const auto& row : rows) {
    if (!isModelRow(row) || !std::isfinite(row.axis_value)) continue;
    const double h = runMemoryHorizon(row.regular_decays);
    if (!std::isfinite(h)) continue;
    runs[row.model][row.seed].emplace_back(row.axis_value, std::log(h));
    by_share[row.model][row.axis_value].push_back(h);
  }
  int grows = 0, flat = 0;
  std::vector<std::string> parts;
  for (const auto& model : models) {
    std::vector<double> slopes;
    for (const auto& [seed, points] : runs[model]) {
      const double s = slope(points);
      if (std::isfinite(s)) slopes.push_back(s);
    }
    if (slopes.size() < 2) {
      v.detail = model + " has " + std::to_string(slopes.size()) +
                 " seed(s) with decays on 2+ shares; the spread needs 2 or more";
      return v;
    }
    const PairedDifference d = meanWithInterval(slopes);
    const bool up = d.lo > 0, level = d.hi < std::log(kHorizonGrowth);
    grows += up;
    flat += level;
    const auto& shares = by_share[model];
    const auto mean = [](const std::vector<double>& x) {
      double s = 0;
      for (double e : x) s += e / static_cast<double>(x.size());
      return s;
    };
    parts.push_back(model + ": horizon " + formatNumber(mean(shares.begin()->second), 3) +
                    " steps at a = " + formatNumber(shares.begin()->first) + ", " +
                    formatNumber(mean(shares.rbegin()->second), 3) +
                    " at a = " + formatNumber(shares.rbegin()->first) + "; growth over the axis " +
                    factorText(d) + " (" +
                    (up      ? "grows"
                     : level ? "flat or falls"
                             : "the seeds cannot tell") +
                    ")");
  }
  v.detail = joined(parts, "; ");
  if (flat > 0) {
    v.decided = true;
  } else if (grows == static_cast<int>(models.size())) {
    v.decided = v.holds = true;
  } else {
    v.inconclusive = true;
  }
  return v;
}

ClaimVerdict placementVerdict(const RegimeMap& map, const std::string& model,
                              const std::vector<std::string>& rivals) {
  ClaimVerdict v;
  v.claim = "Where the recurrence enters attention matters: " + model +
            " (its REM added after the softmax) is lower than " + joined(rivals, ", ") +
            " where the signal is recurrent and data are scarce.";
  const bool present = std::find(map.models.begin(), map.models.end(), model) != map.models.end();
  if (!present || map.axis_values.size() < 2 || map.sizes.size() < 2) {
    v.detail = !present ? model + " is not on the map" : "the map needs 2+ axis values and sizes";
    return v;
  }
  const MapRegion region = figure1Region(map, /*high_axis=*/true, /*small_n=*/true);
  int cells = 0, ahead = 0, behind = 0, unjudged = 0;
  std::map<std::string, int> beaten_by;
  std::vector<std::string> lines;
  for (const auto& w : map.winners) {
    if (!region.contains(w.axis_value, w.size)) continue;
    const RegimeCell* mine = map.cell(model, w.axis_value, w.size);
    if (!mine || mine->seeds == 0) continue;
    ++cells;
    int rivals_here = 0, above = 0;
    bool judged = true, below = false;
    for (const auto& rival : rivals) {
      const RegimeCell* other = map.cell(rival, w.axis_value, w.size);
      if (!other || other->seeds == 0) continue;
      ++rivals_here;
      const PairedDifference d = pairedDifference(*mine, *other);  // rival − model
      judged = judged && d.judged();
      above += d.above0();
      if (d.below0()) {
        below = true;
        ++beaten_by[rival];
      }
    }
    if (rivals_here == 0 || !judged) {
      ++unjudged;
      continue;
    }
    if (below) {
      ++behind;
    } else if (above == rivals_here) {
      ++ahead;
    }
  }
  v.deciding = "ahead in " + std::to_string(ahead) + " of " + std::to_string(cells) +
               " cells, behind in " + std::to_string(behind);
  v.detail = model + " lower than every rival in " + std::to_string(ahead) + " of " +
             std::to_string(cells) + " cells (" + region.text() + "), behind a rival in " +
             std::to_string(behind);
  for (const auto& [rival, n] : beaten_by)
    v.detail += ", " + rival + " lower in " + std::to_string(n);
  if (unjudged) v.detail += ", " + std::to_string(unjudged) + " cell(s) without 2 paired seeds";
  if (cells == 0 || unjudged > 0) return v;
  if (2 * ahead > cells) {
    v.decided = v.holds = true;
  } else if (2 * behind > cells) {
    v.decided = true;
  } else {
    v.inconclusive = true;
  }
  return v;
}

std::vector<ClaimVerdict> placementVerdicts(const RegimeMap& map, const std::string& model,
                                            const std::vector<std::string>& rivals) {
  const auto card = [](const std::string& name) { return name.substr(0, name.find('[')); };
  const auto ofCard = [&](const std::string& c) {
    std::vector<std::string> out;
    for (const auto& m : map.models)
      if (card(m) == c) out.push_back(m);
    return out;
  };
  const std::vector<std::string> subjects = ofCard(model);
  if (subjects.empty()) return {placementVerdict(map, model, rivals)};
  // Every choice of one model per rival card (a card absent from the map stays as named).
  std::vector<std::vector<std::string>> choices{{}};
  for (const auto& rival : rivals) {
    std::vector<std::string> options = ofCard(rival);
    if (options.empty()) options.push_back(rival);
    std::vector<std::vector<std::string>> next;
    for (const auto& choice : choices)
      for (const auto& option : options) {
        next.push_back(choice);
        next.back().push_back(option);
      }
    choices = std::move(next);
  }
  std::vector<ClaimVerdict> out;
  for (const auto& subject : subjects)
    for (const auto& choice : choices) out.push_back(placementVerdict(map, subject, choice));
  return out;
}

std::vector<ClaimVerdict> familySampleEfficiencyVerdicts(const std::vector<SweepRow>& rows,
                                                         const std::string& than) {
  std::vector<std::string> models;
  for (const auto& row : rows)
    if (isModelRow(row) && std::find(models.begin(), models.end(), row.model) == models.end())
      models.push_back(row.model);
  if (std::find(models.begin(), models.end(), than) == models.end()) {
    ClaimVerdict v;
    v.claim =
        "Each model of the family has lower loss on average over N, and a steeper "
        "exponent, than " +
        than + ".";
    v.detail = "no trained " + than + " runs to compare with yet";
    return {v};
  }
  std::vector<ClaimVerdict> out;
  for (const auto& model : models) {
    if (model == than) continue;
    out.push_back(sampleEfficiencyVerdict(rows, model, than));
    out.push_back(exponentVerdict(rows, model, than));
  }
  return out;
}

}  // namespace rsalab
