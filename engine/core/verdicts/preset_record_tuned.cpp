// SPDX-License-Identifier: GPL-3.0-or-later
// A preset record's configurations and, for a tuned record, its shared defaults beside it
// (preset_record.h).
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "engine/core/io/text.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/core/verdicts/preset_record.h"
#include "engine/core/verdicts/regime_map.h"

namespace rsalab {

namespace {

// A run's cell: (N asked for, axis value or NaN, seed); NaN axis values compare equal.
using CellKey = std::tuple<int64_t, double, uint64_t>;
CellKey cellOf(const SweepRow& r) {
  return {r.requested_size > 0 ? r.requested_size : r.size,
          std::isfinite(r.axis_value) ? r.axis_value : -1e300, r.seed};
}

// Each model's mean test loss over its finished runs, and how many.
std::map<std::string, std::pair<double, int>> meanLosses(const SweepResult& sweep) {
  std::map<std::string, std::pair<double, int>> out;
  for (const auto& r : sweep.rows) {
    if (r.reference || !r.ok() || !std::isfinite(r.test_loss)) continue;
    auto& [sum, n] = out[r.model];
    sum += r.test_loss;
    ++n;
  }
  for (auto& [m, v] : out) v.first /= v.second;
  return out;
}

}  // namespace

std::vector<ClaimVerdict> presetRecordVerdicts(const PresetRecord& record,
                                               const SweepResult& sweep) {
  const Preset& preset = presetOrThrow(record.preset);
  if (!record.corner.empty() && preset.rule == ClaimRule::Figure1)
    return figure1CornerVerdicts(buildRegimeMap(regimePoints(sweep.rows)),
                                 record.corner == "recurrent");
  ClaimEvidence evidence;
  evidence.rows = &sweep.rows;
  return judgeClaim(preset.rule, evidence);
}

std::string presetConfigurationsText(const PresetRecord& record) {
  const SweepResult& sweep = record.sweep;
  if (sweep.tuned.empty())
    return "Configurations: shared defaults (every model at the preset's config).\n\n";
  std::string out = "Configurations: " + tunedLabel(sweep.tuned, &sweep.base) +
                    ". Each model trains at its tuned knobs on top of the preset's config, kept "
                    "at every N and axis value of this sweep (its steps and seeds are the "
                    "sweep's); chosen on the validation set only by `rsalab-cli tune`:\n\n";
  for (const auto& line : tunedLines(sweep.tuned)) out += "- " + line + "\n";
  return out + "\n";
}

std::string presetDefaultsText(const PresetRecord& record) {
  if (record.defaults.rows.empty()) return "";
  std::string out = "\nBeside the shared defaults (the same models, cells and seeds, from " +
                    record.defaults_from +
                    "): each model's mean test loss over its runs, and each verdict by the same "
                    "rule.\n\n| model | shared defaults | tuned |\n|---|---|---|\n";
  const auto before = meanLosses(record.defaults), after = meanLosses(record.sweep);
  for (const auto& [model, v] : after) {
    const auto it = before.find(model);
    out += "| " + model + " | " +
           (it == before.end() ? "—"
                               : cellNumber(it->second.first) + " (" +
                                     std::to_string(it->second.second) + " runs)") +
           " | " + cellNumber(v.first) + " (" + std::to_string(v.second) + " runs) |\n";
  }
  out += "\n";
  const auto shared = presetRecordVerdicts(record, record.defaults);
  const auto tuned = presetRecordVerdicts(record, record.sweep);
  for (size_t i = 0; i < tuned.size() && i < shared.size(); ++i) {
    const std::string a = verdictWord(shared[i]), b = verdictWord(tuned[i]);
    const auto why = [](const ClaimVerdict& v) {
      return v.deciding.empty() ? std::string() : " (" + v.deciding + ")";
    };
    out += "- " + tuned[i].claim + " Shared defaults: " + a + why(shared[i]) + "; tuned: " + b +
           why(tuned[i]) + "; " + (a == b ? "unchanged by tuning" : "changed by tuning") + ".\n";
  }
  return out;
}

PresetRecord presetRecordWithDefaults(PresetRecord record, const PresetRecord& defaults,
                                      const std::string& defaults_text) {
  if (defaults.preset != record.preset)
    throw std::invalid_argument("--defaults: a record of " + defaults.preset + ", not of " +
                                record.preset);
  using nlohmann::json;
  const json mine = json::parse(toJson(record.sweep.base)).at("task");
  const json theirs = json::parse(toJson(defaults.sweep.base)).at("task");
  for (const auto& [key, value] : mine.items())
    if (key != record.sweep.axis.name && (!theirs.contains(key) || theirs.at(key) != value))
      throw std::invalid_argument("--defaults " + defaults_text + ": another task (task." + key +
                                  " " + (theirs.contains(key) ? theirs.at(key).dump() : "unset") +
                                  ", this record's " + value.dump() + ")");
  std::set<std::string> models;
  std::set<CellKey> cells;
  for (const auto& r : record.sweep.rows) {
    if (!r.reference) models.insert(r.model);
    cells.insert(cellOf(r));
  }
  record.defaults = defaults.sweep;
  record.defaults.rows.clear();
  record.defaults.tuned = {};
  int64_t runs = 0;
  for (const auto& r : defaults.sweep.rows) {
    if (!cells.count(cellOf(r)) || (!r.reference && !models.count(r.model))) continue;
    runs += !r.reference;
    record.defaults.rows.push_back(r);
  }
  if (runs == 0)
    throw std::invalid_argument("--defaults " + defaults_text +
                                ": no run of this record's models, cells and seeds");
  record.defaults_from = defaults_text;
  return record;
}

}  // namespace rsalab
