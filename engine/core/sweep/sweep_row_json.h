// SPDX-License-Identifier: GPL-3.0-or-later
// One sweep row as a JSON object: the one writer and reader of a row's keys, shared by sweep.json
// (engine/core/sweep/sweep_io.h) and a Slurm sweep's cell files (engine/core/sweep/sweep_cell.h),
// so a key added to SweepRow is written and read in both at once.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

nlohmann::json sweepRowToJson(const SweepRow& row);  // no curves, no inspection record
// Throws std::runtime_error naming the key as `path.key` ("row.test_loss"), without the file's
// name (the caller names the file); the same key rules as sweepResultFromJson's runs.
SweepRow sweepRowFromJson(const nlohmann::json& row, const std::string& path);

}  // namespace rsalab
