// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/runtime.h"

#include <dlfcn.h>
#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "engine/torch_api.h"

namespace rsalab {
namespace {

// Attention matrices (B·H·T·T floats, ~134 MB at d128 h8 B16 T512) exceed glibc's mmap threshold,
// so without this each one is mmapped, page-faulted in and unmapped on every step (measured
// 10.2 s -> 1.6 s per step). Runs before main() so that static initialisers benefit too.
bool tuneMalloc() {
  static const bool done = [] {
    const int a = mallopt(M_MMAP_MAX, 0);
    const int b = mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return a == 1 && b == 1;
  }();
  return done;
}
// OpenBLAS picks its kernels once, when it loads (DYNAMIC_ARCH), from the CPU or from
// OPENBLAS_CORETYPE. Environments that pin an AVX2 set (OPENBLAS_CORETYPE=Haswell, as these
// machines do) lose about half of the float32 GEMM throughput on AVX-512 CPUs (measured:
// docs/PERFORMANCE.md, "OpenBLAS kernels"). Unless RSALAB_BLAS_KERNELS=keep, an AVX2-or-older set
// on an AVX-512 CPU is replaced, before any BLAS call, by what OpenBLAS detects for the CPU itself
// (SkylakeX if it detects nothing better), through OpenBLAS's own exported hooks
// gotoblas_dynamic_quit/init. The choice is written back to OPENBLAS_CORETYPE so child processes
// match, and the runtime summary says what happened. Without OpenBLAS nothing happens.
struct BlasCoreChoice {
  std::string core, note;
};

bool isAvx512KernelSet(const std::string& core) {
  return core == "SkylakeX" || core == "Cooperlake" || core == "SapphireRapids";
}

BlasCoreChoice selectBlasKernels() {
  using CoreName = char* (*)();
  using Hook = void (*)();
  auto corename = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (!corename) return {};
  const std::string loaded = corename();
  const char* pinned = std::getenv("OPENBLAS_CORETYPE");
  const std::string origin = pinned ? "set by OPENBLAS_CORETYPE" : "detected by OpenBLAS";
  const char* mode = std::getenv("RSALAB_BLAS_KERNELS");
  if (mode && std::string(mode) == "keep")
    return {loaded, origin + ", kept: RSALAB_BLAS_KERNELS=keep"};
  if (!cpuHasAvx512Kernels() || isAvx512KernelSet(loaded)) return {loaded, origin};
  auto quit = reinterpret_cast<Hook>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
  auto init = reinterpret_cast<Hook>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
  if (!quit || !init) return {loaded, origin + " (no DYNAMIC_ARCH hooks to change it)"};
  ::unsetenv("OPENBLAS_CORETYPE");  // let OpenBLAS detect the CPU itself
  quit();
  init();
  std::string chosen = corename();
  if (!isAvx512KernelSet(chosen)) {
    ::setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
    quit();
    init();
    chosen = corename();
  }
  ::setenv("OPENBLAS_CORETYPE", chosen.c_str(), 1);
  return {chosen, "AVX-512 CPU: replaces " + loaded + " (" + origin +
                      "); RSALAB_BLAS_KERNELS=keep keeps it"};
}

BlasCoreChoice& blasCoreChoice() {
  static BlasCoreChoice choice = selectBlasKernels();
  return choice;
}

// Before main(): so that static initialisers benefit too, and no BLAS call precedes the choice.
__attribute__((constructor(101))) void tuneRuntimeEarly() {
  tuneMalloc();
  blasCoreChoice();
}

}  // namespace

bool cpuHasAvx512Kernels() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}

RuntimeInfo detectBlas() {
  RuntimeInfo info;
  std::ifstream maps("/proc/self/maps");
  std::string line, openblas, blas;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (path.find("libopenblas") != std::string::npos && openblas.empty()) openblas = path;
    if (path.find("libblas.so") != std::string::npos && blas.empty()) blas = path;
  }
  // The soname links (libblas.so.3 -> alternatives) resolve in /proc/self/maps to real files.
  const std::string chosen = !blas.empty() ? blas : openblas;
  info.blas_path = chosen;
  if (chosen.empty()) {
    info.blas_kind = "none mapped (LibTorch's own kernels / MKL)";
  } else if (chosen.find("openblas-openmp") != std::string::npos) {
    info.blas_kind = "OpenBLAS (OpenMP)";
  } else if (chosen.find("openblas-pthread") != std::string::npos) {
    info.blas_kind = "OpenBLAS (pthread; install libopenblas0-openmp for ~1.5x)";
  } else if (chosen.find("openblas") != std::string::npos) {
    info.blas_kind = "OpenBLAS";
  } else {
    info.blas_kind = "reference BLAS";
    info.reference_blas = true;
  }
  return info;
}

std::string RuntimeInfo::summary() const {
  std::ostringstream s;
  s << "runtime: " << threads << " intra-op thread(s); BLAS: " << blas_kind;
  if (!blas_path.empty()) s << " [" << blas_path << "]";
  if (!blas_core.empty()) s << ", kernels " << blas_core << " (" << blas_core_note << ")";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  s << "; malloc: the sanitizer's allocator (mallopt has no effect)";
#else
  s << "; malloc: " << (malloc_tuned ? "mmap off, trim 1 GiB" : "glibc defaults");
#endif
  return s.str();
}

const RuntimeInfo& initRuntime() {
  static RuntimeInfo info;
  static std::once_flag once;
  std::call_once(once, [] {
    const bool tuned = tuneMalloc();
    int threads = static_cast<int>(std::thread::hardware_concurrency());
    if (const char* env = std::getenv("RSALAB_THREADS")) {
      const int requested = std::atoi(env);
      if (requested > 0) threads = requested;
    }
    if (threads < 1) threads = 1;
    torch::set_num_threads(threads);
    info = detectBlas();
    info.malloc_tuned = tuned;
    info.blas_core = blasCoreChoice().core;
    info.blas_core_note = blasCoreChoice().note;
    info.threads = torch::get_num_threads();
    if (info.reference_blas) {
      std::cerr << "WARNING: LibTorch is using the reference BLAS (" << info.blas_path
                << "): matrix products run ~30x slower. Run scripts/setup.sh (installs "
                   "libopenblas0-openmp and selects it).\n";
    }
  });
  return info;
}

void returnFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace rsalab
