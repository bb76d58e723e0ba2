// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli paper-table: the RSA paper's own table (ETTh1/ETTh2, Informer against RSA-Informer)
// measured on its data by the long-horizon protocol (engine/core/forecast/long_horizon.h): every
// model at one size and one budget, persistence and the anchors on OT, the published rows beside
// ours with their sources, RSA against the Transformer per horizon by the verdicts rule over seeds.
// Writes DIR/table.json (engine/sweep/paper_table_run.h), DIR/table.md (its one renderer,
// engine/core/verdicts/paper_table.h), DIR/mse_vs_horizon.{png,svg}; --docs replaces the generated
// block of docs/PAPER_TABLE.md.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_progress.h"
#include "app/cli/cli_run_flags.h"
#include "app/figures/paper_table_figure.h"
#include "engine/core/forecast/long_horizon.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/marked_block.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/sweep/paper_table_run.h"
#include "engine/sweep/paper_table_tune.h"

namespace rsalab {
namespace {

struct PaperTableCommand {
  PaperTableOptions options;
  std::vector<std::string> models;  // empty: the options' default; "all": every series model
  std::string protocol = "long-horizon";
  std::string features = "M";
  bool efficiency = false;
  std::string out = "paper-table";
  std::string docs;
  std::string from_json;  // render an existing table.json (no training)
  std::string extend;     // an earlier table.json: its settings and runs, the missing runs added
  bool informer = false;  // the pair informer, rsa-informer
  PaperTuneOptions tune;  // --tune-out: tune the table's models instead of running the table
  std::vector<std::string> tuned;   // --tuned: PaperTableOptions::tuned
  std::vector<std::string> beside;  // --beside: earlier tables' runs at the shared defaults
};

// `o` with an earlier table's settings and runs (--extend): the added runs are the missing ones
// of the same table (the norm rows asked for by --norms), so its caption stays true.
void extendFrom(PaperTableOptions& o, const std::string& path) {
  const std::string text = readTextFile(path, size_t{16} << 20);
  const auto j = nlohmann::json::parse(text);
  const auto& s = j.at("settings");
  o.series = s.at("series").get<std::string>();
  o.features = forecast::parseLongHorizonFeatures(s.value("features", std::string("M")));
  o.input_length = s.at("input_length").get<int64_t>();
  o.horizons = s.at("horizons").get<std::vector<int64_t>>();
  o.seeds = s.at("seeds").get<int64_t>();
  o.univariate_horizon = s.at("univariate_horizon").get<int64_t>();
  o.models = s.at("models").get<std::vector<std::string>>();
  o.d_model = s.at("d_model").get<int64_t>();
  o.heads = s.at("heads").get<int64_t>();
  o.layers = s.at("layers").get<int64_t>();
  o.epochs = s.at("epochs").get<int64_t>();
  o.patience = s.at("patience").get<int64_t>();
  o.batch_size = s.at("batch_size").get<int64_t>();
  o.learning_rate = s.at("learning_rate").get<double>();
  o.anchors = s.at("anchors").get<std::string>();
  o.efficiency_fractions = s.value("efficiency_fractions", std::vector<double>{});
  o.efficiency_horizon = s.value("efficiency_horizon", int64_t{96});
  const std::string machine = s.value("machine", std::string());
  o.machine = o.machine.empty() ? machine : machine + "; the added runs: " + o.machine;
  if (s.contains("informer") && o.informer_models.empty()) {  // the pair's settings, kept
    const auto& p = s.at("informer");
    o.informer_models = p.at("models").get<std::vector<std::string>>();
    o.informer_horizons = p.at("horizons").get<std::vector<int64_t>>();
    o.informer_seeds = p.at("seeds").get<int64_t>();
    o.informer_size = p.at("size").get<std::string>();
  }
  o.previous = paperRunsFromJson(text, &o.previous_anchor_names);
  o.previous_seconds = j.at("seconds").get<double>();
}

// --tune-out: each model tuned at one horizon on its own run config; the files for --tuned.
int tunePaperTable(PaperTableCommand& command) {
  auto& t = command.tune;
  t.progress = [](const std::string& line) { std::cerr << "paper-table tune: " << line << "\n"; };
  for (const auto& line : tunedLines(TunedSet{runPaperTune(command.options, t)}))
    std::cout << line << "\n";
  std::cout << "wrote " << t.out_dir << "/{table,informer}/<model>.tuned.json\n";
  return 0;
}

int runPaperTableCommand(PaperTableCommand& command) {
  auto& o = command.options;
  if (command.protocol != "long-horizon")
    throw std::invalid_argument("protocol '" + command.protocol +
                                "': paper-table knows long-horizon only");
  if (!command.models.empty()) {
    o.models.clear();
    for (const auto& m : command.models) {
      if (m != "all") {
        o.models.push_back(m);
        continue;
      }
      // Transformer and RSA first, then every other model that forecasts a series.
      o.models = {"transformer", "rsa"};
      for (const auto& n : modelNames(/*sequence_only=*/true))
        if (modelFitsObjective(modelInfo(n), Objective::Regression) && n != "transformer" &&
            n != "rsa")
          o.models.push_back(n);
    }
  }
  o.features = forecast::parseLongHorizonFeatures(command.features);
  if (command.efficiency) o.efficiency_fractions = {0.05, 0.10, 0.25, 0.50};
  if (command.informer) o.informer_models = {"informer", "rsa-informer"};
  if (!command.tune.out_dir.empty()) return tunePaperTable(command);
  o.tuned = tunedSetFromFiles(command.tuned);
  if (!o.tuned.empty()) o.informer_estimate_steps = 0;  // the default table states it
  for (const auto& path : command.beside) {
    for (auto& r : besidePaperRuns(o, readTextFile(path, size_t{16} << 20), path)) {
      const bool held = std::any_of(o.beside.begin(), o.beside.end(), [&](const PaperRun& b) {
        return b.model == r.model && b.horizon == r.horizon && b.seed == r.seed;
      });  // a run two tables share (the same seed, bit-reproducible) counts once
      if (!held) o.beside.push_back(std::move(r));
    }
    o.beside_sources.push_back(path);
  }
  if (!command.extend.empty()) extendFrom(o, command.extend);
  std::string json;
  if (!command.from_json.empty()) {
    json = readTextFile(command.from_json, size_t{16} << 20);
  } else {
    TrainingControl control;
    InterruptToStop interrupt(control.stop);
    std::cerr << "paper-table: " << o.series << ", L = " << o.input_length << ", "
              << o.models.size() << " model(s) × " << o.horizons.size() << " horizon(s) × "
              << o.seeds << " seed(s)\n";
    std::unique_ptr<ProgressLine> bar;
    const auto result = runPaperTable(
        o,
        [&](const PaperTableProgress& p) {
          if (!bar) bar = std::make_unique<ProgressLine>("paper-table", p.total);
          std::cerr << "\n  " << p.line << "\n";
          bar->update(p.done, p.line);
        },
        &control);
    if (bar) bar->finish("");
    if (control.stop.load()) return 130;
    for (const auto& e : result.errors) std::cerr << "error: " << e << "\n";
    json = result.json;
    if (result.failed) {
      std::filesystem::create_directories(command.out);
      writeFileAtomically(command.out + "/table.json", json);
      return 1;
    }
  }
  const std::string text = paperTableMarkdown(json);
  std::cout << text;
  std::filesystem::create_directories(command.out);
  writeFileAtomically(command.out + "/table.json", json);
  writeFileAtomically(command.out + "/table.md", text);
  try {
    FigureOptions f;
    f.out_dir = command.out;
    for (const auto& path : writePaperTableFigure(json, f))
      std::cerr << "paper-table: wrote " << path << "\n";
  } catch (const std::exception& e) {
    std::cerr << "warning: " << e.what() << "\n";
  }
  const auto efficiency = paperEfficiencyRows(json);
  if (!efficiency.empty()) {  // the curve in the sweeps' sample-efficiency figure
    try {
      FigureOptions f;
      f.out_dir = command.out + "/sample_efficiency";
      f.title = o.series + ", multivariate, test MSE against the train windows N";
      for (const auto& path : writeSweepFigures(efficiency, f))
        std::cerr << "paper-table: wrote " << path << "\n";
    } catch (const std::exception& e) {
      std::cerr << "warning: " << e.what() << "\n";
    }
  }
  if (!command.docs.empty()) {
    const std::string doc = readTextFile(command.docs, size_t{16} << 20);
    writeFileAtomically(command.docs,
                        replaceMarkedBlock(doc, paperTableBlock(json), kPaperTableBlockBegin,
                                           kPaperTableBlockEnd, command.docs));
    std::cerr << "paper-table: wrote its block into " << command.docs << "\n";
  }
  return 0;
}

}  // namespace

CliCommand addPaperTableCommand(CLI::App& app) {
  auto command = std::make_shared<PaperTableCommand>();
  auto& c = *command;
  auto& o = c.options;
  auto* sub = app.add_subcommand(
      "paper-table",
      "The RSA paper's ETT table measured here: long-horizon protocol, published rows beside");
  sub->add_option("--series", o.series, "etth1 | etth2")->capture_default_str();
  sub->add_option("--horizons", o.horizons, "comma-separated horizons H")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--seeds", o.seeds, "seeds per (model, horizon); 6 or more can decide")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_option("--models", c.models,
                  "comma-separated models (default transformer,rsa,dlinear; all: every model)")
      ->delimiter(',');
  sub->add_option("--protocol", c.protocol, "long-horizon (the papers' protocol)")
      ->capture_default_str();
  sub->add_option("--input-length", o.input_length, "input length L")->capture_default_str();
  sub->add_option("--features", c.features,
                  "M: every column to every column (with the univariate row), S: OT to OT")
      ->capture_default_str();
  sub->add_option("--univariate-horizon", o.univariate_horizon,
                  "also run the models univariate (--features S: OT → OT) at this H (0: no)")
      ->capture_default_str();
  sub->add_option("--anchors", o.anchors, "anchors on OT: all | fast | none")
      ->capture_default_str();
  addTableFlag(sub, *findModelOption("d_model"), o.d_model);  // every network's
  addTableFlag(sub, *findModelOption("heads"), o.heads);
  addTableFlag(sub, *findModelOption("layers"), o.layers);
  sub->add_option("--epochs", o.epochs, "at most this many epochs per run")->capture_default_str();
  sub->add_option("--patience", o.patience, "epochs without a better validation MSE")
      ->capture_default_str();
  sub->add_option("--batch", o.batch_size, "batch size")->capture_default_str();
  sub->add_option("--lr", o.learning_rate, "learning rate")->capture_default_str();
  sub->add_option("--parallel", o.parallel, "runs at a time (0: one per core)")
      ->capture_default_str();
  sub->add_flag("--sample-efficiency", c.efficiency,
                "also train transformer, rsa, dlinear on 5, 10, 25, 50 % of the train windows");
  sub->add_option("--efficiency-horizon", o.efficiency_horizon, "H of the sample-efficiency curve")
      ->capture_default_str();
  sub->add_option("--machine", o.machine, "a line on the machine for the time statement");
  sub->add_option("--out", c.out, "output folder (table.md, table.json, mse_vs_horizon.png)")
      ->capture_default_str();
  sub->add_option("--docs", c.docs,
                  "replace the generated block of this file (docs/PAPER_TABLE.md)");
  sub->add_option("--from-json", c.from_json, "render an existing table.json (no training)");
  sub->add_option("--norms", o.norms,
                  "also train the models (M) with these normalisations beside global: window, "
                  "revin (RevIN's learned affine) or none, at --norm-horizons")
      ->delimiter(',');
  sub->add_option("--norm-horizons", o.norm_horizons, "horizons of the --norms rows")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_flag("--informer", c.informer,
                "also the RSA paper's own pair, informer and rsa-informer, under Informer's budget "
                "(6 epochs, Adam, lr 1e-4 halved every epoch, patience 3, batch 32)");
  sub->add_option("--informer-size", o.informer_size,
                  "the pair's size: reduced (the table's width and heads, 2 + 1 layers, the "
                  "table's L) or paper (d_model 512, 8 heads, d_ff 2048, Informer's ETTh1 lengths)")
      ->check(CLI::IsMember({"reduced", "paper"}))
      ->capture_default_str();
  sub->add_option("--informer-horizons", o.informer_horizons, "the pair's horizons")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--informer-seeds", o.informer_seeds, "the pair's seeds per horizon")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_option("--extend", c.extend,
                  "an earlier table.json: keep its settings and runs, run only the missing ones "
                  "(e.g. --norms window,revin); the time line gives the added runs' wall time");
  sub->add_option("--tuned", c.tuned,
                  "<model>.tuned.json files of --tune-out (one per model, comma-separated or "
                  "repeated): every model at its tuned knobs, tuned on its own run config")
      ->delimiter(',');
  sub->add_option("--beside", c.beside,
                  "earlier tables (table.json) at the shared defaults: their runs of this table's "
                  "models, horizons and seeds are shown beside the tuned ones with their verdicts")
      ->delimiter(',');
  sub->add_option("--tune-out", c.tune.out_dir,
                  "instead of the table: tune each of its models (and the pair with --informer) at "
                  "--tune-horizon on its own run config, the whole step budget as the last rung, "
                  "into DIR/table/ and DIR/informer/ (<model>.tuned.json, for --tuned)");
  sub->add_option("--tune-horizon", c.tune.horizon, "the horizon --tune-out tunes at")
      ->capture_default_str();
  sub->add_option("--tune-trials", c.tune.trials, "configurations drawn per model (--tune-out)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub->add_option("--tune-workers", c.tune.workers, "runs at a time (--tune-out; 0: one per core)")
      ->capture_default_str();
  return {sub, [command] { return runPaperTableCommand(*command); }};
}

}  // namespace rsalab
