#include "core/config/trainer_options.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace rsalab {

const std::vector<HyperParameterInfo>& trainerHyperParameters() {
  static const std::vector<HyperParameterInfo> info = {
      {"learning_rate", "Learning rate", "", 1e-6, 1.0, true, true},
      {"weight_decay", "Weight decay", "", 0.0, 1.0, false, true},
      {"grad_clip", "Gradient clip (max norm, 0 = off)", "", 0.0, 1e3, false, true},
      {"snapshot_every", "Snapshot interval", "steps", 0, 1e6, false, true},
      {"batch_size", "Batch size", "sequences", 1, 4096, true, false},
      {"max_steps", "Max steps", "steps", 1, 1e8, true, false},
      {"warmup_steps", "Warm-up", "steps", 0, 1e7, false, false},
      {"eval_every", "Evaluate every", "steps", 1, 1e6, false, false},
      {"patience", "Early-stop patience (0 = off; never in the first quarter of max steps)",
       "evaluations", 0, 1e4, false, false},
      {"max_seconds", "Wall-time budget (0 = none)", "s", 0, 1e7, false, false},
  };
  return info;
}

namespace {
void inRange(const std::string& name, double value) {
  for (const auto& p : trainerHyperParameters()) {
    if (p.name != name) continue;
    if (!std::isfinite(value) || value < p.minimum || value > p.maximum) {
      std::ostringstream s;
      s << name << " = " << value << " is out of range: " << p.minimum << ".." << p.maximum;
      throw std::invalid_argument(s.str());
    }
  }
}
}  // namespace

void validate(const TrainerOptions& o) {
  if (o.optimizer != "adam" && o.optimizer != "adamw") {
    throw std::invalid_argument("optimizer '" + o.optimizer + "' is unknown: use adam or adamw");
  }
  if (!(o.learning_rate > 0)) {
    std::ostringstream s;
    s << "learning_rate = " << o.learning_rate << " must be > 0";
    throw std::invalid_argument(s.str());
  }
  inRange("learning_rate", o.learning_rate);
  inRange("weight_decay", o.weight_decay);
  inRange("grad_clip", o.grad_clip);
  inRange("snapshot_every", static_cast<double>(o.snapshot_every));
  inRange("batch_size", static_cast<double>(o.batch_size));
  inRange("max_steps", static_cast<double>(o.max_steps));
  inRange("warmup_steps", static_cast<double>(o.warmup_steps));
  inRange("eval_every", static_cast<double>(o.eval_every));
  inRange("patience", static_cast<double>(o.patience));
  inRange("max_seconds", o.max_seconds);
}

}  // namespace rsalab
