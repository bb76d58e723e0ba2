// SPDX-License-Identifier: GPL-3.0-or-later
// Atomic saves under SIGKILL: a child process (this executable with --child DIR) saves a
// checkpoint, a config, an export file and a session bundle in a loop; the parent kills it at
// random points, 21 times, and after each kill every file and the bundle still load completely
// and the only leftovers are the documented temporaries `<file>.tmp<pid>` of the killed child
// (which the next save removes) and the bundle's .tmp-/.bak- folders (which the next bundle save
// replaces).
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QThread>
#include <csignal>
#include <iostream>
#include <random>
#include <sstream>

#include "engine/core/config/run_config.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/session/session_bundle.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

RunConfig tinyRun() {
  RunConfig c;
  c.task.length = 16;
  c.task.validation_size = 8;
  c.task.test_size = 8;
  c.model.model = "gru";
  c.model.d_model = 16;
  c.model.layers = 1;
  c.train_size = 32;
  c.trainer.batch_size = 4;
  c.trainer.max_steps = 100000000;
  return c;
}

// An export file that says whether it is whole: a header, `rows` lines, and an end marker.
std::string exportText(int64_t round) {
  std::ostringstream s;
  const int64_t rows = 20000;
  s << "step,value\n";
  for (int64_t i = 0; i < rows; ++i) s << round << "," << i * 0.5 << "\n";
  s << "# end " << rows << "\n";
  return s.str();
}

bool exportIsWhole(const std::string& text) {
  const std::string marker = "# end 20000\n";
  if (text.size() < marker.size() ||
      text.compare(text.size() - marker.size(), marker.size(), marker) != 0) {
    return false;
  }
  return std::count(text.begin(), text.end(), '\n') == 20000 + 2;
}

// A bundle whose one run has `round + 1` train rows (step = row index) and the trainer's
// checkpoint; a loaded bundle is whole when its rows are 0..n−1 and the checkpoint loads.
SessionBundle bundleAt(const Trainer& trainer, int64_t round) {
  SessionBundle b;
  b.config = trainer.config();
  b.models = {"gru"};
  SessionRun run;
  run.id = 0;
  run.model = "gru";
  run.state = RunState::Running;
  for (int64_t i = 0; i <= round; ++i) {
    StepMetrics m;
    m.step = i;
    m.train_loss = 1.0 / static_cast<double>(i + 1);
    run.steps.push_back(m);
  }
  b.runs.push_back(run);
  return b;
}

int childMain(const std::string& dir) {
  rsalab::initRuntime();
  Trainer trainer(tinyRun());
  SessionSaveHooks hooks;
  hooks.write_checkpoint = [&](int64_t, const std::string& path) {
    trainer.saveCheckpoint(path);
    return true;
  };
  for (int64_t round = 0;; ++round) {
    trainer.step();
    trainer.saveCheckpoint(dir + "/checkpoint.pt");
    RunConfig c = trainer.config();
    c.trainer.seed = static_cast<uint64_t>(round);
    writeFileAtomically(dir + "/config.json", toJson(c));
    writeFileAtomically(dir + "/export.csv", exportText(round));
    saveSession(bundleAt(trainer, round), dir + "/session", hooks);
    if (round == 0) std::cout << "saved" << std::endl;
  }
}

QStringList temporaries(const QString& dir) { return QDir(dir).entryList({"*.tmp*"}, QDir::Files); }

}  // namespace

class TestAtomicSaves : public QObject {
  Q_OBJECT
 private slots:
  void killedWhileSavingLeavesThePreviousFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.path().toStdString();
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> delay_ms(0, 60);
    int kills = 0, kills_mid_write = 0, bundle_backups = 0;
    QSet<QString> leftover_names;
    for (int round = 0; round < 21; ++round) {
      QProcess child;
      child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
      child.start(QCoreApplication::applicationFilePath(), {"--child", dir.path()});
      QVERIFY(child.waitForStarted(10000));
      QElapsedTimer ready;
      ready.start();
      while (!child.readAllStandardOutput().contains("saved") && ready.elapsed() < 60000) {
        child.waitForReadyRead(100);
      }
      QVERIFY2(ready.elapsed() < 60000, "the child never saved");
      QThread::msleep(static_cast<unsigned long>(delay_ms(rng)));
      const qint64 child_pid = child.processId();  // 0 once it has exited
      ::kill(static_cast<pid_t>(child_pid), SIGKILL);
      QVERIFY(child.waitForFinished(10000));
      QCOMPARE(child.exitStatus(), QProcess::CrashExit);
      ++kills;
      // Every file loads completely.
      Trainer check(tinyRun());
      check.loadCheckpoint(path + "/checkpoint.pt");
      QVERIFY(check.stepsDone() >= 1);
      const auto config = runConfigFromJson(readTextFile(path + "/config.json", 1 << 20));
      QCOMPARE(config.model.model, std::string("gru"));
      QVERIFY(exportIsWhole(readTextFile(path + "/export.csv", 1 << 26)));
      // The bundle: whole (every row, a loadable checkpoint), from the folder or its backup.
      const auto bundle = loadSession(path + "/session");
      QCOMPARE(bundle.runs.size(), size_t{1});
      const auto& rows = bundle.runs[0].steps;
      QVERIFY(!rows.empty());
      for (size_t i = 0; i < rows.size(); ++i) QCOMPARE(rows[i].step, static_cast<int64_t>(i));
      QVERIFY(!bundle.runs[0].checkpoint_file.empty());
      Trainer from_bundle(tinyRun());
      from_bundle.loadCheckpoint(bundle.runs[0].checkpoint_file);
      if (bundle.loaded_from.find(".bak-") != std::string::npos) ++bundle_backups;
      // Leftovers: only the killed child's documented temporaries, one per file at most.
      const auto temps = temporaries(dir.path());
      const QString pid = QString::number(child_pid);
      for (const auto& name : temps) {
        QVERIFY2(name == "checkpoint.pt.tmp" + pid || name == "config.json.tmp" + pid ||
                     name == "export.csv.tmp" + pid,
                 qPrintable(name));
        leftover_names.insert(name);
      }
      if (!temps.isEmpty()) ++kills_mid_write;
    }
    QCOMPARE(kills, 21);
    qInfo(
        "%d kills, %d of them mid-write (a temporary was left), %d between the bundle's renames "
        "(opened from its backup)",
        kills, kills_mid_write, bundle_backups);
    // The next bundle save leaves exactly one bundle and no temporary or backup folder.
    Trainer last(tinyRun());
    saveSession(bundleAt(last, 3), path + "/session");
    QCOMPARE(QDir(dir.path()).entryList({"session*"}, QDir::Dirs), QStringList{"session.rsalab"});
    QCOMPARE(loadSession(path + "/session").runs[0].steps.size(), size_t{4});
    // The next save of each file removes the dead writers' temporaries.
    writeFileAtomically(path + "/checkpoint.pt", readTextFile(path + "/checkpoint.pt", 1 << 26));
    writeFileAtomically(path + "/config.json", readTextFile(path + "/config.json", 1 << 20));
    writeFileAtomically(path + "/export.csv", readTextFile(path + "/export.csv", 1 << 26));
    QCOMPARE(temporaries(dir.path()), QStringList());
  }
};

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--child") return childMain(argv[2]);
  rsalab::initRuntime();
  QCoreApplication app(argc, argv);
  TestAtomicSaves test;
  return QTest::qExec(&test, argc, argv);
}
#include "test_atomic_saves.moc"
