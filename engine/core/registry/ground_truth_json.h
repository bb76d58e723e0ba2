// SPDX-License-Identifier: GPL-3.0-or-later
// A task's ground truth as JSON: the one writer and reader, used by session bundles (manifest.json)
// and sweep rows (sweep.json, cell files), so a reopened run keeps what its task knew.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/core/registry/ground_truth.h"

namespace rsalab {

// {"components": [{"kind": "regular", "base": 0.8, "theta": 0}], "description": …, "meaning": …,
//  "bayes_floor": number or null, "floor_note": …}
nlohmann::json groundTruthJson(const GroundTruth& truth);
// Throws std::runtime_error naming `where` and the key. Absent keys keep their defaults.
GroundTruth groundTruthFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace rsalab
