// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/training_controller.h"

#include "app/gui/training_worker.h"
#include "widgets/number_text.h"

namespace rsalab {

void registerRunMessageTypes() {
  qRegisterMetaType<Run>();
  qRegisterMetaType<QVector<Run>>();
  qRegisterMetaType<MetricsBatch>();
  qRegisterMetaType<RunStatus>();
  qRegisterMetaType<InspectionSnapshot>();
  qRegisterMetaType<RunConfig>();
  qRegisterMetaType<HotParameters>();
}

TrainingController::TrainingController(QObject* parent)
    : QObject(parent), worker_(new TrainingWorker) {
  registerRunMessageTypes();
  thread_.setObjectName("rsalab-training");
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_.start();
}

template <typename Command>
void TrainingController::post(Command command) {
  TrainingWorker* worker = worker_;
  QMetaObject::invokeMethod(
      worker_, [worker, command] { command(worker); }, Qt::QueuedConnection);
}

TrainingController::~TrainingController() {
  worker_->stopFlag() = true;  // seen between steps, even mid-tick
  post([](TrainingWorker* w) { w->stop(); });
  thread_.quit();
  thread_.wait();
}

void TrainingController::start(const RunConfig& base, const QStringList& models, int seeds) {
  worker_->stopFlag() = false;
  post([base, models, seeds](TrainingWorker* w) { w->start(base, models, seeds); });
}

void TrainingController::setPaused(bool paused) {
  post([paused](TrainingWorker* w) { w->setPaused(paused); });
}

void TrainingController::stepOnce() {
  post([](TrainingWorker* w) { w->stepOnce(); });
}

void TrainingController::stop() {
  worker_->stopFlag() = true;
  post([](TrainingWorker* w) { w->stop(); });
}

void TrainingController::reset() {
  worker_->stopFlag() = true;
  post([](TrainingWorker* w) { w->reset(); });
}

void TrainingController::setHot(const HotParameters& hot) {
  post([hot](TrainingWorker* w) { w->setHot(hot); });
}

void TrainingController::resetHot(const TrainerOptions& t) { hot_ = t; }

QString TrainingController::editHot(const QString& name, double value) {
  const auto before = applyHotEdit(hot_, name.toStdString(), value);  // the table's hot rows
  if (!before) return {};
  if (name == "snapshot_every") return QString("snapshots every %1").arg(value);
  return QString("%1 %2 → %3")
      .arg(name == "learning_rate" ? "lr" : name)
      .arg(numberText(*before))
      .arg(numberText(value));
}

void TrainingController::requestInspection(int run, int sample) {
  post([run, sample](TrainingWorker* w) { w->requestInspection(run, sample); });
}

void TrainingController::restoreLastGood(int run) {
  post([run](TrainingWorker* w) { w->restoreLastGood(run); });
}

void TrainingController::setFaultsForTests(int run, const TrainingFaults& faults) {
  post([run, faults](TrainingWorker* w) { w->setFaults(run, faults); });
}

}  // namespace rsalab
