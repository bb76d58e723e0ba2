// SPDX-License-Identifier: GPL-3.0-or-later
// The paper table's configurations line and, for a tuned table, its section beside the shared
// defaults (paper_table_parts.h).
#include <sstream>
#include <vector>

#include "engine/core/io/text.h"
#include "engine/core/sweep/tuned_set.h"
#include "engine/core/verdicts/paper_table_parts.h"

namespace rsalab {

namespace {

using json = nlohmann::json;

// The verdict of `list` with the claim and horizon of `v`, or nullptr.
const json* sameClaim(const json& list, const json& v) {
  for (const auto& w : list)
    if (paperKey(w, "claim") == paperKey(v, "claim") &&
        paperKey(w, "horizon") == paperKey(v, "horizon"))
      return &w;
  return nullptr;
}

// The stat of `model` at `horizon` among `rows` (features M, full data, global), or nullptr.
const json* rowStat(const json& rows, const std::string& model, int64_t horizon) {
  for (const auto& r : rows)
    if (paperKey(r, "model").get<std::string>() == model &&
        paperKey(r, "horizon").get<int64_t>() == horizon &&
        paperKey(r, "features").get<std::string>() == "M" &&
        paperKey(r, "train_fraction").get<double>() == 1.0 &&
        r.value("norm", std::string("global")) == "global")
      return &paperKey(r, "mse");
  return nullptr;
}

}  // namespace

std::string configurationsText(const json& table) {
  const json& s = paperKey(table, "settings");
  if (!s.contains("tuned"))
    return "Configurations: shared defaults (the one size and budget above for every network, "
           "Informer's for the pair; no model was tuned).\n\n";
  const TunedSet set = tunedSetFromJson(s.at("tuned").dump(), "paper table: settings.tuned");
  std::ostringstream md;
  md << "Configurations: " << tunedLabel(set)
     << ". Each model trains at its tuned knobs on top of the settings above (chosen on the "
        "validation windows only, by `paper-table --tune-out`):\n\n";
  for (const auto& line : tunedLines(set)) md << "- " << line << "\n";
  md << "\n";
  return md.str();
}

std::string sharedDefaultsSection(const json& table) {
  if (!table.contains("shared_defaults")) return "";
  const json& d = table.at("shared_defaults");
  const json& rows = paperKey(d, "rows");
  std::ostringstream md;
  md << "\nTuned beside the shared defaults (the same models, horizons and seeds at the shared "
        "defaults, from "
     << joined(paperKey(d, "sources").get<std::vector<std::string>>())
     << "): test MSE, multivariate.\n\n| model | H | shared defaults | tuned "
        "|\n|---|---|---|---|\n";
  for (const auto& r : paperKey(table, "rows")) {
    const auto kind = paperKey(r, "kind").get<std::string>();
    if (kind != "model" && kind != "forecaster") continue;
    const auto model = paperKey(r, "model").get<std::string>();
    const auto h = paperKey(r, "horizon").get<int64_t>();
    const json* before = rowStat(rows, model, h);
    const json* after = rowStat(paperKey(table, "rows"), model, h);
    if (!after) continue;
    md << "| " << model << " | " << h << " | " << (before ? paperCell(*before) : "—") << " | "
       << paperCell(*after) << " |\n";
  }
  md << "\nVerdicts at the shared defaults and tuned (the same rule on each):\n\n";
  for (const char* key : {"verdicts", "informer_verdicts"}) {
    if (!table.contains(key)) continue;
    for (const auto& v : table.at(key)) {
      const json* before = d.contains(key) ? sameClaim(d.at(key), v) : nullptr;
      const auto tuned = paperKey(v, "verdict").get<std::string>();
      const auto shared = before ? paperKey(*before, "verdict").get<std::string>() : "—";
      md << "- " << paperKey(v, "claim").get<std::string>() << ": shared defaults " << shared
         << ", tuned " << tuned << " ("
         << (before ? (shared == tuned ? "unchanged by tuning" : "changed by tuning")
                    : "no shared-default runs")
         << ").\n";
    }
  }
  return md.str();
}

}  // namespace rsalab
