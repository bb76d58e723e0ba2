// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/sweep/paper_table_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>

#include "engine/core/forecast/anchors.h"
#include "engine/core/io/enums.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/sweep/paper_table_tune.h"
#include "engine/tasks/long_horizon_task.h"

namespace rsalab {
namespace {

using forecast::LongHorizonFeatures;
using Clock = std::chrono::steady_clock;

struct Job {
  std::string model;
  LongHorizonFeatures features;
  int64_t horizon;
  double fraction;
  uint64_t seed;
  NormMode norm = NormMode::Global;
  int64_t length = 0;  // L; 0: the table's
};

using TaskKey = std::tuple<int, int64_t, double, int, int64_t>;  // features, H, fraction, norm, L

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

int64_t stepsPerEpoch(int64_t windows, int64_t batch) { return (windows + batch - 1) / batch; }

// The anchors on OT (univariate): the protocol's (longHorizonAnchorInput), as train fits them.
std::vector<PaperRun> anchorRuns(const LongHorizonTask& task, int64_t L, int64_t H,
                                 const std::string& mode, std::vector<std::string>& names,
                                 const std::atomic<bool>* cancel) {
  (void)L;  // the task's own
  forecast::AnchorInput in =
      longHorizonAnchorInput(task, parseAnchorMode(mode).value_or(AnchorMode::Fast));
  in.cancel = cancel;  // a stop skips the fits not yet started
  const auto t0 = Clock::now();
  const auto scores = forecast::computeAnchors(in);
  std::vector<PaperRun> out;
  for (const auto& r : scores.scores) {
    PaperRun run;
    run.model = r.name;
    run.features = "S";
    run.horizon = H;
    run.train_windows = static_cast<int64_t>(task.windows.train.size());
    run.mse = run.ot_mse = r.test_loss;
    run.mae = NAN;
    run.validation = r.validation_loss;
    run.seconds = secondsSince(t0);
    if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
    out.push_back(run);
  }
  return out;
}

PaperRun persistenceRun(const LongHorizonTask& task, const std::string& features, int64_t L,
                        int64_t H) {
  const auto C = static_cast<int64_t>(task.columns.size());
  const auto f = forecast::persistenceForecasts(task.z, C, task.windows.test, L, H);
  const auto s = forecast::scoreLongHorizon(f, task.test_targets, H, C, task.target_column);
  PaperRun run;
  run.model = "persistence";
  run.features = features;
  run.horizon = H;
  run.train_windows = static_cast<int64_t>(task.windows.train.size());
  run.mse = s.mse;
  run.mae = s.mae;
  run.ot_mse = s.column_mse[static_cast<size_t>(task.target_column)];
  run.validation = task.data->references.front().validation_loss;
  return run;
}

}  // namespace

InformerSetting informerSetting(const PaperTableOptions& o, int64_t horizon,
                                const std::string& size) {
  InformerSetting s;
  if (size == "reduced") {
    s.d_model = o.d_model;
    s.heads = o.heads;
    s.input_length = o.input_length;
    s.label_length = o.input_length / 2;
    return s;
  }
  if (size != "paper")
    throw std::invalid_argument("informer size '" + size + "': use reduced or paper");
  s.d_model = 512;
  s.heads = 8;
  switch (horizon) {
    case 24:
      s.input_length = 48, s.label_length = 48, s.factor = 3;
      break;
    case 48:
      s.input_length = 96, s.label_length = 48;
      break;
    case 168:
    case 336:
      s.input_length = 168, s.label_length = 168;
      break;
    default:
      throw std::invalid_argument(
          "--informer-size paper: Informer's ETTh1 lengths are known at "
          "H = 24, 48, 168 and 336, not " +
          std::to_string(horizon));
  }
  return s;
}

RunConfig paperRunConfig(const PaperTableOptions& o, const std::string& model, int64_t horizon,
                         int64_t train_windows, uint64_t seed, NormMode norm) {
  // The forecaster family (the Informer pair) has its own size, lengths and budget.
  const bool forecaster = modelInfo(model).family == ModelFamily::Forecaster;
  const auto s = forecaster ? informerSetting(o, horizon, o.informer_size) : InformerSetting{};
  const int64_t L = forecaster ? s.input_length : o.input_length;
  // The protocol's run config, as `train --series etth1` resolves it (longHorizonDefaults), with
  // the table's settings; the budget is the one applyLongHorizonBudget (the trainer applies it
  // again, unchanged).
  RunConfig c = longHorizonDefaults(defaultRunConfig());
  c.task.name = o.series;
  c.task.protocol = SeriesProtocol::LongHorizon;
  c.task.length = L;
  c.task.horizon = horizon;
  c.task.norm = norm;
  c.task.epochs = forecaster ? s.epochs : o.epochs;
  c.model.model = model;
  c.model.d_model = forecaster ? s.d_model : o.d_model;
  c.model.heads = forecaster ? s.heads : o.heads;
  c.model.layers = forecaster ? s.encoder_layers : o.layers;
  c.trainer.batch_size = forecaster ? s.batch_size : o.batch_size;
  c.trainer.learning_rate = forecaster ? s.learning_rate : o.learning_rate;
  c.trainer.patience = forecaster ? s.patience : o.patience;
  c.trainer.snapshot_every = 0;
  c.trainer.seed = seed;
  if (forecaster) {  // Informer's structure and its authors' optimiser
    c.model.ff_mult = s.ff_mult;
    c.model.decoder_layers = s.decoder_layers;
    c.model.informer_factor = s.factor;
    c.model.label_length = s.label_length;
    c.trainer.optimizer = OptimizerKind::Adam;
    c.trainer.weight_decay = 0;
    c.trainer.grad_clip = 0;
  }
  c = applyTuned(o.tuned, c);
  applyLongHorizonBudget(c, L, train_windows);
  if (forecaster) c.trainer.lr_halve_every = c.trainer.eval_every;  // halved after every epoch
  return c;
}

namespace {

nlohmann::ordered_json lengthsJson(const PaperTableOptions& o, const std::string& size,
                                   const std::vector<int64_t>& horizons) {
  auto out = nlohmann::ordered_json::array();
  for (int64_t h : horizons) {
    const auto s = informerSetting(o, h, size);
    out.push_back({{"horizon", h},
                   {"input_length", s.input_length},
                   {"label_length", s.label_length},
                   {"factor", s.factor}});
  }
  return out;
}

// The paper size's time for the pair's runs, estimated from `steps` timed training steps (after
// one untimed) per horizon at `threads` threads: each run's budget in full (every epoch, no early
// stop), an evaluation batch counted as a third of a training step (a forward without the
// backward), `parallel` runs at a time. NaN when no horizon has paper lengths.
double paperSizeEstimate(const PaperTableOptions& o, int64_t parallel, int64_t threads,
                         int64_t steps, TrainingControl* control) {
  const int previous_threads = torch::get_num_threads();
  torch::set_num_threads(static_cast<int>(threads));
  struct Restore {
    int n;
    ~Restore() { torch::set_num_threads(n); }
  } restore{previous_threads};
  PaperTableOptions paper = o;
  paper.informer_size = "paper";
  double total = 0;
  bool any = false;
  for (int64_t h : o.informer_horizons) {
    if (control && control->stop.load()) return NAN;
    InformerSetting s;
    try {
      s = informerSetting(paper, h, "paper");
    } catch (const std::invalid_argument&) {
      continue;
    }
    LongHorizonTaskOptions t;
    t.series = o.series;
    t.input_length = s.input_length;
    t.horizon = h;
    const auto task = makeLongHorizonTask(t);
    const int64_t N = task.data->train.size();
    const auto config = paperRunConfig(paper, o.informer_models.front(), h, N, 0);
    Trainer trainer(config, task.data);
    trainer.step();
    const auto t0 = Clock::now();
    for (int64_t k = 0; k < steps; ++k) trainer.step();
    const double per_step = secondsSince(t0) / static_cast<double>(steps);
    const int64_t B = config.trainer.batch_size;
    const double eval_batches =
        static_cast<double>(s.epochs * stepsPerEpoch(task.data->validation.size(), B) +
                            stepsPerEpoch(task.data->test.size(), B));
    const double run =
        per_step * (static_cast<double>(s.epochs * stepsPerEpoch(N, B)) + eval_batches / 3);
    total += run * static_cast<double>(o.informer_models.size() * o.informer_seeds);
    any = true;
  }
  return any ? total / static_cast<double>(parallel) : NAN;
}

nlohmann::ordered_json informerSettingsJson(const PaperTableOptions& o, int64_t parallel,
                                            int64_t threads, double seconds,
                                            TrainingControl* control) {
  const auto s = informerSetting(o, o.informer_horizons.front(), o.informer_size);
  nlohmann::ordered_json j = {{"size", o.informer_size},
                              {"models", o.informer_models},
                              {"horizons", o.informer_horizons},
                              {"seeds", o.informer_seeds},
                              {"d_model", s.d_model},
                              {"heads", s.heads},
                              {"d_ff", s.ff_mult * s.d_model},
                              {"encoder_layers", s.encoder_layers},
                              {"decoder_layers", s.decoder_layers},
                              {"factor", s.factor},
                              {"lengths", lengthsJson(o, o.informer_size, o.informer_horizons)},
                              {"epochs", s.epochs},
                              {"patience", s.patience},
                              {"batch_size", s.batch_size},
                              {"learning_rate", s.learning_rate},
                              {"seconds", seconds}};
  if (o.informer_size != "paper" && o.informer_estimate_steps > 0) {
    PaperTableOptions paper = o;
    paper.informer_size = "paper";
    const auto p = informerSetting(paper, 24, "paper");
    std::vector<int64_t> known;
    for (int64_t h : o.informer_horizons)
      if (h == 24 || h == 48 || h == 168 || h == 336) known.push_back(h);
    nlohmann::ordered_json pj = {{"d_model", p.d_model},
                                 {"heads", p.heads},
                                 {"d_ff", p.ff_mult * p.d_model},
                                 {"encoder_layers", p.encoder_layers},
                                 {"decoder_layers", p.decoder_layers},
                                 {"lengths", lengthsJson(paper, "paper", known)}};
    const double estimate =
        paperSizeEstimate(o, parallel, threads, o.informer_estimate_steps, control);
    if (std::isfinite(estimate)) {
      pj["estimate_seconds"] = estimate;
      pj["estimate_rule"] = std::to_string(o.informer_estimate_steps) +
                            " timed training steps per horizon (" + std::to_string(threads) +
                            " thread(s)), times every epoch's steps of the budget (no "
                            "early stop), an evaluation batch counted as a third of a step, " +
                            std::to_string(parallel) + " runs at a time";
    }
    j["paper"] = pj;
  }
  return j;
}

}  // namespace

PaperTableResult runPaperTable(const PaperTableOptions& o,
                               const std::function<void(const PaperTableProgress&)>& progress,
                               TrainingControl* control) {
  const auto start = Clock::now();
  for (const auto& m : o.models)  // throws for an unknown name
    if (modelInfo(m).has(LongHorizonOnly))
      throw std::invalid_argument("'" + m + "' runs under Informer's budget: use --informer");
  requirePaperTuned(o);
  std::vector<Job> jobs;
  const auto M = LongHorizonFeatures::Multivariate, S = LongHorizonFeatures::Univariate;
  const auto main = o.features;
  const bool s_row = main == M && o.univariate_horizon > 0;
  for (int64_t h : o.horizons)
    for (const auto& m : o.models)
      for (int64_t s = 0; s < o.seeds; ++s) jobs.push_back({m, main, h, 1.0, uint64_t(s)});
  if (s_row)
    for (const auto& m : o.models)
      for (int64_t s = 0; s < o.seeds; ++s)
        jobs.push_back({m, S, o.univariate_horizon, 1.0, uint64_t(s)});
  for (const auto& name : o.norms) {
    const auto norm = parseNormMode(name);
    if (!norm || *norm == NormMode::Global)
      throw std::invalid_argument("norm '" + name + "': the table's other normalisations are " +
                                  "window, none or revin");
    for (int64_t h : o.norm_horizons)
      for (const auto& m : o.models)
        for (int64_t s = 0; s < o.seeds; ++s) jobs.push_back({m, M, h, 1.0, uint64_t(s), *norm});
  }
  for (int64_t h : o.informer_horizons)
    for (const auto& m : o.informer_models) {
      if (!modelInfo(m).has(LongHorizonOnly))
        throw std::invalid_argument("'" + m +
                                    "' is not of the forecaster family (informer, "
                                    "rsa-informer)");
      const int64_t L = informerSetting(o, h, o.informer_size).input_length;
      for (int64_t s = 0; s < o.informer_seeds; ++s)
        jobs.push_back({m, M, h, 1.0, uint64_t(s), NormMode::Global, L});
    }
  for (double f : o.efficiency_fractions) {
    for (const auto& m : o.efficiency_models) {
      const bool full_done = std::find(o.horizons.begin(), o.horizons.end(),
                                       o.efficiency_horizon) != o.horizons.end() &&
                             std::find(o.models.begin(), o.models.end(), m) != o.models.end();
      for (int64_t s = 0; s < o.seeds; ++s) {
        if (f < 1.0) jobs.push_back({m, M, o.efficiency_horizon, f, uint64_t(s)});
        if (f == o.efficiency_fractions.front() && !full_done)
          jobs.push_back({m, M, o.efficiency_horizon, 1.0, uint64_t(s)});
      }
    }
  }

  std::mutex mutex;  // guards everything below
  std::map<TaskKey, std::shared_ptr<const LongHorizonTask>> tasks;
  auto task = [&](LongHorizonFeatures f, int64_t h, double fraction,
                  NormMode norm = NormMode::Global, int64_t length = 0) {
    const int64_t L = length > 0 ? length : o.input_length;
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = tasks[{static_cast<int>(f), h, fraction, static_cast<int>(norm), L}];
    if (!slot) {
      LongHorizonTaskOptions t;
      t.series = o.series;
      t.input_length = L;
      t.horizon = h;
      t.features = f;
      t.train_fraction = fraction;
      t.norm = norm;
      slot = std::make_shared<const LongHorizonTask>(makeLongHorizonTask(t));
    }
    return slot;
  };

  // An extended table: its runs stay, the jobs it holds are not run again.
  const auto held = [&](const Job& j) {
    for (const auto& r : o.previous)
      if (r.model == j.model && r.features == forecast::longHorizonFeaturesName(j.features) &&
          r.horizon == j.horizon && r.train_fraction == j.fraction && r.seed == j.seed &&
          r.norm == normModeName(j.norm))
        return true;
    return false;
  };
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(), held), jobs.end());
  const bool extending = !o.previous.empty();

  // The references first: persistence on every (features, horizon), the anchors on OT.
  std::vector<PaperRun> runs = o.previous;
  std::vector<std::string> anchor_names = o.previous_anchor_names;
  std::vector<std::pair<LongHorizonFeatures, int64_t>> cells;
  for (int64_t h : o.horizons) cells.push_back({main, h});
  if (!o.informer_models.empty())
    for (int64_t h : o.informer_horizons)
      if (std::find(cells.begin(), cells.end(), std::make_pair(M, h)) == cells.end())
        cells.push_back({M, h});
  if (s_row) cells.push_back({S, o.univariate_horizon});
  for (const auto& [f, h] : cells) {
    const auto name = forecast::longHorizonFeaturesName(f);
    const bool have = std::any_of(runs.begin(), runs.end(), [&](const PaperRun& r) {
      return r.model == "persistence" && r.features == name && r.horizon == h;
    });
    if (!have) runs.push_back(persistenceRun(*task(f, h, 1.0), name, o.input_length, h));
  }
  if (o.anchors != "none" && !(extending && !anchor_names.empty())) {
    std::vector<int64_t> horizons = o.horizons;
    if (s_row &&
        std::find(horizons.begin(), horizons.end(), o.univariate_horizon) == horizons.end())
      horizons.push_back(o.univariate_horizon);
    for (int64_t h : horizons) {
      if (control && control->stop.load()) break;
      const auto a = anchorRuns(*task(S, h, 1.0), o.input_length, h, o.anchors, anchor_names,
                                control ? &control->stop : nullptr);
      runs.insert(runs.end(), a.begin(), a.end());
      if (progress)
        progress({0, static_cast<int64_t>(jobs.size()),
                  "anchors on OT at H = " + std::to_string(h) + ": " + std::to_string(a.size()) +
                      " fitted"});
    }
  }

  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t parallel = std::clamp<int64_t>(o.parallel > 0 ? o.parallel : cores, 1,
                                               std::max<int64_t>(1, jobs.size()));
  const int64_t threads = std::max<int64_t>(1, cores / parallel);
  const int previous_threads = torch::get_num_threads();
  torch::set_num_threads(static_cast<int>(threads));
  PaperTableResult result;
  size_t next = 0;
  int64_t done = 0;
  auto informer_start = Clock::time_point::max(), informer_end = Clock::time_point::min();
  auto worker = [&] {
    for (;;) {
      size_t k;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next >= jobs.size() || (control && control->stop.load())) return;
        k = next++;
      }
      const Job& job = jobs[k];
      const auto t0 = Clock::now();
      PaperRun run;
      run.model = job.model;
      run.features = forecast::longHorizonFeaturesName(job.features);
      run.horizon = job.horizon;
      run.train_fraction = job.fraction;
      run.seed = job.seed;
      run.norm = normModeName(job.norm);
      std::string error;
      try {
        const auto t = task(job.features, job.horizon, job.fraction, job.norm, job.length);
        if (job.length > 0 && job.length != o.input_length) run.input_length = job.length;
        const int64_t N = t->data->train.size();
        const auto config = paperRunConfig(o, job.model, job.horizon, N, job.seed, job.norm);
        Trainer trainer(config, t->data);
        trainer.run(control);
        const auto s = scoreLongHorizonTest(*t->data, trainer.forecasts("test"));
        run.train_windows = N;
        run.mse = s.mse;
        run.mae = s.mae;
        run.ot_mse = s.column_mse[static_cast<size_t>(t->target_column)];
        run.validation = trainer.bestValidationLoss();
        run.epochs =
            stepsPerEpoch(trainer.stepsDone(), stepsPerEpoch(N, config.trainer.batch_size));
        if (control && control->stop.load()) error = "stopped";
      } catch (const std::exception& e) {
        error = e.what();
      }
      run.seconds = secondsSince(t0);
      std::lock_guard<std::mutex> lock(mutex);
      ++done;
      if (job.length > 0) {  // the pair's wall time: its first start to its last end
        informer_start = std::min(informer_start, t0);
        informer_end = std::max(informer_end, Clock::now());
      }
      std::string line = job.model + " " + run.features +
                         (job.norm == NormMode::Global ? "" : std::string(" ") + run.norm) +
                         " H=" + std::to_string(job.horizon) +
                         (job.fraction < 1 ? " " + fixed(100 * job.fraction, 0) + "%" : "") +
                         " seed " + std::to_string(job.seed) + ": ";
      if (error.empty()) {
        runs.push_back(run);
        line += "MSE " + fixed(run.mse, 4) + " (" + std::to_string(run.epochs) + " epochs, " +
                fixed(run.seconds, 0) + " s)";
      } else {
        result.failed = true;
        result.errors.push_back(line + error);
        line += "error: " + error;
      }
      if (progress) progress({done, static_cast<int64_t>(jobs.size()), line});
    }
  };
  std::vector<std::thread> pool;
  for (int64_t w = 0; w < parallel; ++w) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  torch::set_num_threads(previous_threads);

  // Rows in a fixed order whatever the completion order: the models as asked, persistence, the
  // anchors; M before S; by horizon, fraction (full data first) and seed.
  auto rank = [&](const PaperRun& r) {
    auto at = std::find(o.models.begin(), o.models.end(), r.model);
    if (at != o.models.end()) return static_cast<int64_t>(at - o.models.begin());
    at = std::find(o.efficiency_models.begin(), o.efficiency_models.end(), r.model);
    if (at != o.efficiency_models.end()) return 100 + (at - o.efficiency_models.begin());
    at = std::find(o.informer_models.begin(), o.informer_models.end(), r.model);
    if (at != o.informer_models.end()) return 150 + (at - o.informer_models.begin());
    if (r.model == "persistence") return int64_t{200};
    return 300 +
           (std::find(anchor_names.begin(), anchor_names.end(), r.model) - anchor_names.begin());
  };
  std::stable_sort(runs.begin(), runs.end(), [&](const PaperRun& a, const PaperRun& b) {
    const auto norm = [](const PaperRun& r) {  // global first, then the NormMode order
      const auto n = parseNormMode(r.norm).value_or(NormMode::Global);
      return n == NormMode::Global ? 0 : 1 + static_cast<int>(n);
    };
    return std::make_tuple(a.features != "M", -a.train_fraction, norm(a), rank(a), a.horizon,
                           a.seed) < std::make_tuple(b.features != "M", -b.train_fraction, norm(b),
                                                     rank(b), b.horizon, b.seed);
  });
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::array();
  const bool pair = std::find(o.models.begin(), o.models.end(), "rsa") != o.models.end() &&
                    std::find(o.models.begin(), o.models.end(), "transformer") != o.models.end();
  if (pair) {
    for (int64_t h : o.horizons) {
      const auto v =
          horizonVerdict(runs, "rsa", "transformer", h, forecast::longHorizonFeaturesName(main));
      verdicts.push_back(
          {{"horizon", h}, {"claim", v.claim}, {"verdict", verdictWord(v)}, {"detail", v.detail}});
    }
  }
  nlohmann::ordered_json norm_verdicts = nlohmann::ordered_json::array();
  if (pair) {
    std::vector<std::string> norms;
    for (const auto& r : runs)
      if (r.norm != "global" && std::find(norms.begin(), norms.end(), r.norm) == norms.end())
        norms.push_back(r.norm);
    for (const auto& n : norms)
      for (int64_t h : o.norm_horizons) {
        const auto v = horizonVerdict(runs, "rsa", "transformer", h, "M", n);
        norm_verdicts.push_back({{"horizon", h},
                                 {"norm", n},
                                 {"claim", v.claim},
                                 {"verdict", verdictWord(v)},
                                 {"detail", v.detail}});
      }
  }
  nlohmann::ordered_json efficiency = nlohmann::ordered_json::array();
  if (!o.efficiency_fractions.empty()) {
    for (const auto& than : o.efficiency_models) {
      if (than == "rsa") continue;
      const auto v = paperSampleEfficiencyVerdict(runs, "rsa", than, o.efficiency_horizon);
      efficiency.push_back({{"horizon", o.efficiency_horizon},
                            {"claim", v.claim},
                            {"verdict", verdictWord(v)},
                            {"detail", v.detail}});
    }
  }
  nlohmann::ordered_json informer_verdicts = nlohmann::ordered_json::array();
  const auto has = [&](const std::string& m) {
    return std::find(o.informer_models.begin(), o.informer_models.end(), m) !=
           o.informer_models.end();
  };
  if (has("informer") && has("rsa-informer"))
    for (int64_t h : o.informer_horizons) {
      const auto v = horizonVerdict(runs, "rsa-informer", "informer", h, "M");
      informer_verdicts.push_back(
          {{"horizon", h}, {"claim", v.claim}, {"verdict", verdictWord(v)}, {"detail", v.detail}});
    }
  nlohmann::ordered_json j;
  j["settings"] = {{"series", o.series},
                   {"features", forecast::longHorizonFeaturesName(main)},
                   {"input_length", o.input_length},
                   {"horizons", o.horizons},
                   {"seeds", o.seeds},
                   {"univariate_horizon", s_row ? o.univariate_horizon : 0},
                   {"models", o.models},
                   {"d_model", o.d_model},
                   {"heads", o.heads},
                   {"layers", o.layers},
                   {"epochs", o.epochs},
                   {"patience", o.patience},
                   {"batch_size", o.batch_size},
                   {"learning_rate", o.learning_rate},
                   {"anchors", o.anchors},
                   {"efficiency_fractions", o.efficiency_fractions},
                   {"efficiency_horizon", o.efficiency_horizon},
                   {"norms", o.norms},
                   {"norm_horizons", o.norm_horizons},
                   {"parallel", parallel},
                   {"threads_per_run", threads},
                   {"machine", o.machine.empty() ? std::to_string(cores) + " cores" : o.machine}};
  if (!o.informer_models.empty())
    j["settings"]["informer"] = informerSettingsJson(
        o, parallel, threads,
        informer_end > informer_start
            ? std::chrono::duration<double>(informer_end - informer_start).count()
            : 0.0,
        control);
  if (!o.tuned.empty())
    j["settings"]["tuned"] = nlohmann::ordered_json::parse(tunedSetJson(o.tuned));
  j["seconds"] = o.previous_seconds + secondsSince(start);
  if (extending) j["added_seconds"] = secondsSince(start);
  j["rows"] = nlohmann::ordered_json::parse(paperRowsJson(runs, anchor_names));
  j["verdicts"] = verdicts;
  if (!norm_verdicts.empty()) j["norm_verdicts"] = norm_verdicts;
  if (!efficiency.empty()) j["sample_efficiency_verdicts"] = efficiency;
  if (!informer_verdicts.empty()) j["informer_verdicts"] = informer_verdicts;
  if (!o.beside.empty())
    j["shared_defaults"] = nlohmann::ordered_json::parse(sharedDefaultsJson(o));
  result.json = j.dump(2) + "\n";
  result.runs = runs;
  return result;
}

}  // namespace rsalab
