// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/session/session_bundle.h"

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "engine/core/io/atomic_file.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/inspection_io.h"
#include "engine/core/io/json_read.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/ground_truth_json.h"
#include "engine/core/sweep/sweep_io.h"

namespace rsalab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr size_t kMaxManifestBytes = size_t{4} << 20;
constexpr size_t kMaxRuns = 4096;
constexpr size_t kMaxMetricsBytes = size_t{256} << 20;
constexpr int64_t kMaxMetricsRows = 10'000'000;
constexpr size_t kMaxInspectionBytes = size_t{512} << 20;
constexpr size_t kMaxSnapshots = 100'000;
constexpr size_t kMaxSweepBytes = size_t{64} << 20;
constexpr size_t kMaxLayoutBytes = size_t{4} << 20;

[[noreturn]] void failBundle(const std::string& file, const std::string& what) {
  throw SessionError(file + ": " + what);
}

// "idle, running, …": every state a run can be saved in.
std::string runStateList() {
  return joined(allRunStates(), ", ",
                [](RunState state) { return std::string(runStateName(state)); });
}

// The split of an eval row: validation or test (the splits Trainer::evaluate reports).
std::optional<Split> evalSplit(const std::string& name) {
  const auto split = parseSplit(name);
  if (split && *split != Split::Train) return split;
  return std::nullopt;
}

std::string runFile(const char* folder, int64_t id, const char* suffix) {
  return std::string(folder) + "/run-" + std::to_string(id) + suffix;
}

// "<pid>-<random>": the writer's process id, so that a later save can tell a dead writer's
// folders from a live one's.
std::string randomTag() {
  std::random_device rd;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld-%08x", static_cast<long>(::getpid()), rd());
  return buf;
}

// After a successful save of `target`: the NAME.tmp-<pid>-* folders of writers that are no longer
// running (killed mid-save) and every NAME.bak-<pid>-* folder of a finished or dead writer (the
// new bundle is in place, so no backup is needed any more). Best effort.
void removeLeftoverFolders(const fs::path& target) {
  std::error_code ec;
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string name = target.filename().string();
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string f = entry.path().filename().string();
    for (const std::string kind : {".tmp-", ".bak-"}) {
      const std::string prefix = name + kind;
      if (f.rfind(prefix, 0) != 0 || !entry.is_directory(ec)) continue;
      long pid = 0;
      if (std::sscanf(f.c_str() + prefix.size(), "%ld-", &pid) != 1 || pid <= 0) continue;
      const bool alive =
          pid != ::getpid() && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
      const bool ours_or_dead = pid == ::getpid() || !alive;
      if ((kind == ".bak-" && ours_or_dead) || (kind == ".tmp-" && pid != ::getpid() && !alive)) {
        fs::remove_all(entry.path(), ec);
      }
    }
  }
}

// Every bit of a double, so that a reopened bundle holds the same curves.
std::string number(double v) { return formatNumber(v, 17); }

// ---- Manifest keys, checked with messages naming the key.

const json& needBundleKey(const json& j, const char* key, const std::string& file,
                          const std::string& path = "") {
  return json_read::keyErrorsAs<SessionError>(
      file, [&]() -> const json& { return json_read::need(j, key, path); });
}

int64_t needInt(const json& j, const char* key, const std::string& file,
                const std::string& path = "") {
  return json_read::keyErrorsAs<SessionError>(file,
                                              [&] { return json_read::needInteger(j, key, path); });
}

std::string needString(const json& j, const char* key, const std::string& file,
                       const std::string& path = "") {
  return json_read::keyErrorsAs<SessionError>(file,
                                              [&] { return json_read::needString(j, key, path); });
}

json manifestJson(const SessionBundle& b) {
  json j;
  j["format"] = "rsalab-session";
  j["format_version"] = b.format_version;
  j["app_version"] = b.app_version;
  j["created"] = b.created;
  j["updated"] = b.updated;
  j["config"] = json::parse(toJson(b.config));
  j["task"] = j["config"]["task"];  // task parameters, for readers of the manifest alone
  j["models"] = b.models;
  j["seeds"] = b.seeds;
  j["sweep"] = !b.sweep_json.empty();
  // What the task knows (its REM truth and Bayes floor) and the T its runs had: a reopened run
  // is matched against the same truth. Bundles written before 2026-11-27 have neither.
  j["truth"] = groundTruthJson(b.truth);
  j["length"] = b.length;
  if (!b.tuned.empty()) j["tuned"] = json::parse(tunedSetJson(b.tuned));
  j["runs"] = json::array();
  for (const auto& r : b.runs) {
    j["runs"].push_back({{"id", r.id},
                         {"model", r.model},
                         {"seed", r.seed},
                         {"size", r.train_size},
                         {"status", runStateName(r.state)},
                         {"parameters", r.parameters},
                         {"message", r.message},
                         {"steps", r.steps.size()},
                         {"snapshots", r.snapshots.size()}});
  }
  return j;
}

// errors.json: the references and every run's per-target test errors (see the header).
std::string errorsJson(const SessionBundle& b) {
  auto numbers = [](const std::vector<double>& v) {
    json out = json::array();
    for (double x : v) out.push_back(std::isfinite(x) ? json(x) : json());
    return out;
  };
  json j{{"horizon", b.horizon},
         {"season", b.season},
         {"references", json::array()},
         {"runs", json::array()}};
  for (const auto& r : b.references) {
    j["references"].push_back(
        {{"name", r.name},
         {"label", r.label},
         {"validation_loss", std::isfinite(r.validation_loss) ? json(r.validation_loss) : json()},
         {"test_loss", std::isfinite(r.test_loss) ? json(r.test_loss) : json()},
         {"test_mase", std::isfinite(r.test_mase) ? json(r.test_mase) : json()},
         {"test_errors", numbers(r.test_errors)}});
  }
  for (const auto& run : b.runs)
    if (!run.test_errors.empty())
      j["runs"].push_back({{"id", run.id}, {"test_errors", numbers(run.test_errors)}});
  return j.dump();
}

void parseErrorsJson(const std::string& text, SessionBundle& b) {
  const std::string file = "errors.json";
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) failBundle(file, "not a JSON object");
  auto number = [&](const json& v, const std::string& key) {
    return json_read::keyErrorsAs<SessionError>(file, [&] { return json_read::toNumber(v, key); });
  };
  auto numbers = [&](const json& o, const std::string& path) {
    const json& v = needBundleKey(o, "test_errors", file, path);
    if (!v.is_array()) failBundle(file, "key \"" + path + "test_errors\" must be an array");
    std::vector<double> out;
    for (size_t k = 0; k < v.size(); ++k)
      out.push_back(number(v[k], path + "test_errors[" + std::to_string(k) + "]"));
    return out;
  };
  b.horizon = std::max<int64_t>(1, needInt(j, "horizon", file));
  b.season = std::max<int64_t>(1, needInt(j, "season", file));
  const json& refs = needBundleKey(j, "references", file);
  if (!refs.is_array()) failBundle(file, "key \"references\" must be an array");
  for (size_t i = 0; i < refs.size(); ++i) {
    const std::string path = "references[" + std::to_string(i) + "].";
    if (!refs[i].is_object()) failBundle(file, "key \"" + path + "\" must be an object");
    ReferenceScore r(
        needString(refs[i], "name", file, path), needString(refs[i], "label", file, path),
        number(needBundleKey(refs[i], "validation_loss", file, path), path + "validation_loss"),
        number(needBundleKey(refs[i], "test_loss", file, path), path + "test_loss"));
    if (refs[i].contains("test_mase"))
      r.test_mase = number(refs[i]["test_mase"], path + "test_mase");
    r.test_errors = numbers(refs[i], path);
    b.references.push_back(std::move(r));
  }
  const json& runs = needBundleKey(j, "runs", file);
  if (!runs.is_array()) failBundle(file, "key \"runs\" must be an array");
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string path = "runs[" + std::to_string(i) + "].";
    if (!runs[i].is_object()) failBundle(file, "key \"" + path + "\" must be an object");
    const int64_t id = needInt(runs[i], "id", file, path);
    auto run =
        std::find_if(b.runs.begin(), b.runs.end(), [&](const SessionRun& r) { return r.id == id; });
    if (run == b.runs.end())
      failBundle(file,
                 "key \"" + path + "id\": run " + std::to_string(id) + " is not in the manifest");
    run->test_errors = numbers(runs[i], path);
  }
}

std::string readBounded(const fs::path& root, const std::string& relative, size_t limit) {
  try {
    return readTextFile((root / relative).string(), limit);
  } catch (const std::exception& e) {
    failBundle(relative, e.what());
  }
}

// ---- Metrics CSV: "train" rows carry StepMetrics, "eval" rows carry EvalMetrics.

const char* const kMetricsColumns[] = {"kind",       "step",          "samples_seen",
                                       "train_loss", "learning_rate", "grad_norm",
                                       "seconds",    "split",         "loss"};
constexpr size_t kFixedColumns = 9;

std::vector<std::string> splitLine(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

double parseNumber(const std::string& cell, const std::string& file, int64_t line,
                   const std::string& column) {
  if (cell == "nan") return NAN;
  if (cell == "inf") return INFINITY;
  if (cell == "-inf") return -INFINITY;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (cell.empty() || end != cell.c_str() + cell.size()) {
    failBundle(file, "line " + std::to_string(line) + ", column " + column + ": \"" +
                         cell.substr(0, 40) + "\" is not a number");
  }
  return v;
}

}  // namespace

std::string sessionBundlePath(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const std::string suffix = kSessionSuffix;
  if (d.size() < suffix.size() || d.compare(d.size() - suffix.size(), suffix.size(), suffix) != 0)
    d += suffix;
  return d;
}

std::string utcTimestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string sessionMetricsCsv(const SessionRun& run) {
  std::set<std::string> keys;
  for (const auto& e : run.evals)
    for (const auto& kv : e.values) keys.insert(kv.first);
  std::ostringstream s;
  for (size_t c = 0; c < kFixedColumns; ++c) s << (c ? "," : "") << kMetricsColumns[c];
  for (const auto& k : keys) s << "," << k;
  s << "\n";
  for (const auto& m : run.steps) {
    s << "train," << m.step << "," << m.samples_seen << "," << number(m.train_loss) << ","
      << number(m.learning_rate) << "," << number(m.grad_norm) << "," << number(m.seconds) << ",,";
    for (size_t k = 0; k < keys.size(); ++k) s << ",";
    s << "\n";
  }
  for (const auto& e : run.evals) {
    s << "eval," << e.step << "," << e.samples_seen << ",,,,," << splitName(e.split) << ","
      << number(e.loss);
    for (const auto& k : keys) {
      s << ",";
      if (auto it = e.values.find(k); it != e.values.end()) s << number(it->second);
    }
    s << "\n";
  }
  return s.str();
}

void parseSessionMetricsCsv(const std::string& text, const std::string& file, SessionRun& run) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) failBundle(file, "empty file (expected a header line)");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto header = splitLine(line);
  if (header.size() < kFixedColumns)
    failBundle(file,
               "header has " + std::to_string(header.size()) + " columns; expected at least 9");
  for (size_t c = 0; c < kFixedColumns; ++c) {
    if (header[c] != kMetricsColumns[c]) {
      failBundle(file, "header column " + std::to_string(c + 1) + " is \"" +
                           header[c].substr(0, 40) + "\"; expected \"" + kMetricsColumns[c] + "\"");
    }
  }
  int64_t number_of_line = 1;
  while (std::getline(in, line)) {
    ++number_of_line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (number_of_line > kMaxMetricsRows) failBundle(file, "more than 10 M rows");
    const auto cells = splitLine(line);
    if (cells.size() != header.size()) {
      failBundle(file, "line " + std::to_string(number_of_line) + " has " +
                           std::to_string(cells.size()) + " fields; the header has " +
                           std::to_string(header.size()));
    }
    auto num = [&](size_t c) { return parseNumber(cells[c], file, number_of_line, header[c]); };
    auto integer = [&](size_t c) {
      const double v = num(c);
      if (!(std::fabs(v) < 9e15) || v != std::floor(v)) {
        failBundle(file, "line " + std::to_string(number_of_line) + ", column " + header[c] +
                             " must be an integer");
      }
      return static_cast<int64_t>(v);
    };
    if (cells[0] == "train") {
      StepMetrics m;
      m.step = integer(1);
      m.samples_seen = integer(2);
      m.train_loss = num(3);
      m.learning_rate = num(4);
      m.grad_norm = num(5);
      m.seconds = num(6);
      run.steps.push_back(m);
    } else if (cells[0] == "eval") {
      EvalMetrics e;
      e.step = integer(1);
      // Bundles written before evaluations carried samples_seen leave the cell empty (0).
      e.samples_seen = cells[2].empty() ? 0 : integer(2);
      const auto split = evalSplit(cells[7]);
      if (!split) {
        failBundle(file, "line " + std::to_string(number_of_line) + ", column split is \"" +
                             cells[7].substr(0, 40) + "\"; expected " +
                             splitName(Split::Validation) + " or " + splitName(Split::Test));
      }
      e.split = *split;
      e.loss = num(8);
      for (size_t c = kFixedColumns; c < cells.size(); ++c) {
        if (!cells[c].empty()) e.values[header[c]] = num(c);
      }
      run.evals.push_back(std::move(e));
    } else {
      failBundle(file, "line " + std::to_string(number_of_line) +
                           ", column kind must be train or eval (is \"" + cells[0].substr(0, 40) +
                           "\")");
    }
  }
}

SessionBundle parseSessionManifest(const std::string& text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    failBundle(file, std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object())
    failBundle(file, std::string("must be a JSON object (is ") + j.type_name() + ")");
  SessionBundle b;
  const auto format = needString(j, "format", file);
  if (format != "rsalab-session")
    failBundle(file,
               "key \"format\" is \"" + format.substr(0, 40) + "\"; expected \"rsalab-session\"");
  b.format_version = static_cast<int>(needInt(j, "format_version", file));
  if (b.format_version < 1 || b.format_version > kSessionFormatVersion) {
    failBundle(file, "format_version " + std::to_string(b.format_version) +
                         " is not supported (this build reads 1.." +
                         std::to_string(kSessionFormatVersion) + "); a newer RSA Lab wrote it");
  }
  b.app_version = needString(j, "app_version", file);
  b.created = needString(j, "created", file);
  b.updated = needString(j, "updated", file);
  const json& config = needBundleKey(j, "config", file);
  if (!config.is_object()) failBundle(file, "key \"config\" must be an object");
  try {
    b.config = runConfigFromJson(config.dump());
  } catch (const std::exception& e) {
    failBundle(file, std::string("key \"config\": ") + e.what());
  }
  const json& models = needBundleKey(j, "models", file);
  if (!models.is_array()) failBundle(file, "key \"models\" must be an array of strings");
  for (const auto& m : models) {
    if (!m.is_string()) failBundle(file, "key \"models\" must be an array of strings");
    b.models.push_back(m.get<std::string>());
  }
  b.seeds = needInt(j, "seeds", file);
  if (b.seeds < 0 || b.seeds > 1000) failBundle(file, "key \"seeds\" must be in 0..1000");
  if (j.contains("truth")) {
    try {
      b.truth = groundTruthFromJson(j["truth"], "truth");
    } catch (const std::exception& e) {
      failBundle(file, std::string("key ") + e.what());
    }
  }
  if (j.contains("length")) b.length = needInt(j, "length", file);
  if (j.contains("tuned")) {
    try {
      b.tuned = tunedSetFromJson(j["tuned"].dump(), "tuned");
    } catch (const std::exception& e) {
      failBundle(file, std::string("key ") + e.what());
    }
  }
  const json& runs = needBundleKey(j, "runs", file);
  if (!runs.is_array()) failBundle(file, "key \"runs\" must be an array");
  if (runs.size() > kMaxRuns)
    failBundle(file,
               "key \"runs\" has " + std::to_string(runs.size()) + " entries; the limit is 4096");
  std::set<int64_t> ids;
  for (size_t i = 0; i < runs.size(); ++i) {
    const json& r = runs[i];
    const std::string path = "runs[" + std::to_string(i) + "].";
    if (!r.is_object())
      failBundle(file, "key \"" + path.substr(0, path.size() - 1) + "\" must be an object");
    SessionRun run;
    run.id = needInt(r, "id", file, path);
    if (run.id < 0 || run.id > 1'000'000)
      failBundle(file, "key \"" + path + "id\" must be in 0..1000000");
    if (!ids.insert(run.id).second)
      failBundle(file,
                 "key \"" + path + "id\": run id " + std::to_string(run.id) + " appears twice");
    run.model = needString(r, "model", file, path);
    const int64_t seed = needInt(r, "seed", file, path);
    if (seed < 0) failBundle(file, "key \"" + path + "seed\" must be >= 0");
    run.seed = static_cast<uint64_t>(seed);
    if (r.contains("size")) run.train_size = needInt(r, "size", file, path);
    if (run.train_size < 0) failBundle(file, "key \"" + path + "size\" must be >= 0");
    const std::string status = needString(r, "status", file, path);
    const auto state = parseRunState(status);
    if (!state)
      failBundle(file, "key \"" + path + "status\" is \"" + status.substr(0, 40) +
                           "\"; expected one of " + runStateList());
    run.state = *state;
    if (r.contains("parameters")) run.parameters = needInt(r, "parameters", file, path);
    if (r.contains("message")) run.message = needString(r, "message", file, path);
    b.runs.push_back(std::move(run));
  }
  return b;
}

SessionBundle loadSession(const std::string& dir_in) {
  fs::path root(sessionBundlePath(dir_in));
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    // A crash between the two renames of saveSession leaves the previous bundle as NAME.bak-XXXX.
    fs::path newest;
    fs::file_time_type newest_time{};
    const std::string prefix = root.filename().string() + ".bak-";
    if (fs::is_directory(root.parent_path().empty() ? "." : root.parent_path(), ec)) {
      for (const auto& entry :
           fs::directory_iterator(root.parent_path().empty() ? "." : root.parent_path(), ec)) {
        const auto name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && entry.is_directory() &&
            (newest.empty() || entry.last_write_time() > newest_time)) {
          newest = entry.path();
          newest_time = entry.last_write_time();
        }
      }
    }
    if (newest.empty()) throw SessionError(root.string() + ": no such session folder");
    root = newest;
  }
  SessionBundle b = parseSessionManifest(readBounded(root, "manifest.json", kMaxManifestBytes));
  b.loaded_from = root.string();
  for (auto& run : b.runs) {
    const auto metrics = runFile("metrics", run.id, ".csv");
    if (fs::exists(root / metrics)) {
      parseSessionMetricsCsv(readBounded(root, metrics, kMaxMetricsBytes), metrics, run);
    }
    const auto inspection = runFile("inspection", run.id, ".json");
    if (fs::exists(root / inspection)) {
      json j;
      try {
        j = json::parse(readBounded(root, inspection, kMaxInspectionBytes));
      } catch (const json::exception& e) {
        failBundle(inspection, std::string("not valid JSON (") + e.what() + ")");
      }
      if (!j.is_object() || !j.contains("snapshots") || !j["snapshots"].is_array()) {
        failBundle(inspection, "missing key \"snapshots\" (an array)");
      }
      const json& list = j["snapshots"];
      if (list.size() > kMaxSnapshots) failBundle(inspection, "more than 100000 snapshots");
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string path = "snapshots[" + std::to_string(i) + "].";
        if (!list[i].is_object())
          failBundle(inspection, "key \"snapshots[" + std::to_string(i) + "]\" must be an object");
        const int64_t step = needInt(list[i], "step", inspection, path);
        try {
          run.snapshots.emplace_back(
              step, inspectionFromJsonValue(needBundleKey(list[i], "record", inspection, path),
                                            inspection + ": " + path + "record"));
        } catch (const SessionError&) {
          throw;
        } catch (const std::exception& e) {
          throw SessionError(e.what());
        }
      }
    }
    const auto checkpoint = root / runFile("checkpoints", run.id, ".pt");
    if (fs::exists(checkpoint)) run.checkpoint_file = checkpoint.string();
  }
  if (fs::exists(root / "sweep.json")) {
    b.sweep_json = readBounded(root, "sweep.json", kMaxSweepBytes);
    // Parsed once, here: every row readable, or an error naming the key.
    const json j = json::parse(b.sweep_json, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) failBundle("sweep.json", "not valid JSON");
    if (!j.is_object() || !j.contains("fits") || !j["fits"].is_array())
      failBundle("sweep.json", "missing key \"fits\" (an array)");
    try {
      b.sweep = sweepResultFromParsedJson(j);  // the one sweep.json reader; messages name the key
    } catch (const std::exception& e) {
      throw SessionError(e.what());
    }
  }
  if (fs::exists(root / "errors.json"))
    parseErrorsJson(readBounded(root, "errors.json", kMaxSweepBytes), b);
  if (fs::exists(root / "layout.bin")) b.layout = readBounded(root, "layout.bin", kMaxLayoutBytes);
  return b;
}

std::vector<SweepRow> parseSessionSweepRows(const std::string& text) {
  SweepResult result;
  try {
    result = sweepResultFromJson(text);  // the one sweep.json reader; messages name the key
  } catch (const std::exception& e) {
    throw SessionError(e.what());
  }
  return std::move(result.rows);
}

// What a writer may not write: a bundle no reader could open again. Names the file and key.
void checkBeforeSaving(const SessionBundle& b) {
  for (size_t i = 0; i < b.runs.size(); ++i) {
    const SessionRun& run = b.runs[i];
    for (const auto& e : run.evals) {
      if (e.split == Split::Train) {
        failBundle(runFile("metrics", run.id, ".csv"),
                   std::string("an eval row's split is \"") + splitName(e.split) + "\"; expected " +
                       splitName(Split::Validation) + " or " + splitName(Split::Test));
      }
    }
  }
}

std::string saveSession(SessionBundle b, const std::string& dir, const SessionSaveHooks& hooks) {
  checkBeforeSaving(b);
  const fs::path target(sessionBundlePath(dir));
  if (!target.parent_path().empty()) fs::create_directories(target.parent_path());
  const fs::path tmp = target.string() + ".tmp-" + randomTag();
  if (b.app_version.empty()) b.app_version = RSALAB_VERSION;
  b.updated = utcTimestamp();
  if (b.created.empty()) b.created = b.updated;
  try {
    fs::create_directories(tmp / "metrics");
    fs::create_directories(tmp / "inspection");
    fs::create_directories(tmp / "checkpoints");
    auto write = [&](const std::string& relative, const std::string& text) {
      writeFileAtomically((tmp / relative).string(), text);
      if (hooks.after_file) hooks.after_file(relative);
    };
    for (const auto& run : b.runs) {
      write(runFile("metrics", run.id, ".csv"), sessionMetricsCsv(run));
      if (!run.snapshots.empty()) {
        json list = json::array();
        for (const auto& [step, record] : run.snapshots) {
          list.push_back(
              {{"step", step}, {"record", inspectionJsonValue(record, /*compact=*/true)}});
        }
        write(runFile("inspection", run.id, ".json"),
              json{{"run", run.id}, {"snapshots", list}}.dump());
      }
      const auto checkpoint = runFile("checkpoints", run.id, ".pt");
      if (hooks.write_checkpoint && hooks.write_checkpoint(run.id, (tmp / checkpoint).string())) {
        if (hooks.after_file) hooks.after_file(checkpoint);
      } else if (!run.checkpoint_file.empty() && fs::exists(run.checkpoint_file)) {
        fs::copy_file(run.checkpoint_file, tmp / checkpoint);
        if (hooks.after_file) hooks.after_file(checkpoint);
      }
    }
    if (!b.sweep_json.empty()) write("sweep.json", b.sweep_json);
    const bool errors =
        !b.references.empty() || std::any_of(b.runs.begin(), b.runs.end(),
                                             [](const auto& r) { return !r.test_errors.empty(); });
    if (errors) write("errors.json", errorsJson(b));
    if (!b.layout.empty()) write("layout.bin", b.layout);
    write("manifest.json",
          manifestJson(b).dump(2) + "\n");  // last: a bundle without one is incomplete
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  // Swap: previous → backup, new → target, drop the backup. Only renames from here on.
  fs::path backup;
  std::error_code ec;
  if (fs::exists(target, ec)) {
    backup = target.string() + ".bak-" + randomTag();
    fs::rename(target, backup, ec);
    if (ec) {
      fs::remove_all(tmp, ec);
      throw std::runtime_error("cannot move the previous session " + target.string() +
                               " aside: " + ec.message());
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignore;
    if (!backup.empty()) fs::rename(backup, target, ignore);
    fs::remove_all(tmp, ignore);
    throw std::runtime_error("cannot move the new session into " + target.string() + ": " +
                             ec.message());
  }
  if (!backup.empty()) fs::remove_all(backup, ec);
  removeLeftoverFolders(target);
  return target.string();
}

}  // namespace rsalab
