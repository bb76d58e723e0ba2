// SPDX-License-Identifier: GPL-3.0-or-later
// What the paper table's Markdown (paper_table.cpp) shares with its Informer section
// (paper_table_informer.cpp) and its tuned parts (paper_table_tuned.cpp). Plain C++.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/core/verdicts/paper_table.h"

namespace rsalab {

// j[key], or std::runtime_error naming the key ("paper table: missing key …").
const nlohmann::json& paperKey(const nlohmann::json& j, const char* key);
// "0.412 [0.398, 0.426]" (the 95 % interval over seeds), "0.412" for one run, "—" for none.
std::string paperCell(const nlohmann::json& stat);
// "**Informer** (published, SOURCE; their model size, their lookback: …)".
std::string publishedLabel(const PublishedResult& p);
// The Informer pair's section (its caption, MSE table beside persistence and the published rows,
// its verdicts, its time and the paper size's estimate); "" for a table without it.
std::string informerSection(const nlohmann::json& table);
// "Configurations: shared defaults (…)" or the tuned set's label with one line per tuned model
// (paper_table_tuned.cpp).
std::string configurationsText(const nlohmann::json& table);
// A tuned table's rows and verdicts beside its "shared_defaults"; "" without them.
std::string sharedDefaultsSection(const nlohmann::json& table);

}  // namespace rsalab
