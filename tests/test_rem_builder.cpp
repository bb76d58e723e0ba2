// SPDX-License-Identifier: GPL-3.0-or-later
// RemBuilder: the bidirectional form's exact symmetry, NaN-free values and gradients at λ = 0 and
// λ < 0, the head assignment, the initialisation and the inference cache. (The closed form
// against the literal double loops: the self-test's rem checks, tests/test_selftest.cpp.)
#include <cmath>

#include "engine/models/rem_builder.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

// A float64 builder whose heads have exactly the given base (λ or γ) and θ.
RemBuilder makeBuilder(const std::vector<RemHeadSpec>& specs, const std::vector<double>& bases,
                       const std::vector<double>& thetas, bool causal) {
  RemBuilder b(specs, RemInit{}, causal);
  b->to(torch::kFloat64);
  torch::NoGradGuard no_grad;
  int64_t r = 0, c = 0;
  for (size_t h = 0; h < specs.size(); ++h) {
    if (specs[h].kind == RemKind::Regular) {
      b->eta[r++] = std::atanh(bases[h]);
    } else {
      b->nu[c] = std::log(bases[h] / (1 - bases[h]));
      b->theta_raw[c++] = thetas[h];
    }
  }
  return b;
}

}  // namespace

class TestRemBuilder : public QObject {
  Q_OBJECT
 private slots:
  void bidirectionalIsExactlySymmetricWithZeroDiagonal() {
    std::vector<RemHeadSpec> specs = {{RemKind::Regular, 1}, {RemKind::Cos, 2}, {RemKind::Sin, 1}};
    auto b = makeBuilder(specs, {-0.6, 0.9, 0.8}, {0, 0.7, 0.3}, false);
    torch::NoGradGuard no_grad;
    auto P = b->build(11);
    QVERIFY(torch::equal(P, P.transpose(1, 2)));
    QVERIFY(torch::equal(P.diagonal(0, 1, 2), torch::zeros({3, 11}, P.options())));
  }
  void zeroAndNegativeBaseGiveNoNaNInValuesOrGradients() {
    std::vector<RemHeadSpec> specs = {
        {RemKind::Regular, 1}, {RemKind::Regular, 2}, {RemKind::Cos, 1}};
    RemBuilder b(specs, RemInit{}, true);
    {
      torch::NoGradGuard no_grad;
      b->eta[0] = 0.0;   // λ = 0
      b->eta[1] = -3.0;  // λ ≈ −0.995
    }
    auto P = b->build(int64_t{40});
    P.sum().backward();
    QVERIFY(!P.isnan().any().item<bool>());
    QVERIFY(!b->eta.grad().isnan().any().item<bool>());
    QVERIFY(!b->nu.grad().isnan().any().item<bool>());
    QVERIFY(!b->theta_raw.grad().isnan().any().item<bool>());
  }
  void headAssignmentFollowsCountOrderAndCyclesDilations() {
    RemHeadCounts c;
    c.regular = 1;
    c.cos = 1;
    c.sin = 0;
    c.dilated_regular = 2;
    c.dilated_cos = 1;
    c.dilated_sin = 0;
    auto specs = assignRemHeads(c, {2, 5});
    QCOMPARE(specs.size(), size_t{5});
    QVERIFY(specs[0].kind == RemKind::Regular && specs[0].dilation == 1);
    QVERIFY(specs[1].kind == RemKind::Cos && specs[1].dilation == 1);
    QVERIFY(specs[2].kind == RemKind::Regular && specs[2].dilation == 2);
    QVERIFY(specs[3].kind == RemKind::Regular && specs[3].dilation == 5);
    QVERIFY(specs[4].kind == RemKind::Cos && specs[4].dilation == 2);
  }
  void defaultInitFollowsSpec() {
    torch::manual_seed(3);
    RemHeadCounts c;
    c.regular = 4;
    c.cos = 2;
    c.sin = 1;
    RemBuilder b(assignRemHeads(c, {}), RemInit{}, true);
    auto eta = b->eta.abs();
    QVERIFY((eta >= 1).all().item<bool>() && (eta <= 2).all().item<bool>());
    QVERIFY((b->nu >= 1).all().item<bool>() && (b->nu <= 2).all().item<bool>());
    QVERIFY(std::abs(b->theta_raw[0].item<double>() - M_PI / 2) < 1e-6);  // π/(k+1), k = 1
    QVERIFY(std::abs(b->theta_raw[1].item<double>() - M_PI / 3) < 1e-6);
  }
  void inferenceCacheIsReusedAndInvalidatedByUpdates() {
    RemHeadCounts c;
    RemBuilder b(assignRemHeads(c, {}), RemInit{}, true);
    torch::NoGradGuard no_grad;
    auto first = b->build(int64_t{8});
    auto again = b->build(int64_t{8});
    QVERIFY(first.data_ptr() == again.data_ptr());
    b->eta.add_(0.1);  // an optimiser step
    auto changed = b->build(int64_t{8});
    QVERIFY(!torch::equal(changed, first));
    QVERIFY(test::checkClose(changed, b->build(lagMatrix(8, torch::kCPU)), 0, "rebuilt"));
  }
};

RSALAB_TEST_MAIN(TestRemBuilder)
#include "test_rem_builder.moc"
