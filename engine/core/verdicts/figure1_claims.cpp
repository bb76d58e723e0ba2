// SPDX-License-Identifier: GPL-3.0-or-later
// The RSA paper's Figure 1 claims on a regime map (claims.h: figure1Verdicts), and on one of its
// corners alone (figure1CornerVerdicts).
#include <algorithm>
#include <map>
#include <string>

#include "engine/core/registry/model_registry.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/family_claims.h"

namespace rsalab {

namespace {

// Ties are ties: a claim that a model wins a share of the cells holds when its outright wins (95 %
// paired interval above 0) reach that share, does not hold when even counting every tie it is in
// as a win would not, and is inconclusive in between (the ties decide it). Pending cells and cells
// with fewer than 2 paired seeds leave it undecided.
void judgeShare(ClaimVerdict& v, int cells, int wins, int ties, double share, bool strictly) {
  const auto reaches = [&](int k) { return strictly ? k > share * cells : k >= share * cells; };
  if (reaches(wins)) {
    v.decided = v.holds = true;
  } else if (!reaches(wins + ties)) {
    v.decided = true;
  } else {
    v.inconclusive = true;
  }
}

bool isRecurrent(const std::string& m) { return recurrentCell(m).has_value(); }
bool isTransformer(const std::string& m) { return m == "transformer"; }

const char* const kRecurrentClaim =
    "A recurrent model (RNN) wins where the signal is recurrent and data are scarce.";
const char* const kTransformerClaim =
    "The Transformer wins where the signal is not recurrent and data are plentiful.";

// Claims 1 and 2: does a model of `is_model` win most cells of `region`?
ClaimVerdict regionClaim(const RegimeMap& map, const std::string& claim,
                         bool (*is_model)(const std::string&), const MapRegion& region) {
  ClaimVerdict v;
  v.claim = claim;
  bool present = false;
  for (const auto& m : map.models) present = present || is_model(m);
  if (!present || map.axis_values.size() < 2 || map.sizes.size() < 2) {
    v.detail = !present ? "its model is not on the map" : "the map needs 2+ axis values and sizes";
    return v;
  }
  int cells = 0, wins = 0, tied_best = 0, other_ties = 0, pending = 0, unjudged = 0;
  std::map<std::string, int> others;
  for (const auto& w : map.winners) {
    if (!region.contains(w.axis_value, w.size)) continue;
    ++cells;
    if (w.verdict == RegimeVerdict::Pending) ++pending;
    if (w.verdict == RegimeVerdict::Tie && !w.judged) ++unjudged;
    if (w.verdict == RegimeVerdict::Tie) {
      if (is_model(w.best) || is_model(w.runner_up))
        ++tied_best;
      else
        ++other_ties;
    }
    if (w.verdict != RegimeVerdict::Winner) continue;
    if (is_model(w.best))
      ++wins;
    else
      ++others[w.best];
  }
  v.deciding = std::to_string(wins) + " of " + std::to_string(cells) + " cells won outright" +
               (tied_best ? ", " + std::to_string(tied_best) + " tied" : std::string());
  v.detail = std::to_string(wins) + " of " + std::to_string(cells) + " cells won outright (" +
             region.text() + "), " + std::to_string(tied_best) +
             " tied for best (not counted as wins), " + std::to_string(other_ties) +
             " other tie(s)";
  for (const auto& [m, n] : others) v.detail += ", " + m + " wins " + std::to_string(n);
  if (pending) v.detail += ", " + std::to_string(pending) + " cell(s) still pending";
  if (unjudged) v.detail += ", " + std::to_string(unjudged) + " cell(s) without 2 paired seeds";
  // A single seed cannot name a winner: such a region stays undecided rather than "fails".
  if (cells == 0 || pending || unjudged) return v;
  judgeShare(v, cells, wins, tied_best, 0.5, /*strictly=*/true);
  return v;
}

// Claim 3 over every cell of the map: RSA wins outright in 3/4 of them.
ClaimVerdict rsaClaim(const RegimeMap& map, const std::string& claim) {
  ClaimVerdict rsa;
  rsa.claim = claim;
  const bool present = std::find(map.models.begin(), map.models.end(), "rsa") != map.models.end();
  // Per cell, RSA against the best other model, paired over seeds: a win (the cell's outright
  // winner), a loss (some model lower beyond the interval) or a tie.
  int cells = 0, wins = 0, losses = 0, ties = 0, pending = 0, unjudged = 0;
  for (const auto& w : map.winners) {
    ++cells;
    if (w.verdict == RegimeVerdict::Pending) {
      ++pending;
      continue;
    }
    const RegimeCell* mine = map.cell("rsa", w.axis_value, w.size);
    if (!mine || mine->seeds == 0) {
      ++pending;
      continue;
    }
    if (w.verdict == RegimeVerdict::Winner && w.best == "rsa") {
      ++wins;
      continue;
    }
    bool beaten = false, judged = true;
    for (const auto& m : map.models) {
      if (m == "rsa") continue;
      const RegimeCell* other = map.cell(m, w.axis_value, w.size);
      if (!other || other->seeds == 0) continue;
      const PairedDifference d = pairedDifference(*other, *mine);  // rsa − other
      judged = judged && d.judged();
      beaten = beaten || d.above0();
    }
    if (beaten)
      ++losses;
    else if (!judged)
      ++unjudged;
    else
      ++ties;
  }
  rsa.detail = present
                   ? "rsa wins outright in " + std::to_string(wins) + " of " +
                         std::to_string(cells) + " cells, is beaten in " + std::to_string(losses) +
                         ", ties (not counted as wins) in " + std::to_string(ties)
                   : "rsa is not on the map";
  if (present)
    rsa.deciding = "wins " + std::to_string(wins) + " of " + std::to_string(cells) +
                   " cells, beaten in " + std::to_string(losses);
  if (pending) rsa.detail += " (" + std::to_string(pending) + " pending)";
  if (unjudged) rsa.detail += " (" + std::to_string(unjudged) + " without 2 paired seeds)";
  if (present && cells > 0 && pending == 0 && unjudged == 0)
    judgeShare(rsa, cells, wins, ties, 0.75, /*strictly=*/false);
  return rsa;
}

}  // namespace

std::vector<ClaimVerdict> figure1Verdicts(const RegimeMap& map) {
  return {regionClaim(map, kRecurrentClaim, isRecurrent, figure1Region(map, true, true)),
          regionClaim(map, kTransformerClaim, isTransformer, figure1Region(map, false, false)),
          rsaClaim(map, "RSA does well across the plane: it wins outright in 3/4 of the cells.")};
}

std::vector<ClaimVerdict> figure1CornerVerdicts(const RegimeMap& map, bool recurrent_corner) {
  MapRegion all;  // every cell of the map: the corner is the claim's region
  if (!map.axis_values.empty() && !map.sizes.empty()) {
    all.a_lo = map.axis_values.front();
    all.a_hi = map.axis_values.back();
    all.n_lo = map.sizes.front();
    all.n_hi = map.sizes.back();
  }
  return {recurrent_corner ? regionClaim(map, kRecurrentClaim, isRecurrent, all)
                           : regionClaim(map, kTransformerClaim, isTransformer, all),
          rsaClaim(map, std::string("RSA does well in the ") +
                            (recurrent_corner ? "recurrent" : "Transformer's") +
                            " corner: it wins outright in 3/4 of its cells.")};
}

}  // namespace rsalab
