// The one libFuzzer harness, generic over a parse function: a reader may reject its input with
// any std::exception (that is a clear error, not a bug); a crash, a hang, a sanitizer report or
// any other exception is a finding. Each reader gets a 5-line .cpp that names its parse function:
//
//   #include "fuzz_harness.h"
//   #include "engine/some_reader.h"
//   RSALAB_FUZZ_TARGET(const std::string& text) { rsalab::parseSomething(text); }
//
// (The bundle manifest reader joins the same way once it exists: fuzz_bundle_manifest.cpp and a
// corpus/bundle_manifest/ folder; scripts/fuzz.sh builds every tests/fuzz/fuzz_*.cpp.)
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
