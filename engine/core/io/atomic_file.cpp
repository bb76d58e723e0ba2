// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rsalab {

namespace {

// Temporary files of writers that were killed mid-write: `<name>.tmp<pid>` where <pid> is no
// longer a running process. Removed before each new write of the same target.
void removeStaleTemporaries(const std::filesystem::path& target) {
  std::error_code ec;
  const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string prefix = target.filename().string() + ".tmp";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 10 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    if (pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

}  // namespace

std::string temporaryPathFor(const std::string& path) {
  return path + ".tmp" + std::to_string(::getpid());
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  removeStaleTemporaries(path);
  const std::string tmp = temporaryPathFor(path);
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + tmp);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() &&
                  std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  std::fclose(f);
  if (!ok) {
    std::remove(tmp.c_str());
    throw std::runtime_error("write failed: " + path);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot replace " + path + ": " + ec.message());
  }
  // The rename itself survives a power cut only once the directory is flushed.
  const auto dir = std::filesystem::path(path).parent_path();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

std::string readTextFile(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw std::runtime_error("cannot open " + path + ": " + ec.message());
  if (size > max_bytes) {
    throw std::runtime_error(path + " is " + std::to_string(size) + " bytes; the limit is " +
                             std::to_string(max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace rsalab
