// SPDX-License-Identifier: GPL-3.0-or-later
// The forecaster family's own self-test checks (engine/selftest/selftest_checks.h registers them),
// for informer and rsa-informer, in float64:
//   - forms/<model>-full: ProbSparse with u ≥ L (a large factor) equals softmax attention written
//     as loops, masked and not, with the REM part on RSA's heads;
//   - forms/<model>-sparse: with u < L, the same loops over the layer's own selection: the active
//     queries' softmax rows, the lazy ones' mean (or cumulative sum) of V;
//   - causality/<model>: the decoder's output at step h is unchanged when the inputs (values and
//     calendar marks) of every later placeholder change, with the selection held; with u ≥ L it
//     holds with no selection to hold; and the output at h does read placeholder h's marks;
//   - gradients/<model>: every parameter's gradient against central differences, the selection
//     held fixed (a discrete choice has no gradient);
//   - overfit/<model>: one batch of 8 windows with random targets memorised (loss / 10);
//   - kv-cache/<model>: skipped: the family forecasts all H steps in one pass, no generation step.
#include <cmath>

#include "engine/models/informer.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

constexpr int64_t kC = 3, kL = 24, kH = 6;  // columns, input length, horizon

ModelOptions informerOptions(const std::string& model, int64_t factor) {
  ModelOptions o;
  o.model = model;
  o.d_model = 8;
  o.heads = 4;
  o.layers = 2;
  o.ff_mult = 2;
  o.informer_factor = factor;
  o.label_length = 12;
  return o;
}

std::shared_ptr<InformerModelImpl> smallInformer(const std::string& model, int64_t factor,
                                                 const torch::Device& device) {
  auto net = std::make_shared<InformerModelImpl>(informerOptions(model, factor),
                                                 ModelIO{kC, 0, kH * kC, false});
  net->to(device, torch::kFloat64);
  net->setSampleSeed(17);
  return net;
}

torch::Tensor randomMarks(int64_t B, int64_t T, const torch::Device& device) {
  const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  return torch::stack({torch::randint(1, 13, {B, T}, i64), torch::randint(1, 32, {B, T}, i64),
                       torch::randint(0, 7, {B, T}, i64), torch::randint(0, 24, {B, T}, i64)},
                      2)
      .to(device);
}

// Softmax attention and the lazy rule written as loops over heads and queries, from the layer's
// q, k, v projections; `active` (B, H, Lq) bool says which queries attend.
torch::Tensor literalAttention(ProbAttentionImpl& layer, const torch::Tensor& x, bool masked,
                               const torch::Tensor& active) {
  auto p = layer.named_parameters(true);
  const auto proj = [&](const std::string& n) {
    return torch::matmul(x, p[n + ".weight"].t()) + p[n + ".bias"];
  };
  const int64_t B = x.size(0), L = x.size(1), D = x.size(2), H = active.size(1), Dh = D / H;
  auto q = proj("q"), k = proj("k"), v = proj("v");
  auto y = torch::zeros({B, L, D}, x.options());
  const int64_t R = layer.remHeads();
  torch::Tensor P, g;
  if (R > 0) {
    P = layer.named_modules("", false)["rems"]->as<RemBuilderImpl>()->build(L);
    g = layer.gate();
  }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const auto cols = torch::indexing::Slice(h * Dh, (h + 1) * Dh);
      for (int64_t i = 0; i < L; ++i) {
        const int64_t last = masked ? i : L - 1;
        auto vs = v.index({b, torch::indexing::Slice(0, last + 1), cols});  // (keys, Dh)
        torch::Tensor row;
        if (active[b][h][i].item<bool>()) {
          const auto s = torch::mv(k.index({b, torch::indexing::Slice(0, last + 1), cols}),
                                   q.index({b, i, cols})) /
                         std::sqrt(static_cast<double>(Dh));
          row = torch::mv(vs.t(), torch::softmax(s, 0));
        } else {
          row = masked ? vs.sum(0) : v.index({b, torch::indexing::Slice(), cols}).mean(0);
        }
        if (h < R) {
          const double gh = g[h].item<double>();
          row = (1 - gh) * row +
                gh * torch::mv(v.index({b, torch::indexing::Slice(), cols}).t(), P[h][i]);
        }
        y.index_put_({b, i, cols}, row);
      }
    }
  return torch::matmul(y, p["out.weight"].t()) + p["out.bias"];
}

CheckResult formsAgree(const std::string& model, bool sparse, const torch::Device& device) {
  torch::manual_seed(21);
  const bool rsa = model == "rsa-informer";
  MaxError err;
  for (bool masked : {false, true}) {
    const int64_t factor = sparse ? 1 : 100;  // u = ⌈ln 20⌉ = 3 of 20, or every query
    const RemHeadCounts rems =
        rsa ? RemHeadCounts{1, 1, 1, 0, 0, 0} : RemHeadCounts{0, 0, 0, 0, 0, 0};
    ProbAttentionImpl layer(8, 4, factor, masked, true, rems);
    layer.to(device, torch::kFloat64);
    layer.holdSelection(true);
    torch::NoGradGuard no_grad;
    const auto x = randn64({2, 20, 8}, device);
    const auto y = layer.forward(x);
    auto active = torch::ones({2, 4, 20}, torch::TensorOptions().dtype(torch::kBool));
    if (sparse) {
      const auto top = layer.heldSelection();
      if (!top.defined() || top.size(2) != 3) return failed("no selection of 3 queries was held");
      active = torch::zeros({2, 4, 20}, torch::kBool).scatter(2, top.cpu(), true);
    }
    err.add(y, literalAttention(layer, x, masked, active.to(device)),
            std::string(masked ? "masked" : "unmasked") + (rsa ? " with REMs" : ""));
  }
  return err.result(kForms.on(device));
}

// The decoder's outputs before step h against a run whose later placeholders differ.
CheckResult placeholdersAreCausal(const std::string& model, const torch::Device& device) {
  torch::manual_seed(5);
  MaxError err;
  const int64_t label = 12, T = label + kH;
  for (int64_t factor : {int64_t{1}, int64_t{100}}) {
    auto net = smallInformer(model, factor, device);
    net->eval();
    net->holdSelection(factor == 1);
    torch::NoGradGuard no_grad;
    const auto x = randn64({2, kL, kC}, device), m = randomMarks(2, kL, device);
    auto x_dec = randn64({2, T, kC}, device);
    auto m_dec = randomMarks(2, T, device);
    const auto y = net->decode(x, m, x_dec, m_dec);
    for (int64_t h : {int64_t{0}, int64_t{3}, kH - 2}) {
      const int64_t t = label + h;  // the placeholder of step h
      auto x2 = x_dec.clone(), m2 = m_dec.clone();
      x2.narrow(1, t + 1, T - t - 1).add_(randn64({2, T - t - 1, kC}, device) * 3);
      m2.narrow(1, t + 1, T - t - 1).copy_(randomMarks(2, T - t - 1, device));
      const auto y2 = net->decode(x, m, x2, m2);
      err.add(y2.narrow(1, 0, t + 1), y.narrow(1, 0, t + 1),
              "steps <= " + std::to_string(h) + (factor == 1 ? " (selection held)" : " (u >= L)"));
      auto m3 = m_dec.clone();
      m3.select(1, t).select(1, 3).copy_((m_dec.select(1, t).select(1, 3) + 1) % 24);
      if (!((net->decode(x, m, x_dec, m3).select(1, t) - y.select(1, t))
                .abs()
                .max()
                .item<double>() > 1e-9))
        return failed(model + ": step " + std::to_string(h) + " ignores its own calendar marks");
    }
  }
  auto r = err.result(Tolerance{1e-12, 1e-12}.on(device));
  r.measure = "max|Δ| before h";
  return r;
}

CheckResult gradientsAgree(const std::string& model, const torch::Device& device) {
  torch::manual_seed(9);
  auto net = smallInformer(model, 1, device);
  net->holdSelection(true);
  const auto x = randn64({3, kL, kC}, device);
  const auto marks = randomMarks(3, kL + kH, device);
  const auto w = randn64({3, 1, kH * kC}, device);
  MaxError err;
  compareGradients(
      namedParameters(*net), [&] { return (net->forwardMarked(x, marks) * w).sum(); }, err, "",
      /*entries=*/3);
  return err.result(kGradients.on(device));
}

CheckResult memorisesOneBatch(const std::string& model, const torch::Device& device) {
  torch::manual_seed(4);
  auto o = informerOptions(model, 5);
  o.d_model = 32;
  auto net = std::make_shared<InformerModelImpl>(o, ModelIO{2, 0, 4 * 2, false});
  net->to(device);
  const auto x = torch::randn({8, 16, 2}).to(device);
  const auto marks = randomMarks(8, 20, device);
  const auto y = torch::randn({8, 1, 8}).to(device);  // random targets: must be memorised
  return memorises(*net, [&] { return torch::mse_loss(net->forwardMarked(x, marks), y); });
}

CheckResult noGenerationStep(const torch::Device&) {
  return skipped("the forecaster family forecasts a window's H steps in one pass: no step");
}

#define RSALAB_FORECASTER_CHECKS(model, id)                                                       \
  [[maybe_unused]] const bool kFormsFull_##id =                                                   \
      registerModelCheck("forms", model, "forms/" model "-full",                                  \
                         [](const torch::Device& d) { return formsAgree(model, false, d); });     \
  [[maybe_unused]] const bool kFormsSparse_##id =                                                 \
      registerModelCheck("forms", model, "forms/" model "-sparse",                                \
                         [](const torch::Device& d) { return formsAgree(model, true, d); });      \
  [[maybe_unused]] const bool kCausal_##id =                                                      \
      registerModelCheck("causality", model, "causality/" model,                                  \
                         [](const torch::Device& d) { return placeholdersAreCausal(model, d); }); \
  [[maybe_unused]] const bool kGradients_##id =                                                   \
      registerModelCheck("gradients", model, "gradients/" model,                                  \
                         [](const torch::Device& d) { return gradientsAgree(model, d); });        \
  [[maybe_unused]] const bool kOverfit_##id =                                                     \
      registerModelCheck("overfit", model, "overfit/" model,                                      \
                         [](const torch::Device& d) { return memorisesOneBatch(model, d); });     \
  [[maybe_unused]] const bool kStep_##id =                                                        \
      registerModelCheck("kv-cache", model, "kv-cache/" model, noGenerationStep);

RSALAB_FORECASTER_CHECKS("informer", informer)
RSALAB_FORECASTER_CHECKS("rsa-informer", rsa_informer)

}  // namespace

}  // namespace rsalab::selftest
