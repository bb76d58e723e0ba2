// SPDX-License-Identifier: GPL-3.0-or-later
// Bounded JSON parsing for files a user hands us (configs, manifests): the input size and the
// nesting depth are limited before nlohmann-json builds anything, and every failure is a
// std::invalid_argument that names the input. Torch-free (the fuzz harnesses use it).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace rsalab {

struct JsonLimits {
  size_t max_bytes = size_t{1} << 20;  // 1 MiB
  int max_depth = 32;                  // nested objects/arrays
};

// `what` names the input in messages ("config", a file name). Comments are allowed.
nlohmann::json parseJsonLimited(const std::string& text, const std::string& what,
                                const JsonLimits& limits = {});

}  // namespace rsalab
