// Every planner family, one line each: adding a family is its folder, its line
// here (with its include) and its tests. `chunkproof versions` groups the rows
// by these.
#pragma once

#include <array>

#include "reference/planner/families/atom/family.h"
#include "reference/planner/families/floor_divide/family.h"
#include "reference/planner/families/gathered/family.h"
#include "reference/planner/families/indexer/family.h"
#include "reference/planner/families/local_shard/family.h"
#include "reference/planner/families/packed/family.h"
#include "reference/planner/families/pcp/family.h"
#include "reference/planner/families/sglang/family.h"
#include "reference/planner/families/tokenspeed/family.h"
#include "reference/planner/families/trtllm/family.h"

namespace cp {

inline constexpr std::array<const FamilyInfo *, 10> kFamilies{
    &floor_divide_family,  // vLLM: v0-early ... v4-pr47327, pr41229
    &packed_family,        // vLLM: v5-packed, v6-current
    &atom_family,          // ROCm/ATOM
    &tokenspeed_family,    // TokenSpeed
    &sglang_family,        // SGLang
    &trtllm_family,        // TensorRT-LLM
    &indexer_family,       // vLLM: the sparse indexer prefill chunker (indexer-dsv32, indexer-dsv4)
    &gathered_family,      // vLLM: FlashMLA sparse PCP x DCP gathered prefill
    &pcp_family,           // vLLM: PCP virtual rows into v6-current per rank (pcp-a, pcp-b, pcp-c)
    &local_shard_family,   // vLLM: PCP x DCP dense context, mla_pcp.py (pcp-local-shard)
};

}  // namespace cp
