// SPDX-License-Identifier: GPL-3.0-or-later
// The anchors against R form by form (core library only), on the records scripts/anchors-r.R
// writes (tests/data/anchors_r_forms.csv, anchors_r_fixed.csv) for the six bundled series and the
// four it adds (tests/data/r_series/):
//   * at R's fitted parameters our likelihood is R's, |Δ loglik| ≤ 0.05 + 1e-3 |loglik|, and our
//     AICc is R's; our own fit of the same fixed ETS form or ARIMA order reaches R's maximised
//     log-likelihood (no lower by more than that tolerance; higher is reported);
//   * over R's three best forms (ETS) and orders (ARIMA) by AICc, our AICc ranks them the same
//     (at R's parameters always; for our fits where they reach R's optimum);
//   * two seasonal ARIMA forms (one with drift) with R's fitted parameters fixed give R's one-step
//     forecasts of every test row within 1e-6 relative, or, where R's start of the filter parts
//     from the exact one, the exact predictor in its materialised form;
//   * docs/REAL_SERIES.md's anchors-vs-r block is the agreement table measured now.
// Likelihood conventions. ETS: R reports −½ (n log Σε² + 2 Σ log|r_t|) (no 2π, no n, Σε² not
// divided by n); ours is the full −½ (n log(2π σ̂²) + n + 2 Σ log|r_t|), σ̂² = Σε²/n, so ours =
// R's − ½ n (log(2π/n) + 1): R's figure is converted before the comparison. ARIMA: both are the
// full Gaussian log-likelihood of the differenced series with the constants (R's stats::arima,
// ours arma::Likelihood), compared as they are.
#include <Eigen/Dense>
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
      const auto at = arima::evaluate(w, order, agreement::coefficientsFromR(r.coef, order));
      out.loglik_at_r = -0.5 * at.neg2_loglik, out.aicc_at_r = at.aicc;
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

// R's log-likelihood and AICc in our convention.
double rLoglik(const Record& r) { return isEts(r) ? r.loglik - 0.5 * etsConstant(r.n) : r.loglik; }
double rAicc(const Record& r) { return isEts(r) ? r.aicc + etsConstant(r.n) : r.aicc; }
double allowed(double loglik) { return 0.05 + 1e-3 * std::abs(loglik); }
// A fit this much above R's log-likelihood found a higher optimum than R's optimiser did.
constexpr double kSameOptimum = 0.01;

// Our fits of every distinct (series, form) of the records, once.
const Ours& oursFor(const Record& r) {
  static std::map<std::string, Ours> cache;
  const std::string key = r.series + "|" + r.model;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, fitOurs(r)).first;
  return it->second;
}

// The exact one-step predictions, materialised: the differenced series w (less its mean) is
// Gaussian with the Toeplitz covariance Γ of the ARMA's autocovariances, so the forecast of w_t
// from w_0 … w_{t−1} is γ' Γ⁻¹ w (one dense solve per target, Eigen); each is summed back
// through the differencing polynomial.
std::vector<double> materialisedForecasts(const arima::Order& order, const arima::Coefficients& c,
                                          const std::vector<double>& y,
                                          const std::vector<int64_t>& origins) {
  const auto delta = arima::differencingPolynomial(order.d, order.D, order.m);
  const auto K = static_cast<int64_t>(delta.size()) - 1;
  std::vector<double> w = arima::difference(y, order.d, order.D, order.m);
  for (double& v : w) v -= c.mean;
  const auto n = static_cast<int64_t>(w.size());
  const auto gamma = arma::autocovariances(arima::expand(c, order.m), n);
  std::vector<double> out;
  for (int64_t o : origins) {
    const int64_t t = o + 1, i = t - K;  // the target row of y and its row of w
    Eigen::MatrixXd G(i, i);
    Eigen::VectorXd g(i), past(i);
    for (int64_t a = 0; a < i; ++a) {
      for (int64_t b = 0; b < i; ++b) G(a, b) = gamma[static_cast<size_t>(std::abs(a - b))];
      g(a) = gamma[static_cast<size_t>(i - a)];
      past(a) = w[static_cast<size_t>(a)];
    }
    double f = g.dot(G.ldlt().solve(past)) + c.mean;
    for (int64_t k = 1; k <= K; ++k)
      f -= delta[static_cast<size_t>(k)] * y[static_cast<size_t>(t - k)];
    out.push_back(f);
  }
  return out;
}

}  // namespace

class TestAnchorsR : public QObject {
  Q_OBJECT

 private slots:
  // Two checks per record. At R's parameters our likelihood is R's (the same function, the same
  // convention): |Δ| within the tolerance, both ways. Our own fit of the form reaches R's maximum:
  // no lower than R's by more than the tolerance (higher is reported: R's optimiser stopped
  // short of ours).
  void sameFormLikelihood() {
    const auto records = formRecords();
    QVERIFY(records.size() >= 8 * 8);
    std::ostringstream report, failures;
    int higher = 0;
    for (const auto& r : records) {
      const Ours& o = oursFor(r);
      const double theirs = rLoglik(r), tol = allowed(theirs);
      const double at_r = o.loglik_at_r - theirs, fitted = o.loglik - theirs;
      const bool same_function = o.error.empty() && std::abs(at_r) <= tol;
      const bool reaches = o.error.empty() && fitted >= -tol;
      higher += fitted > tol ? 1 : 0;
      report << r.series << " " << r.kind << " " << r.rank << " " << r.model << ": R " << theirs
             << "; at R's parameters Δ " << at_r << "; our fit Δ " << fitted << " (tolerance "
             << tol << ")" << (o.error.empty() ? "" : " error: " + o.error)
             << (same_function ? "" : "  <- likelihood differs")
             << (reaches ? "" : "  <- our fit is lower") << (fitted > tol ? "  (ours higher)" : "")
             << "\n";
      if (!same_function || !reaches) failures << r.series << " " << r.model << "; ";
    }
    report << higher << " of " << records.size() << " records: our fit higher than R's by more "
           << "than the tolerance\n";
    qInfo().noquote() << QString::fromStdString(report.str());
    QVERIFY2(failures.str().empty(), failures.str().c_str());
  }

  // Over R's three best forms: at R's parameters our AICc (the same parameter count) is R's and
  // ranks them as R does; our fitted AICc ranks them as R does wherever our three fits reach R's
  // optimum (within the likelihood tolerance, and no more than kSameOptimum above it). Where one
  // of ours is higher, R's AICc of that form is not its minimum and the order may move: reported.
  void aiccOrderOfRsThreeBest() {
    std::map<std::string, std::vector<Record>> best;  // series|kind → ranks 1..3
    for (const auto& r : formRecords())
      if (r.kind == "ets_top" || r.kind == "arima_top") best[r.series + "|" + r.kind].push_back(r);
    QVERIFY(best.size() >= 16);
    std::ostringstream report, failures;
    for (auto& [key, top] : best) {
      std::sort(top.begin(), top.end(),
                [](const Record& a, const Record& b) { return a.rank < b.rank; });
      std::vector<double> fitted, at_r;
      bool agree = true;
      report << key << ":";
      for (const auto& r : top) {
        const Ours& o = oursFor(r);
        fitted.push_back(o.aicc), at_r.push_back(o.aicc_at_r);
        agree = agree && std::abs(o.loglik - rLoglik(r)) <= allowed(rLoglik(r)) &&
                o.loglik - rLoglik(r) <= kSameOptimum;
        if (std::abs(o.aicc_at_r - rAicc(r)) > 2 * allowed(rLoglik(r)))
          failures << key << " " << r.model << " AICc at R's parameters " << o.aicc_at_r
                   << " vs R's " << rAicc(r) << "; ";
        report << " " << r.model << " R " << rAicc(r) << ", ours at R's " << o.aicc_at_r
               << ", our fit " << o.aicc << ";";
      }
      auto ordered = [](const std::vector<double>& v) {
        for (size_t i = 1; i < v.size(); ++i)
          if (!(v[i - 1] <= v[i])) return false;
        return true;
      };
      if (!ordered(at_r)) failures << key << " (at R's parameters); ";
      const bool same = ordered(fitted);
      if (agree && !same) failures << key << " (our fits); ";
      report << (same    ? " same order"
                 : agree ? "  <- order differs"
                         : " order differs: one of our fits is higher than R's")
             << "\n";
    }
    qInfo().noquote() << QString::fromStdString(report.str());
    QVERIFY2(failures.str().empty(), failures.str().c_str());
  }

  // R's one-step forecasts with the parameters fixed (forecast::Arima(y, model = fit)) against
  // ours (arima::originForecasts) on every test row: within 1e-6 relative. Ours are also checked
  // against the exact predictor in its materialised form (materialisedForecasts); where R's
  // figures and ours part by more than 1e-6, ours must equal that one within 1e-9 and R's gap
  // stay below 1e-2 (reported: R's start of the filter then differs from the exact one, and the
  // difference fades slowly when a seasonal MA root is near the unit circle on a short series).
  void fixedParameterForecasts() {
    const auto table = agreement::readFixture(kRoot + "/tests/data/anchors_r_fixed.csv");
    std::map<std::string, std::vector<const agreement::FixtureRow*>> groups;
    for (const auto& row : table.rows)
      groups[row.at("series") + "|" + row.at("model")].push_back(&row);
    QVERIFY(groups.size() >= 10);
    int with_drift = 0, within = 0;
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
      double worst = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        const double r = std::stod(rows[i]->at("forecast"));
        worst = std::max(worst, std::abs(ours[i] - r) / std::abs(r));
      }
      report << key << ": " << rows.size() << " test rows, largest relative gap to R " << worst;
      const auto exact = materialisedForecasts(order, coef, s.y, origins);
      double gap = 0;
      for (size_t i = 0; i < ours.size(); ++i)
        gap = std::max(gap, std::abs(ours[i] - exact[i]) / std::abs(exact[i]));
      report << ", to the materialised predictor " << gap;
      if (gap > 1e-9 || worst > 1e-2) failures << key << "; ";
      within += worst <= 1e-6 ? 1 : 0;
      report << "\n";
    }
    report << within << " of " << groups.size() << " forms within 1e-6 of R\n";
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
