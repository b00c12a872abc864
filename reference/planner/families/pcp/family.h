// The PCP virtual-row family (pcp-a, pcp-b, pcp-c): its registration (plan.cpp defines it), its
// steps (steps.h) and what its plans carry (rows.h).
#pragma once

#include "reference/planner/families/pcp/rows.h"
#include "reference/planner/families/pcp/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo pcp_family;
}  // namespace cp
