// The TensorRT-LLM family (trtllm-pre7477, trtllm-current, trtllm-sm90-pre19269): its
// registration (plan.cpp defines it) and its steps (steps.h).
#pragma once

#include "reference/planner/families/trtllm/steps.h"
#include "reference/planner/family.h"

namespace cp {
extern const FamilyInfo trtllm_family;
}  // namespace cp
