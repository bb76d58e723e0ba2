// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli preset-docs: a finished preset sweep's sweep.json (or a single-run preset's runs'
// verdicts.json) kept as a record under docs/data/ and rendered into its docs block
// (engine/core/verdicts/preset_record.h); --check renders the record again and fails when the block
// differs. With --claims DIR: the claims-by-process table
// (engine/core/verdicts/claims_by_process.h) from the records under DIR. Trains nothing.
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "app/cli/cli_command.h"
#include "engine/core/config/model_variant.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/registry/process_tasks.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/verdicts/claims_by_process.h"
#include "engine/core/verdicts/preset_record.h"

namespace rsalab {

namespace {

constexpr size_t kMaxDocBytes = size_t{256} << 20;

struct PresetDocsCommand {
  std::string preset, sweep_dir, json_path, docs_path, measured, command, claims_dir, label,
      with_record, corner, defaults;
  std::string models;  // a model list, variants' commas kept (splitModelList)
  std::vector<std::string> run_dirs;
  bool check = false;
};

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

int check(const PresetDocsCommand& c) {
  const PresetRecord record =
      presetRecordFromJson(readTextFile(c.json_path, kMaxDocBytes), c.json_path);
  const std::string docs = readTextFile(c.docs_path, kMaxDocBytes);
  if (presetBlockIn(docs, record, c.docs_path) != presetRecordBlock(record)) {
    std::cerr << "error: " << c.docs_path << "'s " << presetRecordName(record)
              << " block is not what " << c.json_path
              << " renders to: rerun `rsalab-cli preset-docs --json " << c.json_path << " --docs "
              << c.docs_path << "` (don't hand-edit)\n";
    return 1;
  }
  std::cout << "preset-docs: " << c.docs_path << " and " << c.json_path << " agree ("
            << record.preset << ", " << record.sweep.rows.size() << " rows)\n";
  return 0;
}

// The every-process presets' records under `dir`: DIR/NAME.json for each process that has one.
std::vector<PresetRecord> claimRecords(const std::string& dir) {
  std::vector<PresetRecord> records;
  for (const Preset* preset : everyProcessPresets())
    for (const auto& row : teacherProcessRegistry()) {
      const std::string path = dir + "/" + presetRecordName(preset->name, row.process) + ".json";
      if (!std::filesystem::exists(path)) continue;
      records.push_back(presetRecordFromJson(readTextFile(path, kMaxDocBytes), path));
      if (presetRecordProcess(records.back()) != row.process)
        throw std::invalid_argument(path + " is a record of the " +
                                    enumName(presetRecordProcess(records.back())) +
                                    " process, not " + enumName(row.process));
    }
  return records;
}

int claims(const PresetDocsCommand& c) {
  const std::vector<PresetRecord> records = claimRecords(c.claims_dir);
  const std::string block = claimsByProcessBlock(records);
  const std::string docs = readTextFile(c.docs_path, kMaxDocBytes);
  if (c.check) {
    if (claimsByProcessBlockIn(docs, c.docs_path) != block) {
      std::cerr << "error: " << c.docs_path << "'s claims-by-process block is not what the "
                << "records under " << c.claims_dir << " render to: rerun `rsalab-cli preset-docs "
                << "--claims " << c.claims_dir << " --docs " << c.docs_path
                << "` (don't hand-edit)\n";
      return 1;
    }
    std::cout << "preset-docs: " << c.docs_path << "'s claims by process and " << c.claims_dir
              << " agree (" << records.size() << " records)\n";
    return 0;
  }
  std::cout << block;
  writeFileAtomically(c.docs_path, replaceClaimsByProcessBlock(docs, records, c.docs_path));
  std::cout << "wrote " << c.docs_path << "\n";
  return 0;
}

int run(const PresetDocsCommand& c) {
  if (!c.claims_dir.empty()) return claims(c);
  if (c.json_path.empty()) throw std::invalid_argument("preset-docs needs --json (or --claims)");
  if (c.check) return check(c);
  PresetRecord record;
  if (!c.sweep_dir.empty() || !c.run_dirs.empty()) {  // a new record from finished runs
    if (c.preset.empty()) throw std::invalid_argument("preset-docs --sweep/--runs needs --preset");
    record.preset = c.preset;
    record.measured =
        !c.measured.empty()
            ? c.measured
            : today() + " on " + std::to_string(std::thread::hardware_concurrency()) + " cores";
    if (!c.sweep_dir.empty()) {
      record = presetRecordFromSweep(
          c.preset, sweepResultFromJson(readTextFile(c.sweep_dir + "/sweep.json", kMaxDocBytes)),
          record.measured,
          !c.command.empty() ? c.command
                             : "rsalab-cli sweep --preset " + c.preset + " --out " + c.sweep_dir,
          c.models.empty() ? std::vector<std::string>{} : splitModelList(c.models));
      record.label = c.label;
      record.corner = c.corner;
      if (!c.defaults.empty()) {  // a tuned record: the shared defaults' runs beside it
        const PresetRecord other =
            presetRecordFromJson(readTextFile(c.defaults, kMaxDocBytes), c.defaults);
        record = presetRecordWithDefaults(
            record, other,
            "docs/data/" + presetRecordName(other) + ".json (measured " + other.measured + ")");
      }
      if (!c.with_record.empty()) {
        const PresetRecord other =
            presetRecordFromJson(readTextFile(c.with_record, kMaxDocBytes), c.with_record);
        record = presetRecordJoined(
            record, other,
            "docs/data/" + presetRecordName(other) + ".json (measured " + other.measured + ")");
      }
    } else {
      for (const auto& dir : c.run_dirs) {
        const std::string path = dir + "/" + kPresetVerdictsFile;
        auto run = presetRunVerdictsFromJson(readTextFile(path, kMaxDocBytes), path);
        if (run.preset != c.preset)
          throw std::invalid_argument(path + " is preset '" + run.preset + "', not '" + c.preset +
                                      "'");
        record.runs.push_back(std::move(run));
      }
      record.command = "rsalab-cli train --preset " + c.preset + " --seed S";
    }
    // Read back through the record's own reader: what is written is what the check renders.
    record = presetRecordFromJson(presetRecordJson(record), "the new record");
    writeFileAtomically(c.json_path, presetRecordJson(record));
    std::cout << "wrote " << c.json_path << "\n";
  } else {
    record = presetRecordFromJson(readTextFile(c.json_path, kMaxDocBytes), c.json_path);
  }
  const std::string block = presetRecordBlock(record);
  std::cout << block;
  if (!c.docs_path.empty()) {
    const std::string docs = readTextFile(c.docs_path, kMaxDocBytes);
    writeFileAtomically(c.docs_path, replacePresetBlock(docs, record, c.docs_path));
    std::cout << "wrote " << c.docs_path << "\n";
  }
  return 0;
}

}  // namespace

CliCommand addPresetDocsCommand(CLI::App& app) {
  auto c = std::make_shared<PresetDocsCommand>();
  auto* cmd = app.add_subcommand(
      "preset-docs",
      "Keep a finished preset sweep as a record (docs/data/NAME.json) and write its docs block "
      "from it: the measured table, the ratios and the verdicts");
  cmd->add_option("--preset", c->preset, "the sweep preset that ran (with --sweep)");
  cmd->add_option("--sweep", c->sweep_dir,
                  "the finished sweep's folder (its sweep.json): make a new record");
  cmd->add_option("--runs", c->run_dirs,
                  "a single-run preset's run folders (their verdicts.json), one per seed: make a "
                  "new record")
      ->delimiter(',');
  cmd->add_option("--measured", c->measured,
                  "when and where it was measured (default: today on this machine's cores)");
  cmd->add_option("--models", c->models,
                  "with --sweep: the models the record keeps (default: the preset's), e.g. "
                  "figure1's of a sweep that also ran recurrence-placement's");
  cmd->add_option("--command", c->command,
                  "with --sweep: the command that ran the sweep, as the block quotes it "
                  "(default: `rsalab-cli sweep --preset NAME --out DIR`)");
  cmd->add_option("--label", c->label,
                  "with --sweep: an ablation's label, appended to the record's name "
                  "(recurrence-placement-LABEL)");
  cmd->add_option("--with", c->with_record,
                  "with --sweep: a record of the same preset whose runs are joined in (the "
                  "rivals an ablation's variant is judged beside)");
  cmd->add_option("--corner", c->corner,
                  "with --sweep: the sweep is one corner of figure1's map alone (judged as one)")
      ->check(CLI::IsMember({"recurrent", "transformer"}));
  cmd->add_option("--defaults", c->defaults,
                  "with --sweep of a tuned sweep: the default record of the same preset and task, "
                  "whose runs of the same models, cells and seeds are shown beside");
  cmd->add_option("--json", c->json_path, "the record (written with --sweep, else read)");
  cmd->add_option("--claims", c->claims_dir,
                  "write (or with --check, compare) the claims-by-process table in --docs from "
                  "the every-process presets' records in this folder (NAME.json, "
                  "NAME-PROCESS.json)");
  cmd->add_option("--docs", c->docs_path, "the Markdown file whose block is rewritten (compared)");
  cmd->add_flag("--check", c->check,
                "write nothing: fail unless the block in --docs is --json's rendering");
  return {cmd, [c] {
            if ((c->check || !c->claims_dir.empty()) && c->docs_path.empty())
              throw std::invalid_argument("preset-docs --check and --claims need --docs");
            return run(*c);
          }};
}

}  // namespace rsalab
