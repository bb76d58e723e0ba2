// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/model_card_json.h"

namespace rsalab {

nlohmann::json modelCardJson(const ModelCard& card) {
  nlohmann::json flags = nlohmann::json::object();
  for (ModelFlag flag : kModelFlags) flags[modelFlagName(flag)] = card.has(flag);
  return {{"name", card.name},
          {"title", card.title},
          {"family", modelFamilyName(card.family)},
          {"attention",
           card.attention ? nlohmann::json(attentionKindName(*card.attention)) : nlohmann::json()},
          {"cell", card.cell ? nlohmann::json(enumName(*card.cell)) : nlohmann::json()},
          {"paper",
           {{"authors", card.paper.authors},
            {"title", card.paper.title},
            {"venue", card.paper.venue},
            {"arxiv", card.paper.arxiv}}},
          {"equation", card.equation},
          {"flags", flags}};
}

}  // namespace rsalab
