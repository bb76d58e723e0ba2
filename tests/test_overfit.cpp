// SPDX-License-Identifier: GPL-3.0-or-later
// The encoder-decoder fits one copy batch and decodes it greedily. (Every sequence model fitting
// one batch: the self-test's overfit checks, tests/test_selftest.cpp.)
#include "engine/models/model_factory.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

ModelOptions tiny(const std::string& model) {
  ModelOptions o;
  o.model = model;
  o.d_model = 32;
  o.heads = 4;
  o.layers = 2;
  return o;
}

// Adam on `loss_fn` until the loss is 10× below its start; returns (first, best).
template <typename LossFn>
std::pair<double, double> fit(torch::nn::Module& net, LossFn loss_fn, int max_steps, double lr) {
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(lr));
  double first = -1, best = 1e300;
  for (int step = 0; step < max_steps; ++step) {
    opt.zero_grad();
    torch::Tensor loss = loss_fn();
    loss.backward();
    opt.step();
    const double value = loss.item<double>();
    if (first < 0) first = value;
    best = std::min(best, value);
    if (best * 10 < first) break;
  }
  return {first, best};
}

}  // namespace

class TestOverfit : public QObject {
  Q_OBJECT
 private slots:
  void encoderDecoderFitsOneCopyBatch() {
    torch::manual_seed(5);
    auto net = makeEncoderDecoder(tiny("encdec"), 12, 12);
    auto src = torch::randint(2, 12, {8, 10}, torch::kInt64);
    auto bos = torch::zeros({8, 1}, torch::kInt64);
    auto tgt_in = torch::cat({bos, src.narrow(1, 0, 9)}, 1);  // teacher forcing
    auto [first, best] = fit(
        *net,
        [&] {
          auto logits = net->forward(src, tgt_in);  // (B, T, V)
          return torch::cross_entropy_loss(logits.reshape({-1, 12}), src.reshape({-1}));
        },
        400, 3e-3);
    qInfo("encdec: loss %.4f -> %.4f", first, best);
    QVERIFY(best * 10 < first);
    auto decoded = net->greedyDecode(src, 0, 10);
    QVERIFY(decoded.eq(src).to(torch::kFloat64).mean().item<double>() > 0.9);
  }
};

RSALAB_TEST_MAIN(TestOverfit)
#include "test_overfit.moc"
