// Builds models by name and describes them for `rsalab-cli models`.
#pragma once

#include <string>
#include <vector>

#include "engine/models/encoder_decoder.h"
#include "engine/models/sequence_model.h"

namespace rsalab {

struct ModelDescription {
  std::string name;        // as given to --model
  std::string title;       // human name
  std::string equation;    // the seed's equation, one line
  int64_t parameters = 0;  // for the options and IO given to describeModels
};

// Every model name: rnn, lstm, gru, transformer, rsa, linear, starsaber, encdec.
const std::vector<std::string>& modelNames();
// Sequence models (all but encdec). Throws std::invalid_argument for bad options.
SequenceModel makeSequenceModel(const ModelOptions& options, const ModelIO& io);
// Encoder–decoder over token vocabularies.
EncoderDecoder makeEncoderDecoder(const ModelOptions& options, int64_t source_vocab,
                                  int64_t target_vocab);
// One line per model with its parameter count for `base` (model field replaced per row); the
// encoder–decoder uses io.vocab (or 16) for both vocabularies.
std::vector<ModelDescription> describeModels(const ModelOptions& base, const ModelIO& io);

}  // namespace rsalab
