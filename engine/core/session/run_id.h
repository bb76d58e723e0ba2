// SPDX-License-Identifier: GPL-3.0-or-later
// A run's identity, apart from the run record (engine/core/session/run_record.h) so that every view
// keyed by run (loss curves, inspector, snapshot history) can name runs without the record's
// includes.
#pragma once

#include <cstdint>

namespace rsalab {

enum class RunSource { Live, Session, Sweep };
const char* runSourceName(RunSource source);  // live | session | sweep

// A run's identity: where it came from and its number there (the worker's run number, the
// bundle's run id, the sweep's run index). Runs of different sources never share an id.
struct RunId {
  RunSource source = RunSource::Live;
  int64_t number = -1;

  RunId() = default;
  // A live run: the training worker's run number (its signals and commands carry it).
  RunId(int64_t live_number) : number(live_number) {}  // NOLINT(google-explicit-constructor)
  RunId(RunSource from, int64_t n) : source(from), number(n) {}
  bool valid() const { return number >= 0; }
  bool isLive() const { return source == RunSource::Live; }
  bool operator==(const RunId& o) const { return source == o.source && number == o.number; }
  bool operator!=(const RunId& o) const { return !(*this == o); }
  bool operator<(const RunId& o) const {
    return source != o.source ? source < o.source : number < o.number;
  }
};

}  // namespace rsalab
