// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/resources.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "core/io/text.h"

#ifndef RSALAB_RESOURCE_DIR
#define RSALAB_RESOURCE_DIR ""
#endif

namespace rsalab {

std::string resourcePath(const std::string& relative) {
  std::vector<std::string> tried;
  auto exists = [](const std::string& p) { return std::ifstream(p).good(); };
  if (const char* env = std::getenv("RSALAB_RESOURCES"); env && *env) {
    tried.push_back(std::string(env) + "/" + relative);
    if (exists(tried.back())) return tried.back();
  }
  if (*RSALAB_RESOURCE_DIR) {
    tried.push_back(std::string(RSALAB_RESOURCE_DIR) + "/" + relative);
    if (exists(tried.back())) return tried.back();
  }
  const std::string list = joined(tried);
  throw std::runtime_error("resource " + relative +
                           " not found (tried: " + (list.empty() ? std::string("nothing") : list) +
                           "); set RSALAB_RESOURCES to the resources/ folder");
}

}  // namespace rsalab
