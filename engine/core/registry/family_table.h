// SPDX-License-Identifier: GPL-3.0-or-later
// The recurrence-in-attention family in one table: per model, its implicit T × T matrix in the
// parallel form, its recurrent form, and how it relates to RSA's REMs (each card's FamilyForm,
// model_card.h). docs/FAMILY.md's table is this table (`rsalab-cli models --docs docs/FAMILY.md`
// writes it; a test fails when they differ); the Attention view's caption is the card's
// matrix_rule. Plain C++.
#pragma once

#include <string>
#include <vector>

#include "engine/core/registry/model_card.h"

namespace rsalab {

// The cards that have a family form (ModelCard::form), in registry order.
std::vector<const ModelCard*> familyForms();

// The Markdown table between its markers ("<!-- family forms: begin … -->").
std::string familyFormsBlock();
// `markdown` with its family-forms block replaced by familyFormsBlock(); std::runtime_error when
// it has none.
std::string replaceFamilyFormsBlock(const std::string& markdown, const std::string& what);
// Whether `markdown`'s block equals familyFormsBlock() (std::runtime_error when it has none).
bool familyFormsBlockCurrent(const std::string& markdown, const std::string& what);

}  // namespace rsalab
