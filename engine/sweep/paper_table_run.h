// SPDX-License-Identifier: GPL-3.0-or-later
// The RSA paper's table, measured: every model × horizon × seed on the long-horizon protocol
// (engine/tasks/long_horizon_task.h), persistence, the anchors on OT, the univariate row, and
// optionally the sample-efficiency curve; the result is the JSON that
// engine/core/verdicts/paper_table.h renders. Run by rsalab-cli paper-table and the GUI's
// paper-table preset.
//
// Budget, the same for every model: at most `epochs` passes over the train windows (batch
// `batch_size`), a validation evaluation after each epoch, early stopping after `patience`
// epochs without a better validation MSE, the best epoch's weights restored for the test. The
// test set is evaluated once per run, after training; nothing is chosen on it.
// Thread contract: runPaperTable trains `parallel` runs at a time on its own threads and calls
// `progress` from them, one call at a time; `control->stop` ends it after the running steps.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/forecast/long_horizon.h"
#include "engine/core/sweep/tuned_set.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/training/trainer.h"

namespace rsalab {

struct PaperTableOptions {
  std::string series = "etth1";
  std::vector<int64_t> horizons = {24, 48, 96};
  int64_t input_length = 96;  // L
  // The table's runs: M (7 → 7) or S (OT → OT) at every horizon.
  forecast::LongHorizonFeatures features = forecast::LongHorizonFeatures::Multivariate;
  int64_t seeds = 3;
  // Trained on M at every horizon; persistence is always added.
  std::vector<std::string> models = {"transformer", "rsa", "dlinear"};
  // With features M: also the univariate (S, OT → OT) runs of `models` at this horizon (0: none).
  int64_t univariate_horizon = 96;
  std::string anchors = "all";  // AnchorMode on OT: all | fast | none
  // Sample-efficiency curve at efficiency_horizon: the train part cut to these fractions of its
  // windows (the most recent kept); the full data's runs are the 100 % point. Empty: none.
  std::vector<double> efficiency_fractions;
  std::vector<std::string> efficiency_models = {"transformer", "rsa", "dlinear"};
  int64_t efficiency_horizon = 96;
  // The one size and budget of every network (stated in the table's caption).
  int64_t d_model = 32, heads = 4, layers = 2;
  int64_t epochs = 3, patience = 2, batch_size = 32;
  double learning_rate = 1e-3;
  // The networks under other normalisations (NormMode names: window, revin) beside the table's
  // global z-scores: `models` (M) at norm_horizons with every seed, one row per (model, norm).
  std::vector<std::string> norms;
  std::vector<int64_t> norm_horizons = {24, 96};
  // Extending an earlier table (rsalab-cli paper-table --extend): its runs, anchors and wall time;
  // a job it already holds (model, features, horizon, fraction, norm, seed) is not run again.
  std::vector<PaperRun> previous;
  std::vector<std::string> previous_anchor_names;
  double previous_seconds = 0;
  // The RSA paper's own pair (informer, rsa-informer; engine/models/informer.h) at
  // informer_horizons with informer_seeds seeds, under Informer's budget and, at informer_size
  // "paper", Informer's size and lengths (informerSetting). Empty: none.
  std::vector<std::string> informer_models;
  std::vector<int64_t> informer_horizons = {24, 48};
  int64_t informer_seeds = 6;
  std::string informer_size = "reduced";  // reduced | paper
  // With the pair at the reduced size: time a few training steps of the paper size at each of
  // its horizons for the caption's estimate (0: no estimate).
  int64_t informer_estimate_steps = 3;
  // A tuned table (`--tuned`, engine/core/sweep/tuned_set.h): every trained model at its tuned
  // knobs (paperRunConfig applies them), each tuned on its own run config at the table's horizons
  // (engine/sweep/paper_table_tune.h); the M rows only. Empty: the shared defaults.
  TunedSet tuned;
  // The same models, horizons and seeds at the shared defaults, from earlier tables (`--beside`,
  // besidePaperRuns): shown beside the tuned rows with their verdicts. Empty: none.
  std::vector<PaperRun> beside;
  std::vector<std::string> beside_sources;  // "docs/data/paper_table_seeds6.json", one per table
  int64_t parallel = 0;                     // runs at a time; 0 = one per core
  std::string machine;  // a line on the machine for the caption ("2 cores, shared with …")
};

struct PaperTableProgress {
  int64_t done = 0, total = 0;
  std::string line;  // the finished run: "rsa M H=24 seed 1: MSE 0.512 (6 epochs, 41 s)"
};

struct PaperTableResult {
  std::string json;            // engine/core/verdicts/paper_table.h's table JSON
  std::vector<PaperRun> runs;  // every run and reference the JSON's rows summarise
  bool failed = false;
  std::vector<std::string> errors;
};

// Throws std::invalid_argument for an unknown model, series or horizon that does not fit.
PaperTableResult runPaperTable(const PaperTableOptions& options,
                               const std::function<void(const PaperTableProgress&)>& progress = {},
                               TrainingControl* control = nullptr);

// The Informer pair's size and budget at one horizon.
struct InformerSetting {
  int64_t d_model = 32, heads = 4, ff_mult = 4, encoder_layers = 2, decoder_layers = 1;
  int64_t input_length = 96, label_length = 48, factor = 5;
  // Informer's budget (its authors' defaults): Adam, no weight decay, no clipping, the learning
  // rate halved after every epoch.
  int64_t epochs = 6, patience = 3, batch_size = 32;
  double learning_rate = 1e-4;
};
// "reduced": the table's width and heads (d_ff 4·d_model), 2 encoder and 1 decoder layers, the
// table's input length and label_len L/2, factor 5; "paper": Informer's (d_model 512, 8 heads,
// d_ff 2048, 2 + 1 layers) with its ETTh1 lengths: H = 24: L 48, label_len 48, factor 3;
// H = 48: 96 / 48; H = 168 and 336: 168 / 168 (factor 5, the authors' default, where no other
// is listed). Throws std::invalid_argument for another size or a paper horizon without lengths.
InformerSetting informerSetting(const PaperTableOptions& options, int64_t horizon,
                                const std::string& size);

// The run config of one model in the table (exposed for the tests); the forecaster family's
// (the Informer pair) at options.informer_size.
RunConfig paperRunConfig(const PaperTableOptions& options, const std::string& model,
                         int64_t horizon, int64_t train_windows, uint64_t seed,
                         NormMode norm = NormMode::Global);

}  // namespace rsalab
