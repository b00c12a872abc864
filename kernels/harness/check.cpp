// GPU vs CPU for one case: every element's raw bits (the entry layer; the CLI lives in
// tools/chunkproof/stage_gpu.cpp).
#include "reference/mla/check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <span>
#include <sstream>
#include <thread>

#include "kernels/harness/bit_diff.h"
#include "kernels/harness/harness.h"
#include "kernels/harness/pipeline.h"
#include "kernels/multi/multi_rank.h"
#include "kernels/runtime.h"
#include "reference/mla/math/all.h"
#include "reference/proc/interrupt.h"

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

// The rows of `heads` of a head-major [N][qn] tensor (a partial's lse), as [heads][qn].
std::vector<float> pick_head_rows(const std::vector<float>& v, const std::vector<int>& heads, std::int64_t qn) {
  std::vector<float> out;
  out.reserve(heads.size() * static_cast<std::size_t>(qn));
  for (int h : heads) out.insert(out.end(), v.begin() + h * qn, v.begin() + (h + 1) * qn);
  return out;
}

// --mode fast: GPU vs CPU within a bound instead of bit for bit (docs/gpu.md "Fast mode").
// Outputs: |gpu - cpu| <= 2^-6 * max_d |cpu[t][h][d]| + 2^-16 per element; lse: |gpu - cpu| <=
// 2^-8 * (1 + |cpu|); NaN exactly where the CPU has NaN, and infinities equal. Reports the
// largest error as a fraction of its allowance.
struct BoundDiff {
  std::int64_t elements = 0, outside = 0, first = -1;
  double worst = 0;  // max over elements of |gpu - cpu| / allowance
  bool size_mismatch = false;
};
BoundDiff bound_diff(const std::vector<float>& gpu, const std::vector<float>& cpu, std::int64_t vd, bool lse) {
  BoundDiff d;
  if (gpu.size() != cpu.size()) {
    d.size_mismatch = true;
    return d;
  }
  d.elements = static_cast<std::int64_t>(gpu.size());
  for (std::int64_t row = 0; row * vd < d.elements; ++row) {
    double rmax = 0;
    for (std::int64_t k = row * vd; k < (row + 1) * vd; ++k)
      if (std::isfinite(cpu[static_cast<std::size_t>(k)]))
        rmax = std::max(rmax, std::fabs(static_cast<double>(cpu[static_cast<std::size_t>(k)])));
    for (std::int64_t k = row * vd; k < (row + 1) * vd; ++k) {
      const double g = gpu[static_cast<std::size_t>(k)], c = cpu[static_cast<std::size_t>(k)];
      bool ok = false;
      double ratio = 0;
      if (std::isnan(c) || std::isnan(g) || std::isinf(c) || std::isinf(g)) {
        ok = (std::isnan(c) && std::isnan(g)) || g == c;
      } else {
        const double allow = lse ? 0x1p-8 * (1.0 + std::fabs(c)) : 0x1p-6 * rmax + 0x1p-16;
        ratio = std::fabs(g - c) / allow;
        ok = ratio <= 1.0;
      }
      d.worst = std::max(d.worst, ratio);
      if (!ok && d.outside++ == 0) d.first = k;
    }
  }
  return d;
}

// The GPU pipeline over a case: one run, or for a pcp plan one run per PCP rank over its rows
// (mla::pcp_rank_views, the views the CPU's run_check runs), the outputs in rank order as the
// CPU lays them out.
PipelineResult run_case(const Case& c, const Plan& plan, const mla::Inputs& in, const PipelineOptions& o) {
  if (!plan.pcp) return run_pipeline(c, plan, in, o);
  PipelineResult all;
  auto append = [](std::vector<float>& to, const std::vector<float>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  for (const mla::PcpRankView& v : mla::pcp_rank_views(c, in)) {
    const PipelineResult r = run_pipeline(v.rows, v.plan, v.in, o);
    append(all.exact, r.exact);
    for (int f = 0; f < 2; ++f) {
      append(all.vllm[f], r.vllm[f]);
      append(all.vllm_lse[f], r.vllm_lse[f]);
    }
    all.overflow = all.overflow || r.overflow;
    all.total_ms += r.total_ms;
  }
  return all;
}

// sample_heads > 0 (sampled verification): the CPU runs both paths for that many heads (every
// token and dim of them); the GPU runs every head and still compares chunked vs unchunked on
// every element; GPU vs CPU is compared, bit for bit, on every element of the chosen heads.
}  // namespace

CheckOutcome check_one(const Case& c, bool poison_twice, int sample_heads, bool fast, MovementFn movement) {
  CheckOutcome out;
  std::ostringstream os;
  mla::CheckOptions co;
  co.keep_outputs = true;
  co.movement = movement;
  co.sample_heads = sample_heads;
  co.threads = sample_heads > 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) : 1;
  co.stop = [] { return proc::interrupted(); };  // Ctrl-C: throws mla::CheckStopped (tools/chunkproof/gpu_cases.h)
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
  po.fast = fast;
  po.movement = movement;
  const PipelineResult chunked = run_case(c, plan, in, po);
  po.chunked = false;
  po.vllm = false;
  const PipelineResult unchunked = run_case(c, plan, in, po);
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
  // fast: other values, so only the kind of verdict (differing or not) can be the CPU's.
  const bool same_verdict = fast ? (ex.differing > 0) == (sampled_diff > 0) : ex.differing == sampled_diff;
  bool agree = same_verdict && ex.overflow == (chunked.overflow || unchunked.overflow);
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
  if (fast) {
    double worst = 0;
    for (const Pair& p : pairs) {
      const bool lse = p.vd == 1;
      const BoundDiff d = bound_diff(p.gpu, *p.cpu, p.vd, lse);
      compared += d.elements;
      worst = std::max(worst, d.worst);
      if (d.outside == 0 && !d.size_mismatch) continue;
      all_equal = false;
      os << "; GPU vs CPU " << p.name << ": " << (d.size_mismatch ? "size mismatch" : "")
         << (d.size_mismatch ? 0 : d.outside) << " of " << d.elements << " outside the fast-mode bound";
      if (d.first >= 0) {
        const std::size_t k = static_cast<std::size_t>(d.first);
        os << " (first at flat index " << d.first << ": GPU " << p.gpu[k] << ", CPU " << (*p.cpu)[k] << ")";
      }
    }
    os << "; GPU (--mode fast) vs CPU: " << compared << " elements, "
       << (all_equal ? "all within the bound" : "NOT all within the bound") << ", worst error " << std::setprecision(3)
       << worst << " of its allowance" << std::defaultfloat;
  }
  for (const Pair& p : fast ? std::span<const Pair>() : std::span<const Pair>(pairs)) {
    const BitDiff d = bit_diff(p.gpu, *p.cpu);
    compared += d.elements;
    if (d.differing == 0 && !d.size_mismatch) continue;
    all_equal = false;
    os << "; GPU vs CPU " << describe(p.name, d, NK, p.vd);
  }
  agree = agree && all_equal;
  if (all_equal && !fast)
    os << "; GPU vs CPU: all " << compared << " elements bit-identical (exact ref + chunked, vllm out + lse x2)";
  // A second run without poisoning (whatever the allocator gives) must give the same bits.
  if (poison_twice) {
    PipelineOptions p2;
    p2.poison = false;
    p2.fast = fast;
    p2.movement = movement;
    const PipelineResult again = run_case(c, plan, in, p2);
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

ExportReference export_reference(const Case& c, int threads, int sample_heads) {
  ExportReference er;
  std::ostringstream os;
  mla::CheckOptions co;
  co.keep_outputs = true;
  co.sample_heads = std::max(1, sample_heads);
  co.threads = std::max(1, threads);
  const auto cpu_t0 = std::chrono::steady_clock::now();
  mla::CheckResult cpu = mla::run_check(c, co);
  er.cpu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - cpu_t0).count();
  if (cpu.assert_fired) {
    er.line = "assert fired on the CPU plan (nothing ran on the GPU): " + cpu.assert_text;
    er.result = std::move(cpu);
    return er;
  }
  const Plan& plan = cpu.plan;
  const mla::Inputs in = mla::make_inputs(c);
  const std::int64_t N = in.s.N, Vd = in.s.Vd;
  const auto gpu_t0 = std::chrono::steady_clock::now();
  PipelineOptions po;
  po.keep_partials = true;
  PipelineResult chunked = run_pipeline(c, plan, in, po);
  po.chunked = false;
  po.vllm = false;
  po.keep_partials = false;
  po.exact_lse = true;
  PipelineResult unchunked = run_pipeline(c, plan, in, po);
  er.gpu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - gpu_t0).count();

  const std::vector<int> hs = cpu.heads;
  er.checked_heads = hs;
  const std::int64_t NK = static_cast<std::int64_t>(hs.size());
  bool all_equal = true;
  auto cmp = [&](const std::string& name, const std::vector<float>& gpu_sel, const std::vector<float>& cpu_v,
                 std::int64_t vd) {
    const BitDiff d = bit_diff(gpu_sel, cpu_v);
    er.compared += d.elements;
    if (d.differing == 0 && !d.size_mismatch) return;
    all_equal = false;
    os << "; GPU vs CPU " << describe(name.c_str(), d, NK, vd);
  };
  cmp("reference out", pick_heads(unchunked.exact, hs, N, Vd), cpu.reference_out, Vd);
  cmp("reference lse", pick_heads(unchunked.exact_lse, hs, N, 1), cpu.reference_lse, 1);
  cmp("chunked out", pick_heads(chunked.exact, hs, N, Vd), cpu.chunked_out, Vd);
  for (int f = 0; f < 2; ++f) {
    const std::string fl = f == 0 ? "triton" : "cuda";
    cmp("vllm " + fl + " out", pick_heads(chunked.vllm[f], hs, N, Vd), cpu.vllm_out[f], Vd);
    cmp("vllm " + fl + " lse", pick_heads(chunked.vllm_lse[f], hs, N, 1), cpu.vllm_lse[f], 1);
  }
  if (chunked.partials.size() != cpu.vllm_partials.size()) {
    all_equal = false;
    os << "; GPU vs CPU: " << chunked.partials.size() << " chunk partials vs " << cpu.vllm_partials.size();
  } else {
    for (std::size_t i = 0; i < chunked.partials.size(); ++i) {
      const auto& g = chunked.partials[i];
      const auto& h = cpu.vllm_partials[i];
      const std::string name = "chunk " + std::to_string(h.chunk) + " entry " + std::to_string(h.entry);
      if (g.chunk != h.chunk || g.entry != h.entry || g.request != h.request || g.qn != h.qn) {
        all_equal = false;
        os << "; GPU vs CPU: partial " << i << " is chunk " << g.chunk << " entry " << g.entry << " on the GPU, "
           << name << " on the CPU";
        continue;
      }
      cmp(name + " partial out", pick_heads(g.out, hs, N, Vd), h.out, Vd);
      cmp(name + " partial lse", pick_head_rows(g.lse, hs, g.qn), h.lse, 1);
    }
  }
  // The verdict: every element on the GPU; over the chosen heads it must be the CPU's.
  std::int64_t first = -1;
  const std::int64_t diff = count_nonequal(unchunked.exact, chunked.exact, &first);
  const std::int64_t sampled_diff =
      count_nonequal(pick_heads(unchunked.exact, hs, N, Vd), pick_heads(chunked.exact, hs, N, Vd), nullptr);
  const bool overflow = chunked.overflow || unchunked.overflow;
  bool verdict_ok = cpu.exact.differing == sampled_diff && cpu.exact.overflow == overflow;
  if (!verdict_ok)
    os << "; verdict: CPU " << cpu.exact.differing << " differ" << (cpu.exact.overflow ? ", overflow" : "")
       << " over the chosen heads, GPU " << sampled_diff << (overflow ? ", overflow" : "");
  er.agree = all_equal && verdict_ok;
  std::ostringstream head;
  head << "gpu exact path, every head (" << N << "); cross-checked heads";
  for (int h : hs) head << " " << h;
  head << ": "
       << (er.agree ? "all " + std::to_string(er.compared) + " elements bit-identical GPU vs CPU"
                    : std::string("DISAGREES"))
       << " (exact out + lse, chunked out, vllm out + lse x2, " << chunked.partials.size() << " chunk partials)"
       << " [CPU " << std::fixed << std::setprecision(1) << er.cpu_seconds << " s, GPU " << er.gpu_seconds << " s]";
  er.line = head.str() + os.str();

  // The GPU's tensors, every head, in CheckResult's layout.
  mla::CheckResult& r = er.result;
  r = std::move(cpu);
  r.all_heads = static_cast<int>(N);
  r.heads.resize(static_cast<std::size_t>(N));
  for (int h = 0; h < static_cast<int>(N); ++h) r.heads[static_cast<std::size_t>(h)] = h;
  r.reference_out = std::move(unchunked.exact);
  r.reference_lse = std::move(unchunked.exact_lse);
  r.chunked_out = std::move(chunked.exact);
  for (int f = 0; f < 2; ++f) {
    r.vllm_out[f] = std::move(chunked.vllm[f]);
    r.vllm_lse[f] = std::move(chunked.vllm_lse[f]);
  }
  r.vllm_partials = std::move(chunked.partials);
  mla::ExactResult& ex = r.exact;
  ex.elements = static_cast<std::int64_t>(r.reference_out.size());
  ex.differing = diff;
  ex.overflow = overflow;
  ex.first.reset();
  if (diff > 0) {
    const std::size_t i = static_cast<std::size_t>(first);
    mla::ElementAt e;
    const std::int64_t per_token = N * Vd;
    e.token = first / per_token;
    e.head = static_cast<int>((first % per_token) / Vd);
    e.dim = static_cast<int>(first % Vd);
    std::int64_t t0 = 0;
    for (int req : r.plan.prefills) {  // r.plan: `plan` referred to the moved-from CPU result
      const std::int64_t qn = c.q[static_cast<std::size_t>(req)];
      if (e.token >= t0 && e.token < t0 + qn) {
        e.request = req;
        e.token_in_request = e.token - t0;
      }
      t0 += qn;
    }
    ex.first = e;
    ex.ref_bits = mla::bits_of(r.reference_out[i]);
    ex.got_bits = mla::bits_of(r.chunked_out[i]);
  }
  return er;
}

}  // namespace cp::gpu
