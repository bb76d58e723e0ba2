// SPDX-License-Identifier: GPL-3.0-or-later
// TrainingWorker, what leaves the worker thread: metrics batches and statuses (~20 Hz),
// inspection snapshots with their input as plain data, and session saves with checkpoints.
#include <QStringList>
#include <algorithm>

#include "app/gui/training_worker_run.h"
#include "engine/tasks/task.h"

namespace rsalab {

namespace {

// The inspected sample's input as plain data: the split Trainer::inspect reads, the same clamp.
SampleInput sampleInput(const TaskData& data, int64_t sample) {
  const DataSplit& split = data.validation.size() > 0 ? data.validation : data.train;
  SampleInput in;
  in.sample_count = static_cast<int>(split.size());
  if (split.size() == 0) return in;
  sample = std::clamp<int64_t>(sample, 0, split.size() - 1);
  in.sample = static_cast<int>(sample);
  auto tokens = [&data](const torch::Tensor& ids) {  // (T) int64
    QStringList out;
    const auto t = ids.to(torch::kCPU).to(torch::kInt64).contiguous();
    const int64_t* p = t.data_ptr<int64_t>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      const int64_t id = p[i];
      if (id == data.io.pad_token && id >= 0) {
        out << "<pad>";
      } else if (id >= 0 && id < static_cast<int64_t>(data.vocabulary.size())) {
        out << QString::fromStdString(data.vocabulary[static_cast<size_t>(id)]);
      } else {
        out << QString::number(id);
      }
    }
    return out;
  };
  const auto x = split.x[sample];
  if (x.is_floating_point()) {  // (T, F)
    const auto v = x.to(torch::kCPU).to(torch::kFloat64).contiguous();
    in.features = v.dim() > 1 ? static_cast<int>(v.size(1)) : 1;
    in.values.assign(v.data_ptr<double>(), v.data_ptr<double>() + v.numel());
    for (const auto& name : data.columns) in.feature_names << QString::fromStdString(name);
  } else {
    in.tokens = tokens(x);
    if (data.objective == Objective::Seq2Seq && split.target_in.defined()) {
      in.target_tokens = tokens(split.target_in[sample]);
    }
  }
  return in;
}

}  // namespace

std::string TrainingWorker::saveSession(const SessionBundle& bundle, const std::string& path,
                                        bool with_checkpoints) {
  SessionSaveHooks hooks;
  if (with_checkpoints) {
    hooks.write_checkpoint = [this](int64_t id, const std::string& file) {
      for (const auto& r : runs_) {
        if (r->number() == id && r->trainer) {
          r->trainer->saveCheckpoint(file);
          return true;
        }
      }
      return false;
    };
  }
  return rsalab::saveSession(bundle, path, hooks);
}

void TrainingWorker::emitSnapshot(WorkerRun& r) {
  if (!r.trainer) return;
  r.since_snapshot.restart();
  try {
    InspectionSnapshot s;
    s.run = r.number();
    s.step = r.trainer->stepsDone();
    s.record = std::make_shared<const InspectionRecord>(r.trainer->inspect(r.sample));
    s.input = sampleInput(r.trainer->data(), s.record->sample);
    emit snapshot(s);
  } catch (const std::exception& e) {
    emit log(QString("inspect run %1: %2").arg(r.number()).arg(e.what()));
  }
}

void TrainingWorker::emitStatus(WorkerRun& r) {
  RunStatus& s = r.record.now;
  s.step = r.trainer ? r.trainer->stepsDone() : 0;
  s.max_steps = r.trainer ? r.trainer->config().trainer.max_steps : 0;
  emit status(r.number(), s);
}

void TrainingWorker::flush(bool force) {
  if (!force && since_flush_.elapsed() < 50) return;  // ~20 Hz
  since_flush_.restart();
  for (auto& r : runs_) {
    if (!r->pending.steps.isEmpty() || !r->pending.evals.isEmpty()) {
      emit metrics(r->pending);
      r->pending.steps.clear();
      r->pending.evals.clear();
    }
    if (r->trainer) {
      const double seconds = r->clock.elapsed() / 1000.0;
      if (seconds > 0.5) {
        r->record.now.steps_per_second =
            static_cast<double>(r->trainer->stepsDone() - r->steps_at_clock) / seconds;
        r->steps_at_clock = r->trainer->stepsDone();
        r->clock.restart();
      }
    }
    emitStatus(*r);
  }
}

}  // namespace rsalab
