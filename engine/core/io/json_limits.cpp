// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/json_limits.h"

#include <stdexcept>

namespace rsalab {

nlohmann::json parseJsonLimited(const std::string& text, const std::string& what,
                                const JsonLimits& limits) {
  using nlohmann::json;
  if (text.size() > limits.max_bytes) {
    throw std::invalid_argument(what + " is " + std::to_string(text.size()) +
                                " bytes; the limit is " + std::to_string(limits.max_bytes));
  }
  // The callback sees each object/array start with its depth before it is built.
  const json::parser_callback_t bound = [&](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= limits.max_depth) {
      throw std::invalid_argument(what + " nests deeper than " + std::to_string(limits.max_depth) +
                                  " levels");
    }
    return true;
  };
  try {
    return json::parse(text, bound, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    throw std::invalid_argument(what + " is not valid JSON: " + e.what());
  }
}

}  // namespace rsalab
