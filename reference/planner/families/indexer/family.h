// The sparse indexer family (indexer-dsv32, indexer-dsv4): its registration (plan.cpp defines
// it) and its steps (steps.h).
#pragma once

#include "reference/planner/families/indexer/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo indexer_family;
}  // namespace cp
