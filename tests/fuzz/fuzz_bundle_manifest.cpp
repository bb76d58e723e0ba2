// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness for the session bundle's manifest reader
// (engine/core/session/session_bundle.cpp: version, required keys, types, sizes, duplicate ids, the
// embedded RunConfig) and the sweep rows a sweep session carries; whatever the manifest reader
// accepts must survive a second parse.
#include "engine/core/session/session_bundle.h"
#include "fuzz_harness.h"

RSALAB_FUZZ_TARGET(const std::string& text) {
  try {
    rsalab::parseSessionSweepRows(text);  // may reject: fine
  } catch (const std::exception&) {
  }
  const rsalab::SessionBundle bundle = rsalab::parseSessionManifest(text);  // may reject: fine
  if (bundle.runs.size() > 4096) __builtin_trap();  // the documented limit (4096 runs) held
}
