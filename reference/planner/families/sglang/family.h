// The SGLang family (sglang-pre22688, sglang-current, sglang-oneshot-dcp): its registration
// (plan.cpp defines it) and its steps (steps.h).
#pragma once

#include "reference/planner/families/sglang/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo sglang_family;
}  // namespace cp
