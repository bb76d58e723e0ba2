// Everything that defines a run, saved as JSON (config.json) beside it so any run can be
// reproduced from its folder. The GUI edits a copy and hands it over by value on Start.
#pragma once

#include <string>

#include "engine/model_options.h"
#include "engine/tasks/task_options.h"
#include "engine/training/trainer_options.h"

namespace rsalab {

struct RunConfig {
  TaskOptions task;
  ModelOptions model;
  TrainerOptions trainer;
  int64_t train_size = 1024;   // training sequences / windows (the N of sample-efficiency curves)
  std::string device = "cpu";  // cpu | cuda[:N] | auto
};

// Throws std::invalid_argument naming the field and its range.
void validate(const RunConfig& config);

std::string toJson(const RunConfig& config);  // pretty-printed
// Parses and validates; unknown keys and wrong types are errors naming the key.
RunConfig runConfigFromJson(const std::string& text);
// Overlays the keys present in `text` onto `base` (for --config files under flags).
RunConfig mergeRunConfigJson(const RunConfig& base, const std::string& text);

}  // namespace rsalab
