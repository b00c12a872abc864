// The merges a plan's engine runs on its context partials (reference/planner/merge_kernels.h
// records them per version): the kernel's rule per flavour slot [triton, cuda] and the loop's
// rules, for the CPU numerics (check.cpp) and the GPU pipeline (kernels/harness/pipeline.cpp)
// alike. vLLM's versions keep the model's two flavours (spec §4: the golden hashes are theirs);
// the other engines run their own: ATOM's both-empty (0, -inf) and no zero-weight guard, SGLang's
// loop from the causal suffix, TensorRT-LLM's op-code skip of a row without keys.
#pragma once

#include "reference/mla/math/merge_attn_states.h"
#include "reference/planner/merge_kernels.h"
#include "reference/planner/plan.h"

namespace cp::mla {

struct ContextMerge {
  MergeRule rule[2];          // [triton, cuda] slot: the kernel's Triton variant
  bool skip_empty = false;    // EmptyPartial::skipped: a partial of no rows is not merged
  bool suffix_first = false;  // MergeOrder::suffix_first: running = suffix, then merge(chunk, running)
};

inline ContextMerge context_merge(const Plan& p) {
  ContextMerge m;
  for (int f = 0; f < 2; ++f) {
    const MergeKernel& k = *kernel_for(p.version, f == 0 ? MergeFlavour::triton : MergeFlavour::cuda).kernel;
    if (k.engine == "vllm" || k.engine == "flashinfer") continue;
    m.rule[f] = {.zero_weight_guard = k.zero_weight_guard, .zero_both_empty = k.both_empty == BothEmpty::zero};
  }
  const MergeKernel& ran = *kernel_for(p.version, p.merge).kernel;
  m.skip_empty = ran.empty == EmptyPartial::skipped;
  m.suffix_first = ran.order == MergeOrder::suffix_first;
  return m;
}

}  // namespace cp::mla
