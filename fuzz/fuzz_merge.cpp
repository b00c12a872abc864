// merge_fuzz: vLLM's merge_attn_states (reference/mla/math/merge_attn_states.h), Triton and
// CUDA flavours, against the float64 oracle, on partials with random LSEs (finite, +inf, -inf,
// huge), random outputs, empty partials holding finite garbage, and prefix/suffix layouts with
// equal or different head strides.
//
// Bound (per element, stated here and in docs/fuzzing.md): |o - o64| <= 64 ulp(1) * (|o_p| + |o_s|)
// and |lse - lse64| <= 64 ulp(1) * max(1, |lse64|) + 1e-6; a NaN where the oracle has none, or
// an error beyond the bound, is a finding.
// Known findings (spec §6 I-12) are recorded, not crashes, so fuzzing goes on past them:
//   I-12b  Triton, both partials empty: NaN output and NaN LSE;
//   I-12c  Triton reads the suffix with the prefix's strides: wrong values when they differ.
// Anything else aborts with the inputs.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "fuzz/common/findings.h"
#include "fuzz/replay.h"
#include "reference/mla/math/merge_attn_states.h"

namespace {

using cp::mla::MergeFlavour;
constexpr double kUlp1 = 1.1920928955078125e-07;  // 2^-23

float pick_lse(FuzzedDataProvider& f) {
  switch (f.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return std::numeric_limits<float>::infinity();
    case 1: return -std::numeric_limits<float>::infinity();
    case 2: return f.ConsumeFloatingPointInRange<float>(-1e30f, 1e30f);
    case 3: return static_cast<float>(f.ConsumeIntegralInRange<int>(-100, 100));
    default: return f.ConsumeFloatingPointInRange<float>(-60.0f, 60.0f);
  }
}

struct Inputs {
  int tokens, heads, head_size, pad;
  MergeFlavour flavour;
  std::vector<float> p, s, p_lse, s_lse;
};

std::string describe(const Inputs& in, int t, int h) {
  const long li = static_cast<long>(h) * in.tokens + t;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s merge, tokens=%d heads=%d head_size=%d suffix pad=%d, token %d head %d: lse_p=%a lse_s=%a",
                in.flavour == MergeFlavour::triton ? "triton" : "cuda", in.tokens, in.heads, in.head_size, in.pad, t, h,
                static_cast<double>(in.p_lse[static_cast<std::size_t>(li)]),
                static_cast<double>(in.s_lse[static_cast<std::size_t>(li)]));
  return buf;
}

cp::fuzz::FindingSink& sink() {
  static cp::fuzz::TargetConfig cfg = cp::fuzz::TargetConfig::from_env();
  static cp::fuzz::FindingSink s(cfg);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cp::fuzz::count_execution();
  FuzzedDataProvider f(data, size);
  Inputs in;
  in.flavour = f.ConsumeBool() ? MergeFlavour::cuda : MergeFlavour::triton;
  in.tokens = f.ConsumeIntegralInRange<int>(1, 4);
  in.heads = f.ConsumeIntegralInRange<int>(1, 4);
  in.head_size = f.ConsumeIntegralInRange<int>(1, 8);
  in.pad = f.ConsumeBool() ? f.ConsumeIntegralInRange<int>(1, 8) : 0;  // suffix head stride = head_size + pad
  const bool garbage = f.ConsumeBool();  // empty partials hold finite garbage instead of zeros
  const long p_hs = in.head_size, p_ts = p_hs * in.heads;
  const long s_hs = in.head_size + in.pad, s_ts = s_hs * in.heads;
  const std::size_t n_lse = static_cast<std::size_t>(in.tokens * in.heads);
  in.p_lse.resize(n_lse);
  in.s_lse.resize(n_lse);
  for (std::size_t i = 0; i < n_lse; ++i) {
    in.p_lse[i] = pick_lse(f);
    in.s_lse[i] = pick_lse(f);
  }
  in.p.assign(static_cast<std::size_t>(p_ts * in.tokens), 0.0f);
  in.s.assign(static_cast<std::size_t>(s_ts * in.tokens), 0.0f);
  for (int t = 0; t < in.tokens; ++t)
    for (int h = 0; h < in.heads; ++h) {
      const std::size_t li = static_cast<std::size_t>(h * in.tokens + t);
      const bool p_empty = std::isinf(in.p_lse[li]), s_empty = std::isinf(in.s_lse[li]);
      for (int d = 0; d < in.head_size; ++d) {
        const float pv = f.ConsumeFloatingPointInRange<float>(-8.0f, 8.0f);
        const float sv = f.ConsumeFloatingPointInRange<float>(-8.0f, 8.0f);
        in.p[static_cast<std::size_t>(t * p_ts + h * p_hs + d)] = p_empty && !garbage ? 0.0f : pv;
        in.s[static_cast<std::size_t>(t * s_ts + h * s_hs + d)] = s_empty && !garbage ? 0.0f : sv;
      }
      for (int d = in.head_size; d < s_hs; ++d) in.s[static_cast<std::size_t>(t * s_ts + h * s_hs + d)] = 1e6f;
    }

  std::vector<float> out(static_cast<std::size_t>(p_ts * in.tokens), -1.0f), out_lse(n_lse, -1.0f);
  cp::mla::MergeTensors m;
  m.out = out.data();
  m.out_lse = out_lse.data();
  m.out_ts = p_ts;
  m.out_hs = p_hs;
  m.prefix = in.p.data();
  m.prefix_lse = in.p_lse.data();
  m.p_ts = p_ts;
  m.p_hs = p_hs;
  m.suffix = in.s.data();
  m.suffix_lse = in.s_lse.data();
  m.s_ts = s_ts;
  m.s_hs = s_hs;
  m.tokens = in.tokens;
  m.heads = in.heads;
  m.head_size = in.head_size;
  // The Triton kernel reads the suffix with the prefix's strides: give it a buffer large enough
  // for either layout, so a stride mismatch is a wrong value (I-12c), not an out-of-bounds read.
  if (in.flavour == MergeFlavour::triton && in.s.size() < in.p.size())
    in.s.resize(in.p.size(), 1e6f), m.suffix = in.s.data();
  cp::mla::merge_attn_states(in.flavour, m);

  std::vector<double> po(static_cast<std::size_t>(in.head_size)), so(po.size()), oo(po.size());
  for (int t = 0; t < in.tokens; ++t)
    for (int h = 0; h < in.heads; ++h) {
      const std::size_t li = static_cast<std::size_t>(h * in.tokens + t);
      for (int d = 0; d < in.head_size; ++d) {
        po[static_cast<std::size_t>(d)] = in.p[static_cast<std::size_t>(t * p_ts + h * p_hs + d)];
        so[static_cast<std::size_t>(d)] = in.s[static_cast<std::size_t>(t * s_ts + h * s_hs + d)];
      }
      double ol = 0;
      cp::mla::merge_oracle_f64(po.data(), in.p_lse[li], so.data(), in.s_lse[li], in.head_size, oo.data(), &ol);
      const bool both_empty = std::isinf(in.p_lse[li]) && std::isinf(in.s_lse[li]);
      std::string problem;
      const float gl = out_lse[li];
      if (std::isnan(gl) != std::isnan(ol) ||
          (!std::isnan(ol) &&
           (std::isinf(ol) ? gl != ol : std::fabs(gl - ol) > 64 * kUlp1 * std::fmax(1.0, std::fabs(ol)) + 1e-6)))
        problem = "lse " + std::to_string(gl) + " vs oracle " + std::to_string(ol);
      for (int d = 0; d < in.head_size && problem.empty(); ++d) {
        const double g = out[static_cast<std::size_t>(t * p_ts + h * p_hs + d)];
        const double w = oo[static_cast<std::size_t>(d)];
        const double bound =
            64 * kUlp1 * (std::fabs(po[static_cast<std::size_t>(d)]) + std::fabs(so[static_cast<std::size_t>(d)]));
        // Both empty: the contract is "no NaN, LSE -inf"; the output value of an empty merge is
        // unused (CUDA copies the prefix, the oracle writes 0).
        if (std::isnan(g) || (!both_empty && std::fabs(g - w) > bound))
          problem = "out[" + std::to_string(d) + "] " + std::to_string(g) + " vs oracle " + std::to_string(w);
      }
      if (problem.empty()) continue;
      const std::string where = describe(in, t, h);
      if (in.flavour == MergeFlavour::triton && both_empty) {
        sink().record("merge triton: both partials empty -> NaN (I-12b)", where, problem);
        continue;
      }
      if (in.flavour == MergeFlavour::triton && in.pad != 0) {
        sink().record("merge triton: suffix read with prefix strides (I-12c)", where, problem);
        continue;
      }
      cp::fuzz::crash_for("merge " + std::string(in.flavour == MergeFlavour::triton ? "triton" : "cuda") +
                              ": beyond the float64 oracle's bound",
                          where, problem);
    }
  return 0;
}
