// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/rsa_attention.h"

#include <stdexcept>

namespace rsalab {

RsaAttentionImpl::RsaAttentionImpl(int64_t d_model, int64_t heads, bool causal,
                                   const RemHeadCounts& counts,
                                   const std::vector<int64_t>& dilations, const RemInit& init)
    : SoftmaxAttentionImpl(d_model, heads, causal) {
  auto specs = assignRemHeads(counts, dilations);
  if (static_cast<int64_t>(specs.size()) > heads) {
    throw std::invalid_argument("REM head counts sum to " + std::to_string(specs.size()) +
                                " but there are only heads = " + std::to_string(heads));
  }
  const auto R = static_cast<int64_t>(specs.size());
  rems_ = register_module("rems", RemBuilder(std::move(specs), init, causal));
  mu = register_parameter("mu", torch::full({R}, init.mu), /*requires_grad=*/init.learn_gate);
}

torch::Tensor RsaAttentionImpl::remMatrices(int64_t query_offset, int64_t Tq, int64_t Tk,
                                            const torch::Tensor& like) {
  // REMs depend only on positions and scalars: built once for all batch elements.
  torch::Tensor P;
  if (query_offset == 0 && Tq == Tk) {
    P = rems_->build(Tq);  // (R, T, T)
  } else {
    auto opts = torch::TensorOptions().dtype(torch::kInt64).device(like.device());
    auto rows = torch::arange(query_offset, query_offset + Tq, opts);
    auto cols = torch::arange(Tk, opts);
    P = rems_->build(rows.unsqueeze(1) - cols.unsqueeze(0));  // (R, Tq, Tk)
  }
  return P.to(like.scalar_type());
}

torch::Tensor RsaAttentionImpl::mix(const torch::Tensor& y, const torch::Tensor& v,
                                    const torch::Tensor& P) {
  const int64_t R = rems_->size();
  const auto B = v.size(0), Tq = P.size(1), Tk = P.size(2), Dh = v.size(3);
  // P_h V_h for the REM heads as one bmm over heads, batch folded into the columns.
  auto v_rem = v.narrow(1, 0, R).permute({1, 2, 0, 3}).reshape({R, Tk, B * Dh});  // (R, Tk, B·Dh)
  auto pv = torch::bmm(P, v_rem).view({R, Tq, B, Dh}).permute({2, 0, 1, 3});      // (B, R, Tq, Dh)
  auto g = gate().to(y.scalar_type()).view({1, R, 1, 1});                         // (1, R, 1, 1)
  auto mixed = (1 - g) * y.narrow(1, 0, R) + g * pv;                              // (B, R, Tq, Dh)
  if (R == heads_) return mixed;
  return torch::cat({mixed, y.narrow(1, R, heads_ - R)}, /*dim=*/1);  // (B, H, Tq, Dh)
}

RemMixing RsaAttentionImpl::remMixing(int64_t T, const torch::Tensor& like) {
  if (rems_->size() == 0) return {};
  return {rems_->diagonals(T).to(like.scalar_type()),
          gate().to(like.scalar_type())};  // (R, 2T−1), (R)
}

torch::Tensor RsaAttentionImpl::attend(const torch::Tensor& probs, const torch::Tensor& v,
                                       int64_t query_offset, LayerInspection* record,
                                       int64_t sample) {
  auto y = SoftmaxAttentionImpl::attend(probs, v, query_offset, record, sample);  // (B, H, Tq, Dh)
  const int64_t R = rems_->size();
  if (R == 0) return y;
  auto P = remMatrices(query_offset, probs.size(2), probs.size(3), probs);  // (R, Tq, Tk)
  auto out = mix(y, v, P);                                                  // (B, H, Tq, Dh)
  if (record) {
    auto base = rems_->base().detach().cpu();
    auto theta = rems_->theta().detach().cpu();
    auto gates = gate().detach().cpu();
    for (int64_t h = 0; h < R; ++h) {
      auto& head = record->heads[static_cast<size_t>(h)];
      const auto& spec = rems_->specs()[static_cast<size_t>(h)];
      const double gh = gates[h].item<double>();
      head.softmax_part = head.attention;
      head.rem = toMatrix(P[h]);
      head.attention = toMatrix((1 - gh) * probs[sample][h] + gh * P[h]);
      head.has_rem = true;
      head.rem_kind = spec.kind;
      head.dilation = spec.dilation;
      head.gate = gh;
      if (spec.kind == RemKind::Regular) {
        head.lambda = base[h].item<double>();
      } else {
        head.gamma = base[h].item<double>();
        head.theta = theta[h].item<double>();
      }
    }
  }
  return out;
}

}  // namespace rsalab
