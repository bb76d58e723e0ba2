// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/config/search_space.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace rsalab {

namespace {

bool inScope(SearchScope scope, const ModelCard& model) {
  switch (scope) {
    case SearchScope::Every:
      return true;
    case SearchScope::Network:
      return model.family != ModelFamily::Linear;
    case SearchScope::Heads:
      return model.family == ModelFamily::Attention;
    case SearchScope::Rems:
      return model.has(HasRems);
    case SearchScope::Retention:
      return model.attention_name && std::string(model.attention_name) == "retention";
  }
  return false;
}

// The searched rows of one table whose fields sit at `section` of a RunConfig.
template <typename S, typename Section>
void addKnobs(std::vector<SearchKnob>& out, const std::vector<OptionInfo<S>>& rows,
              const std::string& prefix, const ModelCard& model, Section section) {
  for (const auto& row : rows) {
    if (!row.search.searched() || !inScope(row.search.scope, model)) continue;
    SearchKnob k;
    k.key = prefix + row.name;
    k.range = row.search;
    k.integral = row.integral();
    k.flag = !row.numeric();
    k.get = [row, section](const RunConfig& c) { return row.searchedValue(section(c)); };
    k.set = [row, section](RunConfig& c, double v) { row.setSearched(section(c), v); };
    out.push_back(std::move(k));
  }
}

}  // namespace

std::string SearchKnob::rangeText() const {
  if (flag) return "off|on";
  std::ostringstream s;
  s << (range.scale == SearchScale::Log ? "log " : "linear ") << range.low << ".." << range.high;
  if (integral && range.step > 1) s << " step " << range.step;
  return s.str();
}

std::vector<SearchKnob> searchKnobs(const std::string& model) {
  const ModelCard& info = modelInfo(model);
  std::vector<SearchKnob> out;
  addKnobs(
      out, trainerHyperParameters(), "trainer.", info, [](auto& c) -> auto& { return c.trainer; });
  addKnobs(
      out, modelOptionTable(), "model.", info, [](auto& c) -> auto& { return c.model; });
  addKnobs(
      out, remHeadTable(), "model.rem.", info, [](auto& c) -> auto& { return c.model.rem; });
  addKnobs(
      out, remInitTable(), "model.rem_init.", info,
      [](auto& c) -> auto& { return c.model.rem_init; });
  return out;
}

std::string searchSpaceText(const std::vector<std::string>& models) {
  std::ostringstream s;
  for (const auto& m : models) {
    s << m << ":";
    const auto knobs = searchKnobs(m);
    for (size_t i = 0; i < knobs.size(); ++i)
      s << (i ? ", " : " ") << knobs[i].key << " " << knobs[i].rangeText();
    s << "\n";
  }
  return s.str();
}

uint64_t SearchRng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double SearchRng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

uint64_t modelSearchSeed(uint64_t seed, const std::string& model) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : model) h = (h ^ c) * 0x100000001B3ULL;
  return seed ^ h;
}

double drawKnob(const SearchKnob& knob, SearchRng& rng) {
  const SearchRange& r = knob.range;
  const double u = rng.uniform();
  if (knob.flag) return u < 0.5 ? 0.0 : 1.0;
  const double v = r.scale == SearchScale::Log
                       ? std::exp(std::log(r.low) + u * (std::log(r.high) - std::log(r.low)))
                       : r.low + u * (r.high - r.low);
  if (!knob.integral) return v;
  // Integer rows: the nearest value of the grid low, low + step, ... <= high; a linear row draws
  // each grid value with equal odds.
  const double step = r.step > 0 ? r.step : 1;
  const int64_t n = static_cast<int64_t>(std::floor((r.high - r.low) / step + 1e-9)) + 1;
  const int64_t k = r.scale == SearchScale::Log ? std::llround((v - r.low) / step)
                                                : static_cast<int64_t>(u * static_cast<double>(n));
  return r.low + static_cast<double>(std::clamp<int64_t>(k, 0, n - 1)) * step;
}

RunConfig drawConfig(const RunConfig& base, const std::string& model, SearchRng& rng,
                     const ParameterCounter& parameters, int64_t cap, int attempts) {
  const auto knobs = searchKnobs(model);
  const bool rems = modelInfo(model).has(HasRems);
  std::string last = "no draw";
  for (int a = 0; a < attempts; ++a) {
    RunConfig c = base;
    c.model.model = model;
    for (const auto& k : knobs) k.set(c, drawKnob(k, rng));
    try {
      validate(c);
    } catch (const std::invalid_argument& e) {
      last = e.what();
      continue;
    }
    if (rems && c.model.rem.total() < 1) {
      last = "no REM head";
      continue;
    }
    const int64_t n = parameters(c);
    if (n > cap) {
      last = std::to_string(n) + " parameters > the cap " + std::to_string(cap);
      continue;
    }
    return c;
  }
  throw std::runtime_error("tune: no valid configuration of " + model + " in " +
                           std::to_string(attempts) + " draws (the last: " + last + ")");
}

}  // namespace rsalab
