# SPDX-License-Identifier: GPL-3.0-or-later
"""The engine's sequence models (engine/models/*.cpp) in plain PyTorch: the bench's peer.

Same modules, parameter names and shapes, default PyTorch initialisation (as LibTorch's) and the
REM initialisation of rem_builder.cpp, so that a checkpoint's state dict loads as is. Written the
way a researcher would: no fused or blocked kernels.
"""
import math
import os
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cards import cards  # noqa: E402

LINEAR_EPS = 1e-6  # kLinearAttentionEps
LINEAR_CHUNK = 64  # kLinearAttentionChunk
# The attention family's models and their kinds, and the kinds whose model adds no positional
# encoding (the cards' no_positional_encoding flag): read from the cards (cards.py).
ATTENTION = {c["name"]: c["attention"] for c in cards() if c["attention"] and c["flags"]["has_peer"]}
NO_POSITIONAL = {c["attention"] for c in cards()
                 if c["attention"] and c["flags"]["no_positional_encoding"]}
RECURRENT = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}
LOOKBACK = 24  # ModelOptions::lookback
DLINEAR_KERNEL = 25  # kDLinearKernel
GLA_CHUNK, GLA_GATE_RANK, GLA_TEMPERATURE = 16, 16, 16.0  # kGlaChunk, kGlaGateRank, kGlaTemperature


def rem_kinds(heads):
    """defaultRemHeads: one regular, one cos and one sin head as far as there are heads."""
    return ["regular", "cos", "sin"][: max(0, min(3, heads))]


def sinusoidal(T, D):
    """PE[t, 2i] = sin(t / 10000^(2i/D)), PE[t, 2i+1] = cos(...), computed in float64."""
    pos = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    i = torch.arange(0, D, 2, dtype=torch.float64)
    angle = pos * torch.exp(i * (-math.log(10000.0) / D))
    pe = torch.zeros(T, D, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)[:, : D // 2]
    return pe.float()


class SelfAttention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h, self.dh = h, d // h
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def split(self, x):  # (B, T, D) -> (B, H, T, Dh)
        B, T, _ = x.shape
        return x.view(B, T, self.h, self.dh).transpose(1, 2)

    def forward(self, x):
        q, k, v = (self.split(t) for t in self.qkv(x).chunk(3, dim=-1))
        y = self.attend(q, k, v)  # (B, H, T, Dh)
        B, _, T, _ = y.shape
        return self.out(y.transpose(1, 2).contiguous().view(B, T, -1))

    def softmax_attend(self, q, k, v):
        T = q.shape[2]
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.dh)
        mask = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)
        return torch.matmul(torch.softmax(scores.masked_fill(mask, float("-inf")), -1), v)


class SoftmaxAttention(SelfAttention):
    """softmax(QKᵀ/√Dh + causal mask) V."""

    attend = SelfAttention.softmax_attend


class Rems(nn.Module):
    """RemBuilder: P_h[i, j] = base_h^(i−j)·{1 | cos θ_h(i−j) | sin θ_h(i−j)} if i > j, else 0."""

    def __init__(self, kinds):
        super().__init__()
        self.kinds = kinds
        eta, nu, theta = [], [], []
        for kind in kinds:  # the engine's draws, in its order
            if kind == "regular":
                mag = 1.0 + torch.rand(1).item()
                eta.append(-mag if torch.rand(1).item() < 0.5 else mag)
            else:
                nu.append(1.0 + torch.rand(1).item())
                theta.append(math.pi / (len(theta) + 2))
        self.eta = nn.Parameter(torch.tensor(eta, dtype=torch.float32))
        self.nu = nn.Parameter(torch.tensor(nu, dtype=torch.float32))
        self.theta = nn.Parameter(torch.tensor(theta, dtype=torch.float32))
        sel = {"regular": [1.0, 0.0, 0.0], "cos": [0.0, 1.0, 0.0], "sin": [0.0, 0.0, 1.0]}
        self.register_buffer("selector", torch.tensor([sel[k] for k in kinds]), persistent=False)

    def forward(self, T):  # (R, T, T)
        R = len(self.kinds)
        base = torch.cat([torch.tanh(self.eta), torch.sigmoid(self.nu)]).view(R, 1)
        theta = torch.cat([torch.zeros_like(self.eta), self.theta]).view(R, 1)
        m = torch.arange(T, device=self.eta.device)
        k = m.clamp_min(1).float().view(1, T)  # lags 0..T−1
        s = self.selector
        trig = s[:, :1] + s[:, 1:2] * torch.cos(theta * k) + s[:, 2:] * torch.sin(theta * k)
        f = base.pow(k) * trig
        f = torch.where(m.view(1, T) > 0, f, f.new_zeros(()))  # (R, T): f_h(lag)
        lag = (m.view(T, 1) - m.view(1, T)).clamp_min(0)  # future lags -> lag 0 -> 0
        return f.index_select(1, lag.flatten()).view(R, T, T)


class RsaAttention(SelfAttention):
    """((1 − σ(µ_h)) softmax(QKᵀ/√Dh + mask) + σ(µ_h) P_h) V on the R REM heads."""

    def __init__(self, d, h):
        super().__init__(d, h)
        kinds = rem_kinds(h)
        self.rems = Rems(kinds)
        self.mu = nn.Parameter(torch.zeros(len(kinds)))

    def attend(self, q, k, v):
        y = self.softmax_attend(q, k, v)  # (B, H, T, Dh)
        R = self.mu.numel()
        pv = torch.matmul(self.rems(q.shape[2]), v[:, :R])  # (B, R, T, Dh)
        g = torch.sigmoid(self.mu).view(1, R, 1, 1)
        return torch.cat([(1 - g) * y[:, :R] + g * pv, y[:, R:]], dim=1)


class LinearAttention(SelfAttention):
    """φ(Q_i)ᵀ Σ_{j≤i} φ(K_j)V_jᵀ / (φ(Q_i)ᵀ Σ_{j≤i} φ(K_j) + eps), φ = elu + 1.

    form "masked": (φ(Q)φ(K)ᵀ ⊙ causal mask) V, the straightforward parallel form (default);
    "chunked": the engine's training algorithm (chunks of 64, prefix sums of the states).
    """

    form = "masked"

    def attend(self, q, k, v):
        fq, fk = F.elu(q) + 1, F.elu(k) + 1
        if self.form == "masked":
            sim = torch.matmul(fq, fk.transpose(-2, -1)).tril()  # (B, H, T, T)
            return torch.matmul(sim, v) / (sim.sum(-1, keepdim=True) + LINEAR_EPS)
        B, H, T, Dh = q.shape
        C = min(LINEAR_CHUNK, T)
        N = (T + C - 1) // C
        ve = torch.cat([v, torch.ones_like(v[..., :1])], -1)  # [V 1]: numerator and normaliser
        fq, fk, ve = (F.pad(t, (0, 0, 0, N * C - T)).view(B, H, N, C, -1) for t in (fq, fk, ve))
        y = torch.matmul(torch.matmul(fq, fk.transpose(-2, -1)).tril(), ve)  # within chunks
        if N > 1:
            states = torch.matmul(fk.transpose(-2, -1), ve)  # (B, H, N, Dh, Dh + 1)
            before = torch.cat([torch.zeros_like(states[:, :, :1]), states[:, :, :-1].cumsum(2)], 2)
            y = y + torch.matmul(fq, before)
        y = y.reshape(B, H, N * C, -1)[:, :, :T]
        return y[..., :Dh] / (y[..., Dh:] + LINEAR_EPS)


def retention_decays(h):
    """γ_h = 1 − 2^(−5−h), h = 0..H−1 (RetNet's fixed decays), float64."""
    return 1 - 2.0 ** (-5 - torch.arange(h, dtype=torch.float64))


def rotate(x, offset=0):
    """Each channel pair (2i, 2i+1) at position t turned by t·θ_i, θ_i = 10000^(−2i/Dh)."""
    T, Dh = x.shape[-2], x.shape[-1]
    theta = 10000.0 ** (-2 * torch.arange(Dh // 2, dtype=torch.float64, device=x.device) / Dh)
    angle = torch.arange(offset, offset + T, dtype=torch.float64,
                         device=x.device)[:, None] * theta  # (T, Dh/2)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], -1).flatten(-2)


class Retention(SelfAttention):
    """RetNet's multi-scale retention (arXiv 2307.08621), its parallel form as the paper writes
    it: D_nm = γ_h^(n−m) (n ≥ m), D̃ = D / √(row sums), R = QKᵀ/√Dh ⊙ D̃,
    R̃ = R / max(|row sums of R|, 1), out = W_O(swish(x W_G) ⊙ GroupNorm_H(R̃ V))."""

    def __init__(self, d, h, learnable_decay=False, rotation=False):
        super().__init__(d, h)  # qkv, out; then the engine's gate, norm, decay_logit
        self.rotation = rotation
        self.gate = nn.Linear(d, d)
        self.norm = nn.GroupNorm(h, d)
        gamma = retention_decays(h)
        self.register_buffer("fixed_log_gamma", gamma.log(), persistent=False)
        self.decay_logit = (nn.Parameter((gamma / (1 - gamma)).log().float())
                            if learnable_decay else None)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = (self.split(t) for t in self.qkv(x).chunk(3, dim=-1))  # (B, H, T, Dh)
        if self.rotation:
            q, k = rotate(q), rotate(k)
        log_gamma = (F.logsigmoid(self.decay_logit) if self.decay_logit is not None
                     else self.fixed_log_gamma.to(q.dtype))
        n = torch.arange(T, dtype=q.dtype, device=q.device)
        future = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)
        log_d = (log_gamma.view(-1, 1, 1) * (n[:, None] - n[None, :])).masked_fill(
            future, float("-inf"))
        d = log_d.exp()  # (H, T, T)
        d = d / d.sum(-1, keepdim=True).sqrt()
        r = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.dh) * d  # (B, H, T, T)
        r = r / r.sum(-1, keepdim=True).abs().clamp_min(1.0)
        y = torch.matmul(r, v).transpose(1, 2).reshape(B * T, D)  # (B·T, D)
        return self.out(F.silu(self.gate(x)) * self.norm(y).view(B, T, D))


class Alibi(SelfAttention):
    """ALiBi (arXiv 2108.12409): softmax(QKᵀ/√Dh − m_h (i − j) + mask) V, m_h = 2^(−8h/H)."""

    def attend(self, q, k, v):
        T = q.shape[2]
        slopes = 2.0 ** (-8.0 * torch.arange(1, self.h + 1, dtype=torch.float64,
                                             device=q.device) / self.h)
        n = torch.arange(T, dtype=torch.float64, device=q.device)
        bias = (-slopes.view(-1, 1, 1) * (n[:, None] - n[None, :])).to(q.dtype)  # (H, T, T)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.dh) + bias
        mask = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)
        return torch.matmul(torch.softmax(scores.masked_fill(mask, float("-inf")), -1), v)


class Forgetting(SelfAttention):
    """FoX (arXiv 2503.02130): softmax(QKᵀ/√Dh + log F + mask) V, log F_ij = Σ_{j<k≤i} log f_k,
    f_t = σ(w_h·x_t + b_h)."""

    def __init__(self, d, h):
        super().__init__(d, h)
        self.forget = nn.Linear(d, h)

    def forward(self, x):
        self.c = F.logsigmoid(self.forget(x)).transpose(1, 2).cumsum(-1)  # (B, H, T)
        return super().forward(x)

    def attend(self, q, k, v):
        T = q.shape[2]
        scores = (torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.dh)
                  + self.c.unsqueeze(-1) - self.c.unsqueeze(-2))
        mask = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)
        return torch.matmul(torch.softmax(scores.masked_fill(mask, float("-inf")), -1), v)


class GatedLinearAttention(SelfAttention):
    """Gated linear attention (arXiv 2312.06635): α_t = σ(x W_α1 W_α2 + b_α)^(1/16) per key
    channel, S_t = diag(α_t) S_{t−1} + k_tᵀ v_t (k/√Dh), o_t = q_t S_t, then
    out = W_O(swish(x W_r) ⊙ GroupNorm_H(o)). Computed as the paper's chunkwise form: a loop over
    blocks of GLA_CHUNK positions carrying S, inside a block the decays exp(b_i − b_j) of the
    cumulative log α b."""

    def __init__(self, d, h):
        super().__init__(d, h)  # qkv, out; then the engine's decay_down, decay_up, gate, norm
        self.decay_down = nn.Linear(d, GLA_GATE_RANK, bias=False)
        self.decay_up = nn.Linear(GLA_GATE_RANK, d)
        self.gate = nn.Linear(d, d)
        self.norm = nn.GroupNorm(h, d)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = (self.split(t) for t in self.qkv(x).chunk(3, dim=-1))  # (B, H, T, Dh)
        k = k / math.sqrt(self.dh)
        log_a = self.split(F.logsigmoid(self.decay_up(self.decay_down(x))) / GLA_TEMPERATURE)
        C = GLA_CHUNK
        future = torch.ones(C, C, dtype=torch.bool, device=x.device).triu(1)
        S = x.new_zeros(B, self.h, self.dh, self.dh)
        outs = []
        for s in range(0, T, C):
            qc, kc, vc = q[:, :, s:s + C], k[:, :, s:s + C], v[:, :, s:s + C]
            b = log_a[:, :, s:s + C].cumsum(2)  # (B, H, c, Dh)
            c = b.shape[2]
            decay = (b[:, :, :, None] - b[:, :, None]).masked_fill(
                future[:c, :c, None], float("-inf")).exp()  # (B, H, c, c, Dh)
            scores = torch.einsum("bhic,bhjc,bhijc->bhij", qc, kc, decay)
            outs.append(scores @ vc + (qc * b.exp()) @ S)
            last = b[:, :, -1:]  # (B, H, 1, Dh)
            S = last.transpose(-2, -1).exp() * S + (kc * (last - b).exp()).transpose(-2, -1) @ vc
        o = torch.cat(outs, 2).transpose(1, 2).reshape(B * T, D)  # (B·T, D)
        return self.out(F.silu(self.gate(x)) * self.norm(o).view(B, T, D))


class Mlstm(SelfAttention):
    """xLSTM's mLSTM cell (arXiv 2405.04517) as the block's mixer, its stabilised parallel form:
    log D_ij = Σ_{k=j+1..i} log σ(f̃_k) + ĩ_j (j ≤ i), m_i = max_j log D_ij,
    C̃ = QKᵀ/√Dh ⊙ exp(log D − m_i), n_i = max(|Σ_j C̃_ij|, exp(−m_i)),
    out = W_O(σ(x W_o) ⊙ GroupNorm_H((C̃ / n) V)); ĩ = x w_i + b_i, f̃ = x w_f + b_f per head."""

    def __init__(self, d, h):
        super().__init__(d, h)  # qkv, out; then the engine's input, forget and output gates, norm
        self.input_gate = nn.Linear(d, h)
        self.forget_gate = nn.Linear(d, h)
        self.output_gate = nn.Linear(d, d)
        self.norm = nn.GroupNorm(h, d)
        with torch.no_grad():
            self.input_gate.bias.zero_()
            self.forget_gate.bias.copy_(torch.linspace(3.0, 6.0, h))

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = (self.split(t) for t in self.qkv(x).chunk(3, dim=-1))  # (B, H, T, Dh)
        ig = self.input_gate(x).transpose(1, 2)  # (B, H, T)
        log_f = F.logsigmoid(self.forget_gate(x).transpose(1, 2)).cumsum(-1)  # (B, H, T)
        future = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)
        log_d = (log_f[..., :, None] - log_f[..., None, :] + ig[..., None, :]).masked_fill(
            future, float("-inf"))  # (B, H, T, T)
        m = log_d.max(-1, keepdim=True).values.detach()
        c = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.dh) * (log_d - m).exp()
        n = torch.maximum(c.sum(-1, keepdim=True).abs(), (-m).exp())
        y = (torch.matmul(c, v) / n).transpose(1, 2).reshape(B * T, D)  # (B·T, D)
        return self.out(torch.sigmoid(self.output_gate(x)) * self.norm(y).view(B, T, D))


ATTENTION_MODULES = {"softmax": SoftmaxAttention, "rsa": RsaAttention, "linear": LinearAttention,
                     "retention": Retention, "alibi": Alibi, "fox": Forgetting,
                     "gla": GatedLinearAttention, "mlstm": Mlstm}


class FeedForward(nn.Module):
    def __init__(self, d, ff_mult):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ff_mult * d)
        self.fc2 = nn.Linear(ff_mult * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


class Block(nn.Module):
    """Pre-LN: h = x + attention(LN(x)); h + FFN(LN(h))."""

    def __init__(self, kind, d, h, ff_mult, **options):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attention = ATTENTION_MODULES[kind](d, h, **options)
        self.ffn = FeedForward(d, ff_mult)

    def forward(self, x):
        return self.ffn(x + self.attention(self.ln1(x)))


class Transformer(nn.Module):
    """input_proj + sinusoidal PE, L pre-LN blocks, final LayerNorm, per-position output.
    The decaying kinds add no PE (NO_POSITIONAL, the cards' no_positional_encoding): their
    decays carry position.
    `options`: the retention's learnable_decay and rotation (ModelOptions' retnet_*)."""

    def __init__(self, kind, d, h, L, ff_mult=4, features=1, outputs=1, **options):
        super().__init__()
        self.d = d
        self.positional = kind not in NO_POSITIONAL
        self.input_proj = nn.Linear(features, d)
        self.output = nn.Linear(d, outputs)
        self.layers = L
        for l in range(L):  # named block0, block1, ... as the engine's
            setattr(self, f"block{l}", Block(kind, d, h, ff_mult, **options))
        self.ln_f = nn.LayerNorm(d)
        self.register_buffer("pe", sinusoidal(1, d), persistent=False)

    def forward(self, x):
        T = x.shape[1]
        if self.pe.shape[0] < T:
            self.pe = sinusoidal(T, self.d).to(x.device)
        h = self.input_proj(x) + self.pe[:T] if self.positional else self.input_proj(x)
        for l in range(self.layers):
            h = getattr(self, f"block{l}")(h)
        return self.output(self.ln_f(h))


class Recurrent(nn.Module):
    """input_proj, torch.nn RNN (tanh) / LSTM / GRU with L layers of width d, output."""

    def __init__(self, model, d, L, features=1, outputs=1):
        super().__init__()
        self.input_proj = nn.Linear(features, d)
        self.output = nn.Linear(d, outputs)
        self.name = model
        setattr(self, model, RECURRENT[model](d, d, num_layers=L, batch_first=True))

    def forward(self, x):
        return self.output(getattr(self, self.name)(self.input_proj(x))[0])


class StarSaberLayer(nn.Module):
    """One fixed-point iteration (ungated, as the bench's ModelOptions):
    G = softmax(h W hᵀ / √D + causal mask) per head on Dh slices (scaled by the full width D),
    A = tril(G, −1)·(U h) + triu(G)·(Q h), h' = h + α·tanh(A + V x)."""

    def __init__(self, d, h):
        super().__init__()  # the engine's registration (and draw) order: W, U, Q, V, alpha
        self.h, self.dh, self.scale = h, d // h, 1.0 / math.sqrt(d)
        self.W = nn.Linear(d, d, bias=False)
        self.U = nn.Linear(d, d, bias=False)  # past, i < n
        self.Q = nn.Linear(d, d, bias=False)  # present and future, i ≥ n
        self.V = nn.Linear(d, d)  # direct path from the input projection
        self.alpha = nn.Parameter(torch.ones(1))

    def split(self, x):  # (B, T, D) -> (B, H, T, Dh)
        B, T, _ = x.shape
        return x.view(B, T, self.h, self.dh).transpose(1, 2)

    def forward(self, h, x):
        B, T, D = h.shape
        scores = torch.matmul(self.split(self.W(h)), self.split(h).transpose(-2, -1)) * self.scale
        mask = torch.ones(T, T, dtype=torch.bool, device=h.device).triu(1)
        G = torch.softmax(scores.masked_fill(mask, float("-inf")), -1)  # (B, H, T, T)
        A = (torch.matmul(G.tril(-1), self.split(self.U(h)))
             + torch.matmul(G.triu(), self.split(self.Q(h))))  # (B, H, T, Dh)
        A = A.transpose(1, 2).contiguous().view(B, T, D)
        return h + self.alpha * torch.tanh(A + self.V(x))


class StarSaber(nn.Module):
    """input_proj (h⁰ = x, also every layer's direct path), L StarSaber layers, output; no FFN,
    no PE, no final LayerNorm."""

    def __init__(self, d, h, L, features=1, outputs=1):
        super().__init__()
        self.input_proj = nn.Linear(features, d)
        self.output = nn.Linear(d, outputs)
        self.layers = L
        for l in range(L):  # named layer0, layer1, ... as the engine's
            setattr(self, f"layer{l}", StarSaberLayer(d, h))

    def forward(self, x):
        x = self.input_proj(x)
        h = x
        for l in range(self.layers):
            h = getattr(self, f"layer{l}")(h, x)
        return self.output(h)


MAMBA2_EXPAND, MAMBA2_STATE, MAMBA2_CONV, MAMBA2_CHUNK = 2, 16, 4, 64  # engine/models/mamba2.h
MAMBA2_DT = (1e-3, 0.1)  # initial Δ, log-uniform
MAMBA2_A = (1.0, 16.0)  # initial −A, uniform
RMS_EPS = 1e-5


class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) · weight over the last dimension."""

    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + RMS_EPS) * self.weight


def segsum(s):
    """(..., T) -> (..., T, T): [i, j] = s[j+1] + ... + s[i] for i >= j, -inf above the diagonal."""
    T = s.shape[-1]
    strict = torch.ones(T, T, dtype=torch.bool, device=s.device).tril(-1)
    sums = s.unsqueeze(-1).expand(*s.shape, T).masked_fill(~strict, 0.0).cumsum(-2)
    future = torch.ones(T, T, dtype=torch.bool, device=s.device).triu(1)
    return sums.masked_fill(future, float("-inf"))


def ssd_chunked(x, dt, A, Bm, Cm, chunk=MAMBA2_CHUNK):
    """y_i = sum_{j<=i} a_{j+1}...a_i (C_i.B_j) dt_j x_j, a_t = exp(dt_t A), in blocks of `chunk`:
    x (B, H, T, P), dt (B, H, T), A (H), Bm and Cm (B, T, N) -> (B, H, T, P)."""
    Bsz, H, T, P = x.shape
    N = Bm.shape[-1]
    Q = min(chunk, T)
    n = (T + Q - 1) // Q
    pad = n * Q - T
    u = F.pad(x * dt.unsqueeze(-1), (0, 0, 0, pad)).view(Bsz, H, n, Q, P)
    dA = F.pad(dt * A.view(1, H, 1), (0, pad)).view(Bsz, H, n, Q)
    Bc = F.pad(Bm, (0, 0, 0, pad)).view(Bsz, 1, n, Q, N)
    Cc = F.pad(Cm, (0, 0, 0, pad)).view(Bsz, 1, n, Q, N)
    cum = dA.cumsum(-1)
    # inside a block: exp(cum_i − cum_j)
    above = torch.ones(Q, Q, dtype=torch.bool, device=x.device).triu(1)
    L = torch.exp((cum.unsqueeze(-1) - cum.unsqueeze(-2)).masked_fill(above, float("-inf")))
    y = torch.matmul(L * torch.matmul(Cc, Bc.transpose(-1, -2)), u)
    own = torch.matmul((u * torch.exp(cum[..., -1:] - cum).unsqueeze(-1)).transpose(-1, -2), Bc)
    across = torch.exp(segsum(F.pad(cum[..., -1], (1, 0))))  # (B, H, n + 1, n + 1)
    starts = torch.cat([torch.zeros_like(own[:, :, :1]), own], 2).flatten(-2)
    entering = torch.matmul(across, starts).view(Bsz, H, n + 1, P, N)[:, :, :n]
    y = y + torch.matmul(Cc, entering.transpose(-1, -2)) * torch.exp(cum).unsqueeze(-1)
    return y.reshape(Bsz, H, n * Q, P)[:, :, :T]


class Mamba2Layer(nn.Module):
    """h + out_proj(RMSNorm((SSD(x, dt, A, B, C) + D x) * silu(z))), [z, x, B, C, dt] = in_proj(
    RMSNorm(h)), [x, B, C] through a causal depthwise conv of width 4 and SiLU, dt = softplus(dt +
    dt_bias), A = -exp(A_log): the engine's registration and draw order."""

    def __init__(self, d, h):
        super().__init__()
        E, N = MAMBA2_EXPAND * d, MAMBA2_STATE
        self.h, self.e, self.p = h, E, E // h
        self.norm = RMSNorm(d)
        self.in_proj = nn.Linear(d, 2 * E + 2 * N + h, bias=False)
        self.conv1d = nn.Conv1d(E + 2 * N, E + 2 * N, MAMBA2_CONV, groups=E + 2 * N)
        lo, hi = math.log(MAMBA2_DT[0]), math.log(MAMBA2_DT[1])
        dt = torch.exp(torch.rand(h) * (hi - lo) + lo)
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # softplus⁻¹(dt)
        self.A_log = nn.Parameter(torch.log(torch.empty(h).uniform_(*MAMBA2_A)))
        self.D = nn.Parameter(torch.ones(h))
        self.out_norm = RMSNorm(E)
        self.out_proj = nn.Linear(E, d, bias=False)

    def forward(self, h):
        Bsz, T, _ = h.shape
        E, N, H, P = self.e, MAMBA2_STATE, self.h, self.p
        z, xbc, dt = self.in_proj(self.norm(h)).split([E, E + 2 * N, H], -1)
        xbc = F.silu(self.conv1d(F.pad(xbc.transpose(1, 2), (MAMBA2_CONV - 1, 0)))).transpose(1, 2)
        x, Bm, Cm = xbc.split([E, N, N], -1)
        x = x.view(Bsz, T, H, P).transpose(1, 2)  # (B, H, T, P)
        dt = F.softplus(dt + self.dt_bias).transpose(1, 2)  # (B, H, T)
        y = ssd_chunked(x, dt, -torch.exp(self.A_log), Bm, Cm) + self.D.view(1, H, 1, 1) * x
        y = y.transpose(1, 2).reshape(Bsz, T, E)
        return h + self.out_proj(self.out_norm(y * F.silu(z)))


class Mamba2(nn.Module):
    """input_proj, L Mamba-2 layers, final RMSNorm, output; no PE, no FFN."""

    def __init__(self, d, h, L, features=1, outputs=1):
        super().__init__()
        self.input_proj = nn.Linear(features, d)
        self.output = nn.Linear(d, outputs)
        self.layers = L
        for l in range(L):  # named layer0, layer1, ... as the engine's
            setattr(self, f"layer{l}", Mamba2Layer(d, h))
        self.norm_f = RMSNorm(d)

    def forward(self, x):
        h = self.input_proj(x)
        for l in range(self.layers):
            h = getattr(self, f"layer{l}")(h)
        return self.output(self.norm_f(h))


def lookback_windows(x, L):
    """lookbackWindows: (B, T, C) -> (B, T, C, L), [b, t, c, k] = x[b, t − L + 1 + k, c], the
    positions before 0 read as position 0 (the window of t holds inputs ≤ t only)."""
    B, _, C = x.shape
    padded = torch.cat([x[:, :1].expand(B, L - 1, C), x], 1)  # (B, T + L − 1, C)
    return padded.unfold(1, L, 1)


def steps_by_column(y):
    """stepsByColumn: (B, T, C, H) -> (B, T, H·C), step h of column c at h·C + c."""
    B, T, C, H = y.shape
    return y.transpose(2, 3).reshape(B, T, H * C)


class DLinear(nn.Module):
    """DLinear (Zeng et al. 2023) on each position's window w: trend = the moving average of
    kernel 25 over w padded with repeats of its end values, y = W_t·trend + W_r·(w − trend) + b.
    Written as the paper's decomposition (the engine folds the two maps into one)."""

    def __init__(self, lookback=LOOKBACK, features=1, outputs=1):
        super().__init__()
        self.lookback = lookback
        self.trend = nn.Linear(lookback, outputs // features)  # the engine's order
        self.remainder = nn.Linear(lookback, outputs // features)

    def forward(self, x):
        w = lookback_windows(x, self.lookback)  # (B, T, C, L)
        p = (DLINEAR_KERNEL - 1) // 2
        padded = torch.cat([w[..., :1].expand(*w.shape[:-1], p), w,
                            w[..., -1:].expand(*w.shape[:-1], p)], -1)  # (B, T, C, L + 2p)
        trend = padded.unfold(-1, DLINEAR_KERNEL, 1).mean(-1)  # (B, T, C, L)
        return steps_by_column(self.trend(trend) + self.remainder(w - trend))


class NLinear(nn.Module):
    """NLinear (Zeng et al. 2023): y = W·(w − w_L) + b + w_L on each position's window w."""

    def __init__(self, lookback=LOOKBACK, features=1, outputs=1):
        super().__init__()
        self.lookback = lookback
        self.map = nn.Linear(lookback, outputs // features)

    def forward(self, x):
        last = x.unsqueeze(-1)  # (B, T, C, 1): the window's last value x_t
        return steps_by_column(self.map(lookback_windows(x, self.lookback) - last) + last)


LINEAR_FORECASTERS = {"dlinear": DLinear, "nlinear": NLinear}


def make_model(model, d, h, L, **options):
    """The peer of makeSequenceModel(modelOptions(model, d, h, L), F = 1, O = 1); `options`
    (retnet: learnable_decay, rotation) go to the attention."""
    if model in RECURRENT:
        return Recurrent(model, d, L)
    if model in ATTENTION:
        return Transformer(ATTENTION[model], d, h, L, **options)
    if model == "starsaber":
        return StarSaber(d, h, L)
    if model == "mamba2":
        return Mamba2(d, h, L)
    if model in LINEAR_FORECASTERS:  # no width, heads or layers: ModelOptions' lookback
        return LINEAR_FORECASTERS[model]()
    raise ValueError(f"the peer has no model {model!r}: use {', '.join(model_names())}")


def model_names():
    """Every model make_model builds, by the engine's names."""
    return [*ATTENTION, "starsaber", "mamba2", *RECURRENT, *LINEAR_FORECASTERS]


def adamw(net, lr=1e-3, weight_decay=0.01):
    """AdamW with weight decay on matrices only (dim >= 2), as the Trainer and the bench."""
    decay = [p for p in net.parameters() if p.dim() >= 2]
    rest = [p for p in net.parameters() if p.dim() < 2]
    return torch.optim.AdamW(
        [{"params": decay, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}],
        lr=lr)
