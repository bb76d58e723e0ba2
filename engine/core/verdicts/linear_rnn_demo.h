// SPDX-License-Identifier: GPL-3.0-or-later
// Why REMs: a small random linear RNN h_t = W h_{t−1} + z_t (z_t = U x_t) computed two ways: by
// the recurrence, and as Z plus REMs (one regular REM per real eigenvalue, a cos/sin REM pair per
// complex pair) applied to Z, as in ../shared/spec/models.md, "Why REMs". W is built from chosen
// eigenvalues, W = S·blockdiag(λ₁, λ₂, γR(θ))·S⁻¹, so its decomposition is known without an
// eigensolver. Plain double-precision C++ (core library): the inspector's "Why REMs" panel and
// the linear-rnn preset's verdict (rsalab-cli and the GUI) share it.
#pragma once

#include <complex>
#include <vector>

namespace rsalab {

struct LinearRnnDemo {
  static constexpr int kN = 4;
  double lambda1 = 0, lambda2 = 0;  // real eigenvalues
  double gamma = 0, theta = 0;      // complex pair γe^{±iθ}
  std::vector<double> S, S_inv, W;  // kN × kN, row-major
  std::vector<double> Z;            // T × kN, rows z_t = U x_t
  int T = 0;

  static LinearRnnDemo random(unsigned seed, int T = 48);
  std::vector<std::complex<double>> eigenvalues() const;
  double spectralRadius() const;
  std::vector<double> byRecurrence() const;  // H, T × kN
  std::vector<double> byRems() const;        // H = Z + Σ REM terms, T × kN
  double maxError() const;                   // max |byRecurrence − byRems|
};

}  // namespace rsalab
