// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/recurrent_model.h"

#include <stdexcept>

namespace rsalab {

RecurrentModelImpl::RecurrentModelImpl(const ModelOptions& options, const ModelIO& io)
    : SequenceModelImpl(options, io) {
  registerIoLayers(options_.d_model);
  const int64_t D = options_.d_model, L = options_.layers;
  const auto cell = modelInfo(options_.model).cell;  // the registry's cell column
  if (cell == RecurrentCell::Rnn) {
    rnn_ = register_module(
        "rnn",
        torch::nn::RNN(torch::nn::RNNOptions(D, D).num_layers(L).batch_first(true).nonlinearity(
            torch::kTanh)));
  } else if (cell == RecurrentCell::Lstm) {
    kind_ = RecurrentKind::kLstm;
    lstm_ = register_module(
        "lstm", torch::nn::LSTM(torch::nn::LSTMOptions(D, D).num_layers(L).batch_first(true)));
  } else if (cell == RecurrentCell::Gru) {
    kind_ = RecurrentKind::kGru;
    gru_ = register_module(
        "gru", torch::nn::GRU(torch::nn::GRUOptions(D, D).num_layers(L).batch_first(true)));
  } else {
    throw std::invalid_argument("RecurrentModel: model '" + options_.model +
                                "' has no recurrent cell");
  }
}

torch::Tensor RecurrentModelImpl::runModule(const torch::Tensor& input) {
  if (fused_) {
    const torch::nn::Module& module = rnn_    ? static_cast<const torch::nn::Module&>(*rnn_)
                                      : lstm_ ? static_cast<const torch::nn::Module&>(*lstm_)
                                              : static_cast<const torch::nn::Module&>(*gru_);
    const auto layers = recurrentWeights(module, options_.layers);
    if (fusedRecurrentSupports(input, layers)) return fusedRecurrent(kind_, input, layers);
  }
  if (rnn_) return std::get<0>(rnn_->forward(input));    // (B, T, D)
  if (lstm_) return std::get<0>(lstm_->forward(input));  // (B, T, D)
  return std::get<0>(gru_->forward(input));              // (B, T, D)
}

torch::Tensor RecurrentModelImpl::weight(const std::string& name, int64_t layer) const {
  const auto full = name + "_l" + std::to_string(layer);
  for (const auto& item : named_parameters(/*recurse=*/true)) {
    const auto& key = item.key();
    if (key.size() >= full.size() &&
        key.compare(key.size() - full.size(), full.size(), full) == 0 &&
        (key.size() == full.size() || key[key.size() - full.size() - 1] == '.')) {
      return item.value();
    }
  }
  throw std::logic_error("RecurrentModel: no parameter " + full);
}

torch::Tensor RecurrentModelImpl::runCells(const torch::Tensor& input,
                                           const InspectionObserver& observe) {
  const auto B = input.size(0), T = input.size(1), D = options_.d_model;
  auto layer_input = input;  // (B, T, D_in)
  for (int64_t l = 0; l < options_.layers; ++l) {
    auto w_hh = weight("weight_hh", l), b_hh = weight("bias_hh", l);
    // Input contributions for all steps at once: x W_ihᵀ + b_ih.
    auto xw = torch::matmul(layer_input, weight("weight_ih", l).t()) +
              weight("bias_ih", l);  // (B, T, G·D)
    auto h = torch::zeros({B, D}, input.options());
    auto c = torch::zeros({B, D}, input.options());
    std::vector<torch::Tensor> outputs;
    std::vector<std::vector<torch::Tensor>> traces;  // per gate, per step: (B, D)
    for (int64_t t = 0; t < T; ++t) {
      auto xt = xw.select(1, t);                    // (B, G·D)
      auto hw = torch::matmul(h, w_hh.t()) + b_hh;  // (B, G·D)
      std::vector<torch::Tensor> step_gates;
      if (lstm_) {
        auto g = (xt + hw).chunk(4, 1);
        auto i = torch::sigmoid(g[0]), f = torch::sigmoid(g[1]);
        auto gg = torch::tanh(g[2]), o = torch::sigmoid(g[3]);
        c = f * c + i * gg;      // c_t = f⊙c_{t−1} + i⊙g
        h = o * torch::tanh(c);  // h_t = o⊙tanh(c_t)
        step_gates = {i, f, gg, o};
      } else if (gru_) {
        auto gi = xt.chunk(3, 1), gh = hw.chunk(3, 1);
        auto r = torch::sigmoid(gi[0] + gh[0]), z = torch::sigmoid(gi[1] + gh[1]);
        auto n = torch::tanh(gi[2] + r * gh[2]);  // n = tanh(W_in x + r⊙(W_hn h + b_hn))
        h = (1 - z) * n + z * h;                  // h_t = (1−z)⊙n + z⊙h_{t−1}
        step_gates = {r, z, n};
      } else {
        h = torch::tanh(xt + hw);  // h_t = tanh(W_ih x + W_hh h)
      }
      outputs.push_back(h);
      if (observe) {
        traces.resize(step_gates.size());
        for (size_t k = 0; k < step_gates.size(); ++k) traces[k].push_back(step_gates[k]);
      }
    }
    layer_input = torch::stack(outputs, 1);  // (B, T, D)
    if (observe && !traces.empty()) {
      const std::vector<std::string> names = lstm_ ? std::vector<std::string>{"i", "f", "g", "o"}
                                                   : std::vector<std::string>{"r", "z", "n"};
      std::vector<torch::Tensor> values;  // per gate: (B, T, D)
      for (const auto& trace : traces) values.push_back(torch::stack(trace, 1));
      observe.gates(l, names, values);
    }
  }
  return layer_input;
}

torch::Tensor RecurrentModelImpl::forward(const torch::Tensor& x, InspectionRecord* record) {
  auto input = embed(x);  // (B, T, D)
  if (!record) return head(runModule(input), x);
  return head(runCells(input, InspectionObserver(record, options_.model, 0)), x);
}

}  // namespace rsalab
