// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/model_factory.h"

#include <stdexcept>

#include "engine/core/config/model_variant.h"
#include "engine/models/informer.h"
#include "engine/models/linear_forecasters.h"
#include "engine/models/mamba2.h"
#include "engine/models/recurrent_model.h"
#include "engine/models/starsaber.h"
#include "engine/models/transformer.h"

namespace rsalab {

SequenceModel makeSequenceModel(const ModelOptions& variant, const ModelIO& io) {
  const ModelOptions options = withVariant(variant);  // a named variant's overrides written in
  switch (modelInfo(options.model).family) {  // throws naming an unknown model and the known ones
    case ModelFamily::Recurrent:
      return std::make_shared<RecurrentModelImpl>(options, io);
    case ModelFamily::Attention:
      return std::make_shared<TransformerModelImpl>(options, io);
    case ModelFamily::FixedPoint:
      return std::make_shared<StarSaberModelImpl>(options, io);
    case ModelFamily::Linear:
      return makeLinearForecaster(options, io);
    case ModelFamily::StateSpace:
      return std::make_shared<Mamba2ModelImpl>(options, io);
    case ModelFamily::Forecaster:
      return makeInformer(options, io);
    case ModelFamily::Seq2Seq:
      break;
  }
  throw std::invalid_argument(options.model +
                              " is a sequence-to-sequence model: use a seq2seq task");
}

EncoderDecoder makeEncoderDecoder(const ModelOptions& options, int64_t source_vocab,
                                  int64_t target_vocab) {
  return EncoderDecoder(withVariant(options), source_vocab, target_vocab);
}

std::vector<ModelDescription> describeModels(const ModelOptions& base, const ModelIO& io) {
  std::vector<ModelDescription> out;
  for (const auto& row : modelRegistry()) {
    ModelOptions o = base;
    o.model = row.name;
    std::string title = row.title;
    if (row.family == ModelFamily::FixedPoint && base.starsaber_gated) title += ", gated";
    ModelDescription d{row.name, title, row.equation, 0};
    if (row.family == ModelFamily::Seq2Seq) {
      const int64_t vocab = io.vocab > 0 ? io.vocab : 16;
      d.parameters = makeEncoderDecoder(o, vocab, vocab)->parameterCount();
    } else if (row.has(SeriesOnly) &&
               (io.vocab > 0 || io.pooled || io.output_dim % io.input_dim != 0)) {
      // A series-only model on an IO it refuses: counted for a one-step forecast of the columns.
      d.parameters = makeSequenceModel(o, ModelIO{io.input_dim, 0, io.input_dim})->parameterCount();
    } else {
      d.parameters = makeSequenceModel(o, io)->parameterCount();
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace rsalab
