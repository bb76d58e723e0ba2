// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/sweep_runner.h"

#include <QMetaObject>
#include <algorithm>
#include <thread>

#include "engine/sweep/sweep.h"

namespace rsalab {

SweepRunner::SweepRunner(QObject* parent) : QObject(parent), runner_(new BackgroundRunner(this)) {
  qRegisterMetaType<rsalab::SweepResult>();
  connect(runner_, &BackgroundRunner::failed, this, &SweepRunner::failed);
}

SweepRunner::~SweepRunner() {
  cancel();
  delete runner_;  // waits for the thread while control_ is still there
}

bool SweepRunner::start(const SweepOptions& options) {
  if (runner_->isRunning()) return false;
  auto control = std::make_unique<TrainingControl>();
  TrainingControl* c = control.get();
  const bool started = runner_->start(
      [this, options, c]() -> BackgroundRunner::Done {
        // Runs in the sweep thread: only posted functors reach the GUI thread from here.
        SweepResult result = runSweep(
            options,
            [this](int64_t done, int64_t total, const SweepRow& finished) {
              auto row = std::make_shared<const SweepRow>(finished);
              runner_->post([this, row, done, total] {
                done_ = done;
                emit rowFinished(row, done, total);
              });
            },
            c);
        const bool cancelled = c->stop.load();
        auto shared = std::make_shared<const SweepResult>(std::move(result));
        return [this, shared, cancelled] { emit finished(*shared, cancelled); };
      },
      "SweepThread");
  if (!started) return false;
  options_ = options;
  control_ = std::move(control);  // the last sweep's thread has ended: its control can go
  const int64_t axis_values =
      options.axis.empty() ? 1 : static_cast<int64_t>(options.axis.values.size());
  total_ = static_cast<int64_t>(options.models.size() * options.sizes.size()) * options.seeds *
           axis_values;
  done_ = 0;
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  parallel_ = std::clamp<int64_t>(options.parallel > 0 ? options.parallel : cores, 1,
                                  std::max<int64_t>(1, total_));
  clock_.start();
  return true;
}

void SweepRunner::cancel() {
  if (control_) control_->stop = true;
}

double SweepRunner::etaSeconds() const {
  if (!isRunning() || done_ <= 0) return -1;
  const double elapsed = static_cast<double>(clock_.elapsed()) / 1000.0;
  // Runs finish `parallel_` at a time: elapsed / done is the wall time per finished run.
  return elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
}

}  // namespace rsalab
