// SPDX-License-Identifier: GPL-3.0-or-later
// The raw loops of engine/kernels/ that the kernel tests reach only through a kernel, each
// against its literal form (std::exp, std::tanh, written-out loops), in float and double:
// fast_exp.h, softmax_rows.h, toeplitz_rem_kernels.h, row_gemm.h, fused_recurrent_kernels.h.
// (The kernels themselves: test_blocked_attention, test_starsaber_blocked,
// test_fused_linear_attention, test_fused_recurrent, test_blocked_attention_plan.)
#include <cmath>
#include <random>
#include <vector>

#include "engine/kernels/fast_exp.h"
#include "engine/kernels/fused_recurrent_kernels.h"
#include "engine/kernels/row_gemm.h"
#include "engine/kernels/softmax_rows.h"
#include "engine/kernels/toeplitz_rem_kernels.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

template <class S>
std::vector<S> randomValues(size_t n, unsigned seed, double lo = -2, double hi = 2) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<S> v(n);
  for (auto& x : v) x = static_cast<S>(dist(gen));
  return v;
}

// max_i |a_i − b_i| ≤ tol, printing the first offender.
template <class S, class R>
bool close(const std::vector<S>& actual, const std::vector<R>& expected, double tol,
           const char* what) {
  if (actual.size() != expected.size()) return false;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = static_cast<double>(actual[i]), e = static_cast<double>(expected[i]);
    if (!(std::abs(a - e) <= tol)) {
      std::fprintf(stderr, "%s: [%zu] actual %.12g expected %.12g (tol %.3g)\n", what, i, a, e,
                   tol);
      return false;
    }
  }
  return true;
}

template <class S>
constexpr double tolerance() {
  return std::is_same<S, float>::value ? 2e-6 : 1e-13;
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// Row i's key limit in softmax_rows (all keys, or causal_first + i + 1 of them).
int64_t limitOf(int64_t i, int64_t keys, int64_t causal_first) {
  return causal_first < 0 ? keys : std::min(keys, causal_first + i + 1);
}

template <class S>
void checkSoftmaxRows() {
  const int64_t rows = 7, keys = 37;  // odd sizes: the vector loops' tails run
  for (int64_t causal_first : {int64_t{-1}, int64_t{0}, int64_t{12}}) {
    const auto scores = randomValues<S>(static_cast<size_t>(rows * keys), 1, -6, 6);
    // Literal softmax over each row's first limit(i) keys, 0 after.
    std::vector<double> expected(scores.size(), 0.0), max(rows), inv(rows);
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t n = limitOf(i, keys, causal_first);
      double m = -INFINITY, sum = 0;
      for (int64_t j = 0; j < n; ++j) m = std::max(m, double(scores[size_t(i * keys + j)]));
      for (int64_t j = 0; j < n; ++j) sum += std::exp(double(scores[size_t(i * keys + j)]) - m);
      for (int64_t j = 0; j < n; ++j) {
        expected[size_t(i * keys + j)] = std::exp(double(scores[size_t(i * keys + j)]) - m) / sum;
      }
      max[size_t(i)] = m;
      inv[size_t(i)] = 1 / sum;
    }
    auto s = scores;
    std::vector<S> stats(static_cast<size_t>(2 * rows));
    softmax_rows::softmax(s.data(), rows, keys, causal_first, stats.data(), /*normalise=*/true);
    QVERIFY(close(s, expected, tolerance<S>(), "softmax"));
    for (int64_t i = 0; i < rows; ++i) {
      QCOMPARE(double(stats[size_t(2 * i)]), double(S(max[size_t(i)])));
      QVERIFY(std::abs(stats[size_t(2 * i + 1)] - inv[size_t(i)]) <=
              tolerance<S>() * inv[size_t(i)]);
    }
    // Unnormalised, then scaleRows: the same weights.
    auto u = scores;
    softmax_rows::softmax(u.data(), rows, keys, causal_first, stats.data(), /*normalise=*/false);
    softmax_rows::scaleRows(u.data(), rows, keys, stats.data());
    QVERIFY(close(u, expected, tolerance<S>(), "softmax unnormalised, scaleRows"));
    // Recomputed from the statistics.
    auto w = scores;
    softmax_rows::weights(w.data(), rows, keys, causal_first, stats.data());
    QVERIFY(close(w, expected, tolerance<S>(), "weights"));
    // rowDots and scoreGrads against their sums written out.
    const auto d0 = randomValues<S>(scores.size(), 2);
    std::vector<S> dots(static_cast<size_t>(rows));
    softmax_rows::rowDots(d0.data(), w.data(), rows, keys, causal_first, dots.data());
    std::vector<double> dots_expected(size_t(rows), 0.0), grads_expected(scores.size(), 0.0);
    const double factor = 0.37;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t n = limitOf(i, keys, causal_first);
      for (int64_t j = 0; j < n; ++j) {
        dots_expected[size_t(i)] += double(d0[size_t(i * keys + j)]) * w[size_t(i * keys + j)];
      }
      for (int64_t j = 0; j < n; ++j) {
        const size_t at = size_t(i * keys + j);
        grads_expected[at] = factor * (double(d0[at]) - double(dots[size_t(i)])) * w[at];
      }
    }
    QVERIFY(close(dots, dots_expected, 10 * tolerance<S>(), "rowDots"));
    auto d = d0;
    softmax_rows::scoreGrads(d.data(), w.data(), rows, keys, causal_first, dots.data(), S(factor));
    QVERIFY(close(d, grads_expected, 10 * tolerance<S>(), "scoreGrads"));
  }
}

template <class S>
void checkToeplitz() {
  const int64_t T = 11, rows = 4, keys = 9, r0 = 5;  // a block of rows 5..8 over keys 0..8
  const int64_t first = T - 1 - r0;
  const auto e = randomValues<S>(size_t(2 * T - 1), 3);
  const auto w0 = randomValues<S>(size_t(rows * keys), 4);
  const double g = 0.3;
  auto w = w0;
  toeplitz::mixInto(w.data(), rows, keys, e.data(), first, g);
  std::vector<double> expected(w.size());
  std::vector<double> sums_expected(e.size(), 0.0);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < keys; ++j) {
      const size_t at = size_t(i * keys + j), diag = size_t(T - 1 - (r0 + i) + j);  // P[r0+i, j]
      expected[at] = (1 - g) * double(w0[at]) + g * double(e[diag]);
      sums_expected[diag] += double(w0[at]);
    }
  }
  QVERIFY(close(w, expected, tolerance<S>(), "mixInto"));
  std::vector<double> sums(e.size(), 0.0);
  toeplitz::addDiagonals(w0.data(), rows, keys, sums.data(), first);
  QVERIFY(close(sums, sums_expected, 1e-12, "addDiagonals"));
}

template <class S>
void checkRowMajorGemm() {
  const int64_t m = 5, n = 7, k = 3;
  for (bool direct : {true, false}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (S beta : {S(0), S(1)}) {
          // Stored with padded row strides, so that lda/ldb/ldc are exercised.
          const int64_t lda = (ta ? m : k) + 2, ldb = (tb ? k : n) + 1, ldc = n + 3;
          const auto a = randomValues<S>(size_t((ta ? k : m) * lda), 5);
          const auto b = randomValues<S>(size_t((tb ? n : k) * ldb), 6);
          const auto c0 = randomValues<S>(size_t(m * ldc), 7);
          auto c = c0;
          rowMajorGemm<S>(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, beta, c.data(), ldc,
                          direct);
          std::vector<double> expected(c0.begin(), c0.end());
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              double sum = 0;
              for (int64_t p = 0; p < k; ++p) {
                const double av = ta ? a[size_t(p * lda + i)] : a[size_t(i * lda + p)];
                const double bv = tb ? b[size_t(j * ldb + p)] : b[size_t(p * ldb + j)];
                sum += av * bv;
              }
              expected[size_t(i * ldc + j)] = sum + double(beta) * c0[size_t(i * ldc + j)];
            }
          }
          QVERIFY(close(c, expected, 10 * tolerance<S>(), "rowMajorGemm"));
        }
      }
    }
  }
}

template <class S>
void checkRecurrentGates() {
  const int64_t B = 3, H = 5;
  const double tol = std::is_same<S, float>::value ? 2e-6 : 1e-12;
  // LSTM forward: i, f, o = σ(a), g = tanh(a); c = f⊙c_prev + i⊙g; h = o⊙tanh c.
  const auto a = randomValues<S>(size_t(B * 4 * H), 8, -4, 4);
  const auto c_prev = randomValues<S>(size_t(B * H), 9);
  auto gates = a;
  std::vector<S> c(static_cast<size_t>(B * H)), tanh_c(static_cast<size_t>(B * H)),
      h(static_cast<size_t>(B * H));
  recurrent::lstmForward(gates.data(), c_prev.data(), c.data(), tanh_c.data(), h.data(), B, H);
  std::vector<double> gates_e(a.size()), c_e(c.size()), h_e(h.size());
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t j = 0; j < H; ++j) {
      auto at = [&](int64_t block) { return size_t(b * 4 * H + block * H + j); };
      const double i = sigmoid(a[at(0)]), f = sigmoid(a[at(1)]), g = std::tanh(double(a[at(2)]));
      const double o = sigmoid(a[at(3)]);
      gates_e[at(0)] = i, gates_e[at(1)] = f, gates_e[at(2)] = g, gates_e[at(3)] = o;
      const size_t s = size_t(b * H + j);
      c_e[s] = f * c_prev[s] + i * g;
      h_e[s] = o * std::tanh(c_e[s]);
    }
  }
  QVERIFY(close(gates, gates_e, tol, "lstmForward gates"));
  QVERIFY(close(c, c_e, tol, "lstmForward c"));
  QVERIFY(close(h, h_e, tol, "lstmForward h"));
  // LSTM backward: the chain rule through the same equations.
  const auto dh_out = randomValues<S>(h.size(), 10), dh_rec = randomValues<S>(h.size(), 11);
  const auto dc_next = randomValues<S>(h.size(), 12);
  auto dc = dc_next;
  std::vector<S> dgates(a.size());
  recurrent::lstmBackward(gates.data(), c_prev.data(), tanh_c.data(), dh_out.data(), dh_rec.data(),
                          dc.data(), dgates.data(), B, H);
  std::vector<double> dgates_e(a.size()), dc_e(h.size());
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t j = 0; j < H; ++j) {
      auto at = [&](int64_t block) { return size_t(b * 4 * H + block * H + j); };
      const size_t s = size_t(b * H + j);
      const double i = gates_e[at(0)], f = gates_e[at(1)], g = gates_e[at(2)], o = gates_e[at(3)];
      const double tc = std::tanh(c_e[s]), dh = double(dh_out[s]) + dh_rec[s];
      const double dcv = dc_next[s] + dh * o * (1 - tc * tc);
      dgates_e[at(0)] = dcv * g * i * (1 - i);
      dgates_e[at(1)] = dcv * c_prev[s] * f * (1 - f);
      dgates_e[at(2)] = dcv * i * (1 - g * g);
      dgates_e[at(3)] = dh * tc * o * (1 - o);
      dc_e[s] = dcv * f;
    }
  }
  QVERIFY(close(dgates, dgates_e, 10 * tol, "lstmBackward dgates"));
  QVERIFY(close(dc, dc_e, 10 * tol, "lstmBackward dc"));
  // GRU forward: r, z = σ(x + hw + b_hh), hn = hw_n + b_hn, n = tanh(x_n + r⊙hn),
  // h = (1 − z)⊙n + z⊙h_prev.
  const auto x = randomValues<S>(size_t(B * 3 * H), 13), hw = randomValues<S>(x.size(), 14);
  const auto b_hh = randomValues<S>(size_t(3 * H), 15);
  const auto h_prev = randomValues<S>(size_t(B * H), 16);
  auto ggates = x;
  std::vector<S> hn(static_cast<size_t>(B * H)), gh(static_cast<size_t>(B * H));
  recurrent::gruForward(ggates.data(), hw.data(), b_hh.data(), h_prev.data(), hn.data(), gh.data(),
                        B, H);
  std::vector<double> ggates_e(x.size()), hn_e(hn.size()), gh_e(gh.size());
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t j = 0; j < H; ++j) {
      auto at = [&](int64_t block) { return size_t(b * 3 * H + block * H + j); };
      const size_t s = size_t(b * H + j);
      const double r = sigmoid(double(x[at(0)]) + hw[at(0)] + b_hh[size_t(j)]);
      const double z = sigmoid(double(x[at(1)]) + hw[at(1)] + b_hh[size_t(H + j)]);
      hn_e[s] = double(hw[at(2)]) + b_hh[size_t(2 * H + j)];
      const double n = std::tanh(double(x[at(2)]) + r * hn_e[s]);
      ggates_e[at(0)] = r, ggates_e[at(1)] = z, ggates_e[at(2)] = n;
      gh_e[s] = (1 - z) * n + z * h_prev[s];
    }
  }
  QVERIFY(close(ggates, ggates_e, tol, "gruForward gates"));
  QVERIFY(close(hn, hn_e, tol, "gruForward hn"));
  QVERIFY(close(gh, gh_e, tol, "gruForward h"));
  std::vector<S> dgi(x.size()), dgh(x.size()), dh_direct(h_prev.size());
  recurrent::gruBackward(ggates.data(), hn.data(), h_prev.data(), dh_out.data(), dh_rec.data(),
                         dgi.data(), dgh.data(), dh_direct.data(), B, H);
  std::vector<double> dgi_e(x.size()), dgh_e(x.size()), dd_e(h_prev.size());
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t j = 0; j < H; ++j) {
      auto at = [&](int64_t block) { return size_t(b * 3 * H + block * H + j); };
      const size_t s = size_t(b * H + j);
      const double r = ggates_e[at(0)], z = ggates_e[at(1)], n = ggates_e[at(2)];
      const double dh = double(dh_out[s]) + dh_rec[s];
      const double dan = dh * (1 - z) * (1 - n * n);
      const double dar = dan * hn_e[s] * r * (1 - r);
      const double daz = dh * (h_prev[s] - n) * z * (1 - z);
      dgi_e[at(0)] = dgh_e[at(0)] = dar;
      dgi_e[at(1)] = dgh_e[at(1)] = daz;
      dgi_e[at(2)] = dan;
      dgh_e[at(2)] = dan * r;
      dd_e[s] = dh * z;
    }
  }
  QVERIFY(close(dgi, dgi_e, 10 * tol, "gruBackward dgi"));
  QVERIFY(close(dgh, dgh_e, 10 * tol, "gruBackward dgh"));
  QVERIFY(close(dh_direct, dd_e, 10 * tol, "gruBackward dh_direct"));
  // RNN: h = tanh(a); da = dh⊙(1 − h²).
  auto ra = a;
  recurrent::rnnForward(ra.data(), int64_t(ra.size()));
  std::vector<double> ra_e(a.size());
  for (size_t s = 0; s < a.size(); ++s) ra_e[s] = std::tanh(double(a[s]));
  QVERIFY(close(ra, ra_e, tol, "rnnForward"));
  std::vector<S> da(h.size());
  recurrent::rnnBackward(ra.data(), dh_out.data(), dh_rec.data(), da.data(), int64_t(h.size()));
  std::vector<double> da_e(h.size());
  for (size_t s = 0; s < h.size(); ++s) {
    da_e[s] = (double(dh_out[s]) + dh_rec[s]) * (1 - double(ra[s]) * ra[s]);
  }
  QVERIFY(close(da, da_e, 10 * tol, "rnnBackward"));
}

}  // namespace

class TestKernelLoops : public QObject {
  Q_OBJECT

 private slots:
  // The polynomial exp against std::exp: relative error within the header's bounds, and the
  // saturation at the clamps.
  void fastExpMatchesStdExp() {
    double worst_f = 0, worst_d = 0;
    for (int n = -8000; n <= 8000; ++n) {
      const double x = n * 0.01;  // −80 … 80
      const double ef = std::exp(double(float(x)));
      worst_f = std::max(worst_f, std::abs(fastmath::expFast(float(x)) - ef) / ef);
      worst_d = std::max(worst_d, std::abs(fastmath::expFast(x) - std::exp(x)) / std::exp(x));
    }
    QVERIFY2(worst_f < 4e-7, std::to_string(worst_f).c_str());
    QVERIFY2(worst_d < 1e-15, std::to_string(worst_d).c_str());
    QVERIFY(std::isfinite(fastmath::expFast(1000.0f)) && fastmath::expFast(-1000.0f) >= 0);
    QVERIFY(std::isfinite(fastmath::expFast(1e4)) && fastmath::expFast(-1e4) >= 0);
  }
  // The blocked attention's row loops: softmax (normalised or not, full or causal rows),
  // the weights recomputed from the statistics, rowDots, scoreGrads and scaleRows.
  void softmaxRowsMatchLiteralLoops() {
    checkSoftmaxRows<float>();
    checkSoftmaxRows<double>();
  }
  // RSA's REM loops: the gated mix of a Toeplitz block and its per-diagonal sums.
  void toeplitzRemLoopsMatchLiteralLoops() {
    checkToeplitz<float>();
    checkToeplitz<double>();
  }
  // The row-major gemm (BLAS directly and through LibTorch) against the triple loop, every
  // transpose, β = 0 and 1, padded strides.
  void rowMajorGemmMatchesTripleLoop() {
    checkRowMajorGemm<float>();
    checkRowMajorGemm<double>();
  }
  // The fused recurrent layers' gate loops against PyTorch's equations with std::exp/std::tanh.
  void recurrentGateLoopsMatchLiteralEquations() {
    checkRecurrentGates<float>();
    checkRecurrentGates<double>();
  }
};

RSALAB_TEST_MAIN(TestKernelLoops)
#include "test_kernel_loops.moc"
