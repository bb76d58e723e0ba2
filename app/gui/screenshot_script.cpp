// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/screenshot_script.h"

#include <QAction>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>
#include <functional>
#include <memory>

#include "app/gui/main_window.h"
#include "widgets/run_setup_panel.h"

namespace rsalab {

int screenshotTabIndex(const QString& name) {
  // In the inspector's tab order (InspectorPanel::kInspectorTab …).
  const QStringList tabs = {"attention", "rem", "decay", "gates", "linear-rnn"};
  return int(tabs.indexOf(name));
}

void scheduleScreenshots(MainWindow& window, const ScreenshotScript& script) {
  auto* start = window.findChild<QAction*>("StartAction");
  auto* tabs = window.findChild<QTabWidget*>("InspectorTabs");
  auto* setup = window.findChild<RunSetupPanel*>("RunSetupPanel");
  if (!start || !tabs || !setup) {
    std::fprintf(stderr, "rsalab: --screenshot: the window lacks its toolbar or panels\n");
    return;
  }
  const QString path = script.path;
  const QStringList list = script.shots;
  const QStringList chosen = setup->setup().models;  // the order runs get ids in
  if (script.start_training) QTimer::singleShot(300, &window, [start] { start->trigger(); });
  QTimer::singleShot(
      static_cast<int>(script.after_seconds * 1000), &window,
      [&window, start, tabs, path, list, chosen] {
        if (list.isEmpty()) {
          window.grab().save(path);
          window.setCloseAnswerForTests(1);
          window.close();
          return;
        }
        if (window.isTraining()) start->trigger();  // pause: views hold still for the shots
        auto next = std::make_shared<std::function<void(int)>>();
        *next = [&window, tabs, path, list, chosen, next](int k) {
          if (k >= list.size()) {
            window.setCloseAnswerForTests(1);
            window.close();
            return;
          }
          const QStringList tm = list[k].split(':');
          const int tab = screenshotTabIndex(tm[0]);
          if (tab >= 0) tabs->setCurrentIndex(tab);
          const int run = tm.size() > 1 ? int(chosen.indexOf(tm[1])) : -1;
          if (run >= 0) window.inspectRun(run);  // runs are numbered in model order (first seed)
          QTimer::singleShot(1500, &window, [&window, path, tm, next, k] {
            const QString file =
                QString("%1-%2%3.png").arg(path, tm[0], tm.size() > 1 ? "-" + tm[1] : QString());
            std::printf("%s: %s\n", qPrintable(file),
                        window.grab().save(file) ? "saved" : "NOT saved");
            std::fflush(stdout);
            (*next)(k + 1);
          });
        };
        QTimer::singleShot(800, &window, [next] { (*next)(0); });
      });
}

}  // namespace rsalab
