#include "engine/models/model_factory.h"

#include <stdexcept>

#include "engine/models/recurrent_model.h"
#include "engine/models/starsaber.h"
#include "engine/models/transformer.h"

namespace rsalab {

const std::vector<std::string>& modelNames() {
  static const std::vector<std::string> names = {"rnn", "lstm",   "gru",       "transformer",
                                                 "rsa", "linear", "starsaber", "encdec"};
  return names;
}

SequenceModel makeSequenceModel(const ModelOptions& options, const ModelIO& io) {
  const auto& m = options.model;
  if (m == "rnn" || m == "lstm" || m == "gru") {
    return std::make_shared<RecurrentModelImpl>(options, io);
  }
  if (m == "transformer" || m == "rsa" || m == "linear") {
    return std::make_shared<TransformerModelImpl>(options, io);
  }
  if (m == "starsaber") return std::make_shared<StarSaberModelImpl>(options, io);
  if (m == "encdec") {
    throw std::invalid_argument("encdec is a sequence-to-sequence model: use a seq2seq task");
  }
  validate(options);  // names the unknown model
  throw std::invalid_argument("model '" + m + "' is unknown");
}

EncoderDecoder makeEncoderDecoder(const ModelOptions& options, int64_t source_vocab,
                                  int64_t target_vocab) {
  return EncoderDecoder(options, source_vocab, target_vocab);
}

std::vector<ModelDescription> describeModels(const ModelOptions& base, const ModelIO& io) {
  struct Row {
    const char* name;
    const char* title;
    const char* equation;
  };
  static const Row rows[] = {
      {"rnn", "RNN (tanh)", "h_t = tanh(W_ih x_t + W_hh h_{t-1} + b)"},
      {"lstm", "LSTM", "c_t = f*c_{t-1} + i*g, h_t = o*tanh(c_t)"},
      {"gru", "GRU", "h_t = (1-z)*n + z*h_{t-1}"},
      {"transformer", "Softmax Transformer",
       "softmax(QK^T/sqrt(Dh) + mask) V, pre-LN, sinusoidal PE"},
      {"rsa", "RSA (self-attention with recurrence)",
       "((1-s(mu)) softmax(QK^T/sqrt(Dh)) + s(mu) P) V"},
      {"linear", "Linear attention (elu+1)", "phi(Q_i)^T S_i / (phi(Q_i)^T z_i + eps)"},
      {"starsaber", base.starsaber_gated ? "StarSaber (gated)" : "StarSaber",
       "h^{l+1} = h^l + a_l tanh(A^l + V^l x)"},
      {"encdec", "Encoder-decoder", "bidirectional encoder; causal decoder + cross-attention"},
  };
  std::vector<ModelDescription> out;
  for (const auto& row : rows) {
    ModelOptions o = base;
    o.model = row.name;
    ModelDescription d{row.name, row.title, row.equation, 0};
    if (o.model == "encdec") {
      const int64_t vocab = io.vocab > 0 ? io.vocab : 16;
      d.parameters = makeEncoderDecoder(o, vocab, vocab)->parameterCount();
    } else {
      d.parameters = makeSequenceModel(o, io)->parameterCount();
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace rsalab
