// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/sweep/sweep_cell.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/core/io/atomic_file.h"
#include "engine/core/io/json_limits.h"
#include "engine/core/io/json_read.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/sweep/sweep_row_json.h"

namespace rsalab {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* const kCellFormat = "rsalab-sweep-cell";
constexpr int64_t kCellFormatVersion = 1;
constexpr size_t kMaxCellBytes = size_t{256} << 20;

std::string startedPath(const std::string& dir, int64_t index) {
  return (fs::path(dir) / "cells" / (std::to_string(index) + ".started")).string();
}

json trainCurveJson(const std::vector<StepMetrics>& curve) {
  json step = json::array(), seen = json::array(), loss = json::array(), lr = json::array(),
       grad = json::array(), seconds = json::array();
  for (const auto& m : curve) {
    step.push_back(m.step);
    seen.push_back(m.samples_seen);
    loss.push_back(m.train_loss);
    lr.push_back(m.learning_rate);
    grad.push_back(m.grad_norm);
    seconds.push_back(m.seconds);
  }
  return {{"step", step},        {"samples_seen", seen}, {"train_loss", loss},
          {"learning_rate", lr}, {"grad_norm", grad},    {"seconds", seconds}};
}

std::vector<StepMetrics> trainCurveFromJson(const json& j) {
  const auto& step = j.at("step");
  const size_t n = step.size();
  for (const char* key : {"samples_seen", "train_loss", "learning_rate", "grad_norm", "seconds"}) {
    if (!j.at(key).is_array() || j.at(key).size() != n)
      throw std::runtime_error(std::string("train_curve.") + key + " is not an array of " +
                               std::to_string(n) + " numbers");
  }
  std::vector<StepMetrics> curve(n);
  for (size_t i = 0; i < n; ++i) {
    curve[i].step = step[i].get<int64_t>();
    curve[i].samples_seen = j["samples_seen"][i].get<int64_t>();
    curve[i].train_loss = json_read::toNumber(j["train_loss"][i], "train_loss");
    curve[i].learning_rate = json_read::toNumber(j["learning_rate"][i], "learning_rate");
    curve[i].grad_norm = json_read::toNumber(j["grad_norm"][i], "grad_norm");
    curve[i].seconds = json_read::toNumber(j["seconds"][i], "seconds");
  }
  return curve;
}

json validationCurveJson(const std::vector<EvalMetrics>& curve) {
  json out = json::array();
  for (const auto& m : curve) {
    out.push_back({{"step", m.step},
                   {"samples_seen", m.samples_seen},
                   {"split", splitName(m.split)},
                   {"loss", m.loss},
                   {"values", m.values}});
  }
  return out;
}

std::vector<EvalMetrics> validationCurveFromJson(const json& j) {
  std::vector<EvalMetrics> curve;
  for (const auto& e : j) {
    EvalMetrics m;
    m.step = e.at("step").get<int64_t>();
    m.samples_seen = e.at("samples_seen").get<int64_t>();
    // a validation curve: every point's split is validation, whatever a file says
    m.split = parseSplit(e.at("split").get<std::string>()).value_or(Split::Validation);
    m.loss = json_read::toNumber(e.at("loss"), "loss");
    for (const auto& [k, v] : e.at("values").items()) m.values[k] = json_read::toNumber(v, k);
    curve.push_back(std::move(m));
  }
  return curve;
}

}  // namespace

std::string sweepCellJson(const SweepCellResult& cell) {
  json j;
  j["format"] = kCellFormat;
  j["format_version"] = kCellFormatVersion;
  j["plan_hash"] = cell.plan_hash;
  j["index"] = cell.index;
  j["row"] = sweepRowToJson(cell.row);
  j["train_curve"] = trainCurveJson(cell.row.train_curve);
  j["validation_curve"] = validationCurveJson(cell.row.validation_curve);
  j["host"] = cell.host;
  j["device"] = cell.device;
  j["threads"] = cell.threads;
  j["started_at"] = cell.started_at;
  j["finished_at"] = cell.finished_at;
  j["slurm_job"] = cell.slurm_job;
  return j.dump() + "\n";
}

SweepCellResult sweepCellFromJson(const std::string& text, const std::string& what) {
  const json j = parseJsonLimited(text, what, {kMaxCellBytes, 32});
  SweepCellResult cell;
  try {
    if (!j.is_object()) throw std::runtime_error("must be a JSON object");
    if (j.at("format").get<std::string>() != kCellFormat)
      throw std::runtime_error(std::string("key \"format\" is not \"") + kCellFormat + "\"");
    if (j.at("format_version").get<int64_t>() != kCellFormatVersion)
      throw std::runtime_error("format_version is not " + std::to_string(kCellFormatVersion));
    cell.plan_hash = j.at("plan_hash").get<std::string>();
    cell.index = j.at("index").get<int64_t>();
    cell.row = sweepRowFromJson(j.at("row"), "row");
    cell.row.run = cell.index;
    if (j.contains("train_curve")) cell.row.train_curve = trainCurveFromJson(j["train_curve"]);
    if (j.contains("validation_curve"))
      cell.row.validation_curve = validationCurveFromJson(j["validation_curve"]);
    cell.host = j.value("host", "");
    cell.device = j.value("device", "");
    cell.threads = j.value("threads", int64_t{1});
    cell.started_at = j.value("started_at", 0.0);
    cell.finished_at = j.value("finished_at", 0.0);
    cell.slurm_job = j.value("slurm_job", "");
  } catch (const json::exception& e) {
    throw std::runtime_error(what + ": " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(what + ": " + e.what());
  }
  return cell;
}

void writeSweepCell(const std::string& dir, const SweepCellResult& cell) {
  fs::create_directories(sweepCellsDir(dir));
  writeFileAtomically(sweepCellPath(dir, cell.index), sweepCellJson(cell));
  std::error_code ignored;
  fs::remove(startedPath(dir, cell.index), ignored);
}

std::optional<SweepCellResult> readSweepCell(const std::string& dir, const SweepPlan& plan,
                                             int64_t index) {
  const std::string path = sweepCellPath(dir, index);
  std::error_code error;
  if (!fs::exists(path, error)) return std::nullopt;
  SweepCellResult cell = sweepCellFromJson(readTextFile(path, kMaxCellBytes), path);
  if (cell.plan_hash != plan.hash) {
    throw std::runtime_error(path + " was computed for another plan (" + cell.plan_hash + "; " +
                             sweepPlanPath(dir) + " is now " + plan.hash +
                             "): the plan changed after this cell ran. Remove " +
                             sweepCellsDir(dir) + " to rerun every cell, or use a new folder");
  }
  if (cell.index != index)
    throw std::runtime_error(path + ": key \"index\" is " + std::to_string(cell.index));
  return cell;
}

void markSweepCellStarted(const std::string& dir, int64_t index, const std::string& slurm_job) {
  fs::create_directories(sweepCellsDir(dir));
  json j = {{"host", hostName()}, {"slurm_job", slurm_job}, {"started_at", unixTimeNow()}};
  writeFileAtomically(startedPath(dir, index), j.dump() + "\n");
}

bool sweepCellStarted(const std::string& dir, int64_t index) {
  std::error_code error;
  return fs::exists(startedPath(dir, index), error);
}

SweepResult mergeSweepCells(const SweepPlan& plan, std::vector<SweepCellResult> cells) {
  std::sort(cells.begin(), cells.end(),
            [](const SweepCellResult& a, const SweepCellResult& b) { return a.index < b.index; });
  SweepResult result;
  result.base = plan.base;
  result.axis = plan.axis;
  result.tuned = plan.tuned;
  result.base.model.model = plan.models.front();
  result.parallel = cells.empty() ? 0 : 1;
  double first = INFINITY, last = -INFINITY;
  std::vector<std::pair<double, int>> events;  // (time, +1 start / −1 finish)
  for (auto& c : cells) {
    first = std::min(first, c.started_at);
    last = std::max(last, c.finished_at);
    events.emplace_back(c.started_at, 1);
    events.emplace_back(c.finished_at, -1);
    result.threads_per_run = std::max(result.threads_per_run, c.threads);
    result.rows.push_back(std::move(c.row));
  }
  std::sort(events.begin(), events.end());  // a finish sorts before a start at the same time
  int64_t running = 0;
  for (const auto& e : events) {
    running += e.second;
    result.parallel = std::max(result.parallel, running);
  }
  result.wall_seconds = cells.empty() ? 0 : std::max(0.0, last - first);
  fitSweep(result, plan.models);
  return result;
}

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

double unixTimeNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace rsalab
