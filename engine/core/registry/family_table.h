// SPDX-License-Identifier: GPL-3.0-or-later
// The recurrence-in-attention family in one table: per model, its implicit T × T matrix in the
// parallel form, its recurrent form, and how it relates to RSA's REMs. docs/FAMILY.md's table is
// this table (`rsalab-cli models --docs docs/FAMILY.md` writes it; a test fails when they
// differ); the Attention view's caption is implicitMatrixRule (model_registry.h). Plain C++.
#pragma once

#include <string>
#include <vector>

namespace rsalab {

struct FamilyForm {
  const char* model;      // a registry name
  const char* parallel;   // the implicit matrix A with y = A·V (or its T × T form)
  const char* recurrent;  // how it generates one token
  const char* rems;       // the relation to RSA's REMs
};

// The family in registry order of the models it names.
const std::vector<FamilyForm>& familyForms();
const FamilyForm* findFamilyForm(const std::string& model);

// The Markdown table between its markers ("<!-- family forms: begin … -->").
std::string familyFormsBlock();
// `markdown` with its family-forms block replaced by familyFormsBlock(); std::runtime_error when
// it has none.
std::string replaceFamilyFormsBlock(const std::string& markdown, const std::string& what);
// Whether `markdown`'s block equals familyFormsBlock() (std::runtime_error when it has none).
bool familyFormsBlockCurrent(const std::string& markdown, const std::string& what);

}  // namespace rsalab
