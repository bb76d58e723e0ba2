// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/teacher_task.h"

#include <cmath>
#include <stdexcept>

#include "engine/tasks/task_support.h"
#include "engine/tasks/teacher_process.h"

namespace rsalab {
namespace {

using namespace task_support;

// x (N, T) of the stream `seed`, row by row: the first rows never depend on n.
std::vector<double> teacherInputs(int64_t n, int64_t T, uint64_t seed) {
  TaskRng rng(seed);
  std::vector<double> values(static_cast<size_t>(n * T));
  for (double& v : values) v = rng.normal();
  return values;
}

DataSplit teacherSplit(const std::vector<TeacherTerm>& terms, int64_t n, int64_t T, uint64_t seed) {
  const auto values = teacherInputs(n, T, seed);
  auto x = torch::tensor(values, torch::TensorOptions().dtype(torch::kFloat64)).view({n, T});
  DataSplit split;
  split.x = x.to(torch::kFloat32).unsqueeze(-1).contiguous();                         // (N, T, 1)
  split.y = teacherTargets(x, terms).to(torch::kFloat32).unsqueeze(-1).contiguous();  // (N, T, 1)
  return split;
}

// The same inputs, the target of a process without an REM form, scaled to unit variance.
DataSplit processSplit(const TeacherProcessModel& p, int64_t n, int64_t T, uint64_t seed) {
  const auto values = teacherInputs(n, T, seed);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  const auto y = torch::tensor(runTeacherProcess(p, values, n, T), f64).view({n, T}) * p.scale();
  DataSplit split;
  split.x = torch::tensor(values, f64).view({n, T}).to(torch::kFloat32).unsqueeze(-1).contiguous();
  split.y = y.to(torch::kFloat32).unsqueeze(-1).contiguous();
  return split;
}

TaskData makeProcessTeacherTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  const auto p = makeTeacherProcess(o, o.length);
  TaskData data;
  data.name = o.name;
  data.objective = Objective::Regression;
  data.train = processSplit(p, train_size, o.length, streamSeed(seed, kTrainStream));
  data.validation =
      processSplit(p, o.validation_size, o.length, streamSeed(seed, kValidationStream));
  data.test = processSplit(p, o.test_size, o.length, streamSeed(seed, kTestStream));
  data.io.input_dim = 1;
  data.io.output_dim = 1;
  data.columns = {"x"};
  data.truth = processTruth(p, o, o.length, p.scale());
  data.truth.meaning = "the teacher process (no REM form: no head is matched)";
  data.truth.bayes_floor = 0.0;
  data.truth.floor_note = "noise-free: the target is a fixed function of the past inputs";
  data.truth.description = "teacher y_t = f(x_{<t})/σ, " + data.truth.description;
  data.summary = "teacher: " + std::to_string(train_size) + "/" +
                 std::to_string(o.validation_size) + "/" + std::to_string(o.test_size) +
                 " train/validation/test sequences, T=" + std::to_string(o.length) + "; " +
                 teacherProcessFormula(p, o) + ", scaled to unit variance by " +
                 teacherScaleText(p) + "; reach " + formatNumber(data.truth.reach, 6) +
                 " lags (the lag holding 90 % of Σ|w_k| over k ≤ 32)";
  return data;
}

}  // namespace

std::vector<TeacherTerm> teacherTerms(const TaskOptions& o) {
  const size_t n = o.teacher_kinds.size();
  if (n == 0 || n > 64) {
    throw std::invalid_argument("teacher_kinds has " + std::to_string(n) +
                                " terms: give 1..64 terms (regular or cos)");
  }
  if (o.teacher_bases.size() != n) {
    throw std::invalid_argument("teacher_bases has " + std::to_string(o.teacher_bases.size()) +
                                " values but teacher_kinds has " + std::to_string(n) +
                                ": give one base per term");
  }
  std::vector<TeacherTerm> terms;
  for (size_t i = 0; i < n; ++i) {
    TeacherTerm term;
    term.cos = o.teacher_kinds[i] == TeacherKind::Cos;
    term.base = o.teacher_bases[i];
    if (term.cos) {
      requireReal(term.base >= 0 && term.base < 1, indexed("teacher_bases", i), term.base,
                  "[0, 1) for a cos term (a negative γ is θ + π)");
      if (i >= o.teacher_thetas.size()) {
        throw std::invalid_argument("teacher_thetas has " +
                                    std::to_string(o.teacher_thetas.size()) + " values but term " +
                                    std::to_string(i) + " is a cos term: give one θ per term");
      }
      term.theta = o.teacher_thetas[i];
      requireReal(term.theta >= 0 && term.theta <= M_PI, indexed("teacher_thetas", i), term.theta,
                  "[0, π]");
    } else {
      requireReal(std::abs(term.base) < 1, indexed("teacher_bases", i), term.base, "(-1, 1)");
    }
    terms.push_back(term);
  }
  return terms;
}

torch::Tensor teacherTargets(const torch::Tensor& x_in, const std::vector<TeacherTerm>& terms) {
  auto x = x_in.to(torch::kFloat64).contiguous();  // (N, T)
  const int64_t N = x.size(0), T = x.size(1);
  auto y = torch::zeros({N, T}, x.options());  // (N, T)
  auto xa = x.accessor<double, 2>();
  auto ya = y.accessor<double, 2>();
  for (const auto& term : terms) {
    // h_t = ρ (h_{t−1} + x_{t−1}), h_0 = 0  ⇒  h_t = Σ_{s<t} ρ^(t−s) x_s; ρ = γ e^{iθ} for cos.
    const double re = term.cos ? term.base * std::cos(term.theta) : term.base;
    const double im = term.cos ? term.base * std::sin(term.theta) : 0.0;
    for (int64_t n = 0; n < N; ++n) {
      double hr = 0, hi = 0;
      for (int64_t t = 1; t < T; ++t) {
        const double ar = hr + xa[n][t - 1];
        const double nr = re * ar - im * hi;
        hi = im * ar + re * hi;
        hr = nr;
        ya[n][t] += hr;
      }
    }
  }
  return y;
}

TaskData makeTeacherTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  if (o.teacher_process != TeacherProcess::Rem) return makeProcessTeacherTask(o, train_size, seed);
  const auto terms = teacherTerms(o);
  TaskData data;
  data.name = o.name;
  data.objective = Objective::Regression;
  data.train = teacherSplit(terms, train_size, o.length, streamSeed(seed, kTrainStream));
  data.validation =
      teacherSplit(terms, o.validation_size, o.length, streamSeed(seed, kValidationStream));
  data.test = teacherSplit(terms, o.test_size, o.length, streamSeed(seed, kTestStream));
  data.io.input_dim = 1;
  data.io.output_dim = 1;
  data.columns = {"x"};
  std::string d;
  for (const auto& term : terms) {
    if (!d.empty()) d += " + ";
    if (term.cos) {
      data.truth.components.push_back({RemKind::Cos, term.base, term.theta});
      d += "γ=" + formatNumber(term.base, 6) + " θ=" + formatNumber(term.theta, 6);
    } else {
      data.truth.components.push_back({RemKind::Regular, term.base, 0.0});
      d += "λ=" + formatNumber(term.base, 6);
    }
  }
  data.truth.meaning = "generating REM (the loss optimum: the target is this kernel applied to x)";
  // y is a deterministic function of the inputs before it, all inside the sequence (h_0 = 0).
  data.truth.bayes_floor = 0.0;
  data.truth.floor_note = "noise-free: the target is a fixed function of the past inputs";
  data.truth.description = "teacher y_t = Σ_{s<t} kernel(t−s) x_s, kernel " + d;
  data.summary = "teacher: " + std::to_string(train_size) + "/" +
                 std::to_string(o.validation_size) + "/" + std::to_string(o.test_size) +
                 " train/validation/test sequences, T=" + std::to_string(o.length) + "; " + d +
                 " (" + teacherProcessLabel(TeacherProcess::Rem) + ")";
  return data;
}

}  // namespace rsalab
