// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness for the run-config loader (engine/core/config/run_config.cpp: bounded JSON
// parse, typed fields, unknown keys, then validate()); whatever it accepts must round-trip through
// toJson.
#include "engine/core/config/run_config.h"
#include "fuzz_harness.h"

RSALAB_FUZZ_TARGET(const std::string& text) {
  const rsalab::RunConfig config = rsalab::runConfigFromJson(text);  // may reject: fine
  const std::string again = rsalab::toJson(config);
  try {
    if (rsalab::toJson(rsalab::runConfigFromJson(again)) == again) return;
  } catch (const std::exception&) {
  }
  __builtin_trap();  // an accepted config must load again, unchanged
}
