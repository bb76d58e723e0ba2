// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-bench: the performance suite of docs/PERFORMANCE.md. Headless, LibTorch only. The
// sections are listed in bench/sections.h; every figure is a median over repeats with min-max
// and quartiles, and every ratio is taken within this run (MFU against this run's GEMM peak,
// RSA ÷ softmax from interleaved steps).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "bench/fixtures.h"
#include "bench/report.h"
#include "bench/sections.h"
#include "engine/core/registry/model_registry.h"
#include "engine/device.h"
#include "engine/runtime.h"

namespace rsalab::bench {
namespace {

// The sections that run on --device cuda; the others time CPU kernels and threads.
const std::vector<std::string> kDeviceSections = {"gemm", "train"};

// Binds the flags to `o` and `sections` (copied into o.sections once parsed).
void addFlags(CLI::App& app, Options& o, std::vector<std::string>& sections, bool& list_models) {
  sections = defaultSections();
  o.configs = defaultTrainConfigNames();
  o.models = modelNames(/*sequence_only=*/true);
  app.add_option("--json", o.json_path, "also write every figure and sample as JSON to PATH")
      ->type_name("PATH");
  app.add_option("--sections", sections, "sections to run (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember(sectionNames()))
      ->default_str(joined(defaultSections(), ","));
  app.add_option("--configs", o.configs, "training configurations (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember(trainConfigNames()))
      ->default_str(joined(o.configs, ","));
  app.add_option("--models", o.models, "models to train (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember(modelNames(/*sequence_only=*/true)))
      ->default_str(joined(o.models, ","));
  app.add_flag_callback(
      "--quick", [&o] { o.scale = 0.3; }, "fewer repeats and shorter budgets (a smoke test)");
  app.add_flag("--with-sweep", o.with_sweep, "also time `rsalab-cli sweep` with its defaults");
  app.add_option("--cli", o.cli, "the rsalab-cli that --with-sweep times")
      ->type_name("PATH")
      ->capture_default_str();
  app.add_option("--device", o.device,
                 "where the gemm and train sections run: cpu, cuda or cuda:N (the other "
                 "sections are CPU-only; on a GPU the default --sections is gemm,train)")
      ->capture_default_str();
  app.add_flag("--list-models", list_models,
               "print the models a run trains by default, one per line, and exit");
}

void printHeader(const RuntimeInfo& runtime, const Machine& m, double load_before) {
  std::cout << "rsalab-bench " << RSALAB_VERSION << "  " << utcNow() << "\n"
            << "machine: " << m.cpu << ", " << m.cores << " cores, " << m.os << ", kernel "
            << m.kernel << ", LibTorch " << TORCH_VERSION << "\n"
            << runtime.summary() << "\n"
            << "load average before: " << formatNumber(load_before) << "\n";
}

Json machineJson(const RuntimeInfo& runtime, const Machine& m, double load_before) {
  return {{"cpu", m.cpu},
          {"cores", m.cores},
          {"os", m.os},
          {"kernel", m.kernel},
          {"libtorch", TORCH_VERSION},
          {"runtime", runtime.summary()},
          {"blas", runtime.blas_kind},
          {"blas_kernels", runtime.blas_core},
          {"blas_path", runtime.blas_path},
          {"threads", runtime.threads},
          {"load_average_before", load_before}};
}

Results runSections(const Options& o, const RuntimeInfo& runtime) {
  Results r;
  // 1. GEMM: needed for MFU whenever training runs.
  if (o.has("gemm") || o.has("train") || o.has("breakdown")) {
    r.gemm = benchGemm(o);
    for (const auto& g : *r.gemm) {
      double& peak = g.dtype == "bfloat16" ? r.peak_bf16_flops : r.peak_flops;
      peak = std::max(peak, g.gflops.median * 1e9);
    }
    std::printf(
        "  peak (max of the medians): float32 %s GFLOP/s, bfloat16 %s GFLOP/s; BLAS: %s, kernels "
        "%s\n",
        formatNumber(r.peak_flops / 1e9).c_str(), formatNumber(r.peak_bf16_flops / 1e9).c_str(),
        runtime.blas_kind.c_str(), runtime.blas_core.c_str());
  }
  if (o.has("train")) r.train = benchTrain(o, r.peak_flops, &r.ratios);
  if (o.has("breakdown")) r.breakdown = benchBreakdown(o, r.peak_flops);
  if (o.has("rsa")) r.rems = benchRems(o, r.train.value_or(std::vector<TrainResult>{}), r.ratios);
  if (o.has("attention")) r.scaling = benchAttention(o);
  if (o.has("generation")) r.generation = benchGeneration(o);
  if (o.has("levers") || o.has("linear-levers")) {
    r.levers.emplace();
    for (auto& l : benchLinearLevers(o)) r.levers->push_back(l);
  }
  if (o.has("levers") || o.has("recurrent-levers")) {
    if (!r.levers) r.levers.emplace();
    for (auto& l : benchRecurrentLevers(o)) r.levers->push_back(l);
  }
  if (o.has("levers") || o.has("starsaber-levers")) {
    if (!r.levers) r.levers.emplace();
    for (auto& l : benchStarSaberLevers(o)) r.levers->push_back(l);
  }
  if (o.has("levers") || o.has("blas-levers")) {
    if (o.has("levers")) {
      for (auto& l : benchLevers(o)) r.levers->push_back(l);
    } else {
      if (!r.levers) r.levers.emplace();
      heading("Levers: OpenBLAS build and kernels (child processes)");
    }
    for (auto& l : benchBlasLevers(o)) r.levers->push_back(l);
  }
  if (o.with_sweep) r.sweep = benchSweep(o);
  return r;
}

int run(int argc, char** argv) {
  const RuntimeInfo& runtime = initRuntime();
  Options o;
  CLI::App app("rsalab-bench: the performance suite (docs/PERFORMANCE.md)", "rsalab-bench");
  std::vector<std::string> sections;
  bool list_models = false;
  addFlags(app, o, sections, list_models);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (list_models) {
    for (const auto& m : modelNames(/*sequence_only=*/true)) std::cout << m << "\n";
    return 0;
  }
  const torch::Device device = resolveDevice(o.device);
  if (!device.is_cpu() && app.count("--sections") == 0) sections = kDeviceSections;
  o.sections = {sections.begin(), sections.end()};
  if (!device.is_cpu()) {
    for (const auto& s : o.sections)
      if (std::find(kDeviceSections.begin(), kDeviceSections.end(), s) == kDeviceSections.end())
        throw std::invalid_argument("--device " + o.device + " runs only the sections " +
                                    joined(kDeviceSections, ",") + " (--sections), not " + s);
  }
  if (o.has("blas-child")) {  // internal: the child process of the OpenBLAS levers
    blasChild();
    return 0;
  }
  const auto wall_start = Clock::now();
  const Machine machine = describeMachine();
  const double load_before = loadAverage();
  printHeader(runtime, machine, load_before);
  std::cout << "device: " << deviceName(device) << " (sections gemm and train)\n";

  Json root;
  root["date"] = utcNow();
  root["version"] = RSALAB_VERSION;
  root["machine"] = machineJson(runtime, machine, load_before);
  root["device"] = deviceName(device);
  const Results results = runSections(o, runtime);
  addResults(root, results);
  root["targets"] = reportTargets(results);
  const double wall = since(wall_start);
  root["wall_seconds"] = wall;
  root["load_average_after"] = loadAverage();
  std::printf("\nbench wall time %s s; load average after: %s\n", formatNumber(wall, 4).c_str(),
              formatNumber(loadAverage()).c_str());
  if (!o.json_path.empty()) {
    if (!writeJson(o.json_path, root)) return 1;
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
