// The TokenSpeed family (tokenspeed-pr1162, tokenspeed-compact): its registration (plan.cpp
// defines it) and its steps (steps.h).
#pragma once

#include "reference/planner/families/tokenspeed/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo tokenspeed_family;
}  // namespace cp
