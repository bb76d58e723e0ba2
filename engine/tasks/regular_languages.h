// SPDX-License-Identifier: GPL-3.0-or-later
// Formal-language classification (the RSA paper's regular-language family): parity, Dyck-1 and
// the seven Tomita grammars. Each sequence is labelled 1 when it is in the language.
//
//   parity   {0,1}: an odd number of 1s
//   dyck1    {(,)}: balanced brackets (depth never negative, ends at depth 0)
//   tomita1  1*
//   tomita2  (10)*
//   tomita3  no odd-length run of 1s is followed, anywhere later, by an odd-length run of 0s
//            (runs maximal; Tomita 1982, "no odd-length 0-string after an odd-length 1-string",
//            as used by Weiss et al. 2018; a trailing odd run of 0s counts)
//   tomita4  no "000" substring
//   tomita5  even number of 0s and even number of 1s
//   tomita6  (#0 − #1) ≡ 0 (mod 3)
//   tomita7  0*1*0*1*
//
// Tokens: 0 and 1 are the two symbols ('0'/'1', or '(' / ')' for dyck1); 2 is padding.
// x (N, W) int64 right-padded with 2, W = max_length for train and test_max_length for
// validation/test; y (N) int64 in {0, 1}.
//
// Sampling: rows alternate positive / negative (exactly balanced). The length is uniform in
// [min_length, max_length] for train and [max_length + 1, test_max_length] for validation and
// test (length generalisation); when no string of the wanted label has that length (e.g. odd
// lengths of tomita2 or dyck1) the nearest length in range that has one is used. Positives are
// drawn uniformly among the accepted strings of their length (counting through the automaton,
// so rare positives such as 1* or (10)* are built directly); negatives are half uniform among
// the rejected strings and half "near misses": an accepted string with one symbol flipped,
// kept only if the automaton rejects it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/tasks/task.h"

namespace rsalab {

constexpr int64_t kMaxLanguageLength = 1000;  // longest string for the language tasks

// Membership of a word over the task's two characters ('0'/'1' or '('/')'), by the automaton
// the generator labels with. Throws std::invalid_argument for another name or character.
bool regularLanguageAccepts(const std::string& name, const std::string& word);
TaskData makeRegularLanguageTask(const TaskOptions& options, int64_t train_size, uint64_t seed);

}  // namespace rsalab
