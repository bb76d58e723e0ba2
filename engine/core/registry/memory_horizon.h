// SPDX-License-Identifier: GPL-3.0-or-later
// Decays as memory horizons: what a head's learned decay a (per step) says about how far back it
// looks. A contribution k steps back is weighted a^k, so
//   half-life   k½ = ln ½ / ln |a|      (steps until the weight halves)
//   horizon     1 / (1 − |a|)           (Σ_k |a|^k, the effective window; RetNet's reading of γ)
// RetNet's default γ_h = 1 − 2^(−5−h) gives horizons 32, 64, 128, … : one head per octave of
// context. The decays come from inspection records: RSA's regular λ = tanh(η) and cyclical γ
// (HeadInspection lambda / gamma), RetNet's γ_h and Mamba-2's a_t = exp(Δ_t·A_h)
// (HeadInspection::decay, one value or one per token). Plain C++ (core library).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/io/inspection.h"
#include "engine/core/registry/ground_truth.h"

namespace rsalab {

// ln ½ / ln |a|: +inf for |a| ≥ 1, 0 for a = 0.
double halfLife(double decay);
// 1 / (1 − |a|): +inf for |a| ≥ 1.
double memoryHorizon(double decay);

enum class DecaySource { RsaRegular, RsaCyclical, Fixed, PerToken };

// One decaying head of a record.
struct HeadDecay {
  int64_t layer = 0, head = 0;
  DecaySource source = DecaySource::Fixed;
  // |λ| or γ (RSA), γ_h (one value), or a_t per query position (Mamba-2).
  std::vector<double> values;
  double median() const;
  double quantile(double q) const;  // linear interpolation between order statistics, q ∈ [0, 1]
  // "RSA λ", "RSA γ (cos)", "γ", "a_t over 32 tokens"
  std::string label() const;
};

// Every decaying head of the record's (encoder) layers, in layer and head order: REM heads (their
// λ or γ; a negative λ alternates in sign and decays as |λ|) and heads with a recorded decay.
std::vector<HeadDecay> headDecays(const InspectionRecord& record);

// The regular (not cyclical) decays of the record's decaying heads, in headDecays' order, a
// per-token decay by its median: RSA's regular |λ|, RetNet's γ_h, Mamba-2's median a_t.
std::vector<double> regularDecays(const InspectionRecord& record);

// The true decays a task knows, for reference lines: the regular components' |λ| and the
// cyclical ones' γ (each once), with what they are ("true λ = 0.8").
struct TrueDecay {
  double value = 0;
  std::string label;
};
std::vector<TrueDecay> trueDecays(const GroundTruth& truth);

}  // namespace rsalab
