// SPDX-License-Identifier: GPL-3.0-or-later
// The task registry across every task name (shapes, ModelIO, determinism, validation/test data
// independent of train_size, option errors), plus the text tasks (charlm, mlm), the seq2seq tasks
// and the MLM corruption.
#include <QDir>
#include <QTemporaryDir>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>

#include "engine/tasks/mlm_corruption.h"
#include "engine/tasks/task.h"
#include "engine/tasks/text_tasks.h"
#include "support/test_support.h"
#include "support/throws.h"

using namespace rsalab;
using rsalab::test::contains;
using rsalab::test::errorOf;

namespace {

bool sameTensor(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.defined() != b.defined()) return false;
  return !a.defined() || (a.sizes() == b.sizes() && torch::equal(a, b));
}

bool sameSplit(const DataSplit& a, const DataSplit& b) {
  return sameTensor(a.x, b.x) && sameTensor(a.y, b.y) && sameTensor(a.target_in, b.target_in);
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

class TestTasks : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::string csv_path_;

  TaskOptions small(const std::string& name) const {
    TaskOptions o;
    o.name = name;
    o.length = 16;
    o.validation_size = 24;
    o.test_size = 32;
    o.min_length = 2;
    o.max_length = 8;
    o.test_max_length = 12;
    o.csv_path = csv_path_;
    return o;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    csv_path_ = dir_.filePath("series.csv").toStdString();
    std::ofstream out(csv_path_);
    out << "a;b\n";
    for (int r = 0; r < 400; ++r) out << std::sin(0.2 * r) << ";" << std::cos(0.05 * r) << "\n";
  }

  void namesAndDescriptions() {
    const std::vector<std::string> expected = {
        "seasonal", "ar",      "teacher",  "mix",     "parity",        "dyck1",   "tomita1",
        "tomita2",  "tomita3", "tomita4",  "tomita5", "tomita6",       "tomita7", "charlm",
        "copy",     "reverse", "mlm",      "csv",     "airpassengers", "lynx",    "lakehuron",
        "nottem",   "ukgas",   "treering", "etth1",   "etth2"};
    QCOMPARE(taskNames(), expected);
    for (const auto& n : taskNames()) {
      const auto d = taskDescription(n);
      QVERIFY2(!d.empty() && !contains(d, "\n"), n.c_str());
    }
    QVERIFY(taskDescription("nope").empty());
    QCOMPARE(objectiveName(Objective::Seq2Seq), std::string("seq2seq"));
  }

  // makeTask switches on the row's family: every row builds with its family's builder and gets
  // the row's objective; the real series are exactly the Csv family.
  void everyFamilyBuildsItsRows() {
    for (const auto& row : taskRegistry()) {
      QVERIFY2(taskFamily(row.name) == row.family, row.name);
      QCOMPARE(isRealSeriesTask(row.name), row.family == TaskFamily::Csv);
      if (row.family == TaskFamily::Csv) continue;  // test_real_series builds them
      const auto data = makeTask(small(row.name), 20, 1);
      QVERIFY2(data.objective == row.objective, row.name);
    }
    QCOMPARE(taskNamesOf(TaskFamily::Language).size(), size_t{9});
    QCOMPARE(std::string(taskFamilyName(TaskFamily::SyntheticSeries)),
             std::string("synthetic_series"));
    QVERIFY(!taskFamily("nope"));
  }

  void everyTaskHasConsistentShapesAndIo() {
    for (const auto& name : taskNames()) {
      // real series (csv too): every test-part target, not test_size; see test_real_series
      if (isRealSeriesTask(name)) continue;
      const auto data = makeTask(small(name), 20, 1);
      const char* n = name.c_str();
      QCOMPARE(data.name, name);
      QVERIFY2(!data.summary.empty() && !contains(data.summary, "\n"), n);
      QCOMPARE(data.train.size(), int64_t{20});
      QCOMPARE(data.validation.size(), int64_t{24});
      QCOMPARE(data.test.size(), int64_t{32});
      validate(data.io);
      for (const DataSplit* s : {&data.train, &data.validation, &data.test}) {
        QVERIFY2(s->x.device().is_cpu() && s->y.device().is_cpu(), n);
        QCOMPARE(s->y.size(0), s->x.size(0));
        switch (data.objective) {
          case Objective::Regression:
            QCOMPARE(s->x.scalar_type(), torch::kFloat32);
            QCOMPARE(s->y.scalar_type(), torch::kFloat32);
            QCOMPARE(s->x.dim(), int64_t{3});
            QCOMPARE(s->x.size(1), int64_t{16});
            QCOMPARE(s->x.size(2), data.io.input_dim);
            QCOMPARE(s->y.sizes(), (torch::IntArrayRef{s->size(), 16, data.io.output_dim}));
            QCOMPARE(data.io.vocab, int64_t{0});
            QVERIFY(!data.io.pooled);
            QCOMPARE(static_cast<int64_t>(data.columns.size()), data.io.input_dim);
            QVERIFY2(torch::isfinite(s->x).all().item<bool>(), n);
            break;
          case Objective::Classification:
            QCOMPARE(s->x.scalar_type(), torch::kInt64);
            QCOMPARE(s->y.dim(), int64_t{1});
            QVERIFY(data.io.pooled);
            QVERIFY(data.io.pad_token >= 0 && data.io.pad_token < data.io.vocab);
            QVERIFY(s->y.min().item<int64_t>() >= 0);
            QVERIFY(s->y.max().item<int64_t>() < data.io.output_dim);
            break;
          case Objective::LanguageModel:
          case Objective::Seq2Seq:
            QCOMPARE(s->x.scalar_type(), torch::kInt64);
            QCOMPARE(s->y.scalar_type(), torch::kInt64);
            QCOMPARE(s->x.sizes(), (torch::IntArrayRef{s->size(), 16}));
            QCOMPARE(s->y.sizes(), s->x.sizes());
            QCOMPARE(data.io.output_dim, data.io.vocab);
            QVERIFY(!data.io.pooled);
            QVERIFY(s->y.max().item<int64_t>() < data.io.vocab);
            break;
        }
        if (data.io.vocab > 0) {
          QVERIFY(s->x.min().item<int64_t>() >= 0);
          QVERIFY(s->x.max().item<int64_t>() < data.io.vocab);
          QCOMPARE(static_cast<int64_t>(data.vocabulary.size()), data.io.vocab);
        }
        if (data.objective == Objective::Seq2Seq) {
          QVERIFY(data.bos >= 0 && data.bos < data.io.vocab);
          QCOMPARE(s->target_in.sizes(), s->y.sizes());
          QVERIFY(torch::equal(s->target_in.select(1, 0),
                               torch::full({s->size()}, data.bos, torch::kInt64)));
          QVERIFY(torch::equal(s->target_in.narrow(1, 1, 15), s->y.narrow(1, 0, 15)));
        } else {
          QVERIFY2(!s->target_in.defined(), n);
        }
      }
      QCOMPARE(data.mlm_probability > 0, name == "mlm");
      QCOMPARE(!data.truth.empty(),
               name == "seasonal" || name == "ar" || name == "teacher" || name == "mix");
    }
  }

  void sameSeedGivesIdenticalDataAndOtherSeedsDiffer() {
    for (const auto& name : taskNames()) {
      if (findTask(name)->series_file) continue;  // real series: test_real_series
      const auto a = makeTask(small(name), 20, 7), b = makeTask(small(name), 20, 7);
      QVERIFY2(sameSplit(a.train, b.train) && sameSplit(a.validation, b.validation) &&
                   sameSplit(a.test, b.test),
               name.c_str());
      const auto c = makeTask(small(name), 20, 8);
      if (name == "csv") {  // the file is the data: the seed does not change it
        QVERIFY(sameSplit(a.train, c.train) && sameSplit(a.test, c.test));
      } else {
        QVERIFY2(!sameSplit(a.train, c.train), name.c_str());
        QVERIFY2(!sameSplit(a.validation, c.validation), name.c_str());
        QVERIFY2(!sameSplit(a.test, c.test), name.c_str());
      }
    }
  }

  void validationAndTestDoNotDependOnTrainSize() {
    for (const auto& name : taskNames()) {
      if (findTask(name)->series_file) continue;  // real series: test_real_series
      const auto a = makeTask(small(name), 8, 3), b = makeTask(small(name), 200, 3);
      QCOMPARE(b.train.size(), int64_t{200});
      QVERIFY2(sameSplit(a.validation, b.validation), name.c_str());
      QVERIFY2(sameSplit(a.test, b.test), name.c_str());
      if (name == "csv") continue;  // windows spread over the train part instead
      // Training sets are nested: the small one is part of the large one.
      const auto& big = b.train;
      const int64_t off = (name == "seasonal" || name == "ar") ? 192 : 0;  // most recent windows
      QVERIFY2(sameTensor(a.train.x, big.x.narrow(0, off, 8)), name.c_str());
      QVERIFY2(sameTensor(a.train.y, big.y.narrow(0, off, 8)), name.c_str());
    }
  }

  void badCommonOptionsNameTheField() {
    auto o = small("seasonal");
    o.length = 0;
    QCOMPARE(errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); }),
             std::string("length = 0 is out of range: 1..100000"));
    o = small("copy");
    QVERIFY(contains(errorOf<std::invalid_argument>([&] { makeTask(o, 0, 0); }),
                     "train_size = 0 is out of range"));
    o.validation_size = 0;
    QVERIFY(
        contains(errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); }), "validation_size"));
    o = small("copy");
    o.test_size = -3;
    QVERIFY(contains(errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); }), "test_size"));
    o = small("copy");
    o.length = 100000;
    QVERIFY(contains(errorOf<std::invalid_argument>([&] { makeTask(o, 1'000'000, 0); }), "exceed"));
    o.name = "tomita8";
    const auto msg = errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); });
    QVERIFY2(contains(msg, "'tomita8' is unknown") && contains(msg, "tomita7"), msg.c_str());
  }

  void charlmUsesTheBundledTextSplitInOrder() {
    const std::string path = resourcePath(kBundledText);
    const std::string text = readAll(path);
    QVERIFY(text.size() > 20000);
    auto o = small("charlm");
    o.length = 48;
    const auto data = makeTask(o, 64, 2);
    // Vocabulary: the distinct bytes, sorted.
    std::set<unsigned char> bytes(text.begin(), text.end());
    QCOMPARE(data.vocabulary.size(), bytes.size());
    std::vector<unsigned char> sorted(bytes.begin(), bytes.end());
    auto decode = [&](const torch::Tensor& row) {
      std::string s;
      for (int64_t t = 0; t < row.size(0); ++t)
        s += static_cast<char>(sorted[row[t].item<int64_t>()]);
      return s;
    };
    QCOMPARE(data.vocabulary[static_cast<size_t>(std::find(sorted.begin(), sorted.end(), 'A') -
                                                 sorted.begin())],
             std::string("A"));
    // Targets are the next characters.
    for (const DataSplit* s : {&data.train, &data.validation, &data.test}) {
      QVERIFY(torch::equal(s->y.narrow(1, 0, 47), s->x.narrow(1, 1, 47)));
    }
    // Each window (with its last target) comes from its own contiguous part of the text.
    const size_t n = text.size(), a = n * 8 / 10, b = n * 9 / 10;
    const std::string parts[3] = {text.substr(0, a), text.substr(a, b - a), text.substr(b)};
    const DataSplit* splits[3] = {&data.train, &data.validation, &data.test};
    for (int p = 0; p < 3; ++p) {
      for (int64_t i = 0; i < splits[p]->size(); ++i) {
        const auto w = decode(splits[p]->x[i]) + decode(splits[p]->y[i].narrow(0, 47, 1));
        QVERIFY2(contains(parts[p], w), w.c_str());
      }
    }
  }

  void textPathAndResourceVariableOverrideTheBundledText() {
    const std::string mine = dir_.filePath("abc.txt").toStdString();
    {
      std::ofstream out(mine);
      for (int i = 0; i < 500; ++i) out << "abcab";
    }
    auto o = small("charlm");
    o.text_path = mine;
    auto data = makeTask(o, 8, 0);
    QCOMPARE(data.vocabulary, (std::vector<std::string>{"a", "b", "c"}));
    QCOMPARE(data.io.vocab, int64_t{3});
    // $RSALAB_RESOURCES is searched first.
    QDir(dir_.path()).mkpath("res/text");
    {
      std::ofstream out(dir_.filePath("res/text/us_founding_documents.txt").toStdString());
      for (int i = 0; i < 500; ++i) out << "xy z\n";
    }
    qputenv("RSALAB_RESOURCES", dir_.filePath("res").toUtf8());
    data = makeTask(small("mlm"), 8, 0);
    qunsetenv("RSALAB_RESOURCES");
    QCOMPARE(data.vocabulary, (std::vector<std::string>{"\\n", " ", "x", "y", "z"}));
    // Too short a text for the window.
    o.length = 300;
    const auto msg = errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); });
    QVERIFY2(contains(msg, "length = 300 is too long"), msg.c_str());
    o.text_path = dir_.filePath("none.txt").toStdString();
    QVERIFY(contains(errorOf<std::runtime_error>([&] { makeTask(o, 8, 0); }), "none.txt"));
  }

  // Training inputs are clean (the trainer corrupts every batch); validation and test inputs
  // are the clean targets corrupted once, changed only where `corrupted` is set.
  void mlmGivesCleanTrainingTokensAndCorruptedEvaluationInputs() {
    const auto mlm = makeTask(small("mlm"), 16, 4), lm = makeTask(small("charlm"), 16, 4);
    QCOMPARE(mlm.mlm_probability, 0.3);
    QVERIFY(mlm.objective == Objective::LanguageModel);
    QCOMPARE(mlm.vocabulary, lm.vocabulary);
    QVERIFY(torch::equal(mlm.train.x, mlm.train.y));
    QVERIFY(!mlm.train.corrupted.defined() && !lm.test.corrupted.defined());
    for (const DataSplit* split : {&mlm.validation, &mlm.test}) {
      QVERIFY(split->corrupted.defined());
      QVERIFY(!torch::equal(split->x, split->y));
      QCOMPARE(
          split->x.ne(split->y).logical_and(split->corrupted.logical_not()).sum().item<int64_t>(),
          int64_t{0});
    }
  }

  // Every task the registry lists is built with the registry's objective.
  void registryObjectivesMatchTheBuiltTasks() {
    for (const auto& info : taskRegistry()) {
      const auto data = makeTask(small(info.name), 8, 1);
      QVERIFY2(data.objective == info.objective, info.name);
    }
  }

  void corruptForMlmReplacesAboutPUniformly() {
    const int64_t V = 50;
    auto tokens = torch::randint(0, V, {64, 256}, at::detail::createCPUGenerator(1),
                                 torch::TensorOptions().dtype(torch::kInt64));
    auto out = corruptForMlmWithMask(tokens, 0.3, V, at::detail::createCPUGenerator(2));
    QCOMPARE(out.tokens.sizes(), tokens.sizes());
    const double replaced = out.replaced.to(torch::kFloat64).mean().item<double>();
    QVERIFY2(std::abs(replaced - 0.3) < 0.015, qPrintable(QString::number(replaced)));
    const double changed = out.tokens.ne(tokens).to(torch::kFloat64).mean().item<double>();
    QVERIFY2(std::abs(changed - 0.3 * (1 - 1.0 / V)) < 0.015, qPrintable(QString::number(changed)));
    // Positions not replaced are untouched; changed positions were all replaced.
    QVERIFY(torch::equal(out.tokens.masked_select(out.replaced.logical_not()),
                         tokens.masked_select(out.replaced.logical_not())));
    QVERIFY(out.tokens.ne(tokens).logical_and(out.replaced.logical_not()).sum().item<int64_t>() ==
            0);
    // Replacement tokens are uniform over the whole vocabulary (no [MASK] symbol).
    auto counts = torch::bincount(out.tokens.masked_select(out.replaced), {}, V);
    const double expected = replaced * tokens.numel() / V;
    QCOMPARE(counts.size(0), V);
    QVERIFY(counts.min().item<int64_t>() > 0.6 * expected);
    QVERIFY(counts.max().item<int64_t>() < 1.4 * expected);
    // The plain function is the same draw; the same generator seed gives the same corruption.
    auto plain = corruptForMlm(tokens, 0.3, V, at::detail::createCPUGenerator(2));
    QVERIFY(torch::equal(plain, out.tokens));
    auto other = corruptForMlm(tokens, 0.3, V, at::detail::createCPUGenerator(3));
    QVERIFY(!torch::equal(other, out.tokens));
    QVERIFY(torch::equal(corruptForMlm(tokens, 0.0, V, at::detail::createCPUGenerator(2)), tokens));
    QVERIFY(corruptForMlmWithMask(tokens, 1.0, V, at::detail::createCPUGenerator(2))
                .replaced.all()
                .item<bool>());
    QVERIFY_EXCEPTION_THROWN(corruptForMlm(tokens, 1.5, V, at::detail::createCPUGenerator(2)),
                             std::invalid_argument);
  }

  void copyAndReverseTargets() {
    auto o = small("copy");
    o.symbols = 7;
    const auto copy = makeTask(o, 32, 1);
    QCOMPARE(copy.io.vocab, int64_t{8});
    QCOMPARE(copy.bos, int64_t{0});
    QVERIFY(torch::equal(copy.train.y, copy.train.x));
    QVERIFY(copy.train.x.min().item<int64_t>() >= 1);  // symbols never collide with <bos>
    QCOMPARE(copy.train.x.max().item<int64_t>(), int64_t{7});
    o.name = "reverse";
    const auto rev = makeTask(o, 32, 1);
    QVERIFY(torch::equal(rev.test.y, rev.test.x.flip({1})));
    QVERIFY(!torch::equal(rev.test.y, rev.test.x));
    QCOMPARE(rev.test.y[0][0].item<int64_t>(), rev.test.x[0][15].item<int64_t>());
    o.symbols = 0;
    QVERIFY(contains(errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); }),
                     "symbols = 0 is out of range"));
  }
};

RSALAB_TEST_MAIN(TestTasks)
#include "test_tasks.moc"
