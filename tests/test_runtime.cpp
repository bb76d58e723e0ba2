// SPDX-License-Identifier: GPL-3.0-or-later
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
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // A sanitizer replaces malloc with its own allocator, whose mallopt does nothing.
    QVERIFY(!info.malloc_tuned);
    QVERIFY(info.summary().find("sanitizer") != std::string::npos);
#else
    QVERIFY(info.malloc_tuned);
#endif
    QVERIFY2(!info.reference_blas, info.summary().c_str());
    QVERIFY2(info.blas_kind.find("OpenBLAS") != std::string::npos, info.summary().c_str());
  }

  // On an AVX-512 CPU, OpenBLAS runs AVX-512 kernels even where the environment pins an AVX2 set
  // (OPENBLAS_CORETYPE=Haswell), unless RSALAB_BLAS_KERNELS=keep; and they compute the products.
  void usesAvx512KernelsWhereTheCpuHasThem() {
    const auto& info = initRuntime();
    QVERIFY2(!info.blas_core.empty(), info.summary().c_str());
    if (cpuHasAvx512Kernels() && qgetenv("RSALAB_BLAS_KERNELS") != "keep") {
      QVERIFY2(info.blas_core == "SkylakeX" || info.blas_core == "Cooperlake" ||
                   info.blas_core == "SapphireRapids",
               info.summary().c_str());
    }
    torch::manual_seed(3);
    auto a = torch::randn({300, 200}, torch::kFloat64),
         b = torch::randn({200, 250}, torch::kFloat64);
    auto expected = (a.unsqueeze(2) * b.unsqueeze(0)).sum(1);  // no BLAS: broadcast and sum
    QVERIFY(torch::allclose(torch::mm(a, b), expected, 1e-10, 1e-10));
    auto af = a.to(torch::kFloat32), bf = b.to(torch::kFloat32);
    QVERIFY(torch::allclose(torch::mm(af, bf).to(torch::kFloat64), expected, 1e-3, 1e-3));
  }
};

RSALAB_TEST_MAIN(TestRuntime)
#include "test_runtime.moc"
