// SPDX-License-Identifier: GPL-3.0-or-later
// HyperParameterForm: hot edits apply at once, cold edits wait for "Apply & restart", ranges are
// enforced in the spin boxes and in setValues.
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QtTest>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "engine/core/registry/model_registry.h"
#include "support/test_registry.h"
#include "tests/support/widget_shots.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/run_setup_panel.h"

using namespace rsalab;

namespace {

// Six rows of the trainer's table (engine/core/config/trainer_options.cpp).
std::vector<HyperParameterInfo> parameters() {
  std::vector<HyperParameterInfo> out;
  for (const char* name :
       {"learning_rate", "weight_decay", "grad_clip", "batch_size", "max_steps", "max_seconds"})
    out.push_back(*findHyperParameter(name));
  return out;
}

QList<QPair<QString, QString>> tasks() {
  return {{"seasonal", "seasonal series"},
          {"ar", "AR series"},
          {"mix", "recurrent share"},
          {"parity", "parity"}};
}

QMap<QString, double> defaults() {
  return {{"learning_rate", 3e-3}, {"weight_decay", 0.01}, {"grad_clip", 1.0},
          {"batch_size", 32},      {"max_steps", 1000},    {"max_seconds", 0}};
}

// Types text into a spin box the way a user does: select all, type, press Enter.
void typeInto(QDoubleSpinBox* spin, const QString& text) {
  spin->setFocus();
  spin->findChild<QLineEdit*>()->selectAll();
  QTest::keyClicks(spin, text);
  QTest::keyClick(spin, Qt::Key_Return);
}

}  // namespace

class TestHyperParameterForm : public QObject {
  Q_OBJECT
 private slots:
  void buildsLabelledFieldsWithBadges() {
    HyperParameterForm form(parameters());
    QCOMPARE(form.fieldNames().size(), 6);
    QVERIFY(form.isHot("learning_rate"));
    QVERIFY(!form.isHot("batch_size"));
    QCOMPARE(form.badge("learning_rate")->text(), QString("applies now"));
    QCOMPARE(form.badge("batch_size")->text(), QString("restart"));
    bool unit_label = false;
    for (auto* l : form.findChildren<QLabel*>())
      unit_label |= l->text() == "Batch size (sequences)";
    QVERIFY(unit_label);
    QVERIFY(form.spinBox("learning_rate")->toolTip().contains("1e-06"));
    QVERIFY(form.logSlider("learning_rate"));  // log scale: slider in log10 space
    QVERIFY(!form.logSlider("weight_decay"));
    QVERIFY(form.isIntegral("batch_size"));  // a count unit
    QVERIFY(!form.isIntegral("max_seconds"));
    QVERIFY(!form.applyButton()->isEnabled());
  }
  void hotEditEmitsHotChanged() {
    HyperParameterForm form(parameters());
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    form.setValues(defaults());
    QSignalSpy hot(&form, &HyperParameterForm::hotChanged);
    QSignalSpy cold(&form, &HyperParameterForm::coldPending);
    typeInto(form.spinBox("learning_rate"), "1e-4");
    QCOMPARE(hot.count(), 1);
    QCOMPARE(hot[0][0].toString(), QString("learning_rate"));
    QVERIFY(std::abs(hot[0][1].toDouble() - 1e-4) < 1e-15);
    QCOMPARE(cold.count(), 0);
    QVERIFY(!form.applyButton()->isEnabled());
    // The log slider follows, and moving it edits in log10 space: the middle of 1e-6..1 is 1e-3.
    form.logSlider("learning_rate")->setValue(500);
    QCOMPARE(hot.count(), 2);
    QVERIFY(std::abs(hot[1][1].toDouble() - 1e-3) < 1e-12);
  }
  void coldEditEnablesApplyAndRestart() {
    HyperParameterForm form(parameters());
    form.setValues(defaults());
    QSignalSpy hot(&form, &HyperParameterForm::hotChanged);
    QSignalSpy cold(&form, &HyperParameterForm::coldPending);
    QSignalSpy apply(&form, &HyperParameterForm::applyAndRestart);
    form.spinBox("batch_size")->setValue(64);
    QCOMPARE(hot.count(), 0);
    QCOMPARE(cold.count(), 1);
    QCOMPARE(cold[0][0].toStringList(), QStringList{"batch_size"});
    QVERIFY(form.applyButton()->isEnabled());
    QCOMPARE(form.badge("batch_size")->text(), QString("restart pending"));
    QTest::mouseClick(form.applyButton(), Qt::LeftButton);
    QCOMPARE(apply.count(), 1);
    const auto applied = apply[0][0].value<QMap<QString, double>>();
    QCOMPARE(applied.value("batch_size"), 64.0);
    QCOMPARE(applied.value("learning_rate"), 3e-3);
    QCOMPARE(applied.size(), 6);
    QVERIFY(!form.applyButton()->isEnabled());
    QCOMPARE(cold.last()[0].toStringList(), QStringList{});
  }
  void coldEditBackToBaselineIsNotPending() {
    HyperParameterForm form(parameters());
    form.setValues(defaults());
    QSignalSpy cold(&form, &HyperParameterForm::coldPending);
    form.spinBox("max_steps")->setValue(2000);
    QCOMPARE(form.pendingColdFields(), QStringList{"max_steps"});
    form.spinBox("max_steps")->setValue(1000);
    QVERIFY(form.pendingColdFields().isEmpty());
    QVERIFY(!form.applyButton()->isEnabled());
    form.spinBox("max_steps")->setValue(5);
    form.revertCold();
    QCOMPARE(form.value("max_steps"), 1000.0);
    QVERIFY(form.pendingColdFields().isEmpty());
  }
  void rangesEnforced() {
    HyperParameterForm form(parameters());
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    form.setValues(defaults());
    // Typing past the maximum cannot produce an out-of-range value.
    typeInto(form.spinBox("batch_size"), "50000");
    QVERIFY(form.value("batch_size") <= 4096);
    form.spinBox("weight_decay")->setValue(7);
    QCOMPARE(form.value("weight_decay"), 1.0);
    // setValues clamps and reports.
    QSignalSpy invalid(&form, &HyperParameterForm::invalidValue);
    QSignalSpy hot(&form, &HyperParameterForm::hotChanged);
    form.setValues({{"learning_rate", 5.0}, {"grad_clip", -1.0}, {"no_such_field", 1.0}});
    QCOMPARE(invalid.count(), 3);
    QCOMPARE(form.value("learning_rate"), 1.0);
    QCOMPARE(form.value("grad_clip"), 0.0);
    // QMap order: grad_clip, learning_rate, no_such_field.
    QCOMPARE(invalid[1][0].toString(), QString("learning_rate"));
    const QString message = invalid[1][1].toString();
    QVERIFY2(message.contains("outside") && message.endsWith("using 1"), qPrintable(message));
    QCOMPARE(invalid[2][0].toString(), QString("no_such_field"));
    QCOMPARE(hot.count(), 0);  // pushed values are not edits
    // A valid setValues reports nothing.
    form.setValues({{"learning_rate", 0.01}});
    QCOMPARE(invalid.count(), 3);
    QCOMPARE(form.value("learning_rate"), 0.01);
  }
  void logStepsAreMultiplicative() {
    HyperParameterForm form(parameters());
    form.setValues(defaults());
    form.spinBox("batch_size")->stepBy(1);
    QCOMPARE(form.value("batch_size"), 64.0);
    form.spinBox("learning_rate")->setValue(1e-3);
    form.spinBox("learning_rate")->stepBy(10);  // ten steps of 10^0.1: one decade
    QVERIFY(std::abs(form.value("learning_rate") - 1e-2) < 1e-4);
  }
  // The forms own their config: setConfig then config gives back every field they show, the run
  // setup's REM heads follow defaultRemHeads, and nothing else of the base changes.
  void formsRoundTripTheirConfig() {
    HyperParameterForm form(formHyperParameters());
    RunSetupPanel setup(tasks());
    RunConfig c;
    c.task.name = "ar";
    c.task.length = 40;
    c.train_size = 333;
    c.model.d_model = 48;
    c.model.heads = 2;
    c.model.layers = 3;
    c.model.rem = defaultRemHeads(2);
    c.trainer.learning_rate = 2e-4;
    c.trainer.weight_decay = 0.05;
    c.trainer.grad_clip = 2.5;
    c.trainer.snapshot_every = 7;
    c.trainer.batch_size = 12;
    c.trainer.max_steps = 4321;
    c.trainer.warmup_steps = 30;
    c.trainer.eval_every = 15;
    c.trainer.patience = 4;
    c.trainer.max_seconds = 90;
    c.trainer.seed = 99;  // not on either form: comes from the base
    c.task.horizon = 3;   // ditto
    form.setConfig(c);
    setup.setConfig(c);
    RunConfig base = c;
    base.task.name = "seasonal";
    base.task.length = 64;
    base.train_size = 1;
    base.model = ModelOptions{};
    base.model.model = c.model.model;
    base.trainer = TrainerOptions{};
    base.trainer.seed = 99;
    const RunConfig out = setup.config(form.config(base));
    QCOMPARE(QString::fromStdString(toJson(out)), QString::fromStdString(toJson(c)));
  }

  // The run setup offers every teacher process (rem labelled RSA's home ground), enabled for the
  // teacher, mix and series (seasonal, ar) tasks, and its choice reaches the config.
  void runSetupOffersTheTeacherProcesses() {
    RunSetupPanel setup(tasks());
    auto* box = setup.findChild<QComboBox*>("teacher_process");
    QVERIFY(box);
    QCOMPARE(static_cast<size_t>(box->count()), teacherProcessRegistry().size());
    QVERIFY(box->itemText(0).contains("RSA's home ground"));
    RunConfig c = setup.config(RunConfig{});
    c.task.name = "mix";
    c.task.teacher_process = TeacherProcess::Jordan;
    setup.setConfig(c);
    QVERIFY(box->isEnabled());
    QCOMPARE(box->currentData().toString(), QString("jordan"));
    box->setCurrentIndex(box->findData(QString("power")));
    QVERIFY(setup.config(c).task.teacher_process == TeacherProcess::Power);
    c.task.name = "seasonal";
    c.task.teacher_process = TeacherProcess::Selective;
    setup.setConfig(c);
    QVERIFY(box->isEnabled());
    QVERIFY(box->itemData(box->findData(QString("selective")), Qt::ToolTipRole)
                .toString()
                .contains("seasonal, ar: "));
    QVERIFY(setup.config(c).task.teacher_process == TeacherProcess::Selective);
    c.task.name = "parity";
    setup.setConfig(c);
    QVERIFY(!box->isEnabled());
  }

  // One Max steps field in the two forms (run setup and hyperparameters), and it is the one the
  // config reads: with the trainer's whole list the form showed a second one that config ignored.
  void oneMaxStepsFieldAndItIsRead() {
    HyperParameterForm form(formHyperParameters());
    RunSetupPanel setup(tasks());
    QList<QLabel*> labels;
    for (QWidget* w : {static_cast<QWidget*>(&form), static_cast<QWidget*>(&setup)}) {
      for (QLabel* label : w->findChildren<QLabel*>()) {
        if (label->text().startsWith("Max steps")) labels << label;
      }
    }
    QCOMPARE(labels.size(), 1);
    auto* spin = qobject_cast<QSpinBox*>(labels.front()->buddy());
    QVERIFY(spin);
    spin->setValue(1234);
    QCOMPARE(setup.config(form.config(defaultRunConfig())).trainer.max_steps, int64_t(1234));
    QCOMPARE(form.config(setup.config(defaultRunConfig())).trainer.max_steps, int64_t(1234));
  }

  // New forms start at defaultLaunchConfig() (the GUI's first minute) with the registry's models;
  // every value in which it differs from RunConfig{} is one the forms show.
  void formsStartAtTheSharedDefaults() {
    HyperParameterForm form(formHyperParameters());
    RunSetupPanel setup(tasks());
    const RunConfig defaults = defaultLaunchConfig();
    QCOMPARE(QString::fromStdString(toJson(setup.config(form.config(RunConfig{})))),
             QString::fromStdString(toJson(defaults)));
    QStringList all, ticked;
    for (const auto& card : modelRegistry())  // every model a run trains (seq2seq: its own tasks)
      if (card.family != ModelFamily::Seq2Seq) all << QString(card.name);
    for (const auto& name : defaultModelNames()) ticked << QString::fromStdString(name);
    QCOMPARE(setup.modelChoices(), all);
    QCOMPARE(setup.setup().models, ticked);
    QCOMPARE(setup.setup().seeds, 1);
  }

  // A pending cold edit shows its amber "restart pending" badge in the picture.
  void pictureShowsThePendingBadge() {
    HyperParameterForm form(parameters());
    form.setValues(defaults());
    form.resize(520, 300);
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    const QColor amber(0xF5, 0xB0, 0x41);  // the pending badge's background
    QCOMPARE(rsalab::test::countColor(rsalab::test::grabShot(&form, "hyper_parameter_form_clean"),
                                      amber, 4),
             0);
    form.spinBox("batch_size")->setValue(64);
    const QImage shot = rsalab::test::grabShot(&form, "hyper_parameter_form");
    QVERIFY(rsalab::test::countColor(shot, amber, 4) > 50);
  }

  // Under the long-horizon protocol a run trains on every train window of the split, so Training
  // set N shows that count, 8640 − L − H + 1 for the form's L (auto: 96) and H, disabled, and the
  // config carries it (the status bar's "asked for 1024" was the field's stale value); the
  // user's own N comes back with the split protocol or another task.
  void longHorizonShowsTheTrainWindowsItUses() {
    RunSetupPanel panel({{"seasonal", ""}, {"etth1", ""}});
    auto* n = panel.findChild<QSpinBox*>("train_size");
    QVERIFY(n);
    RunConfig c = defaultRunConfig();
    c.train_size = 1024;
    panel.setConfig(c);
    QVERIFY(n->isEnabled());
    QCOMPARE(n->value(), 1024);
    c.task.name = "etth1";
    c.task.protocol = SeriesProtocol::Auto;
    c.task.length = 0;
    c.task.horizon = 96;
    panel.setConfig(c);
    QVERIFY(!n->isEnabled());
    QCOMPARE(n->value(), 8640 - 96 - 96 + 1);
    QVERIFY2(n->text().contains("every train window"), qPrintable(n->text()));
    QCOMPARE(panel.config(c).train_size, int64_t{8640 - 96 - 96 + 1});
    panel.findChild<QSpinBox*>("horizon")->setValue(24);
    QCOMPARE(n->value(), 8640 - 96 - 24 + 1);
    panel.findChild<QSpinBox*>("length")->setValue(336);
    QCOMPARE(n->value(), 8640 - 336 - 24 + 1);
    QVERIFY(n->toolTip().contains("L = 336") && n->toolTip().contains("H = 24"));
    panel.findChild<QSpinBox*>("length")->setValue(8640);  // no train window: said, not a count
    QCOMPARE(n->text(), QString("none"));
    QVERIFY2(n->toolTip().contains("no train window"), qPrintable(n->toolTip()));
    panel.findChild<QSpinBox*>("length")->setValue(0);
    panel.findChild<QComboBox*>("protocol")->setCurrentText("split");
    QVERIFY(n->isEnabled());
    QCOMPARE(n->value(), 1024);
    QCOMPARE(n->text(), QString("1024"));
    QCOMPARE(panel.config(c).train_size, int64_t{1024});
    panel.findChild<QComboBox*>("protocol")->setCurrentText("long-horizon");
    QVERIFY(!n->isEnabled());
    c.task.name = "seasonal";  // another task: the user's N again
    panel.setConfig(c);
    QVERIFY(n->isEnabled());
    QCOMPARE(n->value(), 1024);
  }

  // The run setup's spin boxes take the option tables' ranges, the ones validate checks: each end
  // is no range error, one past it is (D was 4..1024 in the panel and 1..8192 in validate).
  void runSetupSpinBoxesHaveTheValidationRanges() {
    RunSetupPanel panel({{"seasonal", ""}, {"lynx", ""}});
    struct Field {
      const char* name;
      std::function<void(RunConfig&, int64_t)> set;
    };
    const std::vector<Field> fields = {
        {"d_model", [](RunConfig& c, int64_t v) { c.model.d_model = v, c.model.heads = 1; }},
        {"heads", [](RunConfig& c, int64_t v) { c.model.heads = v, c.model.d_model = 256; }},
        {"layers", [](RunConfig& c, int64_t v) { c.model.layers = v; }},
        {"length",
         [](RunConfig& c, int64_t v) {
           c.task.name = "lynx";  // 0 = auto: a real series'
           c.task.length = v;
           c.train_size = 1;
           c.task.validation_size = c.task.test_size = 1;
         }},
        {"max_steps", [](RunConfig& c, int64_t v) { c.trainer.max_steps = v; }},
        {"train_size",
         [](RunConfig& c, int64_t v) {
           c.train_size = v;
           c.task.length = 1;
         }},
    };
    auto rangeError = [](const Field& f, int64_t v) {
      RunConfig c = defaultRunConfig();
      f.set(c, v);
      try {
        validate(c);
      } catch (const std::invalid_argument& e) {
        return std::string(e.what()).find("out of range") != std::string::npos;
      }
      return false;
    };
    for (const Field& f : fields) {
      const auto* spin = panel.findChild<QSpinBox*>(f.name);
      QVERIFY2(spin, f.name);
      QVERIFY2(!rangeError(f, spin->minimum()), f.name);
      QVERIFY2(!rangeError(f, spin->maximum()), f.name);
      QVERIFY2(rangeError(f, int64_t{spin->minimum()} - 1), f.name);
      QVERIFY2(rangeError(f, int64_t{spin->maximum()} + 1), f.name);
    }
    QCOMPARE(panel.findChild<QSpinBox*>("d_model")->maximum(), 8192);
  }
};

RSALAB_REGISTER_TEST(TestHyperParameterForm, QTEST_MAIN)
#include "test_widget_hyper_parameter_form.moc"
