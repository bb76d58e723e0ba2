// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/kernels/fused_recurrent.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "engine/kernels/fused_recurrent_kernels.h"
#include "engine/kernels/row_gemm.h"

namespace rsalab {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

std::atomic<bool> direct_blas{true};

template <class S>
void stepGemm(bool trans_b, int64_t m, int64_t n, int64_t k, const S* a, int64_t lda, const S* b,
              int64_t ldb, S beta, S* c, int64_t ldc) {
  rowMajorGemm(false, trans_b, m, n, k, a, lda, b, ldb, beta, c, ldc,
               direct_blas.load(std::memory_order_relaxed));
}

// What one layer's forward keeps (time-major, contiguous): gates (T, B, G·H) activated (RNN: none,
// out is tanh of its pre-activation), out (T, B, H); LSTM: c and tanh c, GRU: hn = W_hn h + b_hn
// (T, B, H).
struct LayerTape {
  Tensor gates, out, c, tanh_c, hn;
};

// Forward time loop. tape.gates holds X W_ihᵀ + b_ih (+ b_hh for RNN and LSTM) on entry.
template <class S>
void forwardSteps(RecurrentKind kind, LayerTape& tape, const Tensor& w_hh, const Tensor& b_hh) {
  const int64_t T = tape.out.size(0), B = tape.out.size(1), H = tape.out.size(2);
  const int64_t GH = w_hh.size(0);
  const auto zeros = torch::zeros({B, GH}, tape.out.options());  // h_{−1}, c_{−1}, W_hh h_{−1}
  auto hw_buffer = kind == RecurrentKind::kGru ? torch::empty({B, GH}, tape.out.options()) : zeros;
  S* gates = tape.gates.data_ptr<S>();
  S* out = tape.out.data_ptr<S>();
  S* hw = hw_buffer.data_ptr<S>();
  const S* zero = zeros.data_ptr<S>();
  const S* w = w_hh.data_ptr<S>();  // (G·H, H)
  for (int64_t t = 0; t < T; ++t) {
    S* g = gates + t * B * GH;
    S* h = out + t * B * H;
    const S* h_prev = t > 0 ? h - B * H : zero;
    switch (kind) {
      case RecurrentKind::kLstm: {
        if (t > 0) stepGemm<S>(true, B, GH, H, h_prev, H, w, H, S(1), g, GH);  // += h W_hhᵀ
        S* c = tape.c.data_ptr<S>() + t * B * H;
        recurrent::lstmForward<S>(g, t > 0 ? c - B * H : nullptr, c,
                                  tape.tanh_c.data_ptr<S>() + t * B * H, h, B, H);
        break;
      }
      case RecurrentKind::kGru: {
        if (t > 0) stepGemm<S>(true, B, GH, H, h_prev, H, w, H, S(0), hw, GH);  // = h W_hhᵀ
        recurrent::gruForward<S>(g, t > 0 ? hw : zero, b_hh.data_ptr<S>(), h_prev,
                                 tape.hn.data_ptr<S>() + t * B * H, h, B, H);
        break;
      }
      case RecurrentKind::kRnn: {
        if (t > 0) stepGemm<S>(true, B, GH, H, h_prev, H, w, H, S(1), g, GH);
        recurrent::rnnForward<S>(g, B * H);
        std::copy(g, g + B * H, h);
        break;
      }
    }
  }
}

// Backward time loop: fills dgi (∂/∂ input-side pre-activations) and dgh (hidden side; the same
// tensor for RNN and LSTM) from grad (T, B, H).
template <class S>
void backwardSteps(RecurrentKind kind, const LayerTape& tape, const Tensor& w_hh,
                   const Tensor& grad, Tensor& dgi, Tensor& dgh) {
  const int64_t T = tape.out.size(0), B = tape.out.size(1), H = tape.out.size(2);
  const int64_t GH = w_hh.size(0);
  auto opts = tape.out.options();
  const auto zeros = torch::zeros({B, H}, opts);
  Tensor rec[2] = {torch::empty({B, H}, opts), torch::empty({B, H}, opts)};
  auto dc = kind == RecurrentKind::kLstm ? torch::zeros({B, H}, opts) : Tensor();
  const S* gates = tape.gates.data_ptr<S>();
  const S* out = tape.out.data_ptr<S>();
  const S* dout = grad.data_ptr<S>();
  const S* zero = zeros.data_ptr<S>();
  S* di = dgi.data_ptr<S>();
  S* dh = dgh.data_ptr<S>();
  const S* w = w_hh.data_ptr<S>();  // (G·H, H)
  const S* dh_rec = zero;           // ∂/∂h_t through step t+1
  for (int64_t t = T - 1; t >= 0; --t) {
    const int64_t at = t * B * H, atg = t * B * GH;
    S* next = rec[t % 2].data_ptr<S>();  // ∂/∂h_{t−1} through this step
    switch (kind) {
      case RecurrentKind::kLstm:
        recurrent::lstmBackward<S>(gates + atg, t > 0 ? tape.c.data_ptr<S>() + at - B * H : zero,
                                   tape.tanh_c.data_ptr<S>() + at, dout + at, dh_rec,
                                   dc.data_ptr<S>(), di + atg, B, H);
        if (t > 0) stepGemm<S>(false, B, H, GH, di + atg, GH, w, H, S(0), next, H);  // dG W_hh
        break;
      case RecurrentKind::kGru:
        recurrent::gruBackward<S>(gates + atg, tape.hn.data_ptr<S>() + at,
                                  t > 0 ? out + at - B * H : zero, dout + at, dh_rec, di + atg,
                                  dh + atg, next, B, H);
        if (t > 0) stepGemm<S>(false, B, H, GH, dh + atg, GH, w, H, S(1), next, H);  // dh⊙z + …
        break;
      case RecurrentKind::kRnn:
        recurrent::rnnBackward<S>(out + at, dout + at, dh_rec, di + atg, B * H);
        if (t > 0) stepGemm<S>(false, B, H, GH, di + atg, GH, w, H, S(0), next, H);
        break;
    }
    dh_rec = next;
  }
}

class FusedRecurrentLayer : public torch::autograd::Function<FusedRecurrentLayer> {
 public:
  // x: (T, B, D_in) time-major -> (T, B, H).
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& w_ih,
                        const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh,
                        int64_t kind_index) {
    const auto kind = static_cast<RecurrentKind>(kind_index);
    const auto xc = x.contiguous();
    const int64_t T = xc.size(0), B = xc.size(1), D = xc.size(2);
    const int64_t H = w_hh.size(1), GH = w_hh.size(0);
    LayerTape tape;
    tape.gates = torch::addmm(b_ih, xc.view({T * B, D}), w_ih.t()).view({T, B, GH});
    if (kind != RecurrentKind::kGru) tape.gates.add_(b_hh);
    tape.out = torch::empty({T, B, H}, xc.options());
    if (kind == RecurrentKind::kLstm) {
      tape.c = torch::empty({T, B, H}, xc.options());
      tape.tanh_c = torch::empty({T, B, H}, xc.options());
    }
    if (kind == RecurrentKind::kGru) tape.hn = torch::empty({T, B, H}, xc.options());
    const auto w_hh_c = w_hh.contiguous(), b_hh_c = b_hh.contiguous();
    if (xc.scalar_type() == torch::kDouble) {
      forwardSteps<double>(kind, tape, w_hh_c, b_hh_c);
    } else {
      forwardSteps<float>(kind, tape, w_hh_c, b_hh_c);
    }
    ctx->save_for_backward({xc, w_ih, w_hh, tape.out, tape.gates, tape.c, tape.tanh_c, tape.hn});
    ctx->saved_data["kind"] = kind_index;
    return tape.out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto kind = static_cast<RecurrentKind>(ctx->saved_data["kind"].toInt());
    const auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &w_ih = saved[1], &w_hh = saved[2];
    LayerTape tape{saved[4], saved[3], saved[5], saved[6], saved[7]};
    const int64_t T = x.size(0), B = x.size(1), D = x.size(2);
    const int64_t H = w_hh.size(1), GH = w_hh.size(0);
    const auto grad = grads[0].contiguous();
    auto dgi = torch::empty({T, B, GH}, x.options());
    auto dgh = kind == RecurrentKind::kGru ? torch::empty({T, B, GH}, x.options()) : dgi;
    const auto w_hh_c = w_hh.contiguous();
    if (x.scalar_type() == torch::kDouble) {
      backwardSteps<double>(kind, tape, w_hh_c, grad, dgi, dgh);
    } else {
      backwardSteps<float>(kind, tape, w_hh_c, grad, dgi, dgh);
    }
    const auto dgi2 = dgi.view({T * B, GH}), dgh2 = dgh.view({T * B, GH});
    Tensor dx;
    if (ctx->needs_input_grad(0)) dx = torch::mm(dgi2, w_ih).view({T, B, D});
    const auto dw_ih = torch::mm(dgi2.t(), x.view({T * B, D}));
    // dW_hh = Σ_{t ≥ 1} dG_tᵀ h_{t−1} (h_{−1} = 0).
    const auto dw_hh = T > 1 ? torch::mm(dgh2.narrow(0, B, (T - 1) * B).t(),
                                         tape.out.view({T * B, H}).narrow(0, 0, (T - 1) * B))
                             : torch::zeros_like(w_hh);
    const auto db_ih = dgi2.sum(0);
    const auto db_hh = kind == RecurrentKind::kGru ? dgh2.sum(0) : db_ih;
    return {dx, dw_ih, dw_hh, db_ih, db_hh, Tensor()};
  }
};

Tensor namedParameter(const torch::OrderedDict<std::string, Tensor>& params,
                      const std::string& name) {
  const auto* found = params.find(name);
  if (!found) throw std::logic_error("fusedRecurrent: no parameter " + name);
  return *found;
}

}  // namespace

void setFusedRecurrentDirectBlas(bool on) { direct_blas = on; }

std::vector<RecurrentLayerWeights> recurrentWeights(const torch::nn::Module& module,
                                                    int64_t layers) {
  const auto params = module.named_parameters(/*recurse=*/false);
  std::vector<RecurrentLayerWeights> out;
  for (int64_t l = 0; l < layers; ++l) {
    const auto k = "_l" + std::to_string(l);
    out.push_back({namedParameter(params, "weight_ih" + k), namedParameter(params, "weight_hh" + k),
                   namedParameter(params, "bias_ih" + k), namedParameter(params, "bias_hh" + k)});
  }
  return out;
}

bool fusedRecurrentSupports(const torch::Tensor& input,
                            const std::vector<RecurrentLayerWeights>& layers) {
  const auto type = input.scalar_type();
  if (!input.device().is_cpu() || input.layout() != torch::kStrided || input.dim() != 3 ||
      (type != torch::kFloat && type != torch::kDouble) || input.size(0) < 1 || input.size(1) < 1 ||
      layers.empty()) {
    return false;
  }
  for (const auto& w : layers) {
    for (const auto* p : {&w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh}) {
      if (!p->defined() || !p->device().is_cpu() || p->layout() != torch::kStrided ||
          p->scalar_type() != type) {
        return false;
      }
    }
  }
  return true;
}

torch::Tensor fusedRecurrent(RecurrentKind kind, const torch::Tensor& input,
                             const std::vector<RecurrentLayerWeights>& layers) {
  auto h = input.transpose(0, 1);  // (T, B, D): each step's rows contiguous
  for (const auto& w : layers) {
    h = FusedRecurrentLayer::apply(h, w.w_ih, w.w_hh, w.b_ih, w.b_hh, static_cast<int64_t>(kind));
  }
  return h.transpose(0, 1);  // (B, T, H)
}

}  // namespace rsalab
