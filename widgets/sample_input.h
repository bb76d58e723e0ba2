// SPDX-License-Identifier: GPL-3.0-or-later
// SampleInput: the input sequence of the sample an inspection record was taken on, as plain data,
// so the views can label positions with tokens and draw the input beside gate activations.
// Filled by the training worker from the task's validation split; no LibTorch.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

namespace rsalab {

struct SampleInput {
  int sample = -1;             // validation sample index; -1: unknown
  int sample_count = 0;        // samples in the split (the picker's range)
  QStringList tokens;          // token tasks: one label per input position
  QStringList target_tokens;   // encoder–decoder: the decoder's input tokens
  std::vector<double> values;  // series tasks: T × features, row-major
  int features = 0;
  QStringList feature_names;
  int length() const {
    if (!tokens.isEmpty()) return int(tokens.size());
    return features > 0 ? int(values.size()) / features : 0;
  }
  // Hover labels for the input positions: the token, or "x=0.42" (first feature) for series.
  QStringList positionLabels() const {
    if (!tokens.isEmpty()) return tokens;
    QStringList out;
    const QString name = feature_names.isEmpty() ? QStringLiteral("x") : feature_names.front();
    for (int t = 0; t < length(); ++t)
      out << QStringLiteral("%1=%2").arg(name).arg(values[size_t(t * features)], 0, 'g', 3);
    return out;
  }
};

}  // namespace rsalab
