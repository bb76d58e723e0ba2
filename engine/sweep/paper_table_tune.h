// SPDX-License-Identifier: GPL-3.0-or-later
// Tuning the RSA paper's table (`rsalab-cli paper-table --tune-out DIR`): each model of the table,
// and the Informer pair when the table has it, tuned at one horizon on its own run config
// (paperRunConfig: the table's budget, or Informer's for the pair) by `rsalab-cli tune`'s
// successive halving (engine/training/tune_run.h). The last rung's budget is that config's whole
// step budget (every epoch, no early stopping), so each model is tuned on the budget it is then
// compared at; the same trials for every model; chosen on the validation windows only. The files
// go to DIR/table/<model>.tuned.json and DIR/informer/<model>.tuned.json, for
// `paper-table --tuned`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/sweep/tuning.h"
#include "engine/sweep/paper_table_run.h"

namespace rsalab {

struct PaperTuneOptions {
  int64_t horizon = 24;  // the horizon tuned at (one of the table's)
  int64_t trials = 27;
  int64_t workers = 0;  // runs at a time; 0 = one per core
  uint64_t seed = 0;    // the tuning's seed (its data draws and configurations)
  std::string out_dir;  // required; run again with the same settings to resume
  std::function<void(const std::string&)> progress;
};

// One TunedModel per model (the table's, then the pair's), in that order. Throws
// std::invalid_argument for a horizon the table does not have, or an --out tuned otherwise.
std::vector<TunedModel> runPaperTune(const PaperTableOptions& table,
                                     const PaperTuneOptions& options);

// The tuned set fits the table: every model it trains (and the pair's) has a file tuned on its
// run config at each of its horizons, and the table has the M rows only (no univariate, norm or
// sample-efficiency rows). Nothing to check without files. Throws std::invalid_argument.
void requirePaperTuned(const PaperTableOptions& table);

// The runs of an earlier table (`--beside`, its JSON named `what`) that `table` repeats at the
// shared defaults: its models', the M rows at full data and global norm, at `table`'s horizons and
// seeds (the pair's at its own). Throws std::invalid_argument when that table's settings (size,
// budget, input length, series, the pair's size) are not `table`'s.
std::vector<PaperRun> besidePaperRuns(const PaperTableOptions& table, const std::string& table_json,
                                      const std::string& what);

// The table JSON's "shared_defaults": the sources, rows (paperRowsJson) and verdicts of
// table.beside by the same rules as the tuned rows' (verdicts, informer_verdicts).
std::string sharedDefaultsJson(const PaperTableOptions& table);

}  // namespace rsalab
