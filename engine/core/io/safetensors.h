// SPDX-License-Identifier: GPL-3.0-or-later
// The safetensors file format (Hugging Face's, read by safetensors.torch.load_file), written and
// read here without the library. Plain C++ (core library). A file is
//   8 bytes   N, the header's length, unsigned little-endian
//   N bytes   a JSON object {name: {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//             ..., "__metadata__": {string: string}}, padded with spaces to a multiple of 8
//   the data  each tensor's bytes, row-major and little-endian, at [begin, end) from here, packed
//             one after the other in the header's order of offsets
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rsalab {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;           // F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL
  std::vector<int64_t> shape;  // [] for a scalar
  std::string bytes;           // product(shape) × dtype size bytes, little-endian
};

struct SafetensorsFile {
  std::vector<SafetensorsTensor> tensors;  // in file order; names unique
  std::map<std::string, std::string> metadata;
};

// Bytes per element of a dtype; 0 for an unknown one.
int64_t safetensorsDtypeSize(const std::string& dtype);
// The file's bytes. Throws std::invalid_argument for a duplicate or reserved name ("__metadata__"),
// an unknown dtype or bytes that do not match the shape.
std::string safetensorsBytes(const SafetensorsFile& file);
// Written atomically (engine/core/io/atomic_file.h).
void writeSafetensors(const std::string& path, const SafetensorsFile& file);
// Parses what safetensorsBytes writes (and any valid file); tensors in the order of their offsets.
// std::runtime_error naming `source` and what is wrong (short file, header, offsets, overlaps).
SafetensorsFile parseSafetensors(const std::string& bytes, const std::string& source);
SafetensorsFile readSafetensors(const std::string& path);

}  // namespace rsalab
