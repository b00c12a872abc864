// dcp_index_fuzz: the DCP index maps (reference/dcp/ownership.h) and the token-level data
// movement (reference/dcp/simulate.h) against brute force, for random dcp/interleave/block
// and lengths.
//
//  1. owner_rank / local_index agree with vLLM's slot-mapping kernel formula (spec §3.1,
//     block-relative: blk = p / (B*W), ...) and global_position inverts them;
//  2. dcp_local_len(L, W, r, I) equals the count of positions p < L that rank r owns, for every
//     prefix L; padded_local_rows(L) is rank 0's count rounded up to whole interleave groups;
//  3. for vLLM's shape of movement (vllm_shaped), gather_rank's rows are the positions found by
//     walking each rank's owned positions in order (local slot k of rank r = the k-th position r
//     owns), and simulate_chunk equals the all-gather + reorg rebuilt from those rows and the
//     plan's kept counts;
//  4. ground truth (spec §3.6): when the plan is V-aligned (packed planners: every split a
//     multiple of V = I*W; old planner: V | M), each request receives exactly its own
//     positions, each once.
// Any disagreement aborts with the parameters (and, for 3-4, the case line).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/common/case_codec.h"
#include "fuzz/common/findings.h"
#include "fuzz/replay.h"
#include "reference/arith/checked_int.h"
#include "reference/dcp/ownership.h"
#include "reference/dcp/simulate.h"
#include "reference/planner/plan.h"
#include "reference/planner/versions.h"

namespace {

using namespace cp;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "dcp_index_fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

std::string params(std::int64_t W, std::int64_t I, std::int64_t B) {
  return "W=" + std::to_string(W) + " I=" + std::to_string(I) + " B=" + std::to_string(B);
}

void check_index_maps(std::int64_t W, std::int64_t I, std::int64_t B, std::int64_t L) {
  const Int w = W, i = I;
  std::vector<std::int64_t> count(static_cast<std::size_t>(W), 0);
  for (std::int64_t p = 0; p <= L; ++p) {
    // 2. Prefix counts against the closed form (before position p is counted: prefix length p).
    if (p % std::max<std::int64_t>(1, L / 64) == 0 || p == L) {
      std::int64_t mx = 0;
      for (std::int64_t r = 0; r < W; ++r) {
        const std::int64_t f = dcp_local_len(Int(p), w, Int(r), i).get();
        if (f != count[static_cast<std::size_t>(r)])
          fail("dcp_local_len(" + std::to_string(p) + ", rank " + std::to_string(r) + ") = " + std::to_string(f) +
               ", counting gives " + std::to_string(count[static_cast<std::size_t>(r)]) + " (" + params(W, I, B) + ")");
        mx = std::max(mx, f);
      }
      if (count[0] != mx) fail("rank 0 is not the largest local length at L=" + std::to_string(p));
      const std::int64_t padded = padded_local_rows(Int(p), i, w).get();
      if (padded != (mx + I - 1) / I * I)
        fail("padded_local_rows(" + std::to_string(p) + ") = " + std::to_string(padded) + ", rank 0 holds " +
             std::to_string(mx) + " (" + params(W, I, B) + ")");
    }
    if (p == L) break;
    // 1. The slot-mapping kernel's block-relative decomposition (requires B % I == 0).
    const auto slot = paged_slot(Int(p), i, w, Int(B));
    const std::int64_t k_owner = slot.owner.get(), k_local = slot.local.get();
    const std::int64_t owner = owner_rank(Int(p), i, w).get();
    const std::int64_t local = local_index(Int(p), i, w).get();
    if (owner != k_owner || local != k_local)
      fail("position " + std::to_string(p) + ": owner/local " + std::to_string(owner) + "/" + std::to_string(local) +
           ", slot mapping gives " + std::to_string(k_owner) + "/" + std::to_string(k_local) + " (" + params(W, I, B) +
           ")");
    if (global_position(Int(local), Int(owner), i, w).get() != p)
      fail("global_position does not invert position " + std::to_string(p) + " (" + params(W, I, B) + ")");
    if (local != count[static_cast<std::size_t>(owner)])
      fail("local index of position " + std::to_string(p) + " is " + std::to_string(local) + ", but rank " +
           std::to_string(owner) + " owns " + std::to_string(count[static_cast<std::size_t>(owner)]) +
           " earlier positions");
    ++count[static_cast<std::size_t>(owner)];
  }
}

void check_movement(const Case& c) {
  Plan plan;
  try {
    validate_case(c);
    if (fuzz::estimated_plan_entries(c) > 4096) return;
    plan = make_plan(c);
  } catch (const CaseError&) {
    return;
  } catch (const ArithmeticError&) {
    return;
  }
  if (!plan.built || plan.crashed()) return;  // a crash (SGLang's G-10 split): no movement runs
  const std::string line = print_case(c);
  const std::int64_t W = c.dcp, I = c.interleave, V = I * W;
  // Local slot k of rank r holds owned[r][k]: the k-th position r owns, found by walking.
  std::int64_t max_slot = 0;
  for (const auto& ch : plan.chunks)
    for (const auto& e : ch.entries) max_slot = std::max(max_slot, e.local_start + e.padded_local_len);
  std::vector<std::vector<std::int64_t>> owned(static_cast<std::size_t>(W));
  for (std::int64_t p = 0; W > 1 && static_cast<std::int64_t>(owned[static_cast<std::size_t>(W - 1)].size()) < max_slot;
       ++p)
    owned[static_cast<std::size_t>((p / I) % W)].push_back(p);

  // Aligned (spec §3.6, §6 I-6): the packed planners split only at multiples of V (checked on
  // the starts); the old planner needs V | M — a single chunk starting at 0 is not enough, v1's
  // local width M // W truncates when W does not divide M.
  bool aligned = true;
  if (info(c.version).is_packed()) {
    for (const auto& ch : plan.chunks)
      for (const auto& e : ch.entries)
        if (W > 1 && e.start % V != 0) aligned = false;
  } else if (W > 1) {
    aligned = plan.chunk_width > 0 && plan.chunk_width % V == 0;
  }
  if (plan.gather == GatherKind::page_rounding) aligned = false;

  for (std::size_t ci = 0; ci < plan.chunks.size(); ++ci) {
    const Chunk& ch = plan.chunks[ci];
    const auto rows = simulate_chunk(c, plan, ch);
    if (static_cast<std::int64_t>(rows.size()) != ch.total_tokens())
      fail("simulate_chunk returned " + std::to_string(rows.size()) + " rows for " + std::to_string(ch.total_tokens()) +
           ": " + line);
    // 3 rebuilds vLLM's shape of movement (every rank gathers the same local rows, rank-major,
    // unit-stride keep runs); another family's movement (TokenSpeed's per-rank gathers, SGLang's
    // transposed all-gather) is its own description, judged token by token by I-9.
    if (W > 1 && vllm_shaped(chunk_movement(plan, ch))) {
      // 3. Gather by walking, then all-gather (rank-major) and reorg by the plan's kept counts.
      const std::int64_t toks = ch.local_tokens();
      std::vector<RowSource> G;
      for (std::int64_t r = 0; r < W; ++r) {
        const auto got = gather_rank(c, plan, ch, r);
        std::size_t k = 0;
        for (const auto& e : ch.entries)
          for (std::int64_t j = 0; j < e.padded_local_len; ++j, ++k) {
            const RowSource want =
                classify(c, e.request, owned[static_cast<std::size_t>(r)][static_cast<std::size_t>(e.local_start + j)]);
            if (k >= got.size() || !(got[k] == want))
              fail("gather_rank chunk " + std::to_string(ci) + " rank " + std::to_string(r) + " row " +
                   std::to_string(k) + " differs from walking the owned positions: " + line);
            G.push_back(want);
          }
        if (k != got.size()) fail("gather_rank returned extra rows: " + line);
      }
      std::vector<RowSource> reorg;
      for (std::size_t b = 0; b < ch.entries.size(); ++b)
        for (std::int64_t r = 0; r < W; ++r)
          for (std::int64_t k = 0; k < ch.entries[b].kept[static_cast<std::size_t>(r)]; ++k) {
            const std::int64_t g = r * toks + ch.padded_local_cu[b] + k;
            reorg.push_back(g < static_cast<std::int64_t>(G.size()) ? G[static_cast<std::size_t>(g)] : RowSource{});
          }
      reorg.resize(rows.size(), RowSource{});
      for (std::size_t t = 0; t < rows.size(); ++t)
        if (!(rows[t] == reorg[t]))
          fail("simulate_chunk row " + std::to_string(t) + " of chunk " + std::to_string(ci) +
               " differs from the rebuilt all-gather + reorg: " + line);
    }
    // 4. Aligned plans move exactly the right tokens.
    if (!aligned) continue;
    for (std::size_t b = 0; b < ch.entries.size(); ++b) {
      const auto& e = ch.entries[b];
      std::vector<std::int64_t> pos;
      for (std::int64_t t = ch.cu_seq_lens[b]; t < ch.cu_seq_lens[b + 1]; ++t) {
        const RowSource& s = rows[static_cast<std::size_t>(t)];
        if (s.kind != RowKind::context || s.request != e.request)
          fail("aligned plan, chunk " + std::to_string(ci) + " request " + std::to_string(e.request) + " row " +
               std::to_string(t) + " is not its own context: " + line);
        pos.push_back(s.position);
      }
      std::sort(pos.begin(), pos.end());
      for (std::size_t k = 0; k < pos.size(); ++k)
        if (pos[k] != e.start + static_cast<std::int64_t>(k))
          fail("aligned plan, chunk " + std::to_string(ci) + " request " + std::to_string(e.request) +
               " does not receive exactly [" + std::to_string(e.start) + ", " + std::to_string(e.start + e.len) +
               "): " + line);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cp::fuzz::count_execution();
  FuzzedDataProvider fdp(data, size);
  const std::int64_t W = fdp.ConsumeIntegralInRange<std::int64_t>(1, 16);
  const std::int64_t I = std::int64_t{1} << fdp.ConsumeIntegralInRange<int>(0, 6);
  const std::int64_t B = I * fdp.ConsumeIntegralInRange<std::int64_t>(1, 8);
  const std::int64_t L = fdp.ConsumeIntegralInRange<std::int64_t>(0, 3000);
  check_index_maps(W, I, B, L);

  // A small batch for the data-movement checks (any DCP version, either platform).
  static const std::vector<Version> kDcpVersions = dcp_versions();
  Case c;
  c.version = kDcpVersions[fdp.ConsumeIntegralInRange<std::size_t>(0, kDcpVersions.size() - 1)];
  c.platform = fdp.ConsumeBool() ? Platform::rocm : Platform::cuda;
  c.asserts = fdp.ConsumeBool();
  c.block = B;
  c.dcp = W;
  c.interleave = info(c.version).supports_interleave ? I : 1;
  c.workspace = fdp.ConsumeIntegralInRange<std::int64_t>(1, 4096);
  const auto n = fdp.ConsumeIntegralInRange<std::size_t>(1, 4);
  for (std::size_t k = 0; k < n; ++k) {
    c.ctx.push_back(fdp.ConsumeIntegralInRange<std::int64_t>(0, 2048));
    c.q.push_back(fdp.ConsumeIntegralInRange<std::int64_t>(1, 16));
  }
  order_decodes_first(c);
  if (std::getenv("CHUNKPROOF_PRINT_CASE")) std::printf("case: %s\n", print_case(c).c_str());
  check_movement(c);
  return 0;
}
