// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli preset-docs: a finished preset sweep's sweep.json (or a single-run preset's runs'
// verdicts.json) kept as a record under docs/data/ and rendered into its docs block
// (engine/core/verdicts/preset_record.h); --check renders the record again and fails when the block
// differs. Trains nothing.
#include <ctime>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "app/cli/cli_command.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/verdicts/preset_record.h"

namespace rsalab {

namespace {

constexpr size_t kMaxDocBytes = size_t{256} << 20;

struct PresetDocsCommand {
  std::string preset, sweep_dir, json_path, docs_path, measured;
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
  if (presetBlockIn(docs, record.preset, c.docs_path) != presetRecordBlock(record)) {
    std::cerr << "error: " << c.docs_path << "'s " << record.preset << " block is not what "
              << c.json_path << " renders to: rerun `rsalab-cli preset-docs --json " << c.json_path
              << " --docs " << c.docs_path << "` (don't hand-edit)\n";
    return 1;
  }
  std::cout << "preset-docs: " << c.docs_path << " and " << c.json_path << " agree ("
            << record.preset << ", " << record.sweep.rows.size() << " rows)\n";
  return 0;
}

int run(const PresetDocsCommand& c) {
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
      record.sweep = sweepResultFromJson(readTextFile(c.sweep_dir + "/sweep.json", kMaxDocBytes));
      record.command = "rsalab-cli sweep --preset " + c.preset + " --out " + c.sweep_dir;
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
  cmd->add_option("--json", c->json_path, "the record (written with --sweep, else read)")
      ->required();
  cmd->add_option("--docs", c->docs_path, "the Markdown file whose block is rewritten (compared)");
  cmd->add_flag("--check", c->check,
                "write nothing: fail unless the block in --docs is --json's rendering");
  return {cmd, [c] {
            if (c->check && c->docs_path.empty())
              throw std::invalid_argument("preset-docs --check needs --docs");
            return run(*c);
          }};
}

}  // namespace rsalab
