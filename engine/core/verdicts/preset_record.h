// SPDX-License-Identifier: GPL-3.0-or-later
// A sweep preset's measurement kept for the docs (core library: no LibTorch, no Qt). The run's
// sweep.json (without the per-target errors), the preset's name, the date and the command are
// stored under docs/data/; a docs block, between markers, is rendered from that record alone: the
// table of what was measured, the ratios that the text cites, and the claim rule's verdicts. A
// test renders every record again and fails where a block and its record disagree, so a ratio,
// "×" or "wins" in the docs is the run's, never a number typed by hand.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/sweep/sweep_types.h"
#include "engine/core/verdicts/claims.h"

namespace rsalab {

// A single-run preset's verdicts as its run wrote them (verdicts.json in the run folder, beside
// result.json): one run per seed; `lines` are verdictLine's, in the rule's order.
struct PresetRunVerdicts {
  std::string preset;
  uint64_t seed = 0;
  int64_t steps = 0;
  double seconds = 0;
  std::vector<std::string> lines;
  // The verdicts' ClaimVerdict::measures, merged: what the rule over seeds reads
  // (overSeedsVerdict). Empty in runs recorded before 2026-11-29.
  std::map<std::string, double> measures;
};
std::string presetRunVerdictsJson(const PresetRunVerdicts& run);
// std::runtime_error naming `what` on malformed input.
PresetRunVerdicts presetRunVerdictsFromJson(const std::string& text, const std::string& what);
constexpr const char* kPresetVerdictsFile = "verdicts.json";

struct PresetRecord {
  std::string preset;    // the preset's name (engine/core/verdicts/presets.h)
  std::string measured;  // "2026-11-27 on 2 cores"
  std::string command;   // the command that ran it (a sweep) or each of its runs ("… --seed S")
  SweepResult sweep;     // a sweep preset: its sweep.json, rows without test_errors
  // A record cut from a larger sweep (presetRecordFromSweep: the preset's models of a sweep that
  // trained more, e.g. figure1's and recurrence-placement's models in one sweep): that sweep's
  // trained runs, whose wall time sweep.wall_seconds is; 0 when the record is the whole sweep.
  int64_t sweep_runs = 0;
  // An ablation's record (docs/FAMILY.md): a label naming it ("rsa-regular"; "" otherwise), and
  // the record whose runs it was joined with (presetRecordJoined: "docs/data/NAME.json, measured
  // …") with their number; those runs are not counted in sweep.wall_seconds.
  std::string label;
  std::string beside;
  int64_t beside_runs = 0;
  std::vector<PresetRunVerdicts> runs;  // a single-run preset: its runs' verdicts, by seed
  // A corner of figure1's map swept alone ("recurrent" or "transformer": figure1CornerVerdicts
  // judges it, engine/core/verdicts/claims.h); "" for a whole map.
  std::string corner;
  // A tuned record (sweep.tuned set): the shared defaults' runs of the same models, cells and
  // seeds, cut from the default record (presetRecordWithDefaults), and that record's name and
  // date; the block gives each verdict at both. Empty: none.
  SweepResult defaults;
  std::string defaults_from;
};

// A sweep preset's record from a finished sweep: its rows of `models` (default: the preset's
// models) and the reference rows, sweep_runs set when rows were left out; the task's truth kept
// on the first row only.
PresetRecord presetRecordFromSweep(const std::string& preset, const SweepResult& sweep,
                                   const std::string& measured, const std::string& command,
                                   const std::vector<std::string>& models = {});
// `record` with the sweep rows of `other` (a record of the same preset, named `other_text` in the
// block) joined in: an ablation's variant beside its rivals' runs. The rows' run numbers are kept
// apart; std::invalid_argument when the two disagree on the task.
PresetRecord presetRecordJoined(PresetRecord record, const PresetRecord& other,
                                const std::string& other_text);
// `record` (a tuned record) with the rows of `defaults` (the default record of the same preset and
// task, named `defaults_text` in the block) that ran the same models, sizes, axis values and seeds
// at the shared defaults, its reference rows included. std::invalid_argument when the two
// disagree on the preset or the task, or no run matches.
PresetRecord presetRecordWithDefaults(PresetRecord record, const PresetRecord& defaults,
                                      const std::string& defaults_text);
// The verdicts of the record's rule on `sweep` (the record's, or its defaults), a corner judged
// as one (figure1CornerVerdicts).
std::vector<ClaimVerdict> presetRecordVerdicts(const PresetRecord& record,
                                               const SweepResult& sweep);
// The block's configuration paragraph: "Configurations: shared defaults." or the tuned set's
// label with a line per tuned model; and, for a record with defaults, each model's mean test loss
// and each verdict at the shared defaults beside the tuned ones (preset_record_tuned.cpp).
std::string presetConfigurationsText(const PresetRecord& record);
std::string presetDefaultsText(const PresetRecord& record);

// The teacher process the record's sweep measured on (rem for a task that reads none, and for a
// single-run preset).
TeacherProcess presetRecordProcess(const PresetRecord& record);
// The record's name: the preset's, with "-PROCESS" for a process other than rem and "-LABEL" for an
// ablation ("figure1", "figure1-power", "recurrence-placement-rsa-regular"); its file is
// docs/data/NAME.json and its block's marker names it too.
std::string presetRecordName(const PresetRecord& record);
std::string presetRecordName(const std::string& preset, TeacherProcess process);

// std::runtime_error naming `what` on malformed input, an unknown preset, or a sweep record of a
// preset that is not a sweep (and the other way round).
PresetRecord presetRecordFromJson(const std::string& text, const std::string& what);
std::string presetRecordJson(const PresetRecord& record);

// The block, markers included: when and how it was measured, the regime table and RSA's ratios
// to each cell's best model (a sweep with a task axis) or the mean test loss per model and N
// with the power-law exponents (without one), then the preset's verdicts; for a single-run preset,
// each run's verdicts by seed, how many seeds each outcome had and, where the rule has one, its
// verdict over the seeds (overSeedsVerdict).
std::string presetRecordBlock(const PresetRecord& record);
// `markdown` with the preset's block replaced; std::runtime_error naming `what` when it has none.
std::string replacePresetBlock(const std::string& markdown, const PresetRecord& record,
                               const std::string& what);
// The record's block in `markdown` (by presetRecordName); std::runtime_error naming `what` when
// there is none.
std::string presetBlockIn(const std::string& markdown, const PresetRecord& record,
                          const std::string& what);

}  // namespace rsalab
