// SPDX-License-Identifier: GPL-3.0-or-later
// Running a preset (engine/core/verdicts/presets.h): the one place that decides, from the preset's
// action, whether it trains, sweeps, computes or measures. The GUI (app/gui/preset_controller.h)
// and rsalab-cli (app/cli/cmd_train.cpp, app/cli/cmd_sweep.cpp) derive from it and say how each is
// done there; what judges the result is the preset's claim rule (engine/core/verdicts/claims.h).
#pragma once

#include <vector>

#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/presets.h"

namespace rsalab {

class PresetRunner {
 public:
  virtual ~PresetRunner() = default;
  // Runs `preset` by its action; returns what that step returns (0: started or done; otherwise
  // an exit code, or 1 for "did not start").
  int run(const Preset& preset);

 protected:
  // Train the preset's models on its config; judge later with judgeClaim on the run's record.
  virtual int train(const Preset& preset) = 0;
  // Run the preset's sweep (Preset::sweepOptions); judge later on its rows.
  virtual int sweep(const Preset& preset) = 0;
  // Measure (the generation probe) and judge what was measured.
  virtual int probe(const Preset& preset) = 0;
  // Nothing runs: the claim was judged now; `verdicts` are its rule's verdicts.
  virtual int computed(const Preset& preset, const std::vector<ClaimVerdict>& verdicts) = 0;
  // Run the RSA paper's table (engine/sweep/paper_table_run.h); judge later on its runs.
  virtual int paperTable(const Preset& preset) = 0;
};

}  // namespace rsalab
