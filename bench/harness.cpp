// SPDX-License-Identifier: GPL-3.0-or-later
#include "bench/harness.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace rsalab::bench {

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---------------------------------------------------------------- statistics

namespace {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = std::min(sorted.size() - 1, lo + 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

Stats summarize(std::vector<double> v) {
  Stats s;
  s.samples = v;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = quantile(v, 0.5);
  s.q1 = quantile(v, 0.25);
  s.q3 = quantile(v, 0.75);
  return s;
}

Stats mapStats(const Stats& s, const std::function<double(double)>& f) {
  std::vector<double> v;
  for (double x : s.samples) v.push_back(f(x));
  return summarize(v);
}

double logLogSlope(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

std::vector<Stats> interleave(const std::vector<std::function<void()>>& variants,
                              const Plan& plan) {
  std::vector<std::vector<double>> t(variants.size());
  for (int w = 0; w < plan.warmup; ++w) {
    for (const auto& f : variants) f();
  }
  const auto start = Clock::now();
  for (int r = 0; r < plan.max_reps && (r < plan.min_reps || since(start) < plan.budget_s); ++r) {
    for (size_t i = 0; i < variants.size(); ++i) t[i].push_back(timeOnce(variants[i]));
  }
  std::vector<Stats> out;
  for (auto& v : t) out.push_back(summarize(v));
  return out;
}

// ---------------------------------------------------------------- options

const std::vector<std::string>& sectionNames() {
  static const std::vector<std::string> names = {"gemm",
                                                 "train",
                                                 "breakdown",
                                                 "rsa",
                                                 "attention",
                                                 "generation",
                                                 "levers",
                                                 "linear-levers",
                                                 "recurrent-levers",
                                                 "starsaber-levers",
                                                 "blas-levers",
                                                 "blas-child"};
  return names;
}

const std::vector<std::string>& defaultSections() {
  static const std::vector<std::string> names = {"gemm",      "train",      "breakdown", "rsa",
                                                 "attention", "generation", "levers"};
  return names;
}

bool Options::wantsConfig(const std::string& config) const {
  return std::find(configs.begin(), configs.end(), config) != configs.end();
}

Plan scaled(Plan p, const Options& o) {
  p.min_reps = std::max(1, static_cast<int>(std::lround(p.min_reps * std::min(1.0, o.scale))));
  p.max_reps = std::max(p.min_reps, static_cast<int>(std::lround(p.max_reps * o.scale)));
  p.budget_s *= o.scale;
  return p;
}

// ---------------------------------------------------------------- output

std::string spread(const Stats& s, double scale, int precision) {
  return formatNumber(s.median * scale, precision) + " (" + formatNumber(s.min * scale, precision) +
         "-" + formatNumber(s.max * scale, precision) + ")";
}

void heading(const std::string& title) { std::cout << "\n== " << title << " ==\n" << std::flush; }

// ---------------------------------------------------------------- machine

namespace {

// The value of the first line of `path` that starts with `key` ("key: value" or key="value").
std::string firstLineWith(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto pos = line.find_first_of(":=", key.size());
      auto v = pos == std::string::npos ? line : line.substr(pos + 1);
      v.erase(0, v.find_first_not_of(" \t\""));
      while (!v.empty() && (v.back() == '"' || v.back() == ' ')) v.pop_back();
      return v;
    }
  }
  return "?";
}

}  // namespace

Machine describeMachine() {
  utsname uts{};
  uname(&uts);
  Machine m;
  m.cpu = firstLineWith("/proc/cpuinfo", "model name");
  m.os = firstLineWith("/etc/os-release", "PRETTY_NAME");
  m.kernel = uts.release;
  m.cores = std::thread::hardware_concurrency();
  return m;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  return buf;
}

double loadAverage() {
  std::ifstream in("/proc/loadavg");
  double one = -1;
  in >> one;
  return one;
}

// ---------------------------------------------------------------- child processes

std::vector<std::string> runSelf(const std::string& env, const std::string& section,
                                 const std::string& prefix) {
  // The shell popen starts would read its own /proc/self/exe: resolve ours here.
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string cmd = env + " '" + self + "' --sections " + section + " 2>/dev/null";
  std::vector<std::string> out;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return out;
  char line[512];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string s(line);
    if (s.rfind(prefix, 0) != 0) continue;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    out.push_back(s.substr(prefix.size()));
  }
  ::pclose(pipe);
  return out;
}

}  // namespace rsalab::bench
