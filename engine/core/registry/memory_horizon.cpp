// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/memory_horizon.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/io/text.h"

namespace rsalab {

double halfLife(double decay) {
  const double a = std::fabs(decay);
  if (a >= 1) return std::numeric_limits<double>::infinity();
  if (a == 0) return 0;
  return std::log(0.5) / std::log(a);
}

double memoryHorizon(double decay) {
  const double a = std::fabs(decay);
  return a >= 1 ? std::numeric_limits<double>::infinity() : 1 / (1 - a);
}

double HeadDecay::quantile(double q) const {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = values;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double HeadDecay::median() const { return quantile(0.5); }

std::string HeadDecay::label() const {
  switch (source) {
    case DecaySource::RsaRegular:
      return "RSA |λ|";
    case DecaySource::RsaCyclical:
      return "RSA γ (cyclical)";
    case DecaySource::Fixed:
      return "γ";
    case DecaySource::PerToken:
      return "a_t over " + std::to_string(values.size()) + " tokens";
  }
  return "?";
}

std::vector<HeadDecay> headDecays(const InspectionRecord& record) {
  std::vector<HeadDecay> out;
  for (size_t l = 0; l < record.layers.size(); ++l) {
    const auto& heads = record.layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const HeadInspection& x = heads[h];
      HeadDecay d;
      d.layer = static_cast<int64_t>(l);
      d.head = static_cast<int64_t>(h);
      if (x.has_rem) {
        const bool regular = x.rem_kind == RemKind::Regular;
        d.source = regular ? DecaySource::RsaRegular : DecaySource::RsaCyclical;
        d.values = {std::fabs(regular ? x.lambda : x.gamma)};
      } else if (!x.decay.empty()) {
        d.source = x.decay.size() == 1 ? DecaySource::Fixed : DecaySource::PerToken;
        d.values.assign(x.decay.begin(), x.decay.end());
      } else {
        continue;
      }
      out.push_back(std::move(d));
    }
  }
  return out;
}

std::vector<double> regularDecays(const InspectionRecord& record) {
  std::vector<double> out;
  for (const HeadDecay& d : headDecays(record))
    if (d.source != DecaySource::RsaCyclical) out.push_back(d.median());
  return out;
}

std::vector<TrueDecay> trueDecays(const GroundTruth& truth) {
  std::vector<TrueDecay> out;
  for (double lambda : truth.lambdas())
    out.push_back({std::fabs(lambda), "true λ = " + formatNumber(lambda)});
  for (const auto& [gamma, theta] : truth.cyclical()) {
    const bool seen =
        std::any_of(out.begin(), out.end(), [&](const TrueDecay& d) { return d.value == gamma; });
    if (!seen) out.push_back({gamma, "true γ = " + formatNumber(gamma)});
  }
  return out;
}

}  // namespace rsalab
