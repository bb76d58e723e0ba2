// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/family_table.h"

#include "engine/core/io/marked_block.h"
#include "engine/core/registry/model_registry.h"

namespace rsalab {

namespace {

const char* const kBegin =
    "<!-- family forms: begin (rsalab-cli models --docs docs/FAMILY.md writes this) -->";
const char* const kEnd = "<!-- family forms: end -->";

// A table cell: Markdown's column separator escaped (|row sum| would end the cell).
std::string cell(const char* text) {
  std::string out;
  for (const char* c = text; *c; ++c) {
    if (*c == '|') out += '\\';
    out += *c;
  }
  return out;
}

}  // namespace

std::vector<const ModelCard*> familyForms() {
  std::vector<const ModelCard*> out;
  for (const auto& card : modelRegistry())
    if (card.form.parallel) out.push_back(&card);
  return out;
}

std::string familyFormsBlock() {
  std::string out = std::string(kBegin) +
                    "\n| model | implicit matrix (parallel form) | recurrent form (generation) | "
                    "relation to RSA's REMs |\n|---|---|---|---|\n";
  for (const ModelCard* card : familyForms())
    out += "| `" + std::string(card->name) + "` | " + cell(card->form.parallel) + " | " +
           cell(card->form.recurrent) + " | " + cell(card->form.rems) + " |\n";
  return out + kEnd + "\n";
}

std::string replaceFamilyFormsBlock(const std::string& markdown, const std::string& what) {
  return replaceMarkedBlock(markdown, familyFormsBlock(), kBegin, kEnd, what);
}

bool familyFormsBlockCurrent(const std::string& markdown, const std::string& what) {
  return markedBlockIn(markdown, kBegin, kEnd, what) == familyFormsBlock();
}

}  // namespace rsalab
