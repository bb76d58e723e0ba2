// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/json_read.h"

#include <cmath>

namespace rsalab::json_read {

void keyError(const std::string& what) { throw JsonKeyError(what); }

void wrongType(const std::string& key, const char* expected, const json& v) {
  keyError("key \"" + key + "\" must be " + expected + " (is " + v.type_name() + ")");
}

const json* find(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

const json& need(const json& o, const char* key, const std::string& path) {
  if (!o.is_object()) {
    if (path.empty()) keyError(std::string("must be a JSON object (is ") + o.type_name() + ")");
    wrongType(path.substr(0, path.size() - 1), "an object", o);
  }
  const json* v = find(o, key);
  if (!v) keyError("missing key \"" + path + key + "\"");
  return *v;
}

double toNumber(const json& v, const std::string& key) {
  if (v.is_null()) return NAN;
  if (!v.is_number()) wrongType(key, "a number or null", v);
  return v.get<double>();
}

const json& object(const json& v, const std::string& key) {
  if (!v.is_object()) wrongType(key, "an object", v);
  return v;
}

const json& array(const json& v, const std::string& key) {
  if (!v.is_array()) wrongType(key, "an array", v);
  return v;
}

double number(const json& o, const char* key, const std::string& path, double fallback) {
  const json* v = find(o, key);
  return v ? toNumber(*v, path + key) : fallback;
}

int64_t integer(const json& o, const char* key, const std::string& path, int64_t fallback) {
  const json* v = find(o, key);
  if (!v) return fallback;
  if (!v->is_number_integer()) wrongType(path + key, "an integer", *v);
  return v->get<int64_t>();
}

std::string string(const json& o, const char* key, const std::string& path,
                   const std::string& fallback) {
  const json* v = find(o, key);
  if (!v) return fallback;
  if (!v->is_string()) wrongType(path + key, "a string", *v);
  return v->get<std::string>();
}

double needNumber(const json& o, const char* key, const std::string& path) {
  return toNumber(need(o, key, path), path + key);
}

int64_t needInteger(const json& o, const char* key, const std::string& path) {
  need(o, key, path);
  return integer(o, key, path, 0);
}

std::string needString(const json& o, const char* key, const std::string& path) {
  need(o, key, path);
  return string(o, key, path, "");
}

double numberOrNaN(const json& v) { return v.is_number() ? v.get<double>() : NAN; }

std::string stringOrEmpty(const json& o, const char* key) {
  const json* v = find(o, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace rsalab::json_read
