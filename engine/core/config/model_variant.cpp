// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/config/model_variant.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "engine/core/config/run_config.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/model_registry.h"

namespace rsalab {

namespace {

using nlohmann::json;

std::invalid_argument variantError(const std::string& text, const std::string& what) {
  return std::invalid_argument("model '" + text + "': " + what);
}

// `text` cut at every `separator` (an empty piece where two meet).
std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == separator) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

bool keyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// A value as JSON: a number or true/false as such, any other text as a string (an enum's name).
json valueJson(const std::string& value) {
  json parsed = json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !(parsed.is_number() || parsed.is_boolean())) return value;
  return parsed;
}

template <typename S>
std::string rowNames(const std::vector<OptionInfo<S>>& rows) {
  return joined(rows, ", ", [](const OptionInfo<S>& row) { return row.name; });
}

// rem_heads=<type>+<type>…: the listed REM types keep their counts, the others get none.
void keepRemHeads(const std::string& text, const std::string& types, RemHeadCounts& rem) {
  RemHeadCounts kept{0, 0, 0, 0, 0, 0};
  for (const std::string& type : split(types, '+')) {
    const auto* row = findOption(remHeadTable(), type);
    if (!row) {
      throw variantError(text, "rem_heads names '" + type + "', no REM type: use " +
                                   rowNames(remHeadTable()) + ", joined by '+'");
    }
    row->set(kept, row->get(rem));
  }
  rem = kept;
}

}  // namespace

bool isModelVariant(const std::string& name) { return name.find('[') != std::string::npos; }

ModelVariant parseModelVariant(const std::string& text) {
  ModelVariant out;
  const size_t open = text.find('[');
  out.card = text.substr(0, open);
  if (!findModel(out.card)) {
    throw variantError(text, "'" + out.card + "' is no model: use " + modelNameList());
  }
  if (open == std::string::npos) return out;
  if (text.back() != ']') throw variantError(text, "the overrides must end with ']'");
  const std::string body = text.substr(open + 1, text.size() - open - 2);
  if (body.find_first_of("[]") != std::string::npos)
    throw variantError(text, "one pair of brackets only: name[key=value,flag]");
  if (body.empty()) throw variantError(text, "no overrides between the brackets");
  for (const std::string& item : split(body, ',')) {
    const size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "true" : item.substr(eq + 1);
    if (key.empty() || !std::all_of(key.begin(), key.end(), keyChar)) {
      throw variantError(text, "'" + item +
                                   "' is no override: write key=value or a flag (keys are lower "
                                   "case letters, digits, '_' and '.')");
    }
    if (value.empty()) throw variantError(text, key + " has no value");
    for (const auto& [seen, unused] : out.overrides) {
      (void)unused;
      if (seen == key) throw variantError(text, key + " is given twice");
    }
    out.overrides.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

ModelOptions withVariant(const ModelOptions& options) {
  if (!isModelVariant(options.model)) return options;
  const std::string& text = options.model;
  const ModelVariant variant = parseModelVariant(text);
  json model = json::object();
  std::optional<std::string> rem_heads;
  for (const auto& [key, value] : variant.overrides) {
    if (key == "rem_heads") {
      if (!modelInfo(variant.card).has(HasRems))
        throw variantError(text, variant.card + " has no REM heads (rem_heads)");
      rem_heads = value;
      continue;
    }
    const size_t dot = key.find('.');
    if (dot != std::string::npos) {  // rem.<type>, rem_init.<field>
      const std::string section = key.substr(0, dot), field = key.substr(dot + 1);
      const bool known = section == "rem"        ? findOption(remHeadTable(), field) != nullptr
                         : section == "rem_init" ? findOption(remInitTable(), field) != nullptr
                                                 : false;
      if (!known) {
        throw variantError(text, key + " is no option: use rem.<" + rowNames(remHeadTable()) +
                                     "> or rem_init.<" + rowNames(remInitTable()) + ">");
      }
      model[section][field] = valueJson(value);
      continue;
    }
    const std::string prefixed = variant.card + "_" + key;
    const std::string name = findModelOption(key) ? key : findModelOption(prefixed) ? prefixed : "";
    if (name.empty() || name == "model") {
      std::vector<std::string> options;  // every model option but the name itself
      for (const auto& row : modelOptionTable())
        if (row.name != "model") options.push_back(row.name);
      throw variantError(text, key + " is no option of " + variant.card + ": use a model option (" +
                                   joined(options) + "; '" + variant.card +
                                   "_' may be left off), rem.<type>, rem_init.<field> or "
                                   "rem_heads=<type>+<type>");
    }
    model[name] = valueJson(value);
  }
  ModelOptions out;
  try {
    out = overlayModelJson(options, model.dump());
  } catch (const std::invalid_argument& e) {
    throw variantError(text, e.what());
  }
  if (rem_heads) keepRemHeads(text, *rem_heads, out.rem);
  return out;
}

std::vector<std::string> splitModelList(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == ',' && depth == 0) {
      out.push_back(current);
      current.clear();
      continue;
    }
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    current += c;
  }
  out.push_back(current);
  return out;
}

}  // namespace rsalab
