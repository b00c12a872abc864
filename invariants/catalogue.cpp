#include "invariants/catalogue.h"

#include <array>
#include <charconv>

#include "invariants/checks.h"

namespace cp {
namespace {

using enum InvariantId;
using enum Scope;

// One row per invariant (spec §6): its names, whose rule it is, and whether it needs DCP.
constexpr std::array<InvariantInfo, kNumInvariants> kCatalogue{{
    {.id = I1_workspace_div_dcp,
     .tag = "I-1",
     .name = "I1_workspace_div_dcp",
     .summary = "under DCP the workspace S is a multiple of W",
     .scope = family,
     .rule = "vLLM's DCP workspace layout R = S + S/W (the builder's init assert)",
     .dcp_only = true,
     .families = "floor-divide,packed,pcp,local-shard"},
    {.id = I2_nonempty_chunk_width,
     .tag = "I-2",
     .name = "I2_nonempty_chunk_width",
     .summary = "the chunk width (M or Mmax) is positive",
     .scope = family,
     .rule = "the planner's chunk width (floor-divide: M, packed: Mmax)",
     .families = "floor-divide,packed,pcp,local-shard"},
    {.id = I3_coverage,
     .tag = "I-3",
     .name = "I3_coverage",
     .summary = "each context is covered exactly once, in order, by the chunk spans",
     .scope = universal,
     .rule = "every context position of every request attended exactly once (the spans)",
     .reads_context = true},
    {.id = I4_global_row_budget,
     .tag = "I-4",
     .name = "I4_global_row_budget",
     .summary = "per chunk, the sum of span lengths is <= S",
     .scope = universal,
     .rule = "the workspace row budget",
     .needs_span_correspondence = true},
    {.id = I5_page_aligned_starts,
     .tag = "I-5",
     .name = "I5_page_aligned_starts",
     .summary = "with the page-rounding gather kernel, every start is a multiple of B",
     .scope = family,
     .rule = "the page-rounding gather kernel (batch grid, starts rounded down to the page)",
     .families = "floor-divide,packed,pcp"},
    {.id = I6_virtual_block_alignment,
     .tag = "I-6",
     .name = "I6_virtual_block_alignment",
     .summary = "under DCP every non-zero chunk start is a multiple of V = I*W and local start = start/W",
     .scope = family,
     .rule = "vLLM's DCP gather: chunk boundaries on virtual blocks",
     .dcp_only = true,
     .families = "floor-divide,packed,pcp,atom,local-shard",
     .needs_span_correspondence = true},  // ATOM's windows start at multiples of B*W
    {.id = I7_local_row_budget,
     .tag = "I-7",
     .name = "I7_local_row_budget",
     .summary = "under DCP, per chunk, the padded local rows fit S/W",
     .scope = universal,
     .rule = "each rank's row budget",
     .dcp_only = true,
     .needs_span_correspondence = true},
    {.id = I8_local_length_bookkeeping,
     .tag = "I-8",
     .name = "I8_local_length_bookkeeping",
     .summary = "local context lengths come from ctx and padded local lengths cover each rank's share",
     .scope = family,
     .rule = "vLLM's DCP local lengths (padded per rank)",
     .dcp_only = true,
     .reads_context = true},
    {.id = I9_reorg_exact,
     .tag = "I-9",
     .name = "I9_reorg_exact",
     .summary = "token by token, each request receives exactly its own positions once (gather, all-gather, reorg)",
     .scope = universal,
     .rule = "every context position of every request attended exactly once (the rows attention reads)",
     .reads_context = true},
    {.id = I10_gather_start_semantics,
     .tag = "I-10",
     .name = "I10_gather_start_semantics",
     .summary = "under DCP each rank's gather begins at its first local slot of the span",
     .scope = family,
     .rule = "cp_gather_cache's start semantics",
     .dcp_only = true,
     .families = "floor-divide,packed,pcp,local-shard",
     .needs_span_correspondence = true},
    {.id = I11_config_validity,
     .tag = "I-11",
     .name = "I11_config_validity",
     .summary = "I <= B, B mod I == 0: slot mapping agrees with ownership",
     .scope = family,
     .rule = "vLLM's paged slot mapping under interleave"},
    {.id = I12_merge_preconditions,
     .tag = "I-12",
     .name = "I12_merge_preconditions",
     .summary = "no two empty partials meet in a Triton merge (NaN)",
     .scope = universal,
     .rule = "an empty span gives (0, -inf) to the merge, never NaN",
     .families = "floor-divide,packed,pcp,local-shard"},
    {.id = I13_context_prefix,
     .tag = "I-13",
     .name = "I13_context_prefix",
     .summary = "context-free prefill tokens are identified correctly for the final merge",
     .scope = universal,
     .rule = "an empty span gives (0, -inf) to the final merge",
     .families = "floor-divide,packed,pcp,local-shard"},
    // ---- The other engines' own rules (other-engines.md; engine_checks.cpp), one family each ----
    {.id = A3_atom_window_coverage,
     .tag = "A-3",
     .name = "A3_atom_window_coverage",
     .summary = "under DCP each request's rows in a chunk are exactly the global span [lo*W, (lo+ch)*W) of its context",
     .scope = family,
     .rule = "ATOM's DCP windows (_build_mla_chunk_meta_dcp): the local window is the same global span on every rank",
     .dcp_only = true,
     .families = "atom"},
    {.id = A4_atom_map_in_bounds,
     .tag = "A-4",
     .name = "A4_atom_map_in_bounds",
     .summary = "real[i][r] <= plc[i] and the padded local rows lie in the request's allocated blocks",
     .scope = family,
     .rule = "ATOM's ag_row_indices / local_slot_ids address only their buffers",
     .dcp_only = true,
     .families = "atom"},
    {.id = A7_atom_window_budget,
     .tag = "A-7",
     .name = "A7_atom_window_budget",
     .summary = "under DCP n*W*ch <= S: the window cannot put more than S rows in a chunk",
     .scope = family,
     .rule = "ATOM's planner comment: the k/v tensors stay bounded by attn_prefill_chunk_size (A2 l.1365-1370)",
     .dcp_only = true,
     .families = "atom"},
    {.id = G4_sglang_zero_kv_rows,
     .tag = "G-4",
     .name = "G4_sglang_zero_kv_rows",
     .summary = "no chunk row with kv_len = 0 and q_len > 0 reaches the merge unguarded",
     .scope = family,
     .rule = "SGLang's chunked prefix cache: zero-KV rows need (0, -inf) before merge_state (#22291, #22688)",
     .families = "sglang"},
    {.id = G7_sglang_rank_counts,
     .tag = "G-7",
     .name = "G7_sglang_rank_counts",
     .summary = "per request and chunk, rank r contributes exactly get_dcp_lens(L, W, r, s) rows it read for it",
     .scope = family,
     .rule = "SGLang's all_gather_kv_cache_for_dcp: the slice of the transposed all-gather",
     .dcp_only = true,
     .families = "sglang"},
    {.id = G10_sglang_strided_premise,
     .tag = "G-10",
     .name = "G10_sglang_strided_premise",
     .summary = "one-shot DCP: a request whose prefix is not a multiple of W starts at an offset that is",
     .scope = family,
     .rule = "SGLang's one-shot DCP prefix read (layers/dcp/planner.py): every W-th concatenated index from r",
     .dcp_only = true,
     .families = "sglang"},
    {.id = T1_tokenspeed_counts,
     .tag = "T-1",
     .name = "T1_tokenspeed_counts",
     .summary = "rank r sends count[r][i] rows, the positions of the span it owns, adding up to L",
     .scope = family,
     .rule = "TokenSpeed's build_dcp_compact_reconstruction_plan counts",
     .dcp_only = true,
     .families = "tokenspeed"},
    {.id = T3_tokenspeed_first_owned,
     .tag = "T-3",
     .name = "T3_tokenspeed_first_owned",
     .summary = "the index kernel's first owned position equals the host's s + (r - s) mod W",
     .scope = family,
     .rule = "TokenSpeed's index-building Triton kernel against its host plan (Triton's % truncates)",
     .dcp_only = true,
     .families = "tokenspeed"},
    {.id = R1_trtllm_packed_loops,
     .tag = "R-1",
     .name = "R1_trtllm_packed_loops",
     .summary = "packed loops: T rows each but the last, consecutive pieces, chunked_global_offset a running sum",
     .scope = family,
     .rule = "TensorRT-LLM's packed chunked-context planner (#7477)",
     .families = "trtllm"},
    {.id = E2_indexer_logits_budget,
     .tag = "E-2",
     .name = "E2_indexer_logits_budget",
     .summary = "per indexer chunk, query tokens x K rows <= E (whenever one row's K rows fit E)",
     .scope = family,
     .rule = "vLLM's sparse indexer logits budget VLLM_SPARSE_INDEXER_MAX_LOGITS_MB (#36178)",
     .families = "sparse-indexer"},
    {.id = E3_indexer_consumer_rows,
     .tag = "E-3",
     .name = "E3_indexer_consumer_rows",
     .summary = "every indexer chunk's K rows fit the consumer's K buffer",
     .scope = family,
     .rule = "the indexer's consumer allocates at least the chunker's WS rows (#51252)",
     .families = "sparse-indexer"},
    {.id = E4_indexer_shared_gather,
     .tag = "E-4",
     .name = "E4_indexer_shared_gather",
     .summary = "query sub-slices of one row slice are consecutive and share its one K gather",
     .scope = family,
     .rule = "skip_kv_gather reuses the K workspace of the slice's first sub-slice",
     .families = "sparse-indexer"},
    {.id = E5_indexer_token_cover,
     .tag = "E-5",
     .name = "E5_indexer_token_cover",
     .summary = "the indexer's sub-slices cover the prefill tokens once, in order",
     .scope = family,
     .rule = "every prefill token gets its top-k from exactly one indexer chunk",
     .families = "sparse-indexer"},
    {.id = E6_indexer_key_ranges,
     .tag = "E-6",
     .name = "E6_indexer_key_ranges",
     .summary = "a query token's K range ke - ks stays within its request's K rows and grows with the token",
     .scope = family,
     .rule = "the indexer's causal ks/ke over the compressed sequence",
     .families = "sparse-indexer"},
    {.id = D5_gathered_shard_cover,
     .tag = "D-5",
     .name = "D5_gathered_shard_cover",
     .summary = "a region's rows per rank cover every rank's share of its extent",
     .scope = family,
     .rule = "FlashMLA sparse gathered prefill: rows per rank >= max_d local_len(e, d) (DB-2)",
     .dcp_only = true,
     .families = "sparse-gathered"},
    {.id = D7_gathered_layout,
     .tag = "D-7",
     .name = "D7_gathered_layout",
     .summary = "every top-k position resolves to the gathered row that holds it (owner*SR + ws + local)",
     .scope = family,
     .rule = "FlashMLA sparse gathered prefill: the rank-major remap of top-k positions",
     .dcp_only = true,
     .families = "sparse-gathered"},
    {.id = Z1_profile_reservation,
     .tag = "Z-1",
     .name = "Z1_profile_reservation",
     .summary = "the profile run reserves at least the rows the sparse builder up-projects",
     .scope = family,
     .rule = "vLLM's profile-run kv_b_proj reservation vs S_sparse (#57170)",
     .families = "packed"},
    {.id = P1_pcp_row_coverage,
     .tag = "P-1",
     .name = "P1_pcp_row_coverage",
     .summary = "each prefill's new tokens [N, N+q) are on exactly one rank's rows (a replicated row counts once)",
     .scope = family,
     .rule = "vLLM's PCPManager DualChunkSwap partition",
     .families = "pcp"},
    {.id = P2_pcp_row_shape,
     .tag = "P-2",
     .name = "P2_pcp_row_shape",
     .summary = "a prefill has at most two rows per rank (pieces r and 2P-1-r)",
     .scope = family,
     .rule = "vLLM's PCPManager DualChunkSwap partition",
     .families = "pcp"},
    {.id = P4_pcp_decodes_replicated,
     .tag = "P-4",
     .name = "P4_pcp_decodes_replicated",
     .summary = "every decode is the same row on every PCP rank",
     .scope = family,
     .rule = "vLLM's PCPManager: decodes are not split",
     .families = "pcp"},
    {.id = P9_pcp_decodes_first,
     .tag = "P-9",
     .name = "P9_pcp_decodes_first",
     .summary = "on every rank the decode rows precede the prefill rows (split_decodes_and_prefills' boundary)",
     .scope = family,
     .rule = "the MLA builders' batch split over the PCP manager's row order (PB-2)",
     .families = "pcp"},
    {.id = P13_pcp_collective_symmetry,
     .tag = "P-13",
     .name = "P13_pcp_collective_symmetry",
     .summary = "every DCP rank enters the context path alike, with the same all-gathers per chunk",
     .scope = family,
     .rule = "v6's DCP KV all-gather over rank-local PCP rows (#53573)",
     .dcp_only = true,
     .families = "pcp"},
    {.id = C1_local_replicated_queries,
     .tag = "C-1",
     .name = "C1_local_replicated_queries",
     .summary = "on the local-shard path every DCP rank passes the same prefill query rows, in the same order",
     .scope = family,
     .rule = "mla_pcp.py's combine (cp_lse_ag_out_ar) merges the ranks' partials element-wise per (token, head)",
     .dcp_only = true,
     .families = "local-shard"},
    {.id = C2_local_collective_symmetry,
     .tag = "C-2",
     .name = "C2_local_collective_symmetry",
     .summary = "every DCP rank enters the context path alike and issues the same collectives (one combine of T_q "
                "tokens; gather_reorg: the same all-gathers per chunk)",
     .scope = family,
     .rule = "mla_attention.py forward_mha: has_context from the rank's own metadata decides whether it joins",
     .dcp_only = true,
     .families = "local-shard"},
    {.id = C3_local_coverage,
     .tag = "C-3",
     .name = "C3_local_coverage",
     .summary = "per prefill and rank the chunks' local rows sum to its share L, and the shares sum to ctx",
     .scope = family,
     .rule = "build_pcp_chunked_context_metadata over the old planner's starts c*PL",
     .dcp_only = true,
     .families = "local-shard",
     .reads_context = true},
    {.id = C4_local_workspace_rows,
     .tag = "C-4",
     .name = "C4_local_workspace_rows",
     .summary = "per chunk the padded local rows seq_tot a rank gathers fit its workspace (R rows)",
     .scope = family,
     .rule = "mla_pcp.py: cp_gather_cache into workspace[:seq_tot], no all-gather and no S/W slice",
     .dcp_only = true,
     .families = "local-shard"},
    {.id = C5_local_empty_rows,
     .tag = "C-5",
     .name = "C5_local_empty_rows",
     .summary = "on every rank no two empty chunk partials of a prefill meet in a NaN merge",
     .scope = family,
     .rule = "mla_pcp.py merges each rank's chunk partials (merge_attn_states) before the combine: a rank with "
             "no rows of a request gives it (0, -inf) per chunk",
     .dcp_only = true,
     .families = "local-shard"},
    {.id = C6_local_lengths_from_context,
     .tag = "C-6",
     .name = "C6_local_lengths_from_context",
     .summary = "L = get_dcp_local_seq_lens(ctx) (never ctx + q) and l = clamp(min(L, s + PL) - s, 0)",
     .scope = family,
     .rule = "build_pcp_chunked_context_metadata's local lengths",
     .dcp_only = true,
     .families = "local-shard",
     .reads_context = true},
    {.id = P5_pcp_single_write,
     .tag = "P-5",
     .name = "P5_pcp_single_write",
     .summary = "each global new token is written once by the step's all-gathered KV write",
     .scope = family,
     .rule = "vLLM's PCPManager gathered layout: write mask and padded_gather_idx (0036d38d)",
     .families = "pcp"},
    {.id = P6_pcp_restore_bijection,
     .tag = "P-6",
     .name = "P6_pcp_restore_bijection",
     .summary = "hidden_restore_idx is a bijection onto the written gathered slots",
     .scope = family,
     .rule = "vLLM's PCPManager hidden-state restore (0036d38d)",
     .families = "pcp"},
    {.id = P7_pcp_padding,
     .tag = "P-7",
     .name = "P7_pcp_padding",
     .summary = "T_pad >= max T_r; padding slots hold token 0, position 0, a PAD slot",
     .scope = family,
     .rule = "vLLM's PCPManager padding (0036d38d; CUDA-graph padded_num_tokens, Q4)",
     .families = "pcp"},
    {.id = P8_pcp_limits,
     .tag = "P-8",
     .name = "P8_pcp_limits",
     .summary = "each rank's (padded) local request count fits the manager's input buffers",
     .scope = family,
     .rule = "vLLM's PCPManager partition_batch limits (§1.6)",
     .families = "pcp"},
    {.id = CR1_reuse_tail_nonnegative,
     .tag = "CR-1",
     .name = "CR1_reuse_tail_nonnegative",
     .summary = "a merged pair's tail [ctx_a + q_a, ctx_b) has length >= 0 (spec R-1)",
     .scope = family,
     .rule = "vLLM #57668 PCP context reuse",
     .families = "pcp"},
    {.id = CR2_reuse_rows_preserved,
     .tag = "CR-2",
     .name = "CR2_reuse_rows_preserved",
     .summary = "the merged rows are the rank's rows: adjacent pairs of one request, q' = q_a + q_b",
     .scope = family,
     .rule = "vLLM #57668 PCP context reuse",
     .families = "pcp"},
    {.id = CR3_reuse_causal_merge,
     .tag = "CR-3",
     .name = "CR3_reuse_causal_merge",
     .summary = "shared chunks serve all of a merged row's tokens, tail chunks row b's, as continuations (R-3)",
     .scope = family,
     .rule = "vLLM #57668 PCP context reuse",
     .families = "pcp"},
    {.id = CR4_reuse_cache_ready,
     .tag = "CR-4",
     .name = "CR4_reuse_cache_ready",
     .summary = "the tail's new tokens of other ranks are written to the cache before it is read (R-4)",
     .scope = family,
     .rule = "vLLM #57668 over the PCPManager's KV write",
     .families = "pcp"},
    {.id = CR6_reuse_saving,
     .tag = "CR-6",
     .name = "CR6_reuse_saving",
     .summary = "a merged row gathers ctx_b - q_a rows (the fallback: ctx_a + ctx_b) (R-6)",
     .scope = family,
     .rule = "vLLM #57668 PCP context reuse",
     .families = "pcp"},
}};

}  // namespace

std::span<const InvariantInfo> all_invariants() { return kCatalogue; }
const InvariantInfo& info(InvariantId id) { return kCatalogue[static_cast<std::size_t>(id)]; }

bool parse_invariant(std::string_view s, InvariantId& out) {
  for (const auto& i : kCatalogue)
    if (s == i.tag || s == i.name) {
      out = i.id;
      return true;
    }
  if (!s.empty() && (s[0] == 'I' || s[0] == 'i')) s.remove_prefix(1);
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  int n = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || ptr != s.data() + s.size() || n < 1 || n > kNumNumberedInvariants) return false;
  if (ec != std::errc() || ptr != s.data() + s.size() || n < 1 || n > static_cast<int>(I13_context_prefix) + 1)
    return false;  // numbers name the I- rows only
  out = static_cast<InvariantId>(n - 1);
  return true;
}

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::ok: return "ok";
    case Verdict::violated: return "VIOLATED";
    case Verdict::not_applicable: return "n/a";
    case Verdict::not_evaluated: return "not evaluated";
  }
  return "?";
}

std::string_view name(Scope s) { return s == Scope::universal ? "universal" : "family"; }

std::string_view name(Outcome o) {
  switch (o) {
    case Outcome::ok: return "ok";
    case Outcome::assert_fired: return "assert";
    case Outcome::crashed: return "crash";
    case Outcome::violation: return "violation";
  }
  return "?";
}

namespace {
thread_local bool t_verdict_only = false;
}  // namespace

bool verdict_only() { return t_verdict_only; }
VerdictOnlyScope::VerdictOnlyScope() : saved_(t_verdict_only) { t_verdict_only = true; }
VerdictOnlyScope::~VerdictOnlyScope() { t_verdict_only = saved_; }

bool applies_to(const InvariantInfo& row, std::string_view family) {
  if (row.families.empty()) return true;
  std::string_view rest = row.families;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    if (rest.substr(0, comma) == family) return true;
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return false;
}

InvariantResult check(InvariantId id, const Batch& batch, const Plan& p, Level level) {
  using namespace detail;
  // Under PCP the plan's requests are the selected rank's rows (plan.h: batch_of).
  const Batch b = p.pcp ? pcp_batch(*p.pcp) : batch;
  // The row says whether the invariant needs DCP: the checks themselves assume W > 1.
  if (info(id).dcp_only && !p.is_dcp()) return Sink(id).not_applicable("no DCP (dcp=1)");
  if (!applies_to(info(id), p.version_info().family->name))
    return Sink(id).not_applicable([&] {  // a callable: no text under verdict-only evaluation (the fuzzers)
      return "a rule of the " + std::string(info(id).families) + " families, not of " +
             std::string(p.version_info().family->name);
    });
  if (info(id).reads_context && !p.version_info().family->spans_are_context)
    return Sink(id).not_applicable([&] {
      return "reads the spans as context; the " + std::string(p.version_info().family->name) +
             " family's spans are not (its own checks cover them)";
    });
  if (info(id).needs_span_correspondence && p.local_attention)
    return Sink(id).not_applicable(
        "C-4 (vllm-pcp-and-sparse.md §3.4): on the local-shard path each rank attends its own rows and the partials "
        "merge by LSE, so no global span, virtual-block start or S/W slice is used: the rows a rank gathers are "
        "C-4's, coverage C-3's");
  switch (id) {
    case I1_workspace_div_dcp: return check_I1(b, p);
    case I2_nonempty_chunk_width: return check_I2(b, p);
    case I3_coverage: return check_I3(b, p);
    case I4_global_row_budget: return check_I4(b, p);
    case I5_page_aligned_starts: return check_I5(b, p);
    case I6_virtual_block_alignment: return check_I6(b, p);
    case I7_local_row_budget: return check_I7(b, p);
    case I8_local_length_bookkeeping: return check_I8(b, p);
    case I9_reorg_exact: return check_I9(b, p, level);
    case I10_gather_start_semantics: return check_I10(b, p);
    case I11_config_validity: return check_I11(b, p, level);
    case I12_merge_preconditions: return check_I12(b, p);
    case I13_context_prefix: return check_I13(b, p);
    case A3_atom_window_coverage: return check_A3(b, p);
    case A4_atom_map_in_bounds: return check_A4(b, p);
    case A7_atom_window_budget: return check_A7(b, p);
    case G4_sglang_zero_kv_rows: return check_G4(b, p);
    case G7_sglang_rank_counts: return check_G7(b, p);
    case G10_sglang_strided_premise: return check_G10(b, p);
    case T1_tokenspeed_counts: return check_T1(b, p);
    case T3_tokenspeed_first_owned: return check_T3(b, p);
    case R1_trtllm_packed_loops: return check_R1(b, p);
    case E2_indexer_logits_budget: return check_E2(b, p);
    case E3_indexer_consumer_rows: return check_E3(b, p);
    case E4_indexer_shared_gather: return check_E4(b, p);
    case E5_indexer_token_cover: return check_E5(b, p);
    case E6_indexer_key_ranges: return check_E6(b, p);
    case D5_gathered_shard_cover: return check_D5(b, p);
    case D7_gathered_layout: return check_D7(b, p);
    case Z1_profile_reservation: return check_Z1(b, p);
    case P1_pcp_row_coverage: return check_P1(b, p);
    case P2_pcp_row_shape: return check_P2(b, p);
    case P4_pcp_decodes_replicated: return check_P4(b, p);
    case P9_pcp_decodes_first: return check_P9(b, p);
    case P13_pcp_collective_symmetry: return check_P13(b, p);
    case C1_local_replicated_queries: return check_C1(b, p);
    case C2_local_collective_symmetry: return check_C2(b, p);
    case C3_local_coverage: return check_C3(b, p);
    case C4_local_workspace_rows: return check_C4(b, p);
    case C5_local_empty_rows: return check_C5(b, p);
    case C6_local_lengths_from_context: return check_C6(b, p);
    case P5_pcp_single_write: return check_P5(b, p);
    case P6_pcp_restore_bijection: return check_P6(b, p);
    case P7_pcp_padding: return check_P7(b, p);
    case P8_pcp_limits: return check_P8(b, p);
    case CR1_reuse_tail_nonnegative: return check_CR1(b, p);
    case CR2_reuse_rows_preserved: return check_CR2(b, p);
    case CR3_reuse_causal_merge: return check_CR3(b, p);
    case CR4_reuse_cache_ready: return check_CR4(b, p);
    case CR6_reuse_saving: return check_CR6(b, p);
  }
  return {};
}

Outcome outcome_of(const Case& c, const Plan& plan, bool any_violation) {
  if (plan.crashed()) return Outcome::crashed;  // a crash is no assert: python -O does not strip it
  if (c.asserts && !plan.asserts.empty()) return Outcome::assert_fired;
  return any_violation ? Outcome::violation : Outcome::ok;
}

void evaluate_plan(const Case& c, const Plan& p, std::vector<InvariantResult>& out, Outcome& outcome, Level level) {
  out.resize(kNumInvariants);
  bool any = false;
  for (const auto& inv : kCatalogue) {
    auto& r = out[static_cast<std::size_t>(inv.id)];
    r = check(inv.id, c, p, level);
    any = any || r.verdict == Verdict::violated;
  }
  outcome = outcome_of(c, p, any);
}

Evaluation evaluate(const Case& c, Level level) {
  Evaluation ev{c, make_plan(c), {}, Outcome::ok};
  evaluate_plan(c, ev.plan, ev.results, ev.outcome, level);
  return ev;
}

}  // namespace cp
