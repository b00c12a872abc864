// The ATOM family (atom-pre2113, atom-current): its registration (plan.cpp defines it) and its
// steps (steps.h).
#pragma once

#include "reference/planner/families/atom/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo atom_family;
}  // namespace cp
