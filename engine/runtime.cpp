#include "engine/runtime.h"

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
__attribute__((constructor(101))) void tuneMallocEarly() { tuneMalloc(); }

}  // namespace

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
  s << "; malloc: " << (malloc_tuned ? "mmap off, trim 1 GiB" : "glibc defaults");
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
    info.threads = torch::get_num_threads();
    if (info.reference_blas) {
      std::cerr << "WARNING: LibTorch is using the reference BLAS (" << info.blas_path
                << "): matrix products run ~30x slower. Run scripts/setup.sh (installs "
                   "libopenblas0-openmp and selects it).\n";
    }
  });
  return info;
}

}  // namespace rsalab
