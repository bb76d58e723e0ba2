// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/config/trainer_options.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace rsalab {

const std::vector<HyperParameterInfo>& trainerHyperParameters() {
  using T = TrainerOptions;
  // clang-format off
  static const std::vector<HyperParameterInfo> info = {
      // name, label, unit, minimum, maximum, log scale, hot, member, flag, help, search range
      {"learning_rate", "Learning rate", "", 1e-6, 1.0, true, true, &T::learning_rate,
       "--lr", "learning rate", {1e-4, 3e-2, SearchScale::Log}},
      {"weight_decay", "Weight decay", "", 0.0, 1.0, false, true, &T::weight_decay,
       "--weight-decay", "weight decay", {1e-4, 0.3, SearchScale::Log}},
      {"grad_clip", "Gradient clip (max norm, 0 = off)", "", 0.0, 1e3, false, true,
       &T::grad_clip, "--clip", "gradient clipping max norm (0 = off)"},
      {"snapshot_every", "Snapshot interval", "steps", 0, 1e6, false, true, &T::snapshot_every},
      {"batch_size", "Batch size", "sequences", 1, 4096, true, false, &T::batch_size,
       "--batch", "batch size"},
      {"max_steps", "Max steps", "steps", 1, 1e8, true, false, &T::max_steps,
       "--steps", "training steps"},
      {"warmup_steps", "Warm-up", "steps", 0, 1e7, false, false, &T::warmup_steps,
       "--warmup", "linear warm-up steps", {0, 200, SearchScale::Linear, SearchScope::Every, 10}},
      {"lr_halve_every", "Halve the learning rate every (0 = never)", "steps", 0, 1e8, false,
       false, &T::lr_halve_every, "--lr-halve-every",
       "halve the learning rate every N steps (0 = never; Informer's budget: every epoch)"},
      {"eval_every", "Evaluate every", "steps", 1, 1e6, false, false, &T::eval_every,
       "--eval-every", "steps between validation evaluations"},
      {"patience", "Early-stop patience (0 = off)",
       "evaluations", 0, 1e4, false, false, &T::patience,
       "--patience", "early stop after this many evaluations without improvement"},
      {"max_seconds", "Wall-time budget (0 = none)", "s", 0, 1e7, false, false, &T::max_seconds,
       "--max-seconds", "wall-time budget per run (0 = none)"},
      {"optimizer", "Optimizer", "", 0, 0, false, false, &T::optimizer,
       "--optimizer", "optimizer: " + enumChoices<OptimizerKind>()},
      {"cosine", "Cosine decay", "", 0, 0, false, false, &T::cosine,
       "--cosine", "cosine learning-rate decay"},
      {"restore_best", "Restore the best weights", "", 0, 0, false, false, &T::restore_best},
      {"seed", "Seed", "", 0, 0, false, false, &T::seed, "--seed", "random seed"},
  };
  // clang-format on
  return info;
}

const HyperParameterInfo* findHyperParameter(const std::string& name) {
  for (const auto& p : trainerHyperParameters()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

TrainerOptions withHot(TrainerOptions base, const HotParameters& hot) {
  for (const auto& p : trainerHyperParameters()) {
    if (p.hot) p.set(base, p.get(hot));
  }
  return base;
}

std::optional<double> applyHotEdit(HotParameters& hot, const std::string& name, double value) {
  const auto* p = findHyperParameter(name);
  if (!p || !p->hot) return std::nullopt;
  const double before = p->get(hot);
  p->set(hot, value);
  return before;
}

void validate(const TrainerOptions& o) {
  if (!(o.learning_rate > 0)) {
    std::ostringstream s;
    s << "learning_rate = " << o.learning_rate << " must be > 0";
    throw std::invalid_argument(s.str());
  }
  checkRanges(trainerHyperParameters(), o);
}

}  // namespace rsalab
