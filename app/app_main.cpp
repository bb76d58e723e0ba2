// rsalab: the desktop app. Opens on a built-in seasonal task with RNN, Transformer and RSA
// selected. --screenshot PATH [--after SECONDS] starts training, saves a PNG of the window and
// quits (for docs and checks under Xvfb/offscreen). --sweep-results FILE opens a sweep.json from
// rsalab-cli in the Sample efficiency tab; --sweep MODELS:SIZES:SEEDS:STEPS starts a sweep there
// (with either, --screenshot shows that tab and does not start a training session).
#include <QApplication>
#include <QCommandLineParser>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>

#include "app/main_window.h"
#include "app/sweep_dialog.h"
#include "app/sweep_panel.h"
#include "engine/runtime.h"

int main(int argc, char** argv) {
  rsalab::initRuntime();
  QApplication app(argc, argv);
  QApplication::setApplicationName("RSA Lab");
  QApplication::setOrganizationName("RSA Lab");
  QApplication::setApplicationVersion(RSALAB_VERSION);
  QCommandLineParser parser;
  parser.setApplicationDescription("RSA Lab: recurrence and attention, side by side");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Start training, save a PNG of the window, quit.", "path");
  QCommandLineOption after("after", "Seconds of training before the screenshot.", "seconds", "8");
  QCommandLineOption sweep_results("sweep-results", "Open a sweep.json in the Sample efficiency tab.", "file");
  QCommandLineOption sweep("sweep", "Start a sweep, e.g. rnn,rsa:16,64,256:2:150 (models:sizes:seeds:steps).", "spec");
  parser.addOptions({screenshot, after, sweep_results, sweep});
  parser.process(app);

  rsalab::MainWindow window;
  window.show();
  auto* panel = window.sweepPanel();
  if (parser.isSet(sweep_results)) {
    QString error;
    window.centralTabs()->setCurrentWidget(panel);
    if (!panel->loadResults(parser.value(sweep_results), &error)) {
      qCritical("rsalab: %s", qPrintable(error));
      return 1;
    }
  }
  if (parser.isSet(sweep)) {
    const QStringList parts = parser.value(sweep).split(':');
    auto* dialog = panel->dialog();
    panel->openDialog();  // takes the run setup's task and architecture
    if (parts.size() > 0) dialog->setModels(parts[0].split(','));
    if (parts.size() > 1) dialog->setSizesText(parts[1]);
    if (parts.size() > 2) dialog->setSeeds(parts[2].toInt());
    if (parts.size() > 3) dialog->setSteps(parts[3].toInt());
    window.centralTabs()->setCurrentWidget(panel);
    dialog->startButton()->click();
    if (!panel->isRunning()) {
      qCritical("rsalab: --sweep %s: could not start the sweep", qPrintable(parser.value(sweep)));
      return 1;
    }
    dialog->hide();
  }
  if (parser.isSet(screenshot)) {
    const QString path = parser.value(screenshot);
    const bool sweep_view = parser.isSet(sweep_results) || parser.isSet(sweep);
    if (!sweep_view) QTimer::singleShot(300, &window, [&window] { window.startAction()->trigger(); });
    QTimer::singleShot(static_cast<int>(parser.value(after).toDouble() * 1000), &window, [&window, path] {
      window.grab().save(path);
      window.setCloseAnswerForTests(1);
      window.close();
    });
  }
  return app.exec();
}
