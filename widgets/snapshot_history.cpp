// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/snapshot_history.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace rsalab {

SnapshotHistory::SnapshotHistory(int recent, int older_cap, qint64 bytes_per_run)
    : recent_(std::max(1, recent)),
      older_cap_(std::max(2, older_cap)),
      bytes_per_run_(std::max<qint64>(1, bytes_per_run)) {}

qint64 SnapshotHistory::recordBytes(const InspectionRecord& record) {
  qint64 floats = 0;
  for (const auto* layers : {&record.layers, &record.decoder_layers}) {
    for (const auto& layer : *layers) {
      for (const auto& h : layer.heads)
        floats += qint64(h.attention.values.size() + h.softmax_part.values.size() +
                         h.rem.values.size() + h.decay.size());
      for (const auto& m : layer.cross_attention) floats += qint64(m.values.size());
    }
  }
  for (const auto& g : record.gates) floats += qint64(g.values.values.size());
  return floats * qint64(sizeof(float));
}

void SnapshotHistory::insert(const RunId& run, qint64 step, InspectionRecord record) {
  auto& records = runs_[run];
  qint64& bytes = bytes_[run];
  const auto old = records.find(step);
  if (old != records.end()) bytes -= recordBytes(old->second);
  bytes += recordBytes(record);
  records[step] = std::move(record);
  if (static_cast<int>(records.size()) > recent_ + older_cap_)
    bytes -= thin(records, static_cast<int>(records.size()) - recent_);
  // Over the byte budget: thin everything but the latest until it fits.
  while (bytes > bytes_per_run_ && records.size() > 2)
    bytes -= thin(records, static_cast<int>(records.size()) - 1);
}

qint64 SnapshotHistory::thin(std::map<qint64, InspectionRecord>& records, int count) {
  qint64 freed = 0;
  auto it = records.begin();
  for (int i = 0; i < count && it != records.end(); ++i) {
    if (i % 2 == 1) {
      freed += recordBytes(it->second);
      it = records.erase(it);
    } else {
      ++it;
    }
  }
  return freed;
}

qint64 SnapshotHistory::bytes(const RunId& run) const {
  const auto b = bytes_.find(run);
  return b == bytes_.end() ? 0 : b->second;
}

const InspectionRecord* SnapshotHistory::at(const RunId& run, qint64 step) const {
  const auto r = runs_.find(run);
  if (r == runs_.end()) return nullptr;
  auto it = r->second.upper_bound(step);
  if (it == r->second.begin()) return nullptr;
  return &std::prev(it)->second;
}

qint64 SnapshotHistory::stepAt(const RunId& run, qint64 step) const {
  const auto r = runs_.find(run);
  if (r == runs_.end()) return -1;
  auto it = r->second.upper_bound(step);
  if (it == r->second.begin()) return -1;
  return std::prev(it)->first;
}

std::vector<qint64> SnapshotHistory::steps(const RunId& run) const {
  std::vector<qint64> out;
  const auto r = runs_.find(run);
  if (r == runs_.end()) return out;
  out.reserve(r->second.size());
  for (const auto& kv : r->second) out.push_back(kv.first);
  return out;
}

std::vector<RunId> SnapshotHistory::runs() const {
  std::vector<RunId> out;
  for (const auto& kv : runs_) out.push_back(kv.first);
  return out;
}

const std::map<qint64, InspectionRecord>& SnapshotHistory::records(const RunId& run) const {
  static const std::map<qint64, InspectionRecord> kEmpty;
  const auto r = runs_.find(run);
  return r == runs_.end() ? kEmpty : r->second;
}

int SnapshotHistory::size(const RunId& run) const {
  const auto r = runs_.find(run);
  return r == runs_.end() ? 0 : static_cast<int>(r->second.size());
}

}  // namespace rsalab
