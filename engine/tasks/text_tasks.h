// SPDX-License-Identifier: GPL-3.0-or-later
// Tasks on a text, one byte per token: "charlm" (next-character language modelling) and "mlm"
// (StarSaber's masked-LM pretraining objective on the same windows).
//
// The text is options.text_path, else the bundled public-domain text
// resources/text/us_founding_documents.txt, found by resourcePath (engine/core/io/resources.h:
// $RSALAB_RESOURCES, the installed share/rsalab, then the source tree's resources/).
// Vocabulary: the distinct bytes of the whole text, sorted; token id = rank. The text is cut into
// contiguous parts — first 80% train, next 10% validation, last 10% test — and every window lies
// inside one part, at an offset drawn uniformly with the split's own random stream.
//   charlm: x (N, T) = text[s, s+T), y (N, T) = text[s+1, s+T+1)   Objective::LanguageModel
//   mlm:    y = text[s, s+T) (clean), mlm_probability = 0.3. Training: x = y, and the trainer
//           corrupts x anew for every batch with corruptForMlm (engine/tasks/mlm_corruption.h).
//           Validation and test: x is y corrupted once with a fixed stream per split, and
//           DataSplit::corrupted marks the redrawn positions. The loss is over every position
//           (the training objective); "accuracy" counts only the redrawn positions (a model that
//           copies its input scores 1/V there) and "accuracy_all" every position (copying
//           scores about 1 − p + p/V).
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/io/resources.h"  // resourcePath
#include "engine/tasks/task.h"

namespace rsalab {

constexpr const char* kBundledText = "text/us_founding_documents.txt";
constexpr int64_t kMaxTextBytes = int64_t{64} << 20;
constexpr double kMlmProbability = 0.3;  // StarSaber seed: masking probability per position

// The whole file as bytes; std::runtime_error when unreadable, empty or over kMaxTextBytes.
std::string readTextFile(const std::string& path);

TaskData makeTextTask(const TaskOptions& options, int64_t train_size, uint64_t seed);

}  // namespace rsalab
