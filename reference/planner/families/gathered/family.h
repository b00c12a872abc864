// The gathered prefill family (gathered-pr56157, gathered-vblock): its registration (plan.cpp defines
// it) and its steps (steps.h).
#pragma once

#include "reference/planner/families/gathered/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo gathered_family;
}  // namespace cp
