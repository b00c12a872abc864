// merge_attn_states: vLLM's merge of two attention partials (out, lse), in both flavours, per
// element on host and device (spec §4), plus a float64 oracle.
//
// Layout as in vLLM: outputs [tokens][heads][head_size] addressed with a token stride and a
// head stride (element units); LSE [heads][tokens] (lse[h * tokens + t]), natural log.
//
//   merge_one_triton(m, t, h)  triton_merge_attn_states (cfc4079e): maps +inf -> -inf only;
//                              m = max(p, s) (NaN operands ignored, like fmaxf); weights
//                              exp(l - m); a contribution whose weight is exactly 0 is zeroed
//                              (guards uninitialised outputs); both -inf => -inf - -inf = NaN:
//                              NaN output and NaN LSE. Reads the SUFFIX with the PREFIX's
//                              token/head strides (spec I-12c).
//   merge_one_cuda(m, t, h)    merge_attn_states.cu (48dca59e): maps any inf to -inf; if the max
//                              is inf (both empty) copies the prefix output and writes -inf;
//                              otherwise o = o_p*(a/(a+b)) + o_s*(b/(a+b)) with no NaN guard.
//                              Each tensor is read with its own strides.
//   merge_attn_states(f, m)    host loop over every (t, h).
//   merge_oracle_f64(...)      the same merge in float64 with the mathematically intended
//                              rules (+-inf = empty; empty+empty = empty: out 0, lse -inf).
// exp/log are exp_cp/log_cp (exp.h) so the merge has the same bits on every device; every
// multiply/add/divide is a separate IEEE operation (no FMA).
#pragma once

#include <cmath>

#include "reference/mla/math/exp.h"
#include "reference/mla/math/hd.h"
#include "reference/planner/merge_flavour.h"

namespace cp::mla {

using cp::MergeFlavour;

struct MergeTensors {
  float* out = nullptr;
  float* out_lse = nullptr;  // may be null
  long out_ts = 0, out_hs = 0;
  const float* prefix = nullptr;
  const float* prefix_lse = nullptr;
  long p_ts = 0, p_hs = 0;
  const float* suffix = nullptr;
  const float* suffix_lse = nullptr;
  long s_ts = 0, s_hs = 0;
  int tokens = 0, heads = 0, head_size = 0;
};

// What an engine's Triton merge does differently from vLLM's (reference/planner/merge_kernels.h
// records which kernel a version ran): the default is vLLM's triton_merge_attn_states (the
// zero-weight guard, both empty => NaN); ATOM's copy (ROCm/ATOM@22da013e
// atom/model_ops/attentions/triton_merge_attn_states.py, #1236) has no zero-weight guard and maps
// both empty to a finite max of 0 and a denominator of 1: output p_out*0 + s_out*0, LSE -inf;
// SGLang's ROCm merge_state (sgl-project/sglang@37ab963c triton_ops/merge_state.py) has neither.
struct MergeRule {
  bool zero_weight_guard = true;  // a zero weight zeroes its term
  bool zero_both_empty = false;   // both LSEs -inf: out 0 * p_out + 0 * s_out, lse -inf (ATOM)
};

// max ignoring a NaN operand (fmaxf / tl.maximum semantics).
CP_HD inline float fmax_cp(float a, float b) {
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  return a > b ? a : b;
}

CP_HD inline void merge_one_triton(const MergeTensors& m, int t, int h, MergeRule rule = {}) {
  const long li = static_cast<long>(h) * m.tokens + t;
  float p_lse = m.prefix_lse[li];
  float s_lse = m.suffix_lse[li];
  if (p_lse == pos_inf()) p_lse = neg_inf();
  if (s_lse == pos_inf()) s_lse = neg_inf();
  const float max_lse = fmax_cp(p_lse, s_lse);
  const bool both_empty = rule.zero_both_empty && max_lse == neg_inf();
  const float safe_max = both_empty ? 0.0f : max_lse;
  p_lse = sub_rn(p_lse, safe_max);
  s_lse = sub_rn(s_lse, safe_max);
  const float out_se = add_rn(exp_cp(p_lse), exp_cp(s_lse));
  if (m.out_lse != nullptr) m.out_lse[li] = both_empty ? neg_inf() : canonical_nan(add_rn(log_cp(out_se), safe_max));
  const float p_se = exp_cp(p_lse);
  const float s_se = exp_cp(s_lse);
  const float den = both_empty ? 1.0f : out_se;
  const float p_scale = div_rn(p_se, den);
  const float s_scale = div_rn(s_se, den);
  const float* po = m.prefix + t * m.p_ts + h * m.p_hs;
  const float* so = m.suffix + t * m.p_ts + h * m.p_hs;  // prefix strides, as the kernel does
  float* o = m.out + t * m.out_ts + h * m.out_hs;
  for (int d = 0; d < m.head_size; ++d) {
    const float a = rule.zero_weight_guard && p_se == 0.0f ? 0.0f : mul_rn(po[d], p_scale);
    const float b = rule.zero_weight_guard && s_se == 0.0f ? 0.0f : mul_rn(so[d], s_scale);
    o[d] = canonical_nan(add_rn(a, b));
  }
}

CP_HD inline void merge_one_cuda(const MergeTensors& m, int t, int h) {
  const long li = static_cast<long>(h) * m.tokens + t;
  float p_lse = m.prefix_lse[li];
  float s_lse = m.suffix_lse[li];
  if (is_inf(p_lse)) p_lse = neg_inf();
  if (is_inf(s_lse)) s_lse = neg_inf();
  const float max_lse = fmax_cp(p_lse, s_lse);
  const float* po = m.prefix + t * m.p_ts + h * m.p_hs;
  const float* so = m.suffix + t * m.s_ts + h * m.s_hs;
  float* o = m.out + t * m.out_ts + h * m.out_hs;
  if (is_inf(max_lse)) {  // both empty: copy the prefix, LSE -inf
    for (int d = 0; d < m.head_size; ++d) o[d] = canonical_nan(po[d]);
    if (m.out_lse != nullptr) m.out_lse[li] = canonical_nan(max_lse);
    return;
  }
  p_lse = sub_rn(p_lse, max_lse);
  s_lse = sub_rn(s_lse, max_lse);
  const float p_se = exp_cp(p_lse);
  const float s_se = exp_cp(s_lse);
  const float out_se = add_rn(p_se, s_se);
  const float p_scale = div_rn(p_se, out_se);
  const float s_scale = div_rn(s_se, out_se);
  for (int d = 0; d < m.head_size; ++d) o[d] = canonical_nan(add_rn(mul_rn(po[d], p_scale), mul_rn(so[d], s_scale)));
  if (m.out_lse != nullptr) m.out_lse[li] = canonical_nan(add_rn(log_cp(out_se), max_lse));
}

CP_HD inline void merge_one(MergeFlavour f, const MergeTensors& m, int t, int h, MergeRule rule = {}) {
  if (f == MergeFlavour::triton)
    merge_one_triton(m, t, h, rule);
  else
    merge_one_cuda(m, t, h);
}

inline void merge_attn_states(MergeFlavour f, const MergeTensors& m, MergeRule rule = {}) {
  for (int t = 0; t < m.tokens; ++t)
    for (int h = 0; h < m.heads; ++h) merge_one(f, m, t, h, rule);
}

// Float64 oracle for one (token, head): prefix/suffix outputs of head_size elements. Host only.
inline void merge_oracle_f64(const double* p_out, double p_lse, const double* s_out, double s_lse, int head_size,
                             double* out, double* out_lse) {
  if (std::isinf(p_lse)) p_lse = -INFINITY;
  if (std::isinf(s_lse)) s_lse = -INFINITY;
  if (p_lse == -INFINITY && s_lse == -INFINITY) {
    for (int d = 0; d < head_size; ++d) out[d] = 0.0;
    if (out_lse != nullptr) *out_lse = -INFINITY;
    return;
  }
  const double mx = p_lse > s_lse ? p_lse : s_lse;
  const double a = std::exp(p_lse - mx), b = std::exp(s_lse - mx);
  for (int d = 0; d < head_size; ++d) out[d] = (a * p_out[d] + b * s_out[d]) / (a + b);
  if (out_lse != nullptr) *out_lse = mx + std::log(a + b);
}

}  // namespace cp::mla
