// SPDX-License-Identifier: GPL-3.0-or-later
// Builds models by name and describes them for `rsalab-cli models`. Which models exist, their
// titles, equations and families are rows of the registry (engine/core/registry/model_registry.h);
// this file only maps a family to the class that implements it.
#pragma once

#include <string>
#include <vector>

#include "engine/core/registry/model_registry.h"
#include "engine/models/encoder_decoder.h"
#include "engine/models/sequence_model.h"

namespace rsalab {

struct ModelDescription {
  std::string name;        // as given to --model
  std::string title;       // human name
  std::string equation;    // the seed paper's equation, one line
  int64_t parameters = 0;  // for the options and IO given to describeModels
};

// Sequence models (every family but seq2seq). Throws std::invalid_argument for bad options and
// for a seq2seq model (use makeEncoderDecoder).
SequenceModel makeSequenceModel(const ModelOptions& options, const ModelIO& io);
// Encoder–decoder over token vocabularies.
EncoderDecoder makeEncoderDecoder(const ModelOptions& options, int64_t source_vocab,
                                  int64_t target_vocab);
// One line per registry row, in its order, with its parameter count for `base` (model field
// replaced per row); the seq2seq family uses io.vocab (or 16) for both vocabularies, and a
// series-only row, given an IO it refuses, a one-step forecast of io.input_dim columns.
std::vector<ModelDescription> describeModels(const ModelOptions& base, const ModelIO& io);

}  // namespace rsalab
