// SPDX-License-Identifier: GPL-3.0-or-later
// A layer's test runner: `RUNNER NAME [Qt Test arguments]` runs the test class registered under
// NAME (support/test_registry.h); `RUNNER --list` prints the names. The application object is the
// one the layer's stand-alone mains made: QApplication for widget and window tests
// (RSALAB_RUNNER_WIDGETS), else QCoreApplication; engine runners also set up the runtime first
// (RSALAB_RUNNER_ENGINE: threads, BLAS, malloc), as the engine tests' main did.
#include <cstdio>
#include <cstring>
#include <vector>

#include "support/test_registry.h"

#ifdef RSALAB_RUNNER_WIDGETS
#include <QApplication>
using RunnerApplication = QApplication;
#else
#include <QCoreApplication>
using RunnerApplication = QCoreApplication;
#endif
#ifdef RSALAB_RUNNER_ENGINE
#include "engine/runtime.h"
#endif

int main(int argc, char** argv) {
  const auto& tests = rsalab::test::testRegistry();
  if (argc < 2 || std::strcmp(argv[1], "--list") == 0) {
    std::printf("usage: %s NAME [Qt Test arguments]; NAME is one of:\n", argv[0]);
    for (const auto& [name, run] : tests) std::printf("  %s\n", name.c_str());
    return argc < 2 ? 2 : 0;
  }
  const auto it = tests.find(argv[1]);
  if (it == tests.end()) {
    std::fprintf(stderr, "%s: no test named '%s' (--list names them)\n", argv[0], argv[1]);
    return 2;
  }
#ifdef RSALAB_RUNNER_ENGINE
  rsalab::initRuntime();
#endif
  // The test sees argv[0] and its own arguments, as a stand-alone test would.
  std::vector<char*> args{argv[0]};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  RunnerApplication app(count, args.data());
#ifdef RSALAB_RUNNER_WIDGETS
  app.setAttribute(Qt::AA_Use96Dpi, true);
#endif
  return it->second(count, args.data());
}
