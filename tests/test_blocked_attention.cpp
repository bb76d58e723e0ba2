// SPDX-License-Identifier: GPL-3.0-or-later
// The blocked attention kernel (softmax, and RSA with REMs mixed into its blocks) against the
// materialised form written out with plain LibTorch ops, in float64: the output and the gradients
// of q, k, v, the REM diagonals and the gates; with a score bias (ALiBi's slopes, FoX's positions
// c, whose gradient dc is checked too) against softmax(q kᵀ·scale + b + mask)·v, b by literal
// loops. Block sizes are chosen so that rows split into several blocks (T not a multiple of the
// rows) and so that a block's group of heads mixes REM and plain heads. The RSA module's fast path
// is compared with its own materialised path too.
#include "engine/kernels/blocked_attention.h"
#include "engine/models/alibi.h"
#include "engine/models/rsa_attention.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

// P_h[i, j] = e[h, T − 1 − i + j], by a literal loop: (R, T, T).
torch::Tensor toeplitzFromDiagonals(const torch::Tensor& e, int64_t T) {
  std::vector<torch::Tensor> heads;
  for (int64_t h = 0; h < e.size(0); ++h) {
    std::vector<torch::Tensor> rows;
    for (int64_t i = 0; i < T; ++i) rows.push_back(e[h].narrow(0, T - 1 - i, T));  // j = 0..T−1
    heads.push_back(torch::stack(rows));
  }
  return torch::stack(heads);
}

// ((1 − g)·softmax(q kᵀ·scale + mask) + g·P)·v for heads h < R, softmax·v for the others.
torch::Tensor materialised(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                           double scale, bool causal, const torch::Tensor& e,
                           const torch::Tensor& gates) {
  const int64_t H = q.size(1), T = q.size(2), R = gates.numel();
  auto s = torch::matmul(q, k.transpose(-2, -1)) * scale;  // (B, H, T, T)
  if (causal) s = s.masked_fill(torch::ones({T, T}, torch::kBool).triu(1), -INFINITY);
  auto a = torch::softmax(s, -1);
  if (R > 0) {
    auto P = toeplitzFromDiagonals(e, T);  // (R, T, T)
    if (causal) P = P.tril();
    auto g = gates.view({1, R, 1, 1});
    auto mixed = (1 - g) * a.narrow(1, 0, R) + g * P.unsqueeze(0);
    a = torch::cat({mixed, a.narrow(1, R, H - R)}, 1);
  }
  return torch::matmul(a, v);
}

// b (H or B·H, T, T) by literal loops: −m_h·(i − j) from slopes (H), or c_i − c_j from c (B, H, T).
torch::Tensor literalBias(const torch::Tensor& slopes, const torch::Tensor& c, int64_t T) {
  std::vector<torch::Tensor> heads;
  const int64_t n = slopes.defined() ? slopes.size(0) : c.size(0) * c.size(1);
  for (int64_t h = 0; h < n; ++h) {
    std::vector<torch::Tensor> rows;
    for (int64_t i = 0; i < T; ++i) {
      std::vector<torch::Tensor> row;
      for (int64_t j = 0; j < T; ++j)
        row.push_back(slopes.defined() ? -slopes[h] * static_cast<double>(i - j)
                                       : c.view({n, T})[h][i] - c.view({n, T})[h][j]);
      rows.push_back(torch::stack(row));
    }
    heads.push_back(torch::stack(rows));
  }
  auto b = torch::stack(heads);  // (n, T, T)
  return slopes.defined() ? b.unsqueeze(0) : b.view({c.size(0), c.size(1), T, T});
}

}  // namespace

class TestBlockedAttention : public QObject {
  Q_OBJECT
 private slots:
  void matchesMaterialisedFormAndGradients_data() {
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("rems");
    QTest::addColumn<qlonglong>("blockValues");
    QTest::addColumn<qlonglong>("length");
    // T = 37, H = 5: 64 values -> blocks of 16, 16, 5 rows, one head each; 4·37·37 -> all rows,
    // 4 heads per block (REM and plain heads in one group). T = 7 < 16: one block of all rows.
    for (bool causal : {true, false}) {
      const std::string c = causal ? "causal" : "bidirectional";
      QTest::newRow((c + " softmax, row blocks").c_str()) << causal << 0 << 64LL << 37LL;
      QTest::newRow((c + " rsa, row blocks").c_str()) << causal << 3 << 64LL << 37LL;
      QTest::newRow((c + " rsa, head groups").c_str()) << causal << 3 << 4LL * 37 * 37 << 37LL;
      QTest::newRow((c + " rsa, all heads").c_str()) << causal << 5 << 64LL << 37LL;
      QTest::newRow((c + " softmax, T = 7").c_str()) << causal << 0 << 64LL << 7LL;
      QTest::newRow((c + " rsa, T = 7").c_str()) << causal << 3 << 64LL << 7LL;
      QTest::newRow((c + " rsa, T = 7, default blocks").c_str())
          << causal << 3 << qlonglong{kAttentionBlockValues} << 7LL;
    }
  }
  void matchesMaterialisedFormAndGradients() {
    QFETCH(bool, causal);
    QFETCH(int, rems);
    QFETCH(qlonglong, blockValues);
    QFETCH(qlonglong, length);
    torch::manual_seed(5);
    const int64_t B = 2, H = 5, T = length, Dh = 4, R = rems;
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({B, H, T, Dh}, f64).requires_grad_();
    auto k = torch::randn({B, H, T, Dh}, f64).requires_grad_();
    auto v = torch::randn({B, H, T, Dh}, f64).requires_grad_();
    // Random future diagonals too: a causal kernel must ignore them (and give them no gradient).
    auto e = (0.5 * torch::randn({R, 2 * T - 1}, f64)).requires_grad_();
    auto gates = torch::rand({R}, f64).requires_grad_();
    auto weights = torch::randn({B, H, T, Dh}, f64);
    const double scale = 0.7;

    RemMixing mixing;
    if (R > 0) mixing = {e, gates};
    auto fast = blockedSoftmaxAttention(q, k, v, scale, causal, mixing, blockValues);
    (fast * weights).sum().backward();
    std::vector<torch::Tensor> fast_grads = {q.grad().clone(), k.grad().clone(), v.grad().clone()};
    if (R > 0) fast_grads.insert(fast_grads.end(), {e.grad().clone(), gates.grad().clone()});
    for (auto* t : {&q, &k, &v, &e, &gates}) {
      if (t->grad().defined()) t->mutable_grad().zero_();
    }

    auto reference = materialised(q, k, v, scale, causal, e, gates);
    QVERIFY(test::checkClose(fast, reference, 1e-10, "output"));
    (reference * weights).sum().backward();
    const std::vector<std::string> names = {"dq", "dk", "dv", "d diagonals", "d gates"};
    for (size_t i = 0; i < fast_grads.size(); ++i) {
      auto expected = std::vector<torch::Tensor>{q, k, v, e, gates}[i].grad();
      QVERIFY2(test::checkClose(fast_grads[i], expected, 1e-9, names[i]), names[i].c_str());
    }
  }

  void biasedMatchesMaterialisedFormAndGradients_data() {
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("fox");
    QTest::addColumn<qlonglong>("blockValues");
    QTest::addColumn<qlonglong>("length");
    for (bool causal : {true, false})
      for (bool fox : {false, true}) {
        const std::string c =
            std::string(causal ? "causal " : "bidirectional ") + (fox ? "fox" : "alibi");
        QTest::newRow((c + ", row blocks").c_str()) << causal << fox << 64LL << 21LL;
        QTest::newRow((c + ", head groups").c_str()) << causal << fox << 4LL * 21 * 21 << 21LL;
        QTest::newRow((c + ", T = 7, default blocks").c_str())
            << causal << fox << qlonglong{kAttentionBlockValues} << 7LL;
      }
  }
  void biasedMatchesMaterialisedFormAndGradients() {
    QFETCH(bool, causal);
    QFETCH(bool, fox);
    QFETCH(qlonglong, blockValues);
    QFETCH(qlonglong, length);
    torch::manual_seed(6);
    const int64_t B = 2, H = 3, T = length, Dh = 4;
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({B, H, T, Dh}, f64).requires_grad_();
    auto k = torch::randn({B, H, T, Dh}, f64).requires_grad_();
    auto v = torch::randn({B, H, T, Dh}, f64).requires_grad_();
    auto slopes = alibiSlopes(H, AlibiSlopes::PaperText);  // (H)
    auto c = (-0.3 * torch::rand({B, H, T}, f64)).cumsum(-1).detach().requires_grad_();
    auto weights = torch::randn({B, H, T, Dh}, f64);
    const double scale = 0.6;
    ScoreBias bias;
    if (fox)
      bias.positions = c;
    else
      bias.slopes = slopes;
    auto fast = blockedBiasedAttention(q, k, v, scale, causal, bias, blockValues);
    (fast * weights).sum().backward();
    std::vector<torch::Tensor> fast_grads = {q.grad().clone(), k.grad().clone(), v.grad().clone()};
    if (fox) fast_grads.push_back(c.grad().clone());
    for (auto* t : {&q, &k, &v, &c})
      if (t->grad().defined()) t->mutable_grad().zero_();

    auto s = torch::matmul(q, k.transpose(-2, -1)) * scale +
             literalBias(fox ? torch::Tensor() : slopes, fox ? c : torch::Tensor(), T);
    if (causal) s = s.masked_fill(torch::ones({T, T}, torch::kBool).triu(1), -INFINITY);
    auto reference = torch::matmul(torch::softmax(s, -1), v);
    QVERIFY(test::checkClose(fast, reference, 1e-10, "output"));
    (reference * weights).sum().backward();
    const std::vector<std::string> names = {"dq", "dk", "dv", "dc"};
    for (size_t i = 0; i < fast_grads.size(); ++i) {
      auto expected = std::vector<torch::Tensor>{q, k, v, c}[i].grad();
      QVERIFY2(test::checkClose(fast_grads[i], expected, 1e-9, names[i]), names[i].c_str());
    }
  }

  void float32MatchesFloat64_data() {
    QTest::addColumn<bool>("causal");
    // 0 softmax, 1 RSA (R = 3), 2 split values (StarSaber), 3 ALiBi's slopes, 4 FoX's positions
    QTest::addColumn<int>("mode");
    for (bool causal : {true, false}) {
      const std::string c = causal ? "causal" : "bidirectional";
      QTest::newRow((c + " softmax").c_str()) << causal << 0;
      QTest::newRow((c + " rsa").c_str()) << causal << 1;
      QTest::newRow((c + " split values").c_str()) << causal << 2;
      QTest::newRow((c + " alibi").c_str()) << causal << 3;
      QTest::newRow((c + " fox").c_str()) << causal << 4;
    }
  }
  // The kernel in float32 (polynomial exp, threads over heads, default blocks) against itself in
  // float64 at the large config's attention shape: output and every gradient within 1e-5 of the
  // tensor's largest entry.
  void float32MatchesFloat64() {
    QFETCH(bool, causal);
    QFETCH(int, mode);
    torch::manual_seed(13);
    const int64_t B = 2, H = 8, T = 512, Dh = 16, R = mode == 1 ? 3 : 0;
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    std::vector<torch::Tensor> in64;  // q, k, v, v_future, diagonals, gates, c
    for (int i = 0; i < 4; ++i) in64.push_back(torch::randn({B, H, T, Dh}, f64));
    in64.push_back(0.05 * torch::randn({R, 2 * T - 1}, f64));
    in64.push_back(torch::rand({R}, f64));
    if (mode == 4) in64.push_back((-0.05 * torch::rand({B, H, T}, f64)).cumsum(-1));
    auto weights = torch::randn({B, H, T, Dh}, f64);
    const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
    auto run = [&](torch::ScalarType type) {
      std::vector<torch::Tensor> in;
      for (const auto& t : in64) in.push_back(t.to(type).requires_grad_());
      torch::Tensor y;
      if (mode == 2) {
        y = blockedSplitValueAttention(in[0], in[1], in[2], in[3], scale, causal);
      } else if (mode >= 3) {
        ScoreBias bias;
        if (mode == 3) bias.slopes = alibiSlopes(H, AlibiSlopes::PaperText);
        if (mode == 4) bias.positions = in[6];
        y = blockedBiasedAttention(in[0], in[1], in[2], scale, causal, bias);
      } else {
        RemMixing mixing;
        if (R > 0) mixing = {in[4], in[5]};
        y = blockedSoftmaxAttention(in[0], in[1], in[2], scale, causal, mixing);
      }
      (y * weights.to(type)).sum().backward();
      std::vector<torch::Tensor> out = {y.detach()};
      for (const auto& t : in) {
        if (t.grad().defined()) out.push_back(t.grad());
      }
      return out;
    };
    const auto single = run(torch::kFloat32), reference = run(torch::kFloat64);
    QCOMPARE(single.size(), reference.size());
    const size_t tensors[] = {4, 6, 5, 4, 5};  // the output and each input's gradient
    QCOMPARE(single.size(), tensors[mode]);
    for (size_t i = 0; i < single.size(); ++i) {
      const auto expected = reference[i];
      const double largest = expected.abs().max().item<double>();
      const double error =
          (single[i].to(torch::kFloat64) - expected).abs().max().item<double>() / largest;
      char what[64];
      std::snprintf(what, sizeof what, "tensor %zu: relative error %.2g", i, error);
      QVERIFY2(error < 1e-5, what);
    }
  }

  void rsaFastPathEqualsInspectedPath_data() {
    QTest::addColumn<bool>("causal");
    QTest::newRow("causal") << true;
    QTest::newRow("bidirectional") << false;
  }
  // The module without a record runs the blocked kernel; with one, the (B, H, T, T) weights.
  void rsaFastPathEqualsInspectedPath() {
    QFETCH(bool, causal);
    torch::manual_seed(8);
    RemHeadCounts counts;  // regular, cos, sin, dilated regular; one plain head
    counts.dilated_regular = 1;
    RsaAttentionImpl attn(20, 5, causal, counts, {2}, RemInit{});
    attn.to(torch::kFloat64);
    auto x = torch::randn({3, 29, 20}, torch::TensorOptions().dtype(torch::kFloat64));
    auto weights = torch::randn({3, 29, 20}, torch::TensorOptions().dtype(torch::kFloat64));
    auto gradsOf = [&](LayerInspection* record) {
      attn.zero_grad();
      auto y = attn.forward(x, {}, LayerObserver(record, 0));
      (y * weights).sum().backward();
      std::vector<torch::Tensor> g = {y.detach()};
      for (const auto& p : attn.named_parameters()) g.push_back(p.value().grad().clone());
      return g;
    };
    auto fast = gradsOf(nullptr);
    LayerInspection record;
    auto inspected = gradsOf(&record);
    QCOMPARE(record.heads.size(), size_t{5});
    const auto names = attn.named_parameters().keys();
    for (size_t i = 0; i < fast.size(); ++i) {
      const std::string what = i == 0 ? "output" : "d " + names[i - 1];
      QVERIFY2(test::checkClose(fast[i], inspected[i], 1e-9, what), what.c_str());
    }
  }
};

RSALAB_TEST_MAIN(TestBlockedAttention)
#include "test_blocked_attention.moc"
