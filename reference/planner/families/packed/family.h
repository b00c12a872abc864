// The packed family (v5-packed, v6-current): its registration (plan.cpp defines it) and its
// rules (steps.h).
#pragma once

#include "reference/planner/families/packed/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo packed_family;
}  // namespace cp
