#include "app/cli_commands.h"

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/cli_progress.h"
#include "app/cli_results.h"
#include "app/session_recorder.h"
#include "app/sweep_figures.h"
#include "engine/atomic_file.h"
#include "engine/core/names.h"
#include "engine/inspection_io.h"
#include "engine/session/session_bundle.h"
#include "engine/training/sweep.h"
#include "engine/training/sweep_references.h"
#include "engine/training/trainer.h"

namespace rsalab {

namespace {

// Ctrl+C (SIGINT) and SIGTERM while training: the first asks the trainer to stop after its
// current step (an atomic store is async-signal-safe); the handler then resets itself, so a
// second Ctrl+C ends the process at once.
std::atomic<bool>* g_stop_flag = nullptr;

extern "C" void onInterrupt(int) {
  if (g_stop_flag) g_stop_flag->store(true);
}

class InterruptToStop {
 public:
  explicit InterruptToStop(std::atomic<bool>& flag) {
    g_stop_flag = &flag;
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~InterruptToStop() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
    g_stop_flag = nullptr;
  }
  InterruptToStop(const InterruptToStop&) = delete;
  InterruptToStop& operator=(const InterruptToStop&) = delete;

 private:
  struct sigaction previous_int_ {
  }, previous_term_{};
};

std::string format(double v, int precision = 4) {
  std::ostringstream s;
  s << std::setprecision(precision) << v;
  return s.str();
}

std::string metricsLine(const EvalMetrics& m) {
  std::ostringstream s;
  s << m.split << " loss " << format(m.loss, 6);
  for (const auto& [k, v] : m.values) s << "  " << k << " " << format(v, 6);
  return s.str();
}

RunConfig loadRunConfig(const std::string& run_dir) {
  const auto path = (std::filesystem::path(run_dir) / "config.json").string();
  return runConfigFromJson(readTextFile(path, 1 << 20));
}

std::unique_ptr<Trainer> restoreTrainer(const std::string& run_dir) {
  auto trainer = std::make_unique<Trainer>(loadRunConfig(run_dir));
  const auto checkpoint = (std::filesystem::path(run_dir) / "checkpoint.pt").string();
  if (!std::filesystem::exists(checkpoint)) throw std::runtime_error("no checkpoint in " + run_dir);
  trainer->loadCheckpoint(checkpoint);
  return trainer;
}

}  // namespace

int runTrain(const TrainCommand& command) {
  std::filesystem::create_directories(command.out_dir);
  const std::filesystem::path dir(command.out_dir);
  Trainer trainer(command.config);
  writeFileAtomically((dir / "config.json").string(), toJson(trainer.config()));
  std::cerr << "train: " << trainer.config().model.model << " on " << trainer.data().summary << ", "
            << trainer.parameterCount() << " parameters, N = " << trainer.data().train.size()
            << ", device " << trainer.deviceName() << "\n"
            << taskNotes(trainer.data());
  // Every step and evaluation, recorded once: metrics.csv and the session bundle come from here.
  SessionRecorder recorder;
  const std::string model = trainer.config().model.model;
  recorder.start(trainer.config(), {model}, 1);
  recorder.addRun(0, model, trainer.config().trainer.seed, trainer.parameterCount());
  double last_loss = 0;
  int64_t steps_done = 0;
  ProgressLine progress("train", trainer.config().trainer.max_steps);
  trainer.onStep = [&](const StepMetrics& m) {
    recorder.recordStep(0, m);
    last_loss = m.train_loss;
    ++steps_done;
    progress.update(m.step, "loss " + format(m.train_loss));
  };
  trainer.onEval = [&](const EvalMetrics& m) { recorder.recordEval(0, m); };
  trainer.faults.nan_loss_at_step = command.fault_nan_at_step;
  trainer.faults.throw_at_step = command.fault_throw_at_step;
  trainer.faults.throw_kind = command.fault_kind;
  TrainingControl control;
  StopReason reason;
  {
    InterruptToStop interrupt(control.stop);
    reason = trainer.run(&control);
  }
  progress.finish(steps_done == 0 ? "" : "loss " + format(last_loss));
  writeFileAtomically((dir / "metrics.csv").string(), recorder.metricsCsv(0));
  trainer.saveCheckpoint((dir / "checkpoint.pt").string());
  auto writeSession = [&](RunState state, const EvalMetrics* test) {
    if (command.session_dir.empty()) return;
    recorder.setStatus(0, runStateName(state), stopReasonName(reason));
    if (test) recorder.recordEval(0, *test);
    recorder.setSnapshots(0, {{trainer.stepsDone(), trainer.inspect(0)}});
    const auto dir = saveSession(recorder.bundle(), command.session_dir,
                                 {[&](int64_t, const std::string& path) {
                                    trainer.saveCheckpoint(path);
                                    return true;
                                  },
                                  {}});
    std::cout << "wrote session " << dir << "\n";
  };
  if (reason == StopReason::Diverged) {
    writeSession(RunState::Failed, nullptr);
    std::cerr << "error: training diverged at step " << trainer.stepsDone()
              << " (non-finite loss or gradient); checkpoint holds the last good weights\n";
    return 3;
  }
  if (reason == StopReason::Requested) {
    std::cerr << "interrupted at step " << trainer.stepsDone() << ": wrote " << dir.string()
              << "/{config.json,metrics.csv,checkpoint.pt}; `rsalab-cli eval --run " << dir.string()
              << "` gives its test metrics\n";
    return kExitInterrupted;
  }
  trainer.onEval = nullptr;
  auto test = trainer.evaluate("test");
  writeFileAtomically((dir / "result.json").string(), resultJson(test, trainer));
  writeSession(RunState::Finished, &test);
  std::cout << "stopped: " << stopReasonName(reason) << " after " << trainer.stepsDone()
            << " steps\n"
            << metricsLine(test) << "\n"
            << referenceLines(test.loss, trainer.data()) << "wrote " << dir.string()
            << "/{config.json,metrics.csv,checkpoint.pt,result.json}\n";
  return 0;
}

int runEval(const std::string& run_dir) {
  auto trainer = restoreTrainer(run_dir);
  auto test = trainer->evaluate("test");
  std::cout << "run " << run_dir << " at step " << trainer->stepsDone() << "\n"
            << metricsLine(test) << "\n"
            << referenceLines(test.loss, trainer->data());
  return 0;
}

int runInspect(const std::string& run_dir, int64_t sample, const std::string& out_dir) {
  auto trainer = restoreTrainer(run_dir);
  auto record = trainer->inspect(sample);
  const int files = writeInspection(record, out_dir);
  std::cout << "inspect: " << record.model << ", validation sample " << record.sample << ": wrote "
            << files << " files to " << out_dir << "\n";
  for (size_t l = 0; l < record.layers.size(); ++l) {
    for (size_t h = 0; h < record.layers[l].heads.size(); ++h) {
      const auto& x = record.layers[l].heads[h];
      if (!x.has_rem) continue;
      std::cout << "  layer " << l << " head " << h << ": " << x.rem_kind << " (d=" << x.dilation
                << ")";
      if (x.rem_kind == "regular")
        std::cout << " lambda " << format(x.lambda);
      else
        std::cout << " gamma " << format(x.gamma) << " theta " << format(x.theta) << " period "
                  << format(x.theta != 0 ? 2 * M_PI / x.theta : 0);
      std::cout << " gate " << format(x.gate) << "\n";
    }
    if (record.layers[l].has_alpha) {
      std::cout << "  layer " << l << ": alpha " << format(record.layers[l].alpha) << " residual "
                << format(record.layers[l].residual) << "\n";
    }
  }
  return 0;
}

int runSweepCommand(const SweepCommand& command) {
  SweepOptions options;
  options.base = command.config;
  if (!command.models.empty()) options.models = command.models;
  if (!command.sizes.empty()) options.sizes = command.sizes;
  options.seeds = command.seeds;
  options.parallel = command.parallel;
  if (!command.figures_dir.empty()) {
    if (!sweepFiguresAvailable()) {  // say so before hours of training, not after
      throw std::runtime_error(
          "--figures is unavailable: rsalab-cli was built with RSALAB_GUI=OFF (no Qt)");
    }
    options.keep_curves = true;  // the loss figure
  }
  if (!command.session_dir.empty()) options.keep_curves = true;  // the bundle's per-run metrics
  std::vector<std::string> notes;  // honest N: sizes a real series cannot give run once
  options.sizes = honestSweepSizes(options, &notes);
  for (const auto& note : notes) std::cerr << "warning: " << note << "\n";
  std::filesystem::create_directories(command.out_dir);
  const std::filesystem::path dir(command.out_dir);
  writeFileAtomically((dir / "config.json").string(), toJson(options.base));
  const int64_t total =
      static_cast<int64_t>(options.models.size() * options.sizes.size()) * options.seeds;
  std::cerr << "sweep: " << options.models.size() << " models x " << options.sizes.size()
            << " sizes x " << options.seeds << " seeds = " << total << " runs of "
            << options.base.trainer.max_steps << " steps on task " << options.base.task.name
            << "\n";
  ProgressLine progress("sweep", total);
  TrainingControl control;
  SweepResult result;
  {
    InterruptToStop interrupt(control.stop);
    result = runSweep(
        options,
        [&](int64_t done, int64_t, const SweepRow& row) {
          progress.update(done, row.model + " N=" + std::to_string(row.size) +
                                    (row.error.empty() ? " test " + format(row.test_loss)
                                                       : " ERROR " + row.error));
        },
        &control);
  }
  progress.finish("");
  const bool interrupted = control.stop.load();
  if (interrupted) {  // rows of runs that never started are left out
    std::vector<SweepRow> started;
    for (auto& row : result.rows) {
      if (!row.model.empty()) started.push_back(std::move(row));
    }
    result.rows = std::move(started);
  }
  writeFileAtomically((dir / "sweep.csv").string(), sweepCsv(result));
  writeFileAtomically((dir / "sweep.json").string(), sweepJson(result));
  if (!command.session_dir.empty()) {
    SessionRecorder recorder;
    recorder.start(options.base, options.models, options.seeds);
    recorder.setSweepJson(sweepJson(result));
    for (size_t i = 0; i < result.rows.size(); ++i) {
      const SweepRow& r = result.rows[i];
      if (r.model.empty() || r.reference) continue;  // not run (stopped), or a baseline
      const auto id = static_cast<int64_t>(i);
      recorder.addRun(id, r.model, r.seed, r.parameters, r.size);
      recorder.setStatus(id, runStateName(r.error.empty() ? RunState::Finished : RunState::Failed),
                         r.error.empty() ? r.stop_reason : r.error);
      recorder.recordSteps(id, r.train_curve.data(), r.train_curve.size());
      // Validation points (the test loss is in sweep.json).
      recorder.recordEvals(id, r.validation_curve.data(), r.validation_curve.size());
    }
    std::cout << "wrote session " << saveSession(recorder.bundle(), command.session_dir) << "\n";
  }
  std::cout << "sweep: " << total << " runs in " << format(result.wall_seconds, 4) << " s ("
            << result.parallel << " concurrent runs x " << result.threads_per_run
            << " thread(s))\n";
  std::cout << std::left << std::setw(13) << "model"
            << "  b (loss ~ a N^-b)   95% CI            R^2\n";
  for (const auto& f : result.fits) {
    std::cout << std::left << std::setw(13) << f.model << "  " << std::setw(18) << format(f.b, 4)
              << "  [" << format(f.b_low, 3) << ", " << format(f.b_high, 3) << "]"
              << "   " << format(f.r2, 3) << "\n";
  }
  int failed = 0;
  for (const auto& r : result.rows) failed += r.error.empty() ? 0 : 1;
  std::cout << "wrote " << dir.string() << "/{sweep.csv,sweep.json,config.json}\n";
  if (!command.figures_dir.empty()) {
    FigureOptions figures;
    figures.out_dir = command.figures_dir;
    figures.title = options.base.task.name + ", T = " + std::to_string(options.base.task.length) +
                    ", " + std::to_string(options.base.trainer.max_steps) + " steps, " +
                    std::to_string(options.seeds) + " seed(s)";
    for (const auto& path : writeSweepFigures(result.rows, figures))
      std::cout << "wrote " << path << "\n";
  }
  if (failed) std::cerr << "warning: " << failed << " run(s) failed; see the error column\n";
  if (interrupted) {
    std::cerr << "interrupted: wrote the " << result.rows.size() << " run(s) that had started\n";
    return kExitInterrupted;
  }
  return failed ? 1 : 0;
}

int listTasks() {
  TaskOptions defaults;
  std::cout << "tasks (defaults: length " << defaults.length << ", validation "
            << defaults.validation_size << ", test " << defaults.test_size << ")\n";
  for (const auto& name : taskNames()) {
    std::cout << "  " << std::left << std::setw(14) << name << " " << taskDescription(name) << "\n";
  }
  return 0;
}

}  // namespace rsalab
