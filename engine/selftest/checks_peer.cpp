// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's peer checks, one per card (peer/<model>): the PyTorch twin (bench/peer/models.py)
// has the card's class (its attention kind's module, or the model) and runs it forward exactly
// when the card says HasPeer (models.py reads the flag itself for its own lists, so the class is
// asked for by kind, not through them). One Python run answers for every card
// (bench/peer/cards.py --cards FILE --check-peer --models …, FILE the cards as this binary has
// them). Skipped, saying why, where the twin is absent: no bench/peer/ (an installed build;
// $RSALAB_PEER_DIR points at one), or no Python with torch ($RSALAB_PYTHON, else python3 on the
// PATH, then /usr/bin/python3).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "engine/core/io/resources.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/model_card_json.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/sweep/slurm.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

// What the one Python run said: per model "builds" or "lacks (why)", or why it could not run.
struct PeerAnswer {
  std::string not_run;                       // non-empty: every peer check is skipped for this
  std::map<std::string, std::string> lines;  // model -> "builds NAME" | "lacks NAME (why)"
  std::string output;                        // the run's stdout and stderr, for a failure
};

std::string envOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

PeerAnswer askThePeer() {
  PeerAnswer answer;
  const std::string dir = envOr("RSALAB_PEER_DIR", sourceTreePath("bench/peer"));
  if (dir.empty()) {
    answer.not_run =
        "no bench/peer/ beside this build (the source tree is not here; set "
        "RSALAB_PEER_DIR to it)";
    return answer;
  }
  std::vector<std::string> names;
  nlohmann::json cards = nlohmann::json::array();
  for (const auto& card : modelRegistry()) {
    names.push_back(card.name);
    cards.push_back(modelCardJson(card));
  }
  const auto cards_file = std::filesystem::temp_directory_path() /
                          ("rsalab-selftest-cards-" + std::to_string(getpid()) + ".json");
  std::ofstream(cards_file) << cards.dump(1) << "\n";
  struct Remove {
    std::filesystem::path path;
    ~Remove() {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
  } remove{cards_file};
  const std::vector<std::string> pythons =
      std::getenv("RSALAB_PYTHON") ? std::vector<std::string>{envOr("RSALAB_PYTHON", "")}
                                   : std::vector<std::string>{"python3", "/usr/bin/python3"};
  std::vector<std::string> tried;
  for (const auto& python : pythons) {
    const auto run =
        runProgram({python, dir + "/cards.py", "--check-peer", "--models", joined(names, ",")});
    if (!run.started) {
      tried.push_back(python + ": not found");
      continue;
    }
    if (run.exit_code == 77) {
      tried.push_back(python + ": no torch");
      continue;
    }
    answer.output = run.out + run.err;
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
      const auto space = line.find(' ');
      if (space == std::string::npos) continue;
      const auto end = line.find(' ', space + 1);
      answer.lines[line.substr(space + 1, end == std::string::npos ? end : end - space - 1)] = line;
    }
    return answer;
  }
  answer.not_run =
      "no Python with torch to run the peer (" + joined(tried, "; ") + "; set RSALAB_PYTHON)";
  return answer;
}

const PeerAnswer& peerAnswer() {
  static std::once_flag once;
  static PeerAnswer answer;
  std::call_once(once, [] { answer = askThePeer(); });
  return answer;
}

CheckResult peerMatchesTheCard(const std::string& model) {
  const PeerAnswer& answer = peerAnswer();
  if (!answer.not_run.empty()) return skipped(answer.not_run);
  const auto line = answer.lines.find(model);
  if (line == answer.lines.end())
    return failed("cards.py said nothing of " + model + ": " + answer.output);
  const bool builds = line->second.rfind("builds ", 0) == 0;
  const bool has_peer = modelInfo(model).has(HasPeer);
  CheckResult r;
  r.measure = "has_peer unlike the peer";
  r.error = builds == has_peer ? 0 : 1;
  r.tolerance = 0;
  r.passed = builds == has_peer;
  r.detail =
      std::string("has_peer ") + (has_peer ? "set" : "not set") + "; the peer " + line->second;
  return r;
}

}  // namespace

void addPeerChecks(std::vector<SelfCheck>& checks) {
  for (const auto& card : modelRegistry()) {
    const std::string m = card.name;
    checks.push_back(
        {{"peer", m, "peer/" + m}, [m](const torch::Device&) { return peerMatchesTheCard(m); }});
  }
}

}  // namespace rsalab::selftest
