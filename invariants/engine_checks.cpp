// The other engines' own rules (other-engines.md §1.5, §2.5, §3.2, §4.4), A-7 (ATOM),
// G-4, G-7, G-10 (SGLang), T-1, T-3 (TokenSpeed), R-1 (TensorRT-LLM). Each is a rule of one
// family (the catalogue row's .families) and reads the plan value: its entries, and where the rule
// is about what the ranks read, the family's movement (FamilyInfo::movement) — never the family's
// steps again, so a step that computes the wrong rows is caught here, not repeated.
#include <algorithm>

#include "invariants/checks.h"
#include "reference/planner/families/sglang/steps.h"
#include "reference/planner/families/trtllm/steps.h"

namespace cp::detail {
namespace {

std::int64_t ctx_of(const Batch& b, int request) { return b.ctx[static_cast<std::size_t>(request)]; }
std::int64_t clip0(std::int64_t x) { return std::max<std::int64_t>(x, 0); }
// Positions p in [s, s + L) with p mod W == r (I = 1): get_dcp_lens(L, W, r, s), TokenSpeed's count.
std::int64_t owned(std::int64_t r, std::int64_t s, std::int64_t L, std::int64_t W) {
  const std::int64_t d = ((r - s) % W + W) % W;
  return d < L ? 1 + (L - 1 - d) / W : 0;
}
const ChunkEntry* entry_of(const Chunk& ch, int request) {
  for (const auto& e : ch.entries)
    if (e.request == request) return &e;
  return nullptr;
}

}  // namespace

// the local window [lo, lo + ch) is on every rank the global span [lo*W, (lo + ch)*W), so
// the rows a request receives (the sum over ranks of its real local rows) are exactly that span
// cut to its context (needs I | ch: ATOM's B | ch with I | B, the fix's I | ch).
InvariantResult check_A3(const Batch& b, const Plan& p) {
  Sink s(InvariantId::A3_atom_window_coverage);
  if (!p.built) return s.not_evaluated();
  const std::int64_t W = p.dcp, ch = p.local_chunk;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries) {
      const std::int64_t lo = e.local_start, ctx = ctx_of(b, e.request);
      const std::int64_t want = clip0(std::min(ctx, (lo + ch) * W) - lo * W);
      if (e.len == want && (want == 0 || e.start == lo * W)) continue;
      s.add([&] {
        return Violation{.chunk = static_cast<int>(ci),
                         .request = e.request,
                         .expected = "glen = clip0(min(c_i, (lo+ch)*W) - lo*W) = " + str(want) + " from " + str(lo * W),
                         .got = str(e.len) + " rows from " + str(e.start),
                         .reason = "the local window [" + str(lo) + ", " + str(lo + ch) +
                                   ") is not the global span [lo*W, (lo+ch)*W) (ch=" + str(ch) +
                                   ", I=" + str(p.interleave) + ": needs I | ch)"};
      });
    }
  return s.done();
}

// ag_row_indices addresses only rows of the all-gather: real[i][r] <= plc[i]; and the padded
// local rows lie inside the request's allocated local blocks (cdiv(c_i, B*W) entries of B rows).
InvariantResult check_A4(const Batch& b, const Plan& p) {
  Sink s(InvariantId::A4_atom_map_in_bounds);
  if (!p.built) return s.not_evaluated();
  const std::int64_t B = p.block, W = p.dcp;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries) {
      const std::int64_t allocated = (ctx_of(b, e.request) + B * W - 1) / (B * W) * B;
      if (e.padded_local_len > 0 && e.local_start + e.padded_local_len > allocated)
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "local_start + plc <= cdiv(c_i, B*W)*B = " + str(allocated),
                           .got = str(e.local_start + e.padded_local_len),
                           .reason = "local_slot_ids reads past the request's block table"};
        });
      for (std::size_t r = 0; r < e.kept.size(); ++r)
        if (e.kept[r] > e.padded_local_len)
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = e.request,
                             .rank = static_cast<int>(r),
                             .expected = "real[i][r] <= plc[i] = " + str(e.padded_local_len),
                             .got = str(e.kept[r]),
                             .reason = "ag_row_indices names rows of the next request's block of the all-gather"};
          });
    }
  return s.done();
}

// the planner's promise (A2 l.1365-1370: the k/v tensors stay bounded by S): a chunk of n
// requests with context and window ch holds at most n*W*ch rows, which must fit S. ATOM's window
// is at least B, so the promise fails exactly when S < n*W*B (A-B1), whatever the chunk's
// actual rows (those are I-4's).
InvariantResult check_A7(const Batch& b, const Plan& p) {
  Sink s(InvariantId::A7_atom_window_budget);
  if (!p.built) return s.not_evaluated();
  const std::int64_t W = p.dcp, ch = p.local_chunk, S = p.workspace;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    std::int64_t n = 0;
    for (const auto& e : p.chunks[ci].entries) n += ctx_of(b, e.request) > 0 ? 1 : 0;
    if (n * W * ch <= S) continue;
    s.add([&] {
      return Violation{.chunk = static_cast<int>(ci),
                       .expected = "n*W*ch <= S=" + str(S),
                       .got = "n=" + str(n) + " W=" + str(W) + " ch=" + str(ch) + ": " + str(n * W * ch),
                       .reason = "S // (n*W) = " + str(S / std::max<std::int64_t>(n * W, 1)) + " < B=" + str(p.block) +
                                 ": the window is floored at B, so the chunk may hold n*W*B rows > S"};
    });
  }
  return s.done();
}

// G-4: with bs >= 2 a chunk can hold rows with kv_len = 0 and q_len > 0; the backend must give
// them (0, -inf) before the merge. Pre-#22688 SGLang had no such guard (prefix_chunk_has_zero_kv
// and the zero-KV fix-up came with #22688); with the trtllm_mla backend on Blackwell the ragged
// kernel left those partials undefined and the merge blended them (G-B1, #22291). The backend is
// not a case key: the rule flags the rows wherever the version lacks the guard.
InvariantResult check_G4(const Batch& b, const Plan& p) {
  Sink s(InvariantId::G4_sglang_zero_kv_rows);
  if (p.version_info().sglang.zero_kv_flag)
    return s.not_applicable("prefix_chunk_has_zero_kv marks the chunk and the fix-up writes (0, -inf) (#22688)");
  if (!p.built) return s.not_evaluated();
  if (p.prefills.size() < 2) return s.done();
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries)
      if (e.len == 0 && b.q[static_cast<std::size_t>(e.request)] > 0)
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "kv_len > 0, or the chunk flagged and (0, -inf) written (#22688)",
                           .got = "kv_len=0 q_len=" + str(b.q[static_cast<std::size_t>(e.request)]),
                           .reason =
                               "no zero-KV guard: with the trtllm_mla ragged kernel (Blackwell) the row's "
                               "partial is undefined and merge_state blends it (G-B1, #22291)"};
        });
  return s.done();
}

namespace {

// Rows of rank r's send buffer in [j0, j1) that gather runs of `request` filled.
std::int64_t filled_by(const ChunkMovement& m, std::int64_t rank, int request, std::int64_t j0, std::int64_t j1) {
  std::int64_t n = 0;
  for (const auto& g : m.gather)
    if (runs_on(m, g, rank) && g.request == request) n += clip0(std::min(j1, g.dst + g.len) - std::max(j0, g.dst));
  return n;
}

}  // namespace

// G-7: per request and chunk, the slice of the transposed all-gather takes from rank r exactly
// get_dcp_lens(L, W, r, s) rows, each one rank r read for that request: counted on the family's
// movement (the reads the chunked path's owner mask or the one-shot path's strided read make).
InvariantResult check_G7(const Batch&, const Plan& p) {
  Sink s(InvariantId::G7_sglang_rank_counts);
  if (!p.built) return s.not_evaluated();
  const std::int64_t W = p.dcp;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const ChunkMovement m = p.version_info().family->movement(p, ch);
    for (const auto& k : m.reorg)
      for (std::int64_t r = 0; r < W; ++r) {
        // Gathered rows g in [src, src + len) with g mod W == r are rank r's send rows g // W.
        const std::int64_t first = k.src + ((r - k.src) % W + W) % W;
        const std::int64_t j0 = first / W, rows = owned(r, k.src, k.len, W);
        const ChunkEntry* e = entry_of(ch, k.request);
        const std::int64_t want = e ? owned(r, e->start, e->len, W) : 0;
        const std::int64_t got = filled_by(m, r, k.request, j0, j0 + rows);
        if (rows == want && got == want) continue;
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = k.request,
                           .rank = static_cast<int>(r),
                           .expected = "get_dcp_lens(L, W, r, s) = " + str(want) + " rows of this request",
                           .got = str(rows) + " rows taken, " + str(got) + " of them read for this request",
                           .reason = "the slice of the transposed all-gather takes rows rank " + str(r) +
                                     " read for another request (or none)"};
        });
      }
  }
  return s.done();
}

// G-10: the one-shot path's strided read (every W-th concatenated prefix index from r) is right
// iff every request whose prefix is not a multiple of W starts at a concatenation offset that is
// (other-engines.md §2.5; G3's comment assumes dcp_size-aligned prefixes).
InvariantResult check_G10(const Batch& b, const Plan& p) {
  Sink s(InvariantId::G10_sglang_strided_premise);
  if (p.version_info().sglang.read != SGLangPrefixRead::strided_concat)
    return s.not_applicable("owner-mask read (the chunked path): no premise on the offsets");
  if (!p.built) return s.not_evaluated();
  std::int64_t total = 0;
  for (int r : p.prefills) total += ctx_of(b, r);
  if (total > p.workspace) return s.not_applicable("sum of prefixes > C: the chunked path, owner-mask read");
  const std::int64_t W = p.dcp;
  std::int64_t off = 0;
  for (int r : p.prefills) {
    const std::int64_t L = ctx_of(b, r);
    if (L % W != 0 && off % W != 0)
      s.add([&] {
        return Violation{.request = r,
                         .expected = "prefix mod W == 0, or its offset mod W == 0 (W=" + str(W) + ")",
                         .got = "prefix=" + str(L) + " at offset " + str(off),
                         .reason = "every W-th concatenated index from r is not request " + str(r) +
                                   "'s own rows of rank r: the ranks' row counts miss get_dcp_lens"};
      });
    off += L;
  }
  return s.done();
}

// T-1: rank r sends count[r][i] rows of request i, the positions of [s, s + L) it owns, and the
// counts add up to L: counted on the family's movement (its gather runs per rank).
InvariantResult check_T1(const Batch&, const Plan& p) {
  Sink s(InvariantId::T1_tokenspeed_counts);
  if (!p.built) return s.not_evaluated();
  const std::int64_t W = p.dcp;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const ChunkMovement m = p.version_info().family->movement(p, ch);
    for (const auto& e : ch.entries) {
      std::int64_t sum = 0;
      for (std::int64_t r = 0; r < W; ++r) {
        std::int64_t got = 0;
        for (const auto& g : m.gather)
          if (runs_on(m, g, r) && g.request == e.request) got += g.len;
        sum += got;
        const std::int64_t want = owned(r, e.start, e.len, W);
        if (got != want)
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = e.request,
                             .rank = static_cast<int>(r),
                             .expected = "count[r][i] = " + str(want),
                             .got = str(got) + " rows sent",
                             .reason = "rank " + str(r) + " does not send the positions of the span it owns"};
          });
      }
      if (sum != e.len)
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "sum_r count[r][i] = L = " + str(e.len),
                           .got = str(sum),
                           .reason = "the ranks' compact rows do not add up to the span"};
        });
    }
  }
  return s.done();
}

// T-3: the index kernel's first owned position (where the rows rank r sends start) equals the
// host's s + (r - s) mod W, which the counts and the reconstruction index assume. Read on the
// movement: rank r's local row j holds position j*W + r (I = 1).
InvariantResult check_T3(const Batch&, const Plan& p) {
  Sink s(InvariantId::T3_tokenspeed_first_owned);
  if (!p.built) return s.not_evaluated();
  const std::int64_t W = p.dcp;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const ChunkMovement m = p.version_info().family->movement(p, ch);
    for (const auto& g : m.gather) {
      const ChunkEntry* e = entry_of(ch, g.request);
      if (!e || g.len == 0) continue;
      const std::int64_t host = e->start + ((g.rank - e->start) % W + W) % W, kernel = g.src * W + g.rank;
      if (kernel == host) continue;
      s.add([&] {
        return Violation{.chunk = static_cast<int>(ci),
                         .request = g.request,
                         .rank = g.rank,
                         .expected = "first_owned = s + (r - s) mod W = " + str(host) + " (host, floor)",
                         .got = str(kernel) + " (the index kernel)",
                         .reason = "s=" + str(e->start) + ", s mod W=" + str(e->start % W) +
                                   ": (r - s % W) % W = " + str((g.rank - e->start % W) % W) +
                                   " under a truncating %; the rank reads position " + str(kernel) +
                                   " (the previous chunk's) and never its last owned one"};
      });
    }
  }
  return s.done();
}

// the packed loops (#7477): every loop but the last holds exactly T rows, the last at most T;
// a request's pieces are consecutive loops, chunked_global_offset is the running sum of its
// earlier pieces, and the pieces add up to its context.
InvariantResult check_R1(const Batch& b, const Plan& p) {
  Sink s(InvariantId::R1_trtllm_packed_loops);
  if (p.version_info().trtllm.split != TrtllmSplit::packed)
    return s.not_applicable(
        [&] { return "split " + std::string(name(p.version_info().trtllm.split)) + ", not packed"; });
  if (!p.built) return s.not_evaluated();
  const std::int64_t T = p.chunk_width;
  std::vector<std::int64_t> done(b.size(), 0);
  std::vector<char> closed(b.size(), 0);
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    std::int64_t rows = 0;
    for (const auto& e : p.chunks[ci].entries) rows += e.len;
    const bool last = ci + 1 == p.chunks.size();
    if (last ? rows > T : rows != T)
      s.add([&] {
        return Violation{.chunk = static_cast<int>(ci),
                         .expected = std::string(last ? "rows <= T=" : "rows == T=") + str(T),
                         .got = str(rows),
                         .reason = "greedy packing fills every loop but the last"};
      });
    for (const auto& e : p.chunks[ci].entries) {
      const auto i = static_cast<std::size_t>(e.request);
      if (e.len == 0) {
        closed[i] = closed[i] || done[i] > 0 ? 1 : 0;
        continue;
      }
      if (closed[i] || e.start != done[i])
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "chunked_global_offset = " + str(done[i]) + " in the next loop",
                           .got = "piece from " + str(e.start) + (closed[i] ? " after a loop without a piece" : ""),
                           .reason = "a request's pieces are consecutive loops, each starting where the last ended"};
        });
      done[i] += e.len;
    }
  }
  for (int r : p.prefills)
    if (done[static_cast<std::size_t>(r)] != ctx_of(b, r))
      s.add([&] {
        return Violation{.request = r,
                         .expected = "sum of pieces = c_i = " + str(ctx_of(b, r)),
                         .got = str(done[static_cast<std::size_t>(r)]),
                         .reason = "the loops do not cover the cached context"};
      });
  return s.done();
}

}  // namespace cp::detail
