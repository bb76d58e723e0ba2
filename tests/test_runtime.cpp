// Every binary runs on all cores, on OpenBLAS (not the reference BLAS), with malloc tuned.
#include <thread>

#include "support/test_support.h"

using namespace rsalab;

class TestRuntime : public QObject {
  Q_OBJECT
 private slots:
  void usesAllCoresOptimisedBlasAndTunedMalloc() {
    const auto& info = initRuntime();
    qInfo("%s", info.summary().c_str());
    if (!qEnvironmentVariableIsSet("RSALAB_THREADS")) {
      QCOMPARE(info.threads, static_cast<int>(std::thread::hardware_concurrency()));
    }
    QVERIFY(info.malloc_tuned);
    QVERIFY2(!info.reference_blas, info.summary().c_str());
    QVERIFY2(info.blas_kind.find("OpenBLAS") != std::string::npos, info.summary().c_str());
  }
};

RSALAB_TEST_MAIN(TestRuntime)
#include "test_runtime.moc"
