// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/preset_runner.h"

namespace rsalab {

int PresetRunner::run(const Preset& preset) {
  switch (preset.action) {
    case PresetAction::Train:
      return train(preset);
    case PresetAction::Sweep:
      return sweep(preset);
    case PresetAction::Probe:
      return probe(preset);
    case PresetAction::Computed:
      return computed(preset, judgeClaim(preset.rule, {}));
    case PresetAction::PaperTable:
      return paperTable(preset);
  }
  return 1;
}

}  // namespace rsalab
