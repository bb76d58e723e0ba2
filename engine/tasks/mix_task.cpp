// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/mix_task.h"

#include <cmath>
#include <stdexcept>

#include "engine/tasks/task_support.h"
#include "engine/tasks/teacher_process.h"
#include "engine/tasks/teacher_task.h"

namespace rsalab {

using namespace task_support;

double mixRecurrentVariance(const TaskOptions& o) {
  if (o.teacher_process != TeacherProcess::Rem) return makeTeacherProcess(o, o.length).variance;
  const auto terms = teacherTerms(o);
  double sum = 0, cumulative = 0;  // cumulative = Var r_t = Σ_{d=1..t} kernel(d)²
  for (int64_t t = 0; t < o.length; ++t) {
    sum += cumulative;
    double k = 0;
    const double d = static_cast<double>(t + 1);
    for (const auto& term : terms)
      k += std::pow(term.base, d) * (term.cos ? std::cos(term.theta * d) : 1.0);
    cumulative += k * k;
  }
  return sum / static_cast<double>(o.length);
}

double mixLookupVariance(int64_t keys, int64_t length) {
  // l_t averages 1 + B unit-variance values, B ~ Binomial(t, p) earlier matches (p = 1/K):
  // Var l_t = E[1/(1 + B)] = (1 − (1 − p)^(t+1)) / ((t + 1) p).
  const double p = 1.0 / static_cast<double>(keys);
  double sum = 0;
  for (int64_t t = 0; t < length; ++t) {
    const double m = static_cast<double>(t + 1);
    sum += (1.0 - std::pow(1.0 - p, m)) / (m * p);
  }
  return sum / static_cast<double>(length);
}

MixParts mixParts(const TaskOptions& o, int64_t n, uint64_t seed) {
  requireReal(o.mix_share >= 0 && o.mix_share <= 1, "mix_share", o.mix_share, "[0, 1]");
  requireRange("mix_keys", o.mix_keys, 2, 256);
  const bool rem = o.teacher_process == TeacherProcess::Rem;
  const auto terms = rem ? teacherTerms(o) : std::vector<TeacherTerm>{};
  const int64_t T = o.length, K = o.mix_keys;
  TaskRng rng(seed);
  std::vector<double> x(static_cast<size_t>(n * T)), v(x.size()), eps(x.size());
  std::vector<int64_t> k(x.size());
  for (size_t i = 0; i < x.size(); ++i) {  // position by position: prefixes do not depend on n
    x[i] = rng.normal();
    k[i] = rng.below(K);
    v[i] = rng.normal();
    eps[i] = rng.normal();
  }
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  MixParts p;
  p.x = torch::tensor(x, f64).view({n, T});
  p.keys = torch::tensor(k, torch::TensorOptions().dtype(torch::kInt64)).view({n, T});
  p.values = torch::tensor(v, f64).view({n, T});
  p.sigma_lookup = std::sqrt(mixLookupVariance(K, T));
  if (rem) {
    p.sigma_recurrent = std::sqrt(mixRecurrentVariance(o));
    p.recurrent = teacherTargets(p.x, terms) / p.sigma_recurrent;
  } else {  // a process without an REM form, scaled to unit variance (teacher_process.h)
    const auto process = makeTeacherProcess(o, T);
    p.sigma_recurrent = std::sqrt(process.variance);
    p.recurrent =
        torch::tensor(runTeacherProcess(process, x, n, T), f64).view({n, T}) * process.scale();
  }
  // The lookup, by running sums per key: l_t = (Σ matches ≤ t of v) / (count of matches ≤ t).
  std::vector<double> l(x.size());
  std::vector<double> sums(static_cast<size_t>(K));
  std::vector<int64_t> counts(static_cast<size_t>(K));
  for (int64_t s = 0; s < n; ++s) {
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(counts.begin(), counts.end(), 0);
    for (int64_t t = 0; t < T; ++t) {
      const size_t i = static_cast<size_t>(s * T + t);
      const auto key = static_cast<size_t>(k[i]);
      sums[key] += v[i];
      counts[key] += 1;
      l[i] = sums[key] / static_cast<double>(counts[key]) / p.sigma_lookup;
    }
  }
  p.lookup = torch::tensor(l, f64).view({n, T});
  p.target = std::sqrt(o.mix_share) * p.recurrent + std::sqrt(1.0 - o.mix_share) * p.lookup +
             o.noise * torch::tensor(eps, f64).view({n, T});
  return p;
}

namespace {

DataSplit mixSplit(const TaskOptions& o, int64_t n, uint64_t seed) {
  const MixParts p = mixParts(o, n, seed);
  DataSplit split;
  auto onehot = torch::one_hot(p.keys, o.mix_keys).to(torch::kFloat64);  // (N, T, K)
  split.x = torch::cat({p.x.unsqueeze(-1), onehot, p.values.unsqueeze(-1)}, -1)
                .to(torch::kFloat32)
                .contiguous();                                        // (N, T, K + 2)
  split.y = p.target.to(torch::kFloat32).unsqueeze(-1).contiguous();  // (N, T, 1)
  return split;
}

// The mix's splits, input/output sizes and columns, whatever its recurrent part's process.
TaskData mixData(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  TaskData data;
  data.name = o.name;
  data.objective = Objective::Regression;
  data.train = mixSplit(o, train_size, streamSeed(seed, kTrainStream));
  data.validation = mixSplit(o, o.validation_size, streamSeed(seed, kValidationStream));
  data.test = mixSplit(o, o.test_size, streamSeed(seed, kTestStream));
  data.io.input_dim = o.mix_keys + 2;
  data.io.output_dim = 1;
  data.columns.push_back("x");
  for (int64_t i = 0; i < o.mix_keys; ++i) data.columns.push_back("key" + std::to_string(i));
  data.columns.push_back("value");
  return data;
}

// The mix of a process without an REM form: the same inputs, lookup and noise; its truth is the
// process's (the kernel of √a·r̃ for power and jordan).
TaskData makeProcessMixTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  TaskData data = mixData(o, train_size, seed);
  const auto process = makeTeacherProcess(o, o.length);
  data.truth = processTruth(process, o, o.length, std::sqrt(o.mix_share) * process.scale());
  const std::string formula = data.truth.description;
  data.truth.meaning =
      "the recurrent part's process (no REM form: no head is matched), its share "
      "a = " +
      formatNumber(o.mix_share, 6) + " of the signal's variance";
  data.truth.bayes_floor = o.noise * o.noise;
  data.truth.floor_note = "noise²: both parts are fixed functions of the inputs up to t";
  data.truth.description = "mix a=" + formatNumber(o.mix_share, 6) + ": √a·" + formula +
                           " + √(1−a)·lookup over " + std::to_string(o.mix_keys) +
                           " keys + noise " + formatNumber(o.noise, 6);
  data.summary = "mix: " + std::to_string(train_size) + "/" + std::to_string(o.validation_size) +
                 "/" + std::to_string(o.test_size) +
                 " train/validation/test sequences, T=" + std::to_string(o.length) +
                 "; recurrent share a=" + formatNumber(o.mix_share, 6) + " (" + formula +
                 "; scaled to unit variance by " + teacherScaleText(process) + "), lookup over " +
                 std::to_string(o.mix_keys) + " keys, noise " + formatNumber(o.noise, 6);
  return data;
}

}  // namespace

TaskData makeMixTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  if (o.teacher_process != TeacherProcess::Rem) return makeProcessMixTask(o, train_size, seed);
  const auto terms = teacherTerms(o);
  TaskData data = mixData(o, train_size, seed);
  std::string kernel;
  for (const auto& term : terms) {
    if (!kernel.empty()) kernel += " + ";
    if (term.cos) {
      data.truth.components.push_back({RemKind::Cos, term.base, term.theta});
      kernel += "γ=" + formatNumber(term.base, 6) + " θ=" + formatNumber(term.theta, 6);
    } else {
      data.truth.components.push_back({RemKind::Regular, term.base, 0.0});
      kernel += "λ=" + formatNumber(term.base, 6);
    }
  }
  data.truth.meaning =
      "generating REM of the recurrent part (its share a = " + formatNumber(o.mix_share, 6) +
      " of the signal's variance)";
  data.truth.bayes_floor = o.noise * o.noise;
  data.truth.floor_note = "noise²: both parts are fixed functions of the inputs up to t";
  data.truth.description = "mix a=" + formatNumber(o.mix_share, 6) + ": √a·REM(" + kernel +
                           ") + √(1−a)·lookup over " + std::to_string(o.mix_keys) +
                           " keys + noise " + formatNumber(o.noise, 6);
  data.summary = "mix: " + std::to_string(train_size) + "/" + std::to_string(o.validation_size) +
                 "/" + std::to_string(o.test_size) +
                 " train/validation/test sequences, T=" + std::to_string(o.length) +
                 "; recurrent share a=" + formatNumber(o.mix_share, 6) + " (" + kernel + "; " +
                 teacherProcessLabel(TeacherProcess::Rem) + "), lookup over " +
                 std::to_string(o.mix_keys) + " keys, noise " + formatNumber(o.noise, 6);
  return data;
}

}  // namespace rsalab
