// SPDX-License-Identifier: GPL-3.0-or-later
// Sequence-to-sequence tasks "copy" and "reverse" for the encoder–decoder: the source is T
// symbols drawn uniformly; the target is the source itself (copy) or reversed (reverse).
//
// Tokens: 0 = <bos> (decoder start, never a target), symbols 1..options.symbols keep their ids.
// x (N, T) source, y (N, T) target, target_in (N, T) = <bos> followed by y[:, :-1] (teacher
// forcing); io.vocab = output_dim = symbols + 1; TaskData.bos = 0.
#pragma once

#include <cstdint>
#include <string>

#include "engine/tasks/task.h"

namespace rsalab {

constexpr int64_t kBosToken = 0;
constexpr int64_t kMaxSymbols = 65536;

TaskData makeSeq2SeqTask(const TaskOptions& options, int64_t train_size, uint64_t seed);

}  // namespace rsalab
