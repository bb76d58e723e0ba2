// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/regular_languages.h"

#include <array>
#include <stdexcept>
#include <utility>

#include "engine/tasks/task_support.h"

namespace rsalab {
namespace {

using namespace task_support;

constexpr int64_t kPad = 2;

// A complete DFA over symbols {0, 1}; state 0 is the start.
struct Dfa {
  std::vector<std::array<int, 2>> next;
  std::vector<bool> accept;
  std::array<char, 2> chars = {'0', '1'};
  int states() const { return static_cast<int>(next.size()); }
};

Dfa dfa(std::vector<std::array<int, 2>> next, std::vector<bool> accept) {
  Dfa d;
  d.next = std::move(next);
  d.accept = std::move(accept);
  return d;
}

// The automaton of each language task (the task rows are engine/core/registry/task_registry.cpp's
// Language family); `max_depth` bounds the Dyck counter (no string of that length goes deeper).
struct LanguageAutomaton {
  const char* name;
  Dfa (*build)(int64_t max_depth);
};
const LanguageAutomaton kAutomata[] = {
    {"parity",  // state = number of 1s mod 2
     [](int64_t) {
       return dfa({{0, 1}, {1, 0}}, {false, true});
     }},
    {"dyck1",  // state = depth 0..D, D+1 = dead
     [](int64_t max_depth) {
       Dfa d;
       const int D = static_cast<int>(max_depth), dead = D + 1;
       for (int s = 0; s <= dead; ++s) {
         if (s == dead) {
           d.next.push_back({dead, dead});
         } else {
           d.next.push_back({s < D ? s + 1 : dead, s > 0 ? s - 1 : dead});
         }
         d.accept.push_back(s == 0);
       }
       d.chars = {'(', ')'};
       return d;
     }},
    {"tomita1",  // 1*
     [](int64_t) {
       return dfa({{1, 0}, {1, 1}}, {true, false});
     }},
    {"tomita2",  // (10)*: 0 = expect 1 (accept), 1 = expect 0, 2 dead
     [](int64_t) {
       return dfa({{2, 1}, {0, 2}, {2, 2}}, {true, false, false});
     }},
    // 0: no odd 1-run completed yet (in 0s or an even 1-run); 1: in an odd 1-run;
    // 2: after an odd 1-run, in an odd 0-run; 3: after an odd 1-run, not in an odd 0-run;
    // 4: dead (an odd 0-run ended after an odd 1-run).
    {"tomita3",
     [](int64_t) {
       return dfa({{0, 1}, {2, 0}, {3, 4}, {2, 3}, {4, 4}}, {true, true, false, true, false});
     }},
    {"tomita4",  // state = trailing 0s, 3 = dead ("000" seen)
     [](int64_t) {
       return dfa({{1, 0}, {2, 0}, {3, 0}, {3, 3}}, {true, true, true, false});
     }},
    {"tomita5",  // state = 2·(#0 mod 2) + (#1 mod 2)
     [](int64_t) {
       return dfa({{2, 1}, {3, 0}, {0, 3}, {1, 2}}, {true, false, false, false});
     }},
    {"tomita6",  // state = (#0 − #1) mod 3
     [](int64_t) {
       return dfa({{1, 2}, {2, 0}, {0, 1}}, {true, false, false});
     }},
    {"tomita7",  // 0*1*0*1*: which block we are in, 4 = dead
     [](int64_t) {
       return dfa({{0, 1}, {2, 1}, {2, 3}, {4, 3}, {4, 4}}, {true, true, true, true, false});
     }},
};

Dfa languageDfa(const std::string& name, int64_t max_depth) {
  for (const auto& a : kAutomata) {
    if (name == a.name) return a.build(max_depth);
  }
  throw std::invalid_argument("'" + name + "' is not a regular-language task");
}

// Uniform sampling of strings of a given length and label by counting through the DFA:
// frac[label][r][q] = share of the 2^r strings of length r that lead q to `label`.
class LanguageSampler {
 public:
  LanguageSampler(Dfa dfa, int64_t max_len) : dfa_(std::move(dfa)) {
    const int S = dfa_.states();
    for (int label = 0; label < 2; ++label) {
      auto& f = frac_[label];
      f.assign(static_cast<size_t>((max_len + 1) * S), 0.0);
      for (int q = 0; q < S; ++q) f[q] = dfa_.accept[q] == (label == 1) ? 1.0 : 0.0;
      for (int64_t r = 1; r <= max_len; ++r) {
        for (int q = 0; q < S; ++q) {
          at(label, r, q) =
              0.5 * (at(label, r - 1, dfa_.next[q][0]) + at(label, r - 1, dfa_.next[q][1]));
        }
      }
    }
  }

  bool exists(int label, int64_t n) const { return at(label, n, 0) > 0; }

  std::vector<int> sample(int label, int64_t n, TaskRng& rng) const {
    std::vector<int> w;
    int q = 0;
    for (int64_t r = n; r > 0; --r) {
      // P(symbol 0 | prefix) = share of completions through next[q][0]; 0 when that is a dead end.
      const double p0 = 0.5 * at(label, r - 1, dfa_.next[q][0]) / at(label, r, q);
      const int a = rng.uniform() < p0 ? 0 : 1;
      w.push_back(a);
      q = dfa_.next[q][a];
    }
    return w;
  }

  bool accepts(const std::vector<int>& w) const {
    int q = 0;
    for (int a : w) q = dfa_.next[q][a];
    return dfa_.accept[q];
  }

 private:
  double at(int label, int64_t r, int q) const {
    return frac_[label][static_cast<size_t>(r * dfa_.states() + q)];
  }
  double& at(int label, int64_t r, int q) {
    return frac_[label][static_cast<size_t>(r * dfa_.states() + q)];
  }

  Dfa dfa_;
  std::array<std::vector<double>, 2> frac_;
};

// Nearest length to `n` in [lo, hi] (shorter first on ties) with a string of `label`.
int64_t usableLength(const LanguageSampler& sampler, int label, int64_t n, int64_t lo, int64_t hi) {
  for (int64_t d = 0; d <= hi - lo; ++d) {
    if (n - d >= lo && sampler.exists(label, n - d)) return n - d;
    if (n + d <= hi && sampler.exists(label, n + d)) return n + d;
  }
  return -1;
}

DataSplit languageSplit(const std::string& name, const LanguageSampler& sampler, int64_t rows,
                        int64_t lo, int64_t hi, const std::string& range_fields, uint64_t seed) {
  for (int label = 0; label < 2; ++label) {
    if (usableLength(sampler, label, lo, lo, hi) < 0) {
      throw std::invalid_argument(name + " has no " + (label ? "positive" : "negative") +
                                  " strings with lengths in " + std::to_string(lo) + ".." +
                                  std::to_string(hi) + " (" + range_fields + "): widen the range");
    }
  }
  TaskRng rng(seed);
  auto x = torch::full({rows, hi}, kPad, torch::kInt64);  // (N, W)
  auto y = torch::zeros({rows}, torch::kInt64);           // (N)
  auto xa = x.accessor<int64_t, 2>();
  auto ya = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < rows; ++i) {
    const int label = i % 2 == 0 ? 1 : 0;
    const int64_t n = usableLength(sampler, label, rng.between(lo, hi), lo, hi);
    std::vector<int> w;
    if (label == 0 && rng.uniform() < 0.5 && sampler.exists(1, n)) {
      // Near miss: flip one symbol of an accepted string until the automaton rejects it.
      auto candidate = sampler.sample(1, n, rng);
      for (int attempt = 0; attempt < 8 && w.empty(); ++attempt) {
        const auto pos = static_cast<size_t>(rng.below(n));
        candidate[pos] ^= 1;
        if (!sampler.accepts(candidate)) w = candidate;
        candidate[pos] ^= 1;
      }
    }
    if (w.empty()) w = sampler.sample(label, n, rng);
    for (size_t t = 0; t < w.size(); ++t) xa[i][static_cast<int64_t>(t)] = w[t];
    ya[i] = sampler.accepts(w) ? 1 : 0;  // by construction equal to `label`
  }
  DataSplit split;
  split.x = x;
  split.y = y;
  return split;
}

}  // namespace

bool regularLanguageAccepts(const std::string& name, const std::string& word) {
  const Dfa dfa = languageDfa(name, static_cast<int64_t>(word.size()));
  int q = 0;
  for (char c : word) {
    if (c != dfa.chars[0] && c != dfa.chars[1]) {
      throw std::invalid_argument(std::string("character '") + c + "' is not in the alphabet of " +
                                  name);
    }
    q = dfa.next[q][c == dfa.chars[1] ? 1 : 0];
  }
  return dfa.accept[q];
}

TaskData makeRegularLanguageTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  requireRange("min_length", o.min_length, 1, kMaxLanguageLength - 1);
  requireRange("max_length", o.max_length, o.min_length, kMaxLanguageLength - 1);
  requireRange("test_max_length", o.test_max_length, o.max_length + 1, kMaxLanguageLength);
  const Dfa dfa = languageDfa(o.name, o.test_max_length);
  const LanguageSampler sampler(dfa, o.test_max_length);
  TaskData data;
  data.name = o.name;
  data.objective = Objective::Classification;
  const int64_t lo = o.max_length + 1, hi = o.test_max_length;
  data.train = languageSplit(o.name, sampler, train_size, o.min_length, o.max_length,
                             "min_length..max_length", streamSeed(seed, kTrainStream));
  data.validation =
      languageSplit(o.name, sampler, o.validation_size, lo, hi, "max_length + 1..test_max_length",
                    streamSeed(seed, kValidationStream));
  data.test = languageSplit(o.name, sampler, o.test_size, lo, hi, "max_length + 1..test_max_length",
                            streamSeed(seed, kTestStream));
  data.io.vocab = 3;
  data.io.output_dim = 2;
  data.io.pooled = true;
  data.io.pad_token = kPad;
  data.vocabulary = {std::string(1, dfa.chars[0]), std::string(1, dfa.chars[1]), "<pad>"};
  data.summary = o.name + ": " + std::to_string(train_size) + "/" +
                 std::to_string(o.validation_size) + "/" + std::to_string(o.test_size) +
                 " train/validation/test strings, half positive; train lengths " +
                 std::to_string(o.min_length) + ".." + std::to_string(o.max_length) +
                 ", validation/test lengths " + std::to_string(lo) + ".." + std::to_string(hi);
  return data;
}

}  // namespace rsalab
