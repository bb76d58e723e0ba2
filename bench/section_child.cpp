// SPDX-License-Identifier: GPL-3.0-or-later
// The levers only a fresh process can pull (the OpenBLAS build and its kernels), and section 7:
// the default sweep's wall time, both timed through child processes.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "bench/fixtures.h"
#include "bench/sections.h"
#include "engine/runtime.h"

namespace rsalab::bench {

// The BLAS levers need a fresh process: the loader picks the OpenBLAS build at start-up, and the
// runtime picks OpenBLAS's kernels before main(). The parent starts itself with
// `--sections blas-child` under each setting, alternating, and reads the child's median step:
//   build:   the pthread build first on LD_LIBRARY_PATH vs the OpenMP build scripts/setup.sh
//   selects kernels: OPENBLAS_CORETYPE=Haswell kept (these machines' environment) vs the runtime's
//   choice
constexpr const char* kPthreadOpenBlasDir = "/usr/lib/x86_64-linux-gnu/openblas-pthread";

void blasChild() {
  TrainCase tc(attentionModel(attentionKind("softmax")), trainConfig("large"));
  const auto t = measure([&] { tc.step(); }, Plan{1, 3, 3, 60});
  const auto& rt = initRuntime();
  std::printf("blas-child %s, kernels %s|%.6f\n", rt.blas_kind.c_str(), rt.blas_core.c_str(),
              t.median);
}

namespace {

struct ChildStep {
  std::string blas;
  double seconds = NAN;
};

ChildStep runBlasChild(const std::string& env) {
  ChildStep r;
  for (const auto& line : runSelf(env, "blas-child", "blas-child ")) {
    const auto bar = line.find_last_of('|');
    if (bar == std::string::npos) continue;
    r.blas = line.substr(0, bar);
    r.seconds = std::atof(line.c_str() + bar + 1);
  }
  return r;
}

}  // namespace

std::vector<LeverResult> benchBlasLevers(const Options& o) {
  std::vector<LeverResult> out;
  struct Lever {
    std::string name, before_env, before_name, after_name;
  };
  std::vector<Lever> levers;
  if (std::filesystem::exists(kPthreadOpenBlasDir)) {
    levers.push_back({"OpenBLAS build: softmax Transformer large training step",
                      std::string("LD_LIBRARY_PATH=") + kPthreadOpenBlasDir, "pthread build",
                      "OpenMP build (scripts/setup.sh)"});
  }
  if (cpuHasAvx512Kernels() && !initRuntime().blas_core.empty()) {
    levers.push_back({"OpenBLAS kernels: softmax Transformer large training step",
                      "RSALAB_BLAS_KERNELS=keep OPENBLAS_CORETYPE=Haswell",
                      "AVX2 Haswell kernels (pinned)", "AVX-512 kernels (runtime's pick)"});
  }
  const int rounds = o.scale < 1 ? 1 : 2;
  for (const auto& l : levers) {
    std::vector<double> before_t, after_t;
    std::string before_blas, after_blas;
    for (int r = 0; r < rounds; ++r) {
      auto a = runBlasChild(l.before_env), b = runBlasChild("");
      before_blas = a.blas, after_blas = b.blas;
      if (std::isfinite(a.seconds)) before_t.push_back(a.seconds);
      if (std::isfinite(b.seconds)) after_t.push_back(b.seconds);
    }
    if (before_t.empty() || after_t.empty()) {
      std::printf("  %s: a child run failed, skipped\n", l.name.c_str());
      continue;
    }
    const auto p = summarize(before_t), m = summarize(after_t);
    std::printf("  %s (child processes, median of 3 steps each)\n", l.name.c_str());
    std::printf("    %-58s %s ms  (x1 vs first)\n    %-58s %s ms  (x%s vs first)\n",
                (l.before_name + ": " + before_blas).substr(0, 58).c_str(), spread(p, 1e3).c_str(),
                (l.after_name + ": " + after_blas).substr(0, 58).c_str(), spread(m, 1e3).c_str(),
                formatNumber(p.median / m.median).c_str());
    out.push_back({l.name, l.before_name, p});
    out.push_back({l.name, l.after_name, m});
  }
  return out;
}

// ---------------------------------------------------------------- 7. sweep

SweepTiming benchSweep(const Options& o) {
  heading("7. Default sweep wall time");
  SweepTiming s;
  const auto dir =
      std::filesystem::temp_directory_path() / ("rsalab-bench-sweep-" + std::to_string(::getpid()));
  s.command = o.cli + " sweep --out " + dir.string();
  std::printf("  %s  (log: %s/sweep.log)\n", s.command.c_str(), dir.string().c_str());
  std::fflush(stdout);
  std::filesystem::create_directories(dir);
  const auto start = Clock::now();
  const int rc = std::system((s.command + " > " + dir.string() + "/sweep.log 2>&1").c_str());
  s.seconds = since(start);
  s.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  s.ran = true;
  std::printf("  wall %s s, exit code %d\n", formatNumber(s.seconds, 4).c_str(), s.exit_code);
  return s;
}

}  // namespace rsalab::bench
