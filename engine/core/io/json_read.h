// SPDX-License-Identifier: GPL-3.0-or-later
// Checked reading of the JSON files this app writes (sweep.json, cells, session manifests,
// records).
//
// Every key is looked up and type-checked; a problem is a JsonKeyError whose message names the key
// by its path from the document's top: `missing key "runs[0].test_loss"`, `key "runs[0].id" must be
// an integer (is string)`. The reader of a whole file puts the file's name in front
// (keyErrorsAs). `path` arguments are the prefix of `key`, with its dot ("runs[0].", "" at the
// top). A number read back may be null: that is NaN (nlohmann writes NaN and ±inf as null).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace rsalab::json_read {

using nlohmann::json;

struct JsonKeyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws JsonKeyError(what).
[[noreturn]] void keyError(const std::string& what);
// Throws `key "<key>" must be <expected> (is <v's type>)`.
[[noreturn]] void wrongType(const std::string& key, const char* expected, const json& v);

// The member `key` of `o`, or nullptr when it has none (or is not an object).
const json* find(const json& o, const char* key);
// The member `key` of `o`; missing, or `o` not an object, is an error.
const json& need(const json& o, const char* key, const std::string& path = "");

// `v` as a number: null is NaN, anything else but a number is an error naming `key`.
double toNumber(const json& v, const std::string& key);
// `v` itself, an error naming `key` unless it is an object / an array.
const json& object(const json& v, const std::string& key);
const json& array(const json& v, const std::string& key);

// The member as a number (null: NaN), integer or string; `fallback` when it is missing.
double number(const json& o, const char* key, const std::string& path, double fallback);
int64_t integer(const json& o, const char* key, const std::string& path, int64_t fallback);
std::string string(const json& o, const char* key, const std::string& path,
                   const std::string& fallback);
// The same for a member that must be there.
double needNumber(const json& o, const char* key, const std::string& path = "");
int64_t needInteger(const json& o, const char* key, const std::string& path = "");
std::string needString(const json& o, const char* key, const std::string& path = "");

// For files read leniently (the committed report and table data): a number (NaN when missing,
// null or not a number) and a string ("" when missing or not a string).
double numberOrNaN(const json& v);
std::string stringOrEmpty(const json& o, const char* key);

// read(), with a JsonKeyError it throws turned into Error(`<file>: <message>`).
template <class Error, class Read>
decltype(auto) keyErrorsAs(const std::string& file, Read&& read) {
  try {
    return read();
  } catch (const JsonKeyError& e) {
    throw Error(file + ": " + e.what());
  }
}

}  // namespace rsalab::json_read
