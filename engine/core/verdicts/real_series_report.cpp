// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/real_series_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "engine/core/forecast/skill_interval.h"
#include "engine/core/io/json_read.h"
#include "engine/core/io/text.h"

namespace rsalab {

const char* const kReportBlockBegin =
    "<!-- real-series-report: begin (rsalab-cli report --docs writes this) -->";
const char* const kReportBlockEnd = "<!-- real-series-report: end -->";

namespace {

using nlohmann::json;

// json_read::number (NaN when missing or null), its message naming the report.
double num(const json& o, const char* key) {
  return json_read::keyErrorsAs<std::runtime_error>(
      "report", [&] { return json_read::number(o, key, "", NAN); });
}

const auto& str = json_read::stringOrEmpty;

// "+0.12 [−0.05, 0.30]": a mean with the range of its values (seeds), or the value alone.
std::string meanRange(const std::vector<double>& values) {
  std::vector<double> ok;
  for (double v : values)
    if (std::isfinite(v)) ok.push_back(v);
  if (ok.empty()) return "n/a";
  double sum = 0;
  for (double v : ok) sum += v;
  std::ostringstream o;
  o << std::showpos << std::fixed << std::setprecision(2) << sum / static_cast<double>(ok.size())
    << std::noshowpos;
  if (ok.size() > 1)
    o << " [" << fixedNumber(*std::min_element(ok.begin(), ok.end()), 2) << ", "
      << fixedNumber(*std::max_element(ok.begin(), ok.end()), 2) << "]";
  return o.str();
}

double sd(const std::vector<double>& values) {
  std::vector<double> ok;
  for (double v : values)
    if (std::isfinite(v)) ok.push_back(v);
  if (ok.size() < 2) return ok.empty() ? NAN : 0.0;
  double mean = 0, ss = 0;
  for (double v : ok) mean += v;
  mean /= static_cast<double>(ok.size());
  for (double v : ok) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(ok.size() - 1));
}

// The interval of a row as the CLI writes it (SkillInterval::text).
SkillInterval interval(const json& o) {
  SkillInterval ci;
  ci.skill = num(o, "skill_vs_best_anchor");
  if (const auto it = o.find("ci95"); it != o.end() && it->is_array() && it->size() == 2) {
    ci.low = (*it)[0].is_number() ? (*it)[0].get<double>() : NAN;
    ci.high = (*it)[1].is_number() ? (*it)[1].get<double>() : NAN;
  }
  ci.dm_p = num(o, "dm_p");
  ci.targets = 2;  // valid() needs more than one target; the JSON keeps the interval itself
  return ci;
}

const json& array(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_array())
    throw std::runtime_error(std::string("report: key \"") + key + "\" is not an array");
  return *it;
}

}  // namespace

std::string realSeriesReportMarkdown(const std::string& text) {
  const json report = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded() || !report.is_object())
    throw std::runtime_error("report: not a JSON object");
  const bool test = !report.value("settings", json::object()).value("validation_only", false);
  std::ostringstream table;
  if (test) {
    table << "| series | T | N | model | validation MSE | test MSE (mean ± sd) | test MASE | "
             "skill vs best reference: mean [seeds' range] | beats / ties / loses / too few | "
             "skill vs persistence |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n";
  } else {
    table << "| series | T | N | model | validation MSE (mean over seeds) | ÷ best reference's "
             "validation MSE |\n|---|---|---|---|---|---|\n";
  }
  std::vector<std::string> order;                           // models, first-seen order
  std::map<std::string, std::map<std::string, int>> words;  // model → word → series
  std::map<std::string, std::vector<double>> ratios;        // model → per-series validation ratio
  std::vector<std::string> chosen_beats, chosen_ties, chosen_loses, chosen_too_few;
  for (const auto& s : array(report, "series")) {
    const std::string name = str(s, "series");
    const std::string lead = "| " + name + " | " + std::to_string(s.value("length", 0)) + " | " +
                             std::to_string(s.value("train_windows", 0)) + " | ";
    for (const auto& row : array(s, "models")) {
      const std::string model = str(row, "model");
      const bool ensemble = row.value("ensemble", false);
      if (!test) {
        table << lead << model << " | " << fixedNumber(num(row, "validation"), 4) << " | "
              << fixedNumber(num(row, "validation_ratio"), 3) << " |\n";
        if (!ensemble) ratios[model].push_back(num(row, "validation_ratio"));
        continue;
      }
      if (ensemble) {
        const auto ci = interval(row);
        table << lead << model << " | " << fixedNumber(num(row, "validation"), 4) << " | "
              << fixedNumber(num(row, "test"), 4) << " | " << fixedNumber(num(row, "test_mase"), 3)
              << " | " << ci.text(2, str(row, "verdict")) << " | " << str(row, "verdict") << " | "
              << meanRange({num(row, "skill_vs_persistence")}) << " |\n";
        continue;
      }
      if (std::find(order.begin(), order.end(), model) == order.end()) order.push_back(model);
      std::vector<double> tests, mases, skills, persistence;
      for (const auto& run : array(row, "runs")) {
        tests.push_back(num(run, "test"));
        mases.push_back(num(run, "test_mase"));
        skills.push_back(num(run, "skill_vs_best_anchor"));
        persistence.push_back(num(run, "skill_vs_persistence"));
      }
      double mean_test = 0, mean_mase = 0;
      int n = 0, m = 0;
      for (double v : tests)
        if (std::isfinite(v)) mean_test += v, ++n;
      for (double v : mases)
        if (std::isfinite(v)) mean_mase += v, ++m;
      table << lead << model << " | " << fixedNumber(num(row, "validation"), 4) << " | "
            << fixedNumber(n ? mean_test / n : NAN, 4) << " ± " << fixedNumber(sd(tests), 4)
            << " | " << fixedNumber(m ? mean_mase / m : NAN, 3) << " | " << meanRange(skills)
            << " | " << row.value("beats", 0) << " / " << row.value("ties", 0) << " / "
            << row.value("loses", 0) << " / " << row.value("too_few", 0) << " | "
            << meanRange(persistence) << " |\n";
      if (const std::string word = str(row, "word"); !word.empty()) words[model][word] += 1;
    }
    const std::string best = str(s, "best_anchor");
    for (const auto& ref : array(s, "references")) {
      const bool is_best = ref.value("best", false);
      const std::string mark = is_best ? "**" : "*";
      if (!test) {
        table << lead << mark << str(ref, "label") << mark << " | "
              << fixedNumber(num(ref, "validation"), 4) << " | "
              << fixedNumber(num(ref, "validation_ratio"), 3) << " |\n";
        continue;
      }
      const auto ci = interval(ref);
      table << lead << mark << str(ref, "label") << mark << " | "
            << fixedNumber(num(ref, "validation"), 4) << " | " << fixedNumber(num(ref, "test"), 4)
            << " | " << fixedNumber(num(ref, "test_mase"), 3) << " | "
            << (is_best ? std::string("0 (best reference)") : ci.text(2, str(ref, "verdict")))
            << " | " << (is_best ? std::string() : str(ref, "verdict")) << " | "
            << (str(ref, "name") == "persistence" ? std::string("0")
                                                  : meanRange({num(ref, "skill_vs_persistence")}))
            << " |\n";
    }
    if (const auto it = s.find("chosen_on_validation"); test && it != s.end() && it->is_object()) {
      const auto ci = interval(*it);
      const std::string word = str(*it, "verdict");
      const std::string line =
          name + " (" + str(*it, "model") + " " + ci.text(2, word) + " vs " + best + ")";
      (word == "beats"   ? chosen_beats
       : word == "loses" ? chosen_loses
       : word == "ties"  ? chosen_ties
                         : chosen_too_few)
          .push_back(line);
    }
  }
  auto list = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("none") : joined(v, "; ");
  };
  std::ostringstream summary;
  if (test) {
    summary
        << "\nThe best reference of a series is the reference (statistical method or baseline) "
           "with the lowest validation loss, in bold; skill = 1 − MSE_model / MSE_best reference "
           "on test (> 0: the model is better), with its 95 % paired circular block bootstrap "
           "interval (blocks of max(horizon, round(n^(1/3))) targets, "
        << kSkillResamples
        << " resamples) and the Diebold–Mariano p-value (Harvey–Leybourne–Newbold, Bartlett "
           "HAC variance). The word follows DM at 5 %: a model beats the best reference when p < "
           "0.05 and its skill is above 0, loses when p < 0.05 and its skill is below 0, and "
           "otherwise ties; the interval is shown beside it and does not decide. A test part of "
           "fewer than 2h + 10 targets (h the horizon) gets no word: \"too few test targets to "
           "decide\". \"beats / ties / loses / too few\" counts a model's seeds, each its own "
           "run and test. A \"mean of\" row is an ensemble: the runs' forecasts averaged, then "
           "scored, with its own interval and word. MASE: MAE over the train part's in-sample "
           "seasonal-naive MAE.\n"
        << "\nSeed ensembles (or the single run) against the best reference, by their words "
           "(series beaten / tied / lost / too few):\n";
    for (const auto& model : order) {
      auto at = [&](const char* k) {
        const auto it = words[model].find(k);
        return it == words[model].end() ? 0 : it->second;
      };
      summary << "- " << model << ": " << at("beats") << " / " << at("ties") << " / " << at("loses")
              << " / " << at(skillVerdictName(SkillVerdict::TooFew)) << "\n";
    }
    summary << "\nWith the model chosen on validation (lowest mean validation MSE over the seeds, "
               "or an ensemble's):\n"
            << "- it beats the best reference on " << chosen_beats.size() << ": "
            << list(chosen_beats) << "\n"
            << "- it ties on " << chosen_ties.size() << ": " << list(chosen_ties) << "\n"
            << "- it loses on " << chosen_loses.size() << ": " << list(chosen_loses) << "\n"
            << "- too few test targets to decide on " << chosen_too_few.size() << ": "
            << list(chosen_too_few) << "\n";
  } else {
    summary << "\nValidation only (no test number is computed into this table): each model's "
               "best validation MSE (mean over seeds) over the best reference's validation MSE, "
               "median over the series:\n";
    for (const auto& [model, r] : ratios) {
      std::vector<double> v = r;
      std::sort(v.begin(), v.end());
      const double median =
          v.empty()
              ? NAN
              : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
      summary << "- " << model << ": " << fixedNumber(median, 3) << "\n";
    }
  }
  return table.str() + summary.str();
}

std::string realSeriesReportBlock(const std::string& report_json) {
  return std::string(kReportBlockBegin) + "\n" + realSeriesReportMarkdown(report_json) +
         kReportBlockEnd + "\n";
}

}  // namespace rsalab
