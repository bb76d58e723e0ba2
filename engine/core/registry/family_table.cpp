// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/family_table.h"

#include "engine/core/io/marked_block.h"

namespace rsalab {

namespace {

const char* const kBegin =
    "<!-- family forms: begin (rsalab-cli models --docs docs/FAMILY.md writes this) -->";
const char* const kEnd = "<!-- family forms: end -->";

// A table cell: Markdown's column separator escaped (|row sum| would end the cell).
std::string cell(const char* text) {
  std::string out;
  for (const char* c = text; *c; ++c) {
    if (*c == '|') out += '\\';
    out += *c;
  }
  return out;
}

}  // namespace

const std::vector<FamilyForm>& familyForms() {
  static const std::vector<FamilyForm> rows = {
      {"transformer", "softmax(QKᵀ/√d + causal mask)", "a KV cache: every key and value so far",
       "none: position enters only by the sinusoidal PE"},
      {"rsa",
       "(1 − σ(µ))·softmax(QKᵀ/√d) + σ(µ)·P, P_ij = λ^(i−j) (regular) or γ^(i−j)cos/sin(θ(i−j))",
       "a KV cache (the softmax part needs every key)",
       "the REMs themselves, added after the softmax with a gate"},
      {"retnet",
       "(QKᵀ/√d ⊙ D) after its normalisers, D_nm = γ_h^(n−m) for n ≥ m, γ_h = 1 − 2^(−5−h) fixed "
       "or learned; no softmax",
       "S_n = γ S_{n−1} + k_nᵀv_n, o_n = q_n S_n (with the normalisers' own recurrences)",
       "D is the regular REM with its diagonal kept, multiplied into QKᵀ; the rotation e^{i(n−m)θ} "
       "gives the cyclical REMs"},
      {"alibi", "softmax(QKᵀ/√d − m_h·(i−j)), m_h = 2^(−8h/H)",
       "a KV cache; the bias −m_h·(t−j) is recomputed per query",
       "softmax(QKᵀ/√d) ⊙ P renormalised: a fixed regular REM λ_h = e^(−m_h) multiplied inside "
       "the softmax"},
      {"fox", "softmax(QKᵀ/√d + log F), F_ij = ∏_{k=j+1..i} f_k, f_t = σ(w_h·x_t + b_h)",
       "a KV cache and the running Σ log f_k per cached key",
       "a data-dependent regular REM F multiplied inside the softmax (ALiBi's with learned, "
       "per-token λ)"},
      {"gla",
       "A_ij = Σ_c q_ic k_jc ∏_{k=j+1..i} α_kc, α_t = σ(x_t W_α)^(1/16) per key channel; no "
       "softmax",
       "S_t = diag(α_t) S_{t−1} + k_tᵀv_t, o_t = q_t S_t",
       "one data-dependent regular REM per key channel, multiplied into QKᵀ channel by channel"},
      {"mlstm",
       "(QKᵀ/√d ⊙ exp(log D − m_i)) / max(|row sum|, e^(−m_i)), log D_ij = Σ_{k=j+1..i} log f_k + "
       "ĩ_j",
       "C_t = f_t C_{t−1} + i_t v_t k_tᵀ, n_t = f_t n_{t−1} + i_t k_t, h_t = C_t q_t / max(|n_tᵀ "
       "q_t|, 1), with the stabiliser m_t",
       "a data-dependent regular REM (the forget gates) times a per-key input gate, multiplied "
       "into QKᵀ and normalised by its row sum"},
      {"mamba2",
       "L ∘ (C Bᵀ) with Δ_j folded in, L_ij = ∏_{k=j+1..i} a_k, a_t = exp(Δ_t·A_h) per head and "
       "token",
       "h_t = a_t h_{t−1} + Δ_t x_t B_tᵀ, y_t = h_t C_t + D x_t",
       "a data-dependent (\"selective\") regular REM; with a_t ≡ γ, L is RetNet's D"},
  };
  return rows;
}

const FamilyForm* findFamilyForm(const std::string& model) {
  for (const auto& row : familyForms())
    if (model == row.model) return &row;
  return nullptr;
}

std::string familyFormsBlock() {
  std::string out = std::string(kBegin) +
                    "\n| model | implicit matrix (parallel form) | recurrent form (generation) | "
                    "relation to RSA's REMs |\n|---|---|---|---|\n";
  for (const auto& row : familyForms())
    out += "| `" + std::string(row.model) + "` | " + cell(row.parallel) + " | " +
           cell(row.recurrent) + " | " + cell(row.rems) + " |\n";
  return out + kEnd + "\n";
}

std::string replaceFamilyFormsBlock(const std::string& markdown, const std::string& what) {
  return replaceMarkedBlock(markdown, familyFormsBlock(), kBegin, kEnd, what);
}

bool familyFormsBlockCurrent(const std::string& markdown, const std::string& what) {
  return markedBlockIn(markdown, kBegin, kEnd, what) == familyFormsBlock();
}

}  // namespace rsalab
