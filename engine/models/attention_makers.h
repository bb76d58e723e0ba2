// SPDX-License-Identifier: GPL-3.0-or-later
// The registered attention makers as they are (transformer.h's registerAttentionMaker), for the
// self-test: it asks a maker for the bidirectional form of every attention card's kind and
// compares what it gets with the card's CausalOnly flag. Models are built by makeSelfAttention.
#pragma once

#include "engine/models/attention.h"

namespace rsalab {

// The attention the maker registered for `kind` builds for `causal`, without makeSelfAttention's
// refusal of a CausalOnly card's bidirectional form. Throws std::invalid_argument for a kind
// without a maker.
SelfAttention makeRegisteredAttention(AttentionKind kind, const ModelOptions& options, bool causal);

}  // namespace rsalab
