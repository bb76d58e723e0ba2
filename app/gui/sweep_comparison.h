// SPDX-License-Identifier: GPL-3.0-or-later
// Turns a sweep's rows into what the sample-efficiency view and the comparison table draw:
// plain points per run, and per model its cost (parameters, analytic FLOPs per token, measured
// steps/s and wall time), its mean test loss at each N and its configuration as flat keys
// (only the keys that apply to that model, so "differences only" shows real differences).
#pragma once

#include <QVector>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/sweep/sweep_types.h"
#include "engine/core/verdicts/regime_map.h"
#include "widgets/comparison_table.h"
#include "widgets/sample_efficiency_view.h"

namespace rsalab {

SampleEfficiencyPoint sampleEfficiencyPoint(const SweepRow& row);
// The regime map's point of a row: regimePoint in engine/core/sweep/sweep_io.h.

// One entry per model (in first-seen order) over the usable rows (SweepRow::ok()).
QVector<ComparisonEntry> comparisonEntries(const std::vector<SweepRow>& rows,
                                           const RunConfig& base);

// "task.length" → "48", ...: the config as JSON, flattened; keys of options a model does not use
// (REM heads for a Transformer, heads for an RNN, ...) are left out.
QMap<QString, QString> flatConfig(const RunConfig& config);

}  // namespace rsalab
