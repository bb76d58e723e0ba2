// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/regime_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "engine/core/forecast/t_distribution.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/text.h"

namespace rsalab {

namespace {

bool sameAxis(double a, double b) { return std::abs(a - b) <= kAxisTolerance; }

// The index of `v` among the sorted, distinct `values` (inserting it when new).
double snap(std::vector<double>& values, double v) {
  for (double x : values)
    if (sameAxis(x, v)) return x;
  values.push_back(v);
  return v;
}

const EnumName<RegimeVerdict> kRegimeVerdicts[] = {{RegimeVerdict::Pending, "pending"},
                                                   {RegimeVerdict::Winner, "winner"},
                                                   {RegimeVerdict::Tie, "tie"}};

}  // namespace

const char* regimeVerdictName(RegimeVerdict verdict) { return nameOf(kRegimeVerdicts, verdict); }

PairedDifference pairedDifference(const RegimeCell& better, const RegimeCell& worse) {
  std::vector<double> d;
  for (const auto& [seed, b] : better.by_seed)
    for (const auto& [other, w] : worse.by_seed)
      if (other == seed) d.push_back(w - b);
  return meanWithInterval(d);
}

std::optional<RegimePoint> regimePoint(const SweepRow& r) {
  if (r.reference || !r.ok() || !std::isfinite(r.axis_value)) return std::nullopt;
  const double y = std::isfinite(r.bayes_floor) ? r.excess() : r.test_loss;
  return RegimePoint{r.model, r.axis_value, r.size, r.seed, y, r.run};
}

std::vector<RegimePoint> regimePoints(const std::vector<SweepRow>& rows) {
  std::vector<RegimePoint> points;
  for (const auto& r : rows)
    if (auto p = regimePoint(r)) points.push_back(*p);
  return points;
}

MeanSd meanSd(const std::vector<double>& values) {
  MeanSd s;
  s.n = static_cast<int64_t>(values.size());
  if (values.empty()) return s;
  double sum = 0;
  for (double x : values) sum += x;
  s.mean = sum / static_cast<double>(s.n);
  double ss = 0;
  for (double x : values) ss += (x - s.mean) * (x - s.mean);
  s.sd = s.n > 1 ? std::sqrt(ss / static_cast<double>(s.n - 1)) : 0.0;
  return s;
}

PairedDifference meanWithInterval(const std::vector<double>& d) {
  PairedDifference out;
  out.pairs = static_cast<int64_t>(d.size());
  if (d.empty()) return out;
  const MeanSd s = meanSd(d);
  out.mean = s.mean;
  if (d.size() < 2) return out;
  const double n = static_cast<double>(d.size());
  const double se = s.sd / std::sqrt(n);
  const double t = forecast::tQuantile(0.5 + kIntervalLevel / 2, n - 1);
  out.lo = out.mean - t * se;
  out.hi = out.mean + t * se;
  return out;
}

RegimeWinner regimeWinner(const std::vector<const RegimeCell*>& cells) {
  std::vector<const RegimeCell*> ranked;
  for (const auto* c : cells)
    if (c && c->seeds > 0 && std::isfinite(c->mean)) ranked.push_back(c);
  RegimeWinner w;
  if (!cells.empty() && cells.front()) {
    w.axis_value = cells.front()->axis_value;
    w.size = cells.front()->size;
  }
  if (ranked.size() < 2) return w;  // Pending
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RegimeCell* a, const RegimeCell* b) { return a->mean < b->mean; });
  w.best = ranked[0]->model;
  w.runner_up = ranked[1]->model;
  w.margin = ranked[1]->mean - ranked[0]->mean;
  w.difference = pairedDifference(*ranked[0], *ranked[1]);
  // One seed has no interval to judge by: a single run never names a winner.
  w.judged = w.difference.judged();
  w.verdict = w.difference.above0() ? RegimeVerdict::Winner : RegimeVerdict::Tie;
  return w;
}

RegimeMap buildRegimeMap(const std::vector<RegimePoint>& points) {
  RegimeMap map;
  std::vector<double> axis;
  // (model index, axis value, N) → excess losses and runs
  struct Group {
    std::vector<std::pair<uint64_t, double>> by_seed;  // finite points
    std::vector<int64_t> runs;
  };
  std::map<std::tuple<size_t, double, int64_t>, Group> groups;
  for (const auto& p : points) {
    auto it = std::find(map.models.begin(), map.models.end(), p.model);
    if (it == map.models.end()) it = map.models.insert(map.models.end(), p.model);
    const size_t m = static_cast<size_t>(it - map.models.begin());
    const double x = snap(axis, p.axis_value);
    if (std::find(map.sizes.begin(), map.sizes.end(), p.size) == map.sizes.end())
      map.sizes.push_back(p.size);
    auto& g = groups[{m, x, p.size}];
    if (std::isfinite(p.excess)) g.by_seed.push_back({p.seed, p.excess});
    g.runs.push_back(p.run);
  }
  std::sort(axis.begin(), axis.end());
  std::sort(map.sizes.begin(), map.sizes.end());
  map.axis_values = axis;
  for (size_t m = 0; m < map.models.size(); ++m) {
    for (double x : map.axis_values) {
      for (int64_t n : map.sizes) {
        auto it = groups.find({m, x, n});
        if (it == groups.end()) continue;
        RegimeCell c;
        c.model = map.models[m];
        c.axis_value = x;
        c.size = n;
        c.runs = it->second.runs;
        c.by_seed = it->second.by_seed;
        std::sort(c.by_seed.begin(), c.by_seed.end());
        c.seeds = static_cast<int64_t>(c.by_seed.size());
        if (!c.by_seed.empty()) {
          std::vector<double> losses;
          for (const auto& [seed, e] : c.by_seed) losses.push_back(e);
          const MeanSd s = meanSd(losses);
          c.mean = s.mean;
          c.sd = s.sd;
        }
        map.cells.push_back(c);
      }
    }
  }
  for (double x : map.axis_values) {
    for (int64_t n : map.sizes) {
      std::vector<const RegimeCell*> here;
      for (const auto& m : map.models)
        if (const auto* c = map.cell(m, x, n)) here.push_back(c);
      if (here.empty()) continue;
      RegimeWinner w = regimeWinner(here);
      w.axis_value = x;
      w.size = n;
      map.winners.push_back(w);
    }
  }
  return map;
}

const RegimeCell* RegimeMap::cell(const std::string& model, double axis_value, int64_t size) const {
  for (const auto& c : cells)
    if (c.model == model && c.size == size && sameAxis(c.axis_value, axis_value)) return &c;
  return nullptr;
}

const RegimeWinner* RegimeMap::winner(double axis_value, int64_t size) const {
  for (const auto& w : winners)
    if (w.size == size && sameAxis(w.axis_value, axis_value)) return &w;
  return nullptr;
}

namespace {}  // namespace

std::string regimeIntervalText(const PairedDifference& d, const char* unit) {
  if (!d.judged()) return "no interval (" + std::to_string(d.pairs) + " pair only)";
  return formatNumber(100 * kIntervalLevel, 2) + " % interval [" + formatNumber(d.lo) + ", " +
         formatNumber(d.hi) + "] over " + std::to_string(d.pairs) + " " + unit;
}

std::vector<std::string> regimeWinnerLines(const RegimeMap& map) {
  std::vector<std::string> lines;
  for (const auto& w : map.winners) {
    std::string line = "a=" + formatNumber(w.axis_value) + " N=" + std::to_string(w.size) + ": ";
    switch (w.verdict) {
      case RegimeVerdict::Winner:
        line += w.best + " beats " + w.runner_up + " by " + formatNumber(w.difference.mean) + ", " +
                regimeIntervalText(w.difference);
        break;
      case RegimeVerdict::Tie:
        line += "tie " + w.best + " / " + w.runner_up + ": " +
                (w.judged ? "difference " + formatNumber(w.difference.mean) + ", " +
                                regimeIntervalText(w.difference) + " covers 0"
                          : std::string("fewer than 2 seeds in common, no interval"));
        break;
      case RegimeVerdict::Pending:
        line += "pending";
        break;
    }
    lines.push_back(line);
  }
  return lines;
}

std::pair<double, double> RegimeMap::meanRange() const {
  double lo = std::numeric_limits<double>::quiet_NaN(), hi = lo;
  for (const auto& c : cells) {
    if (!std::isfinite(c.mean)) continue;
    lo = std::isnan(lo) ? c.mean : std::min(lo, c.mean);
    hi = std::isnan(hi) ? c.mean : std::max(hi, c.mean);
  }
  return {lo, hi};
}

}  // namespace rsalab
