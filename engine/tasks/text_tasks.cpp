// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/text_tasks.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/tasks/mlm_corruption.h"
#include "engine/tasks/task_support.h"

namespace rsalab {
namespace {

using namespace task_support;

std::string tokenLabel(unsigned char c) {
  if (c == '\n') return "\\n";
  if (c == '\t') return "\\t";
  if (c == '\r') return "\\r";
  if (c < 0x20 || c >= 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", c);
    return buf;
  }
  return std::string(1, static_cast<char>(c));
}

std::string baseName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Windows of T tokens (plus one more for the next-character targets) inside [begin, end).
DataSplit textSplit(const std::vector<int64_t>& ids, int64_t begin, int64_t end, int64_t rows,
                    int64_t T, bool next_token, uint64_t seed) {
  TaskRng rng(seed);
  const int64_t need = next_token ? T + 1 : T;
  auto x = torch::empty({rows, T}, torch::kInt64);  // (N, T)
  auto y = torch::empty({rows, T}, torch::kInt64);  // (N, T)
  auto xa = x.accessor<int64_t, 2>();
  auto ya = y.accessor<int64_t, 2>();
  const int64_t shift = next_token ? 1 : 0;
  for (int64_t n = 0; n < rows; ++n) {
    const int64_t s = rng.between(begin, end - need);
    for (int64_t t = 0; t < T; ++t) {
      xa[n][t] = ids[static_cast<size_t>(s + t)];
      ya[n][t] = ids[static_cast<size_t>(s + t + shift)];
    }
  }
  DataSplit split;
  split.x = x;
  split.y = y;
  return split;
}

}  // namespace

std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the text file");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<int64_t>(in.tellg());
  if (size > kMaxTextBytes) {
    throw std::runtime_error(path + ": " + std::to_string(size) + " bytes is over the limit of " +
                             std::to_string(kMaxTextBytes) + " bytes (64 MiB)");
  }
  in.seekg(0, std::ios::beg);
  std::string text(static_cast<size_t>(std::max<int64_t>(size, 0)), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in || text.empty()) {
    throw std::runtime_error(path + ": the text file is empty or unreadable");
  }
  return text;
}

TaskData makeTextTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  const std::string path = o.text_path.empty() ? resourcePath(kBundledText) : o.text_path;
  const std::string text = readTextFile(path);
  const bool mlm = o.name == "mlm";

  std::array<bool, 256> present{};
  for (unsigned char c : text) present[c] = true;
  std::array<int64_t, 256> id{};
  TaskData data;
  for (int c = 0; c < 256; ++c) {
    if (!present[static_cast<size_t>(c)]) continue;
    id[static_cast<size_t>(c)] = static_cast<int64_t>(data.vocabulary.size());
    data.vocabulary.push_back(tokenLabel(static_cast<unsigned char>(c)));
  }
  std::vector<int64_t> ids(text.size());
  for (size_t i = 0; i < text.size(); ++i) ids[i] = id[static_cast<unsigned char>(text[i])];

  const auto n = static_cast<int64_t>(text.size());
  const int64_t train_end = n * 8 / 10, validation_end = n * 9 / 10;
  const int64_t need = mlm ? o.length : o.length + 1;
  const int64_t shortest = std::min({train_end, validation_end - train_end, n - validation_end});
  if (shortest < need) {
    throw std::invalid_argument(
        "length = " + std::to_string(o.length) + " is too long for " + baseName(path) +
        ": its smallest part (10% of " + std::to_string(n) + " bytes) has " +
        std::to_string(shortest) +
        " bytes; use length <= " + std::to_string(shortest - (need - o.length)));
  }
  data.name = o.name;
  data.objective = Objective::LanguageModel;
  data.train =
      textSplit(ids, 0, train_end, train_size, o.length, !mlm, streamSeed(seed, kTrainStream));
  data.validation = textSplit(ids, train_end, validation_end, o.validation_size, o.length, !mlm,
                              streamSeed(seed, kValidationStream));
  data.test =
      textSplit(ids, validation_end, n, o.test_size, o.length, !mlm, streamSeed(seed, kTestStream));
  const auto V = static_cast<int64_t>(data.vocabulary.size());
  data.io.vocab = V;
  data.io.output_dim = V;
  if (mlm) {
    data.mlm_probability = kMlmProbability;
    // Validation and test are corrupted once, the way training corrupts every batch, each with
    // its own fixed stream: x becomes the corrupted text, y stays clean, and `corrupted` marks
    // the redrawn positions (the ones a model that copies its input cannot restore).
    uint64_t index = 0;
    for (DataSplit* split : {&data.validation, &data.test}) {
      auto gen = at::detail::createCPUGenerator(streamSeed(seed, kMlmEvalStream, index++));
      auto corrupted = corruptForMlmWithMask(split->x, kMlmProbability, V, gen);
      split->x = corrupted.tokens;
      split->corrupted = corrupted.replaced;
    }
  }
  data.summary =
      o.name + ": " + std::to_string(train_size) + "/" + std::to_string(o.validation_size) + "/" +
      std::to_string(o.test_size) + " train/validation/test windows of " +
      std::to_string(o.length) + " characters from " + baseName(path) + " (" + std::to_string(n) +
      " bytes, 80/10/10% split), vocabulary " + std::to_string(V) +
      (mlm ? "; MLM: each input token redrawn uniformly with p = 0.3 (training: anew every "
             "batch; validation/test: once, fixed)"
           : "");
  return data;
}

}  // namespace rsalab
