// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab: the desktop app. Opens on the default launch (defaultLaunchConfig in
// engine/core/config/run_config.h: the mix task, half recurrent, T = 32, N = 256) with the model
// registry's default models selected. --preset NAME starts a preset (Presets menu). --screenshot
// PATH [--after SECONDS] starts training, saves a PNG of the window and quits (for docs and checks
// under Xvfb/offscreen). The setup flags (--task, --models, --heads,
// --length, --steps, --teacher, --teacher-process) choose what trains; --shots TAB:MODEL,... saves
// one PNG per entry instead (PATH-TAB-MODEL.png), TAB one of attention, rem, decay, gates,
// linear-rnn, after inspecting the first run of MODEL.
// --session DIR opens a saved session (a .rsalab folder, e.g. from `rsalab-cli sweep --session
// DIR`) at start; so does `rsalab DIR` (the desktop entry's Exec=rsalab %f), and `rsalab FILE` for
// a file inside such a folder (its manifest.json, say) opens the folder.
// --sweep-results FILE opens a sweep.json from rsalab-cli in the Sample efficiency tab; --sweep
// MODELS:SIZES:SEEDS:STEPS starts a sweep there (with either, --screenshot shows that tab and does
// not start a training session).
// --paper-table FILE opens a saved paper table (`rsalab-cli paper-table --json FILE`, e.g.
// docs/data/paper_table.json) in the RSA paper's table tab (with --screenshot, that tab is shown
// and nothing trains).
// --sweep-dir DIR shows a sweep folder (plan.json + cells/, from `rsalab-cli sweep --slurm` or
// `--plan`) in the Sample efficiency tab and keeps adding cells as they are written.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QPushButton>
#include <QTabWidget>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "app/gui/main_window.h"
#include "app/gui/screenshot_script.h"
#include "app/gui/sweep_dialog.h"
#include "app/gui/sweep_panel.h"
#include "app/gui/window_settings.h"
#include "engine/core/config/model_variant.h"
#include "engine/runtime.h"
#include "widgets/run_setup_panel.h"

namespace {

// "regular:0.8,cos:0.9:0.5236" → teacher terms; false with a message naming the term when bad.
bool parseTeacher(const QString& text, rsalab::TaskOptions& task, QString& error) {
  task.teacher_kinds.clear();
  task.teacher_bases.clear();
  task.teacher_thetas.clear();
  for (const QString& term : text.split(',', Qt::SkipEmptyParts)) {
    const QStringList p = term.split(':');
    bool ok_base = p.size() >= 2, ok_theta = true;
    const double base = ok_base ? p[1].toDouble(&ok_base) : 0;
    const double theta = p.size() >= 3 ? p[2].toDouble(&ok_theta) : 0;
    const auto kind = rsalab::parseEnum<rsalab::TeacherKind>(p[0].toStdString());
    if (!ok_base || !ok_theta || !kind || (kind == rsalab::TeacherKind::Cos && p.size() != 3)) {
      error = QString("--teacher term '%1': use regular:BASE or cos:GAMMA:THETA").arg(term);
      return false;
    }
    task.teacher_kinds.push_back(*kind);
    task.teacher_bases.push_back(base);
    task.teacher_thetas.push_back(theta);
  }
  return true;
}

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
      for (int k = i; k + used <= argc; ++k)
        argv[k] = argv[k + used];  // keeps argv[argc] == nullptr
      argc -= used;
      break;
    }
  }
  return dir;
}

// `rsalab PATH`: PATH itself when it is a folder, else the folder of the file (a file manager or
// the desktop entry may hand over a file inside NAME.rsalab/).
QString sessionFolderOf(const QString& path) {
  const QFileInfo info(path);
  return info.isFile() ? info.absolutePath() : path;
}

// --help, --help-all and --version only print: without a display (no X server, no
// QT_QPA_PLATFORM) they must not need one, so they run on the offscreen platform.
bool printsOnly(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"-h", "--help", "--help-all", "-v", "--version"})
      if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  rsalab::initRuntime();
  QString session_dir = takeSessionArgument(argc, argv);
  if (printsOnly(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setApplicationName("RSA Lab");
  QApplication::setOrganizationName("RSA Lab");
  QApplication::setApplicationVersion(RSALAB_VERSION);
  QCommandLineParser parser;
  parser.setApplicationDescription("RSA Lab: recurrence and attention, side by side");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Start training, save a PNG of the window, quit.",
                                "path");
  QCommandLineOption after("after", "Seconds of training before the screenshot.", "seconds", "8");
  QCommandLineOption shots(
      "shots", "Screenshots TAB:MODEL,... (tabs: attention, rem, decay, gates, linear-rnn).",
      "list");
  QCommandLineOption task("task", "Task of the run setup.", "name");
  QCommandLineOption csv("csv", "A CSV series as the task (as File > Import CSV does).", "path");
  QCommandLineOption horizon("horizon", "Forecast horizon H of --csv or of --task (e.g. etth1).",
                             "n", "1");
  QCommandLineOption models("models", "Models, comma separated.", "list");
  QCommandLineOption heads("heads", "Attention heads.", "n");
  QCommandLineOption length("length", "Sequence length T.", "n");
  QCommandLineOption steps("steps", "Maximum steps per run.", "n");
  QCommandLineOption teacher("teacher", "Teacher terms, e.g. regular:0.8,cos:0.9:0.5236.", "terms");
  QCommandLineOption teacher_process("teacher-process",
                                     QString::fromStdString(rsalab::teacherProcessHelp()), "name");
  QCommandLineOption session("session", "Open a saved session (.rsalab folder) at start.", "dir");
  QCommandLineOption sweep_results("sweep-results",
                                   "Open a sweep.json in the Sample efficiency tab.", "file");
  QCommandLineOption sweep(
      "sweep", "Start a sweep, e.g. rnn,rsa:16,64,256:2:150 (models:sizes:seeds:steps).", "spec");
  QCommandLineOption preset("preset", "Start a preset (Presets menu), e.g. recover.", "name");
  QCommandLineOption paper_table(
      "paper-table", "Open a saved paper table (rsalab-cli paper-table --json) in its tab.",
      "file");
  QCommandLineOption sweep_dir(
      "sweep-dir", "Watch a sweep folder (plan.json + cells/) fill in, e.g. from a Slurm job.",
      "dir");
  parser.addOptions({screenshot, after, shots, task, csv, horizon, models, heads, length, steps,
                     teacher, teacher_process, session, sweep_results, sweep, sweep_dir,
                     paper_table, preset});
  parser.addPositionalArgument(
      "session", "A saved session (NAME.rsalab folder) to open, as --session.", "[session]");
  parser.process(app);
  const QStringList positional = parser.positionalArguments();
  if (positional.size() + (session_dir.isEmpty() ? 0 : 1) > 1) {
    std::fprintf(stderr, "rsalab: one session at a time (a PATH or --session DIR)\n");
    return 2;
  }
  if (!positional.isEmpty()) session_dir = sessionFolderOf(positional.first());

  rsalab::MainWindow window;
  auto* setup_panel = window.findChild<rsalab::RunSetupPanel*>("RunSetupPanel");
  auto* panel = window.findChild<rsalab::SweepPanel*>("SweepPanel");
  auto* tabs = window.findChild<QTabWidget*>("InspectorTabs");
  auto setup = setup_panel->setup();
  if (parser.isSet(task)) {  // a real series brings its own defaults; the flags below win
    setup.config.task.name = parser.value(task).toStdString();
    setup_panel->setSetup(setup);
    window.applyTaskKindDefaults(parser.value(task));
    setup = setup_panel->setup();
  }
  if (parser.isSet(csv)) {  // the imported series' defaults, as a drop of the file gives them
    window.csv()->setTask(parser.value(csv), std::max(1, parser.value(horizon).toInt()), true);
    setup = setup_panel->setup();
    setup.config.task.name = rsalab::csvPathTaskName();
  }
  if (parser.isSet(models)) {  // a named variant's commas kept (model_variant.h)
    setup.models.clear();
    for (const auto& m : rsalab::splitModelList(parser.value(models).toStdString()))
      if (!m.empty()) setup.models << QString::fromStdString(m);
  }
  if (parser.isSet(heads)) setup.config.model.heads = parser.value(heads).toInt();
  if (parser.isSet(length)) setup.config.task.length = parser.value(length).toInt();
  if (parser.isSet(horizon) && !parser.isSet(csv))  // a bundled series' H (the protocol's)
    setup.config.task.horizon = std::max(1, parser.value(horizon).toInt());
  if (parser.isSet(steps)) setup.config.trainer.max_steps = parser.value(steps).toLongLong();
  if (parser.isSet(teacher_process)) {
    const auto process =
        rsalab::parseEnum<rsalab::TeacherProcess>(parser.value(teacher_process).toStdString());
    if (!process) {
      std::fprintf(stderr, "rsalab: --teacher-process %s is unknown: use %s\n",
                   qPrintable(parser.value(teacher_process)),
                   rsalab::enumChoices<rsalab::TeacherProcess>().c_str());
      return 2;
    }
    setup.config.task.teacher_process = *process;
  }
  setup_panel->setSetup(setup);
  if (parser.isSet(teacher)) {
    rsalab::TaskOptions t;
    QString error;
    if (!parseTeacher(parser.value(teacher), t, error)) {
      std::fprintf(stderr, "%s\n", qPrintable(error));
      return 2;
    }
    window.setTaskDefaults(t);
  }
  window.show();
  const bool offline = !session_dir.isEmpty();  // the option is listed in --help; parsed above
  QString session_error;
  if (offline && !window.sessions()->open(session_dir, &session_error)) {
    std::fprintf(stderr, "rsalab: cannot open the session %s: %s\n", qPrintable(session_dir),
                 qPrintable(session_error));
    return 1;
  }
  if (parser.isSet(sweep_results)) {
    QString error;
    tabs->setCurrentWidget(panel);
    if (!panel->loadResults(parser.value(sweep_results), &error)) {
      qCritical("rsalab: %s", qPrintable(error));
      return 1;
    }
  }
  if (parser.isSet(paper_table)) {
    QString error;
    if (!window.presets()->openPaperTable(parser.value(paper_table), &error)) {
      std::fprintf(stderr, "rsalab: --paper-table: %s\n", qPrintable(error));
      return 1;
    }
  }
  if (parser.isSet(sweep_dir)) {
    QString error;
    if (!window.openSweepFolder(parser.value(sweep_dir), &error)) {
      std::fprintf(stderr, "rsalab: cannot open the sweep folder %s: %s\n",
                   qPrintable(parser.value(sweep_dir)), qPrintable(error));
      return 1;
    }
  }
  if (parser.isSet(sweep)) {
    const QStringList parts = parser.value(sweep).split(':');
    auto* dialog = panel->dialog();
    panel->openDialog();  // takes the run setup's task and architecture
    if (parts.size() > 0) {
      QStringList names;  // a named variant's commas kept
      for (const auto& m : rsalab::splitModelList(parts[0].toStdString()))
        names << QString::fromStdString(m);
      dialog->setModels(names);
    }
    if (parts.size() > 1) dialog->setSizesText(parts[1]);
    if (parts.size() > 2) dialog->setSeeds(parts[2].toInt());
    if (parts.size() > 3) dialog->setSteps(parts[3].toInt());
    tabs->setCurrentWidget(panel);
    dialog->startButton()->click();
    if (!panel->isRunning()) {
      qCritical("rsalab: --sweep %s: could not start the sweep", qPrintable(parser.value(sweep)));
      return 1;
    }
    dialog->hide();
  }
  if (parser.isSet(preset) && !window.presets()->apply(parser.value(preset))) {
    std::fprintf(stderr, "rsalab: unknown preset %s\n", qPrintable(parser.value(preset)));
    return 2;
  }
  if (parser.isSet(screenshot)) {
    rsalab::ScreenshotScript script;
    script.path = parser.value(screenshot);
    script.after_seconds = parser.value(after).toDouble();
    script.shots = parser.value(shots).split(',', Qt::SkipEmptyParts);
    script.start_training = !offline && !parser.isSet(sweep_results) && !parser.isSet(sweep) &&
                            !parser.isSet(sweep_dir) && !parser.isSet(preset) &&
                            !parser.isSet(paper_table);
    rsalab::scheduleScreenshots(window, script);
  }
  return app.exec();
}
