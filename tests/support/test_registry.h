// SPDX-License-Identifier: GPL-3.0-or-later
// One Qt Test class per source file, and one runner executable per layer: RSALAB_REGISTER_TEST
// registers the file's class under the file's name ("test_trainer"), and the runner
// (support/test_runner_main.cpp) runs the one its first argument names. CTest lists every class
// as its own test (`engine_tests test_trainer`), so a failure still names its file, while the
// build links one executable per layer instead of one per file. Qt only (no LibTorch).
#pragma once

#include <QtTest>
#include <map>
#include <string>

namespace rsalab::test {

using TestRun = int (*)(int argc, char** argv);

inline std::map<std::string, TestRun>& testRegistry() {
  static std::map<std::string, TestRun> tests;
  return tests;
}

// "…/tests/test_trainer.cpp" → "test_trainer".
inline bool registerTest(const char* file, TestRun run) {
  std::string name = file;
  name = name.substr(name.find_last_of("/\\") + 1);
  name = name.substr(0, name.find('.'));
  testRegistry()[name] = run;
  return true;
}

}  // namespace rsalab::test

// In a runner: registers the file's test class. Built alone (no RSALAB_TEST_RUNNER), `fallback`
// is the stand-alone main the file had (QTEST_MAIN, QTEST_GUILESS_MAIN, …).
#ifdef RSALAB_TEST_RUNNER
#define RSALAB_REGISTER_TEST(TestClass, fallback)                        \
  static const bool rsalab_test_registered =                             \
      ::rsalab::test::registerTest(__FILE__, [](int argc, char** argv) { \
        TestClass test;                                                  \
        return QTest::qExec(&test, argc, argv);                          \
      });
#else
#define RSALAB_REGISTER_TEST(TestClass, fallback) fallback(TestClass)
#endif
