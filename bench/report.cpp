// SPDX-License-Identifier: GPL-3.0-or-later
#include "bench/report.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "bench/fixtures.h"

namespace rsalab::bench {

Json statsJson(const Stats& s, double scale) {
  Json j;
  j["median"] = s.median * scale;
  j["min"] = s.min * scale;
  j["max"] = s.max * scale;
  j["q1"] = s.q1 * scale;
  j["q3"] = s.q3 * scale;
  j["n"] = s.samples.size();
  return j;
}

namespace {

Json gemmJson(const std::vector<GemmResult>& gemm, double peak_flops, double peak_bf16_flops) {
  Json sizes = Json::array();
  for (const auto& g : gemm)
    sizes.push_back({{"n", g.n}, {"dtype", g.dtype}, {"gflops", statsJson(g.gflops)}});
  return {{"sizes", sizes},
          {"peak_gflops", peak_flops / 1e9},
          {"peak_bf16_gflops", peak_bf16_flops / 1e9}};
}

// MFU against the float32 peak (the engine trains in float32) and, as a second yardstick,
// against the bfloat16 peak a mixed-precision step could aim at.
Json trainJson(const std::vector<TrainResult>& train, double peak, double peak_bf16) {
  Json items = Json::array();
  for (const auto& r : train) {
    const double sec = r.seconds.median;
    Json j;
    j["config"] = r.config;
    j["model"] = r.model;
    j["tokens_per_step"] = r.tokens;
    j["flops_per_step"] = r.flops;
    j["step_seconds"] = statsJson(r.seconds);
    j["step_seconds"]["samples"] = r.seconds.samples;  // every timed step, in run order
    j["steps_per_s"] = 1 / sec;
    j["tokens_per_s"] = static_cast<double>(r.tokens) / sec;
    j["gflops"] = r.flops / sec / 1e9;
    j["mfu"] = r.flops / sec / peak;
    j["mfu_min"] = r.flops / r.seconds.max / peak;
    j["mfu_max"] = r.flops / r.seconds.min / peak;
    if (peak_bf16 > 0) j["mfu_bf16"] = r.flops / sec / peak_bf16;
    if (!r.note.empty()) j["note"] = r.note;
    items.push_back(j);
  }
  return items;
}

Json remsJson(const std::vector<RemResult>& rems) {
  Json items = Json::array();
  for (const auto& r : rems) {
    Json j;
    j["config"] = r.config;
    j["T"] = r.T;
    j["rem_heads"] = r.R;
    j["build_backward_seconds"] = statsJson(r.seconds);
    j["layers"] = r.layers;
    j["fraction_of_softmax_step"] =
        r.softmax_step > 0 ? r.seconds.median * static_cast<double>(r.layers) / r.softmax_step
                           : NAN;
    items.push_back(j);
  }
  return items;
}

Json scalingJson(const std::vector<ScalingResult>& scaling) {
  Json items = Json::array();
  for (const auto& r : scaling) {
    Json points = Json::array();
    for (size_t i = 0; i < r.T.size(); ++i) {
      points.push_back({{"T", r.T[i]}, {"seconds", statsJson(r.seconds[i])}});
    }
    items.push_back({{"kind", r.kind},
                     {"points", points},
                     {"slope", r.slope},
                     {"slope_T_ge_512", r.slope_upper}});
  }
  return items;
}

}  // namespace

void addResults(Json& root, const Results& r) {
  if (r.gemm) root["gemm"] = gemmJson(*r.gemm, r.peak_flops, r.peak_bf16_flops);
  if (r.train) root["train"] = trainJson(*r.train, r.peak_flops, r.peak_bf16_flops);
  if (r.breakdown) {
    Json items = Json::array();
    for (const auto& b : *r.breakdown) {
      items.push_back({{"part", b.part}, {"flops", b.flops}, {"seconds", statsJson(b.seconds)}});
    }
    root["breakdown"] = items;
  }
  if (r.rems) {
    Json ratios = Json::array();
    for (const auto& p : r.ratios) {
      ratios.push_back({{"config", p.config}, {"rsa_over_softmax", statsJson(p.ratio)}});
    }
    root["rsa_over_softmax"] = ratios;
    root["rem_build"] = remsJson(*r.rems);
  }
  if (r.scaling) root["attention_scaling"] = scalingJson(*r.scaling);
  if (r.generation) {
    Json methods = Json::array();
    for (const auto& g : *r.generation) {
      methods.push_back({{"method", g.method}, {"seconds_per_token", statsJson(g.seconds)}});
    }
    root["generation"] = {{"T", kGenerationT}, {"methods", methods}};
  }
  if (r.levers) {
    Json items = Json::array();
    for (const auto& l : *r.levers) {
      items.push_back(
          {{"lever", l.lever}, {"variant", l.variant}, {"seconds", statsJson(l.seconds)}});
    }
    root["levers"] = items;
  }
  if (r.sweep) {
    root["sweep"] = {{"command", r.sweep->command},
                     {"wall_seconds", r.sweep->seconds},
                     {"exit_code", r.sweep->exit_code}};
  }
}

Json reportTargets(const Results& r) {
  heading("Targets (ratios measured in this run)");
  Json rows = Json::array();
  auto target = [&](const std::string& name, double value, const std::string& op,
                    double threshold) {
    const bool met = std::isfinite(value) && (op == "<=" ? value <= threshold : value >= threshold);
    std::printf("  %-52s %8s %s %-6s %s\n", name.c_str(), formatNumber(value).c_str(), op.c_str(),
                formatNumber(threshold).c_str(), met ? "MET" : "NOT MET");
    rows.push_back(
        {{"name", name}, {"value", value}, {"op", op}, {"threshold", threshold}, {"met", met}});
  };
  for (const auto& p : r.ratios) {
    if (p.config == "large") target("RSA step / softmax step (large)", p.ratio.median, "<=", 1.05);
  }
  if (r.train && !r.train->empty()) {
    auto mfu = [&](const std::string& model) {
      for (const auto& t : *r.train) {
        if (t.config == "large" && t.model == model) {
          return t.flops / t.seconds.median / r.peak_flops;
        }
      }
      return static_cast<double>(NAN);
    };
    for (const AttentionKind kind : {attentionKind("softmax"), attentionKind("rsa")}) {
      const double value = mfu(attentionModel(kind));
      if (std::isfinite(value))
        target(std::string("MFU ") + attentionKindName(kind) + " (large)", value, ">=", 0.50);
    }
    auto step = [&](const std::string& model, const std::string& config) {
      for (const auto& t : *r.train) {
        if (t.config == config && t.model == model) return t.seconds.median;
      }
      return static_cast<double>(NAN);
    };
    const auto softmax = attentionModel(attentionKind("softmax"));
    const double linear_ratio =
        step(attentionModel(attentionKind("linear")), "large") / step(softmax, "large");
    if (std::isfinite(linear_ratio))
      target("linear step / softmax step (large)", linear_ratio, "<=", 0.5);
    for (const std::string config : {"small", "large"}) {
      const double ratio = step("starsaber", config) / step(softmax, config);
      if (std::isfinite(ratio))
        target("StarSaber step / softmax step (" + config + ")", ratio, "<=", 1.0);
    }
  }
  if (r.scaling) {
    for (const auto& s : *r.scaling) {
      if (parseAttentionKind(s.kind) == attentionKind("linear"))
        target("linear attention forward exponent (T >= 512)", s.slope_upper, "<=", 1.1);
    }
  }
  if (r.levers) {
    double cumulative = NAN, engine = NAN;
    for (const auto& l : *r.levers) {
      if (l.lever.rfind("causal linear-attention core", 0) != 0) continue;
      if (l.variant.rfind("cumulative sum", 0) == 0) cumulative = l.seconds.median;
      if (l.variant.find("(engine)") != std::string::npos) engine = l.seconds.median;
    }
    if (std::isfinite(cumulative / engine)) {
      target("linear core fwd+bwd: cumulative / engine's (T=512)", cumulative / engine, ">=", 2);
    }
  }
  if (r.generation && !r.generation->empty()) {
    auto g = [&](const std::string& method) {
      for (const auto& x : *r.generation) {
        if (x.method == method) return x.seconds.median;
      }
      return static_cast<double>(NAN);
    };
    target("softmax recompute / linear step per token (T=2048)",
           g(kSoftmaxRecompute) / g(kLinearStep), ">=", 20);
    target("softmax KV step / linear step per token (T=2048)", g(kSoftmaxKvStep) / g(kLinearStep),
           ">=", 1);
  }
  if (r.sweep && r.sweep->ran) {
    target("default sweep wall time, s (2 cores)", r.sweep->exit_code == 0 ? r.sweep->seconds : NAN,
           "<=", 150);
  }
  return rows;
}

bool writeJson(const std::string& path_name, const Json& root) {
  const std::filesystem::path path(path_name);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path);
  out << root.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  if (!out) {
    std::cerr << "cannot write " << path_name << "\n";
    return false;
  }
  return true;
}

}  // namespace rsalab::bench
