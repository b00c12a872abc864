// GPU vs CPU for one case: every element's raw bits (the entry layer; the CLI lives in
// tools/chunkproof/stage_gpu.cpp).
#include "reference/mla/check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "kernels/harness/bit_diff.h"
#include "kernels/harness/harness.h"
#include "kernels/harness/pipeline.h"
#include "kernels/multi/multi_rank.h"
#include "kernels/runtime.h"
#include "reference/mla/math/all.h"

namespace cp::gpu {

namespace {

// The elements of `heads` of a [token][N][vd] tensor, as [token][heads][vd].
std::vector<float> pick_heads(const std::vector<float>& v, const std::vector<int>& heads, std::int64_t N,
                              std::int64_t vd) {
  if (static_cast<std::int64_t>(heads.size()) == N) return v;
  const std::int64_t T = static_cast<std::int64_t>(v.size()) / (N * vd), K = static_cast<std::int64_t>(heads.size());
  std::vector<float> out(static_cast<std::size_t>(T * K * vd));
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t k = 0; k < K; ++k)
      std::copy_n(v.begin() + (t * N + heads[static_cast<std::size_t>(k)]) * vd, vd, out.begin() + (t * K + k) * vd);
  return out;
}

// sample_heads > 0 (sampled verification): the CPU runs both paths for that many heads (every
// token and dim of them); the GPU runs every head and still compares chunked vs unchunked on
// every element; GPU vs CPU is compared, bit for bit, on every element of the chosen heads.
}  // namespace

CheckOutcome check_one(const Case& c, bool poison_twice, int sample_heads) {
  CheckOutcome out;
  std::ostringstream os;
  mla::CheckOptions co;
  co.keep_outputs = true;
  co.sample_heads = sample_heads;
  co.threads = sample_heads > 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) : 1;
  const auto cpu_t0 = std::chrono::steady_clock::now();
  const mla::CheckResult cpu = mla::run_check(c, co);
  const double cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cpu_t0).count();
  if (cpu.assert_fired) {
    out.line = "assert fired on the CPU plan (nothing to run): " + cpu.assert_text;
    return out;
  }
  const Plan& plan = cpu.plan;
  const mla::Inputs in = mla::make_inputs(c);
  const mla::Shape& s = in.s;
  const auto gpu_t0 = std::chrono::steady_clock::now();
  PipelineOptions po;
  const PipelineResult chunked = run_pipeline(c, plan, in, po);
  po.chunked = false;
  po.vllm = false;
  const PipelineResult unchunked = run_pipeline(c, plan, in, po);
  const double gpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - gpu_t0).count();
  std::int64_t first = -1;
  const std::int64_t diff = count_nonequal(unchunked.exact, chunked.exact, &first);
  os << "gpu exact: " << (diff == 0 ? "chunked == unchunked" : std::to_string(diff) + " elements differ");
  const std::vector<int>& hs = cpu.heads;
  const bool sampled = static_cast<int>(hs.size()) < s.N;
  if (sampled)
    os << " (every element); sampled heads " << hs.size() << " of " << s.N << " [CPU " << std::fixed
       << std::setprecision(1) << cpu_s << " s, GPU " << gpu_s << " s" << std::defaultfloat << "]";
  const std::int64_t sampled_diff = sampled ? count_nonequal(pick_heads(unchunked.exact, hs, s.N, s.Vd),
                                                         pick_heads(chunked.exact, hs, s.N, s.Vd), nullptr)
                                            : diff;
  // The CPU's verdict: the same count (NaN never equal, as the CPU counts) and overflow flag.
  const auto& ex = cpu.exact;
  bool agree = ex.differing == sampled_diff && ex.overflow == (chunked.overflow || unchunked.overflow);
  if (!agree)
    os << " [CPU: " << ex.differing << " differ" << (ex.overflow ? ", overflow" : "") << "; GPU overflow "
       << (chunked.overflow || unchunked.overflow) << "]";
  // Every element, raw bits: (a) GPU chunked vs GPU unchunked (reported; equal to the CPU's
  // difference by (b)), (b) GPU exact outputs vs CPU, (c) GPU vLLM-style outputs + lse vs CPU.
  const std::int64_t N = s.N, Vd = s.Vd;
  os << "; " << describe("(a) gpu chunked vs unchunked", bit_diff(unchunked.exact, chunked.exact), N, Vd);
  struct Pair {
    const char* name;
    std::vector<float> gpu;  // the chosen heads' elements (every element unless sampled)
    const std::vector<float>* cpu;
    std::int64_t vd;
  };
  // Positions in (b)/(c) reports are (token, index among the chosen heads, dim) when sampled.
  const Pair pairs[] = {
      {"(b) reference", pick_heads(unchunked.exact, hs, N, Vd), &cpu.reference_out, Vd},
      {"(b) chunked", pick_heads(chunked.exact, hs, N, Vd), &cpu.chunked_out, Vd},
      {"(c) vllm triton out", pick_heads(chunked.vllm[0], hs, N, Vd), &cpu.vllm_out[0], Vd},
      {"(c) vllm cuda out", pick_heads(chunked.vllm[1], hs, N, Vd), &cpu.vllm_out[1], Vd},
      {"(c) vllm triton lse", pick_heads(chunked.vllm_lse[0], hs, N, 1), &cpu.vllm_lse[0], 1},
      {"(c) vllm cuda lse", pick_heads(chunked.vllm_lse[1], hs, N, 1), &cpu.vllm_lse[1], 1},
  };
  const std::int64_t NK = static_cast<std::int64_t>(hs.size());
  std::int64_t compared = 0;
  bool all_equal = true;
  for (const Pair& p : pairs) {
    const BitDiff d = bit_diff(p.gpu, *p.cpu);
    compared += d.elements;
    if (d.differing == 0 && !d.size_mismatch) continue;
    all_equal = false;
    os << "; GPU vs CPU " << describe(p.name, d, NK, p.vd);
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
