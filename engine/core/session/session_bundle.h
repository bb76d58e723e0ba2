// SPDX-License-Identifier: GPL-3.0-or-later
// Session bundles: everything needed to reopen a session offline — the config, the runs, every
// metric point, inspection snapshots, checkpoints, the sweep table and the window layout. The
// engine owns the format so the CLI (`train/sweep --session DIR`) and the app write the same thing.
//
// Layout: a folder NAME.rsalab/ holding
//   manifest.json             format version, app version, RunConfig, models, seeds, task, times,
//                             runs [{id, model, seed, status, parameters, message}]
//   metrics/run-<id>.csv      every StepMetrics ("train" rows) and EvalMetrics ("eval" rows)
//   checkpoints/run-<id>.pt   the Trainer's checkpoint (optional: written through a callback)
//   inspection/run-<id>.json  inspection snapshots by step (matrices as base64 float32)
//   sweep.json                only for sweeps: sweepJson() of engine/core/sweep/sweep_io.h
//   errors.json               series tasks: the references (baselines, anchors) with their
//                             per-target test errors, the horizon and season, and each run's
//                             per-target test errors: the skill intervals (skill_interval.h).
//                             Optional: bundles written before 2026-11-27 have none
//   layout.bin                the window's saveState (written by the app; opaque here)
//
// Why a folder and not one archive: checkpoints are written by LibTorch's own serializer to a
// path, the metrics are plain CSV a user can open in a spreadsheet or pandas, and no zip library
// is needed (Debian's engine dependencies stay LibTorch + nlohmann-json). Whole-bundle atomicity
// comes from the rename below, not from a container format.
//
// Saving is atomic for the bundle as a whole: files go into NAME.rsalab.tmp-XXXX/ (each through
// writeFileAtomically), then the previous bundle is renamed to NAME.rsalab.bak-XXXX, the new one
// renamed into place, and the backup removed. A crash before the final rename leaves the previous
// bundle untouched; a crash between the two renames leaves it as the .bak-XXXX folder, which
// loadSession() finds and opens when NAME.rsalab itself is missing. XXXX is <pid>-<random>: the
// next successful save removes the .tmp- folders of writers no longer running and the .bak-
// folders (tests/test_atomic_saves.cpp kills a saving child 21 times).
//
// Reader limits (hostile files get an error naming the file and key, never a crash):
//   manifest.json ≤ 4 MiB, ≤ 4096 runs; metrics CSV ≤ 256 MiB and ≤ 10 M rows per run;
//   inspection JSON ≤ 512 MiB per run, ≤ 100 000 snapshots, matrices ≤ 65 536 per side and
//   ≤ 16 M values; sweep.json ≤ 64 MiB; errors.json ≤ 64 MiB; layout.bin ≤ 4 MiB.
// No LibTorch in this header: the app and widget-side code read bundles as plain data.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/forecast/metrics.h"
#include "engine/core/io/inspection.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/core/sweep/sweep_types.h"
#include "engine/core/sweep/tuned_set.h"

namespace rsalab {

constexpr int kSessionFormatVersion = 1;
constexpr const char* kSessionSuffix = ".rsalab";

// A bad bundle: the message names the file (relative to the bundle) and the key or line.
class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SessionRun {
  int64_t id = 0;
  std::string model;
  uint64_t seed = 0;
  int64_t train_size = 0;  // N of this run; 0 = the bundle config's (sweeps vary it per run)
  RunState state = RunState::Idle;  // written as runStateName() (engine/core/io/enums.h), "status"
  int64_t parameters = 0;
  std::string message;  // error or stop reason
  std::vector<StepMetrics> steps;
  std::vector<EvalMetrics> evals;
  std::vector<std::pair<int64_t, InspectionRecord>> snapshots;  // (step, record), by step
  // On load: the checkpoint file inside the bundle, empty when there is none. On save, a file
  // here is copied into the new bundle unless a write_checkpoint hook writes the run's checkpoint.
  std::string checkpoint_file;
  // Series tasks, once tested: per test target, the mean e² over its steps and columns
  // (EvalMetrics::target_errors), in errors.json. Empty otherwise.
  std::vector<double> test_errors;
};

struct SessionBundle {
  int format_version = kSessionFormatVersion;
  std::string app_version;  // filled by saveSession when empty
  RunConfig config;         // the base config shared by the runs (model/seed vary per run)
  std::vector<std::string> models;
  int64_t seeds = 1;
  std::string created,
      updated;  // ISO 8601 UTC; saveSession sets `updated` (and `created` if empty)
  std::vector<SessionRun> runs;
  // What the runs' task knows (REM truth, Bayes floor) and the T they had (0: the config's);
  // manifest keys "truth" and "length" (absent in bundles written before 2026-11-27: empty).
  GroundTruth truth;
  int64_t length = 0;
  // The tuned configurations the runs trained at (`train --tuned`, `sweep --tuned`; manifest key
  // "tuned", absent when the runs trained at the shared defaults).
  TunedSet tuned;
  std::string sweep_json;  // empty: not a sweep
  SweepResult sweep;       // on load: sweep_json parsed (its rows, fits, config); not written
  // Series tasks: the task's references with their per-target test errors, and the horizon
  // and season that set the skill interval's block (errors.json). Empty: none.
  std::vector<ReferenceScore> references;
  int64_t horizon = 1, season = 1;
  std::string layout;       // bytes of QMainWindow::saveState; empty: none
  std::string loaded_from;  // on load: the folder actually read (a .bak-XXXX after a crash)
};

struct SessionSaveHooks {
  // Writes run `id`'s checkpoint to `path` (e.g. Trainer::saveCheckpoint) and returns true, or
  // returns false when it has none (then SessionRun::checkpoint_file is copied, if any).
  std::function<bool(int64_t id, const std::string& path)> write_checkpoint;
  // Called after each file is complete (tests use it to interrupt a save part-way).
  std::function<void(const std::string& relative_path)> after_file;
};

// Writes the bundle atomically as described above; `dir` gets the .rsalab suffix if it lacks one.
// Returns the folder written. Throws std::runtime_error; the previous bundle then stays intact.
// An eval split other than validation/test throws SessionError before anything is written (such a
// bundle could not be opened again).
std::string saveSession(SessionBundle bundle, const std::string& dir,
                        const SessionSaveHooks& hooks = {});
// Reads and validates a bundle (see the limits above). Throws SessionError.
SessionBundle loadSession(const std::string& dir);
// The manifest alone (tests, fuzzing): `file` names it in messages.
SessionBundle parseSessionManifest(const std::string& text,
                                   const std::string& file = "manifest.json");

// Metrics of one run as the bundle's CSV, and back (exact: 17 significant digits).
std::string sessionMetricsCsv(const SessionRun& run);
void parseSessionMetricsCsv(const std::string& text, const std::string& file, SessionRun& run);

std::string sessionBundlePath(const std::string& dir);  // adds ".rsalab" when missing
std::string utcTimestamp();                             // "2026-11-22T22:51:07Z"

// The rows of a sweep.json, read by sweepResultFromJson (engine/core/sweep/sweep_io.h, the one
// sweep.json reader: a null test loss is NaN). Throws SessionError naming the key.
std::vector<SweepRow> parseSessionSweepRows(const std::string& sweep_json);

}  // namespace rsalab
