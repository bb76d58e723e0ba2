// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/preset_record.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "engine/core/io/marked_block.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/process_tasks.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/family_claims.h"
#include "engine/core/verdicts/presets.h"
#include "engine/core/verdicts/regime_map.h"

namespace rsalab {

namespace {

using nlohmann::json;

const char* const kRecordFormat = "rsalab-preset-record";

std::string beginMarker(const std::string& name) {
  return "<!-- preset " + name + ": begin (rsalab-cli preset-docs writes this) -->";
}
std::string endMarker(const std::string& name) { return "<!-- preset " + name + ": end -->"; }

// A map cell's mean as the tables show it: **bold** the cell's outright winner, *italic* the best
// mean of a tie, "–" where the model did not run.
std::string markedMean(const RegimeMap& map, const std::string& model, double a, int64_t n) {
  const RegimeCell* cell = map.cell(model, a, n);
  const RegimeWinner* winner = map.winner(a, n);
  std::string text = cell ? cellNumber(cell->mean) : "–";
  if (cell && winner && winner->best == model)
    text = winner->verdict == RegimeVerdict::Winner ? "**" + text + "**"
           : winner->verdict == RegimeVerdict::Tie  ? "*" + text + "*"
                                                    : text;
  return text;
}

// More than kWideModels models: the table is long rather than wide.
constexpr size_t kWideModels = 3;

// The regime map itself: a row per N (largest first), a column per axis value, each cell naming
// its outright winner (bold) or the best mean of a tie and its runner-up.
std::string winnerTable(const RegimeMap& map) {
  std::string out = "| N \\ a |";
  for (double a : map.axis_values) out += " " + cellNumber(a) + " |";
  out += "\n|---|";
  for (size_t k = 0; k < map.axis_values.size(); ++k) out += "---|";
  out += "\n";
  for (auto n = map.sizes.rbegin(); n != map.sizes.rend(); ++n) {
    out += "| " + std::to_string(*n) + " |";
    for (double a : map.axis_values) {
      const RegimeWinner* w = map.winner(a, *n);
      out += !w || w->verdict == RegimeVerdict::Pending ? " – |"
             : w->verdict == RegimeVerdict::Winner
                 ? " **" + w->best + "** |"
                 : " tie " + w->best + " / " + w->runner_up + " |";
    }
    out += "\n";
  }
  return out;
}

// The regime table: a row per N (largest first), a column per model × axis value (a row per
// model × N, a column per axis value, past kWideModels models); **bold** the cell's outright
// winner, *italic* the best mean of a tie.
std::string regimeTable(const RegimeMap& map) {
  if (map.models.size() > kWideModels) {
    std::string out = "| model | N \\ a |";
    for (double a : map.axis_values) out += " " + cellNumber(a) + " |";
    out += "\n|---|---|";
    for (size_t k = 0; k < map.axis_values.size(); ++k) out += "---|";
    out += "\n";
    for (const auto& model : map.models)
      for (auto n = map.sizes.rbegin(); n != map.sizes.rend(); ++n) {
        out += "| " + model + " | " + std::to_string(*n) + " |";
        for (double a : map.axis_values) out += " " + markedMean(map, model, a, *n) + " |";
        out += "\n";
      }
    return out;
  }
  std::string out = "| N \\ " + std::string("a") + " |";
  for (const auto& model : map.models)
    for (size_t k = 0; k < map.axis_values.size(); ++k)
      out += " " + (k == 0 ? model + " " : std::string()) + cellNumber(map.axis_values[k]) + " |";
  out += "\n|---|";
  for (size_t k = 0; k < map.models.size() * map.axis_values.size(); ++k) out += "---|";
  out += "\n";
  for (auto n = map.sizes.rbegin(); n != map.sizes.rend(); ++n) {
    out += "| " + std::to_string(*n) + " |";
    for (const auto& model : map.models)
      for (double a : map.axis_values) out += " " + markedMean(map, model, a, *n) + " |";
    out += "\n";
  }
  return out;
}

// RSA's mean excess loss over the best other model's at the two smallest N, per axis value: the
// ratios the text cites ("RSA is 5.7× the RNN's at N = 16, a = 1").
std::string rsaRatios(const RegimeMap& map) {
  if (std::find(map.models.begin(), map.models.end(), "rsa") == map.models.end() ||
      map.models.size() < 2)
    return "";
  std::string out =
      "RSA's mean excess loss over the best other model's (which model, in brackets) at the two "
      "smallest N; above 1: RSA is worse by that factor.\n\n| N \\ a |";
  for (double a : map.axis_values) out += " " + cellNumber(a) + " |";
  out += "\n|---|";
  for (size_t k = 0; k < map.axis_values.size(); ++k) out += "---|";
  out += "\n";
  const size_t smallest = std::min<size_t>(2, map.sizes.size());
  for (size_t i = 0; i < smallest; ++i) {
    const int64_t n = map.sizes[i];
    out += "| " + std::to_string(n) + " |";
    for (double a : map.axis_values) {
      const RegimeCell* rsa = map.cell("rsa", a, n);
      const RegimeCell* best = nullptr;
      for (const auto& model : map.models) {
        const RegimeCell* c = model == "rsa" ? nullptr : map.cell(model, a, n);
        if (c && std::isfinite(c->mean) && (!best || c->mean < best->mean)) best = c;
      }
      out += rsa && best && best->mean > 0
                 ? " " + cellNumber(rsa->mean / best->mean, 2) + "× (" + best->model + ") |"
                 : " – |";
    }
    out += "\n";
  }
  return out;
}

// The cells' outcome in words: "RSA wins outright in 7 of 25 cells, is beaten in 4, ties in 14".
std::string winnerCounts(const RegimeMap& map) {
  std::map<std::string, int> wins;
  int ties = 0, judged = 0;
  for (const auto& w : map.winners) {
    if (w.verdict == RegimeVerdict::Pending) continue;
    ++judged;
    if (w.verdict == RegimeVerdict::Winner)
      ++wins[w.best];
    else
      ++ties;
  }
  std::vector<std::string> parts;
  for (const auto& model : map.models)
    parts.push_back(model + " wins outright in " + std::to_string(wins[model]));
  return "Of " + std::to_string(judged) + " cells: " + joined(parts) + "; " + std::to_string(ties) +
         " are ties.";
}

// With a task axis and decaying models: each model's mean memory horizon over seeds (runs'
// 1 / (1 − ā), family_claims.h) per N and axis value; empty when no row has decays.
std::string horizonTable(const SweepResult& sweep) {
  std::vector<std::string> models;
  std::map<std::tuple<std::string, int64_t, double>, std::vector<double>> horizons;
  for (const auto& r : sweep.rows) {
    const double h = r.reference || !r.ok() ? NAN : runMemoryHorizon(r.regular_decays);
    if (!std::isfinite(h) || !std::isfinite(r.axis_value)) continue;
    if (std::find(models.begin(), models.end(), r.model) == models.end()) models.push_back(r.model);
    horizons[{r.model, r.size, r.axis_value}].push_back(h);
  }
  if (horizons.empty() || sweep.axis.empty()) return "";
  std::string out =
      "Mean memory horizon 1/(1 − ā) over seeds, in steps (ā: a run's mean over heads of each "
      "head's median learned decay, validation sample 0):\n\n| model | N \\ a |";
  for (double a : sweep.axis.values) out += " " + cellNumber(a) + " |";
  out += "\n|---|---|";
  for (size_t k = 0; k < sweep.axis.values.size(); ++k) out += "---|";
  out += "\n";
  std::vector<int64_t> sizes;
  for (const auto& [key, values] : horizons)
    if (std::find(sizes.begin(), sizes.end(), std::get<1>(key)) == sizes.end())
      sizes.push_back(std::get<1>(key));
  std::sort(sizes.begin(), sizes.end());
  for (const auto& model : models)
    for (int64_t n : sizes) {
      out += "| " + model + " | " + std::to_string(n) + " |";
      for (double a : sweep.axis.values) {
        std::vector<double> values;
        for (const auto& [key, v] : horizons)
          if (std::get<0>(key) == model && std::get<1>(key) == n &&
              std::abs(std::get<2>(key) - a) <= kAxisTolerance)
            values = v;
        const MeanSd m = meanSd(values);
        out += m.n ? " " + meanSdText(m.mean, m.sd) + " |" : " – |";
      }
      out += "\n";
    }
  return out;
}

// Without a task axis: the mean test loss ± sd over seeds per model and N, and each model's
// power-law exponent b fitted per seed (fitSweep): of the excess loss (test − Bayes floor) where
// the task has a floor, of the test loss otherwise; the seeds' mean with a 95 % t interval.
std::string lossTable(const SweepResult& sweep) {
  std::vector<std::string> models;
  std::vector<int64_t> sizes;
  std::map<std::pair<std::string, int64_t>, std::vector<double>> losses;
  for (const auto& r : sweep.rows) {
    if (r.reference || !r.ok()) continue;
    if (std::find(models.begin(), models.end(), r.model) == models.end()) models.push_back(r.model);
    if (std::find(sizes.begin(), sizes.end(), r.size) == sizes.end()) sizes.push_back(r.size);
    losses[{r.model, r.size}].push_back(r.test_loss);
  }
  std::sort(sizes.begin(), sizes.end());
  SweepResult fitted = sweep;
  fitSweep(fitted, models);
  const bool excess = !fitted.excess_fits.empty();
  const std::vector<PowerLawFit>& fits = excess ? fitted.excess_fits : fitted.fits;
  const bool fits_column = static_cast<int64_t>(sizes.size()) >= kPowerLawMinSizes;
  std::string out = "Mean test loss ± sd over seeds:\n\n| model |";
  for (int64_t n : sizes) out += " N = " + std::to_string(n) + " |";
  if (fits_column)
    out += excess ? " exponent b of the excess (test − floor) ≈ a·N^−b |"
                  : " exponent b (loss ≈ a·N^−b) |";
  out += "\n|---|";
  for (size_t k = 0; k < sizes.size() + (fits_column ? 1 : 0); ++k) out += "---|";
  out += "\n";
  for (const auto& model : models) {
    out += "| " + model + " |";
    for (int64_t n : sizes) {
      const MeanSd s = meanSd(losses[{model, n}]);
      out += s.n ? " " + meanSdText(s.mean, s.sd) + " |" : " – |";
    }
    if (fits_column) {
      std::string fit = "–";
      for (const auto& f : fits)
        if (f.model == model && f.seeds() > 0)
          fit =
              cellNumber(f.b, 2) +
              (f.seeds() >= 2 ? " [" + cellNumber(f.b_low, 2) + ", " + cellNumber(f.b_high, 2) + "]"
                              : std::string()) +
              ", " + std::to_string(f.seeds()) + " seeds";
      out += " " + fit + " |";
    }
    out += "\n";
  }
  if (fits_column)
    out +=
        "\nb is fitted per seed (least squares on log N, log loss, over the seed's sizes); the "
        "table gives the seeds' mean and its 95 % t interval over them" +
        (excess ? " (a seed counts where " + std::to_string(kPowerLawMinSizes) +
                      " or more sizes have an excess above 0)"
                : std::string()) +
        ".\n";
  else
    out += "\nNo power-law exponent: a fit needs " + std::to_string(kPowerLawMinSizes) +
           " training-set sizes or more; this sweep has " + std::to_string(sizes.size()) + ".\n";
  return out;
}

// What a record measured less than its preset's grid: the sizes and seeds left out ("" when
// none), stated in its block.
std::string cutsText(const Preset& preset, const SweepResult& sweep) {
  std::set<int64_t> sizes;
  std::set<uint64_t> seeds;
  for (const auto& r : sweep.rows)
    if (!r.reference) {
      sizes.insert(r.requested_size > 0 ? r.requested_size : r.size);
      seeds.insert(r.seed);
    }
  std::vector<int64_t> dropped;
  for (int64_t n : preset.sweep_sizes)
    if (!sizes.count(n)) dropped.push_back(n);
  std::vector<std::string> parts;
  if (!dropped.empty())
    parts.push_back("N = " + joined(dropped, ", ", [](int64_t n) { return std::to_string(n); }) +
                    " left out of the preset's N = " +
                    joined(preset.sweep_sizes, ", ", [](int64_t n) { return std::to_string(n); }));
  if (static_cast<int64_t>(seeds.size()) < preset.sweep_seeds)
    parts.push_back(std::to_string(seeds.size()) + " seeds of the preset's " +
                    std::to_string(preset.sweep_seeds));
  return parts.empty() ? "" : "Cut from the preset's grid: " + joined(parts, "; ") + ".\n\n";
}

json runJson(const PresetRunVerdicts& run) {
  return {{"preset", run.preset},   {"seed", run.seed},      {"steps", run.steps},
          {"seconds", run.seconds}, {"verdicts", run.lines}, {"measures", run.measures}};
}

PresetRunVerdicts runFromJson(const json& j) {
  PresetRunVerdicts run;
  run.preset = j.at("preset").get<std::string>();
  run.seed = j.at("seed").get<uint64_t>();
  run.steps = j.at("steps").get<int64_t>();
  run.seconds = j.at("seconds").get<double>();
  run.lines = j.at("verdicts").get<std::vector<std::string>>();
  if (j.contains("measures")) run.measures = j.at("measures").get<std::map<std::string, double>>();
  return run;
}

// "holds", "does not hold here", "inconclusive" or "undecided": the words verdictLine begins with.
std::string outcomeOf(const std::string& line) {
  for (const char* word : {"does not hold here", "holds", "inconclusive", "undecided"})
    if (line.rfind(std::string(word) + ": ", 0) == 0) return word;
  return "other";
}

// A table cell: Markdown's column separator escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// A verdict line's parts: "OUTCOME: CLAIM — DETAIL".
struct LineParts {
  std::string outcome, claim, detail;
};
LineParts partsOf(const std::string& line) {
  LineParts p;
  p.outcome = outcomeOf(line);
  const size_t start = p.outcome == "other" ? 0 : p.outcome.size() + 2;
  const std::string dash = " — ";
  const size_t split = line.find(dash, start);
  p.claim = line.substr(start, split == std::string::npos ? std::string::npos : split - start);
  if (split != std::string::npos) p.detail = line.substr(split + dash.size());
  return p;
}

// Per verdict of the rule (in its order): the claim once, each seed's outcome and detail, and
// how many seeds had each outcome.
std::string runsTable(const std::vector<PresetRunVerdicts>& runs) {
  size_t verdicts = 0;
  for (const auto& run : runs) verdicts = std::max(verdicts, run.lines.size());
  std::string out;
  for (size_t k = 0; k < verdicts; ++k) {
    std::string claim;
    std::map<std::string, int> counts;
    std::string rows;
    for (const auto& run : runs) {
      if (k >= run.lines.size()) continue;
      const LineParts p = partsOf(run.lines[k]);
      claim = p.claim;
      ++counts[p.outcome];
      rows += "| " + std::to_string(run.seed) + " | " + std::to_string(run.steps) + " | " +
              cellNumber(run.seconds, 3) + " | " + p.outcome + " | " + cell(p.detail) + " |\n";
    }
    std::vector<std::string> parts;
    for (const auto& [outcome, n] : counts)
      parts.push_back(outcome + " for " + std::to_string(n) + " of " + std::to_string(runs.size()) +
                      " seeds");
    out += (k ? "\n" : "") + std::string("Claim: ") + claim + "\n\n" +
           "| seed | steps | seconds | verdict | measured |\n|---|---|---|---|---|\n" + rows +
           "\n" + joined(parts) + ".\n";
  }
  return out;
}

// The rule's verdict over the runs' seeds, where it has one ("" otherwise).
std::string overSeeds(ClaimRule rule, const std::vector<PresetRunVerdicts>& runs) {
  std::vector<std::map<std::string, double>> seeds;
  for (const auto& run : runs) seeds.push_back(run.measures);
  const auto v = overSeedsVerdict(rule, seeds);
  return v ? "\nOver the seeds: " + verdictLine(*v) + "\n" : "";
}

}  // namespace

std::string presetRunVerdictsJson(const PresetRunVerdicts& run) {
  json j = runJson(run);
  j["format"] = "rsalab-preset-verdicts";
  return j.dump(1) + "\n";
}

PresetRunVerdicts presetRunVerdictsFromJson(const std::string& text, const std::string& what) {
  try {
    const json j = json::parse(text);
    if (!j.is_object() || j.value("format", "") != "rsalab-preset-verdicts")
      throw std::runtime_error("not a preset run's verdicts (format rsalab-preset-verdicts)");
    return runFromJson(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(what + ": " + e.what());
  }
}

PresetRecord presetRecordFromJson(const std::string& text, const std::string& what) {
  try {
    const json j = json::parse(text);
    if (!j.is_object() || j.value("format", "") != kRecordFormat)
      throw std::runtime_error(std::string("not a preset record (format ") + kRecordFormat + ")");
    PresetRecord r;
    r.preset = j.at("preset").get<std::string>();
    const bool sweep = presetOrThrow(r.preset).isSweep();
    if (sweep != j.contains("sweep"))
      throw std::runtime_error("preset '" + r.preset + "' " +
                               (sweep ? "is a sweep: the record needs its \"sweep\""
                                      : "is not a sweep: the record needs its \"runs\""));
    r.measured = j.at("measured").get<std::string>();
    r.command = j.at("command").get<std::string>();
    r.sweep_runs = j.value("sweep_runs", int64_t{0});
    r.label = j.value("label", std::string());
    r.beside = j.value("beside", std::string());
    r.beside_runs = j.value("beside_runs", int64_t{0});
    r.corner = j.value("corner", std::string());
    if (!r.corner.empty() && r.corner != "recurrent" && r.corner != "transformer")
      throw std::runtime_error("corner '" + r.corner + "': recurrent or transformer");
    if (j.contains("defaults")) {
      r.defaults_from = j.at("defaults").at("from").get<std::string>();
      r.defaults = sweepResultFromJson(j.at("defaults").at("sweep").dump());
    }
    if (sweep)
      r.sweep = sweepResultFromJson(j.at("sweep").dump());
    else
      for (const auto& run : j.at("runs")) r.runs.push_back(runFromJson(run));
    return r;
  } catch (const std::exception& e) {
    throw std::runtime_error(what + ": " + e.what());
  }
}

std::string presetRecordJson(const PresetRecord& record) {
  SweepResult sweep = record.sweep;
  // The fits kept are today's (per seed), whatever the sweep was read with.
  std::vector<std::string> models;
  for (const auto& r : sweep.rows)
    if (!r.reference && std::find(models.begin(), models.end(), r.model) == models.end())
      models.push_back(r.model);
  fitSweep(sweep, models);
  for (auto& row : sweep.rows) row.test_errors.clear();  // per target: the run folder keeps them
  json j;
  j["format"] = kRecordFormat;
  j["preset"] = record.preset;
  j["measured"] = record.measured;
  j["command"] = record.command;
  if (record.sweep_runs > 0) j["sweep_runs"] = record.sweep_runs;
  if (!record.label.empty()) j["label"] = record.label;
  if (record.beside_runs > 0) {
    j["beside"] = record.beside;
    j["beside_runs"] = record.beside_runs;
  }
  if (!record.corner.empty()) j["corner"] = record.corner;
  if (!record.defaults.rows.empty()) {
    SweepResult defaults = record.defaults;
    for (auto& row : defaults.rows) row.test_errors.clear();
    defaults.fits.clear();  // the default record's, over its whole grid: not these rows'
    defaults.excess_fits.clear();
    j["defaults"] = {{"from", record.defaults_from}, {"sweep", json::parse(sweepJson(defaults))}};
  }
  if (presetOrThrow(record.preset).isSweep()) {
    j["sweep"] = json::parse(sweepJson(sweep));
  } else {
    j["runs"] = json::array();
    for (const auto& run : record.runs) j["runs"].push_back(runJson(run));
  }
  return j.dump(1) + "\n";
}

std::string presetRecordBlock(const PresetRecord& record) {
  const Preset& preset = presetOrThrow(record.preset);
  if (!preset.isSweep()) {
    return beginMarker(record.preset) + "\nMeasured " + record.measured +
           ": one run per seed, by `" + record.command + "`. Rendered from docs/data/" +
           record.preset + ".json; a test fails when this block and that record disagree.\n\n" +
           runsTable(record.runs) + overSeeds(preset.rule, record.runs) + endMarker(record.preset) +
           "\n";
  }
  const SweepResult& sweep = record.sweep;
  int64_t runs = -record.beside_runs;  // this sweep's own
  for (const auto& r : sweep.rows) runs += !r.reference;
  const std::string name = presetRecordName(record);
  std::string out = beginMarker(name) + "\n";
  out += "Measured " + record.measured + ": " + std::to_string(runs) + " runs" +
         (record.sweep_runs > runs
              ? ", part of one sweep of " + std::to_string(record.sweep_runs) + " runs that took"
              : std::string(" in")) +
         " " + minutesSeconds(sweep.wall_seconds) + " (" + std::to_string(sweep.parallel) +
         " at a time, " + std::to_string(sweep.threads_per_run) + " thread(s) each), by `" +
         record.command + "`" +
         (record.beside_runs > 0
              ? ", beside the " + std::to_string(record.beside_runs) + " runs of " + record.beside
              : std::string()) +
         ". Rendered from docs/data/" + name +
         ".json; a test fails when this block and that record disagree.\n\n" +
         presetConfigurationsText(record) + cutsText(preset, sweep);
  const RegimeMap map = buildRegimeMap(regimePoints(sweep.rows));
  if (!map.cells.empty()) {
    out +=
        "Mean excess test loss over seeds (lower is better); **bold**: the cell's outright "
        "winner (its paired 95 % interval to the runner-up above 0), *italic*: the best mean "
        "of a tie.\n\n" +
        regimeTable(map) + "\n" + winnerCounts(map) + "\n\n";
    if (map.models.size() > kWideModels && map.sizes.size() > 1)
      out +=
          "The regime map: each cell's outright winner (**bold**), or the best two of a tie.\n\n" +
          winnerTable(map) + "\n";
    const std::string horizon_table = horizonTable(sweep);
    if (!horizon_table.empty()) out += horizon_table + "\n";
    const std::string ratios = rsaRatios(map);
    if (!ratios.empty()) out += ratios + "\n";
  } else {
    out += lossTable(sweep) + "\n";
  }
  out += "Verdicts:\n";
  const std::string ground = claimGround(sweep.base.task.name, presetRecordProcess(record));
  for (const auto& v : presetRecordVerdicts(record, sweep))
    out += "- " + verdictLine(v, ground) + "\n";
  return out + presetDefaultsText(record) + endMarker(name) + "\n";
}

std::string replacePresetBlock(const std::string& markdown, const PresetRecord& record,
                               const std::string& what) {
  const std::string name = presetRecordName(record);
  return replaceMarkedBlock(markdown, presetRecordBlock(record), beginMarker(name), endMarker(name),
                            what);
}

std::string presetBlockIn(const std::string& markdown, const PresetRecord& record,
                          const std::string& what) {
  const std::string name = presetRecordName(record);
  return markedBlockIn(markdown, beginMarker(name), endMarker(name), what);
}

PresetRecord presetRecordFromSweep(const std::string& preset, const SweepResult& sweep,
                                   const std::string& measured, const std::string& command,
                                   const std::vector<std::string>& models) {
  const Preset& p = presetOrThrow(preset);
  if (!p.isSweep()) throw std::invalid_argument("preset '" + preset + "' is not a sweep");
  const std::vector<std::string>& keep = models.empty() ? p.models : models;
  PresetRecord record;
  record.preset = preset;
  record.measured = measured;
  record.command = command;
  record.sweep = sweep;
  record.sweep.rows.clear();
  int64_t all = 0, kept = 0;
  for (const auto& row : sweep.rows) {
    all += !row.reference;
    const bool wanted = std::find(keep.begin(), keep.end(), row.model) != keep.end();
    if (!row.reference && !wanted) continue;
    kept += !row.reference;
    record.sweep.rows.push_back(row);
    // The task's truth (its kernel: long for the power process) is kept once, on the first row:
    // no sweep rule but same-recurrence's reads it, and that one reads the first row's.
    if (record.sweep.rows.size() > 1) record.sweep.rows.back().truth = GroundTruth{};
  }
  if (kept == 0)
    throw std::invalid_argument("the sweep has no run of " + joined(keep, ", ") + " (preset '" +
                                preset + "')");
  record.sweep_runs = kept < all ? all : 0;
  return record;
}

TeacherProcess presetRecordProcess(const PresetRecord& record) {
  const TaskOptions& task = record.sweep.base.task;
  return presetOrThrow(record.preset).isSweep() && readsTeacherProcess(task.name)
             ? task.teacher_process
             : TeacherProcess::Rem;
}

std::string presetRecordName(const std::string& preset, TeacherProcess process) {
  return process == TeacherProcess::Rem ? preset : preset + "-" + enumName(process);
}

std::string presetRecordName(const PresetRecord& record) {
  const std::string name = presetRecordName(record.preset, presetRecordProcess(record));
  return record.label.empty() ? name : name + "-" + record.label;
}

PresetRecord presetRecordJoined(PresetRecord record, const PresetRecord& other,
                                const std::string& other_text) {
  if (record.preset != other.preset)
    throw std::invalid_argument(other_text + " is preset '" + other.preset + "', not '" +
                                record.preset + "'");
  const TaskOptions& a = record.sweep.base.task;
  const TaskOptions& b = other.sweep.base.task;
  if (a.name != b.name || a.teacher_process != b.teacher_process || a.length != b.length)
    throw std::invalid_argument(other_text + " ran another task than the sweep");
  int64_t next = 0;
  for (const auto& row : record.sweep.rows) next = std::max(next, row.run + 1);
  for (auto row : other.sweep.rows) {
    if (row.reference) continue;  // the sweep's own reference rows stay
    row.run += next;
    record.sweep.rows.push_back(row);
    ++record.beside_runs;
  }
  record.beside = other_text;
  return record;
}

}  // namespace rsalab
