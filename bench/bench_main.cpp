// rsalab-bench: the performance suite of docs/PERFORMANCE.md. Headless, LibTorch only.
//   gemm        float32 n×n matmul peak (GFLOP/s) and the BLAS actually loaded
//   train       forward + backward + AdamW per model × {tiny, small, large}: steps/s, tokens/s, MFU
//   rsa         RSA ÷ softmax step time (paired rounds) and the cost of building the REMs alone
//   breakdown   where the large softmax step's time goes: its dense products, its attention
//               core and the rest, each timed alone; the MFU ceiling those parts set
//   attention   one attention layer's forward time vs T, and the fitted log-log exponent
//   generation  per-token time near T = 2048: linear (S, z) vs softmax KV cache vs recompute
//   levers      each speed lever before/after (interleaved A/B); the OpenBLAS flavour is
//               measured in a child process started with the pthread build on its library path
//   sweep       wall time of `rsalab-cli sweep` with defaults (only with --with-sweep)
// Every figure is a median over repeats with min–max and quartiles; every ratio is taken within
// this run (MFU against this run's GEMM peak, RSA ÷ softmax from interleaved steps).
#include <malloc.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/flops.h"
#include "engine/models/linear_attention.h"
#include "engine/models/model_factory.h"
#include "engine/models/rem_builder.h"
#include "engine/models/rsa_attention.h"
#include "engine/models/softmax_attention.h"
#include "engine/models/transformer.h"
#include "engine/runtime.h"
#include "engine/torch_api.h"

namespace rsalab::bench {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <class F>
double timeOnce(F&& f) {
  const auto start = Clock::now();
  f();
  return since(start);
}

// ---------------------------------------------------------------- statistics

struct Stats {
  std::vector<double> samples;
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
  bool empty() const { return samples.empty(); }
};

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = std::min(sorted.size() - 1, lo + 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Stats summarize(std::vector<double> v) {
  Stats s;
  s.samples = v;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = quantile(v, 0.5);
  s.q1 = quantile(v, 0.25);
  s.q3 = quantile(v, 0.75);
  return s;
}

// f(x) applied to every sample (for monotone f: the stats of f(samples)).
Stats mapStats(const Stats& s, const std::function<double(double)>& f) {
  std::vector<double> v;
  for (double x : s.samples) v.push_back(f(x));
  return summarize(v);
}

// How long to measure: warm-up calls, then repeats until max_reps, or until the budget is spent
// once min_reps are in.
struct Plan {
  int warmup = 1;
  int min_reps = 3;
  int max_reps = 10;
  double budget_s = 10;
};

template <class F>
Stats measure(F&& f, const Plan& plan) {
  for (int i = 0; i < plan.warmup; ++i) f();
  std::vector<double> t;
  const auto start = Clock::now();
  while (static_cast<int>(t.size()) < plan.max_reps &&
         (static_cast<int>(t.size()) < plan.min_reps || since(start) < plan.budget_s)) {
    t.push_back(timeOnce(f));
  }
  return summarize(t);
}

// Least-squares slope of log y on log x.
double logLogSlope(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// ---------------------------------------------------------------- output

std::string fmt(double v, int precision = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

// "median (min–max)" in the given unit scale.
std::string spread(const Stats& s, double scale = 1, int precision = 3) {
  return fmt(s.median * scale, precision) + " (" + fmt(s.min * scale, precision) + "-" +
         fmt(s.max * scale, precision) + ")";
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A JSON object built field by field; values are already-serialised JSON.
class JsonObject {
 public:
  JsonObject& raw(const std::string& key, const std::string& json) {
    fields_.emplace_back(key, json);
    return *this;
  }
  JsonObject& str(const std::string& key, const std::string& v) { return raw(key, jsonString(v)); }
  JsonObject& num(const std::string& key, double v) { return raw(key, jsonNumber(v)); }
  JsonObject& boolean(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
  JsonObject& stats(const std::string& key, const Stats& s, double scale = 1) {
    JsonObject o;
    o.num("median", s.median * scale).num("min", s.min * scale).num("max", s.max * scale);
    o.num("q1", s.q1 * scale)
        .num("q3", s.q3 * scale)
        .num("n", static_cast<double>(s.samples.size()));
    return raw(key, o.dump());
  }
  std::string dump() const {
    std::string out = "{";
    for (size_t i = 0; i < fields_.size(); ++i) {
      out += (i ? ", " : "") + jsonString(fields_[i].first) + ": " + fields_[i].second;
    }
    return out + "}";
  }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

std::string jsonArray(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ",\n    " : "\n    ") + items[i];
  return out + (items.empty() ? "]" : "\n  ]");
}

void heading(const std::string& title) { std::cout << "\n== " << title << " ==\n" << std::flush; }

// ---------------------------------------------------------------- options

struct Options {
  std::string json_path;
  std::set<std::string> sections = {"gemm",      "train",      "breakdown", "rsa",
                                    "attention", "generation", "levers"};
  std::vector<std::string> configs = {"tiny", "small", "large"};
  std::vector<std::string> models = {"rnn", "lstm",   "gru",      "transformer",
                                     "rsa", "linear", "starsaber"};
  bool with_sweep = false;
  std::string cli = "build/app/rsalab-cli";
  double scale = 1;  // --quick: 0.3 of the repeats and budgets
};

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Plan scaled(Plan p, const Options& o) {
  p.min_reps = std::max(1, static_cast<int>(std::lround(p.min_reps * std::min(1.0, o.scale))));
  p.max_reps = std::max(p.min_reps, static_cast<int>(std::lround(p.max_reps * o.scale)));
  p.budget_s *= o.scale;
  return p;
}

// ---------------------------------------------------------------- machine

std::string firstLineWith(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto pos = line.find_first_of(":=", key.size());
      auto v = pos == std::string::npos ? line : line.substr(pos + 1);
      v.erase(0, v.find_first_not_of(" \t\""));
      while (!v.empty() && (v.back() == '"' || v.back() == ' ')) v.pop_back();
      return v;
    }
  }
  return "?";
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  return buf;
}

double loadAverage() {
  std::ifstream in("/proc/loadavg");
  double one = -1;
  in >> one;
  return one;
}

// ---------------------------------------------------------------- 1. GEMM peak

struct GemmResult {
  int64_t n;
  Stats gflops;
};

std::vector<GemmResult> benchGemm(const Options& o) {
  heading("1. GEMM peak: float32 n x n matmul through LibTorch");
  std::vector<GemmResult> out;
  for (int64_t n : {1024, 2048}) {
    auto a = torch::randn({n, n}), b = torch::randn({n, n}), c = torch::empty({n, n});
    const double flops = 2.0 * static_cast<double>(n * n * n);
    Plan plan{/*warmup=*/2, /*min_reps=*/5, /*max_reps=*/n <= 1024 ? 30 : 12, /*budget_s=*/4};
    auto t = measure([&] { torch::mm_out(c, a, b); }, scaled(plan, o));
    GemmResult r{n, mapStats(t, [&](double s) { return flops / s / 1e9; })};
    std::printf("  n = %-5lld %s GFLOP/s   (%zu repeats, IQR %s-%s)\n", static_cast<long long>(n),
                spread(r.gflops).c_str(), r.gflops.samples.size(), fmt(r.gflops.q1).c_str(),
                fmt(r.gflops.q3).c_str());
    out.push_back(r);
  }
  return out;
}

// ---------------------------------------------------------------- 2./3. training steps

struct TrainConfig {
  std::string name;
  int64_t d, h, L, B, T;
};

const std::vector<TrainConfig>& trainConfigs() {
  static const std::vector<TrainConfig> configs = {
      {"tiny", 32, 2, 2, 8, 32}, {"small", 64, 4, 2, 32, 128}, {"large", 128, 8, 4, 16, 512}};
  return configs;
}

// RSA heads that fit H: the default (regular, cos, sin) + plain heads for H ≥ 3; regular + cos
// for H = 2.
RemHeadCounts remCountsFor(int64_t heads) {
  RemHeadCounts c;
  if (heads < 3) {
    c.regular = 1;
    c.cos = heads >= 2 ? 1 : 0;
    c.sin = 0;
  }
  return c;
}

ModelOptions modelOptions(const std::string& model, int64_t d, int64_t h, int64_t L) {
  ModelOptions o;
  o.model = model;
  o.d_model = d;
  o.heads = h;
  o.layers = L;
  o.rem = remCountsFor(h);
  return o;
}

// One model training on fixed random data: real-valued input (F = 1), per-position MSE.
struct TrainCase {
  std::string model;
  SequenceModel net;
  std::unique_ptr<torch::optim::AdamW> optimizer;
  torch::Tensor x, y;
  int max_reps = 0;
  std::vector<double> times;

  TrainCase(const std::string& m, const TrainConfig& c) : model(m) {
    torch::manual_seed(0);
    ModelIO io;
    io.input_dim = 1;
    io.output_dim = 1;
    net = makeSequenceModel(modelOptions(m, c.d, c.h, c.L), io);
    net->train();
    // As the Trainer: weight decay on matrices only.
    std::vector<torch::Tensor> decay, no_decay;
    for (const auto& p : net->parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                   torch::optim::AdamWOptions(1e-3).weight_decay(0.01)));
    groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(
                                      torch::optim::AdamWOptions(1e-3).weight_decay(0)));
    optimizer = std::make_unique<torch::optim::AdamW>(groups);
    x = torch::randn({c.B, c.T, 1});
    y = torch::randn({c.B, c.T, 1});
  }

  void step() {
    optimizer->zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y);
    loss.backward();
    optimizer->step();
  }
};

struct TrainResult {
  std::string config, model;
  int64_t tokens = 0;
  double flops = 0;  // per step
  Stats seconds;
  std::string note;
};

struct PairedRatio {
  std::string config;
  Stats ratio;  // RSA step ÷ softmax step, per round
};

// Round-robin: every round runs one step of each model still measuring, so drifting load on the
// shared machine hits all models alike and RSA ÷ softmax can be taken per round.
std::vector<TrainResult> benchTrain(const Options& o, double peak_flops,
                                    std::vector<PairedRatio>* ratios) {
  heading("2. Training step (forward + backward + AdamW), MFU vs this run's GEMM peak");
  std::printf("  peak used for MFU: %s GFLOP/s\n", fmt(peak_flops / 1e9).c_str());
  std::vector<TrainResult> out;
  for (const auto& c : trainConfigs()) {
    if (std::find(o.configs.begin(), o.configs.end(), c.name) == o.configs.end()) continue;
    const bool large = c.name == "large";
    Plan plan = scaled(large               ? Plan{1, 3, 7, 90}
                       : c.name == "small" ? Plan{2, 5, 25, 25}
                                           : Plan{3, 10, 60, 8},
                       o);
    std::vector<std::unique_ptr<TrainCase>> cases;
    for (const auto& m : o.models) {
      cases.push_back(std::make_unique<TrainCase>(m, c));
      const bool recurrent = m == "rnn" || m == "lstm" || m == "gru";
      // Recurrent models at T = 512 run 2048 sequential cell steps per pass: 2 repeats.
      cases.back()->max_reps = large && recurrent ? std::min(2, plan.max_reps) : plan.max_reps;
    }
    std::printf("  %s: d%lld h%lld L%lld B%lld T%lld (warm-up %d step(s) each)\n", c.name.c_str(),
                static_cast<long long>(c.d), static_cast<long long>(c.h),
                static_cast<long long>(c.L), static_cast<long long>(c.B),
                static_cast<long long>(c.T), plan.warmup);
    for (auto& tc : cases) {
      for (int i = 0; i < plan.warmup; ++i) tc->step();
    }
    const auto start = Clock::now();
    for (int round = 0;; ++round) {
      bool any = false;
      for (auto& tc : cases) {
        if (static_cast<int>(tc->times.size()) >= tc->max_reps) continue;
        const bool needed =
            static_cast<int>(tc->times.size()) < std::min(plan.min_reps, tc->max_reps);
        if (!needed && since(start) > plan.budget_s) continue;
        tc->times.push_back(timeOnce([&] { tc->step(); }));
        any = true;
      }
      if (!any) break;
    }
    std::printf("  %-12s %-22s %10s %12s %10s %8s\n", "model", "step ms (min-max)", "steps/s",
                "tokens/s", "GFLOP/s", "MFU");
    for (auto& tc : cases) {
      TrainResult r;
      r.config = c.name;
      r.model = tc->model;
      r.tokens = c.B * c.T;
      StepShape shape{c.B, c.T, c.d, c.h, c.L};
      shape.rem_heads = tc->model == "rsa" ? remCountsFor(c.h).total() : 0;
      r.flops = trainStepFlops(tc->model, shape);
      r.seconds = summarize(tc->times);
      if (static_cast<int>(tc->times.size()) < plan.min_reps) {
        r.note = std::to_string(tc->times.size()) + " repeat(s): sequential over T, slow";
      }
      const double sec = r.seconds.median;
      std::printf("  %-12s %-22s %10s %12s %10s %7s%%%s\n", r.model.c_str(),
                  spread(r.seconds, 1e3).c_str(), fmt(1 / sec).c_str(),
                  fmt(static_cast<double>(r.tokens) / sec).c_str(),
                  fmt(r.flops / sec / 1e9).c_str(), fmt(100 * r.flops / sec / peak_flops).c_str(),
                  r.note.empty() ? "" : ("  [" + r.note + "]").c_str());
      out.push_back(r);
    }
    // RSA ÷ softmax per round.
    const TrainCase *rsa = nullptr, *softmax = nullptr;
    for (auto& tc : cases) {
      if (tc->model == "rsa") rsa = tc.get();
      if (tc->model == "transformer") softmax = tc.get();
    }
    if (rsa && softmax && ratios) {
      std::vector<double> r;
      for (size_t i = 0; i < std::min(rsa->times.size(), softmax->times.size()); ++i) {
        r.push_back(rsa->times[i] / softmax->times[i]);
      }
      ratios->push_back({c.name, summarize(r)});
    }
  }
  return out;
}

// ---------------------------------------------------------------- 3. REM building

struct RemResult {
  std::string config;
  int64_t T, R, layers;
  Stats seconds;        // one build + backward
  double softmax_step;  // median softmax step of this run (0 if not measured)
};

std::vector<RemResult> benchRems(const Options& o, const std::vector<TrainResult>& train,
                                 const std::vector<PairedRatio>& ratios) {
  heading("3. RSA / softmax step time, and the REMs alone (diagonals(T) with grad, fwd+bwd)");
  std::printf("  %-7s %-30s\n", "config",
              "RSA step / softmax step: median (min-max) over paired rounds");
  for (const auto& r : ratios) {
    std::printf("  %-7s %s  (IQR %s-%s, %zu rounds)\n", r.config.c_str(), spread(r.ratio).c_str(),
                fmt(r.ratio.q1).c_str(), fmt(r.ratio.q3).c_str(), r.ratio.samples.size());
  }
  std::vector<RemResult> out;
  std::printf("  %-7s %5s %3s %-24s %s\n", "config", "T", "R", "ms per build+bwd",
              "x L layers / softmax step");
  for (const auto& c : trainConfigs()) {
    if (std::find(o.configs.begin(), o.configs.end(), c.name) == o.configs.end()) continue;
    const auto counts = remCountsFor(c.h);
    torch::manual_seed(0);
    RemBuilder rems(assignRemHeads(counts, {2}), RemInit{}, /*causal=*/true);
    auto t = measure(
        [&] {
          rems->zero_grad();
          rems->diagonals(c.T).sum().backward();  // what a training step builds (O(R·T))
        },
        scaled(Plan{2, 5, 40, 2}, o));
    double softmax_step = 0;
    for (const auto& r : train) {
      if (r.config == c.name && r.model == "transformer") softmax_step = r.seconds.median;
    }
    RemResult r{c.name, c.T, counts.total(), c.L, t, softmax_step};
    std::printf("  %-7s %5lld %3lld %-24s %s\n", c.name.c_str(), static_cast<long long>(c.T),
                static_cast<long long>(r.R), spread(t, 1e3).c_str(),
                softmax_step > 0
                    ? (fmt(100 * t.median * static_cast<double>(c.L) / softmax_step) + "%").c_str()
                    : "-");
    out.push_back(r);
  }
  return out;
}

// ---------------------------------------------------------------- 4. attention vs T

struct ScalingResult {
  std::string kind;
  std::vector<int64_t> T;
  std::vector<Stats> seconds;
  double slope = 0, slope_upper = 0;  // all T; T ≥ 512
};

std::vector<ScalingResult> benchAttention(const Options& o) {
  const int64_t B = 4, D = 128, H = 8;
  heading("4. One attention layer, forward (no grad), B=4 D=128 H=8, causal");
  const std::vector<int64_t> lengths = {128, 256, 512, 1024, 2048};
  std::vector<ScalingResult> out;
  for (const std::string kind : {"softmax", "rsa", "linear"}) {
    torch::manual_seed(0);
    ModelOptions mo = modelOptions(kind, D, H, 1);
    SelfAttention attn = makeSelfAttention(kind, mo, /*causal=*/true);
    attn->eval();
    torch::NoGradGuard no_grad;
    ScalingResult r;
    r.kind = kind;
    std::vector<double> x, y, xu, yu;
    for (int64_t T : lengths) {
      auto input = torch::randn({B, T, D});
      Plan plan = T <= 512 ? Plan{2, 5, 20, 1.5} : Plan{1, 3, 7, 3};
      auto t = measure([&] { attn->forward(input, nullptr, 0); }, scaled(plan, o));
      r.T.push_back(T);
      r.seconds.push_back(t);
      x.push_back(static_cast<double>(T));
      y.push_back(t.median);
      if (T >= 512) {
        xu.push_back(static_cast<double>(T));
        yu.push_back(t.median);
      }
    }
    r.slope = logLogSlope(x, y);
    r.slope_upper = logLogSlope(xu, yu);
    out.push_back(r);
  }
  std::printf("  %-8s", "T");
  for (int64_t T : lengths) std::printf(" %-20lld", static_cast<long long>(T));
  std::printf(" %s\n", "slope (all T; T>=512)");
  for (const auto& r : out) {
    std::printf("  %-8s", r.kind.c_str());
    for (const auto& s : r.seconds) std::printf(" %-20s", (spread(s, 1e3) + "ms").c_str());
    std::printf(" %s; %s\n", fmt(r.slope).c_str(), fmt(r.slope_upper).c_str());
  }
  return out;
}

// ---------------------------------------------------------------- 5. generation

struct GenerationResult {
  std::string method;
  Stats seconds;  // per token near position T
};

std::vector<GenerationResult> benchGeneration(const Options& o) {
  const int64_t T = 2048, timed = std::max<int64_t>(16, std::lround(64 * std::min(1.0, o.scale)));
  heading("5. Generation per token near position 2048 (d128 h8 L4, B=1)");
  std::vector<GenerationResult> out;
  ModelIO io;
  io.input_dim = 1;
  io.output_dim = 1;
  torch::NoGradGuard no_grad;
  auto x = torch::randn({1, T, 1});
  for (const std::string model : {"linear", "transformer", "rsa"}) {
    torch::manual_seed(0);
    TransformerModelImpl net(modelOptions(model, 128, 8, 4), io);
    net.eval();
    GenerationState state;
    for (int64_t t = 0; t < T - timed; ++t) net.step(x.narrow(1, t, 1), state);
    std::vector<double> times;
    for (int64_t t = T - timed; t < T; ++t) {
      times.push_back(timeOnce([&] { net.step(x.narrow(1, t, 1), state); }));
    }
    const std::string name = model == "linear" ? "linear (S, z) step"
                             : model == "rsa"  ? "rsa KV cache step"
                                               : "softmax KV cache step";
    out.push_back({name, summarize(times)});
  }
  {
    torch::manual_seed(0);
    TransformerModelImpl net(modelOptions("transformer", 128, 8, 4), io);
    net.eval();
    std::vector<double> times;
    const int64_t recompute = std::max<int64_t>(3, std::lround(8 * std::min(1.0, o.scale)));
    net.forward(x.narrow(1, 0, T - recompute - 1));  // warm-up
    for (int64_t t = T - recompute; t < T; ++t) {
      times.push_back(timeOnce([&] { net.forward(x.narrow(1, 0, t + 1)); }));
    }
    out.push_back({"softmax recompute prefix", summarize(times)});
  }
  for (const auto& r : out) {
    std::printf("  %-26s %s ms per token (%zu tokens, IQR %s-%s)\n", r.method.c_str(),
                spread(r.seconds, 1e3).c_str(), r.seconds.samples.size(),
                fmt(r.seconds.q1 * 1e3).c_str(), fmt(r.seconds.q3 * 1e3).c_str());
  }
  return out;
}

// ---------------------------------------------------------------- levers

// Each lever as A/B within this run, interleaved round by round; the "before" side is the code
// as it was before the performance work, kept here (not in the engine) only to be measured.
struct LeverResult {
  std::string lever, variant;
  Stats seconds;
};

// Runs the variants round-robin (warm-up each first) and returns one Stats per variant.
std::vector<Stats> interleave(const std::vector<std::function<void()>>& variants,
                              const Plan& plan) {
  std::vector<std::vector<double>> t(variants.size());
  for (int w = 0; w < plan.warmup; ++w) {
    for (const auto& f : variants) f();
  }
  const auto start = Clock::now();
  for (int r = 0; r < plan.max_reps && (r < plan.min_reps || since(start) < plan.budget_s); ++r) {
    for (size_t i = 0; i < variants.size(); ++i) t[i].push_back(timeOnce(variants[i]));
  }
  std::vector<Stats> out;
  for (auto& v : t) out.push_back(summarize(v));
  return out;
}

// Before: softmax(matmul(q, kᵀ)·scale, bool triu mask built and masked_fill_ed) · v.
torch::Tensor originalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& v, double scale) {
  auto scores = torch::matmul(q, k.transpose(-2, -1)) * scale;  // (B, H, T, T)
  const auto T = scores.size(-1);
  auto upper = torch::ones({T, T}, scores.options().dtype(torch::kBool)).triu(1);
  scores.masked_fill_(upper, -std::numeric_limits<double>::infinity());
  return torch::matmul(torch::softmax(scores, -1), v);  // (B, H, T, Dh)
}

// Before: the REMs evaluated elementwise over all (R, Tq, Tk) entries.
torch::Tensor originalRemBuild(RemBuilder& rems, int64_t T) {
  const int64_t R = rems->size();
  auto lag = lagMatrix(T, torch::kCPU);
  std::vector<int64_t> dil;
  std::vector<float> sel;
  for (const auto& s : rems->specs()) {
    dil.push_back(s.dilation);
    sel.insert(sel.end(), {s.kind == RemKind::Regular ? 1.f : 0.f,
                           s.kind == RemKind::Cos ? 1.f : 0.f, s.kind == RemKind::Sin ? 1.f : 0.f});
  }
  auto d = torch::tensor(dil).view({R, 1, 1});
  auto selector = torch::tensor(sel).view({R, 3});
  auto valid = lag.gt(0).unsqueeze(0) & (lag.unsqueeze(0).remainder(d) == 0);
  auto k = torch::div(lag.unsqueeze(0), d, "floor")
               .masked_fill(valid.logical_not(), 1)
               .to(torch::kFloat32);
  auto powers = rems->base().view({R, 1, 1}).pow(k);
  auto angle = rems->theta().view({R, 1, 1}) * k;
  auto trig = selector.select(1, 0).view({R, 1, 1}) +
              selector.select(1, 1).view({R, 1, 1}) * torch::cos(angle) +
              selector.select(1, 2).view({R, 1, 1}) * torch::sin(angle);
  return torch::where(valid, powers * trig, torch::zeros({}, powers.options()));
}

// The alternative linear-attention step: heads folded into the batch of baddbmm/bmm.
torch::Tensor foldedLinearStep(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, torch::Tensor& S, torch::Tensor& z) {
  const auto B = q.size(0), H = q.size(1), Dh = q.size(3), Dv = v.size(3);
  auto fq = eluFeatureMap(q).reshape({B * H, 1, Dh});
  auto fk = eluFeatureMap(k).reshape({B * H, Dh, 1});
  auto vt = v.reshape({B * H, 1, Dv});
  if (!S.defined()) {
    S = torch::zeros({B, H, Dh, Dv}, fk.options());
    z = torch::zeros({B, H, Dh}, fk.options());
  }
  S = torch::baddbmm(S.view({B * H, Dh, Dv}), fk, vt).view({B, H, Dh, Dv});
  z = z + fk.view({B, H, Dh});
  auto num = torch::bmm(fq, S.view({B * H, Dh, Dv}));
  auto denom = torch::bmm(fq, z.view({B * H, Dh, 1})) + kLinearAttentionEps;
  return (num / denom).view({B, H, 1, Dv});
}

std::vector<LeverResult> benchLevers(const Options& o) {
  heading("Levers: before / after, interleaved in this run");
  std::vector<LeverResult> out;
  auto report = [&](const std::string& lever, const std::vector<std::string>& names,
                    const std::vector<Stats>& stats, double unit, const char* unit_name) {
    std::printf("  %s\n", lever.c_str());
    for (size_t i = 0; i < names.size(); ++i) {
      std::printf("    %-58s %s %s  (x%s vs first)\n", names[i].c_str(),
                  spread(stats[i], unit).c_str(), unit_name,
                  fmt(stats[0].median / stats[i].median).c_str());
      out.push_back({lever, names[i], stats[i]});
    }
  };
  const int64_t B = 16, H = 8, T = 512, Dh = 16, R = 3;
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  torch::manual_seed(0);
  {
    auto q = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto k = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto v = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto grad = torch::randn({B, H, T, Dh});
    auto mask = torch::full({T, T}, -std::numeric_limits<double>::infinity()).triu(1);
    std::vector<std::function<torch::Tensor()>> fns = {
        [&] { return originalAttention(q, k, v, scale); },
        [&] {
          auto q3 = (q * scale).reshape({B * H, T, Dh}), k3 = k.reshape({B * H, T, Dh});
          auto w = torch::softmax(torch::baddbmm(mask, q3, k3.transpose(1, 2)), -1);
          return torch::bmm(w, v.reshape({B * H, T, Dh})).view({B, H, T, Dh});
        },
        [&] { return blockedSoftmaxAttention(q, k, v, scale, /*causal=*/true); }};
    std::vector<std::function<void()>> train, infer;
    for (auto& f : fns) {
      train.push_back([&] { f().backward(grad); });
      infer.push_back([&] {
        torch::NoGradGuard ng;
        f();
      });
    }
    const std::vector<std::string> names = {
        "original: matmul, x scale, bool triu mask + masked_fill_",
        "scale folded into q, cached additive mask (baddbmm)",
        "blocked, recomputing backward (engine now)"};
    report("attention core fwd+bwd, B16 H8 T512 Dh16 causal", names,
           interleave(train, scaled(Plan{1, 5, 15, 12}, o)), 1e3, "ms");
    report("attention core forward only (no grad)", names,
           interleave(infer, scaled(Plan{1, 5, 15, 6}, o)), 1e3, "ms");
    // Block size of the blocked kernel: scores per block (engine default kAttentionBlockValues).
    std::vector<int64_t> sizes = {16 * 1024, kAttentionBlockValues, 256 * 1024, 1024 * 1024};
    std::vector<std::function<void()>> blocked;
    std::vector<std::string> block_names;
    for (int64_t values : sizes) {
      blocked.push_back([&, values] {
        blockedSoftmaxAttention(q, k, v, scale, true, {}, values).backward(grad);
      });
      block_names.push_back(std::to_string(values / 1024) + " Ki scores per block (" +
                            std::to_string(values * 4 / 1024) + " KB)" +
                            (values == kAttentionBlockValues ? " (engine default)" : ""));
    }
    report("attention block size, blocked fwd+bwd, B16 H8 T512 Dh16 causal", block_names,
           interleave(blocked, scaled(Plan{1, 5, 15, 12}, o)), 1e3, "ms");
  }
  {
    // RSA's attention core (R = 3 REM heads of H = 8) against softmax's, fwd+bwd with the REM
    // scalars and gates learning: what RSA adds to the step.
    RemBuilder rems(assignRemHeads(RemHeadCounts{}, {2}), RemInit{}, /*causal=*/true);
    auto mu = torch::zeros({R}, torch::requires_grad());
    auto q = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto k = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto v = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto grad = torch::randn({B, H, T, Dh});
    std::vector<std::function<void()>> fns = {
        [&] { blockedSoftmaxAttention(q, k, v, scale, true).backward(grad); },
        [&] {
          auto y = blockedSoftmaxAttention(q, k, v, scale, true);  // (B, H, T, Dh)
          auto P = rems->build(T);                                 // (R, T, T)
          auto v_rem = v.narrow(1, 0, R).permute({1, 2, 0, 3}).reshape({R, T, B * Dh});
          auto pv = torch::bmm(P, v_rem).view({R, T, B, Dh}).permute({2, 0, 1, 3});
          auto g = torch::sigmoid(mu).view({1, R, 1, 1});
          auto mixed = (1 - g) * y.narrow(1, 0, R) + g * pv;
          torch::cat({mixed, y.narrow(1, R, H - R)}, 1).backward(grad);
        },
        [&] {
          blockedSoftmaxAttention(q, k, v, scale, true, {rems->diagonals(T), torch::sigmoid(mu)})
              .backward(grad);
        }};
    report("RSA attention core fwd+bwd, B16 H8 T512 Dh16, R=3 REM heads",
           {"softmax only (blocked, for reference)",
            "RSA: REMs (R,T,T) built, P V as one bmm, outputs mixed",
            "RSA: REMs mixed into the blocks from their diagonals (engine)"},
           interleave(fns, scaled(Plan{1, 5, 12, 10}, o)), 1e3, "ms");
  }
  {
    RemBuilder rems(assignRemHeads(RemHeadCounts{}, {2}), RemInit{}, /*causal=*/true);
    std::vector<std::function<void()>> fns = {[&] {
                                                rems->zero_grad();
                                                originalRemBuild(rems, T).sum().backward();
                                              },
                                              [&] {
                                                rems->zero_grad();
                                                rems->build(T).sum().backward();
                                              },
                                              [&] {
                                                rems->zero_grad();
                                                rems->diagonals(T).sum().backward();
                                              }};
    report(
        "REM build(512) fwd+bwd, R=3",
        {"elementwise over (R, T, T)", "per lag, then gathered to (R, T, T) (inspection, KV steps)",
         "diagonals only, (R, 2T-1) (training: mixed in the attention blocks)"},
        interleave(fns, scaled(Plan{2, 10, 40, 4}, o)), 1e3, "ms");
  }
  {
    torch::NoGradGuard ng;
    auto q = torch::randn({1, 8, 1, 16}), k = torch::randn({1, 8, 1, 16}),
         v = torch::randn({1, 8, 1, 16});
    torch::Tensor S0, z0, S1, z1;
    const int calls = 200;
    std::vector<std::function<void()>> fns = {[&] {
                                                for (int i = 0; i < calls; ++i)
                                                  foldedLinearStep(q, k, v, S0, z0);
                                              },
                                              [&] {
                                                for (int i = 0; i < calls; ++i)
                                                  linearAttentionStep(q, k, v, S1, z1);
                                              }};
    report("linear-attention recurrent step, B1 H8 Dh16 (per call)",
           {"heads folded into baddbmm/bmm", "outer product + matmul over (B, H, ...) (engine)"},
           interleave(fns, scaled(Plan{2, 10, 30, 3}, o)), 1e6 / calls, "us");
  }
  {
    TrainConfig c{"large", 128, 8, 4, 16, 512};
    TrainCase tc("transformer", c);
    const int threads = torch::get_num_threads();
    std::vector<std::function<void()>> fns = {[&] {
                                                torch::set_num_threads(1);
                                                tc.step();
                                                torch::set_num_threads(threads);
                                              },
                                              [&] { tc.step(); }};
    report("threads: softmax Transformer large training step",
           {"1 thread", std::to_string(threads) + " threads (= cores, initRuntime)"},
           interleave(fns, scaled(Plan{1, 3, 5, 20}, o)), 1e3, "ms");
    std::vector<std::function<void()>> malloc_fns = {
        [&] {
          mallopt(M_MMAP_MAX, 65536);             // glibc defaults (the mmap threshold was never
          mallopt(M_TRIM_THRESHOLD, 128 * 1024);  // set, so it still adapts as by default)
          tc.step();
          mallopt(M_MMAP_MAX, 0);  // back to initRuntime's settings
          mallopt(M_TRIM_THRESHOLD, 1 << 30);
        },
        [&] { tc.step(); }};
    report("malloc: softmax Transformer large training step",
           {"glibc defaults (mmap for big blocks, trim 128 KiB)",
            "mmap off, trim 1 GiB (initRuntime)"},
           interleave(malloc_fns, scaled(Plan{1, 3, 5, 20}, o)), 1e3, "ms");
  }
  return out;
}

// ---------------------------------------------------------------- 2b. where the step's time goes

// The large softmax Transformer step against its own parts, each timed alone with the step's
// shapes: the dense products (every Linear, forward + both backward products), the attention
// core (blocked, fwd + bwd) and the rest (LayerNorm, GELU, reshapes, loss, AdamW). The parts'
// FLOP/s say how close each kind of work gets to the GEMM peak, and the MFU the step could reach
// if the rest cost nothing is the ceiling that the products themselves set.
struct Breakdown {
  std::string part;
  double flops = 0;  // per step
  Stats seconds;
};

std::vector<Breakdown> benchBreakdown(const Options& o, double peak) {
  heading("2b. Where the large softmax step's time goes (d128 h8 L4 B16 T512), parts timed alone");
  const TrainConfig c{"large", 128, 8, 4, 16, 512};
  const int64_t N = c.B * c.T, D = c.d, Dh = c.d / c.h, F = 4 * c.d;
  torch::manual_seed(0);
  // Dense: per layer QKV (D→3D), output (D→D), FFN (D→4D, 4D→D); each Linear = 3 products.
  struct Dense {
    torch::Tensor x, w, grad;
  };
  std::vector<Dense> dense;
  for (int64_t l = 0; l < c.L; ++l) {
    for (auto [in, out] : {std::pair<int64_t, int64_t>{D, 3 * D}, {D, D}, {D, F}, {F, D}}) {
      dense.push_back(
          {torch::randn({N, in}, torch::requires_grad()),
           torch::randn({out, in}, torch::requires_grad()).mul(0.05).detach().requires_grad_(),
           torch::randn({N, out})});
    }
  }
  double dense_flops = 0;
  for (const auto& d : dense) dense_flops += 3 * 2.0 * N * d.x.size(1) * d.w.size(0);
  auto q = torch::randn({c.B, c.h, c.T, Dh}, torch::requires_grad());
  auto k = torch::randn({c.B, c.h, c.T, Dh}, torch::requires_grad());
  auto v = torch::randn({c.B, c.h, c.T, Dh}, torch::requires_grad());
  auto grad = torch::randn({c.B, c.h, c.T, Dh});
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  const double attention_flops = c.L * 3 * 4.0 * c.B * c.T * c.T * D;  // counted in full, as MFU
  TrainCase step("transformer", c);
  // The blocked kernel's matrix products alone, with its shapes and threading (heads over the
  // threads; blocks of `rows` query rows × the keys up to the block's last row; forward 2
  // products, backward 5 with the weights recomputed), and nothing else: no mask, softmax or
  // elementwise work. What OpenBLAS's GEMMs give at Dh = 16 bounds the core from above.
  const int64_t BH = c.B * c.h, rows = std::clamp<int64_t>(kAttentionBlockValues / c.T, 16, c.T);
  auto q3 = q.detach().reshape({BH, c.T, Dh}), k3 = k.detach().reshape({BH, c.T, Dh});
  auto v3 = v.detach().reshape({BH, c.T, Dh}), g3 = grad.reshape({BH, c.T, Dh});
  auto products_only = [&] {
    torch::NoGradGuard no_grad;
    auto out = torch::empty_like(q3), dq = torch::empty_like(q3);
    auto dk = torch::zeros_like(k3), dv = torch::zeros_like(v3);
    at::parallel_for(0, BH, 1, [&](int64_t begin, int64_t end) {
      for (int64_t h = begin; h < end; ++h) {
        for (int64_t r0 = 0; r0 < c.T; r0 += rows) {
          const int64_t n = std::min(rows, c.T - r0), keys = r0 + n;
          auto qb = q3.narrow(0, h, 1).narrow(1, r0, n), kb = k3.narrow(0, h, 1).narrow(1, 0, keys);
          auto vb = v3.narrow(0, h, 1).narrow(1, 0, keys), gb = g3.narrow(0, h, 1).narrow(1, r0, n);
          auto w = torch::bmm(qb, kb.transpose(1, 2));  // forward: scores
          auto ob = out.narrow(0, h, 1).narrow(1, r0, n), dqb = dq.narrow(0, h, 1).narrow(1, r0, n);
          torch::bmm_out(ob, w, vb);                     // W V
          auto w2 = torch::bmm(qb, kb.transpose(1, 2));  // backward: recompute
          dv.narrow(0, h, 1).narrow(1, 0, keys).baddbmm_(w2.transpose(1, 2), gb);
          auto ds = torch::bmm(gb, vb.transpose(1, 2));  // dO Vᵀ
          torch::bmm_out(dqb, ds, kb);
          dk.narrow(0, h, 1).narrow(1, 0, keys).baddbmm_(ds.transpose(1, 2), qb);
        }
      }
    });
  };
  std::vector<std::function<void()>> fns = {
      [&] { step.step(); },
      [&] {
        for (auto& d : dense) torch::linear(d.x, d.w).backward(d.grad);
      },
      [&] {
        for (int64_t l = 0; l < c.L; ++l)
          blockedSoftmaxAttention(q, k, v, scale, true).backward(grad);
      },
      [&] {
        for (int64_t l = 0; l < c.L; ++l) products_only();
      }};
  const auto t = interleave(fns, scaled(Plan{1, 3, 7, 40}, o));
  StepShape shape{c.B, c.T, c.d, c.h, c.L};
  const double step_flops = trainStepFlops("transformer", shape);
  std::vector<Breakdown> out = {{"whole step", step_flops, t[0]},
                                {"dense products (every Linear, fwd + 2 bwd)", dense_flops, t[1]},
                                {"attention core (blocked, fwd + bwd) x L", attention_flops, t[2]}};
  std::vector<double> rest;
  for (size_t i = 0; i < t[0].samples.size(); ++i) {
    rest.push_back(std::max(0.0, t[0].samples[i] - t[1].samples[i] - t[2].samples[i]));
  }
  out.push_back({"the rest (norms, GELU, copies, loss, AdamW)", 0, summarize(rest)});
  out.push_back({"  attention core's products alone (7 bmm/block) x L", attention_flops, t[3]});
  std::printf("  %-46s %-24s %8s %10s %8s\n", "part", "ms (min-max)", "share", "GFLOP/s",
              "of peak");
  for (const auto& b : out) {
    const double sec = b.seconds.median;
    std::printf("  %-46s %-24s %7s%% %10s %7s%%\n", b.part.c_str(), spread(b.seconds, 1e3).c_str(),
                fmt(100 * sec / t[0].median).c_str(),
                b.flops > 0 ? fmt(b.flops / sec / 1e9).c_str() : "-",
                b.flops > 0 ? fmt(100 * b.flops / sec / peak).c_str() : "-");
  }
  const double ceiling = step_flops / (t[1].median + t[2].median) / peak;
  std::printf(
      "  MFU if the rest were free (dense + attention time only): %s%%; measured step: %s%%\n",
      fmt(100 * ceiling).c_str(), fmt(100 * step_flops / t[0].median / peak).c_str());
  const double products_ceiling = step_flops / (t[1].median + t[3].median) / peak;
  std::printf(
      "  MFU if softmax, masks and all elementwise work were free (dense + attention products "
      "only): %s%%\n",
      fmt(100 * products_ceiling).c_str());
  return out;
}

// The BLAS levers need a fresh process: the loader picks the OpenBLAS build at start-up, and the
// runtime picks OpenBLAS's kernels before main(). The parent starts itself with
// `--sections blas-child` under each setting, alternating, and reads the child's median step:
//   build:   the pthread build first on LD_LIBRARY_PATH vs the OpenMP build scripts/setup.sh
//   selects kernels: OPENBLAS_CORETYPE=Haswell kept (these machines' environment) vs the runtime's
//   choice
constexpr const char* kPthreadOpenBlasDir = "/usr/lib/x86_64-linux-gnu/openblas-pthread";

void blasChild() {
  const TrainConfig c{"large", 128, 8, 4, 16, 512};
  TrainCase tc("transformer", c);
  const auto t = measure([&] { tc.step(); }, Plan{1, 3, 3, 60});
  const auto& rt = initRuntime();
  std::printf("blas-child %s, kernels %s|%.6f\n", rt.blas_kind.c_str(), rt.blas_core.c_str(),
              t.median);
}

struct ChildStep {
  std::string blas;
  double seconds = NAN;
};

ChildStep runBlasChild(const std::string& env) {
  // The shell popen starts would read its own /proc/self/exe: resolve ours here.
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string cmd = env + " '" + self + "' --sections blas-child 2>/dev/null";
  ChildStep r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char line[512];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string s(line);
    if (s.rfind("blas-child ", 0) != 0) continue;
    const auto bar = s.find_last_of('|');
    r.blas = s.substr(11, bar - 11);
    r.seconds = std::atof(s.c_str() + bar + 1);
  }
  ::pclose(pipe);
  return r;
}

std::vector<LeverResult> benchBlasLevers(const Options& o) {
  std::vector<LeverResult> out;
  struct Lever {
    std::string name, before_env, before_name, after_name;
  };
  std::vector<Lever> levers;
  if (std::filesystem::exists(kPthreadOpenBlasDir)) {
    levers.push_back({"OpenBLAS build: softmax Transformer large training step",
                      std::string("LD_LIBRARY_PATH=") + kPthreadOpenBlasDir, "pthread build",
                      "OpenMP build (scripts/setup.sh)"});
  }
  if (cpuHasAvx512Kernels() && !initRuntime().blas_core.empty()) {
    levers.push_back({"OpenBLAS kernels: softmax Transformer large training step",
                      "RSALAB_BLAS_KERNELS=keep OPENBLAS_CORETYPE=Haswell",
                      "AVX2 Haswell kernels (pinned)", "AVX-512 kernels (runtime's pick)"});
  }
  const int rounds = o.scale < 1 ? 1 : 2;
  for (const auto& l : levers) {
    std::vector<double> before_t, after_t;
    std::string before_blas, after_blas;
    for (int r = 0; r < rounds; ++r) {
      auto a = runBlasChild(l.before_env), b = runBlasChild("");
      before_blas = a.blas, after_blas = b.blas;
      if (std::isfinite(a.seconds)) before_t.push_back(a.seconds);
      if (std::isfinite(b.seconds)) after_t.push_back(b.seconds);
    }
    if (before_t.empty() || after_t.empty()) {
      std::printf("  %s: a child run failed, skipped\n", l.name.c_str());
      continue;
    }
    const auto p = summarize(before_t), m = summarize(after_t);
    std::printf("  %s (child processes, median of 3 steps each)\n", l.name.c_str());
    std::printf("    %-58s %s ms  (x1 vs first)\n    %-58s %s ms  (x%s vs first)\n",
                (l.before_name + ": " + before_blas).substr(0, 58).c_str(), spread(p, 1e3).c_str(),
                (l.after_name + ": " + after_blas).substr(0, 58).c_str(), spread(m, 1e3).c_str(),
                fmt(p.median / m.median).c_str());
    out.push_back({l.name, l.before_name, p});
    out.push_back({l.name, l.after_name, m});
  }
  return out;
}

// ---------------------------------------------------------------- 7. sweep

struct SweepTiming {
  bool ran = false;
  int exit_code = 0;
  double seconds = 0;
  std::string command;
};

SweepTiming benchSweep(const Options& o) {
  heading("7. Default sweep wall time");
  SweepTiming s;
  const auto dir =
      std::filesystem::temp_directory_path() / ("rsalab-bench-sweep-" + std::to_string(::getpid()));
  s.command = o.cli + " sweep --out " + dir.string();
  std::printf("  %s  (log: %s/sweep.log)\n", s.command.c_str(), dir.string().c_str());
  std::fflush(stdout);
  std::filesystem::create_directories(dir);
  const auto start = Clock::now();
  const int rc = std::system((s.command + " > " + dir.string() + "/sweep.log 2>&1").c_str());
  s.seconds = since(start);
  s.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  s.ran = true;
  std::printf("  wall %s s, exit code %d\n", fmt(s.seconds, 4).c_str(), s.exit_code);
  return s;
}

// ---------------------------------------------------------------- main

int usage() {
  std::cout << "rsalab-bench [--json PATH] [--sections "
               "gemm,train,breakdown,rsa,attention,generation,levers]\n"
               "             [--configs tiny,small,large] [--models rnn,lstm,...] [--quick]\n"
               "             [--with-sweep [--cli build/app/rsalab-cli]]\n";
  return 2;
}

int run(int argc, char** argv) {
  const RuntimeInfo& runtime = initRuntime();
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--json") {
      o.json_path = value();
    } else if (a == "--sections") {
      auto v = splitList(value());
      o.sections = {v.begin(), v.end()};
    } else if (a == "--configs") {
      o.configs = splitList(value());
    } else if (a == "--models") {
      o.models = splitList(value());
    } else if (a == "--quick") {
      o.scale = 0.3;
    } else if (a == "--with-sweep") {
      o.with_sweep = true;
    } else if (a == "--cli") {
      o.cli = value();
    } else if (a == "--help" || a == "-h") {
      return usage();
    } else {
      std::cerr << "unknown argument " << a << "\n";
      return usage();
    }
  }
  if (o.sections.count("blas-child")) {  // internal: see benchBlasLever
    blasChild();
    return 0;
  }
  const auto wall_start = Clock::now();
  utsname uts{};
  uname(&uts);
  const std::string cpu = firstLineWith("/proc/cpuinfo", "model name");
  const std::string os = firstLineWith("/etc/os-release", "PRETTY_NAME");
  const double load_before = loadAverage();
  std::cout << "rsalab-bench " << RSALAB_VERSION << "  " << utcNow() << "\n"
            << "machine: " << cpu << ", " << std::thread::hardware_concurrency() << " cores, " << os
            << ", kernel " << uts.release << ", LibTorch " << TORCH_VERSION << "\n"
            << runtime.summary() << "\n"
            << "load average before: " << fmt(load_before) << "\n";

  JsonObject root;
  root.str("date", utcNow()).str("version", RSALAB_VERSION);
  root.raw("machine", JsonObject()
                          .str("cpu", cpu)
                          .num("cores", std::thread::hardware_concurrency())
                          .str("os", os)
                          .str("kernel", uts.release)
                          .str("libtorch", TORCH_VERSION)
                          .str("runtime", runtime.summary())
                          .str("blas", runtime.blas_kind)
                          .str("blas_kernels", runtime.blas_core)
                          .str("blas_path", runtime.blas_path)
                          .num("threads", runtime.threads)
                          .num("load_average_before", load_before)
                          .dump());
  std::vector<std::string> targets;
  auto target = [&](const std::string& name, double value, const std::string& op,
                    double threshold) {
    const bool met = std::isfinite(value) && (op == "<=" ? value <= threshold : value >= threshold);
    std::printf("  %-52s %8s %s %-6s %s\n", name.c_str(), fmt(value).c_str(), op.c_str(),
                fmt(threshold).c_str(), met ? "MET" : "NOT MET");
    targets.push_back(JsonObject()
                          .str("name", name)
                          .num("value", value)
                          .str("op", op)
                          .num("threshold", threshold)
                          .boolean("met", met)
                          .dump());
  };

  // 1. GEMM: needed for MFU whenever training runs.
  double peak = 0;
  if (o.sections.count("gemm") || o.sections.count("train") || o.sections.count("breakdown")) {
    auto gemm = benchGemm(o);
    std::vector<std::string> items;
    for (const auto& g : gemm) {
      peak = std::max(peak, g.gflops.median * 1e9);
      items.push_back(
          JsonObject().num("n", static_cast<double>(g.n)).stats("gflops", g.gflops).dump());
    }
    std::printf("  peak (max of the medians): %s GFLOP/s; BLAS: %s, kernels %s\n",
                fmt(peak / 1e9).c_str(), runtime.blas_kind.c_str(), runtime.blas_core.c_str());
    root.raw("gemm",
             JsonObject().raw("sizes", jsonArray(items)).num("peak_gflops", peak / 1e9).dump());
  }

  std::vector<TrainResult> train;
  std::vector<PairedRatio> ratios;
  if (o.sections.count("train")) {
    train = benchTrain(o, peak, &ratios);
    std::vector<std::string> items;
    for (const auto& r : train) {
      JsonObject j;
      j.str("config", r.config)
          .str("model", r.model)
          .num("tokens_per_step", static_cast<double>(r.tokens));
      j.num("flops_per_step", r.flops).stats("step_seconds", r.seconds);
      j.num("steps_per_s", 1 / r.seconds.median).num("tokens_per_s", r.tokens / r.seconds.median);
      j.num("gflops", r.flops / r.seconds.median / 1e9);
      j.num("mfu", r.flops / r.seconds.median / peak);
      j.num("mfu_min", r.flops / r.seconds.max / peak)
          .num("mfu_max", r.flops / r.seconds.min / peak);
      if (!r.note.empty()) j.str("note", r.note);
      items.push_back(j.dump());
    }
    root.raw("train", jsonArray(items));
  }

  if (o.sections.count("breakdown")) {
    std::vector<std::string> items;
    for (const auto& b : benchBreakdown(o, peak)) {
      items.push_back(JsonObject()
                          .str("part", b.part)
                          .num("flops", b.flops)
                          .stats("seconds", b.seconds)
                          .dump());
    }
    root.raw("breakdown", jsonArray(items));
  }

  if (o.sections.count("rsa")) {
    auto rems = benchRems(o, train, ratios);
    std::vector<std::string> items, ritems;
    for (const auto& r : ratios)
      ritems.push_back(
          JsonObject().str("config", r.config).stats("rsa_over_softmax", r.ratio).dump());
    for (const auto& r : rems) {
      items.push_back(
          JsonObject()
              .str("config", r.config)
              .num("T", static_cast<double>(r.T))
              .num("rem_heads", static_cast<double>(r.R))
              .stats("build_backward_seconds", r.seconds)
              .num("layers", static_cast<double>(r.layers))
              .num("fraction_of_softmax_step",
                   r.softmax_step > 0
                       ? r.seconds.median * static_cast<double>(r.layers) / r.softmax_step
                       : NAN)
              .dump());
    }
    root.raw("rsa_over_softmax", jsonArray(ritems));
    root.raw("rem_build", jsonArray(items));
  }

  std::vector<ScalingResult> scaling;
  if (o.sections.count("attention")) {
    scaling = benchAttention(o);
    std::vector<std::string> items;
    for (const auto& r : scaling) {
      std::vector<std::string> pts;
      for (size_t i = 0; i < r.T.size(); ++i) {
        pts.push_back(JsonObject()
                          .num("T", static_cast<double>(r.T[i]))
                          .stats("seconds", r.seconds[i])
                          .dump());
      }
      items.push_back(JsonObject()
                          .str("kind", r.kind)
                          .raw("points", jsonArray(pts))
                          .num("slope", r.slope)
                          .num("slope_T_ge_512", r.slope_upper)
                          .dump());
    }
    root.raw("attention_scaling", jsonArray(items));
  }

  std::vector<GenerationResult> gen;
  if (o.sections.count("generation")) {
    gen = benchGeneration(o);
    std::vector<std::string> items;
    for (const auto& g : gen)
      items.push_back(
          JsonObject().str("method", g.method).stats("seconds_per_token", g.seconds).dump());
    root.raw("generation", JsonObject().num("T", 2048).raw("methods", jsonArray(items)).dump());
  }

  if (o.sections.count("levers") || o.sections.count("blas-levers")) {
    std::vector<LeverResult> levers;
    if (o.sections.count("levers"))
      levers = benchLevers(o);
    else
      heading("Levers: OpenBLAS build and kernels (child processes)");
    for (auto& l : benchBlasLevers(o)) levers.push_back(l);
    std::vector<std::string> items;
    for (const auto& l : levers) {
      items.push_back(JsonObject()
                          .str("lever", l.lever)
                          .str("variant", l.variant)
                          .stats("seconds", l.seconds)
                          .dump());
    }
    root.raw("levers", jsonArray(items));
  }

  SweepTiming sweep;
  if (o.with_sweep) {
    sweep = benchSweep(o);
    const auto& s = sweep;
    root.raw("sweep", JsonObject()
                          .str("command", s.command)
                          .num("wall_seconds", s.seconds)
                          .num("exit_code", s.exit_code)
                          .dump());
  }

  heading("Targets (ratios measured in this run)");
  auto median = [&](const std::string& config, const std::string& model) {
    for (const auto& r : train) {
      if (r.config == config && r.model == model) return r.seconds.median;
    }
    return static_cast<double>(NAN);
  };
  auto flops = [&](const std::string& config, const std::string& model) {
    for (const auto& r : train) {
      if (r.config == config && r.model == model) return r.flops;
    }
    return static_cast<double>(NAN);
  };
  for (const auto& r : ratios) {
    if (r.config == "large") target("RSA step / softmax step (large)", r.ratio.median, "<=", 1.10);
  }
  if (!train.empty()) {
    target("MFU softmax (large)",
           flops("large", "transformer") / median("large", "transformer") / peak, ">=", 0.35);
    target("MFU RSA (large)", flops("large", "rsa") / median("large", "rsa") / peak, ">=", 0.35);
  }
  if (!gen.empty()) {
    auto g = [&](const std::string& m) {
      for (const auto& r : gen) {
        if (r.method == m) return r.seconds.median;
      }
      return static_cast<double>(NAN);
    };
    target("softmax recompute / linear step per token (T=2048)",
           g("softmax recompute prefix") / g("linear (S, z) step"), ">=", 20);
    target("softmax KV step / linear step per token (T=2048)",
           g("softmax KV cache step") / g("linear (S, z) step"), ">=", 1);
  }
  if (sweep.ran) {
    target("default sweep wall time, s (2 cores: 300 s)",
           sweep.exit_code == 0 ? sweep.seconds : NAN, "<=", 300);
  }
  root.raw("targets", jsonArray(targets));
  const double wall = since(wall_start);
  root.num("wall_seconds", wall).num("load_average_after", loadAverage());
  std::printf("\nbench wall time %s s; load average after: %s\n", fmt(wall, 4).c_str(),
              fmt(loadAverage()).c_str());

  if (!o.json_path.empty()) {
    const std::filesystem::path path(o.json_path);
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path);
    out << root.dump() << "\n";
    if (!out) {
      std::cerr << "cannot write " << o.json_path << "\n";
      return 1;
    }
    std::cout << "wrote " << o.json_path << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace rsalab::bench

int main(int argc, char** argv) {
  try {
    return rsalab::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "rsalab-bench: " << e.what() << "\n";
    return 1;
  }
}
