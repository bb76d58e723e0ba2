// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_commands.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_progress.h"
#include "app/cli/cli_results.h"
#include "engine/core/forecast/anchors.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/inspection_io.h"
#include "engine/core/io/safetensors.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/session/session_recorder.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/generation_claim.h"
#include "engine/core/verdicts/preset_record.h"
#include "engine/core/verdicts/presets.h"
#include "engine/sweep/sweep.h"
#include "engine/sweep/sweep_references.h"
#include "engine/tasks/long_horizon_task.h"
#include "engine/tasks/series_process.h"
#include "engine/tasks/teacher_process.h"
#include "engine/training/generation_probe.h"
#include "engine/training/model_export.h"
#include "engine/training/trainer.h"

namespace rsalab {

namespace {

std::string metricsLine(const EvalMetrics& m) {
  std::ostringstream s;
  s << splitName(m.split) << " loss " << formatNumber(m.loss, 6);
  for (const auto& [k, v] : m.values) s << "  " << k << " " << formatNumber(v, 6);
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

// The run's task, with a line per forecasting anchor fit on stderr as each finishes (a long series'
// anchors take seconds; the user sees what is being fitted and for how long).
std::shared_ptr<const TaskData> taskWithAnchorLines(const RunConfig& config) {
  validate(config);
  TaskBuild build;
  build.defer_anchors = true;
  auto data = makeTask(config.task, config.train_size, config.trainer.seed, build);
  if (data.pending_anchors) {
    const std::string plan = forecast::anchorPlan(*data.pending_anchors);
    if (!plan.empty()) std::cerr << "anchors: " << plan << "\n";
    const auto fitted = fitAnchors(data, [](const forecast::AnchorProgress& p) {
      std::cerr << "anchors: [" << p.done << "/" << p.total << "] " << p.anchor << " on "
                << p.column << ": " << (p.error.empty() ? p.model : "not fitted (" + p.error + ")")
                << ", " << formatNumber(p.seconds, 3) << " s" << std::endl;
    });
    if (!plan.empty())
      std::cerr << "anchors: " << fitted.scores.size() << " fitted in "
                << formatNumber(fitted.seconds, 3) << " s\n";
  }
  return std::make_shared<const TaskData>(std::move(data));
}

}  // namespace

namespace {

// The long-horizon protocol's scores of a finished run (the paper table's, from the same
// function): the MSE and MAE over every window, step and column, and OT's column MSE.
std::string longHorizonLine(Trainer& trainer) {
  const auto& d = trainer.data();
  if (d.protocol != "long-horizon") return "";
  const auto s = scoreLongHorizonTest(d, trainer.forecasts("test"));
  const auto ot = std::find(d.columns.begin(), d.columns.end(), kLongHorizonTarget);
  const size_t k = ot == d.columns.end() ? 0 : static_cast<size_t>(ot - d.columns.begin());
  std::ostringstream out;
  out.precision(6);
  out << "long-horizon test (" << d.test.size() << " windows x " << d.horizon << " steps x "
      << d.columns.size() << " column(s), z units): MSE " << s.mse << ", MAE " << s.mae
      << ", OT column MSE " << s.column_mse[k] << "\n";
  return out.str();
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A preset run's verdicts, kept beside its result for `rsalab-cli preset-docs --runs`.
void writeVerdicts(const std::filesystem::path& dir, const PresetRunVerdicts& verdicts) {
  if (verdicts.preset.empty()) return;
  const auto path = (dir / kPresetVerdictsFile).string();
  writeFileAtomically(path, presetRunVerdictsJson(verdicts));
  std::cout << "wrote " << path << "\n";
}

}  // namespace

int runTrain(const TrainCommand& command) {
  const auto started = std::chrono::steady_clock::now();
  std::filesystem::create_directories(command.out_dir);
  const std::filesystem::path dir(command.out_dir);
  Trainer trainer(command.config, taskWithAnchorLines(command.config));
  writeFileAtomically((dir / "config.json").string(), toJson(trainer.config()));
  std::cerr << "train: " << trainer.config().model.model << " on " << trainer.data().summary << ", "
            << trainer.parameterCount() << " parameters, N = " << trainer.data().train.size()
            << ", device " << trainer.deviceName() << "\n"
            << taskNotes(trainer.data());
  // Every step and evaluation, recorded once: metrics.csv and the session bundle come from here.
  SessionRecorder recorder;
  const std::string model = trainer.config().model.model;
  recorder.start(trainer.config(), {model}, 1);
  recorder.setTuned(command.tuned);
  recorder.addRun(0, model, trainer.config().trainer.seed, trainer.parameterCount());
  recorder.setReferences(trainer.data().references, trainer.data().horizon,
                         trainer.data().season.period);
  double last_loss = 0;
  int64_t steps_done = 0;
  ProgressLine progress("train", trainer.config().trainer.max_steps);
  trainer.onStep = [&](const StepMetrics& m) {
    recorder.recordStep(0, m);
    last_loss = m.train_loss;
    ++steps_done;
    progress.update(m.step, "loss " + formatNumber(m.train_loss, 4));
  };
  trainer.onEval = [&](const EvalMetrics& m) { recorder.recordEval(0, m); };
  trainer.faults.nan_loss_at_step = command.fault_nan_at_step;
  trainer.faults.throw_at_step = command.fault_throw_at_step;
  trainer.faults.throw_kind = command.fault_kind;
  // A run preset's control: the untrained model with the same initialisation, on the same sample.
  // The fixed-point rule averages over several validation samples: the control's are taken here.
  std::optional<InspectionRecord> untrained;
  std::vector<InspectionRecord> untrained_samples;
  const int64_t samples = std::min<int64_t>(kClaimSamples, trainer.data().validation.size());
  if (command.rule) {
    untrained = trainer.inspect(0);
    for (int64_t k = 0; k < samples; ++k) untrained_samples.push_back(trainer.inspect(k));
  }
  TrainingControl control;
  StopReason reason;
  {
    InterruptToStop interrupt(control.stop);
    reason = trainer.run(&control);
  }
  progress.finish(steps_done == 0 ? "" : "loss " + formatNumber(last_loss, 4), trainer.stepsDone());
  writeFileAtomically((dir / "metrics.csv").string(), recorder.metricsCsv(0));
  trainer.saveCheckpoint((dir / "checkpoint.pt").string());
  auto writeSession = [&](RunState state, const EvalMetrics* test) {
    if (command.session_dir.empty()) return;
    recorder.setStatus(0, state, stopReasonName(reason));
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
    writeSession(RunState::Diverged, nullptr);  // reopened as diverged, not failed
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
  const auto matches = remMatches(trainer);
  writeFileAtomically((dir / "result.json").string(), resultJson(test, trainer, matches));
  writeSession(RunState::Finished, &test);
  std::cout << "stopped: " << stopReasonName(reason) << " after " << trainer.stepsDone()
            << " steps\n"
            << metricsLine(test) << "\n"
            << longHorizonLine(trainer) << referenceLines(test, trainer.data())
            << remTruthLines(matches, trainer.data(), test.loss) << "wrote " << dir.string()
            << "/{config.json,metrics.csv,checkpoint.pt,result.json}\n";
  if (command.rule) {
    const InspectionRecord last = trainer.inspect(0);
    ClaimEvidence evidence;
    evidence.record = &last;
    evidence.control = untrained ? &*untrained : nullptr;
    std::vector<InspectionRecord> trained_samples;
    for (int64_t k = 0; k < samples; ++k) trained_samples.push_back(trainer.inspect(k));
    for (size_t k = 0; k < trained_samples.size() && k < untrained_samples.size(); ++k) {
      evidence.records.push_back(&trained_samples[k]);
      evidence.controls.push_back(&untrained_samples[k]);
    }
    evidence.truth = &trainer.data().truth;
    evidence.length = trainer.config().task.length;
    PresetRunVerdicts kept{command.preset,
                           trainer.config().trainer.seed,
                           trainer.stepsDone(),
                           secondsSince(started),
                           {},
                           {}};
    for (const auto& v : judgeClaim(*command.rule, evidence)) {
      std::cout << verdictLine(v) << "\n";
      kept.lines.push_back(verdictLine(v));
      kept.measures.insert(v.measures.begin(), v.measures.end());
    }
    writeVerdicts(dir, kept);
  }
  return 0;
}

int runGenerationProbe(const RunConfig& config, const Preset& preset, const std::string& out_dir) {
  const auto started = std::chrono::steady_clock::now();
  const std::string& claim = preset.claim;
  GenerationProbeOptions o;
  o.model = config.model;
  o.max_position = config.task.length;
  o.seed = config.trainer.seed;
  std::cout << claim << "\n"
            << "time per generated token (median of " << o.window
            << " steps before T) and state floats, both models stepped in turn:\n"
            << "       T   linear ms  softmax ms   linear state  softmax state\n";
  std::atomic<bool> stop{false};
  InterruptToStop interrupt(stop);
  GenerationPoint linear;
  const auto probe = probeLinearAttentionRnn(
      o,
      [&](const std::string& kind, const GenerationPoint& p) {
        if (parseAttentionKind(kind) == attentionKind("linear")) {
          linear = p;
          return;
        }
        std::cout << std::setw(8) << p.position << std::setw(12)
                  << formatNumber(linear.ms_per_token, 3) << std::setw(12)
                  << formatNumber(p.ms_per_token, 3) << std::setw(15) << linear.state_floats
                  << std::setw(15) << p.state_floats << std::endl;
      },
      &stop);
  std::cout << "model " << probe.model << "\n";
  PresetRunVerdicts kept{preset.name, o.seed, 0, secondsSince(started), {}, {}};
  for (const auto& v : linearAttentionRnnVerdicts(probe)) {
    std::cout << verdictLine(v) << "\n";
    kept.lines.push_back(verdictLine(v));
  }
  if (stop) return kExitInterrupted;
  std::filesystem::create_directories(out_dir);
  writeVerdicts(out_dir, kept);
  return 0;
}

int runEval(const std::string& run_dir) {
  auto trainer = restoreTrainer(run_dir);
  auto test = trainer->evaluate("test");
  std::cout << "run " << run_dir << " at step " << trainer->stepsDone() << "\n"
            << metricsLine(test) << "\n"
            << referenceLines(test, trainer->data());
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
      std::cout << "  layer " << l << " head " << h << ": " << remKindName(x.rem_kind)
                << " (d=" << x.dilation << ")";
      if (x.rem_kind == RemKind::Regular)
        std::cout << " lambda " << formatNumber(x.lambda, 4);
      else
        std::cout << " gamma " << formatNumber(x.gamma, 4) << " theta " << formatNumber(x.theta, 4)
                  << " period " << formatNumber(x.theta != 0 ? 2 * M_PI / x.theta : 0, 4);
      std::cout << " gate " << formatNumber(x.gate, 4) << "\n";
    }
    if (record.layers[l].has_alpha) {
      std::cout << "  layer " << l << ": alpha " << formatNumber(record.layers[l].alpha, 4)
                << " residual " << formatNumber(record.layers[l].residual, 4) << "\n";
    }
  }
  return 0;
}

int runExport(const std::string& run_dir, const std::string& format, std::string out, bool sample) {
  if (format != "safetensors")
    throw std::invalid_argument("export --format " + format + ": the one format is safetensors");
  if (out.empty()) out = (std::filesystem::path(run_dir) / "model.safetensors").string();
  auto trainer = restoreTrainer(run_dir);
  const auto exported = exportModel(*trainer);
  writeSafetensors(out, exported.weights);
  int64_t values = 0;
  for (const auto& t : exported.weights.tensors)
    values += static_cast<int64_t>(t.bytes.size()) / safetensorsDtypeSize(t.dtype);
  const auto& meta = exported.weights.metadata;
  std::cout << "export: " << trainer->config().model.model << " at step " << trainer->stepsDone()
            << ", " << exported.weights.tensors.size() << " tensors, " << values
            << " values: wrote " << out << "\n"
            << "  names: "
            << (meta.at("tensor_names") == "peer" ? std::string("bench/peer/models.py's state_dict")
                                                  : "LibTorch's (" + meta.at("peer") + ")")
            << "\n";
  if (meta.at("revin") == "yes")
    std::cout << "  RevIN's affine (norm revin): revin_weight and revin_bias, "
              << meta.at("input_dim")
              << " value(s) each, the model's own (engine/training/series_norm.h)\n";
  if (sample && !exported.sample.tensors.empty()) {
    std::string stem = out;
    const std::string suffix = ".safetensors";
    if (stem.size() > suffix.size() &&
        stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0)
      stem.resize(stem.size() - suffix.size());
    writeSafetensors(stem + ".sample.safetensors", exported.sample);
    std::cout << "  sample batch and outputs: wrote " << stem << ".sample.safetensors\n";
  }
  return 0;
}

int listTasks() {
  TaskOptions defaults;
  std::cout << "tasks (defaults: length " << defaults.length << ", validation "
            << defaults.validation_size << ", test " << defaults.test_size << ")\n";
  for (const auto& name : taskNames()) {
    std::cout << "  " << std::left << std::setw(14) << name << " " << taskDescription(name) << "\n";
  }
  // The teacher processes, with the reach of their default parameters (the difficulty rule).
  std::cout << "teacher processes of teacher and mix (--teacher-process; reach: the lag holding "
            << formatNumber(100 * kReachShare) << " % of Σ|w_k| over k ≤ " << kReachLength
            << ", at the defaults):\n";
  for (const auto& row : teacherProcessRegistry()) {
    TaskOptions o;
    o.teacher_process = row.process;
    setRecoverKernel(o);  // rem: the recover kernel, which the others' defaults match
    std::cout << "  " << std::left << std::setw(14) << enumName(row.process) << " "
              << (row.process == TeacherProcess::Rem ? std::string(kRemHomeGround) + ": " : "")
              << row.description << " (reach " << teacherReach(o);
    if (row.process == TeacherProcess::Nonlinear) {  // the further rule of its defaults
      const auto p = makeTeacherProcess(o, kReachLength);
      std::cout << ", nonlinear share " << formatNumber(teacherNonlinearShare(p, o), 3)
                << ", start state left after " << TaskOptions{}.length << " steps "
                << formatNumber(teacherStartStateFade(p, o, TaskOptions{}.length), 2);
    }
    std::cout << ")\n";
  }
  std::cout << "teacher processes of seasonal and ar (in place of the AR(1) poles; reach at the "
               "defaults, of the rem poles' AR(1) for rem):\n";
  for (const auto& row : teacherProcessRegistry()) {
    TaskOptions o;
    o.name = "ar";
    o.teacher_process = row.process;
    std::cout << "  " << std::left << std::setw(14) << enumName(row.process) << " "
              << (row.process == TeacherProcess::Rem ? std::string(kRemHomeGround) + ": " : "")
              << row.series << " (reach " << seriesReach(o) << ", floor "
              << (row.process == TeacherProcess::Nonlinear ||
                          row.process == TeacherProcess::Selective
                      ? "a lower bound"
                      : "exact")
              << ")\n";
  }
  return 0;
}

}  // namespace rsalab
