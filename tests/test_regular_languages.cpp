// SPDX-License-Identifier: GPL-3.0-or-later
// Regular-language tasks against recognisers written independently of the generator (direct
// counting, run-length scans, std::regex): every generated string is labelled correctly, labels
// are balanced, test strings are longer than training strings, and the automata agree with the
// recognisers on every string up to length 12.
#include <regex>
#include <set>

#include "engine/tasks/regular_languages.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

// Every task of the Language family (the registry's rows); recognise() below knows each one.
const std::vector<std::string> kLanguages = taskNamesOf(TaskFamily::Language);

int64_t count(const std::string& w, char c) { return std::count(w.begin(), w.end(), c); }

// Tomita 3: scan maximal runs; once an odd run of 1s has ended, an odd run of 0s rejects.
bool tomita3(const std::string& w) {
  bool odd_ones_seen = false;
  size_t i = 0;
  while (i < w.size()) {
    size_t j = i;
    while (j < w.size() && w[j] == w[i]) ++j;
    const bool odd = (j - i) % 2 == 1;
    if (w[i] == '1' && odd) odd_ones_seen = true;
    if (w[i] == '0' && odd && odd_ones_seen) return false;
    i = j;
  }
  return true;
}

bool recognise(const std::string& lang, const std::string& w) {
  if (lang == "parity") return count(w, '1') % 2 == 1;
  if (lang == "dyck1") {
    int64_t depth = 0;
    for (char c : w) {
      depth += c == '(' ? 1 : -1;
      if (depth < 0) return false;
    }
    return depth == 0;
  }
  if (lang == "tomita1") return count(w, '0') == 0;
  if (lang == "tomita2") {
    std::string r;
    while (r.size() < w.size()) r += "10";
    return r == w;
  }
  if (lang == "tomita3") return tomita3(w);
  if (lang == "tomita4") return w.find("000") == std::string::npos;
  if (lang == "tomita5") return count(w, '0') % 2 == 0 && count(w, '1') % 2 == 0;
  if (lang == "tomita6") return ((count(w, '0') - count(w, '1')) % 3 + 3) % 3 == 0;
  if (lang == "tomita7") {
    static const std::regex re("0*1*0*1*");
    return std::regex_match(w, re);
  }
  throw std::logic_error("unknown language " + lang);
}

struct Decoded {
  std::vector<std::string> words;
  std::vector<int64_t> labels;
  bool padding_is_suffix = true;
  bool tokens_in_range = true;
};

Decoded decodeSplit(const TaskData& data, const DataSplit& split) {
  Decoded d;
  auto x = split.x.contiguous();
  auto xa = x.accessor<int64_t, 2>();
  for (int64_t n = 0; n < x.size(0); ++n) {
    std::string w;
    bool in_pad = false;
    for (int64_t t = 0; t < x.size(1); ++t) {
      const int64_t tok = xa[n][t];
      if (tok < 0 || tok >= data.io.vocab) d.tokens_in_range = false;
      if (tok == data.io.pad_token) {
        in_pad = true;
      } else {
        if (in_pad) d.padding_is_suffix = false;
        w += data.vocabulary[static_cast<size_t>(tok)];
      }
    }
    d.words.push_back(w);
    d.labels.push_back(split.y[n].item<int64_t>());
  }
  return d;
}

TaskOptions languageOptions(const std::string& name) {
  TaskOptions o;
  o.name = name;
  o.min_length = 2;
  o.max_length = 12;
  o.test_max_length = 24;
  o.validation_size = 300;
  o.test_size = 300;
  return o;
}

}  // namespace

class TestRegularLanguages : public QObject {
  Q_OBJECT
 private slots:
  void automataMatchRecognisersOnAllShortStrings() {
    for (const auto& lang : kLanguages) {
      const char a = lang == "dyck1" ? '(' : '0', b = lang == "dyck1" ? ')' : '1';
      for (int len = 0; len <= 12; ++len) {
        for (int bits = 0; bits < (1 << len); ++bits) {
          std::string w;
          for (int i = 0; i < len; ++i) w += (bits >> i) & 1 ? b : a;
          if (regularLanguageAccepts(lang, w) != recognise(lang, w)) {
            QFAIL(qPrintable(QString::fromStdString(lang + " disagrees on '" + w + "'")));
          }
        }
      }
    }
  }

  void knownExamples() {
    // Tomita 3 under the "anywhere later" reading: 1 00 11 0 has an odd run of 1s and, later (not
    // right after it), an odd run of 0s.
    QVERIFY(!regularLanguageAccepts("tomita3", "100110"));
    QVERIFY(regularLanguageAccepts("tomita3", "1100"));
    QVERIFY(regularLanguageAccepts("tomita3", "10011"));  // the odd 0-run never comes
    QVERIFY(!regularLanguageAccepts("tomita3", "10"));
    QVERIFY(regularLanguageAccepts("tomita7", "0011001"));
    QVERIFY(!regularLanguageAccepts("tomita7", "10101"));
    QVERIFY(regularLanguageAccepts("dyck1", "(()())"));
    QVERIFY(!regularLanguageAccepts("dyck1", "())("));
    QVERIFY_EXCEPTION_THROWN(regularLanguageAccepts("parity", "012"), std::invalid_argument);
  }

  void everyGeneratedStringIsLabelledCorrectly() {
    for (const auto& lang : kLanguages) {
      const auto data = makeTask(languageOptions(lang), 600, 3);
      QCOMPARE(data.io.vocab, int64_t{3});
      QCOMPARE(data.io.pad_token, int64_t{2});
      QVERIFY(data.io.pooled);
      QCOMPARE(data.io.output_dim, int64_t{2});
      QVERIFY(data.objective == Objective::Classification);
      for (const DataSplit* split : {&data.train, &data.validation, &data.test}) {
        QCOMPARE(split->y.scalar_type(), torch::kInt64);
        QCOMPARE(split->x.scalar_type(), torch::kInt64);
        const auto d = decodeSplit(data, *split);
        QVERIFY2(d.padding_is_suffix, lang.c_str());
        QVERIFY2(d.tokens_in_range, lang.c_str());
        int64_t positives = 0;
        for (size_t i = 0; i < d.words.size(); ++i) {
          const bool truth = recognise(lang, d.words[i]);
          if (truth != (d.labels[i] == 1)) {
            QFAIL(qPrintable(QString::fromStdString(lang + ": '" + d.words[i] + "' labelled " +
                                                    std::to_string(d.labels[i]))));
          }
          positives += truth;
        }
        const double share = static_cast<double>(positives) / d.words.size();
        QVERIFY2(share > 0.45 && share < 0.55,
                 qPrintable(QString("%1: %2 positive").arg(lang.c_str()).arg(share)));
      }
    }
  }

  void testStringsAreLongerThanTrainingStrings() {
    for (const auto& lang : kLanguages) {
      const auto o = languageOptions(lang);
      const auto data = makeTask(o, 400, 5);
      QCOMPARE(data.train.x.size(1), o.max_length);
      QCOMPARE(data.test.x.size(1), o.test_max_length);
      const auto train = decodeSplit(data, data.train);
      std::set<size_t> train_lengths;
      for (const auto& w : train.words) {
        QVERIFY(static_cast<int64_t>(w.size()) >= o.min_length);
        QVERIFY(static_cast<int64_t>(w.size()) <= o.max_length);
        train_lengths.insert(w.size());
      }
      QVERIFY2(train_lengths.size() >= 5, lang.c_str());  // lengths vary
      for (const DataSplit* split : {&data.validation, &data.test}) {
        for (const auto& w : decodeSplit(data, *split).words) {
          QVERIFY2(static_cast<int64_t>(w.size()) > o.max_length, lang.c_str());
          QVERIFY(static_cast<int64_t>(w.size()) <= o.test_max_length);
        }
      }
    }
  }

  void negativesIncludeNearMisses() {
    // Tomita 1 negatives with a single 0 only come from flipping one symbol of 1^n.
    const auto data = makeTask(languageOptions("tomita1"), 400, 7);
    int64_t near = 0, far = 0;
    for (const auto& w : decodeSplit(data, data.train).words) {
      const auto zeros = count(w, '0');
      near += zeros == 1;
      far += zeros > 1;
    }
    QVERIFY2(near > 50 && far > 50, qPrintable(QString("%1 near, %2 far").arg(near).arg(far)));
  }

  void badLengthsNameTheField() {
    auto o = languageOptions("parity");
    o.max_length = 1;
    try {
      makeTask(o, 10, 0);
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("max_length = 1 is out of range") != std::string::npos,
               e.what());
    }
    o = languageOptions("parity");
    o.test_max_length = o.max_length;
    QVERIFY_EXCEPTION_THROWN(makeTask(o, 10, 0), std::invalid_argument);
    o = languageOptions("tomita2");  // (10)* has no string of odd length 3
    o.min_length = 3;
    o.max_length = 3;
    try {
      makeTask(o, 10, 0);
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("no positive strings") != std::string::npos, e.what());
    }
  }
};

RSALAB_TEST_MAIN(TestRegularLanguages)
#include "test_regular_languages.moc"
