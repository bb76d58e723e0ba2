// SPDX-License-Identifier: GPL-3.0-or-later
// The cards (model_card.h), in display order: colours are assigned by this order. Each card's
// FLOP count follows flops.h's conventions (matrix products only, 2·m·n·k each; the table of
// counts is flops.h's header comment).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/core/config/flops.h"
#include "engine/core/registry/model_registry.h"

namespace rsalab {

namespace {

// The terms most counts share: N = B·T tokens, Dh = D/H, the input and output projections, the
// attention block's dense products (QKV, output projection, FFN) and its two T × T products.
struct Terms {
  double B, T, D, H, L, f, N, Dh, io, dense, attention;
  explicit Terms(const StepShape& s)
      : B(static_cast<double>(s.B)),
        T(static_cast<double>(s.T)),
        D(static_cast<double>(s.D)),
        H(static_cast<double>(s.H)),
        L(static_cast<double>(s.L)),
        f(static_cast<double>(s.ff_mult)),
        N(B * T),
        Dh(D / H),
        io(2 * N * D * static_cast<double>(s.in_features + s.out_features)),
        dense((8 + 4 * f) * N * D * D),
        attention(4 * B * T * T * D) {}
};

double softmaxFlops(const StepShape& s) {  // softmax and RSA (mixing P in is elementwise)
  const Terms t(s);
  return t.io + t.L * (t.dense + t.attention);
}
double linearFlops(const StepShape& s) {  // the state updates replace the T × T products
  const Terms t(s);
  return t.io + t.L * (t.dense + 4 * t.N * t.D * t.Dh);
}
double retentionFlops(const StepShape& s) {  // + the gate X·W_G
  const Terms t(s);
  return t.io + t.L * (t.dense + 2 * t.N * t.D * t.D + t.attention);
}
double foxFlops(const StepShape& s) {  // + the forget gates X·w (D → H)
  const Terms t(s);
  return t.io + t.L * (t.dense + 2 * t.N * t.D * t.H + t.attention);
}
double glaFlops(const StepShape& s) {  // the chunkwise form, blocks of C = min(16, T)
  const Terms t(s);
  const double C = std::min(kGlaFlopsChunk, t.T);
  return t.io + t.L * (t.dense + 2 * t.N * t.D * t.D + 4 * kGlaFlopsGateRank * t.N * t.D +
                       4 * t.N * C * t.D + 4 * t.N * t.D * t.Dh + 2 * t.N * t.D * t.Dh / C);
}
double mlstmFlops(const StepShape& s) {  // + X·W_o and the gates ĩ, f̃ (D → H each)
  const Terms t(s);
  return t.io + t.L * (t.dense + 2 * t.N * t.D * t.D + 4 * t.N * t.D * t.H + t.attention);
}
double starsaberFlops(const StepShape& s) {  // W, U, Q, V (gated: + W_z, V_z)
  const Terms t(s);
  return t.io + t.L * ((s.gated ? 12 : 8) * t.N * t.D * t.D + t.attention);
}
template <int GateBlocks>
double recurrentFlops(const StepShape& s) {  // x·W_ihᵀ and h·W_hhᵀ
  const Terms t(s);
  return t.io + t.L * 4 * GateBlocks * t.N * t.D * t.D;
}
double mamba2Flops(const StepShape& s) {  // the chunked SSD scan that training runs
  const Terms t(s);
  const double E = kMamba2FlopsExpand * t.D, S = kMamba2FlopsState;
  const double Q = std::min<double>(kMamba2FlopsChunk, t.T), n = std::ceil(t.T / Q);
  const double layer = 2 * t.N * t.D * (3 * E + 2 * S + t.H) +
                       2 * t.N * kMamba2FlopsConv * (E + 2 * S) + 2 * t.N * Q * (S + E) +
                       4 * t.N * E * S + 2 * t.B * (n + 1) * (n + 1) * E * S;
  return t.io + t.L * layer;
}
double nlinearFlops(const StepShape& s) {  // every position's (K → H) map, per column; no io
  const Terms t(s);
  return 2 * t.N * static_cast<double>(s.lookback) * static_cast<double>(s.out_features);
}
double dlinearFlops(const StepShape& s) {  // + the fold of the two maps, once per forward
  const double K = static_cast<double>(s.lookback), out = static_cast<double>(s.out_features);
  const double in = static_cast<double>(std::max<int64_t>(1, s.in_features));
  return nlinearFlops(s) + 2 * K * K * out / in;
}

const Paper kVaswani{"Vaswani, Shazeer, Parmar, Uszkoreit, Jones, Gomez, Kaiser and Polosukhin",
                     "Attention Is All You Need", "NeurIPS 2017", "1706.03762"};
const Paper kZeng{"Zeng, Chen, Zhang and Xu",
                  "Are Transformers Effective for Time Series Forecasting?", "AAAI 2023",
                  "2205.13504"};

// The recurrent family: a torch.nn cell stacked L times.
ModelCard recurrent(const char* name, const char* title, const Paper& paper, const char* equation,
                    RecurrentCell cell, int gate_blocks, double (*flops)(const StepShape&),
                    uint32_t flags) {
  ModelCard c;
  c.name = name;
  c.title = title;
  c.paper = paper;
  c.equation = equation;
  c.family = ModelFamily::Recurrent;
  c.cell = cell;
  c.gate_blocks = gate_blocks;
  c.flags = CausalOnly | HasPeer | flags;
  c.forward_flops = flops;
  return c;
}

// The attention family: `kind` inside the same pre-LN Transformer block.
ModelCard attention(const char* name, const char* title, const char* kind, uint32_t flags,
                    double (*flops)(const StepShape&)) {
  ModelCard c;
  c.name = name;
  c.title = title;
  c.family = ModelFamily::Attention;
  c.attention_name = kind;
  c.flags = HasPeer | flags;
  c.forward_flops = flops;
  return c;
}

// The recurrence-in-attention family beside RSA (docs/FAMILY.md): causal only, and no positional
// encoding (the decay carries position), recording its decays.
constexpr uint32_t kDecaying = CausalOnly | NoPositionalEncoding | RecordsDecays;

std::vector<ModelCard> cards() {
  std::vector<ModelCard> out;
  out.push_back(recurrent("rnn", "RNN (tanh)",
                          {"Elman", "Finding Structure in Time", "Cognitive Science 1990", ""},
                          "h_t = tanh(W_ih x_t + W_hh h_{t-1} + b)", RecurrentCell::Rnn, 1,
                          recurrentFlops<1>, DefaultLaunch));
  out.push_back(recurrent(
      "lstm", "LSTM",
      {"Hochreiter and Schmidhuber", "Long Short-Term Memory", "Neural Computation 1997", ""},
      "c_t = f*c_{t-1} + i*g, h_t = o*tanh(c_t)", RecurrentCell::Lstm, 4, recurrentFlops<4>,
      HasGates));
  out.push_back(recurrent("gru", "GRU",
                          {"Cho, van Merriënboer, Gulcehre, Bahdanau, Bougares, Schwenk and Bengio",
                           "Learning Phrase Representations using RNN Encoder-Decoder for "
                           "Statistical Machine Translation",
                           "EMNLP 2014", "1406.1078"},
                          "h_t = (1-z)*n + z*h_{t-1}", RecurrentCell::Gru, 3, recurrentFlops<3>,
                          HasGates));

  ModelCard transformer =
      attention("transformer", "Softmax Transformer", "softmax", DefaultLaunch, softmaxFlops);
  transformer.paper = kVaswani;
  transformer.equation = "softmax(QK^T/sqrt(Dh) + mask) V, pre-LN, sinusoidal PE";
  transformer.matrix_rule =
      "softmax(QKᵀ/√Dh + causal mask): each row sums to 1, every weight in [0, 1]";
  transformer.form = {"softmax(QKᵀ/√d + causal mask)", "a KV cache: every key and value so far",
                      "none: position enters only by the sinusoidal PE"};
  out.push_back(transformer);

  ModelCard rsa = attention("rsa", "RSA (self-attention with recurrence)", "rsa",
                            HasRems | HasGates | RecordsDecays | DefaultLaunch, softmaxFlops);
  rsa.paper = {"Huang, Lu, Cai, Qin, Fang, Tian and Li", "Encoding Recurrence into Transformers",
               "ICLR 2023 (OpenReview 7YfHla7IxBJ)", ""};
  rsa.equation = "((1-s(mu)) softmax(QK^T/sqrt(Dh)) + s(mu) P) V";
  rsa.matrix_rule =
      "(1−σ(µ))·softmax + σ(µ)·P: the softmax part's rows sum to 1; the REM P is not "
      "normalised and is signed for cos/sin REMs (and for a negative λ)";
  rsa.form = {
      "(1 − σ(µ))·softmax(QKᵀ/√d) + σ(µ)·P, P_ij = λ^(i−j) (regular) or γ^(i−j)cos/sin(θ(i−j))",
      "a KV cache (the softmax part needs every key)",
      "the REMs themselves, added after the softmax with a gate"};
  out.push_back(rsa);

  ModelCard linear = attention("linear", "Linear attention (elu+1)", "linear", 0, linearFlops);
  linear.paper = {"Katharopoulos, Vyas, Pappas and Fleuret",
                  "Transformers are RNNs: Fast Autoregressive Transformers with Linear Attention",
                  "ICML 2020", "2006.16236"};
  linear.equation = "phi(Q_i)^T S_i / (phi(Q_i)^T z_i + eps)";
  linear.matrix_rule =
      "φ(q_i)ᵀφ(k_j) / Σ_j φ(q_i)ᵀφ(k_j), φ = elu+1: never materialised by the model; each row "
      "sums to 1, every weight ≥ 0";
  linear.step_state = "(S, z)";
  out.push_back(linear);

  ModelCard retnet =
      attention("retnet", "RetNet (multi-scale retention)", "retention", kDecaying, retentionFlops);
  retnet.paper = {"Sun, Dong, Huang, Ma, Xia, Xue, Wang and Wei",
                  "Retentive Network: A Successor to Transformer for Large Language Models",
                  "preprint 2023", "2307.08621"};
  retnet.equation = "W_O(swish(X W_G) * GroupNorm((QK^T/sqrt(Dh) * D) V)), D_nm = gamma^(n-m)";
  retnet.matrix_rule =
      "Q̃K̃ᵀ/√d ⊙ D̃ after RetNet's normalisers (D's rows divided by √Σ_m D_nm, then each row by "
      "max(|row sum|, 1)): signed, rows need not sum to 1; GroupNorm follows, so a row's scale "
      "does not matter, only its shape";
  retnet.form = {
      "(QKᵀ/√d ⊙ D) after its normalisers, D_nm = γ_h^(n−m) for n ≥ m, γ_h = 1 − 2^(−5−h) fixed "
      "or learned; no softmax",
      "S_n = γ S_{n−1} + k_nᵀv_n, o_n = q_n S_n (with the normalisers' own recurrences)",
      "D is the regular REM with its diagonal kept, multiplied into QKᵀ; the rotation e^{i(n−m)θ} "
      "gives the cyclical REMs"};
  retnet.step_state = "(S, z, s)";
  out.push_back(retnet);

  ModelCard alibi =
      attention("alibi", "ALiBi (linear distance bias)", "alibi", kDecaying, softmaxFlops);
  alibi.paper = {"Press, Smith and Lewis",
                 "Train Short, Test Long: Attention with Linear Biases Enables Input Length "
                 "Extrapolation",
                 "ICLR 2022", "2108.12409"};
  alibi.equation = "softmax(QK^T/sqrt(Dh) - m_h (i-j)) V, m_h = 2^(-8h/H)";
  alibi.matrix_rule =
      "softmax(QKᵀ/√Dh − m_h·(i−j) + causal mask), m_h = 2^(−8h/H): each row sums to 1, every "
      "weight in [0, 1]; the bias is a regular REM e^(−m_h(i−j)) inside the softmax";
  alibi.form = {"softmax(QKᵀ/√d − m_h·(i−j)), m_h = 2^(−8h/H)",
                "a KV cache; the bias −m_h·(t−j) is recomputed per query",
                "softmax(QKᵀ/√d) ⊙ P renormalised: a fixed regular REM λ_h = e^(−m_h) multiplied "
                "inside the softmax"};
  out.push_back(alibi);

  ModelCard fox = attention("fox", "FoX (Forgetting Transformer)", "fox", kDecaying, foxFlops);
  fox.paper = {"Lin, Nikishin, He and Courville",
               "Forgetting Transformer: Softmax Attention with a Forget Gate", "ICLR 2025",
               "2503.02130"};
  fox.equation = "softmax(QK^T/sqrt(Dh) + log F) V, F_ij = f_{j+1}...f_i, f_t = sigmoid(w.x_t + b)";
  fox.matrix_rule =
      "softmax(QKᵀ/√Dh + log F + causal mask), F_ij = f_{j+1}···f_i: each row sums to 1, every "
      "weight in [0, 1]; F is a data-dependent regular REM inside the softmax";
  fox.form = {"softmax(QKᵀ/√d + log F), F_ij = ∏_{k=j+1..i} f_k, f_t = σ(w_h·x_t + b_h)",
              "a KV cache and the running Σ log f_k per cached key",
              "a data-dependent regular REM F multiplied inside the softmax (ALiBi's with "
              "learned, per-token λ)"};
  out.push_back(fox);

  ModelCard gla = attention("gla", "GLA (gated linear attention)", "gla", kDecaying, glaFlops);
  gla.paper = {"Yang, Wang, Shen, Panda and Kim",
               "Gated Linear Attention Transformers with Hardware-Efficient Training", "ICML 2024",
               "2312.06635"};
  gla.equation =
      "S_t = diag(alpha_t) S_{t-1} + k_t v_t^T, o_t = q_t^T S_t, alpha_t = sigmoid(x W_a)^(1/16)";
  gla.matrix_rule =
      "W_ij = Σ_c q_ic k_jc/√Dh · Π_{l=j+1..i} α_lc (j ≤ i): the gated linear attention's implied "
      "matrix (o = W V), never materialised in training; signed, not normalised; GroupNorm "
      "follows, so a row's scale does not matter, only its shape";
  gla.form = {
      "A_ij = Σ_c q_ic k_jc ∏_{k=j+1..i} α_kc, α_t = σ(x_t W_α)^(1/16) per key channel; no "
      "softmax",
      "S_t = diag(α_t) S_{t−1} + k_tᵀv_t, o_t = q_t S_t",
      "one data-dependent regular REM per key channel, multiplied into QKᵀ channel by channel"};
  gla.step_state = "(S)";
  out.push_back(gla);

  ModelCard mlstm =
      attention("mlstm", "mLSTM (xLSTM matrix memory)", "mlstm", kDecaying, mlstmFlops);
  mlstm.paper = {
      "Beck, Pöppel, Spanring, Auer, Prudnikova, Kopp, Klambauer, Brandstetter and "
      "Hochreiter",
      "xLSTM: Extended Long Short-Term Memory", "NeurIPS 2024", "2405.04517"};
  mlstm.equation =
      "C_t = f_t C_{t-1} + i_t v_t k_t^T, n_t = f_t n_{t-1} + i_t k_t, h_t = o_t * C_t q_t / "
      "max(|n_t.q_t|, 1)";
  mlstm.matrix_rule =
      "C̃ / n: QKᵀ/√Dh ⊙ exp(log D − m_i), log D_ij = Σ_{k=j+1..i} log f_k + ĩ_j, each row "
      "divided by max(|row sum|, exp(−m_i)) (the stabilised max(|nᵀq|, 1)): signed, rows need not "
      "sum to 1; GroupNorm and the output gate follow, so a row's scale does not matter, only its "
      "shape";
  mlstm.form = {
      "(QKᵀ/√d ⊙ exp(log D − m_i)) / max(|row sum|, e^(−m_i)), log D_ij = Σ_{k=j+1..i} log f_k + "
      "ĩ_j",
      "C_t = f_t C_{t−1} + i_t v_t k_tᵀ, n_t = f_t n_{t−1} + i_t k_t, h_t = C_t q_t / max(|n_tᵀ "
      "q_t|, 1), with the stabiliser m_t",
      "a data-dependent regular REM (the forget gates) times a per-key input gate, multiplied "
      "into QKᵀ and normalised by its row sum"};
  mlstm.step_state = "(C, n, m)";
  out.push_back(mlstm);

  ModelCard starsaber;
  starsaber.name = "starsaber";
  starsaber.title = "StarSaber (fixed-point attention)";
  starsaber.paper = {"anonymous",
                     "Transforming Recurrent Neural Networks with Attention and Fixed-Point "
                     "Equations",
                     "anonymous submission (the seed text)", ""};
  starsaber.equation = "h^{l+1} = h^l + a_l tanh(A^l + V^l x)";
  starsaber.matrix_rule =
      "G = softmax(h_nᵀ W h_i/√D), applied through U to i < n and Q to i ≥ n: each row sums to 1";
  starsaber.family = ModelFamily::FixedPoint;
  starsaber.flags = HasGates | HasPeer;
  starsaber.forward_flops = starsaberFlops;
  out.push_back(starsaber);

  ModelCard mamba2;  // a selective SSM whose T × T form is L ∘ (C Bᵀ), L a data-dependent REM
  mamba2.name = "mamba2";
  mamba2.title = "Mamba-2 (SSD)";
  mamba2.paper = {"Dao and Gu",
                  "Transformers are SSMs: Generalized Models and Efficient Algorithms Through "
                  "Structured State Space Duality",
                  "ICML 2024", "2405.21060"};
  mamba2.equation = "y = (L o C B^T)(dt x) + D x, L_ij = a_{j+1}...a_i, a = exp(dt A)";
  mamba2.matrix_rule =
      "L ∘ (C Bᵀ) with Δ_j folded in, L_ij = a_{j+1}···a_i: y_i = Σ_j M_ij x_j (plus the skip "
      "D·x_i); signed and not normalised";
  mamba2.form = {
      "L ∘ (C Bᵀ) with Δ_j folded in, L_ij = ∏_{k=j+1..i} a_k, a_t = exp(Δ_t·A_h) per head and "
      "token",
      "h_t = a_t h_{t−1} + Δ_t x_t B_tᵀ, y_t = h_t C_t + D x_t",
      "a data-dependent (\"selective\") regular REM; with a_t ≡ γ, L is RetNet's D"};
  mamba2.family = ModelFamily::StateSpace;
  mamba2.flags = CausalOnly | RecordsDecays | HasPeer;
  mamba2.forward_flops = mamba2Flops;
  out.push_back(mamba2);

  ModelCard encdec;  // no FLOP count and no peer
  encdec.name = "encdec";
  encdec.title = "Encoder-decoder";
  encdec.paper = kVaswani;
  encdec.equation = "bidirectional encoder; causal decoder + cross-attention";
  encdec.matrix_rule = "softmax weights (self- and cross-attention): each row sums to 1";
  encdec.family = ModelFamily::Seq2Seq;
  encdec.flags = CausalOnly;
  out.push_back(encdec);

  // The linear forecasters reported beside forecasting transformers, on the lookback window
  // x_{t-L+1..t} of each position: engine/models/linear_forecasters.h.
  ModelCard dlinear;
  dlinear.name = "dlinear";
  dlinear.title = "DLinear (trend + remainder maps)";
  dlinear.paper = kZeng;
  dlinear.equation = "y = W_t MA25(w) + W_r (w - MA25(w)) + b";
  dlinear.family = ModelFamily::Linear;
  dlinear.flags = CausalOnly | SeriesOnly | HasPeer;
  dlinear.forward_flops = dlinearFlops;
  out.push_back(dlinear);
  ModelCard nlinear = dlinear;
  nlinear.name = "nlinear";
  nlinear.title = "NLinear (last value subtracted)";
  nlinear.equation = "y = W (w - w_L) + b + w_L";
  nlinear.forward_flops = nlinearFlops;
  out.push_back(nlinear);

  // The forecaster family: a window and its calendar marks to its H steps in one pass, the
  // long-horizon protocol only (engine/models/informer.h). No FLOP count: ProbSparse's work
  // depends on the lengths through c·ln L, not on one T.
  ModelCard informer;
  informer.name = "informer";
  informer.title = "Informer (ProbSparse encoder-decoder)";
  informer.paper = {"Zhou, Zhang, Peng, Zhang, Li, Xiong and Zhang",
                    "Informer: Beyond Efficient Transformer for Long Sequence Time-Series "
                    "Forecasting",
                    "AAAI 2021", "2012.07436"};
  informer.equation =
      "ProbSparse: top-u queries by max-mean on c ln L sampled keys; lazy -> mean V";
  informer.family = ModelFamily::Forecaster;
  informer.flags = SeriesOnly | LongHorizonOnly;
  out.push_back(informer);
  ModelCard rsa_informer = informer;
  rsa_informer.name = "rsa-informer";
  rsa_informer.title = "RSA-Informer (REMs in Informer)";
  rsa_informer.paper = {"Huang, Lu, Cai, Qin, Fang, Tian and Li",
                        "Encoding Recurrence into Transformers",
                        "ICLR 2023 (OpenReview 7YfHla7IxBJ)", ""};
  rsa_informer.equation = "(1-s(mu)) ProbSparse(Q, K, V) + s(mu) P V in both self-attentions";
  rsa_informer.flags = SeriesOnly | LongHorizonOnly | HasRems;
  out.push_back(rsa_informer);
  int kind = 0;  // the attention kinds, in registry order
  for (ModelCard& c : out)
    if (c.attention_name) c.attention = static_cast<AttentionKind>(kind++);
  return out;
}

}  // namespace

const std::vector<ModelCard>& modelRegistry() {
  static const std::vector<ModelCard> rows = cards();
  return rows;
}

}  // namespace rsalab
