// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/training_worker.h"

#include <QTimer>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <thread>

#include "app/gui/training_worker_run.h"
#include "engine/tasks/task.h"
#include "engine/training/trainer.h"

namespace rsalab {

TrainingWorker::TrainingWorker(QObject* parent) : QObject(parent) { since_flush_.start(); }
TrainingWorker::~TrainingWorker() { joinAnchorThreads(); }

void TrainingWorker::joinAnchorThreads() {
  anchor_cancel_->store(true);
  for (auto& t : anchor_threads_) t.join();
  anchor_threads_.clear();
  anchor_cancel_ = std::make_shared<std::atomic<bool>>(false);
  ++anchor_generation_;
}

void TrainingWorker::fitAnchorsInBackground(uint64_t seed, bool as_notes,
                                            const forecast::AnchorInput& pending) {
  const std::string plan = forecast::anchorPlan(pending);
  if (!plan.empty()) emit log(QString("Anchors (in the background): %1").arg(plan.c_str()));
  auto input = std::make_shared<forecast::AnchorInput>(pending);
  auto cancel = anchor_cancel_;
  input->cancel = cancel.get();
  input->threads = 1;  // the runs train on the other cores meanwhile
  input->progress = [this](const forecast::AnchorProgress& p) {
    const QString line = QString("Anchors: [%1/%2] %3 on %4: %5, %6 s")
                             .arg(p.done)
                             .arg(p.total)
                             .arg(p.anchor.c_str(), p.column.c_str())
                             .arg(p.error.empty() ? QString::fromStdString(p.model)
                                                  : "not fitted (" + QString(p.error.c_str()) + ")")
                             .arg(p.seconds, 0, 'f', 2);
    QMetaObject::invokeMethod(
        this, [this, line] { emit log(line); }, Qt::QueuedConnection);
  };
  const int generation = anchor_generation_;
  anchor_threads_.emplace_back([this, generation, seed, as_notes, input, cancel] {
    forecast::AnchorScores scores;
    try {
      scores = forecast::computeAnchors(*input);
    } catch (const std::exception& e) {
      scores.notes.push_back(std::string("anchors not fitted: ") + e.what());
    }
    if (cancel->load()) return;  // a new start (or the destructor) dropped these runs
    QMetaObject::invokeMethod(
        this,
        [this, generation, seed, as_notes, scores] {
          anchorsFitted(generation, seed, as_notes, scores);
        },
        Qt::QueuedConnection);
  });
}

void TrainingWorker::anchorsFitted(int generation, uint64_t seed, bool as_notes,
                                   const forecast::AnchorScores& anchors) {
  if (generation != anchor_generation_) return;  // the runs they were fitted for are gone
  const AnchorReadout readout = anchorReadout(as_notes, anchors);
  for (const auto& note : readout.notes) emit log(QString("Note: %1").arg(note.c_str()));
  emit log(QString("Anchors: %1 fitted in %2 s; %3")
               .arg(anchors.scores.size())
               .arg(anchors.seconds, 0, 'f', 1)
               .arg(as_notes ? "on OT alone, so notes (above), not reference lines for the runs' "
                               "loss over every column"
                             : "drawn as reference lines"));
  if (readout.references.empty()) return;
  QVector<Run> updated;
  for (auto& r : runs_) {
    if (r->record.what.seed != seed || !r->trainer) continue;
    auto& references = r->record.what.references;
    references.insert(references.end(), readout.references.begin(), readout.references.end());
    updated.push_back(r->record);
  }
  if (!updated.isEmpty()) emit runsUpdated(updated);
}

void TrainingWorker::start(const RunConfig& base, const QStringList& models, int seeds) {
  joinAnchorThreads();
  runs_.clear();
  stop_flag_ = false;
  paused_ = false;
  steps_to_go_ = -1;
  QVector<Run> created;
  std::map<uint64_t, std::shared_ptr<const TaskData>> datasets;  // one dataset per seed
  bool noted = false;  // a task's notes (N capped, T chosen, period) are logged once
  int id = 0;
  for (int s = 0; s < seeds; ++s) {
    for (const auto& model : models) {
      auto run = std::make_unique<WorkerRun>();
      RunConfig c = base;
      c.model.model = model.toStdString();
      c.trainer.seed = base.trainer.seed + static_cast<uint64_t>(s);
      run->record.id = RunId(id++);
      run->record.what.model = model.toStdString();
      run->record.what.seed = c.trainer.seed;
      try {
        auto& data = datasets[c.trainer.seed];
        if (!data) {
          TaskBuild build;
          build.defer_anchors = true;  // training starts now; the anchors follow (runsUpdated)
          data = std::make_shared<const TaskData>(
              makeTask(c.task, c.train_size, c.trainer.seed, build));
          if (data->pending_anchors)
            fitAnchorsInBackground(c.trainer.seed, data->anchors_as_notes, *data->pending_anchors);
        }
        for (const auto& note : data->notes) {
          if (noted) break;
          const bool capped = note.rfind("N capped", 0) == 0;
          emit log(QString(capped ? "Warning: %1" : "Note: %1").arg(QString::fromStdString(note)));
          if (capped) emit warning(QString::fromStdString(note));
        }
        noted = true;
        run->trainer = std::make_unique<Trainer>(c, data);
        run->record.what.parameters = run->trainer->parameterCount();
        run->record.what.truth = data->truth;
        run->record.what.length =
            data->validation.size() > 0 ? data->validation.x.size(1) : data->train.x.size(1);
        run->record.what.references = data->references;
        run->record.what.horizon = data->horizon;
        run->record.what.season = std::max<int64_t>(1, data->season.period);
        run->record.what.train_size = data->train.size();
        run->record.what.requested_train_size = data->requested_train_size;
        run->state() = RunState::Running;
        run->record.now.max_steps = c.trainer.max_steps;
        WorkerRun* raw = run.get();
        run->trainer->onStep = [raw](const StepMetrics& m) {
          raw->pending.steps.push_back(m);
          raw->record.now.train_loss = m.train_loss;
        };
        if (auto f = faults_.find(run->number()); f != faults_.end())
          run->trainer->faults = f->second;
        run->trainer->onEval = [raw](const EvalMetrics& m) {
          raw->pending.evals.push_back(m);
          if (m.split == Split::Validation) raw->record.now.validation_loss = m.loss;
        };
        emit log(QString("%1 seed %2: %3 parameters on %4")
                     .arg(model)
                     .arg(c.trainer.seed)
                     .arg(run->record.what.parameters)
                     .arg(QString::fromStdString(data->summary)));
      } catch (const std::exception& e) {
        run->state() = RunState::Failed;
        run->record.now.message = e.what();
        emit log(QString("%1 seed %2: %3").arg(model).arg(c.trainer.seed).arg(e.what()));
      }
      run->pending.run = run->number();
      run->clock.start();
      run->since_snapshot.start();
      created.push_back(run->record);
      runs_.push_back(std::move(run));
    }
  }
  emit runsCreated(created);
  for (const auto& r : runs_) {
    emitStatus(*r);
    // Step 0, the untrained model: what the inspector's scrubber starts from, and the control
    // a run preset's verdict compares the trained model with (engine/core/verdicts/claims.h).
    if (r->trainer && r->trainer->stepsDone() == 0) emitSnapshot(*r);
  }
  scheduleTick();
}

void TrainingWorker::setPaused(bool paused) {
  paused_ = paused;
  steps_to_go_ = -1;
  for (auto& r : runs_) {
    if (r->state() == RunState::Running || r->state() == RunState::Paused) {
      r->state() = paused ? RunState::Paused : RunState::Running;
      emitStatus(*r);
      if (paused) emitSnapshot(*r);
    }
  }
  if (!paused) scheduleTick();
}

void TrainingWorker::stepOnce() {
  paused_ = false;
  steps_to_go_ = 1;
  scheduleTick();
}

void TrainingWorker::stop() {
  for (auto& r : runs_) {
    if (r->state() == RunState::Running || r->state() == RunState::Paused) {
      r->state() = RunState::Stopped;
      r->record.now.message = "stopped";
      emitStatus(*r);
      emitSnapshot(*r);
    }
  }
  flush(true);
  emit idle();
}

void TrainingWorker::reset() {
  stop();
  joinAnchorThreads();
  runs_.clear();
  emit runsCreated({});
}

void TrainingWorker::setHot(const HotParameters& hot) {
  for (auto& r : runs_) {
    if (!r->trainer) continue;
    try {
      r->trainer->applyHot(hot);
    } catch (const std::exception& e) {
      emit log(QString("run %1: %2").arg(r->number()).arg(e.what()));
    }
  }
}

void TrainingWorker::requestInspection(int run, int sample) {
  for (auto& r : runs_) {
    if (r->number() != run || !r->trainer) continue;
    r->sample = std::max(0, sample);
    emitSnapshot(*r);
  }
}

void TrainingWorker::scheduleTick() {
  if (tick_pending_) return;
  tick_pending_ = true;
  QTimer::singleShot(0, this, &TrainingWorker::tick);
}

void TrainingWorker::restoreLastGood(int run) {
  bool resumed = false;
  for (auto& r : runs_) {
    if (r->state() != RunState::Diverged || (run >= 0 && r->number() != run)) continue;
    const int64_t diverged_at = r->trainer->stepsDone();
    try {
      r->trainer->restoreLastGood();
    } catch (const std::exception& e) {
      failRun(*r, QString::fromUtf8(e.what()));
      continue;
    }
    r->state() = paused_ ? RunState::Paused : RunState::Running;
    const QString message = QString("restored step %1 (diverged at step %2)")
                                .arg(r->trainer->stepsDone())
                                .arg(diverged_at);
    r->record.now.message = message.toStdString();
    emit log(QString("%1: %2").arg(r->label(), message));
    emitStatus(*r);
    resumed = true;
  }
  if (resumed) {
    stop_flag_ = false;
    scheduleTick();
  }
}

void TrainingWorker::setFaults(int run, const TrainingFaults& faults) {
  faults_[run] = faults;
  for (auto& r : runs_) {
    if (r->number() == run && r->trainer) r->trainer->faults = faults;
  }
}

void TrainingWorker::failRun(WorkerRun& r, const QString& message) {
  r.state() = RunState::Failed;
  r.record.now.message = message.toStdString();
  emit log(QString("%1 failed: %2").arg(r.label(), message));
  emitStatus(r);
}

bool TrainingWorker::stepRun(WorkerRun& r) {
  // Any error of one step (c10::Error, std::bad_alloc, a shape mismatch) ends this run only.
  try {
    r.trainer->advance();
  } catch (const std::bad_alloc&) {
    failRun(r, "out of memory (std::bad_alloc): use a smaller model, batch or length");
    return false;
  } catch (const std::exception& e) {
    failRun(r, QString::fromUtf8(e.what()));
    return false;
  } catch (...) {
    failRun(r, "unknown error in a training step");
    return false;
  }
  if (r.trainer->done()) {
    const auto reason = r.trainer->stopReason();
    if (reason == StopReason::Diverged) {
      r.state() = RunState::Diverged;
      const QString message = QString(
                                  "diverged at step %1 (non-finite loss or gradient); paused. "
                                  "Lower the learning rate, then Run > Restore last good "
                                  "checkpoint (step %2)")
                                  .arg(r.trainer->stepsDone())
                                  .arg(r.trainer->lastGoodStep());
      r.record.now.message = message.toStdString();
      emit log(QString("%1: %2").arg(r.label(), message));
      emitStatus(r);
    } else {
      r.state() = RunState::Finished;
      r.record.now.message = stopReasonName(reason);
      if (!r.record.what.references.empty()) {  // the skill on the test targets (cheap)
        try {
          auto test = r.trainer->evaluate(splitName(Split::Test));
          r.record.now.test_loss = test.loss;
          r.record.now.test_errors = std::move(test.target_errors);
        } catch (const std::exception& e) {
          emit log(QString("%1: test evaluation failed: %2").arg(r.label(), e.what()));
        }
      }
      emit log(QString("%1: %2 at step %3")
                   .arg(r.label(), QString::fromStdString(r.record.now.message))
                   .arg(r.trainer->stepsDone()));
    }
  }
  const int64_t every = r.trainer->hot().snapshot_every, step = r.trainer->stepsDone();
  // The first step, then every `every` steps, at most 5 per second per run.
  if (step == 1 || (every > 0 && step % every == 0 && r.since_snapshot.elapsed() >= 200)) {
    emitSnapshot(r);
  }
  return true;
}

void TrainingWorker::tick() {
  tick_pending_ = false;
  if (paused_ && steps_to_go_ < 0) return;
  QElapsedTimer budget;
  budget.start();
  bool any = false;
  std::vector<WorkerRun*> due;
  for (auto& r : runs_)
    if (r->state() == RunState::Running) due.push_back(r.get());
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int workers =
      std::min<int>(parallel_runs_ > 0 ? parallel_runs_ : cores, static_cast<int>(due.size()));
  if (steps_to_go_ < 0 && workers > 1) {
    stepInParallel(due, workers);
  } else {
    // A few interleaved steps per tick (~15 ms), then back to the event loop for commands.
    do {
      any = false;
      for (auto& r : runs_) {
        if (stop_flag_.load()) break;
        if (r->state() != RunState::Running &&
            !(steps_to_go_ > 0 && r->state() == RunState::Paused))
          continue;
        if (stepRun(*r)) any = true;
      }
      if (steps_to_go_ > 0) break;
    } while (any && budget.elapsed() < 15 && !stop_flag_.load());
  }
  if (stop_flag_.load()) {
    stop();
    return;
  }
  if (steps_to_go_ > 0) {
    steps_to_go_ = -1;
    paused_ = true;
    for (auto& r : runs_) {
      if (r->state() == RunState::Running) r->state() = RunState::Paused;
    }
    flush(true);
    return;
  }
  flush(false);
  bool active = false;
  for (auto& r : runs_) active = active || r->state() == RunState::Running;
  if (active) {
    scheduleTick();
  } else {
    flush(true);
    emit idle();
  }
}

void TrainingWorker::setParallelRuns(int n) { parallel_runs_ = n; }

// One tick on `workers` threads, one intra-op thread per run (cores / workers): each thread takes
// the next run no other thread holds, steps it once, and goes on until the tick's ~15 ms are
// used, Stop is asked, or no run is left to step. Every run gets about the same number of steps.
void TrainingWorker::stepInParallel(const std::vector<WorkerRun*>& due, int workers) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int previous_threads = torch::get_num_threads();
  torch::set_num_threads(std::max(1, cores / workers));  // read by each new thread's first op
  const size_t n = due.size();
  auto held = std::make_unique<std::atomic<bool>[]>(n);
  for (size_t i = 0; i < n; ++i) held[i] = false;
  std::atomic<size_t> next{0};
  QElapsedTimer budget;
  budget.start();
  auto work = [&] {
    while (!stop_flag_.load() && budget.elapsed() < 15) {
      bool stepped = false;
      for (size_t tries = 0; tries < n && !stepped; ++tries) {
        const size_t i = next.fetch_add(1) % n;
        if (held[i].exchange(true)) continue;  // another thread is stepping it
        if (due[i]->state() == RunState::Running) stepped = stepRun(*due[i]);
        held[i] = false;
      }
      if (!stepped) return;  // every run finished, failed or held elsewhere
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w) threads.emplace_back(work);
  work();  // the worker thread is one of them
  for (auto& t : threads) t.join();
  torch::set_num_threads(previous_threads);
}

}  // namespace rsalab
