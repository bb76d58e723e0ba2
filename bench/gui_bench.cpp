// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-gui-bench: what the inspector's heat maps cost the GUI thread, alone and while runs train.
//   redraw   full redraws of 8 heat maps of 128×128 (fresh data each time, setCell + replot), as
//            one HeatMapGrid (2 × 4, what the app uses) and as 8 separate HeatMapViews:
//            median, p99, min, max ms per full redraw
//   latency  GUI event-loop latency while the GUI's default launch (defaultLaunchConfig(), the
//            registry's defaultModelNames(), no step limit or early stop) trains and the 8-map
//            grid redraws every 40 ms: lateness of a 5 ms precise timer, p50 / p99 / max ms; and
//            the runs' aggregate steps/s, with runs stepping in parallel (one per core, the
//            default) and interleaved on the worker thread alone (before parallel runs), back to
//            back in one process
//   anchors  with --csv PATH (e.g. ETTh1.csv) and --horizon H: the same lateness while the default
//            models train on that series and its forecasting anchors are fitted in the background
//            (from Start until the anchors arrive as runsUpdated), with the time to every run's
//            first step and to the anchors
// Run offscreen (QT_QPA_PLATFORM=offscreen is set unless the caller set a platform). Prints a
// table; --json PATH also writes the figures. Timings depend on the machine and its load.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "app/gui/training_controller.h"
#include "app/gui/training_worker.h"
#include "engine/core/config/model_options.h"
#include "engine/core/config/run_config.h"
#include "engine/core/registry/model_registry.h"
#include "engine/runtime.h"
#include "widgets/heat_map_grid.h"
#include "widgets/heat_map_view.h"

using namespace rsalab;

namespace {

constexpr int kMaps = 8, kSide = 128;

struct Stats {
  double median = 0, p99 = 0, min = 0, max = 0;
  int n = 0;
};

Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = static_cast<int>(v.size());
  s.median = v[v.size() / 2];
  s.p99 = v[std::min(v.size() - 1, v.size() * 99 / 100)];
  s.min = v.front();
  s.max = v.back();
  return s;
}

Matrix randomMatrix(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0.f, 1.f);
  Matrix m;
  m.rows = m.cols = kSide;
  m.values.resize(kSide * kSide);
  for (auto& v : m.values) v = u(rng);
  return m;
}

void fillGrid(HeatMapGrid& grid, std::mt19937& rng) {
  for (int k = 0; k < kMaps; ++k)
    grid.setCell(k / 4, k % 4, randomMatrix(rng), QString("L%1 H%2").arg(k / 4).arg(k % 4));
}

Stats benchGrid(int repeats) {
  HeatMapGrid grid;
  grid.resize(1200, 700);
  grid.setGridSize(2, 4);
  grid.show();
  std::mt19937 rng(1);
  std::vector<double> ms;
  for (int i = 0; i < repeats + 5; ++i) {
    QElapsedTimer t;
    t.start();
    fillGrid(grid, rng);
    grid.flush();
    if (i >= 5) ms.push_back(t.nsecsElapsed() / 1e6);  // the first few warm caches up
    QCoreApplication::processEvents();
  }
  return stats(ms);
}

Stats benchViews(int repeats) {
  QWidget host;
  host.resize(1200, 700);
  std::vector<HeatMapView*> views;
  for (int k = 0; k < kMaps; ++k) {
    auto* v = new HeatMapView(&host);
    v->setGeometry((k % 4) * 300, (k / 4) * 350, 300, 350);
    views.push_back(v);
  }
  host.show();
  std::mt19937 rng(2);
  std::vector<double> ms;
  for (int i = 0; i < repeats + 5; ++i) {
    QElapsedTimer t;
    t.start();
    for (auto* v : views) {
      v->setMatrix(randomMatrix(rng));
      v->flush();
    }
    if (i >= 5) ms.push_back(t.nsecsElapsed() / 1e6);
    QCoreApplication::processEvents();
  }
  return stats(ms);
}

// Event-loop lateness: a precise single-shot timer re-armed from its own callback, lateness =
// fire time − (arm time + 5 ms), so one late tick does not make the next look early.
class LatenessProbe {
 public:
  LatenessProbe() {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setSingleShot(true);
    QObject::connect(&timer_, &QTimer::timeout, [this] {
      const double now = clock_.nsecsElapsed() / 1e6;
      late_.push_back(now - due_);
      due_ = now + 5;
      timer_.start(5);
    });
  }
  void start() {
    clock_.start();
    due_ = 5;
    timer_.start(5);
  }
  void stop() { timer_.stop(); }
  Stats lateness() const { return stats(late_); }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  double due_ = 5;
  std::vector<double> late_;
};

struct Latency {
  Stats late;
  int runs = 0;
  int redraws = 0;
  qint64 steps = 0;  // all runs' steps while probed
  double seconds = 0;
  double stepsPerSecond() const { return seconds > 0 ? static_cast<double>(steps) / seconds : 0; }
};

// parallel: TrainingWorker::setParallelRuns (0 one run per core, 1 interleaved).
Latency benchLatency(double seconds, int parallel) {
  // Declared in this order so that statuses still queued when the controller goes are dropped with
  // `receiver` before `steps` is destroyed; the receiver makes the handler run on this thread.
  std::map<int, qint64> steps;  // per run, the last step reported
  QObject receiver;
  TrainingController controller;
  QMetaObject::invokeMethod(
      controller.worker(),
      [&controller, parallel] { controller.worker()->setParallelRuns(parallel); },
      Qt::QueuedConnection);
  // The GUI's default launch, with no step limit and no early stop.
  RunConfig c = defaultLaunchConfig();
  c.trainer.max_steps = 1000000;
  c.trainer.patience = 0;
  Latency out;
  QStringList models;
  for (const auto& name : defaultModelNames()) models << QString::fromStdString(name);
  out.runs = static_cast<int>(models.size());
  auto total = [&steps] {
    qint64 n = 0;
    for (const auto& [run, step] : steps) n += step;
    return n;
  };
  QObject::connect(
      controller.worker(), &TrainingWorker::status, &receiver,
      [&steps](int run, const RunStatus& s) { steps[run] = std::max<qint64>(steps[run], s.step); });
  HeatMapGrid grid;
  grid.resize(1200, 700);
  grid.setGridSize(2, 4);
  grid.show();
  std::mt19937 rng(3);
  QTimer redraw;
  QObject::connect(&redraw, &QTimer::timeout, [&] {
    fillGrid(grid, rng);
    grid.flush();
    ++out.redraws;
  });
  controller.start(c, models, 1);
  QEventLoop warm;  // until the runs are built and stepping (at most 30 s)
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (static_cast<int>(steps.size()) == out.runs && total() >= out.runs) warm.quit();
  });
  poll.start(50);
  QTimer::singleShot(30000, &warm, &QEventLoop::quit);
  warm.exec();
  poll.stop();
  const qint64 steps_before = total();
  LatenessProbe probe;
  probe.start();
  redraw.start(40);
  QElapsedTimer probed;
  probed.start();
  QEventLoop loop;
  QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
  loop.exec();
  probe.stop();
  redraw.stop();
  controller.stop();
  out.seconds = probed.nsecsElapsed() / 1e9;
  out.late = probe.lateness();
  out.steps = total() - steps_before;  // steps taken while probing
  return out;
}

struct AnchorLatency {
  Stats late;
  double first_step_s = -1;  // Start → every run has stepped
  double anchors_s = -1;     // Start → the anchors arrived (runsUpdated); -1: not within the wait
  int runs = 0;
};

AnchorLatency benchAnchorLatency(const QString& csv, int horizon, double max_seconds) {
  std::map<int, qint64> steps;
  QObject receiver;
  TrainingController controller;
  RunConfig c = defaultLaunchConfig();
  c.task.name = csvPathTaskName();
  c.task.csv_path = csv.toStdString();
  c.task.horizon = horizon;
  c = realSeriesDefaults(c);
  c.trainer.max_steps = 1000000;
  c.trainer.patience = 0;
  QStringList models;
  for (const auto& name : defaultModelNames()) models << QString::fromStdString(name);
  AnchorLatency out;
  out.runs = static_cast<int>(models.size());
  QElapsedTimer clock;
  QEventLoop loop;
  QObject::connect(controller.worker(), &TrainingWorker::status, &receiver,
                   [&](int run, const RunStatus& s) {
                     steps[run] = std::max<qint64>(steps[run], s.step);
                     if (out.first_step_s < 0 && static_cast<int>(steps.size()) == out.runs) {
                       bool all = true;
                       for (const auto& [run, step] : steps) all = all && step >= 1;
                       if (all) out.first_step_s = clock.nsecsElapsed() / 1e9;
                     }
                   });
  QObject::connect(controller.worker(), &TrainingWorker::runsUpdated, &receiver,
                   [&](const QVector<Run>&) {
                     if (out.anchors_s < 0) out.anchors_s = clock.nsecsElapsed() / 1e9;
                     loop.quit();
                   });
  LatenessProbe probe;
  clock.start();
  controller.start(c, models, 1);
  probe.start();
  QTimer::singleShot(static_cast<int>(max_seconds * 1000), &loop, &QEventLoop::quit);
  loop.exec();
  probe.stop();
  controller.stop();
  out.late = probe.lateness();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  initRuntime();
  QApplication app(argc, argv);
  QCommandLineParser parser;
  parser.setApplicationDescription(
      "RSA Lab GUI benchmark: heat-map redraw cost, event-loop latency");
  parser.addHelpOption();
  QCommandLineOption json("json", "Also write the figures as JSON.", "path");
  QCommandLineOption repeats("repeats", "Redraws timed per variant.", "n", "200");
  QCommandLineOption seconds("seconds", "Seconds of latency probing while training.", "s", "8");
  QCommandLineOption csv(
      "csv", "Only the anchors' latency: train on this CSV while its anchors are fitted.", "path");
  QCommandLineOption horizon("horizon", "Forecast horizon with --csv.", "H", "24");
  parser.addOptions({json, repeats, seconds, csv, horizon});
  parser.process(app);
  if (parser.isSet(csv)) {
    const auto a = benchAnchorLatency(parser.value(csv), parser.value(horizon).toInt(), 300);
    std::printf("rsalab-gui-bench --csv %s --horizon %d (%s)\n", qPrintable(parser.value(csv)),
                parser.value(horizon).toInt(), qPrintable(QGuiApplication::platformName()));
    std::printf("%-46s %9s %9s %9s %9s %6s\n", "measure (ms)", "median", "p99", "min", "max", "n");
    std::printf("%-46s %9.2f %9.2f %9.2f %9.2f %6d\n",
                qPrintable(QString("event-loop lateness, %1 runs + anchors").arg(a.runs)),
                a.late.median, a.late.p99, a.late.min, a.late.max, a.late.n);
    std::printf("every run's first step after %.1f s; anchors drawn after %.1f s\n", a.first_step_s,
                a.anchors_s);
    std::printf(
        "target: event-loop lateness p99 while the anchors are fitted %.2f ms <= 20 ms  %s\n",
        a.late.p99, a.late.p99 <= 20 ? "MET" : "NOT MET");
    return 0;
  }
  const int n = std::max(10, parser.value(repeats).toInt());

  const Stats grid = benchGrid(n);
  const Stats views = benchViews(n);
  const double probe_s = std::max(1.0, parser.value(seconds).toDouble());
  const Latency before = benchLatency(probe_s, 1);
  const Latency lat = benchLatency(probe_s, 0);

  std::printf("rsalab-gui-bench (%s)\n", qPrintable(QGuiApplication::platformName()));
  std::printf("%-46s %9s %9s %9s %9s %6s\n", "measure (ms)", "median", "p99", "min", "max", "n");
  auto row = [](const char* name, const Stats& s) {
    std::printf("%-46s %9.2f %9.2f %9.2f %9.2f %6d\n", name, s.median, s.p99, s.min, s.max, s.n);
  };
  row("redraw 8 maps 128x128, one HeatMapGrid 2x4", grid);
  row("redraw 8 maps 128x128, 8 HeatMapViews", views);
  const QString interleaved =
      QString("event-loop lateness, %1 runs interleaved + grid").arg(before.runs);
  row(qPrintable(interleaved), before.late);
  const QString parallel = QString("event-loop lateness, %1 runs in parallel + grid").arg(lat.runs);
  row(qPrintable(parallel), lat.late);
  std::printf(
      "default launch, aggregate steps/s while probed: interleaved %.1f (%lld steps), "
      "parallel %.1f (%lld steps): x%.2f\n",
      before.stepsPerSecond(), static_cast<long long>(before.steps), lat.stepsPerSecond(),
      static_cast<long long>(lat.steps),
      before.stepsPerSecond() > 0 ? lat.stepsPerSecond() / before.stepsPerSecond() : 0.0);
  std::printf("target: event-loop lateness p99 under that load %.2f ms <= 20 ms  %s\n",
              lat.late.p99, lat.late.p99 <= 20 ? "MET" : "NOT MET");
  std::printf("target: aggregate steps/s >= 1.8x interleaved: x%.2f  %s\n",
              before.stepsPerSecond() > 0 ? lat.stepsPerSecond() / before.stepsPerSecond() : 0.0,
              lat.stepsPerSecond() >= 1.8 * before.stepsPerSecond() ? "MET" : "NOT MET");
  if (parser.isSet(json)) {
    auto obj = [](const Stats& s) {
      return QJsonObject{{"median_ms", s.median},
                         {"p99_ms", s.p99},
                         {"min_ms", s.min},
                         {"max_ms", s.max},
                         {"n", s.n}};
    };
    QJsonObject root{{"platform", QGuiApplication::platformName()},
                     {"redraw_grid_8x128", obj(grid)},
                     {"redraw_views_8x128", obj(views)},
                     {"event_loop_lateness_training", obj(lat.late)},
                     {"latency_redraws", lat.redraws},
                     {"latency_steps_while_probed", static_cast<double>(lat.steps)},
                     {"event_loop_lateness_interleaved", obj(before.late)},
                     {"steps_per_second_interleaved", before.stepsPerSecond()},
                     {"steps_per_second_parallel", lat.stepsPerSecond()}};
    QFile f(parser.value(json));
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(root).toJson()) < 0) {
      std::fprintf(stderr, "cannot write %s\n", qPrintable(parser.value(json)));
      return 1;
    }
  }
  return 0;
}
