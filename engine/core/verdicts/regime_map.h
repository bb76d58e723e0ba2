// SPDX-License-Identifier: GPL-3.0-or-later
// The regime map (the RSA paper's Figure 1): per model, the mean excess test loss over seeds at
// every (axis value, N) of a two-axis sweep — x a task parameter such as the mix task's recurrent
// share, y the training-set size N — and per cell the winner: the model with the lowest mean,
// drawn as the winner only where the 95 % interval of its paired difference to the runner-up
// (same seed = same data, over the seeds both ran) lies above 0, otherwise a tie. Plain C++ (core
// library: no LibTorch, no Qt): the regime-map view, the CLI's figure and the presets' verdicts
// share this one rule.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

struct RegimePoint {
  std::string model;
  double axis_value = 0;  // x: the swept task parameter (mix.share)
  int64_t size = 0;       // y: training-set size N
  uint64_t seed = 0;
  double excess = std::numeric_limits<double>::quiet_NaN();  // test loss − Bayes floor (lower is
                                                             // better); NaN: not usable
  int64_t run = -1;                                          // the sweep's run id (SweepRow::run)
};

// The regime map's points: the usable model rows (not references) that carry a task-axis value,
// with their excess loss (test loss where the task has no floor). regimePoint: one row's, or
// std::nullopt when the row does not belong on the map.
std::optional<RegimePoint> regimePoint(const SweepRow& row);
std::vector<RegimePoint> regimePoints(const std::vector<SweepRow>& rows);

// One model at one (axis value, N): the seeds' finite excess losses.
struct RegimeCell {
  std::string model;
  double axis_value = 0;
  int64_t size = 0;
  int64_t seeds = 0;  // finite points averaged
  double mean = std::numeric_limits<double>::quiet_NaN();
  double sd = 0;  // sample standard deviation (n − 1); 0 with one seed
  std::vector<int64_t> runs;
  // The finite points by seed (ascending seeds), for paired comparisons between models.
  std::vector<std::pair<uint64_t, double>> by_seed;
};

// Mean and sample standard deviation (n − 1) of values over random seeds: sd is 0 for one value,
// both are 0 for none.
struct MeanSd {
  double mean = 0, sd = 0;
  int64_t n = 0;
};
MeanSd meanSd(const std::vector<double>& values);

// `worse` − `better` over the seeds both have (same seed: the same data in a sweep), with the
// two-sided 95 % Student-t interval of its mean. With fewer than 2 pairs the interval is NaN.
struct PairedDifference {
  int64_t pairs = 0;
  double mean = std::numeric_limits<double>::quiet_NaN();
  double lo = std::numeric_limits<double>::quiet_NaN(), hi = lo;
  bool judged() const { return pairs >= 2; }
  bool above0() const { return judged() && lo > 0; }  // `better` is lower beyond the seeds' noise
  bool below0() const { return judged() && hi < 0; }  // `worse` is in fact lower
};
PairedDifference pairedDifference(const RegimeCell& better, const RegimeCell& worse);
// The same for differences already paired (`pairs` = d.size()).
PairedDifference meanWithInterval(const std::vector<double>& d);
constexpr double kIntervalLevel = 0.95;

enum class RegimeVerdict {
  Pending,  // fewer than two models have a finite mean here yet
  Winner,   // the paired difference runner-up − best has its 95 % interval above 0
  Tie,      // that interval covers 0 (or fewer than 2 seeds are paired: no interval)
};

struct RegimeWinner {
  double axis_value = 0;
  int64_t size = 0;
  RegimeVerdict verdict = RegimeVerdict::Pending;
  std::string best;       // lowest mean (set unless Pending)
  std::string runner_up;  // second lowest
  double margin = 0;      // runner_up mean − best mean (>= 0)
  // The paired difference runner-up − best over their shared seeds: its mean and 95 % interval.
  PairedDifference difference;
  bool judged = false;  // 2+ shared seeds (a single run has no interval: never a winner)
};

struct RegimeMap {
  std::vector<std::string> models;    // in first-seen order
  std::vector<double> axis_values;    // ascending
  std::vector<int64_t> sizes;         // ascending
  std::vector<RegimeCell> cells;      // models × axis values × sizes that have points
  std::vector<RegimeWinner> winners;  // one per (axis value, N) with points, same order
  // nullptr when the model has no point at that (axis value, N).
  const RegimeCell* cell(const std::string& model, double axis_value, int64_t size) const;
  const RegimeWinner* winner(double axis_value, int64_t size) const;
  // The finite means' range over every cell (the shared, locked colour scale); NaN, NaN if none.
  std::pair<double, double> meanRange() const;
};

// Aggregates points (any order; non-finite excess losses are counted out).
RegimeMap buildRegimeMap(const std::vector<RegimePoint>& points);

// The winner rule on one (axis value, N): `cells` are the models' cells there.
RegimeWinner regimeWinner(const std::vector<const RegimeCell*>& cells);

// "winner", "tie", "pending".
const char* regimeVerdictName(RegimeVerdict verdict);

// One line per (axis value, N): "a=0.75 N=64: rnn beats gru by 0.031, 95 % interval [0.012,
// 0.050] over 3 seeds" or "tie rnn / gru: …, interval [-0.01, 0.03] covers 0".
std::vector<std::string> regimeWinnerLines(const RegimeMap& map);
// "95 % interval [0.012, 0.050] over 3 seeds" (`unit`: what the pairs are), or why there is none.
std::string regimeIntervalText(const PairedDifference& difference, const char* unit = "seeds");

// Two axis values are the same cell within this tolerance (values parsed from text).
constexpr double kAxisTolerance = 1e-9;

}  // namespace rsalab
