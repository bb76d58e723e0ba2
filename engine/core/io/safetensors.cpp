// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/safetensors.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "engine/core/io/atomic_file.h"

namespace rsalab {

namespace {

constexpr const char* kMetadataKey = "__metadata__";

int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace

int64_t safetensorsDtypeSize(const std::string& dtype) {
  static const std::map<std::string, int64_t> sizes = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
      {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::string safetensorsBytes(const SafetensorsFile& file) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) header[kMetadataKey] = file.metadata;
  std::set<std::string> names;
  size_t offset = 0;
  for (const auto& t : file.tensors) {
    if (t.name == kMetadataKey || !names.insert(t.name).second)
      throw std::invalid_argument("safetensors: tensor name '" + t.name +
                                  "' is reserved or given twice");
    const int64_t size = safetensorsDtypeSize(t.dtype);
    if (size == 0) throw std::invalid_argument("safetensors: unknown dtype '" + t.dtype + "'");
    if (std::any_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d < 0; }) ||
        static_cast<size_t>(elements(t.shape) * size) != t.bytes.size())
      throw std::invalid_argument("safetensors: '" + t.name + "' has " +
                                  std::to_string(t.bytes.size()) + " bytes, not its shape's");
    header[t.name] = {{"dtype", t.dtype},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  std::string out;
  out.reserve(8 + json.size() + offset);
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((uint64_t{json.size()} >> (8 * i)) & 0xff));
  out += json;
  for (const auto& t : file.tensors) out += t.bytes;
  return out;
}

void writeSafetensors(const std::string& path, const SafetensorsFile& file) {
  writeFileAtomically(path, safetensorsBytes(file));
}

SafetensorsFile parseSafetensors(const std::string& bytes, const std::string& source) {
  auto fail = [&](const std::string& what) {
    return std::runtime_error("safetensors " + source + ": " + what);
  };
  if (bytes.size() < 8) throw fail("shorter than its 8-byte header length");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  if (n > bytes.size() - 8) throw fail("header length " + std::to_string(n) + " past the end");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.substr(8, n));
  } catch (const std::exception& e) {
    throw fail(std::string("header is not JSON: ") + e.what());
  }
  if (!header.is_object()) throw fail("header is not a JSON object");
  const size_t data_start = 8 + n, data_size = bytes.size() - data_start;
  SafetensorsFile file;
  std::vector<std::pair<size_t, SafetensorsTensor>> by_offset;
  try {
    for (const auto& [name, entry] : header.items()) {
      if (name == kMetadataKey) {
        file.metadata = entry.get<std::map<std::string, std::string>>();
        continue;
      }
      SafetensorsTensor t;
      t.name = name;
      t.dtype = entry.at("dtype").get<std::string>();
      t.shape = entry.at("shape").get<std::vector<int64_t>>();
      const auto offsets = entry.at("data_offsets").get<std::vector<size_t>>();
      const int64_t size = safetensorsDtypeSize(t.dtype);
      if (size == 0) throw fail("'" + name + "': unknown dtype '" + t.dtype + "'");
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > data_size ||
          offsets[1] - offsets[0] != static_cast<size_t>(elements(t.shape) * size))
        throw fail("'" + name + "': data_offsets do not fit its shape or the file");
      t.bytes = bytes.substr(data_start + offsets[0], offsets[1] - offsets[0]);
      by_offset.emplace_back(offsets[0], std::move(t));
    }
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("header entry: ") + e.what());
  }
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t end = 0;
  for (auto& [begin, t] : by_offset) {
    if (begin != end) throw fail("'" + t.name + "' overlaps or leaves a gap before it");
    end = begin + t.bytes.size();
    file.tensors.push_back(std::move(t));
  }
  if (end != data_size) throw fail("data past the last tensor");
  return file;
}

SafetensorsFile readSafetensors(const std::string& path) {
  return parseSafetensors(readTextFile(path, size_t{1} << 34), path);
}

}  // namespace rsalab
