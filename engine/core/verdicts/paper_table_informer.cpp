// SPDX-License-Identifier: GPL-3.0-or-later
// The paper table's section on the RSA paper's own pair, Informer against RSA-Informer: read from
// the table JSON's "informer" settings, its rows of kind "forecaster" and its informer_verdicts.
#include <map>
#include <sstream>
#include <vector>

#include "engine/core/io/json_read.h"
#include "engine/core/io/text.h"
#include "engine/core/verdicts/paper_table_parts.h"

namespace rsalab {

namespace {

using json = nlohmann::json;
using json_read::numberOrNaN;

// "H = 24: L = 48, label_len = 48; H = 48: …" from a list of {horizon, input_length,
// label_length}.
std::string lengthsText(const json& lengths) {
  std::string out;
  for (const auto& l : lengths) {
    if (!out.empty()) out += "; ";
    out += "H = " + std::to_string(paperKey(l, "horizon").get<int64_t>()) +
           ": L = " + std::to_string(paperKey(l, "input_length").get<int64_t>()) +
           ", label_len = " + std::to_string(paperKey(l, "label_length").get<int64_t>());
  }
  return out;
}

std::string sizeText(const json& s) {
  return "d_model " + std::to_string(paperKey(s, "d_model").get<int64_t>()) + ", " +
         std::to_string(paperKey(s, "heads").get<int64_t>()) + " heads, d_ff " +
         std::to_string(paperKey(s, "d_ff").get<int64_t>()) + ", " +
         std::to_string(paperKey(s, "encoder_layers").get<int64_t>()) + " encoder and " +
         std::to_string(paperKey(s, "decoder_layers").get<int64_t>()) + " decoder layer(s)";
}

}  // namespace

std::string informerSection(const json& j) {
  const json& settings = paperKey(j, "settings");
  if (!settings.contains("informer")) return "";
  const json& s = settings.at("informer");
  const auto horizons = paperKey(s, "horizons").get<std::vector<int64_t>>();
  const auto table_L = paperKey(settings, "input_length").get<int64_t>();
  const std::string series = paperKey(settings, "series").get<std::string>();
  bool differs = false;
  for (const auto& l : paperKey(s, "lengths"))
    differs = differs || paperKey(l, "input_length").get<int64_t>() != table_L;
  std::ostringstream md;
  md << "\nThe RSA paper's own pair, Informer and RSA-Informer (engine/models/informer.h), at the "
     << paperKey(s, "size").get<std::string>() << " size: " << sizeText(s)
     << ", ProbSparse factor c = " << paperKey(s, "factor").get<int64_t>() << "; lengths "
     << lengthsText(paperKey(s, "lengths"))
     << (differs ? " (Informer's own lengths: they differ from the table's shared L = " +
                       std::to_string(table_L) + ")"
                 : " (the table's shared L)")
     << ". One budget for the pair, Informer's: at most " << paperKey(s, "epochs").get<int64_t>()
     << " epochs of batch " << paperKey(s, "batch_size").get<int64_t>()
     << ", Adam with learning rate " << numberOrNaN(paperKey(s, "learning_rate"))
     << " halved after every epoch, no weight decay and no gradient clipping, early stopping "
        "after "
     << paperKey(s, "patience").get<int64_t>()
     << " epochs without a better validation MSE, the best epoch's weights restored; "
     << paperKey(s, "seeds").get<int64_t>()
     << " seeds. Test MSE, multivariate, the mean with its 95 % interval:\n\n| model |";
  for (auto h : horizons) md << " H = " << h << " |";
  md << "\n|---|";
  for (size_t k = 0; k < horizons.size(); ++k) md << "---|";
  md << "\n";
  const auto row = [&](const std::string& label, const std::string& model,
                       const std::string& suffix = "") {
    std::map<int64_t, std::string> cells;
    for (const auto& r : paperKey(j, "rows"))
      if (paperKey(r, "model").get<std::string>() == model &&
          paperKey(r, "features").get<std::string>() == "M" &&
          numberOrNaN(paperKey(r, "train_fraction")) == 1.0 &&
          r.value("norm", "global") == "global")
        cells[paperKey(r, "horizon").get<int64_t>()] = paperCell(paperKey(r, "mse"));
    md << "| " << label << suffix << " |";
    for (auto h : horizons) md << " " << (cells.count(h) ? cells.at(h) : "—") << " |";
    md << "\n";
  };
  for (const auto& m : paperKey(s, "models")) row(m.get<std::string>(), m.get<std::string>());
  row("persistence", "persistence", " (reference, L = " + std::to_string(table_L) + ")");
  std::vector<std::string> done;
  for (const auto& p : publishedResults()) {
    const std::string model = p.model;
    if (p.series != series || std::string(p.features) != "M" ||
        (model != "Informer" && model != "RSA-Informer"))
      continue;
    const auto label = publishedLabel(p);
    bool seen = false;
    for (const auto& d : done) seen = seen || d == label;
    if (seen) continue;
    done.push_back(label);
    std::map<int64_t, std::string> cells;  // at the pair's horizons; a row with none is left out
    for (const auto& q : publishedResults())
      for (auto h : horizons)
        if (publishedLabel(q) == label && q.series == series && q.horizon == h)
          cells[h] = fixedNumber(q.mse, 3);
    if (cells.empty()) continue;
    md << "| " << label << " |";
    for (auto h : horizons) md << " " << (cells.count(h) ? cells.at(h) : "—") << " |";
    md << "\n";
  }
  if (j.contains("informer_verdicts")) {
    md << "\nVerdicts (the same rule):\n\n";
    for (const auto& v : j.at("informer_verdicts"))
      md << "- " << paperKey(v, "verdict").get<std::string>() << ": "
         << paperKey(v, "claim").get<std::string>() << ". "
         << paperKey(v, "detail").get<std::string>() << "\n";
  }
  double run_seconds = 0;
  int64_t runs = 0;
  for (const auto& r : paperKey(j, "rows"))
    if (paperKey(r, "kind").get<std::string>() == "forecaster")
      for (const auto& q : paperKey(r, "runs")) {
        run_seconds += numberOrNaN(paperKey(q, "seconds"));
        ++runs;
      }
  md << "\nThe pair's " << runs << " runs took " << fixedNumber(run_seconds / 60, 1)
     << " min of run time in all";
  if (s.contains("seconds"))
    md << ", " << fixedNumber(numberOrNaN(s.at("seconds")) / 60, 1) << " min of wall time";
  md << ".";
  if (s.contains("paper") && s.at("paper").contains("estimate_seconds")) {
    const json& p = s.at("paper");
    md << " At `--informer-size paper` (" << sizeText(p) << "; lengths "
       << lengthsText(paperKey(p, "lengths")) << ") the same runs would take about "
       << fixedNumber(numberOrNaN(p.at("estimate_seconds")) / 3600, 1)
       << " h of wall time here: " << paperKey(p, "estimate_rule").get<std::string>() << ".";
  }
  md << "\n";
  return md.str();
}

}  // namespace rsalab
