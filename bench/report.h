// SPDX-License-Identifier: GPL-3.0-or-later
// The bench's report: the targets table (every ratio taken within this run) and the JSON file
// (nlohmann ordered_json: keys in the order the sections ran; docs/PERFORMANCE.md reads them).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/sections.h"

namespace rsalab::bench {

using Json = nlohmann::ordered_json;

// What the sections returned; a section that did not run leaves its part empty.
struct Results {
  std::optional<std::vector<GemmResult>> gemm;
  double peak_flops = 0;       // max of the float32 GEMM medians: MFU
  double peak_bf16_flops = 0;  // max of the bfloat16 GEMM medians: MFU vs bf16 (JSON only)
  std::optional<std::vector<TrainResult>> train;
  std::vector<PairedRatio> ratios;
  std::optional<std::vector<Breakdown>> breakdown;
  std::optional<std::vector<RemResult>> rems;
  std::optional<std::vector<ScalingResult>> scaling;
  std::optional<std::vector<GenerationResult>> generation;
  std::optional<std::vector<LeverResult>> levers;
  std::optional<SweepTiming> sweep;
};

// {"median", "min", "max", "q1", "q3", "n"}, values times `scale`.
Json statsJson(const Stats& s, double scale = 1);

// The sections' keys (gemm, train, breakdown, rsa_over_softmax, rem_build, attention_scaling,
// generation, levers, sweep), each present when its section ran.
void addResults(Json& root, const Results& r);

// Prints the targets table and returns its rows (name, value, op, threshold, met).
Json reportTargets(const Results& r);

// Writes `root` to `path` (parent folders created). False with a message on std::cerr on failure.
bool writeJson(const std::string& path, const Json& root);

}  // namespace rsalab::bench
