// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/training/trainer.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "engine/core/config/model_variant.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/enums.h"
#include "engine/device.h"
#include "engine/models/model_factory.h"
#include "engine/tasks/mlm_corruption.h"
#include "engine/training/flat_adam.h"
#include "engine/training/series_norm.h"

namespace rsalab {

void TrainingControl::setHot(const HotParameters& hot) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_ = hot;
}

std::optional<HotParameters> TrainingControl::takeHot() {
  std::lock_guard<std::mutex> lock(mutex_);
  auto out = pending_;
  pending_.reset();
  return out;
}

std::mutex& globalGeneratorMutex() {
  static std::mutex mutex;
  return mutex;
}

struct Trainer::State {
  SequenceModel sequence;  // all objectives but Seq2Seq
  EncoderDecoder seq2seq{nullptr};
  std::unique_ptr<FlatAdam> optimizer;
  torch::Device device{torch::kCPU};  // model and batches; the datasets stay on the CPU
  at::Generator sampler;              // the run's own: batch order and MLM corruption (CPU)
  torch::Tensor order;                // current epoch's permutation of the training set
  int64_t cursor = 0;
  HotParameters hot;
  NormMode norm = NormMode::Global;  // regression tasks: what the model sees (series_norm.h)
  std::string best_weights;          // restore_best: the model at the best validation loss
  torch::nn::Module& module() {
    return sequence ? static_cast<torch::nn::Module&>(*sequence) : *seq2seq;
  }
};

Trainer::Trainer(RunConfig config, std::shared_ptr<const TaskData> data)
    : config_(std::move(config)), data_(std::move(data)), state_(std::make_unique<State>()) {
  validate(config_);
  config_.model = withVariant(config_.model);  // a named variant's options, saved as they ran
  if (!data_)
    data_ = std::make_shared<const TaskData>(
        makeTask(config_.task, config_.train_size, config_.trainer.seed));
  // The long-horizon protocol's epochs budget (engine/core/config/run_config.h), computed once
  // for every front end (train, the GUI, sweeps, the paper table) from the task's windows.
  if (data_->protocol == "long-horizon")
    applyLongHorizonBudget(config_, data_->length, data_->train.size());
  const bool seq2seq = data_->objective == Objective::Seq2Seq;
  if (seq2seq != (modelInfo(config_.model.model).family == ModelFamily::Seq2Seq)) {
    throw std::invalid_argument(
        seq2seq ? "task '" + data_->name + "' is sequence-to-sequence: use a seq2seq model"
                : "model " + config_.model.model +
                      " needs a sequence-to-sequence task (copy or reverse)");
  }
  if (data_->mlm_probability > 0) config_.model.causal = false;  // MLM sees both sides
  state_->device = resolveDevice(config_.device);
  {
    // Initialisation draws from LibTorch's process-wide generator (torch::nn's init, the REM
    // builder): seeding it and building the model happen under one lock, so runs in parallel
    // threads never draw from each other's seed.
    std::lock_guard<std::mutex> lock(globalGeneratorMutex());
    torch::manual_seed(config_.trainer.seed);
    if (seq2seq) {
      state_->seq2seq = makeEncoderDecoder(config_.model, data_->io.vocab, data_->io.output_dim);
    } else {
      state_->sequence = makeSequenceModel(config_.model, data_->io);
    }
  }
  state_->module().to(state_->device);
  if (data_->objective == Objective::Regression)
    state_->norm = parseNormMode(data_->norm).value_or(NormMode::Global);
  const auto& t = config_.trainer;
  // Weight decay only on matrices (as nanoGPT): never on biases, norms, REM scalars or gates,
  // which it would pull towards 0 (λ = tanh(η) → 0).
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto& p : state_->module().parameters())
    (p.dim() >= 2 ? decay : no_decay).push_back(p);
  // One flat buffer for parameters and gradients (engine/training/flat_adam.h).
  state_->optimizer = std::make_unique<FlatAdam>(decay, no_decay, t.learning_rate, t.weight_decay,
                                                 t.optimizer == OptimizerKind::AdamW);
  state_->sampler = at::detail::createCPUGenerator(t.seed + 0x9E3779B97F4A7C15ULL);
  state_->hot = t;
  keepGoodState();
}

Trainer::~Trainer() = default;

std::string Trainer::deviceName() const { return rsalab::deviceName(state_->device); }

int64_t Trainer::parameterCount() const {
  int64_t n = 0;
  for (const auto& p : state_->module().parameters()) n += p.numel();
  return n;
}

std::vector<std::pair<std::string, torch::Tensor>> Trainer::namedParameters() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : state_->module().named_parameters(/*recurse=*/true))
    out.emplace_back(item.key(), item.value().detach());
  return out;
}

torch::Tensor Trainer::forwardModel(const torch::Tensor& x) {
  if (!state_->sequence)
    throw std::invalid_argument("forwardModel: a seq2seq model takes a source and a target");
  torch::NoGradGuard no_grad;
  state_->module().eval();
  return state_->sequence->forward(x.to(state_->device)).to(torch::kCPU);
}

void Trainer::applyHot(const HotParameters& hot) {
  TrainerOptions probe = withHot(config_.trainer, hot);
  validate(probe);
  state_->hot = probe;
  config_.trainer = probe;
}

HotParameters Trainer::hot() const { return state_->hot; }

double Trainer::scheduledLearningRate() const {
  const auto& t = config_.trainer;
  double base = state_->hot.learning_rate;
  if (t.lr_halve_every > 0) base *= std::pow(0.5, static_cast<double>(step_ / t.lr_halve_every));
  const auto s = static_cast<double>(step_ + 1);
  if (t.warmup_steps > 0 && s <= t.warmup_steps)
    return base * s / static_cast<double>(t.warmup_steps);
  if (!t.cosine) return base;
  const double span = std::max<double>(1.0, static_cast<double>(t.max_steps - t.warmup_steps));
  const double progress = std::min(1.0, (s - static_cast<double>(t.warmup_steps)) / span);
  return base * (0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * progress)));
}

TokenHits tokenHits(const torch::Tensor& logits, const torch::Tensor& y,
                    const torch::Tensor& scored) {
  torch::NoGradGuard no_grad;
  auto correct = logits.argmax(-1).eq(y);  // (B, T)
  TokenHits hits;
  hits.correct = correct.sum().item<double>();
  hits.count = static_cast<double>(correct.numel());
  if (scored.defined()) {
    hits.correct_scored = correct.logical_and(scored).sum().item<double>();
    hits.count_scored = scored.sum().item<double>();
  }
  return hits;
}

// Loss of the batch split[index]; fills metric sums (as means over the batch) when asked.
double Trainer::lossOn(const DataSplit& split, const torch::Tensor& index, EvalMetrics* metrics,
                       bool training) {
  auto x = split.x.index_select(0, index);
  auto y = split.y.index_select(0, index).to(state_->device);
  if (training && data_->mlm_probability > 0) {
    x = corruptForMlm(x, data_->mlm_probability, data_->io.vocab, state_->sampler);
  }
  x = x.to(state_->device);
  torch::Tensor loss;
  switch (data_->objective) {
    case Objective::Regression: {
      const auto marks =
          split.marks.defined() ? split.marks.index_select(0, index) : torch::Tensor();
      auto out = regressionForward(x, nullptr, marks);  // (B, T, O)
      // Rolling-origin splits score the last y.size(1) positions only.
      if (y.size(1) < out.size(1)) out = out.narrow(1, out.size(1) - y.size(1), y.size(1));
      loss = torch::mse_loss(out, y);
      if (metrics) {
        metrics->values["mse"] += loss.item<double>() * index.size(0);
        metrics->values["mae"] += torch::l1_loss(out, y).item<double>() * index.size(0);
        const int64_t H = data_->horizon, O = out.size(2);
        // Per sample (a series' origin): the mean of e² over its positions and outputs. The test
        // only (the skill interval); validation evaluations skip the work.
        if (&split == &data_->test) {
          const auto per_target =
              (out - y).pow(2).mean({1, 2}).to(torch::kCPU, torch::kFloat64).contiguous();
          metrics->target_errors.insert(metrics->target_errors.end(), per_target.data_ptr<double>(),
                                        per_target.data_ptr<double>() + per_target.numel());
        }
        const auto C = static_cast<int64_t>(data_->mase_scale.size());
        if (C > 0 && O % C == 0) {  // outputs are h·C + c: column k % C
          auto scale = torch::tensor(data_->mase_scale, torch::kFloat64)
                           .repeat({O / C})
                           .to(out.device(), out.scalar_type());
          metrics->values["mase"] +=
              ((out - y).abs() / scale).mean().item<double>() * index.size(0);
        }
        if (H > 1 && O % H == 0) {  // the loss per horizon step: mse_h1 .. mse_hH
          auto per_h = (out - y).pow(2).view({out.size(0), out.size(1), H, O / H});
          auto mean_h = per_h.mean({0, 1, 3});  // (H)
          for (int64_t h = 0; h < H; ++h) {
            metrics->values["mse_h" + std::to_string(h + 1)] +=
                mean_h[h].item<double>() * index.size(0);
          }
        }
      }
      break;
    }
    case Objective::Classification: {
      auto logits = state_->sequence->forward(x);  // (B, C)
      loss = torch::cross_entropy_loss(logits, y);
      if (metrics) {
        metrics->values["cross_entropy"] += loss.item<double>() * index.size(0);
        metrics->values["accuracy"] += logits.argmax(-1).eq(y).sum().item<double>();
      }
      break;
    }
    case Objective::LanguageModel:
    case Objective::Seq2Seq: {
      torch::Tensor logits;
      if (data_->objective == Objective::Seq2Seq) {
        logits = state_->seq2seq->forward(
            x, split.target_in.index_select(0, index).to(state_->device));  // (B, T, V)
      } else {
        logits = state_->sequence->forward(x);  // (B, T, V)
      }
      const auto V = logits.size(-1);
      loss = torch::cross_entropy_loss(logits.reshape({-1, V}), y.reshape({-1}));
      if (metrics) {
        const double ce = loss.item<double>();
        metrics->values["cross_entropy"] += ce * index.size(0);
        metrics->values["bits_per_char"] += ce / std::log(2.0) * index.size(0);
        const auto redrawn = split.corrupted.defined()
                                 ? split.corrupted.index_select(0, index).to(state_->device)
                                 : torch::Tensor();
        const auto hits = tokenHits(logits, y, redrawn);
        const double batch = static_cast<double>(index.size(0));
        if (redrawn.defined()) {
          // MLM: "accuracy" = the redrawn positions only (copying the input scores 1/V there),
          // "accuracy_all" = every position (copying scores about 1 − p). Weighted so that the
          // sum over the split divided by its size is the fraction pooled over the split.
          const double total = static_cast<double>(split.corrupted.sum().item<int64_t>());
          metrics->values["accuracy"] +=
              total > 0 ? hits.correct_scored * static_cast<double>(split.size()) / total : 0.0;
          metrics->values["accuracy_all"] += hits.all() * batch;
        } else {
          metrics->values["accuracy"] += hits.all() * batch;
        }
      }
      break;
    }
  }
  if (training) {
    loss.backward();
  }
  return loss.item<double>();
}

torch::Tensor Trainer::regressionForward(const torch::Tensor& x, InspectionRecord* record,
                                         const torch::Tensor& marks) {
  return normalisedForward(*state_->sequence, x, state_->norm, data_->norm_mean, data_->norm_std,
                           record, marks.defined() ? marks.to(state_->device) : marks);
}

void Trainer::injectThrowIfDue() {
  if (faults.throw_at_step <= 0 || faults.throw_at_step != step_ + 1) return;
  faults.throw_at_step = 0;
  if (faults.throw_kind == "bad_alloc") throw std::bad_alloc();
  if (faults.throw_kind == "shape") {
    (void)torch::matmul(torch::zeros({2, 3}), torch::zeros({2, 3}));  // throws c10::Error
  }
  TORCH_CHECK(false, "injected fault at step ", step_ + 1);
}

StepMetrics Trainer::step() {
  const auto start = std::chrono::steady_clock::now();
  injectThrowIfDue();
  auto& st = *state_;
  const auto& split = data_->train;
  const int64_t N = split.size();
  const int64_t B = std::min<int64_t>(config_.trainer.batch_size, N);
  if (!st.order.defined() || st.cursor + B > N) {
    st.order = torch::randperm(N, st.sampler, torch::kInt64);
    st.cursor = 0;
  }
  auto index = st.order.narrow(0, st.cursor, B);
  st.cursor += B;

  const double lr = scheduledLearningRate();
  st.optimizer->setLearningRate(lr);
  st.optimizer->setWeightDecay(st.hot.weight_decay);  // matrices only (the decay group)
  st.module().train();
  st.optimizer->zeroGrad();
  double loss = lossOn(split, index, nullptr, /*training=*/true);
  if (faults.nan_loss_at_step > 0 && faults.nan_loss_at_step == step_ + 1) {
    faults.nan_loss_at_step = 0;
    loss = std::numeric_limits<double>::quiet_NaN();
  }
  // One norm over the flat gradient, read once: the metric, the non-finite check and the clip.
  const double grad_norm = st.optimizer->gradNorm();
  StepMetrics m;
  if (!std::isfinite(loss) || !std::isfinite(grad_norm)) {
    stop_reason_ = StopReason::Diverged;  // the optimiser step is skipped: weights stay good
  } else {
    if (st.hot.grad_clip > 0) st.optimizer->clipGradNorm(st.hot.grad_clip, grad_norm);
    st.optimizer->step();
  }
  ++step_;
  samples_ += B;
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.step = step_;
  m.samples_seen = samples_;
  m.train_loss = loss;
  m.learning_rate = lr;
  m.grad_norm = grad_norm;
  m.seconds = seconds_;
  if (onStep) onStep(m);
  if (onSnapshot && st.hot.snapshot_every > 0 && step_ % st.hot.snapshot_every == 0) {
    onSnapshot(step_, inspect(0));
  }
  if (stop_reason_ == StopReason::None) {
    if (step_ >= config_.trainer.max_steps) stop_reason_ = StopReason::MaxSteps;
    if (config_.trainer.max_seconds > 0 && seconds_ >= config_.trainer.max_seconds)
      stop_reason_ = StopReason::WallTime;
  }
  return m;
}

EvalMetrics Trainer::evaluate(const std::string& which) {
  const auto parsed = parseSplit(which);
  if (!parsed || *parsed == Split::Train) {
    throw std::invalid_argument("evaluate: split '" + which + "' is unknown: use " +
                                splitName(Split::Validation) + " or " + splitName(Split::Test));
  }
  const DataSplit& split = *parsed == Split::Test ? data_->test : data_->validation;
  EvalMetrics m;
  m.step = step_;
  m.samples_seen = samples_;
  m.split = *parsed;
  const int64_t N = split.size();
  if (N == 0) throw std::runtime_error("the " + which + " split is empty");
  torch::NoGradGuard no_grad;
  state_->module().eval();
  const int64_t chunk = 256;
  for (int64_t i = 0; i < N; i += chunk) {
    auto index = torch::arange(i, std::min(N, i + chunk), torch::kInt64);
    lossOn(split, index, &m, /*training=*/false);
  }
  for (auto& [key, value] : m.values) value /= static_cast<double>(N);
  m.loss = data_->objective == Objective::Regression ? m.values["mse"] : m.values["cross_entropy"];
  if (data_->objective == Objective::Seq2Seq) {
    auto decoded =
        state_->seq2seq->greedyDecode(split.x.to(state_->device), data_->bos, split.y.size(1));
    m.values["exact_match"] =
        decoded.cpu().eq(split.y).all(1).to(torch::kFloat64).mean().item<double>();
  }
  if (onEval) onEval(m);
  return m;
}

std::vector<float> Trainer::forecasts(const std::string& which) {
  const auto parsed = parseSplit(which);
  if (!parsed || *parsed == Split::Train || data_->objective != Objective::Regression)
    throw std::invalid_argument("forecasts: a series task's validation or test split only");
  const DataSplit& split = *parsed == Split::Test ? data_->test : data_->validation;
  torch::NoGradGuard no_grad;
  state_->module().eval();
  std::vector<float> out;
  out.reserve(static_cast<size_t>(split.y.numel()));
  const int64_t N = split.size(), chunk = 256;
  for (int64_t i = 0; i < N; i += chunk) {
    const int64_t n = std::min(N, i + chunk) - i;
    const auto marks = split.marks.defined() ? split.marks.narrow(0, i, n) : torch::Tensor();
    auto f = regressionForward(split.x.narrow(0, i, n).to(state_->device), nullptr,
                               marks);       // (n, T, O)
    const int64_t scored = split.y.size(1);  // the positions the loss scores, as lossOn
    if (scored < f.size(1)) f = f.narrow(1, f.size(1) - scored, scored);
    f = f.to(torch::kCPU, torch::kFloat32).contiguous();
    out.insert(out.end(), f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
  }
  return out;
}

StepMetrics Trainer::advance() {
  const auto& t = config_.trainer;
  auto m = step();
  if (stop_reason_ == StopReason::Diverged) return m;
  if (step_ % t.eval_every == 0 || done()) {
    auto v = evaluate(splitName(Split::Validation));
    if (std::isfinite(v.loss)) keepGoodState();
    if (v.loss < best_validation_ - 1e-12) {
      best_validation_ = v.loss;
      evals_without_improvement_ = 0;
      if (t.restore_best) {
        torch::serialize::OutputArchive archive;
        state_->module().save(archive);
        std::ostringstream bytes;
        archive.save_to(bytes);
        state_->best_weights = bytes.str();
        best_step_ = step_;
      }
    } else if (t.patience > 0 && ++evals_without_improvement_ >= t.patience && !done()) {
      stop_reason_ = StopReason::EarlyStop;
    }
  }
  if (done() && t.restore_best && !state_->best_weights.empty() &&
      stop_reason_ != StopReason::Diverged) {
    torch::serialize::InputArchive archive;
    std::istringstream bytes(state_->best_weights);
    archive.load_from(bytes, state_->device);
    state_->module().load(archive);
    state_->optimizer->rebind();   // the load gave the parameters new storage
    state_->best_weights.clear();  // restored once; the step counters keep the steps trained
  }
  return m;
}

StopReason Trainer::run(TrainingControl* control) {
  while (!done()) {
    if (control) {
      if (control->stop.load()) {
        stop_reason_ = StopReason::Requested;
        break;
      }
      if (auto hot = control->takeHot()) applyHot(*hot);
      if (control->pause.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
    }
    advance();
  }
  return stop_reason_;
}

InspectionRecord Trainer::inspect(int64_t sample) {
  const DataSplit& split = data_->validation.size() > 0 ? data_->validation : data_->train;
  sample = std::clamp<int64_t>(sample, 0, split.size() - 1);
  InspectionRecord record;
  record.sample = 0;
  torch::NoGradGuard no_grad;
  auto x = split.x.narrow(0, sample, 1).to(state_->device);
  if (state_->seq2seq) {
    state_->seq2seq->forward(x, split.target_in.narrow(0, sample, 1).to(state_->device), &record);
  } else if (data_->objective == Objective::Regression) {
    regressionForward(x, &record,
                      split.marks.defined() ? split.marks.narrow(0, sample, 1) : torch::Tensor());
  } else {
    state_->sequence->forward(x, &record);
  }
  record.sample = sample;
  return record;
}

std::string Trainer::checkpointBytes() const {
  torch::serialize::OutputArchive root, model, optimizer;
  state_->module().save(model);
  state_->optimizer->save(optimizer);
  root.write("model", model);
  root.write("optimizer", optimizer);
  root.write("counters", torch::tensor({step_, samples_, state_->cursor}, torch::kInt64));
  root.write("seconds", torch::tensor(seconds_, torch::kFloat64));
  root.write("sampler", state_->sampler.get_state());
  if (state_->order.defined()) root.write("order", state_->order);
  std::ostringstream bytes;
  root.save_to(bytes);
  return bytes.str();
}

void Trainer::saveCheckpoint(const std::string& path) const {
  // Written to a temporary file and renamed: a kill mid-save leaves the previous checkpoint.
  writeFileAtomically(path, checkpointBytes());
}

void Trainer::loadCheckpoint(const std::string& path) {
  loadCheckpointBytes(readTextFile(path, size_t{1} << 34), path);
}

void Trainer::keepGoodState() {
  good_state_ = checkpointBytes();
  good_step_ = step_;
}

void Trainer::restoreLastGood() {
  loadCheckpointBytes(good_state_, "the last good state");
  best_validation_ = 1e300;
  evals_without_improvement_ = 0;
}

void Trainer::loadCheckpointBytes(const std::string& bytes, const std::string& source) {
  torch::serialize::InputArchive root, model, optimizer;
  torch::Tensor counters, seconds, sampler, order;
  try {
    std::istringstream in(bytes);
    root.load_from(in, state_->device);
    root.read("model", model);
    root.read("optimizer", optimizer);
    root.read("counters", counters);
    root.read("seconds", seconds);
    root.read("sampler", sampler);
    if (counters.numel() != 3 || counters.scalar_type() != torch::kInt64)
      throw std::runtime_error("counters");
  } catch (const std::exception&) {
    throw std::runtime_error("cannot read checkpoint " + source +
                             ": not a RSA Lab checkpoint or truncated");
  }
  try {
    state_->module().load(model);
    state_->optimizer->rebind();  // the load gave the parameters new storage
    state_->optimizer->load(optimizer);
  } catch (const std::exception& e) {
    throw std::runtime_error("checkpoint " + source + " does not fit this model: " + e.what());
  }
  step_ = counters[0].item<int64_t>();
  samples_ = counters[1].item<int64_t>();
  state_->cursor = counters[2].item<int64_t>();
  seconds_ = seconds.item<double>();
  state_->sampler.set_state(sampler);
  state_->order = root.try_read("order", order) ? order : torch::Tensor();
  stop_reason_ = StopReason::None;
}

}  // namespace rsalab
