// The local-shard family (pcp-local-shard): vLLM's dense PCP x DCP context path of mla_pcp.py, on
// the floor-divide planner's DCP metadata. Its registration (plan.cpp defines it) and its steps.
#pragma once

#include "reference/planner/families/local_shard/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo local_shard_family;
}  // namespace cp
