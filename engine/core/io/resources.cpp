// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/resources.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "engine/core/io/text.h"

#ifndef RSALAB_RESOURCE_DIR
#define RSALAB_RESOURCE_DIR ""
#endif

namespace rsalab {

namespace {

// <folder of the running executable>/../share/rsalab (Linux: /proc/self/exe); empty when unknown.
std::string installedResourceDir() {
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error || exe.empty()) return {};
  return (exe.parent_path().parent_path() / "share" / "rsalab").lexically_normal().string();
}

bool sourceFallbackDisabled() {
  const char* env = std::getenv("RSALAB_NO_SOURCE_FALLBACK");
  return env && *env && std::string(env) != "0";
}

}  // namespace

std::string resourcePath(const std::string& relative) {
  std::vector<std::string> tried;
  auto found = [&](const std::string& dir) {
    tried.push_back(dir + "/" + relative);
    return std::ifstream(tried.back()).good();
  };
  if (const char* env = std::getenv("RSALAB_RESOURCES"); env && *env && found(env))
    return tried.back();
  if (const std::string installed = installedResourceDir(); !installed.empty() && found(installed))
    return tried.back();
  if (*RSALAB_RESOURCE_DIR && !sourceFallbackDisabled() && found(RSALAB_RESOURCE_DIR))
    return tried.back();
  const std::string list = joined(tried);
  throw std::runtime_error("resource " + relative +
                           " not found (tried: " + (list.empty() ? std::string("nothing") : list) +
                           "); set RSALAB_RESOURCES to the resources/ folder");
}

std::string sourceTreePath(const std::string& relative) {
  if (!*RSALAB_RESOURCE_DIR || sourceFallbackDisabled()) return {};
  const auto path =
      (std::filesystem::path(RSALAB_RESOURCE_DIR).parent_path() / relative).lexically_normal();
  std::error_code error;
  return std::filesystem::exists(path, error) ? path.string() : std::string();
}

}  // namespace rsalab
