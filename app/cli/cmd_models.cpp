// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli models (the models with their parameter counts for a config) and tasks (the built-in
// tasks).
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/cli_command.h"
#include "app/cli/cli_commands.h"
#include "app/cli/cli_run_flags.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/registry/family_table.h"
#include "engine/core/registry/model_card_json.h"
#include "engine/models/model_factory.h"

namespace rsalab {

namespace {

// Every card with its parameter count for the config (`rows`, describeModels' in registry order).
std::string modelCardsJson(const std::vector<ModelDescription>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    nlohmann::json card = modelCardJson(modelRegistry()[i]);
    card["parameters"] = rows[i].parameters;
    out.push_back(std::move(card));
  }
  return out.dump(1);
}

}  // namespace

CliCommand addModelsCommand(CLI::App& app) {
  auto options = std::make_shared<ModelOptions>();
  auto io_options = std::make_shared<ModelIO>();
  ModelOptions& model_options = *options;
  ModelIO& io = *io_options;
  auto* models = app.add_subcommand("models", "List the models with parameter counts for a config");
  for (const char* name : {"d_model", "heads", "layers"}) {
    const auto& row = *findModelOption(name);
    addTableFlag(models, row, model_options.*std::get<int64_t ModelOptions::*>(row.member));
  }
  models->add_option("--input-dim", io.input_dim, "input features per position")
      ->capture_default_str();
  models->add_option("--vocab", io.vocab, "token vocabulary (0: real-valued input)")
      ->capture_default_str();
  auto docs = std::make_shared<std::string>();
  auto check = std::make_shared<bool>(false);
  models->add_option("--docs", *docs,
                     "write the family's table (implicit matrix, recurrent form, relation to the "
                     "REMs) into this Markdown file's marked block, e.g. docs/FAMILY.md");
  models->add_flag("--check", *check, "with --docs: only check that the block is current");
  auto json_out = std::make_shared<bool>(false);
  models->add_flag("--json", *json_out,
                   "print the cards as JSON (name, title, family, attention, cell, paper, "
                   "equation, flags, parameters): the lists of bench/run.sh and the peer scripts");

  return {models, [options, io_options, docs, check, json_out] {
            if (!docs->empty()) {
              const std::string text = readTextFile(*docs, size_t{1} << 24);
              if (*check) {
                const bool current = familyFormsBlockCurrent(text, *docs);
                std::cout << "models --docs: " << *docs
                          << (current ? "'s family table is current\n"
                                      : "'s family table differs from the registry's: rerun "
                                        "`rsalab-cli models --docs " +
                                            *docs + "`\n");
                return current ? 0 : 1;
              }
              writeFileAtomically(*docs, replaceFamilyFormsBlock(text, *docs));
              std::cout << "models --docs: wrote the family table into " << *docs << "\n";
              return 0;
            }
            const ModelOptions& model_options = *options;
            const ModelIO& io = *io_options;
            auto rows = describeModels(model_options, io);
            if (*json_out) {
              std::cout << modelCardsJson(rows) << "\n";
              return 0;
            }
            std::cout << "models for d_model=" << model_options.d_model
                      << " heads=" << model_options.heads << " layers=" << model_options.layers
                      << " input_dim=" << io.input_dim << "\n";
            for (const auto& row : rows) {
              std::cout << "  " << std::left << std::setw(12) << row.name << std::right
                        << std::setw(10) << row.parameters << "  " << std::left << std::setw(38)
                        << row.title << row.equation << "\n";
            }
            return 0;
          }};
}

CliCommand addTasksCommand(CLI::App& app) {
  return {app.add_subcommand("tasks", "List the built-in tasks"), [] { return listTasks(); }};
}

}  // namespace rsalab
