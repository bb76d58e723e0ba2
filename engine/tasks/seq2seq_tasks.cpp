// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/seq2seq_tasks.h"

#include "engine/tasks/task_support.h"

namespace rsalab {
namespace {

using namespace task_support;

DataSplit seq2seqSplit(bool reverse, int64_t rows, int64_t T, int64_t symbols, uint64_t seed) {
  TaskRng rng(seed);
  auto x = torch::empty({rows, T}, torch::kInt64);  // (N, T)
  auto xa = x.accessor<int64_t, 2>();
  for (int64_t n = 0; n < rows; ++n) {
    for (int64_t t = 0; t < T; ++t) xa[n][t] = 1 + rng.below(symbols);
  }
  DataSplit split;
  split.x = x;
  split.y = reverse ? x.flip({1}).contiguous() : x.clone();  // (N, T)
  auto bos = torch::full({rows, 1}, kBosToken, torch::kInt64);
  split.target_in = torch::cat({bos, split.y.narrow(1, 0, T - 1)}, 1).contiguous();  // (N, T)
  return split;
}

}  // namespace

TaskData makeSeq2SeqTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  requireRange("symbols", o.symbols, 1, kMaxSymbols);
  const bool reverse = o.name == "reverse";
  TaskData data;
  data.name = o.name;
  data.objective = Objective::Seq2Seq;
  data.train =
      seq2seqSplit(reverse, train_size, o.length, o.symbols, streamSeed(seed, kTrainStream));
  data.validation = seq2seqSplit(reverse, o.validation_size, o.length, o.symbols,
                                 streamSeed(seed, kValidationStream));
  data.test =
      seq2seqSplit(reverse, o.test_size, o.length, o.symbols, streamSeed(seed, kTestStream));
  data.io.vocab = o.symbols + 1;
  data.io.output_dim = o.symbols + 1;
  data.bos = kBosToken;
  data.vocabulary.push_back("<bos>");
  for (int64_t s = 1; s <= o.symbols; ++s) data.vocabulary.push_back(std::to_string(s));
  data.summary = o.name + ": " + std::to_string(train_size) + "/" +
                 std::to_string(o.validation_size) + "/" + std::to_string(o.test_size) +
                 " train/validation/test pairs of " + std::to_string(o.length) + " symbols from " +
                 std::to_string(o.symbols) +
                 (reverse ? "; target = source reversed" : "; target = source");
  return data;
}

}  // namespace rsalab
