#include "app/training_controller.h"

#include "app/training_worker.h"

namespace rsalab {

void registerRunMessageTypes() {
  qRegisterMetaType<RunDescriptor>();
  qRegisterMetaType<QVector<RunDescriptor>>();
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

TrainingController::~TrainingController() {
  worker_->stopFlag() = true;  // seen between steps, even mid-tick
  QMetaObject::invokeMethod(worker_, "stop", Qt::QueuedConnection);
  thread_.quit();
  thread_.wait();
}

void TrainingController::start(const RunConfig& base, const QStringList& models, int seeds) {
  worker_->stopFlag() = false;
  QMetaObject::invokeMethod(worker_, "start", Qt::QueuedConnection, Q_ARG(rsalab::RunConfig, base),
                            Q_ARG(QStringList, models), Q_ARG(int, seeds));
}

void TrainingController::setPaused(bool paused) {
  QMetaObject::invokeMethod(worker_, "setPaused", Qt::QueuedConnection, Q_ARG(bool, paused));
}

void TrainingController::stepOnce() {
  QMetaObject::invokeMethod(worker_, "stepOnce", Qt::QueuedConnection);
}

void TrainingController::stop() {
  worker_->stopFlag() = true;
  QMetaObject::invokeMethod(worker_, "stop", Qt::QueuedConnection);
}

void TrainingController::reset() {
  worker_->stopFlag() = true;
  QMetaObject::invokeMethod(worker_, "reset", Qt::QueuedConnection);
}

void TrainingController::setHot(const HotParameters& hot) {
  QMetaObject::invokeMethod(worker_, "setHot", Qt::QueuedConnection,
                            Q_ARG(rsalab::HotParameters, hot));
}

void TrainingController::requestInspection(int run, int sample) {
  QMetaObject::invokeMethod(worker_, "requestInspection", Qt::QueuedConnection, Q_ARG(int, run),
                            Q_ARG(int, sample));
}

void TrainingController::restoreLastGood(int run) {
  QMetaObject::invokeMethod(worker_, "restoreLastGood", Qt::QueuedConnection, Q_ARG(int, run));
}

void TrainingController::setFaultsForTests(int run, const TrainingFaults& faults) {
  TrainingWorker* worker = worker_;
  QMetaObject::invokeMethod(
      worker_, [worker, run, faults] { worker->setFaults(run, faults); }, Qt::QueuedConnection);
}

}  // namespace rsalab
