// GPU vs CPU for one case: every element's raw bits (the entry layer; the CLI lives in
// tools/chunkproof/stage_gpu.cpp).
#include "reference/mla/check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "kernels/harness/harness.h"
#include "kernels/harness/pipeline.h"
#include "kernels/multi/multi_rank.h"
#include "kernels/runtime.h"
#include "reference/mla/math/all.h"

namespace cp::gpu {

namespace {

std::int64_t count_diff(const std::vector<float>& a, const std::vector<float>& b, std::int64_t* first) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (mla::bits_of(a[i]) != mla::bits_of(b[i]) || mla::is_nan(a[i]) || mla::is_nan(b[i])) {
      if (n++ == 0 && first) *first = static_cast<std::int64_t>(i);
    }
  return n;
}

// Every element's raw bits: equal only when the 32 bits are equal (a NaN equals only the same
// NaN bits). `inner` is the element count per token (N * Vd for outputs, N for lse), `vd` the
// innermost extent (Vd, or 1 for lse).
struct BitDiff {
  std::int64_t elements = 0, differing = 0, nan_payload = 0;  // nan_payload: both NaN, other bits
  bool size_mismatch = false;
  std::int64_t first = -1;
  std::uint32_t a_bits = 0, b_bits = 0;
};

BitDiff bit_diff(const std::vector<float>& a, const std::vector<float>& b) {
  BitDiff d;
  d.elements = static_cast<std::int64_t>(a.size());
  if (a.size() != b.size()) {
    d.size_mismatch = true;
    return d;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::uint32_t x = mla::bits_of(a[i]), y = mla::bits_of(b[i]);
    if (x == y) continue;
    if (mla::is_nan(a[i]) && mla::is_nan(b[i])) ++d.nan_payload;
    if (d.differing++ == 0) {
      d.first = static_cast<std::int64_t>(i);
      d.a_bits = x;
      d.b_bits = y;
    }
  }
  return d;
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// "name: 0 of E differ" or "name: K of E differ, first at (token t, head h, dim d): A vs B".
std::string describe(const char* name, const BitDiff& d, std::int64_t N, std::int64_t vd) {
  std::ostringstream os;
  os << name << ": ";
  if (d.size_mismatch) return os.str() + "SIZE MISMATCH";
  os << d.differing << " of " << d.elements << " differ";
  if (d.differing == 0) return os.str();
  const std::int64_t per_token = N * vd;
  os << ", first at (token " << d.first / per_token << ", head " << (d.first % per_token) / vd;
  if (vd > 1) os << ", dim " << d.first % vd;
  os << "): " << hex32(d.a_bits) << " vs " << hex32(d.b_bits);
  if (d.nan_payload) os << " (" << d.nan_payload << " are NaN vs NaN with other bits)";
  return os.str();
}

}  // namespace

CheckOutcome check_one(const Case& c, bool poison_twice) {
  CheckOutcome out;
  std::ostringstream os;
  mla::CheckOptions co;
  co.keep_outputs = true;
  const mla::CheckResult cpu = mla::run_check(c, co);
  if (cpu.assert_fired) {
    out.line = "assert fired on the CPU plan (nothing to run): " + cpu.assert_text;
    return out;
  }
  const Plan& plan = cpu.plan;
  const mla::Inputs in = mla::make_inputs(c);
  const mla::Shape& s = in.s;
  PipelineOptions po;
  const PipelineResult chunked = run_pipeline(c, plan, in, po);
  po.chunked = false;
  po.vllm = false;
  const PipelineResult unchunked = run_pipeline(c, plan, in, po);
  std::int64_t first = -1;
  const std::int64_t diff = count_diff(unchunked.exact, chunked.exact, &first);
  os << "gpu exact: " << (diff == 0 ? "chunked == unchunked" : std::to_string(diff) + " elements differ");
  // The CPU's verdict: the same count (NaN never equal, as the CPU counts) and overflow flag.
  const auto& ex = cpu.exact;
  bool agree = ex.differing == diff && ex.overflow == (chunked.overflow || unchunked.overflow);
  if (!agree)
    os << " [CPU: " << ex.differing << " differ" << (ex.overflow ? ", overflow" : "") << "; GPU overflow "
       << (chunked.overflow || unchunked.overflow) << "]";
  // Every element, raw bits: (a) GPU chunked vs GPU unchunked (reported; equal to the CPU's
  // difference by (b)), (b) GPU exact outputs vs CPU, (c) GPU vLLM-style outputs + lse vs CPU.
  const std::int64_t N = s.N, Vd = s.Vd;
  os << "; " << describe("(a) gpu chunked vs unchunked", bit_diff(unchunked.exact, chunked.exact), N, Vd);
  struct Pair {
    const char* name;
    const std::vector<float>* gpu;
    const std::vector<float>* cpu;
    std::int64_t vd;
  };
  const Pair pairs[] = {
      {"(b) reference", &unchunked.exact, &cpu.reference_out, Vd},
      {"(b) chunked", &chunked.exact, &cpu.chunked_out, Vd},
      {"(c) vllm triton out", &chunked.vllm[0], &cpu.vllm_out[0], Vd},
      {"(c) vllm cuda out", &chunked.vllm[1], &cpu.vllm_out[1], Vd},
      {"(c) vllm triton lse", &chunked.vllm_lse[0], &cpu.vllm_lse[0], 1},
      {"(c) vllm cuda lse", &chunked.vllm_lse[1], &cpu.vllm_lse[1], 1},
  };
  std::int64_t compared = 0;
  bool all_equal = true;
  for (const Pair& p : pairs) {
    const BitDiff d = bit_diff(*p.gpu, *p.cpu);
    compared += d.elements;
    if (d.differing == 0 && !d.size_mismatch) continue;
    all_equal = false;
    os << "; GPU vs CPU " << describe(p.name, d, N, p.vd);
  }
  agree = agree && all_equal;
  if (all_equal)
    os << "; GPU vs CPU: all " << compared << " elements bit-identical (exact ref + chunked, vllm out + lse x2)";
  // A second run without poisoning (whatever the allocator gives) must give the same bits.
  if (poison_twice) {
    PipelineOptions p2;
    p2.poison = false;
    const PipelineResult again = run_pipeline(c, plan, in, p2);
    const BitDiff d2 = bit_diff(chunked.exact, again.exact);
    const BitDiff d3 = bit_diff(chunked.vllm[0], again.vllm[0]);
    const BitDiff d4 = bit_diff(chunked.vllm[1], again.vllm[1]);
    if (d2.differing || d3.differing || d4.differing) {
      agree = false;
      os << "; output depends on unwritten memory (" << d2.differing << " exact, " << d3.differing + d4.differing
         << " vllm elements)";
    }
  }
  os << (agree ? "; agrees with the CPU (" : "; DISAGREES with the CPU (") << cpu.one_line() << ")";
  out.agree = agree;
  out.line = os.str();
  return out;
}

}  // namespace cp::gpu
