// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's model-wide checks, for every model of the registry they apply to: causality
// (changing x_t changes no output before t, and changes the one at t), generation step by step
// against the full forward (KV cache, (S, z), (S, z, s), S, (C, n, m), Mamba-2's conv buffer and
// SSM state), a short overfit run (the loss of one small batch falls 10×), and each card's flags
// and FLOP count against its model's behaviour (the peer's classes: checks_peer.cpp).
#include <algorithm>

#include "engine/core/config/flops.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/memory_horizon.h"
#include "engine/core/registry/model_registry.h"
#include "engine/models/attention_makers.h"
#include "engine/models/mamba2.h"
#include "engine/models/model_factory.h"
#include "engine/models/transformer.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

// Changing x_t (B = 2, T = 24, 3 features) leaves the outputs before t as they were and changes
// the output at t, for t at the start, inside and at the end (the linear family's windows start
// before 0 for t < 6). Exact on the CPU.
CheckResult futureInputsDoNotReachPastOutputs(const std::string& model, bool gated,
                                              const torch::Device& device) {
  torch::manual_seed(11);
  auto o = smallModelOptions(model);
  o.starsaber_gated = gated;
  o.lookback = 7;
  const bool series = modelInfo(model).has(SeriesOnly);  // forecasts H = 2 steps of the 3 columns
  auto net = makeSequenceModel(o, ModelIO{3, 0, series ? 6 : 2, false});
  if (!net->causal()) return failed(model + " is not causal");
  net->to(device, torch::kFloat64);
  torch::NoGradGuard no_grad;
  const int64_t T = 24;
  auto x = torch::randn({2, T, 3}, torch::kFloat64).to(device);
  auto y = net->forward(x);
  MaxError err;
  for (int64_t t : {int64_t{0}, int64_t{5}, int64_t{13}, T - 1}) {
    auto x2 = x.clone();
    x2.select(1, t).add_(torch::randn({2, 3}, torch::kFloat64).to(device) * 3);
    auto y2 = net->forward(x2);
    err.add(y2.narrow(1, 0, t), y.narrow(1, 0, t), "outputs before " + std::to_string(t));
    const double seen = (y2.select(1, t) - y.select(1, t)).abs().max().item<double>();
    if (!(seen > 1e-9))
      return failed(model + ": the output at " + std::to_string(t) + " ignores its input");
  }
  auto r = err.result(Tolerance{0, 1e-12}.on(device));
  r.measure = "max|Δ| before t";
  return r;
}

// Generation one position at a time from position 0 equals the full forward on every prefix, in
// float64, for real-valued and token inputs; T = 40 crosses the KV cache's growth points (16, 34)
// and GLA's blocks. Mamba-2 starts with a two-token prompt.
CheckResult stepsEqualFullForward(const std::string& model, const torch::Device& device) {
  MaxError err;
  for (bool tokens : {false, true}) {
    torch::manual_seed(5);
    auto o = smallModelOptions(model);
    o.d_model = 32;
    o.layers = 3;
    o.rem = RemHeadCounts{};
    o.rem.dilated_sin = 1;
    o.dilations = {3};
    const ModelIO io{4, tokens ? 13 : 0, 5, false};
    auto net = makeSequenceModel(o, io);
    net->to(device, torch::kFloat64);
    torch::NoGradGuard no_grad;
    const int64_t T = 40;
    auto x = tokens ? torch::randint(0, 13, {3, T}, torch::kInt64)
                    : torch::randn({3, T, 4}, torch::kFloat64);
    x = x.to(device);
    const auto full = net->forward(x);  // (B, T, O)
    std::vector<torch::Tensor> steps;
    if (auto transformer = std::dynamic_pointer_cast<TransformerModelImpl>(net)) {
      GenerationState state;
      for (int64_t t = 0; t < T; ++t) steps.push_back(transformer->step(x.narrow(1, t, 1), state));
    } else if (auto mamba = std::dynamic_pointer_cast<Mamba2ModelImpl>(net)) {
      Mamba2State state;
      steps.push_back(mamba->step(x.narrow(1, 0, 2), state));  // a prompt of two
      for (int64_t t = 2; t < T; ++t) steps.push_back(mamba->step(x.narrow(1, t, 1), state));
    } else {
      return failed(model + " has no step()");
    }
    err.add(torch::cat(steps, 1), full, tokens ? "tokens" : "real-valued");
  }
  return err.result(Tolerance{1e-10, 1e-9}.on(device));
}

// Adam (lr 1e-2) on random targets of one batch (B = 8, T = 16, float32) until the loss is 10×
// below its start: error = best / first loss, at most 0.1.
CheckResult fitsOneBatch(const std::string& model, const torch::Device& device) {
  torch::manual_seed(4);
  ModelOptions o;
  o.model = model;
  o.d_model = 32;
  o.heads = 4;
  o.layers = 2;
  auto net = makeSequenceModel(o, ModelIO{2, 0, 1, false});
  net->to(device);
  auto x = torch::randn({8, 16, 2}).to(device);
  auto y = torch::randn({8, 16, 1}).to(device);  // random targets: must be memorised
  return memorises(*net, [&] { return torch::mse_loss(net->forward(x), y); });
}

}  // namespace

CheckResult memorises(torch::nn::Module& net, const std::function<torch::Tensor()>& loss) {
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(1e-2));
  double first = -1, best = 1e300;
  int steps = 0;
  for (; steps < 400 && !(best * 10 < first); ++steps) {
    opt.zero_grad();
    auto value_t = loss();
    value_t.backward();
    opt.step();
    const double value = value_t.item<double>();
    if (first < 0) first = value;
    best = std::min(best, value);
  }
  CheckResult r;
  r.measure = "best/first loss";
  r.error = best / first;
  r.tolerance = 0.1;
  r.passed = r.error < r.tolerance;
  r.detail = "loss " + std::to_string(first) + " -> " + std::to_string(best) + " in " +
             std::to_string(steps) + " steps";
  return r;
}

namespace {

// Whether changing the last input (B = 2, T = 12) changes any earlier output of `f`, a map of
// (B, T, F) float64 inputs: the behaviour behind a card's CausalOnly flag.
template <typename F>
bool seesTheFuture(F&& f, int64_t features, const torch::Device& device) {
  torch::NoGradGuard no_grad;
  const int64_t T = 12;
  auto x = torch::randn({2, T, features}, f64(device));
  auto x2 = x.clone();
  x2.select(1, T - 1).add_(torch::randn({2, features}, f64(device)) * 3);
  const torch::Tensor y = f(x), y2 = f(x2);
  return (y2.narrow(1, 0, T - 1) - y.narrow(1, 0, T - 1)).abs().max().item<double>() > 1e-9;
}

// Whether reordering the inputs before the last (B = 2, T = 12) changes the last output of `f`,
// a map of (B, T, F) float64 inputs: a map with nothing that carries position (causal softmax or
// linear attention without a positional encoding) sees its keys as a set, and gives the same last
// output (to rounding) for any order of the earlier inputs.
template <typename F>
bool tellsOrder(F&& f, int64_t features, const torch::Device& device) {
  torch::NoGradGuard no_grad;
  const int64_t T = 12;
  auto x = torch::randn({2, T, features}, f64(device));
  auto x2 = torch::cat({x.narrow(1, 0, T - 1).flip({1}), x.narrow(1, T - 1, 1)}, 1);
  const torch::Tensor y = f(x).select(1, T - 1), y2 = f(x2).select(1, T - 1);
  return (y2 - y).abs().max().item<double>() > 1e-9;
}

// Asks the model's causality and its positional information of what builds it, never through a
// flag it reads when it is built: the attention family's of its kind's registered maker (the
// attention alone, without the transformer's positional encoding and without makeSelfAttention's
// refusal), the other families' of the model.
//   - CausalOnly: its bidirectional form still lets no future input reach a past output;
//   - NoPositionalEncoding: without a positional encoding it still tells the order of its inputs
//     (its attention carries position). A card without it needs none, or has one on top.
void checkCausalityAndPosition(const ModelCard& card, ModelOptions o, const ModelIO& io,
                               const torch::Device& device, std::vector<std::string>& wrong) {
  o.causal = false;
  bool sees_future = false, tells_order = false;
  if (card.attention) {
    for (bool causal : {false, true}) {
      auto layer = makeRegisteredAttention(*card.attention, o, causal);
      layer->to(device, torch::kFloat64);
      auto f = [&](const torch::Tensor& x) { return layer->forward(x); };
      if (causal)
        tells_order = tellsOrder(f, o.d_model, device);
      else
        sees_future = seesTheFuture(f, o.d_model, device);
    }
  } else {
    auto net = makeSequenceModel(o, io);
    net->to(device, torch::kFloat64);
    auto f = [&](const torch::Tensor& x) { return net->forward(x); };
    sees_future = seesTheFuture(f, 3, device);
    tells_order = tellsOrder(f, 3, device);
  }
  if (sees_future == card.causalOnly()) {
    wrong.push_back(std::string("causal_only: its bidirectional form ") +
                    (sees_future ? "sees" : "does not see") + " the future");
  }
  if (card.has(NoPositionalEncoding) && !tells_order) {
    wrong.push_back(std::string("no_positional_encoding: without a positional encoding its ") +
                    (card.attention ? "attention" : "model") +
                    " gives the same last output for any order of the earlier inputs");
  }
}

// A card says what its model does; this check measures it, independently of the flags:
//   - CausalOnly and NoPositionalEncoding: checkCausalityAndPosition;
//   - RecordsDecays: a forward's inspection record has decaying heads (memory_horizon.h);
//   - the FLOP count (flops.h) is positive and grows with T (T = 8, 32, 128), for every card
//     that has one; only the seq2seq family has none.
CheckResult cardMatchesTheModel(const std::string& model, const torch::Device& device) {
  torch::manual_seed(7);
  const ModelCard& card = modelInfo(model);
  const bool series = card.has(SeriesOnly);
  const ModelIO io{3, 0, series ? 6 : 2, false};
  ModelOptions o = smallModelOptions(model);
  o.lookback = 5;
  std::vector<std::string> wrong;
  checkCausalityAndPosition(card, o, io, device, wrong);
  o.causal = true;
  auto net = makeSequenceModel(o, io);
  net->to(device, torch::kFloat64);
  InspectionRecord record;
  {
    torch::NoGradGuard no_grad;
    net->forward(torch::randn({1, 10, 3}, f64(device)), &record);
  }
  const bool decays = !headDecays(record).empty();
  if (decays != card.has(RecordsDecays)) {
    wrong.push_back(std::string("records_decays: its record has ") +
                    (decays ? "decaying heads" : "no decaying head"));
  }
  if (card.forward_flops) {
    double last = 0;
    for (int64_t T : {8, 32, 128}) {
      const double flops = forwardFlopsPerToken(o, io, T) * static_cast<double>(T);
      if (!(flops > last)) {
        wrong.push_back("FLOPs at T = " + std::to_string(T) + ": " + std::to_string(flops) +
                        ", not above " + std::to_string(last));
      }
      last = flops;
    }
  }
  CheckResult r;
  r.measure = "flags unlike the model";
  r.error = static_cast<double>(wrong.size());
  r.tolerance = 0;
  r.passed = wrong.empty();
  r.detail = wrong.empty()
                 ? "causal_only, no_positional_encoding, records_decays and the FLOP count agree"
                 : joined(wrong, "; ");
  return r;
}

}  // namespace

void addModelChecks(std::vector<SelfCheck>& checks) {
  // Every sequence model with per-position outputs (the forecaster family registers its own
  // causality and kv-cache checks, engine/models/informer_checks.cpp).
  for (const auto& row : modelRegistry()) {  // every such model's card against its model
    if (row.family == ModelFamily::Seq2Seq || row.has(LongHorizonOnly)) continue;
    const std::string m = row.name;
    checks.push_back({{"card", m, "card/" + m},
                      [m](const torch::Device& device) { return cardMatchesTheModel(m, device); }});
  }
  for (const auto& row : modelRegistry()) {
    if (row.family == ModelFamily::Seq2Seq || row.has(LongHorizonOnly)) continue;
    const std::string m = row.name;
    checks.push_back({{"causality", m, "causality/" + m}, [m](const torch::Device& device) {
                        return futureInputsDoNotReachPastOutputs(m, false, device);
                      }});
    if (m == "starsaber")
      checks.push_back(
          {{"causality", m, "causality/starsaber-gated"}, [m](const torch::Device& device) {
             return futureInputsDoNotReachPastOutputs(m, true, device);
           }});
  }
  // Every model that generates step by step: the attention family and the state-space models.
  for (const auto& row : modelRegistry()) {
    if (row.family != ModelFamily::Attention && row.family != ModelFamily::StateSpace) continue;
    const std::string m = row.name;
    checks.push_back({{"kv-cache", m, "kv-cache/" + m}, [m](const torch::Device& device) {
                        return stepsEqualFullForward(m, device);
                      }});
  }
}

void addOverfitChecks(std::vector<SelfCheck>& checks) {
  // The linear forecasters map a window linearly: random targets are not theirs to memorise.
  for (const auto& row : modelRegistry()) {
    if (row.family == ModelFamily::Seq2Seq || row.family == ModelFamily::Linear ||
        row.has(LongHorizonOnly))  // informer_checks.cpp: its own, with calendar marks
      continue;
    const std::string m = row.name;
    checks.push_back({{"overfit", m, "overfit/" + m},
                      [m](const torch::Device& device) { return fitsOneBatch(m, device); }});
  }
}

}  // namespace rsalab::selftest
