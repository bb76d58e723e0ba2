// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/inspection_io.h"

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "engine/core/io/atomic_file.h"
#include "engine/core/io/json_read.h"

namespace rsalab {

namespace {

using nlohmann::json;

constexpr int64_t kMaxMatrixSide = 65536;
constexpr int64_t kMaxMatrixValues = int64_t{16} << 20;

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const unsigned char* data, size_t n) {
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t v = (uint32_t{data[i]} << 16) | (i + 1 < n ? uint32_t{data[i + 1]} << 8 : 0) |
                       (i + 2 < n ? uint32_t{data[i + 2]} : 0);
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < n ? kBase64[(v >> 6) & 63] : '=';
    out += i + 2 < n ? kBase64[v & 63] : '=';
  }
  return out;
}

// Returns false on a character outside the alphabet or a bad length.
bool unbase64(const std::string& text, std::vector<unsigned char>& out) {
  if (text.size() % 4 != 0) return false;
  out.clear();
  out.reserve(text.size() / 4 * 3);
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
      } else if (pad > 0 || (v[k] = value(c)) < 0) {
        return false;
      }
    }
    const uint32_t w =
        (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out.push_back(static_cast<unsigned char>(w >> 16));
    if (pad < 2) out.push_back(static_cast<unsigned char>(w >> 8));
    if (pad < 1) out.push_back(static_cast<unsigned char>(w));
  }
  return true;
}

json matrixJson(const Matrix& m, bool compact = false) {
  if (!compact) return {{"rows", m.rows}, {"cols", m.cols}, {"values", m.values}};
  std::vector<unsigned char> bytes(m.values.size() * 4);
  for (size_t i = 0; i < m.values.size(); ++i) {  // little-endian, whatever the host
    uint32_t u;
    std::memcpy(&u, &m.values[i], 4);
    for (int k = 0; k < 4; ++k) bytes[i * 4 + k] = static_cast<unsigned char>(u >> (8 * k));
  }
  return {{"rows", m.rows}, {"cols", m.cols}, {"f32le", base64(bytes.data(), bytes.size())}};
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

json layerJson(const LayerInspection& layer, bool compact = false) {
  json j = json::object();
  for (const auto& h : layer.heads) {
    json head = {{"attention", matrixJson(h.attention, compact)}};
    if (h.has_rem) {
      head["rem_kind"] = remKindName(h.rem_kind);
      head["dilation"] = h.dilation;
      head["gate"] = h.gate;
      if (h.rem_kind == RemKind::Regular) {
        head["lambda"] = h.lambda;
      } else {
        head["gamma"] = h.gamma;
        head["theta"] = h.theta;
        head["period"] = h.theta != 0 ? 2 * M_PI / h.theta : 0.0;
      }
      head["softmax_part"] = matrixJson(h.softmax_part, compact);
      head["rem"] = matrixJson(h.rem, compact);
    }
    if (!h.decay.empty()) head["decay"] = h.decay;
    j["heads"].push_back(head);
  }
  for (const auto& m : layer.cross_attention)
    j["cross_attention"].push_back(matrixJson(m, compact));
  if (layer.has_alpha) j["alpha"] = layer.alpha;
  if (layer.has_alpha || layer.update > 0) {  // StarSaber (gated or not)
    j["residual"] = layer.residual;
    j["update"] = layer.update;
    j["equation_residual"] = layer.equation_residual;
  }
  if (layer.fixed_point_iterations > 0) {
    j["fixed_point_iterations"] = layer.fixed_point_iterations;
    j["fixed_point_converged"] = layer.fixed_point_converged;
    j["fixed_point_distance"] = layer.fixed_point_distance;
  }
  return j;
}

// ---- Reader: every access checked, messages "<where>: <path> <problem>".

[[noreturn]] void fail(const std::string& where, const std::string& path, const std::string& what) {
  throw std::runtime_error(where + ": " + path + " " + what);
}

// The checked readers of engine/core/io/json_read.h; inspectionFromJsonValue puts `where` first.
using namespace json_read;

Matrix readMatrix(const json& j, const std::string& where, const std::string& path) {
  Matrix m;
  m.rows = needInteger(j, "rows", path + ".");
  m.cols = needInteger(j, "cols", path + ".");
  if (m.rows < 0 || m.cols < 0 || m.rows > kMaxMatrixSide || m.cols > kMaxMatrixSide ||
      m.rows * m.cols > kMaxMatrixValues) {
    fail(where, path,
         "is " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
             "; the limit is 65536 per side and 16M values");
  }
  const size_t n = static_cast<size_t>(m.rows * m.cols);
  if (j.contains("f32le")) {
    const json& v = j["f32le"];
    std::vector<unsigned char> bytes;
    if (!v.is_string() || !unbase64(v.get<std::string>(), bytes))
      fail(where, path + ".f32le", "must be base64 text");
    if (bytes.size() != n * 4) {
      fail(where, path + ".f32le",
           "holds " + std::to_string(bytes.size() / 4) + " values; rows x cols is " +
               std::to_string(n));
    }
    m.values.resize(n);
    for (size_t i = 0; i < n; ++i) {
      uint32_t u = 0;
      for (int k = 0; k < 4; ++k) u |= uint32_t{bytes[i * 4 + k]} << (8 * k);
      std::memcpy(&m.values[i], &u, 4);
    }
    return m;
  }
  const json& values = array(need(j, "values", path + "."), path + ".values");
  if (values.size() != n) {
    fail(where, path + ".values",
         "holds " + std::to_string(values.size()) + " values; rows x cols is " + std::to_string(n));
  }
  m.values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (!values[i].is_number())
      fail(where, path + ".values[" + std::to_string(i) + "]", "must be a number");
    m.values[i] = values[i].get<float>();
  }
  return m;
}

// A head's decay: an array of at most kMaxMatrixSide numbers.
std::vector<float> readDecay(const json& j, const std::string& where, const std::string& path) {
  const json& values = array(j, path);
  if (values.size() > static_cast<size_t>(kMaxMatrixSide))
    fail(where, path, "holds " + std::to_string(values.size()) + " values; the limit is 65536");
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].is_number())
      fail(where, path + "[" + std::to_string(i) + "]", "must be a number");
    out[i] = values[i].get<float>();
  }
  return out;
}

LayerInspection readLayer(const json& j, const std::string& where, const std::string& path) {
  LayerInspection layer;
  if (!j.is_object()) fail(where, path, "must be an object");
  if (j.contains("heads")) {
    const json& heads = array(need(j, "heads", path + "."), path + ".heads");
    for (size_t h = 0; h < heads.size(); ++h) {
      const std::string p = path + ".heads[" + std::to_string(h) + "]";
      const json& x = heads[h];
      HeadInspection head;
      head.attention = readMatrix(need(x, "attention", p + "."), where, p + ".attention");
      if (x.contains("rem_kind")) {
        head.has_rem = true;
        const std::string kind = needString(x, "rem_kind", p + ".");
        const auto parsed = parseRemKind(kind);
        if (!parsed)
          fail(where, p + ".rem_kind", "must be regular, cos or sin (is \"" + kind + "\")");
        head.rem_kind = *parsed;
        head.dilation = needInteger(x, "dilation", p + ".");
        head.gate = number(x, "gate", p + ".", 0);
        head.lambda = number(x, "lambda", p + ".", 0);
        head.gamma = number(x, "gamma", p + ".", 0);
        head.theta = number(x, "theta", p + ".", 0);
        head.softmax_part =
            readMatrix(need(x, "softmax_part", p + "."), where, p + ".softmax_part");
        head.rem = readMatrix(need(x, "rem", p + "."), where, p + ".rem");
      }
      if (x.contains("decay")) head.decay = readDecay(x["decay"], where, p + ".decay");
      layer.heads.push_back(std::move(head));
    }
  }
  if (j.contains("cross_attention")) {
    const json& cross = array(need(j, "cross_attention", path + "."), path + ".cross_attention");
    for (size_t h = 0; h < cross.size(); ++h) {
      layer.cross_attention.push_back(
          readMatrix(cross[h], where, path + ".cross_attention[" + std::to_string(h) + "]"));
    }
  }
  if (j.contains("alpha")) {
    layer.has_alpha = true;
    layer.alpha = number(j, "alpha", path + ".", 0);
  }
  layer.residual = number(j, "residual", path + ".", 0);
  layer.update = number(j, "update", path + ".", 0);
  layer.equation_residual = number(j, "equation_residual", path + ".", 0);
  if (j.contains("fixed_point_iterations")) {
    layer.fixed_point_iterations =
        static_cast<int64_t>(number(j, "fixed_point_iterations", path + ".", 0));
    layer.fixed_point_distance = number(j, "fixed_point_distance", path + ".", 0);
    const json& converged = need(j, "fixed_point_converged", path + ".");
    if (!converged.is_boolean()) fail(where, path + ".fixed_point_converged", "is not a boolean");
    layer.fixed_point_converged = converged.get<bool>();
  }
  return layer;
}

}  // namespace

json inspectionJsonValue(const InspectionRecord& record, bool compact) {
  json j;
  j["model"] = record.model;
  j["sample"] = record.sample;
  for (const auto& l : record.layers) j["layers"].push_back(layerJson(l, compact));
  for (const auto& l : record.decoder_layers) j["decoder_layers"].push_back(layerJson(l, compact));
  for (const auto& g : record.gates) {
    j["gates"].push_back(
        {{"layer", g.layer}, {"gate", g.gate}, {"values", matrixJson(g.values, compact)}});
  }
  return j;
}

std::string inspectionJson(const InspectionRecord& record) {
  return inspectionJsonValue(record).dump(1);
}

namespace {

InspectionRecord recordFromJson(const json& j, const std::string& where) {
  InspectionRecord record;
  if (!j.is_object()) fail(where, "record", "must be an object");
  record.model = needString(j, "model", "record.");
  record.sample = needInteger(j, "sample", "record.");
  auto layers = [&](const char* key, std::vector<LayerInspection>& out) {
    if (!j.contains(key)) return;
    const json& list = array(need(j, key, "record."), std::string("record.") + key);
    for (size_t l = 0; l < list.size(); ++l) {
      out.push_back(readLayer(list[l], where, std::string(key) + "[" + std::to_string(l) + "]"));
    }
  };
  layers("layers", record.layers);
  layers("decoder_layers", record.decoder_layers);
  if (j.contains("gates")) {
    const json& gates = array(need(j, "gates", "record."), "record.gates");
    for (size_t g = 0; g < gates.size(); ++g) {
      const std::string p = "gates[" + std::to_string(g) + "]";
      GateTrace trace;
      trace.layer = needInteger(gates[g], "layer", p + ".");
      trace.gate = needString(gates[g], "gate", p + ".");
      trace.values = readMatrix(need(gates[g], "values", p + "."), where, p + ".values");
      record.gates.push_back(std::move(trace));
    }
  }
  return record;
}

}  // namespace

InspectionRecord inspectionFromJsonValue(const json& j, const std::string& where) {
  return json_read::keyErrorsAs<std::runtime_error>(where,
                                                    [&] { return recordFromJson(j, where); });
}

InspectionRecord inspectionFromJson(const std::string& text, const std::string& where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(where + ": not valid JSON (" + e.what() + ")");
  }
  return inspectionFromJsonValue(j, where);
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
      s << l << "," << h << "," << remKindName(x.rem_kind) << "," << x.dilation << "," << x.lambda
        << "," << x.gamma << "," << x.theta << "," << (x.theta != 0 ? 2 * M_PI / x.theta : 0.0)
        << "," << x.gate << "\n";
    }
  }
  write("rem_parameters.csv", s.str());
  // Decaying heads (RetNet, Mamba-2): one row per head and position (position 0 for a decay that
  // does not depend on the token).
  std::ostringstream d;
  d << "layer,head,position,decay\n";
  bool any_decay = false;
  for (size_t l = 0; l < record.layers.size(); ++l) {
    for (size_t h = 0; h < record.layers[l].heads.size(); ++h) {
      const auto& decay = record.layers[l].heads[h].decay;
      for (size_t t = 0; t < decay.size(); ++t)
        d << l << "," << h << "," << t << "," << decay[t] << "\n";
      any_decay = any_decay || !decay.empty();
    }
  }
  if (any_decay) write("decays.csv", d.str());
  return files;
}

}  // namespace rsalab
