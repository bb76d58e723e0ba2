// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/first_minute_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/core/config/run_config.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/marked_block.h"
#include "engine/core/io/resources.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/verdicts/regime_map.h"

namespace rsalab {

namespace {

using nlohmann::json;

const char* const kBegin = "<!-- first-minute: begin (rsalab-cli first-minute writes this) -->";
const char* const kEnd = "<!-- first-minute: end -->";
const char* const kFirstMinuteFormat = "rsalab-first-minute";

// model → seed → run
using ByModel = std::map<std::string, std::map<uint64_t, const FirstMinuteRun*>>;

ByModel byModel(const FirstMinuteTable& t, std::vector<uint64_t>* seeds, double* floor) {
  ByModel out;
  for (const auto& r : t.runs) {
    out[r.model][r.seed] = &r;
    if (std::find(seeds->begin(), seeds->end(), r.seed) == seeds->end()) seeds->push_back(r.seed);
    if (std::isfinite(r.bayes_floor)) *floor = r.bayes_floor;
  }
  return out;
}

// A model's runs' `field` (validation or test loss), finite ones only.
std::vector<double> losses(const ByModel& runs, const std::string& model,
                           double FirstMinuteRun::*field) {
  std::vector<double> v;
  if (auto it = runs.find(model); it != runs.end())
    for (const auto& [seed, r] : it->second)
      if (std::isfinite(r->*field)) v.push_back(r->*field);
  return v;
}

// RSA against each other model on the test loss (validation chose when each run stopped), paired
// over the seeds both ran (same seed, same data): the difference other − RSA (> 0 where RSA is
// lower) with its 95 % interval.
struct RsaVersus {
  std::string model;
  PairedDifference difference;
  int lower = 0;        // seeds where RSA is lower
  int other_lower = 0;  // seeds where the other model is lower
  const char* verdict() const {
    return difference.above0() ? "beats " : difference.below0() ? "loses to " : "ties ";
  }
};

std::vector<RsaVersus> rsaVersusOthers(const FirstMinuteTable& t, const ByModel& runs) {
  std::vector<RsaVersus> out;
  const auto rsa = runs.find("rsa");
  if (rsa == runs.end()) return out;
  for (const auto& model : t.models) {
    if (model == "rsa" || !runs.count(model)) continue;
    RsaVersus v;
    v.model = model;
    std::vector<double> d;
    for (const auto& [seed, r] : rsa->second) {
      const auto other = runs.at(model).find(seed);
      if (other == runs.at(model).end() || !std::isfinite(r->test) ||
          !std::isfinite(other->second->test))
        continue;
      d.push_back(other->second->test - r->test);
      v.lower += r->test < other->second->test;
      v.other_lower += other->second->test < r->test;
    }
    if (d.empty()) continue;
    v.difference = meanWithInterval(d);
    out.push_back(v);
  }
  return out;
}

// "On the test loss, RSA beats rnn (RSA lower on 5 of 5 seeds, rnn on 0; rnn − RSA = 0.204, 95 %
// interval [0.196, 0.211] over 5 seeds); RSA ties transformer (RSA lower on 1 of 5 seeds,
// transformer on 4; …, covering 0)": the word from the interval, and beside it both counts, so
// that a tie the interval calls is not read as seed-by-seed parity.
std::string rsaComparison(const FirstMinuteTable& t, const ByModel& runs) {
  std::string out;
  for (const auto& v : rsaVersusOthers(t, runs)) {
    const PairedDifference& d = v.difference;
    out += std::string(out.empty() ? "" : "; ") + "RSA " + v.verdict() + v.model +
           " (RSA lower on " + std::to_string(v.lower) + " of " + std::to_string(d.pairs) +
           " seeds, " + v.model + " on " + std::to_string(v.other_lower) + "; " + v.model +
           " − RSA = " + cellNumber(d.mean) + ", " + regimeIntervalText(d) +
           (d.above0() || d.below0() ? ")" : ", covering 0)");
  }
  return out.empty() ? out : "On the test loss, " + out + ".";
}

}  // namespace

FirstMinuteTable firstMinuteTableForLaunch(int64_t seeds, int64_t steps) {
  FirstMinuteTable t;
  t.config = toJson(defaultLaunchConfig());
  t.models = defaultModelNames();
  t.seeds = seeds;
  t.steps = steps;
  return t;
}

// The launch is the RunConfig the stored config reads back to: a key added to the config since
// the table was measured, at its default, leaves the launch (and the measurement) unchanged.
bool firstMinuteTableMatchesLaunch(const FirstMinuteTable& table) {
  return json::parse(toJson(runConfigFromJson(table.config))) ==
             json::parse(toJson(defaultLaunchConfig())) &&
         table.models == defaultModelNames();
}

std::string firstMinuteTableJson(const FirstMinuteTable& t) {
  json j;
  j["format"] = kFirstMinuteFormat;
  j["config"] = json::parse(t.config);
  j["models"] = t.models;
  j["steps"] = t.steps;
  j["seeds"] = t.seeds;
  j["runs"] = json::array();
  for (const auto& r : t.runs) {
    j["runs"].push_back(
        {{"model", r.model},
         {"seed", r.seed},
         {"steps", r.steps},
         {"stop", r.stop},
         {"validation", r.validation},
         {"best_validation", r.best_validation},
         {"test", std::isfinite(r.test) ? json(r.test) : json(nullptr)},
         {"bayes_floor", std::isfinite(r.bayes_floor) ? json(r.bayes_floor) : json(nullptr)}});
  }
  return j.dump(1) + "\n";
}

FirstMinuteTable firstMinuteTableFromJson(const std::string& text, const std::string& what) {
  try {
    const json j = json::parse(text);
    if (!j.is_object() || j.value("format", "") != kFirstMinuteFormat)
      throw std::runtime_error(std::string("not a first-minute file (format ") +
                               kFirstMinuteFormat + ")");
    FirstMinuteTable t;
    t.config = j.at("config").dump();
    t.models = j.at("models").get<std::vector<std::string>>();
    t.steps = j.at("steps").get<int64_t>();
    t.seeds = j.at("seeds").get<int64_t>();
    for (const auto& r : j.at("runs")) {
      FirstMinuteRun run;
      run.model = r.at("model").get<std::string>();
      run.seed = r.at("seed").get<uint64_t>();
      run.steps = r.at("steps").get<int64_t>();
      run.stop = r.at("stop").get<std::string>();
      run.validation = r.at("validation").get<double>();
      run.best_validation = r.at("best_validation").get<double>();
      if (r.contains("test") && !r.at("test").is_null()) run.test = r.at("test").get<double>();
      if (!r.at("bayes_floor").is_null()) run.bayes_floor = r.at("bayes_floor").get<double>();
      t.runs.push_back(run);
    }
    return t;
  } catch (const std::exception& e) {
    throw std::runtime_error(what + ": " + e.what());
  }
}

bool readLaunchFirstMinuteTable(FirstMinuteTable* table) {
  try {
    const std::string path = resourcePath(kFirstMinuteResource);
    FirstMinuteTable t = firstMinuteTableFromJson(readTextFile(path, size_t{16} << 20), path);
    if (!firstMinuteTableMatchesLaunch(t)) return false;
    *table = std::move(t);
    return true;
  } catch (const std::exception&) {
    return false;  // none, unreadable or malformed: the window shows no measured summary
  }
}

std::string firstMinuteRows(const FirstMinuteTable& t) {
  std::vector<uint64_t> seeds;
  double floor = std::nan("");
  const ByModel runs = byModel(t, &seeds, &floor);
  std::string out = "| model |";
  for (uint64_t s : seeds) out += " seed " + std::to_string(s) + " |";
  out += " validation mean ± sd | test mean ± sd |\n|---|";
  for (size_t i = 0; i < seeds.size() + 2; ++i) out += "---|";
  out += "\n";
  for (const auto& model : t.models) {
    out += "| " + model + " |";
    for (uint64_t s : seeds) {
      const auto& of_model = runs.count(model) ? runs.at(model) : ByModel::mapped_type{};
      const auto it = of_model.find(s);
      if (it == of_model.end()) {
        out += " – |";
        continue;
      }
      const FirstMinuteRun& r = *it->second;
      out += " " + cellNumber(r.validation) + " / " + cellNumber(r.test) +
             (r.stop.empty() ? "" : " (stop " + std::to_string(r.steps) + ")") + " |";
    }
    for (double FirstMinuteRun::*field : {&FirstMinuteRun::validation, &FirstMinuteRun::test}) {
      const MeanSd s = meanSd(losses(runs, model, field));
      out += s.n ? " " + meanSdText(s.mean, s.sd) + " |" : " – |";
    }
    out += "\n";
  }
  return out;
}

std::string firstMinuteVerdicts(const FirstMinuteTable& t) {
  std::vector<uint64_t> seeds;
  double floor = std::nan("");
  return rsaComparison(t, byModel(t, &seeds, &floor));
}

std::string firstMinuteBlock(const FirstMinuteTable& t) {
  std::vector<uint64_t> seeds;
  double floor = std::nan("");
  const ByModel runs = byModel(t, &seeds, &floor);
  std::string out = std::string(kBegin) + "\n";
  out +=
      "Each run's last validation loss (what the runs table shows, and what early stopping "
      "reads: patience alone, no minimum step) / its test loss at the same weights, stopped by "
      "itself \"(stop N)\" or at step " +
      std::to_string(t.steps) +
      " (the most a run reached in the window in 60 s on 2 cores), the default launch over " +
      std::to_string(seeds.size()) + " seeds; Bayes floor " + cellNumber(floor) +
      ". Written by `rsalab-cli first-minute --seeds " + std::to_string(t.seeds) + " --steps " +
      std::to_string(t.steps) + " --json resources/first_minute.json --readme README.md`.\n\n";
  out += firstMinuteRows(t);
  const std::string comparison = rsaComparison(t, runs);
  if (!comparison.empty()) out += "\n" + comparison + "\n";
  return out + kEnd + "\n";
}

std::string firstMinuteSummary(const FirstMinuteTable& t) {
  std::vector<uint64_t> seeds;
  double floor = std::nan("");
  const ByModel runs = byModel(t, &seeds, &floor);
  std::string out =
      "Over " + std::to_string(seeds.size()) + " seeds (README, measured headless), test loss:";
  bool first = true;
  for (const auto& model : t.models) {
    const MeanSd s = meanSd(losses(runs, model, &FirstMinuteRun::test));
    if (s.n == 0) continue;
    out += std::string(first ? " " : ", ") + model + " " + meanSdText(s.mean, s.sd);
    first = false;
  }
  // The verdicts only ("RSA beats rnn, ties transformer"); the README has the intervals.
  std::string verdicts;
  for (const auto& v : rsaVersusOthers(t, runs))
    verdicts += std::string(verdicts.empty() ? "; RSA " : ", ") + v.verdict() + v.model;
  return out + verdicts + ".";
}

std::string firstMinuteBlockIn(const std::string& markdown, const std::string& what) {
  return markedBlockIn(markdown, kBegin, kEnd, what);
}

std::string replaceFirstMinuteBlock(const std::string& markdown, const std::string& block,
                                    const std::string& what) {
  return replaceMarkedBlock(markdown, block, kBegin, kEnd, what);
}

}  // namespace rsalab
