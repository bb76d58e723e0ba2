// SPDX-License-Identifier: GPL-3.0-or-later
// The lab's claims on every teacher process: "claim × process → verdict (the deciding number)".
// The presets marked every_process (engine/core/verdicts/presets.h) ran on rem, RSA's home ground,
// before anything else; each is rerun on the other processes with its rule unchanged (only the
// ground changes), and kept as one record per preset and process (preset_record.h:
// docs/data/NAME.json, NAME = presetRecordName). This renders those records, and nothing else,
// into one table: a row per claim, a column per process of the registry, each cell the rule's
// outcome and ClaimVerdict::deciding; "not run" where no record is. A claim that holds on rem
// and on no other process run says "on RSA's home ground only". Below the table: each process's
// grid (the cuts against the presets' grids), the default rerun's measured wall time (the records
// of every process but rem, each sweep counted once) and an estimate of the presets' full grids.
// Plain C++ (core library).
#pragma once

#include <string>
#include <vector>

#include "engine/core/verdicts/preset_record.h"

namespace rsalab {

// The presets with every_process set, in the presets' order.
std::vector<const Preset*> everyProcessPresets();

// The block, markers included (records of other presets are ignored).
std::string claimsByProcessBlock(const std::vector<PresetRecord>& records);
// `markdown` with its claims-by-process block replaced; std::runtime_error naming `what` when it
// has none.
std::string replaceClaimsByProcessBlock(const std::string& markdown,
                                        const std::vector<PresetRecord>& records,
                                        const std::string& what);
std::string claimsByProcessBlockIn(const std::string& markdown, const std::string& what);

// A sweep's wall time at its presets' full grids, estimated from the measured one: time ∝ the
// training steps summed over sizes (each N's max(steps, ⌈epochs·N / batch⌉), the preset's
// budget), the other axes unchanged. `sizes` are the sizes the sweep ran.
double fullGridSeconds(const Preset& preset, const std::vector<int64_t>& sizes,
                       double measured_seconds);

}  // namespace rsalab
