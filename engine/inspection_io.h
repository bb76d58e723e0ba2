// Writes inspection records as JSON (everything) and CSV (one file per matrix) for
// `rsalab-cli inspect` and the session bundles.
#pragma once

#include <string>

#include "engine/inspection.h"

namespace rsalab {

std::string inspectionJson(const InspectionRecord& record);
// Writes DIR/inspection.json and DIR/<layer>_<head>_<what>.csv; returns the number of files.
int writeInspection(const InspectionRecord& record, const std::string& dir);

}  // namespace rsalab
