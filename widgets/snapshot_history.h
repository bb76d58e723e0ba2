// SPDX-License-Identifier: GPL-3.0-or-later
// SnapshotHistory: the inspection records of every run, keyed by training step, so the inspector
// can scrub back through training. Plain C++ and Qt types only (no LibTorch).
//
// Memory is bounded per run: the newest `recent` records are all kept; once a run holds more than
// recent + older_cap, every second record of the older part is dropped (its first one always
// stays). Repeated thinning leaves the old past at 2×, 4×, 8×… coarser spacing, like a log-scale
// time axis: the latest minutes in full detail, the start still there. Records hold T×T matrices
// per head, so a byte budget per run applies too: past it, the whole run is thinned the same way
// (first and latest always kept) until it fits.
#pragma once

#include <QtGlobal>
#include <map>
#include <vector>

#include "engine/core/io/inspection.h"
#include "engine/core/session/run_id.h"

namespace rsalab {

class SnapshotHistory {
 public:
  static constexpr int kRecentKept = 500;  // newest records per run, never thinned
  static constexpr int kOlderCap = 250;    // older records per run before a thinning pass
  static constexpr qint64 kBytesPerRun = qint64(256) << 20;  // matrix payload budget per run

  explicit SnapshotHistory(int recent = kRecentKept, int older_cap = kOlderCap,
                           qint64 bytes_per_run = kBytesPerRun);

  // Stores (a copy of) the record; a step already present is replaced.
  void insert(const RunId& run, qint64 step, InspectionRecord record);
  // The record of the nearest recorded step ≤ step; nullptr when there is none.
  const InspectionRecord* at(const RunId& run, qint64 step) const;
  // The step `at` would answer with, or -1.
  qint64 stepAt(const RunId& run, qint64 step) const;
  std::vector<qint64> steps(const RunId& run) const;  // ascending
  std::vector<RunId> runs() const;
  // All records of a run by step (empty map for an unknown run).
  const std::map<qint64, InspectionRecord>& records(const RunId& run) const;
  int size(const RunId& run) const;
  int maxPerRun() const { return recent_ + older_cap_; }
  qint64 bytes(const RunId& run) const;  // matrix payload held for a run (estimate)
  static qint64 recordBytes(const InspectionRecord& record);
  void clearRun(const RunId& run) {
    runs_.erase(run);
    bytes_.erase(run);
  }
  void clear() {
    runs_.clear();
    bytes_.clear();
  }

 private:
  // Drops every second record of the `count` oldest (the first of them stays); returns bytes freed.
  qint64 thin(std::map<qint64, InspectionRecord>& records, int count);

  int recent_;
  int older_cap_;
  qint64 bytes_per_run_;
  std::map<RunId, std::map<qint64, InspectionRecord>> runs_;
  std::map<RunId, qint64> bytes_;
};

}  // namespace rsalab
