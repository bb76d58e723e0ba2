// Atomic saves under SIGKILL: a child process (this executable with --child DIR) saves a
// checkpoint, a config and an export file in a loop; the parent kills it at random points, 21
// times, and after each kill every file still loads completely and the only leftovers are the
// documented temporaries `<file>.tmp<pid>` of the killed child, which the next save removes.
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

#include "engine/atomic_file.h"
#include "engine/run_config.h"
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
  if (text.size() < marker.size() || text.compare(text.size() - marker.size(), marker.size(), marker) != 0) {
    return false;
  }
  return std::count(text.begin(), text.end(), '\n') == 20000 + 2;
}

int childMain(const std::string& dir) {
  rsalab::initRuntime();
  Trainer trainer(tinyRun());
  for (int64_t round = 0;; ++round) {
    trainer.step();
    trainer.saveCheckpoint(dir + "/checkpoint.pt");
    RunConfig c = trainer.config();
    c.trainer.seed = static_cast<uint64_t>(round);
    writeFileAtomically(dir + "/config.json", toJson(c));
    writeFileAtomically(dir + "/export.csv", exportText(round));
    if (round == 0) std::cout << "saved" << std::endl;
  }
}

QStringList temporaries(const QString& dir) {
  return QDir(dir).entryList({"*.tmp*"}, QDir::Files);
}

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
    int kills = 0, kills_mid_write = 0;
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
    qInfo("%d kills, %d of them mid-write (a temporary was left)", kills, kills_mid_write);
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
