// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/teacher_process.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/tasks/task_support.h"
#include "engine/tasks/teacher_task.h"

namespace rsalab {
namespace {

using task_support::requireRange;
using task_support::requireReal;
using task_support::streamSeed;
using task_support::TaskRng;

// The teacher's own streams (of teacher_seed, apart from the run seed's data streams).
constexpr uint64_t kTeacherParameterStream = 101;  // nonlinear: W, u, v
constexpr uint64_t kTeacherScaleStream = 102;      // Monte-Carlo σ² (nonlinear)
constexpr uint64_t kTeacherReachStream = 103;      // Monte-Carlo sensitivities (reach)
constexpr uint64_t kTeacherShareStream = 104;      // nonlinear share
constexpr uint64_t kTeacherFadeStream = 105;       // start-state fade

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

std::vector<double> linearKernel(const TaskOptions& o, int64_t lags) {
  std::vector<double> w(static_cast<size_t>(lags));
  std::vector<TeacherTerm> terms;
  if (o.teacher_process == TeacherProcess::Rem) terms = teacherTerms(o);
  for (int64_t k = 1; k <= lags; ++k) {
    const double d = static_cast<double>(k);
    double v = 0;
    switch (o.teacher_process) {
      case TeacherProcess::Rem:
        for (const auto& term : terms)
          v += std::pow(term.base, d) * (term.cos ? std::cos(term.theta * d) : 1.0);
        break;
      case TeacherProcess::Power:
        v = std::pow(d, -o.teacher_alpha);
        break;
      case TeacherProcess::Jordan:
        v = d * std::pow(o.teacher_lambda, d);
        break;
      default:
        break;
    }
    w[static_cast<size_t>(k - 1)] = v;
  }
  return w;
}

bool linearProcess(TeacherProcess p) {
  return p == TeacherProcess::Rem || p == TeacherProcess::Power || p == TeacherProcess::Jordan;
}

// Q R of a Gaussian matrix by Gram–Schmidt: a random orthogonal Q (rows), H × H row-major.
std::vector<double> randomOrthogonal(int64_t H, TaskRng& rng) {
  const auto h = static_cast<size_t>(H);
  std::vector<double> q(h * h);
  for (double& v : q) v = rng.normal();
  for (size_t i = 0; i < h; ++i) {
    for (int pass = 0; pass < 2; ++pass) {  // twice: orthogonal to rounding
      for (size_t j = 0; j < i; ++j) {
        double dot = 0;
        for (size_t c = 0; c < h; ++c) dot += q[i * h + c] * q[j * h + c];
        for (size_t c = 0; c < h; ++c) q[i * h + c] -= dot * q[j * h + c];
      }
    }
    double norm = 0;
    for (size_t c = 0; c < h; ++c) norm += q[i * h + c] * q[i * h + c];
    norm = std::sqrt(norm);
    for (size_t c = 0; c < h; ++c) q[i * h + c] /= norm;
  }
  return q;
}

// One step of the nonlinear teacher: h ← tanh(W h + u x).
void tanhStep(const TeacherProcessModel& p, const std::vector<double>& h, double x,
              std::vector<double>& out) {
  const auto H = static_cast<size_t>(p.hidden);
  for (size_t i = 0; i < H; ++i) {
    double z = p.input[i] * x;
    for (size_t j = 0; j < H; ++j) z += p.recurrent[i * H + j] * h[j];
    out[i] = std::tanh(z);
  }
}

// Mean over positions t = 0..T−1 of Σ_{k≤t} w_k² (the linear kernels' σ²).
double linearVariance(const std::vector<double>& w, int64_t T) {
  double sum = 0, cumulative = 0;
  for (int64_t t = 0; t < T; ++t) {
    sum += cumulative;
    if (t < static_cast<int64_t>(w.size()))
      cumulative += w[static_cast<size_t>(t)] * w[static_cast<size_t>(t)];
  }
  return sum / static_cast<double>(T);
}

// m₂ = E[a(x)²], x ~ N(0, 1), by composite Simpson on [−12, 12] (the tails beyond weigh < 1e-32).
double selectiveSecondMoment(const TeacherProcessModel& p) {
  constexpr int kIntervals = 4800;  // even
  const double lo = -12, hi = 12, step = (hi - lo) / kIntervals;
  double sum = 0;
  for (int i = 0; i <= kIntervals; ++i) {
    const double x = lo + step * i;
    const double a = p.decay(x);
    const double f = a * a * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    sum += f * (i == 0 || i == kIntervals ? 1 : (i % 2 ? 4 : 2));
  }
  return sum * step / 3;
}

// Monte-Carlo σ² of the nonlinear teacher: mean of y_t² over positions and sequences (E[y] = 0).
void monteCarloVariance(TeacherProcessModel& p, const TaskOptions& o, int64_t T) {
  // At most ~2²² values: 4096 sequences up to T = 1024, fewer (at least 64) beyond.
  const int64_t n = std::clamp<int64_t>((int64_t{1} << 22) / T, 64, 4096);
  TaskRng rng(streamSeed(o.teacher_seed, kTeacherScaleStream));
  std::vector<double> x(static_cast<size_t>(n * T));
  for (double& v : x) v = rng.normal();
  const auto y = runTeacherProcess(p, x, n, T);
  double sum = 0, sum2 = 0;
  for (int64_t s = 0; s < n; ++s) {
    double m = 0;
    for (int64_t t = 0; t < T; ++t)
      m += y[static_cast<size_t>(s * T + t)] * y[static_cast<size_t>(s * T + t)];
    m /= static_cast<double>(T);
    sum += m;
    sum2 += m * m;
  }
  const double mean = sum / static_cast<double>(n);
  const double var = std::max(0.0, sum2 / static_cast<double>(n) - mean * mean);
  p.variance = mean;
  p.variance_se = std::sqrt(var / static_cast<double>(n - 1));
  p.variance_samples = n;
}

}  // namespace

double TeacherProcessModel::scale() const { return 1.0 / std::sqrt(variance); }

double TeacherProcessModel::decay(double x) const {
  return decay_min + (decay_max - decay_min) * sigmoid(gate_weight * x + gate_bias);
}

TeacherProcessModel makeTeacherProcess(const TaskOptions& o, int64_t T) {
  requireRange("length", T, 1, kMaxTaskLength);
  TeacherProcessModel p;
  p.process = o.teacher_process;
  switch (o.teacher_process) {
    case TeacherProcess::Rem:
      p.kernel = linearKernel(o, std::max<int64_t>(T, kReachLength));
      p.variance = linearVariance(p.kernel, T);
      break;
    case TeacherProcess::Jordan:
      requireReal(std::abs(o.teacher_lambda) < 1, "teacher_lambda", o.teacher_lambda, "(-1, 1)");
      p.lambda = o.teacher_lambda;
      p.kernel = linearKernel(o, std::max<int64_t>(T, kReachLength));
      p.variance = linearVariance(p.kernel, T);
      break;
    case TeacherProcess::Power:
      // The sum over s < t is literal: O(T²) per sequence.
      requireRange("length (teacher_process power)", T, 1, 4096);
      requireReal(o.teacher_alpha > 0, "teacher_alpha", o.teacher_alpha, "(0, 10]");
      p.kernel = linearKernel(o, std::max<int64_t>(T, kReachLength));
      p.variance = linearVariance(p.kernel, T);
      break;
    case TeacherProcess::Nonlinear: {
      requireRange("teacher_hidden", o.teacher_hidden, 1, 64);
      requireReal(o.teacher_gain >= 0, "teacher_gain", o.teacher_gain, "[0, 4]");
      requireReal(o.teacher_input_scale > 0, "teacher_input_scale", o.teacher_input_scale,
                  "(0, 100]");
      p.hidden = o.teacher_hidden;
      TaskRng rng(streamSeed(o.teacher_seed, kTeacherParameterStream));
      p.recurrent = randomOrthogonal(p.hidden, rng);
      for (double& v : p.recurrent) v *= o.teacher_gain;
      for (int64_t i = 0; i < p.hidden; ++i)
        p.input.push_back(o.teacher_input_scale * rng.normal());
      for (int64_t i = 0; i < p.hidden; ++i)
        p.readout.push_back(rng.normal() / std::sqrt(static_cast<double>(p.hidden)));
      monteCarloVariance(p, o, T);
      break;
    }
    case TeacherProcess::Selective: {
      requireReal(o.teacher_decay_min >= 0 && o.teacher_decay_min <= o.teacher_decay_max,
                  "teacher_decay_min", o.teacher_decay_min, "[0, teacher_decay_max]");
      requireReal(o.teacher_decay_max < 1, "teacher_decay_max", o.teacher_decay_max, "[0, 1)");
      p.decay_min = o.teacher_decay_min;
      p.decay_max = o.teacher_decay_max;
      p.gate_weight = o.teacher_gate_weight;
      p.gate_bias = o.teacher_gate_bias;
      // Var y_t = Var h_{t−1} = Σ_{j<t} m₂^j (each x_s multiplies the decays of later inputs).
      const double m2 = selectiveSecondMoment(p);
      double sum = 0, cumulative = 0, power = 1;
      for (int64_t t = 0; t < T; ++t) {
        sum += cumulative;
        cumulative += power;
        power *= m2;
      }
      p.variance = sum / static_cast<double>(T);
      break;
    }
  }
  if (!(p.variance > 0) || !std::isfinite(p.variance))
    throw std::invalid_argument("the teacher process has no variance at length " +
                                std::to_string(T) + ": use a longer T or other parameters");
  return p;
}

std::vector<double> runTeacherProcess(const TeacherProcessModel& p, const std::vector<double>& x,
                                      int64_t n, int64_t T) {
  std::vector<double> y(static_cast<size_t>(n * T), 0.0);
  auto at = [T](int64_t s, int64_t t) { return static_cast<size_t>(s * T + t); };
  for (int64_t s = 0; s < n; ++s) {
    switch (p.process) {
      case TeacherProcess::Rem:
      case TeacherProcess::Power:
        for (int64_t t = 1; t < T; ++t) {
          double v = 0;
          for (int64_t k = 1; k <= t; ++k)
            v += p.kernel[static_cast<size_t>(k - 1)] * x[at(s, t - k)];
          y[at(s, t)] = v;
        }
        break;
      case TeacherProcess::Jordan: {
        double z0 = 0, z1 = 0;  // z_t = J (z_{t−1} + e₂ x_{t−1})
        for (int64_t t = 1; t < T; ++t) {
          const double a1 = z1 + x[at(s, t - 1)];
          z0 = p.lambda * z0 + a1;
          z1 = p.lambda * a1;
          y[at(s, t)] = p.lambda * z0;
        }
        break;
      }
      case TeacherProcess::Nonlinear: {
        std::vector<double> h(static_cast<size_t>(p.hidden), 0.0), next(h.size());
        for (int64_t t = 1; t < T; ++t) {
          tanhStep(p, h, x[at(s, t - 1)], next);
          h.swap(next);
          double v = 0;
          for (size_t i = 0; i < h.size(); ++i) v += p.readout[i] * h[i];
          y[at(s, t)] = v;
        }
        break;
      }
      case TeacherProcess::Selective: {
        double h = 0;
        for (int64_t t = 1; t < T; ++t) {
          const double xs = x[at(s, t - 1)];
          h = p.decay(xs) * h + xs;
          y[at(s, t)] = h;
        }
        break;
      }
    }
  }
  return y;
}

std::vector<double> teacherSensitivity(const TeacherProcessModel& p, const TaskOptions& o,
                                       int64_t lags, int64_t samples) {
  std::vector<double> w(static_cast<size_t>(lags), 0.0);
  if (linearProcess(p.process)) {
    const auto kernel = p.kernel.size() >= w.size() ? p.kernel : linearKernel(o, lags);
    for (size_t k = 0; k < w.size(); ++k) w[k] = std::abs(kernel[k]);
    return w;
  }
  // y = y_L of a sequence x_0..x_{L−1} (L = lags): lag k is the input x_{L−k}.
  const int64_t L = lags;
  TaskRng rng(streamSeed(o.teacher_seed, kTeacherReachStream));
  std::vector<double> x(static_cast<size_t>(L));
  for (int64_t n = 0; n < samples; ++n) {
    for (double& v : x) v = rng.normal();
    if (p.process == TeacherProcess::Selective) {
      // h_s = a(x_s) h_{s−1} + x_s, y = h_{L−1}: ∂y/∂x_s = (Π_{j>s} a_j)(1 + a'(x_s) h_{s−1}).
      std::vector<double> h(static_cast<size_t>(L));
      double prev = 0;
      for (int64_t s = 0; s < L; ++s)
        prev = h[static_cast<size_t>(s)] =
            p.decay(x[static_cast<size_t>(s)]) * prev + x[static_cast<size_t>(s)];
      double product = 1;
      for (int64_t k = 1; k <= L; ++k) {
        const auto s = static_cast<size_t>(L - k);
        const double g = sigmoid(p.gate_weight * x[s] + p.gate_bias);
        const double slope = (p.decay_max - p.decay_min) * g * (1 - g) * p.gate_weight;
        const double before = s > 0 ? h[s - 1] : 0.0;
        w[static_cast<size_t>(k - 1)] += std::abs(product * (1 + slope * before));
        product *= p.decay(x[s]);
      }
    } else {  // nonlinear: backpropagation through the tanh steps
      const auto H = static_cast<size_t>(p.hidden);
      std::vector<std::vector<double>> hs(static_cast<size_t>(L) + 1, std::vector<double>(H, 0.0));
      for (int64_t s = 0; s < L; ++s)
        tanhStep(p, hs[static_cast<size_t>(s)], x[static_cast<size_t>(s)],
                 hs[static_cast<size_t>(s) + 1]);
      std::vector<double> g = p.readout, d(H), next(H);  // g = ∂y/∂h_L
      for (int64_t k = 1; k <= L; ++k) {
        const auto& hk = hs[static_cast<size_t>(L - k + 1)];  // the state after x_{L−k}
        double sens = 0;
        for (size_t i = 0; i < H; ++i) {
          d[i] = g[i] * (1 - hk[i] * hk[i]);
          sens += d[i] * p.input[i];
        }
        w[static_cast<size_t>(k - 1)] += std::abs(sens);
        for (size_t j = 0; j < H; ++j) {
          double v = 0;
          for (size_t i = 0; i < H; ++i) v += d[i] * p.recurrent[i * H + j];
          next[j] = v;
        }
        g.swap(next);
      }
    }
  }
  for (double& v : w) v /= static_cast<double>(samples);
  return w;
}

int64_t kernelReach(const std::vector<double>& w, double share) {
  double total = 0;
  for (double v : w) total += std::abs(v);
  double cumulative = 0;
  for (size_t k = 0; k < w.size(); ++k) {
    cumulative += std::abs(w[k]);
    if (cumulative >= share * total) return static_cast<int64_t>(k) + 1;
  }
  return static_cast<int64_t>(w.size());
}

int64_t teacherReach(const TaskOptions& o) {
  const auto p = makeTeacherProcess(o, kReachLength);
  return kernelReach(teacherSensitivity(p, o));
}

double teacherNonlinearShare(const TeacherProcessModel& p, const TaskOptions& o, int64_t samples) {
  const int64_t T = kReachLength, t = T - 1;
  TaskRng rng(streamSeed(o.teacher_seed, kTeacherShareStream));
  std::vector<double> x(static_cast<size_t>(samples * T));
  for (double& v : x) v = rng.normal();
  const auto y = runTeacherProcess(p, x, samples, T);
  auto at = [T](int64_t s, int64_t u) { return static_cast<size_t>(s * T + u); };
  double var = 0;
  for (int64_t s = 0; s < samples; ++s) var += y[at(s, t)] * y[at(s, t)];
  var /= static_cast<double>(samples);
  double linear = 0;
  for (int64_t k = 1; k <= t; ++k) {
    double c = 0;
    for (int64_t s = 0; s < samples; ++s) c += y[at(s, t)] * x[at(s, t - k)];
    c /= static_cast<double>(samples);
    linear += c * c;
  }
  return 1 - linear / var;
}

double teacherStartStateFade(const TeacherProcessModel& p, const TaskOptions& o, int64_t steps,
                             int64_t samples) {
  if (p.process != TeacherProcess::Nonlinear)
    throw std::invalid_argument("the start-state fade is the nonlinear teacher's");
  TaskRng rng(streamSeed(o.teacher_seed, kTeacherFadeStream));
  const auto H = static_cast<size_t>(p.hidden);
  std::vector<double> a(H), b(H), next(H);
  double moved = 0, total = 0;
  for (int64_t s = 0; s < samples; ++s) {
    for (size_t i = 0; i < H; ++i) {
      a[i] = 0;
      b[i] = 2 * rng.uniform() - 1;
    }
    for (int64_t t = 0; t < steps; ++t) {
      const double x = rng.normal();
      tanhStep(p, a, x, next);
      a.swap(next);
      tanhStep(p, b, x, next);
      b.swap(next);
    }
    double ya = 0, yb = 0;
    for (size_t i = 0; i < H; ++i) {
      ya += p.readout[i] * a[i];
      yb += p.readout[i] * b[i];
    }
    moved += (ya - yb) * (ya - yb);
    total += ya * ya;
  }
  return std::sqrt(moved / total);
}

GroundTruth processTruth(const TeacherProcessModel& p, const TaskOptions& o, int64_t length,
                         double kernel_scale) {
  GroundTruth truth;
  truth.no_rem_form = true;
  const auto lags = static_cast<size_t>(std::min(length, kTruthKernelLags));
  for (size_t k = 0; k < std::min(lags, p.kernel.size()); ++k)
    truth.kernel.push_back(p.kernel[k] * kernel_scale);
  truth.reach = static_cast<double>(teacherReach(o));
  truth.description = teacherProcessFormula(p, o) + " (no REM form), reach " +
                      std::to_string(static_cast<int64_t>(truth.reach)) + " lags";
  return truth;
}

std::string teacherProcessFormula(const TeacherProcessModel& p, const TaskOptions& o) {
  switch (p.process) {
    case TeacherProcess::Rem:
      return "rem";
    case TeacherProcess::Power:
      return "power w_k ∝ k^(−" + formatNumber(o.teacher_alpha, 6) + ")";
    case TeacherProcess::Jordan:
      return "jordan w_k ∝ k·" + formatNumber(o.teacher_lambda, 6) + "^k";
    case TeacherProcess::Nonlinear:
      return "nonlinear tanh RNN H=" + std::to_string(o.teacher_hidden) +
             " gain=" + formatNumber(o.teacher_gain, 6) +
             " input scale=" + formatNumber(o.teacher_input_scale, 6) +
             " teacher_seed=" + std::to_string(o.teacher_seed);
    case TeacherProcess::Selective:
      return "selective a_t ∈ [" + formatNumber(o.teacher_decay_min, 6) + ", " +
             formatNumber(o.teacher_decay_max, 6) + "] = σ(" +
             formatNumber(o.teacher_gate_weight, 6) + "·x_t + " +
             formatNumber(o.teacher_gate_bias, 6) + ")";
  }
  return "";
}

std::string teacherScaleText(const TeacherProcessModel& p) {
  if (p.variance_samples == 0) return "σ²=" + formatNumber(p.variance, 6) + " (closed form)";
  return "σ²=" + formatNumber(p.variance, 6) + " ± " + formatNumber(p.variance_se, 2) +
         " (Monte Carlo, " + std::to_string(p.variance_samples) + " sequences of teacher_seed)";
}

}  // namespace rsalab
