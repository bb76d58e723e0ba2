// SPDX-License-Identifier: GPL-3.0-or-later
// ALiBi's own self-test check (engine/selftest/selftest_checks.h registers it):
// gradients/alibi-blocked, its blocked kernel against its inspected path (blocked_bias_check.h).
#include "engine/models/alibi.h"
#include "engine/models/blocked_bias_check.h"

namespace rsalab::selftest {

namespace {

CheckResult alibiBlockedGradients(const torch::Device&) {
  torch::manual_seed(3);
  return blockedKernelAgreesWithInspection(
      std::make_shared<AlibiAttentionImpl>(16, 4, AlibiSlopes::PaperText), "alibi");
}

[[maybe_unused]] const bool kAlibiBlocked =
    registerModelCheck("gradients", "alibi", "gradients/alibi-blocked", alibiBlockedGradients);

}  // namespace

}  // namespace rsalab::selftest
