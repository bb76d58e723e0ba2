#include "gui/training_controller.h"

#include "gui/training_worker.h"

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

void TrainingController::resetHot(const TrainerOptions& t) {
  hot_ = {t.learning_rate, t.weight_decay, t.grad_clip, t.snapshot_every};
}

QString TrainingController::editHot(const QString& name, double value) {
  const auto fmt = [](double v) { return QString::number(v, 'g', 3); };
  double* field = name == "learning_rate"  ? &hot_.learning_rate
                  : name == "weight_decay" ? &hot_.weight_decay
                  : name == "grad_clip"    ? &hot_.grad_clip
                                           : nullptr;
  if (field) {
    const QString label = QString("%1 %2 → %3")
                              .arg(name == "learning_rate" ? "lr" : name)
                              .arg(fmt(*field))
                              .arg(fmt(value));
    *field = value;
    return label;
  }
  if (name != "snapshot_every") return {};
  hot_.snapshot_every = static_cast<int64_t>(value);
  return QString("snapshots every %1").arg(value);
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
