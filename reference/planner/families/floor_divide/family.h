// The floor-divide family (v0-early .. v4-pr47327, pr41229): its registration (plan.cpp defines
// it) and its rules (steps.h).
#pragma once

#include "reference/planner/families/floor_divide/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo floor_divide_family;
}  // namespace cp
