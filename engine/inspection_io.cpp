#include "engine/inspection_io.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/atomic_file.h"

namespace rsalab {

namespace {

nlohmann::json matrixJson(const Matrix& m) {
  return {{"rows", m.rows}, {"cols", m.cols}, {"values", m.values}};
}

std::string matrixCsv(const Matrix& m) {
  std::ostringstream s;
  s.precision(7);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < m.cols; ++c) s << (c ? "," : "") << m.at(r, c);
    s << "\n";
  }
  return s.str();
}

nlohmann::json layerJson(const LayerInspection& layer) {
  nlohmann::json j;
  for (const auto& h : layer.heads) {
    nlohmann::json head = {{"attention", matrixJson(h.attention)}};
    if (h.has_rem) {
      head["rem_kind"] = h.rem_kind;
      head["dilation"] = h.dilation;
      head["gate"] = h.gate;
      if (h.rem_kind == "regular") {
        head["lambda"] = h.lambda;
      } else {
        head["gamma"] = h.gamma;
        head["theta"] = h.theta;
        head["period"] = h.theta != 0 ? 2 * M_PI / h.theta : 0.0;
      }
      head["softmax_part"] = matrixJson(h.softmax_part);
      head["rem"] = matrixJson(h.rem);
    }
    j["heads"].push_back(head);
  }
  for (const auto& m : layer.cross_attention) j["cross_attention"].push_back(matrixJson(m));
  if (layer.has_alpha) {
    j["alpha"] = layer.alpha;
    j["residual"] = layer.residual;
  }
  return j;
}

}  // namespace

std::string inspectionJson(const InspectionRecord& record) {
  nlohmann::json j;
  j["model"] = record.model;
  j["sample"] = record.sample;
  for (const auto& l : record.layers) j["layers"].push_back(layerJson(l));
  for (const auto& l : record.decoder_layers) j["decoder_layers"].push_back(layerJson(l));
  for (const auto& g : record.gates) {
    j["gates"].push_back({{"layer", g.layer}, {"gate", g.gate}, {"values", matrixJson(g.values)}});
  }
  return j.dump(1);
}

int writeInspection(const InspectionRecord& record, const std::string& dir) {
  std::filesystem::create_directories(dir);
  int files = 0;
  auto write = [&](const std::string& name, const std::string& text) {
    writeFileAtomically((std::filesystem::path(dir) / name).string(), text);
    ++files;
  };
  write("inspection.json", inspectionJson(record));
  auto layers = [&](const std::vector<LayerInspection>& list, const std::string& prefix) {
    for (size_t l = 0; l < list.size(); ++l) {
      for (size_t h = 0; h < list[l].heads.size(); ++h) {
        const auto& head = list[l].heads[h];
        const std::string stem = prefix + "layer" + std::to_string(l) + "_head" + std::to_string(h);
        write(stem + "_attention.csv", matrixCsv(head.attention));
        if (head.has_rem) {
          write(stem + "_rem.csv", matrixCsv(head.rem));
          write(stem + "_softmax.csv", matrixCsv(head.softmax_part));
        }
      }
      for (size_t h = 0; h < list[l].cross_attention.size(); ++h) {
        write(prefix + "layer" + std::to_string(l) + "_head" + std::to_string(h) + "_cross.csv",
              matrixCsv(list[l].cross_attention[h]));
      }
    }
  };
  layers(record.layers, "");
  layers(record.decoder_layers, "decoder_");
  for (const auto& g : record.gates) {
    write("gates_layer" + std::to_string(g.layer) + "_" + g.gate + ".csv", matrixCsv(g.values));
  }
  // REM scalars in one tidy table.
  std::ostringstream s;
  s << "layer,head,rem_kind,dilation,lambda,gamma,theta,period,gate\n";
  for (size_t l = 0; l < record.layers.size(); ++l) {
    for (size_t h = 0; h < record.layers[l].heads.size(); ++h) {
      const auto& x = record.layers[l].heads[h];
      if (!x.has_rem) continue;
      s << l << "," << h << "," << x.rem_kind << "," << x.dilation << "," << x.lambda << ","
        << x.gamma << "," << x.theta << "," << (x.theta != 0 ? 2 * M_PI / x.theta : 0.0) << ","
        << x.gate << "\n";
    }
  }
  write("rem_parameters.csv", s.str());
  return files;
}

}  // namespace rsalab
