// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/anchor_agreement.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "engine/core/forecast/forecast.h"
#include "engine/core/forecast/series_tools.h"

namespace rsalab::forecast::agreement {
namespace {

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"')
      quoted = !quoted;
    else if (ch == ',' && !quoted)
      out.push_back(cell), cell.clear();
    else if (ch != '\r')
      cell += ch;
  }
  out.push_back(cell);
  return out;
}

bool fileExists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

// The fixture's test-MSE rows of the bundled six and of the added series.
std::vector<FixtureRow> scoreRows(const std::string& root) {
  std::vector<FixtureRow> out;
  for (const char* file : {"anchors_r.csv", "anchors_r_added.csv"})
    for (auto& row : readFixture(root + "/tests/data/" + file).rows) out.push_back(row);
  return out;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace

const char* const kBlockBegin =
    "<!-- anchors-vs-r: begin (RSALAB_WRITE_DOCS=1 test_runner_core test_anchors_r writes this) "
    "-->";
const char* const kBlockEnd = "<!-- anchors-vs-r: end -->";

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Fixture readFixture(const std::string& path) {
  std::istringstream in(readText(path));
  Fixture f;
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(path + ": empty");
  f.columns = cells(line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto c = cells(line);
    if (c.size() != f.columns.size())
      throw std::runtime_error(path + ": a row has " + std::to_string(c.size()) + " cells, not " +
                               std::to_string(f.columns.size()));
    FixtureRow row;
    for (size_t i = 0; i < c.size(); ++i) row[f.columns[i]] = c[i];
    f.rows.push_back(std::move(row));
  }
  return f;
}

FixtureSeries fixtureSeries(const std::string& root, const std::string& name) {
  FixtureSeries s;
  s.name = name;
  bool found = false;
  for (const auto& row : scoreRows(root))
    if (row.at("series") == name) {
      s.period = std::stoll(row.at("period"));
      s.train_end = std::stoll(row.at("train_end"));
      s.validation_end = std::stoll(row.at("validation_end"));
      found = true;
    }
  if (!found) throw std::runtime_error(name + ": not a series of the fixture");
  std::string path = root + "/resources/series/" + name + ".csv";
  if (!fileExists(path)) path = root + "/tests/data/r_series/" + name + ".csv";
  std::istringstream in(readText(path));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line))
    if (!line.empty()) s.y.push_back(std::stod(line.substr(line.find(',') + 1)));
  if (static_cast<int64_t>(s.y.size()) <= s.validation_end)
    throw std::runtime_error(path + ": fewer rows than the fixture's split");
  return s;
}

bool parseEtsForm(const std::string& text, ets::Form& form) {
  using C = ets::Component;
  if (text.rfind("ETS(", 0) != 0 || text.back() != ')') return false;
  std::vector<std::string> parts;
  std::stringstream s(text.substr(4, text.size() - 5));
  for (std::string part; std::getline(s, part, ',');) parts.push_back(part);
  if (parts.size() != 3) return false;
  auto component = [](const std::string& c) {
    return c == "A" ? C::Additive : c == "M" ? C::Multiplicative : c == "Ad" ? C::Damped : C::None;
  };
  form = {component(parts[0]), component(parts[1]), component(parts[2])};
  return true;
}

bool parseArimaOrder(const std::string& text, int64_t period, arima::Order& o) {
  int v[6] = {0, 0, 0, 0, 0, 0};
  long long m = 1;
  const int read = std::sscanf(text.c_str(), "ARIMA(%d,%d,%d)(%d,%d,%d)[%lld]", &v[0], &v[1], &v[2],
                               &v[3], &v[4], &v[5], &m);
  if (read != 3 && read != 7) return false;
  o = {};
  o.p = v[0], o.d = v[1], o.q = v[2], o.P = v[3], o.D = v[4], o.Q = v[5];
  o.m = read == 7 ? m : (o.P + o.D + o.Q > 0 ? period : 1);
  o.constant =
      text.find("drift") != std::string::npos || text.find("non-zero mean") != std::string::npos;
  return true;
}

arima::Coefficients coefficientsFromR(const std::string& text, const arima::Order& order) {
  arima::Coefficients c;
  c.ar.assign(static_cast<size_t>(order.p), 0.0);
  c.ma.assign(static_cast<size_t>(order.q), 0.0);
  c.sar.assign(static_cast<size_t>(order.P), 0.0);
  c.sma.assign(static_cast<size_t>(order.Q), 0.0);
  std::istringstream in(text);
  for (std::string item; in >> item;) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::runtime_error("coefficient without a value: " + item);
    const std::string name = item.substr(0, eq);
    const double value = std::stod(item.substr(eq + 1));
    auto set = [&](std::vector<double>& v, size_t prefix) {
      const size_t i = std::stoul(name.substr(prefix)) - 1;
      if (i >= v.size()) throw std::runtime_error("coefficient beyond the order: " + name);
      v[i] = value;
    };
    if (name == "drift")
      c.mean = value * static_cast<double>(order.d + order.m * order.D);
    else if (name == "intercept")
      c.mean = value;
    else if (name.rfind("sar", 0) == 0)
      set(c.sar, 3);
    else if (name.rfind("sma", 0) == 0)
      set(c.sma, 3);
    else if (name.rfind("ar", 0) == 0)
      set(c.ar, 2);
    else if (name.rfind("ma", 0) == 0)
      set(c.ma, 2);
    else
      throw std::runtime_error("unknown coefficient: " + name);
  }
  return c;
}

ets::Parameters etsParametersFromR(const std::string& text, const ets::Form& form, int64_t m) {
  ets::Parameters p;
  p.beta = 0, p.gamma = 0, p.phi = 1, p.slope = 0;
  const bool seasonal = form.season != ets::Component::None;
  if (seasonal) p.season.assign(static_cast<size_t>(m), 0.0);
  double sum = 0;
  std::istringstream in(text);
  for (std::string item; in >> item;) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::runtime_error("parameter without a value: " + item);
    const std::string name = item.substr(0, eq);
    const double value = std::stod(item.substr(eq + 1));
    if (name == "alpha")
      p.alpha = value;
    else if (name == "beta")
      p.beta = value;
    else if (name == "gamma")
      p.gamma = value;
    else if (name == "phi")
      p.phi = value;
    else if (name == "l")
      p.level = value;
    else if (name == "b")
      p.slope = value;
    else if (name.size() > 1 && name[0] == 's' && seasonal) {
      const auto i = static_cast<int64_t>(std::stoul(name.substr(1)));
      if (i >= m - 1) throw std::runtime_error("seasonal state beyond the period: " + name);
      p.season[static_cast<size_t>(m - 1 - i)] = value;
      sum += value;
    } else {
      throw std::runtime_error("unknown ETS parameter: " + name);
    }
  }
  if (seasonal)
    p.season[0] =
        (form.season == ets::Component::Multiplicative ? static_cast<double>(m) : 0.0) - sum;
  return p;
}

namespace {
// "name=value" with 17 significant digits, space-separated.
void put(std::ostringstream& out, const std::string& name, double value) {
  if (out.tellp() > 0) out << ' ';
  out << name << '=' << std::setprecision(17) << value;
}
}  // namespace

std::string coefficientsToR(const arima::Coefficients& c, const arima::Order& order, bool drift) {
  std::ostringstream out;
  const std::pair<const char*, const std::vector<double>*> blocks[] = {
      {"ar", &c.ar}, {"ma", &c.ma}, {"sar", &c.sar}, {"sma", &c.sma}};
  for (const auto& [prefix, values] : blocks)
    for (size_t i = 0; i < values->size(); ++i)
      put(out, prefix + std::to_string(i + 1), (*values)[i]);
  if (order.constant) {
    const auto lag = static_cast<double>(order.d + order.m * order.D);
    if (drift)
      put(out, "drift", c.mean / lag);
    else
      put(out, "intercept", c.mean);
  }
  return out.str();
}

std::string etsParametersToR(const ets::Parameters& p, const ets::Form& form, int64_t m) {
  std::ostringstream out;
  const bool trend = form.trend != ets::Component::None,
             seasonal = form.season != ets::Component::None;
  put(out, "alpha", p.alpha);
  if (trend) put(out, "beta", p.beta);
  if (seasonal) put(out, "gamma", p.gamma);
  if (form.trend == ets::Component::Damped) put(out, "phi", p.phi);
  put(out, "l", p.level);
  if (trend) put(out, "b", p.slope);
  for (int64_t i = 0; seasonal && i + 1 < m; ++i)
    put(out, "s" + std::to_string(i), p.season[static_cast<size_t>(m - 1 - i)]);
  return out.str();
}

std::vector<AgreementRow> measure(const std::string& root) {
  std::vector<AgreementRow> out;
  std::map<std::string, FixtureSeries> series;
  for (const auto& row : scoreRows(root)) {
    const std::string& method = row.at("method");
    UnivariateForecast (*fn)(const UnivariateProblem&) = method == "ets" ? &etsForecast
                                                         : method == "auto_arima"
                                                             ? &autoArimaForecast
                                                         : method == "theta" ? &thetaForecast
                                                                             : nullptr;
    if (!fn) continue;  // ar_aicc: the app's AR is fitted on windows, not compared here
    const std::string& name = row.at("series");
    if (!series.count(name)) series[name] = fixtureSeries(root, name);
    const FixtureSeries& s = series[name];
    UnivariateProblem p;
    p.y = s.y;
    p.fit_end = s.train_end;
    p.period = s.period;
    const auto L = static_cast<int64_t>(s.y.size());
    for (int64_t o = s.train_end - 1; o <= L - 2; ++o) p.origins.push_back(o);
    AgreementRow r{name, method, row.at("model"), "", std::stod(row.at("test_mse")), NAN};
    try {
      const auto f = fn(p);
      const std::vector<double> train(s.y.begin(), s.y.begin() + s.train_end);
      const double scale = populationVariance(train);
      double sum = 0;
      for (int64_t t = s.validation_end; t < L; ++t) {
        const double e = f.mean[static_cast<size_t>(t - s.train_end)] - s.y[static_cast<size_t>(t)];
        sum += e * e;
      }
      r.our_test = sum / static_cast<double>(L - s.validation_end) / scale;
      r.our_model = f.model;
    } catch (const std::exception& e) {
      r.our_model = std::string("failed: ") + e.what();
    }
    out.push_back(r);
  }
  return out;
}

std::string renderBlock(const std::vector<AgreementRow>& rows) {
  std::ostringstream s;
  s << kBlockBegin << "\n\n"
    << "| series | anchor | R's form | our form | R's test MSE | our test MSE | ours / R's |\n"
    << "|---|---|---|---|---:|---:|---:|\n";
  for (const auto& r : rows)
    s << "| " << r.series << " | " << r.method << " | " << r.r_model << " | " << r.our_model
      << " | " << fixed(r.r_test, 4) << " | " << fixed(r.our_test, 4) << " | "
      << fixed(r.our_test / r.r_test, 2) << " |\n";
  s << "\n" << kBlockEnd << "\n";
  return s.str();
}

}  // namespace rsalab::forecast::agreement
