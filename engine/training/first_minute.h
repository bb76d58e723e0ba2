// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI's first minute, headless: the default launch (defaultLaunchConfig(), the registry's
// default models) trained for the step count the GUI reaches in 60 s on 2 cores, over several
// seeds, with one intra-op thread per run as the GUI's worker uses on 2 cores (so the numbers are
// the window's, seed for seed). `rsalab-cli first-minute` prints the table and writes it into
// README.md and resources/first_minute.json (engine/core/verdicts/first_minute_table.h); a test
// keeps them in step.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/verdicts/first_minute_table.h"

namespace rsalab {

// Trains every model × seed (seeds base.trainer.seed + 0 … seeds − 1) on `config` until step
// `steps` or its own stop, `parallel` runs at a time (0: one per core), one intra-op thread each.
// A model of `per_model` trains at its own configuration there (seed still set per run).
std::vector<FirstMinuteRun> runFirstMinute(const RunConfig& config,
                                           const std::vector<std::string>& models, int64_t seeds,
                                           int64_t steps, int64_t parallel = 0,
                                           const std::map<std::string, RunConfig>& per_model = {});

}  // namespace rsalab
