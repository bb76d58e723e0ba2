// SPDX-License-Identifier: GPL-3.0-or-later
// The one libFuzzer harness, generic over a parse function: a reader may reject its input with
// any std::exception (that is a clear error, not a bug); a crash, a hang, a sanitizer report or
// any other exception is a finding. Each reader gets a 5-line .cpp that names its parse function:
//
//   #include "fuzz_harness.h"
//   #include "engine/some_reader.h"
//   RSALAB_FUZZ_TARGET(const std::string& text) { rsalab::parseSomething(text); }
//
// and seeds in tests/fuzz/corpus/NAME/. tests/fuzz/CMakeLists.txt (RSALAB_FUZZ=ON, clang) builds
// every tests/fuzz/fuzz_*.cpp against the sanitized core library; scripts/fuzz.sh runs them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

void rsalabFuzzParse(const std::string& text);

#define RSALAB_FUZZ_TARGET(arg)                                                \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {    \
    try {                                                                      \
      rsalabFuzzParse(std::string(reinterpret_cast<const char*>(data), size)); \
    } catch (const std::exception&) {                                          \
    }                                                                          \
    return 0;                                                                  \
  }                                                                            \
  void rsalabFuzzParse(arg)
