// SPDX-License-Identifier: GPL-3.0-or-later
// The anchors against R form by form (core library only), on the records scripts/anchors-r.R
// writes (tests/data/anchors_r_forms.csv, anchors_r_fixed.csv) for the six bundled series and the
// four it adds (tests/data/r_series/), and those scripts/anchors-r-exact.R writes from R's own
// functions (anchors_r_at_ours.csv, anchors_r_exact.csv):
//   * at R's fitted parameters our likelihood is R's, |Δ loglik| ≤ 0.05 + 1e-3 |loglik|, and our
//     AICc is R's; our own fit of the same fixed ETS form or ARIMA order reaches R's best known
//     maximum of its own likelihood within that tolerance: R's optimum, or, where our fit is
//     higher, R's likelihood at our parameters, which must be a point R admits and scores as we do;
//   * over R's three best forms (ETS) and orders (ARIMA) by AICc, our AICc ranks them as R's does
//     (at R's parameters, and for our fits against R's AICc at its best known maxima);
//   * two seasonal ARIMA forms (one with drift) with R's fitted parameters fixed: our one-step
//     forecasts of every test row are R's exact predictor within 1e-6 relative (R's Kalman filter
//     beside it, reported);
//   * docs/REAL_SERIES.md's anchors-vs-r block is the agreement table measured now.
// Likelihood conventions. ETS: R reports −½ (n log Σε² + 2 Σ log|r_t|) (no 2π, no n, Σε² not
// divided by n); ours is the full −½ (n log(2π σ̂²) + n + 2 Σ log|r_t|), σ̂² = Σε²/n, so ours =
// R's − ½ n (log(2π/n) + 1): R's figure is converted before the comparison. ARIMA: both are the
// full Gaussian log-likelihood of the differenced series with the constants (R's stats::arima,
// ours arma::Likelihood), compared as they are.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/forecast/anchor_agreement.h"
#include "engine/core/forecast/arima_model.h"
#include "engine/core/forecast/ets_model.h"
#include "engine/core/forecast/state_space.h"
#include "engine/core/io/marked_block.h"
#include "support/test_registry.h"

using namespace rsalab::forecast;

namespace {

const std::string kRoot = RSALAB_SOURCE_ROOT;

struct Record {
  std::string series, kind, model, coef;
  int rank = 0;
  int64_t n = 0;
  double loglik = 0, aicc = 0;
};

std::vector<Record> formRecords() {
  std::vector<Record> out;
  const auto table = agreement::readFixture(kRoot + "/tests/data/anchors_r_forms.csv");
  for (const auto& row : table.rows)
    out.push_back({row.at("series"), row.at("kind"), row.at("model"), row.at("coef"),
                   std::stoi(row.at("rank")), std::stoll(row.at("n")), std::stod(row.at("loglik")),
                   std::stod(row.at("aicc"))});
  return out;
}

bool isEts(const Record& r) { return r.kind.rfind("ets_", 0) == 0; }

// ETS: our −2 log L carries n (log(2π/n) + 1) more than R's n log Σε² + 2 Σ log|r|.
double etsConstant(int64_t n) {
  const double nd = static_cast<double>(n);
  return nd * (std::log(2 * M_PI / nd) + 1);
}

// The record's form on the series' train part, in our convention: log-likelihood and AICc of our
// fit, and of R's parameters put through our likelihood.
struct Ours {
  double loglik = NAN, aicc = NAN;            // our fit
  double loglik_at_r = NAN, aicc_at_r = NAN;  // R's parameters, our likelihood
  std::string coef;                           // our fitted parameters in R's names
  std::string error;
};
Ours fitOurs(const Record& r) {
  Ours out;
  try {
    const auto s = agreement::fixtureSeries(kRoot, r.series);
    const std::vector<double> train(s.y.begin(), s.y.begin() + s.train_end);
    if (isEts(r)) {
      ets::Form form;
      if (!agreement::parseEtsForm(r.model, form)) throw std::runtime_error("unparsed form");
      const auto f = ets::fitForm(form, train, s.period);
      out.loglik = -0.5 * f.neg2_loglik, out.aicc = f.aicc;
      const int64_t m = form.season == ets::Component::None ? 1 : s.period;
      out.coef = agreement::etsParametersToR(f.par, form, m);
      const auto par = agreement::etsParametersFromR(r.coef, form, m);
      const double neg2 = ets::criterion(form, par, m, train) + etsConstant(r.n);
      const double k = f.parameters, n = static_cast<double>(r.n);
      out.loglik_at_r = -0.5 * neg2;
      out.aicc_at_r = neg2 + 2 * k + 2 * k * (k + 1) / (n - k - 1);
    } else {
      arima::Order order;
      if (!agreement::parseArimaOrder(r.model, s.period, order))
        throw std::runtime_error("unparsed order");
      const auto w = arima::difference(train, order.d, order.D, order.m);
      const auto f = arima::fit(w, order, arima::Method::Exact);
      out.loglik = -0.5 * f.neg2_loglik, out.aicc = f.aicc;
      out.coef = agreement::coefficientsToR(f.coef, order, r.model.find("drift") != r.model.npos);
      const auto at = arima::evaluate(w, order, agreement::coefficientsFromR(r.coef, order));
      out.loglik_at_r = -0.5 * at.neg2_loglik, out.aicc_at_r = at.aicc;
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

// Our log-likelihood of record r's form on its train part at parameters in R's names, in R's
// convention (ETS without the constants).
double logLikAt(const Record& r, const std::string& coef) {
  const auto s = agreement::fixtureSeries(kRoot, r.series);
  const std::vector<double> train(s.y.begin(), s.y.begin() + s.train_end);
  if (isEts(r)) {
    ets::Form form;
    if (!agreement::parseEtsForm(r.model, form)) throw std::runtime_error("unparsed form");
    const int64_t m = form.season == ets::Component::None ? 1 : s.period;
    return -0.5 * ets::criterion(form, agreement::etsParametersFromR(coef, form, m), m, train);
  }
  arima::Order order;
  if (!agreement::parseArimaOrder(r.model, s.period, order))
    throw std::runtime_error("unparsed order");
  const auto w = arima::difference(train, order.d, order.D, order.m);
  return -0.5 * arima::evaluate(w, order, agreement::coefficientsFromR(coef, order)).neg2_loglik;
}

// R's log-likelihood and AICc in our convention.
double rLoglik(const Record& r) { return isEts(r) ? r.loglik - 0.5 * etsConstant(r.n) : r.loglik; }
double rAicc(const Record& r) { return isEts(r) ? r.aicc + etsConstant(r.n) : r.aicc; }
double allowed(double loglik) { return 0.05 + 1e-3 * std::abs(loglik); }

// R's own likelihood at our fitted parameters (scripts/anchors-r-exact.R), per series|model.
struct RAtOurs {
  std::string coef;
  double loglik = NAN;  // R's convention
  bool admissible = false;
};
const std::map<std::string, RAtOurs>& rAtOurs() {
  static const auto table = [] {
    std::map<std::string, RAtOurs> out;
    try {
      for (const auto& row :
           agreement::readFixture(kRoot + "/tests/data/anchors_r_at_ours.csv").rows)
        out[row.at("series") + "|" + row.at("model")] = {
            row.at("coef"), std::stod(row.at("r_loglik")), row.at("r_admissible") == "1"};
    } catch (const std::exception& e) {
      qWarning("%s", e.what());  // every record that needs it then fails, and says why
    }
    return out;
  }();
  return table;
}
const RAtOurs* rAtOursFor(const Record& r) {
  const auto it = rAtOurs().find(r.series + "|" + r.model);
  return it == rAtOurs().end() ? nullptr : &it->second;
}
// R's best known maximum of its own likelihood, in our convention: its optimum, or its likelihood
// at our fit's parameters where that is higher and R admits the point.
double rBest(const Record& r) {
  const RAtOurs* at = rAtOursFor(r);
  const double shift = isEts(r) ? -0.5 * etsConstant(r.n) : 0.0;
  return at && at->admissible ? std::max(rLoglik(r), at->loglik + shift) : rLoglik(r);
}

// Our fits of every distinct (series, form) of the records, once.
const Ours& oursFor(const Record& r) {
  static std::map<std::string, Ours> cache;
  const std::string key = r.series + "|" + r.model;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, fitOurs(r)).first;
  return it->second;
}

}  // namespace

class TestAnchorsR : public QObject {
  Q_OBJECT

 private slots:
  // Per record: at R's parameters our likelihood is R's (the same function, the same convention),
  // |Δ| within the tolerance; our own fit of the form reaches R's best known maximum of its own
  // likelihood (rBest), |Δ| within the tolerance. Where our fit is higher than R's optimum, R's
  // likelihood at our parameters (anchors_r_at_ours.csv) is ours, and R admits the point: R's
  // optimiser stopped short of it. RSALAB_WRITE_OURS=1 writes our fits for
  // scripts/anchors-r-exact.R.
  void sameFormLikelihood() {
    const auto records = formRecords();
    QVERIFY(records.size() >= 8 * 8);
    std::ostringstream report, failures, ours_csv;
    ours_csv << "series,kind,model,n,coef\n";
    std::map<std::string, int> written;
    int higher = 0;
    for (const auto& r : records) {
      const Ours& o = oursFor(r);
      if (!written[r.series + "|" + r.model]++)
        ours_csv << r.series << "," << (isEts(r) ? "ets" : "arima") << ",\"" << r.model << "\","
                 << r.n << "," << o.coef << "\n";
      const double theirs = rLoglik(r), tol = allowed(theirs);
      const double at_r = o.loglik_at_r - theirs, fitted = o.loglik - theirs;
      const bool same_function = o.error.empty() && std::abs(at_r) <= tol;
      const bool reaches = o.error.empty() && std::abs(o.loglik - rBest(r)) <= tol;
      report << r.series << " " << r.kind << " " << r.rank << " " << r.model << ": R " << theirs
             << "; at R's parameters Δ " << at_r << "; our fit Δ " << fitted << " (tolerance "
             << tol << ")" << (o.error.empty() ? "" : " error: " + o.error);
      if (fitted > tol) {  // R's optimiser stopped short: R's own function at our point
        ++higher;
        const RAtOurs* at = rAtOursFor(r);
        const bool checked = at && at->admissible &&
                             std::abs(logLikAt(r, at->coef) - at->loglik) <= allowed(at->loglik);
        report << "  (ours higher; R's own likelihood at our point " << rBest(r)
               << (checked ? ", admitted" : "  <- not checked by R: rerun the at-ours fixture")
               << ")";
        if (!checked) failures << r.series << " " << r.model << " (R at our point); ";
      }
      report << (same_function ? "" : "  <- likelihood differs")
             << (reaches ? "" : "  <- our fit is not R's best") << "\n";
      if (!same_function || !reaches) failures << r.series << " " << r.model << "; ";
    }
    report << higher << " of " << records.size() << " records: our fit higher than R's optimum "
           << "by more than the tolerance, every one a point R admits and scores as we do\n";
    qInfo().noquote() << QString::fromStdString(report.str());
    if (std::getenv("RSALAB_WRITE_OURS")) {
      std::ofstream(kRoot + "/tests/data/anchors_ours.csv", std::ios::binary) << ours_csv.str();
      qInfo("wrote tests/data/anchors_ours.csv: now run Rscript scripts/anchors-r-exact.R");
    }
    QVERIFY2(failures.str().empty(), failures.str().c_str());
  }

  // Over R's three best forms: at R's parameters our AICc (the same parameter count) is R's and
  // ranks them as R does; our fitted AICc ranks them as R's own AICc does at R's best known
  // maximum of each (rBest: its optimum, or our point where R scores that higher).
  void aiccOrderOfRsThreeBest() {
    std::map<std::string, std::vector<Record>> best;  // series|kind → ranks 1..3
    for (const auto& r : formRecords())
      if (r.kind == "ets_top" || r.kind == "arima_top") best[r.series + "|" + r.kind].push_back(r);
    QVERIFY(best.size() >= 16);
    std::ostringstream report, failures;
    int same_as_optimum = 0;
    for (auto& [key, top] : best) {
      std::sort(top.begin(), top.end(),
                [](const Record& a, const Record& b) { return a.rank < b.rank; });
      std::vector<double> fitted, at_r, r_best;
      report << key << ":";
      for (const auto& r : top) {
        const Ours& o = oursFor(r);
        fitted.push_back(o.aicc), at_r.push_back(o.aicc_at_r);
        r_best.push_back(rAicc(r) - 2 * (rBest(r) - rLoglik(r)));
        if (std::abs(o.aicc_at_r - rAicc(r)) > 2 * allowed(rLoglik(r)))
          failures << key << " " << r.model << " AICc at R's parameters " << o.aicc_at_r
                   << " vs R's " << rAicc(r) << "; ";
        report << " " << r.model << " R " << rAicc(r) << " (at its best " << r_best.back()
               << "), ours at R's " << o.aicc_at_r << ", our fit " << o.aicc << ";";
      }
      auto order = [](const std::vector<double>& v) {
        std::vector<size_t> i(v.size());
        for (size_t k = 0; k < i.size(); ++k) i[k] = k;
        std::stable_sort(i.begin(), i.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
        return i;
      };
      if (order(at_r) != order(std::vector<double>{0, 1, 2}))
        failures << key << " (at R's parameters); ";
      if (order(fitted) != order(r_best)) failures << key << " (our fits against R's best); ";
      const bool literal = order(fitted) == order(std::vector<double>{0, 1, 2});
      same_as_optimum += literal ? 1 : 0;
      report << (literal ? " same order as R's optima" : " order of R's optima differs") << "\n";
    }
    report << same_as_optimum << " of " << best.size()
           << " lists in the order of R's optima; all in the order of R's best known maxima\n";
    qInfo().noquote() << QString::fromStdString(report.str());
    QVERIFY2(failures.str().empty(), failures.str().c_str());
  }

  // Two seasonal forms per seasonal series (one with drift), R's fitted parameters fixed, every
  // test row: our one-step forecasts (arima::originForecasts) are R's exact predictor
  // (anchors_r_exact.csv: the best linear predictor from the whole past, in R) within 1e-6
  // relative. R's Kalman filter (forecast::Arima(y, model = fit)) is reported beside it: on a
  // few forms with a seasonal MA root near the unit circle its start parts from the exact one and
  // the difference fades slowly; it must stay below 1e-2.
  void fixedParameterForecasts() {
    const auto table = agreement::readFixture(kRoot + "/tests/data/anchors_r_fixed.csv");
    std::map<std::string, double> exact;  // series|model|row → R's exact predictor
    for (const auto& row : agreement::readFixture(kRoot + "/tests/data/anchors_r_exact.csv").rows)
      exact[row.at("series") + "|" + row.at("model") + "|" + row.at("row")] =
          std::stod(row.at("forecast"));
    std::map<std::string, std::vector<const agreement::FixtureRow*>> groups;
    for (const auto& row : table.rows)
      groups[row.at("series") + "|" + row.at("model")].push_back(&row);
    QVERIFY(groups.size() >= 10);
    int with_drift = 0, within_kalman = 0;
    std::ostringstream report, failures;
    for (const auto& [key, rows] : groups) {
      const auto& first = *rows.front();
      const auto s = agreement::fixtureSeries(kRoot, first.at("series"));
      arima::Order order;
      QVERIFY2(agreement::parseArimaOrder(first.at("model"), s.period, order), key.c_str());
      const auto coef = agreement::coefficientsFromR(first.at("coef"), order);
      with_drift += order.constant && order.d + order.D == 1 ? 1 : 0;
      std::vector<int64_t> origins;
      for (const auto* row : rows) origins.push_back(std::stoll(row->at("row")) - 1);
      const auto ours = arima::originForecasts(order, coef, s.y, origins, 1);
      double to_exact = 0, to_kalman = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        const auto it = exact.find(key + "|" + rows[i]->at("row"));
        QVERIFY2(it != exact.end(), ("no exact predictor for " + key).c_str());
        const double kalman = std::stod(rows[i]->at("forecast"));
        to_exact = std::max(to_exact, std::abs(ours[i] - it->second) / std::abs(it->second));
        to_kalman = std::max(to_kalman, std::abs(ours[i] - kalman) / std::abs(kalman));
      }
      report << key << ": " << rows.size() << " test rows, largest relative gap to R's exact "
             << "predictor " << to_exact << ", to R's Kalman filter " << to_kalman << "\n";
      if (to_exact > 1e-6 || to_kalman > 1e-2) failures << key << "; ";
      within_kalman += to_kalman <= 1e-6 ? 1 : 0;
    }
    report << groups.size() << " forms within 1e-6 of R's exact predictor; " << within_kalman
           << " of them also of R's Kalman filter\n";
    qInfo().noquote() << QString::fromStdString(report.str());
    QVERIFY2(failures.str().empty(), failures.str().c_str());
    QVERIFY(with_drift >= 5);  // every seasonal series has its form with drift
  }

  // docs/REAL_SERIES.md's agreement block is the rendering of the fixture beside our anchors.
  void agreementBlockIsCurrent() {
    const std::string doc = agreement::readText(kRoot + "/docs/REAL_SERIES.md");
    const std::string block = rsalab::markedBlockIn(doc, agreement::kBlockBegin,
                                                    agreement::kBlockEnd, "docs/REAL_SERIES.md");
    const std::string rendered = agreement::renderBlock(agreement::measure(kRoot));
    if (std::getenv("RSALAB_WRITE_DOCS")) {
      std::ofstream(kRoot + "/docs/REAL_SERIES.md", std::ios::binary) << rsalab::replaceMarkedBlock(
          doc, rendered, agreement::kBlockBegin, agreement::kBlockEnd, "docs/REAL_SERIES.md");
      qInfo("wrote the agreement block into docs/REAL_SERIES.md");
      return;
    }
    QVERIFY2(block == rendered,
             "docs/REAL_SERIES.md's anchors-vs-r block is not current: rerun "
             "with RSALAB_WRITE_DOCS=1");
  }
};

RSALAB_REGISTER_TEST(TestAnchorsR, QTEST_GUILESS_MAIN)
#include "test_anchors_r.moc"
