// SPDX-License-Identifier: GPL-3.0-or-later
// A model card as JSON: the one writer, for `rsalab-cli models --json` (which adds each model's
// parameter count) and the self-test's peer checks (which hand the cards to bench/peer/cards.py).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/core/registry/model_card.h"

namespace rsalab {

// {"name", "title", "family", "attention" (kind name or null), "cell" (or null), "paper":
//  {"authors", "title", "venue", "arxiv"}, "equation", "flags": {modelFlagName: bool, …}}
nlohmann::json modelCardJson(const ModelCard& card);

}  // namespace rsalab
