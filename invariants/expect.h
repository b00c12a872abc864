// Expectations of case files (reference/caseio/regression.h) against evaluations.
#pragma once

#include <string>

#include "invariants/catalogue.h"
#include "reference/caseio/regression.h"

namespace cp {

// The expectation an evaluation meets exactly: ok, assert, or violation of every violated tag.
Expectation expectation_of(const Evaluation& ev);
// Whether `ev` meets `e`: the same outcome and, for violations, every named invariant violated.
// Throws CaseError (key `expect`) on an unknown invariant tag.
bool meets(const Evaluation& ev, const Expectation& e);
// "ok", "assert", "violation I-6,I-9": the verdict part of an expect line.
std::string verdict_text(const Expectation& e);

}  // namespace cp
