// SPDX-License-Identifier: GPL-3.0-or-later
// Process-wide runtime settings every RSA Lab binary applies before training:
// malloc kept from unmapping big blocks, OpenBLAS's AVX-512 kernels where the CPU has them,
// intra-op threads set to the cores, and a report of the BLAS library actually loaded (read from
// /proc/self/maps).
#pragma once

#include <string>

namespace rsalab {

struct RuntimeInfo {
  int threads = 1;              // LibTorch intra-op threads in use
  std::string blas_path;        // shared object the loader mapped for BLAS, or "" if none seen
  std::string blas_kind;        // "OpenBLAS (OpenMP)", "OpenBLAS (pthread)", "reference BLAS", ...
  bool reference_blas = false;  // true: matmul runs ~30x slower than with OpenBLAS
  bool malloc_tuned = false;    // mallopt(M_MMAP_MAX, 0) and a high M_TRIM_THRESHOLD applied
  std::string blas_core;        // OpenBLAS kernel set in use ("SkylakeX", "Haswell"), "" if n/a
  std::string blas_core_note;   // how it was chosen (detected, selected for AVX-512, environment)
  std::string summary() const;  // one line for logs and `rsalab-cli --version`
};

// Idempotent; every main() calls it first. Threads: RSALAB_THREADS if set, else all cores.
const RuntimeInfo& initRuntime();

// The loaded BLAS as seen in /proc/self/maps (exposed for tests).
RuntimeInfo detectBlas();

// True when the CPU has the AVX-512 subsets OpenBLAS's SkylakeX kernels use (F, CD, BW, DQ, VL).
bool cpuHasAvx512Kernels();

// Hands the heap's freed pages back to the system (glibc: malloc_trim over every arena; a no-op
// elsewhere). A long sweep trains hundreds of runs on worker threads; without it the freed
// memory of finished runs stays in the threads' arenas and the resident set grows by about a
// MiB per run (measured on the GUI's 350-run sweep: 391 MiB resident, 264 MiB after one trim).
void returnFreedMemory();

}  // namespace rsalab
