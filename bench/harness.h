// SPDX-License-Identifier: GPL-3.0-or-later
// The bench's harness: timing, samples and their statistics, how long to measure, the run's
// options, the machine it runs on, and starting this binary again as a child process (for the
// levers that only a fresh process can pull). Plain C++: no LibTorch.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/io/text.h"  // formatNumber, joined: the bench prints numbers as the app does

namespace rsalab::bench {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start);

template <class F>
double timeOnce(F&& f) {
  const auto start = Clock::now();
  f();
  return since(start);
}

// ---------------------------------------------------------------- statistics

struct Stats {
  std::vector<double> samples;
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
  bool empty() const { return samples.empty(); }
};

Stats summarize(std::vector<double> v);
// f(x) applied to every sample (for monotone f: the stats of f(samples)).
Stats mapStats(const Stats& s, const std::function<double(double)>& f);
// Least-squares slope of log y on log x.
double logLogSlope(const std::vector<double>& x, const std::vector<double>& y);

// ---------------------------------------------------------------- how long to measure

// Warm-up calls, then repeats until max_reps, or until the budget is spent once min_reps are in.
struct Plan {
  int warmup = 1;
  int min_reps = 3;
  int max_reps = 10;
  double budget_s = 10;
};

template <class F>
Stats measure(F&& f, const Plan& plan) {
  for (int i = 0; i < plan.warmup; ++i) f();
  std::vector<double> t;
  const auto start = Clock::now();
  while (static_cast<int>(t.size()) < plan.max_reps &&
         (static_cast<int>(t.size()) < plan.min_reps || since(start) < plan.budget_s)) {
    t.push_back(timeOnce(f));
  }
  return summarize(t);
}

// Runs the variants round-robin (warm-up each first) and returns one Stats per variant, so
// drifting load on a shared machine hits every variant alike.
std::vector<Stats> interleave(const std::vector<std::function<void()>>& variants, const Plan& plan);

// ---------------------------------------------------------------- options

// Every section --sections accepts, in the order they run. "blas-levers" runs only the
// child-process levers; "blas-child" is internal (the child those levers start).
const std::vector<std::string>& sectionNames();
const std::vector<std::string>& defaultSections();

struct Options {
  std::string json_path;
  std::set<std::string> sections;
  std::vector<std::string> configs;
  std::vector<std::string> models;  // default: every sequence model of the registry
  bool with_sweep = false;
  std::string cli = "build/app/cli/rsalab-cli";
  double scale = 1;  // --quick: 0.3 of the repeats and budgets
  // --device: where the gemm and train sections run ("cpu", "cuda", "cuda:N"; engine/device.h).
  std::string device = "cpu";

  bool has(const std::string& section) const { return sections.count(section) > 0; }
  bool wantsConfig(const std::string& config) const;
};

// `p` with its repeats and budget scaled by --quick.
Plan scaled(Plan p, const Options& o);

// ---------------------------------------------------------------- output

// "median (min-max)" in the given unit scale.
std::string spread(const Stats& s, double scale = 1, int precision = 3);
void heading(const std::string& title);

// ---------------------------------------------------------------- machine

struct Machine {
  std::string cpu, os, kernel;
  unsigned cores = 0;
};
Machine describeMachine();
std::string utcNow();
double loadAverage();  // 1-minute load average, -1 if unreadable

// ---------------------------------------------------------------- child processes

// Starts this binary again as `env '/proc/self/exe' --sections SECTION` (env: "VAR=value ...",
// may be empty) and returns the lines of its standard output that start with `prefix`, the
// prefix removed. Its standard error is discarded.
std::vector<std::string> runSelf(const std::string& env, const std::string& section,
                                 const std::string& prefix);

}  // namespace rsalab::bench
