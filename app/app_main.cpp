// rsalab: the desktop app. Opens on a built-in seasonal task with RNN, Transformer and RSA
// selected. --screenshot PATH [--after SECONDS] starts training, saves a PNG of the window and
// quits (for docs and checks under Xvfb/offscreen). --session DIR opens a saved session (a
// .rsalab folder, e.g. from `rsalab-cli sweep --session DIR`) at start.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>
#include <cstring>
#include <string>

#include "app/main_window.h"
#include "engine/runtime.h"

namespace {

// QGuiApplication takes "-session"/"--session ID" for X11 session management and removes it from
// argv, so our --session DIR is taken out before QApplication sees the arguments.
QString takeSessionArgument(int& argc, char** argv) {
  QString dir;
  for (int i = 1; i < argc; ++i) {
    int used = 0;
    if (std::strcmp(argv[i], "--session") == 0 && i + 1 < argc) {
      dir = QString::fromLocal8Bit(argv[i + 1]);
      used = 2;
    } else if (std::strncmp(argv[i], "--session=", 10) == 0) {
      dir = QString::fromLocal8Bit(argv[i] + 10);
      used = 1;
    }
    if (used) {
      for (int k = i; k + used <= argc; ++k) argv[k] = argv[k + used];  // keeps argv[argc] == nullptr
      argc -= used;
      break;
    }
  }
  return dir;
}

}  // namespace

int main(int argc, char** argv) {
  rsalab::initRuntime();
  const QString session_dir = takeSessionArgument(argc, argv);
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
  const bool offline = !session_dir.isEmpty();  // the option is listed in --help; parsed above
  if (offline && !window.openSession(session_dir)) {
    std::fprintf(stderr, "rsalab: cannot open the session %s (the window's log says why)\n", qPrintable(session_dir));
    return 1;
  }
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
