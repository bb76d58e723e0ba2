// SPDX-License-Identifier: GPL-3.0-or-later
// Tests of code that must refuse its input: the message of what it throws. No LibTorch, no Qt, so
// the core runner's tests use it too.
#pragma once

#include <exception>
#include <string>

namespace rsalab::test {

// The message of the E (std::exception by default) that `f` throws, or "" when `f` returns
// normally, so that a check for words in the message fails. Any other exception propagates.
template <class E = std::exception, class F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace rsalab::test
