#include "app/cli_results.h"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/names.h"
#include "engine/training/trainer.h"

namespace rsalab {
namespace {

// NaN and infinities as null (JSON has no NaN).
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

std::string signedSkill(double skill) {
  if (!std::isfinite(skill)) return "n/a";
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(3) << skill;
  return s.str();
}

}  // namespace

std::string resultJson(const EvalMetrics& m, const Trainer& trainer) {
  const TaskData& data = trainer.data();
  nlohmann::ordered_json j;
  j["split"] = m.split;
  j["step"] = m.step;
  j["loss"] = number(m.loss);
  j["stop_reason"] = stopReasonName(trainer.stopReason());
  j["parameters"] = trainer.parameterCount();
  for (const auto& [k, v] : m.values) j[k] = number(v);
  j["train_size"] = data.train.size();
  j["train_size_requested"] = data.requested_train_size;
  if (data.length > 0) j["length"] = data.length;
  if (trainer.config().trainer.restore_best) j["best_step"] = trainer.bestStep();
  if (!data.references.empty()) {
    j["test_targets"] = data.test.size();
    nlohmann::ordered_json refs = nlohmann::ordered_json::array(), skill;
    for (const auto& r : data.references) {
      refs.push_back({{"name", r.name},
                      {"label", r.label},
                      {"validation_loss", number(r.validation_loss)},
                      {"test_loss", number(r.test_loss)}});
      skill[r.name] = number(skillVersus(m.loss, data.references, r.name));
    }
    j["references"] = refs;
    j["skill"] = skill;
  }
  return j.dump(2) + "\n";
}

std::string referenceLines(double test_loss, const TaskData& data) {
  if (data.references.empty()) return "";
  std::ostringstream s;
  s << "baselines on the same " << data.test.size() << " test targets (normalised units):\n";
  size_t width = 0;
  for (const auto& r : data.references) width = std::max(width, r.label.size());
  for (const auto& r : data.references) {
    s << "  " << std::left << std::setw(static_cast<int>(width)) << r.label << "  test "
      << std::setprecision(4) << r.test_loss << "   model skill "
      << signedSkill(skillVersus(test_loss, data.references, r.name)) << "\n";
  }
  const auto* ar = findReference(data.references, "ar_lsq");
  s << "skill vs persistence "
    << signedSkill(skillVersus(test_loss, data.references, "persistence"));
  if (ar)
    s << ", vs " << ar->label << " "
      << signedSkill(skillVersus(test_loss, data.references, "ar_lsq"));
  s << " (1 - MSE_model / MSE_baseline; > 0: the model is better)\n";
  return s.str();
}

std::string taskNotes(const TaskData& data) {
  std::string out;
  for (const auto& n : data.notes)
    out += (n.rfind("N capped", 0) == 0 ? "warning: " : "note: ") + n + "\n";
  return out;
}

}  // namespace rsalab
