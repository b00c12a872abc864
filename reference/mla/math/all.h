// Umbrella header: the per-element math shared by the CPU reference and the GPU kernels
// (namespace cp::mla, every function CP_HD). See each header's top comment.
#pragma once

#include "reference/mla/math/bf16.h"
#include "reference/mla/math/causal.h"
#include "reference/mla/math/dot.h"
#include "reference/mla/math/exact_accumulator.h"
#include "reference/mla/math/exp.h"
#include "reference/mla/math/hd.h"
#include "reference/mla/math/merge_attn_states.h"
