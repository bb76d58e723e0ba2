// SPDX-License-Identifier: GPL-3.0-or-later
// Named variants (engine/core/config/model_variant.h): `rsa[rem_heads=regular]` is RSA with its
// regular REM heads only, `retnet[learnable_decay,rotation]` RetNet with both options on; the
// full name is kept as the model's name, its card is the base card's, and bad variant text is
// refused with a message that says what is wrong. Core library only: no LibTorch.
#include <QtTest>
#include <string>
#include <vector>

#include "engine/core/config/flops.h"
#include "engine/core/config/model_variant.h"
#include "engine/core/config/run_config.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/sweep/sweep_plan.h"
#include "support/test_registry.h"
#include "support/throws.h"

using namespace rsalab;
using rsalab::test::contains;
using rsalab::test::errorOf;

namespace {

ModelOptions named(const std::string& model) {
  ModelOptions o;
  o.model = model;
  o.heads = 4;
  o.rem = defaultRemHeads(o.heads);  // regular, cos and sin: one head each
  return o;
}

std::string variantError(const std::string& model) {
  return errorOf([&] { validate(named(model)); });
}

}  // namespace

class TestModelVariant : public QObject {
  Q_OBJECT

 private slots:
  void remHeadsKeepsTheListedTypes() {
    const ModelOptions o = withVariant(named("rsa[rem_heads=regular]"));
    QCOMPARE(o.model, std::string("rsa[rem_heads=regular]"));  // the full name is kept
    QCOMPARE(o.rem.regular, int64_t{1});
    QCOMPARE(o.rem.cos + o.rem.sin + o.rem.dilated_regular, int64_t{0});
    const ModelOptions two = withVariant(named("rsa[rem_heads=regular+sin]"));
    QCOMPARE(two.rem.regular + two.rem.sin, int64_t{2});
    QCOMPARE(two.rem.cos, int64_t{0});
    QCOMPARE(withVariant(o).rem.total(), o.rem.total());  // applying again changes nothing
    QCOMPARE(std::string(findModel("rsa[rem_heads=regular]")->name), std::string("rsa"));
    QCOMPARE(modelIndex("rsa[rem_heads=regular]"), -1);  // a colour of its own
    QVERIFY(variantError("rsa[rem_heads=regular]").empty());
  }

  void flagsAndCardPrefixedKeys() {
    const ModelOptions r = withVariant(named("retnet[learnable_decay,rotation]"));
    QVERIFY(r.retnet_learnable_decay && r.retnet_rotation);
    QVERIFY(!withVariant(named("retnet[rotation]")).retnet_learnable_decay);
    QVERIFY(withVariant(named("alibi[code_slopes]")).alibi_code_slopes);
    QVERIFY(withVariant(named("starsaber[gated]")).starsaber_gated);
    QVERIFY(!withVariant(named("linear[cumulative=false]")).linear_cumulative);
    const ModelOptions t = withVariant(named("transformer[heads=2,layers=3,rem_init.mu=20]"));
    QCOMPARE(t.heads, int64_t{2});
    QCOMPARE(t.layers, int64_t{3});
    QCOMPARE(t.rem_init.mu, 20.0);
    QCOMPARE(withVariant(named("rsa[rem.cos=2]")).rem.cos, int64_t{2});
    // The variant's numbers reach the FLOP count: gated StarSaber adds W_z, V_z.
    ModelIO io;
    QVERIFY(forwardFlopsPerToken(named("starsaber[gated]"), io, 16) >
            forwardFlopsPerToken(named("starsaber"), io, 16));
  }

  void badTextSaysWhatIsWrong() {
    QVERIFY(contains(variantError("rsa[rem_heads=regular"), "must end with ']'"));
    QVERIFY(contains(variantError("nosuch[x]"), "'nosuch' is no model: use rnn, "));
    QVERIFY(contains(variantError("rsa[]"), "no overrides"));
    QVERIFY(contains(variantError("rsa[heads=2,heads=3]"), "heads is given twice"));
    QVERIFY(contains(variantError("rsa[rem_heads=diagonal]"), "'diagonal', no REM type"));
    QVERIFY(contains(variantError("transformer[rem_heads=regular]"), "has no REM heads"));
    QVERIFY(contains(variantError("retnet[spin]"), "spin is no option of retnet"));
    QVERIFY(contains(variantError("rsa[model=gru]"), "model is no option of rsa"));
    QVERIFY(contains(variantError("rsa[rem.tan=1]"), "rem.tan is no option"));
    QVERIFY(contains(variantError("rsa[heads]"), "model.heads has the wrong type"));
    QVERIFY(contains(variantError("rsa[a b]"), "'a b' is no override"));
    QVERIFY(contains(variantError("rsa[x=[1]]"), "one pair of brackets"));
    // The overrides are validated as any options: 3 REM heads do not fit 2 heads.
    QVERIFY(contains(variantError("rsa[heads=2]"), "REM head counts"));
    for (const std::string m : {"rsa[heads]", "rsa[heads=2,heads=3]"})
      QVERIFY2(contains(variantError(m), "model '" + m + "': "), m.c_str());
  }

  // Lists of models: commas inside a variant's brackets stay; a sweep plans the variant under
  // its full name.
  void listsKeepTheVariant() {
    QCOMPARE(splitModelList("rsa,retnet[learnable_decay,rotation],gru"),
             (std::vector<std::string>{"rsa", "retnet[learnable_decay,rotation]", "gru"}));
    SweepOptions s;
    s.base.task.name = "seasonal";
    s.models = {"rsa", "rsa[rem_heads=regular]"};
    s.sizes = {64};
    s.seeds = 1;
    const SweepPlan plan = makeSweepPlan(s);
    QCOMPARE(plan.models, s.models);
    s.models = {"rsa[rem_heads=cosine]"};
    QVERIFY(contains(errorOf([&] { makeSweepPlan(s); }), "rem_heads names 'cosine'"));
  }
};

RSALAB_REGISTER_TEST(TestModelVariant, QTEST_GUILESS_MAIN)
#include "test_model_variant.moc"
