// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/task_registry.h"

#include "engine/core/io/enums.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/process_tasks.h"

namespace rsalab {

namespace {
const EnumName<Objective> kObjectives[] = {{Objective::Regression, "regression"},
                                           {Objective::Classification, "classification"},
                                           {Objective::LanguageModel, "language_model"},
                                           {Objective::Seq2Seq, "seq2seq"}};

const EnumName<TaskFamily> kTaskFamilies[] = {{TaskFamily::SyntheticSeries, "synthetic_series"},
                                              {TaskFamily::Teacher, "teacher"},
                                              {TaskFamily::Mix, "mix"},
                                              {TaskFamily::Language, "language"},
                                              {TaskFamily::Text, "text"},
                                              {TaskFamily::Seq2Seq, "seq2seq"},
                                              {TaskFamily::Csv, "csv"}};
}  // namespace

std::string objectiveName(Objective objective) { return nameOf(kObjectives, objective); }
const char* taskFamilyName(TaskFamily family) { return nameOf(kTaskFamilies, family); }

const std::vector<TaskInfo>& taskRegistry() {
  using O = Objective;
  using F = TaskFamily;
  // clang-format off
  static const std::vector<TaskInfo> rows = {
    // name, description, family, objective, next step[, bundled series file, reads csv_path]
    {"seasonal", "forecast AR(1) + damped seasonal components + noise (known λ, γ, θ)",
     F::SyntheticSeries, O::Regression, true},
    {"ar", "forecast a sum of AR(1) components + noise (known λ)",
     F::SyntheticSeries, O::Regression, true},
    {"teacher", "identify a teacher y_t = f(x_{<t}); --teacher-process, default rem: "
     "y_t = Σ_{s<t} base^(t−s)[cos θ(t−s)] x_s", F::Teacher, O::Regression, true},
    {"mix", "recurrent share a: √a·(teacher process) + √(1−a)·(key lookup) + noise "
     "(RSA Figure 1's x axis; sweep it with --axis mix.share=…)", F::Mix, O::Regression, true},
    {"parity", "classify binary strings: odd number of 1s; longer test strings",
     F::Language, O::Classification, false},
    {"dyck1", "classify bracket strings: balanced (Dyck-1); longer test strings",
     F::Language, O::Classification, false},
    {"tomita1", "classify binary strings: Tomita 1, 1*; longer test strings",
     F::Language, O::Classification, false},
    {"tomita2", "classify binary strings: Tomita 2, (10)*; longer test strings",
     F::Language, O::Classification, false},
    {"tomita3", "classify binary strings: Tomita 3, no odd run of 0s after an odd run of 1s; "
     "longer test strings", F::Language, O::Classification, false},
    {"tomita4", "classify binary strings: Tomita 4, no 000; longer test strings",
     F::Language, O::Classification, false},
    {"tomita5", "classify binary strings: Tomita 5, even 0s and even 1s; longer test strings",
     F::Language, O::Classification, false},
    {"tomita6", "classify binary strings: Tomita 6, #0 − #1 ≡ 0 mod 3; longer test strings",
     F::Language, O::Classification, false},
    {"tomita7", "classify binary strings: Tomita 7, 0*1*0*1*; longer test strings",
     F::Language, O::Classification, false},
    {"charlm", "next-character language model on a public-domain text (or text_path)",
     F::Text, O::LanguageModel, true},
    {"copy", "seq2seq: copy a random symbol sequence", F::Seq2Seq, O::Seq2Seq, false},
    {"reverse", "seq2seq: reverse a random symbol sequence", F::Seq2Seq, O::Seq2Seq, false},
    {"mlm", "StarSaber MLM pretraining: restore text characters, 30% of inputs redrawn",
     F::Text, O::LanguageModel, false},
    {"csv", "forecast every column (or the target columns) of a CSV time series (csv_path)",
     F::Csv, O::Regression, true, nullptr, true},
    {"airpassengers", "real series: monthly airline passengers 1949-1960, 144 rows (R datasets)",
     F::Csv, O::Regression, true, "airpassengers.csv"},
    {"lynx", "real series: annual Canadian lynx trappings 1821-1934, 114 rows (R datasets)",
     F::Csv, O::Regression, true, "lynx.csv"},
    {"lakehuron", "real series: annual level of Lake Huron 1875-1972, 98 rows (R datasets)",
     F::Csv, O::Regression, true, "lakehuron.csv"},
    {"nottem", "real series: monthly mean temperature at Nottingham 1920-1939, 240 rows "
     "(R datasets)", F::Csv, O::Regression, true, "nottem.csv"},
    {"ukgas", "real series: quarterly UK gas consumption 1960-1986, 108 rows (R datasets)",
     F::Csv, O::Regression, true, "ukgas.csv"},
    {"treering", "real series: yearly tree-ring width index, 7980 rows (R datasets)",
     F::Csv, O::Regression, true, "treering.csv"},
    {"etth1", "real series: ETTh1, hourly electricity transformer loads and oil temperature OT, "
     "7 columns, 17420 rows (ETDataset, CC BY-ND 4.0)", F::Csv, O::Regression, true,
     "ett/ETTh1.csv"},
    {"etth2", "real series: ETTh2, hourly electricity transformer loads and oil temperature OT, "
     "7 columns, 17420 rows (ETDataset, CC BY-ND 4.0)", F::Csv, O::Regression, true,
     "ett/ETTh2.csv"},
  };
  // clang-format on
  return rows;
}

const TaskInfo* findTask(const std::string& name) {
  for (const auto& row : taskRegistry()) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

const std::vector<std::string>& taskNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& t : taskRegistry()) n.emplace_back(t.name);
    return n;
  }();
  return names;
}

std::string taskDescription(const std::string& name) {
  const auto* row = findTask(name);
  return row ? row->description : "";
}

std::string taskNameList() { return joined(taskNames()); }

bool isRealSeriesTask(const std::string& name) {
  const auto* row = findTask(name);
  return row && row->family == TaskFamily::Csv;
}

const std::string& csvPathTaskName() {
  static const std::string name = [] {
    for (const auto& t : taskRegistry())
      if (t.reads_csv_path) return std::string(t.name);
    return std::string();
  }();
  return name;
}

bool readsCsvPath(const std::string& name) {
  const auto* row = findTask(name);
  return row && row->reads_csv_path;
}

std::optional<TaskFamily> taskFamily(const std::string& name) {
  const auto* row = findTask(name);
  if (!row) return std::nullopt;
  return row->family;
}

bool readsTeacherProcess(const std::string& name) {
  const auto family = taskFamily(name);
  return family == TaskFamily::Teacher || family == TaskFamily::Mix ||
         family == TaskFamily::SyntheticSeries;
}

std::vector<std::string> taskNamesOf(TaskFamily family) {
  std::vector<std::string> names;
  for (const auto& t : taskRegistry()) {
    if (t.family == family) names.emplace_back(t.name);
  }
  return names;
}

const std::vector<TeacherProcessInfo>& teacherProcessRegistry() {
  using P = TeacherProcess;
  static const std::vector<TeacherProcessInfo> rows = {
      {P::Rem, "the regular and cos kernels of teacher_kinds/bases/thetas (RSA's REMs)",
       "the AR(1) components of ar_poles (RSA's REMs)"},
      {P::Power,
       "long memory: kernel w_k ∝ k^(−α) up to T (teacher_alpha); no finite sum of "
       "decays is exact",
       "fractionally integrated noise ARFIMA(0, d, 0) (series_d): a power-law kernel, no finite "
       "sum of decays is exact"},
      {P::Jordan,
       "repeated root: kernel w_k ∝ k·λ^k, a 2×2 Jordan-block linear RNN "
       "(teacher_lambda)",
       "repeated root: AR(2) x_t = 2λx_{t−1} − λ²x_{t−2} + e_t (series_lambda)"},
      {P::Nonlinear,
       "a random tanh RNN driven by x (teacher_hidden, teacher_gain, "
       "teacher_input_scale; drawn from teacher_seed)",
       "threshold AR (SETAR): x_t = φ x_{t−1} + e_t, φ switching with the sign of x_{t−1} "
       "(series_phi_high/low)"},
      {P::Selective,
       "input-dependent decay h_t = a_t·h_{t−1} + x_t, a_t = min + (max − min)·"
       "σ(w·x_t + b) (teacher_decay_min/max, teacher_gate_weight/bias)",
       "innovation-dependent decay x_t = a_t·x_{t−1} + e_t, a_t = min + (max − min)·"
       "exp(−e_{t−1}²/2): a large shock makes the next step forget (series_decay_min/max)"},
  };
  return rows;
}

std::string teacherProcessDescription(TeacherProcess process) {
  for (const auto& row : teacherProcessRegistry())
    if (row.process == process) return row.description;
  return "";
}

std::string teacherProcessLabel(TeacherProcess process) {
  return std::string(enumName(process)) +
         (process == TeacherProcess::Rem ? std::string(", ") + kRemHomeGround : "");
}

std::string teacherProcessHelp() {
  std::string help = "teacher and mix: the process of the target (default rem):";
  for (const auto& row : teacherProcessRegistry())
    help += "\n  " + teacherProcessLabel(row.process) + ": " + row.description;
  help += "\nseasonal and ar: the process in place of the AR(1) poles (default rem):";
  for (const auto& row : teacherProcessRegistry())
    help += "\n  " + teacherProcessLabel(row.process) + ": " + row.series;
  return help;
}

std::vector<std::string> bundledSeriesNames() {
  std::vector<std::string> names;
  for (const auto& t : taskRegistry()) {
    if (t.series_file) names.emplace_back(t.name);
  }
  return names;
}

}  // namespace rsalab
