// rsalab: the desktop app. Opens on a built-in seasonal task with RNN, Transformer and RSA
// selected. --screenshot PATH [--after SECONDS] starts training, saves a PNG of the window and
// quits (for docs and checks under Xvfb/offscreen). --session DIR opens a saved session (a
// .rsalab folder, e.g. from `rsalab-cli sweep --session DIR`) at start.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include "app/main_window.h"
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
  QCommandLineOption session("session", "Open a saved session (.rsalab folder) at start.", "dir");
  parser.addOptions({screenshot, after, session});
  parser.process(app);

  rsalab::MainWindow window;
  window.show();
  const bool offline = parser.isSet(session);
  if (offline && !window.openSession(parser.value(session))) return 1;
  if (parser.isSet(screenshot)) {
    const QString path = parser.value(screenshot);
    if (!offline) QTimer::singleShot(300, &window, [&window] { window.startAction()->trigger(); });
    QTimer::singleShot(static_cast<int>(parser.value(after).toDouble() * 1000), &window, [&window, path] {
      window.grab().save(path);
      window.setCloseAnswerForTests(1);
      window.close();
    });
  }
  return app.exec();
}
