// SPDX-License-Identifier: GPL-3.0-or-later
// A model is one card: its name and title, its paper, its equation, the T × T matrix the Attention
// view shows, its row of the family table (docs/FAMILY.md), its family, attention kind or cell,
// its named flags and its FLOP count. The registry (model_registry.h) is the list of cards
// (model_cards.cpp); every other list of models is read from it. Plain C++: no LibTorch, no Qt
// (a card cannot name a constructor: each attention's .cpp registers its maker under the card's
// attention_name, engine/models/transformer.h).
#pragma once

#include <cstdint>
#include <optional>

#include "engine/core/io/enums.h"

namespace rsalab {

// Linear: linear forecasters of the lookback window (DLinear, NLinear), series tasks only.
// StateSpace: selective state-space stacks (Mamba-2), causal whatever `causal` says.
// Forecaster: encoder-decoder forecasters of a whole window (Informer), the long-horizon
// protocol only (LongHorizonOnly).
enum class ModelFamily {
  Recurrent,
  Attention,
  FixedPoint,
  Seq2Seq,
  Linear,
  StateSpace,
  Forecaster
};
// recurrent | attention | fixed-point | seq2seq | linear | state-space | forecaster
const char* modelFamilyName(ModelFamily family);

// What a card says of its model, one bit each (ModelCard::flags; `rsalab-cli models --json`
// prints them by modelFlagName).
enum ModelFlag : uint32_t {
  // No bidirectional form: built causal whatever ModelOptions::causal says, refused as an
  // encoder's attention and under a bidirectional config of a next-step task.
  CausalOnly = 1u << 0,
  // No sinusoidal positional encoding on the input projection: the attention carries position
  // (retention's decay and rotation, ALiBi's bias, the forget gates).
  NoPositionalEncoding = 1u << 1,
  HasRems = 1u << 2,        // RSA-style recurrence encoding matrices in its attention
  HasGates = 1u << 3,       // gates the inspector shows (LSTM/GRU gates, StarSaber's α)
  RecordsDecays = 1u << 4,  // its inspection records decays (memory_horizon.h)
  // Forecasts a real-valued series only: real inputs and per-position outputs of H steps × the
  // input's C columns (a regression task); token inputs, pooled outputs and seq2seq are refused.
  SeriesOnly = 1u << 5,
  DefaultLaunch = 1u << 6,  // in the GUI's default launch and the bench's default comparison
  HasPeer = 1u << 7,        // bench/peer/models.py builds its PyTorch twin
  // Forecasts a window's H steps in one pass from the window and its calendar marks
  // (DataSplit::marks): one output position, no per-position outputs and no generation step. Runs
  // on the long-horizon protocol only; the per-position checks (causality, generation) skip it.
  LongHorizonOnly = 1u << 8,
};
// Every flag in bit order, for loops and the JSON listing.
constexpr ModelFlag kModelFlags[] = {CausalOnly,     NoPositionalEncoding, HasRems,       HasGates,
                                     RecordsDecays,  SeriesOnly,           DefaultLaunch, HasPeer,
                                     LongHorizonOnly};
// "causal_only", "no_positional_encoding", … (the JSON keys of `rsalab-cli models --json`).
const char* modelFlagName(ModelFlag flag);

// The paper a model is written from (authors as cited, venue and year, arXiv id; empty where
// there is none).
struct Paper {
  const char* authors = "";
  const char* title = "";
  const char* venue = "";
  const char* arxiv = "";
};

// A row of the recurrence-in-attention family's table (family_table.h, docs/FAMILY.md); all
// nullptr for a model outside that table.
struct FamilyForm {
  const char* parallel = nullptr;   // the implicit matrix A with y = A·V (or its T × T form)
  const char* recurrent = nullptr;  // how it generates one token
  const char* rems = nullptr;       // the relation to RSA's REMs
};

// The numbers a FLOP count reads: the options at sequence length T (flops.h fills it from
// ModelOptions and ModelIO). With N = B·T tokens, D width, H heads, L layers.
struct StepShape {
  int64_t B = 1, T = 1, D = 1, H = 1, L = 1;
  int64_t ff_mult = 4;
  int64_t rem_heads = 0;  // RSA: R
  int64_t in_features = 1, out_features = 1;
  bool gated = false;     // StarSaber gated variant
  int64_t lookback = 24;  // the linear family's window K (ModelOptions::lookback)
};

struct ModelCard {
  const char* name = "";      // as given to --model, saved in configs and bundles
  const char* title = "";     // human name (GUI check boxes, legends, `rsalab-cli models`)
  Paper paper;                //
  const char* equation = "";  // the seed paper's equation, one line
  // What the model's T × T matrix in the Attention view is (HeadInspection::attention: the weights
  // that multiply V, explicit or implied) and how it is normalised, one line for the view's
  // caption; nullptr for a model without one (the recurrent and linear families).
  const char* matrix_rule = nullptr;
  FamilyForm form;
  ModelFamily family = ModelFamily::Attention;
  // Attention family: the name of the attention inside the transformer block ("softmax",
  // "retention"; configs keep it, and its .cpp registers its maker under it) and its kind (given
  // by registry order); nullptr and nullopt for the other families.
  const char* attention_name = nullptr;
  std::optional<AttentionKind> attention;
  // Attention family: the state its one-token step carries ("(S, z)"); nullptr for a KV cache
  // (the bench's generation rows are named by it).
  const char* step_state = nullptr;
  // Recurrent family: the cell the model stacks (engine/models/recurrent_model.h builds it) and
  // its gate blocks (FLOP count: rnn 1, gru 3, lstm 4); nullopt and 0 for the other families.
  std::optional<RecurrentCell> cell;
  int gate_blocks = 0;
  uint32_t flags = 0;  // ModelFlag bits
  // Forward FLOPs of one step of `shape` (flops.h's conventions); nullptr: not counted (the
  // seq2seq family).
  double (*forward_flops)(const StepShape& shape) = nullptr;

  bool has(ModelFlag flag) const { return (flags & flag) != 0; }
  bool causalOnly() const { return has(CausalOnly); }
  // Forward FLOPs of one step of `shape`; 0 where the card has no count.
  double flops(const StepShape& shape) const { return forward_flops ? forward_flops(shape) : 0; }
};

}  // namespace rsalab
