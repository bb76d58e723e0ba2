// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/claims_by_process.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "engine/core/io/marked_block.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/process_tasks.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/verdicts/claims.h"

namespace rsalab {

namespace {

const char* const kClaimsBegin =
    "<!-- claims by process: begin (rsalab-cli preset-docs --claims writes this) -->";
const char* const kClaimsEnd = "<!-- claims by process: end -->";

// The claim's name without its explanation: the text before its first ": ", no final stop.
std::string shortClaim(const std::string& claim) {
  std::string s = claim.substr(0, claim.find(": "));
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string cellText(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

struct Judged {
  const PresetRecord* record = nullptr;
  std::vector<ClaimVerdict> verdicts;
  const ClaimVerdict* find(const std::string& claim) const {
    for (const auto& v : verdicts)
      if (shortClaim(v.claim) == claim) return &v;
    return nullptr;
  }
};

std::vector<int64_t> sizesOf(const SweepResult& sweep) {
  std::set<int64_t> sizes;
  for (const auto& r : sweep.rows)
    if (!r.reference) sizes.insert(r.requested_size > 0 ? r.requested_size : r.size);
  return {sizes.begin(), sizes.end()};
}

size_t seedsOf(const SweepResult& sweep) {
  std::set<uint64_t> seeds;
  for (const auto& r : sweep.rows)
    if (!r.reference) seeds.insert(r.seed);
  return seeds.size();
}

std::string sizesText(const std::vector<int64_t>& sizes) {
  return joined(sizes, ", ", [](int64_t n) { return std::to_string(n); });
}

// The records by preset and process; a second record of one pair is an error.
using Table = std::map<std::pair<std::string, TeacherProcess>, Judged>;

Table judgeAll(const std::vector<PresetRecord>& records) {
  Table table;
  for (const auto& record : records) {
    const Preset& preset = presetOrThrow(record.preset);
    if (!preset.every_process || !record.label.empty()) continue;  // ablations have their own
    Judged& j = table[{record.preset, presetRecordProcess(record)}];
    if (j.record)
      throw std::invalid_argument("two records of " + presetRecordName(record) +
                                  " for the claims-by-process table");
    j.record = &record;
    ClaimEvidence evidence;
    evidence.rows = &record.sweep.rows;
    j.verdicts = judgeClaim(preset.rule, evidence);
  }
  return table;
}

// One cell: the outcome, "on RSA's home ground only" where it holds on rem and on no other
// process that ran, and the number that decided it.
std::string verdictCell(const Table& table, const Preset& preset, TeacherProcess process,
                        const std::string& claim) {
  const auto it = table.find({preset.name, process});
  if (it == table.end()) return "not run";
  const ClaimVerdict* v = it->second.find(claim);
  if (!v) return "–";
  std::string out = verdictOutcome(*v);
  if (process == TeacherProcess::Rem && v->decided && v->holds) {
    bool elsewhere = false, others = false;
    for (const auto& row : teacherProcessRegistry()) {
      const auto other = table.find({preset.name, row.process});
      if (row.process == TeacherProcess::Rem || other == table.end()) continue;
      others = true;
      const ClaimVerdict* w = other->second.find(claim);
      elsewhere = elsewhere || (w && w->decided && w->holds);
    }
    if (others && !elsewhere) out += std::string(" on ") + kRemHomeGround + " only";
  }
  const std::string deciding =
      !v->deciding.empty() ? v->deciding : v->detail.substr(0, v->detail.find(';'));
  return out + " (" + deciding + ")";
}

std::string verdictTable(const Table& table) {
  std::string out = "| claim |";
  for (const auto& row : teacherProcessRegistry())
    out += " " + teacherProcessLabel(row.process) + " |";
  out += "\n|---|";
  for (size_t k = 0; k < teacherProcessRegistry().size(); ++k) out += "---|";
  out += "\n";
  for (const Preset* preset : everyProcessPresets()) {
    std::vector<std::string> claims;  // in the first record's order, rem first
    for (const auto& row : teacherProcessRegistry()) {
      const auto it = table.find({preset->name, row.process});
      if (it == table.end()) continue;
      for (const auto& v : it->second.verdicts)
        if (std::find(claims.begin(), claims.end(), shortClaim(v.claim)) == claims.end())
          claims.push_back(shortClaim(v.claim));
    }
    for (const auto& claim : claims) {
      out += "| `" + preset->name + "`: " + cellText(claim) + " |";
      for (const auto& row : teacherProcessRegistry())
        out += " " + cellText(verdictCell(table, *preset, row.process, claim)) + " |";
      out += "\n";
    }
  }
  return out;
}

// A sweep behind one or more records (figure1 and recurrence-placement share one), by command.
struct SweepRun {
  std::vector<std::string> presets;
  const PresetRecord* record = nullptr;
};

std::string gridTable(const Table& table, double& rerun_seconds, double& full_seconds) {
  std::string out =
      "| process | sweep for | N | seeds | runs | wall time | measured |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& row : teacherProcessRegistry()) {
    std::vector<std::pair<std::string, SweepRun>> sweeps;  // by command, first-seen order
    for (const Preset* preset : everyProcessPresets()) {
      const auto it = table.find({preset->name, row.process});
      if (it == table.end()) continue;
      const PresetRecord& record = *it->second.record;
      auto s = std::find_if(sweeps.begin(), sweeps.end(),
                            [&](const auto& e) { return e.first == record.command; });
      if (s == sweeps.end()) {
        sweeps.push_back({record.command, SweepRun{{}, &record}});
        s = sweeps.end() - 1;
      }
      s->second.presets.push_back("`" + preset->name + "`");
    }
    for (const auto& [command, sweep] : sweeps) {
      const PresetRecord& r = *sweep.record;
      const std::vector<int64_t> sizes = sizesOf(r.sweep);
      int64_t runs = r.sweep_runs;
      if (runs == 0)
        for (const auto& x : r.sweep.rows) runs += !x.reference;
      out += "| " + std::string(enumName(row.process)) + " | " + joined(sweep.presets) + " | " +
             sizesText(sizes) + " | " + std::to_string(seedsOf(r.sweep)) + " | " +
             std::to_string(runs) + " | " + minutesSeconds(r.sweep.wall_seconds) + " | " +
             r.measured + " |\n";
      if (row.process == TeacherProcess::Rem) continue;
      rerun_seconds += r.sweep.wall_seconds;
      full_seconds += fullGridSeconds(presetOrThrow(r.preset), sizes, r.sweep.wall_seconds);
    }
  }
  return out;
}

}  // namespace

std::vector<const Preset*> everyProcessPresets() {
  std::vector<const Preset*> out;
  for (const auto& p : presets())
    if (p.every_process) out.push_back(&p);
  return out;
}

double fullGridSeconds(const Preset& preset, const std::vector<int64_t>& sizes,
                       double measured_seconds) {
  const auto steps = [&](int64_t n) {
    const int64_t batch = std::max<int64_t>(1, preset.config.trainer.batch_size);
    const int64_t grown = (preset.sweep_epochs * n + batch - 1) / batch;
    return static_cast<double>(std::max(preset.config.trainer.max_steps, grown));
  };
  double ran = 0, full = 0;
  for (int64_t n : sizes) ran += steps(n);
  for (int64_t n : preset.sweep_sizes) full += steps(n);
  for (int64_t n : sizes)  // a size beyond the preset's grid stays in the estimate
    if (std::find(preset.sweep_sizes.begin(), preset.sweep_sizes.end(), n) ==
        preset.sweep_sizes.end())
      full += steps(n);
  return ran > 0 ? measured_seconds * full / ran : 0;
}

std::string claimsByProcessBlock(const std::vector<PresetRecord>& records) {
  const Table table = judgeAll(records);
  double rerun = 0, full = 0;
  const std::string grids = gridTable(table, rerun, full);
  std::string out = std::string(kClaimsBegin) + "\n";
  out +=
      "Each claim's rule on each teacher process, unchanged: only the ground changes. A cell is "
      "the rule's outcome and, in brackets, the number that decided it; \"not run\": no record "
      "for that process. Rendered from the records docs/data/PRESET.json (rem) and "
      "docs/data/PRESET-PROCESS.json; a test fails when this block and those records disagree.\n\n";
  bool tuned = false;
  for (const auto& r : records) tuned = tuned || !r.sweep.tuned.empty();
  out += tuned
             ? "Configurations: some records ran tuned models (each record's block says which).\n\n"
             : "Configurations: shared defaults (every model at its preset's config; the tuned "
               "readings are the records named PRESET-…tuned…, beside their blocks).\n\n";
  out += verdictTable(table) + "\n";
  out += "The records' grids (one sweep may serve two presets; each model trained once):\n\n" +
         grids + "\n";
  if (rerun > 0)
    out += "The default rerun (every process but rem, each sweep once) took " +
           minutesSeconds(rerun) + "; the presets' full grids would take about " +
           minutesSeconds(full) +
           " (estimated from those sweeps: time in proportion to the training steps summed over "
           "N).\n";
  return out + kClaimsEnd + "\n";
}

std::string replaceClaimsByProcessBlock(const std::string& markdown,
                                        const std::vector<PresetRecord>& records,
                                        const std::string& what) {
  return replaceMarkedBlock(markdown, claimsByProcessBlock(records), kClaimsBegin, kClaimsEnd,
                            what);
}

std::string claimsByProcessBlockIn(const std::string& markdown, const std::string& what) {
  return markedBlockIn(markdown, kClaimsBegin, kClaimsEnd, what);
}

}  // namespace rsalab
