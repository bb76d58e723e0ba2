// SPDX-License-Identifier: GPL-3.0-or-later
// Writes inspection records as JSON (everything) and CSV (one file per matrix) for
// `rsalab-cli inspect` and the session bundles.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "engine/core/io/inspection.h"

namespace rsalab {

std::string inspectionJson(const InspectionRecord& record);
// The same as a JSON value; `compact` stores matrices as {"rows","cols","f32le": base64 of
// little-endian float32} (exact and ~4x smaller than decimal arrays; the session bundles use it).
nlohmann::json inspectionJsonValue(const InspectionRecord& record, bool compact = false);
// Reads either form back. Validates types, matrix sizes (≤ 65 536 per side, ≤ 16 M values,
// values.size() == rows·cols) and nesting; throws std::runtime_error whose message starts with
// `where` and names the key (e.g. "run-0.json: layers[1].heads[0].rem.cols must be an integer").
InspectionRecord inspectionFromJsonValue(const nlohmann::json& j, const std::string& where);
InspectionRecord inspectionFromJson(const std::string& text,
                                    const std::string& where = "inspection.json");
// Writes DIR/inspection.json and DIR/<layer>_<head>_<what>.csv; returns the number of files.
int writeInspection(const InspectionRecord& record, const std::string& dir);

}  // namespace rsalab
