// SPDX-License-Identifier: GPL-3.0-or-later
// A sweep's files as plain data (no LibTorch, no Qt): sweep.csv and sweep.json written from a
// SweepResult, and sweep.json read back. This is the one reader of sweep.json: the CLI's figure
// writer, the app's "Open sweep results", the session bundle (parseSessionSweepRows) and the
// sample-efficiency view all go through sweepResultFromJson.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

std::string sweepCsv(const SweepResult& result);   // tidy: one row per (model, N, seed)
std::string sweepJson(const SweepResult& result);  // config, rows, fits, timing
// A row's stop_reason column in sweep.csv and sweep.json: "reference" for a reference row, "" for
// a run that ended before training did, else stopReasonName. The reader takes every such text
// back (and any other text as StopReason::None).
std::string sweepStopReasonText(const SweepRow& row);

// Reads what sweepJson wrote: rows, fits, timing and, when present, the config; curves and
// inspection records are not stored there.
//
// Numbers and null: sweepJson writes a NaN as null (JSON has no NaN). A failed or diverged run
// has no finite test loss, so its "test_loss" (and any other number) may be null: null reads
// back as NaN, never as an error and never as 0.
// Required keys: "runs[i].model" (string), "runs[i].size" (integer) and "runs[i].test_loss"
// (number or null); "fits[i].model". A missing one, or any key of the wrong type, throws
// std::runtime_error "sweep.json: key \"runs[2].test_loss\" ..." naming the key. Other keys are
// optional (missing: seed 0, steps 0, error "", …); no "runs" is a sweep stopped before its
// first run (no rows).
SweepResult sweepResultFromJson(const std::string& text);
// The same from JSON already parsed (a discarded value: "not valid JSON").
SweepResult sweepResultFromParsedJson(const nlohmann::json& parsed);

// Fills result.fits (test loss vs N) and result.excess_fits (excess loss vs N, when the rows have
// a Bayes floor) for `models` in that order, from the usable rows (SweepRow::ok()): per seed
// (fitPowerLawPerSeed, engine/core/forecast/power_law.h), b the seeds' mean with a t interval over
// them. A model (or axis value) with fewer than kPowerLawMinSizes distinct N gets no fit, and
// result.notes says so once.
void fitSweep(SweepResult& result, const std::vector<std::string>& models);

}  // namespace rsalab
