// The catalogue of planner versions (DESIGN §4) as DATA: one row per version, with named
// fields, says which family plans it, how it sizes the workspace, its family's rules, which
// gather kernel it uses without DCP and whether campaigns expect it correct. Every consumer asks
// the row; nobody tests `version == ...`, and every list of versions (DCP versions, the
// expected-correct defaults, dictionaries, completion) is derived from the rows. Names are
// part of the CLI and the corpus format; never rename one.
//
// Adding a version = its enum value and its row here, its step if the rule is new (the family's
// steps.h or sizing.h), and its test: docs/plan.md "How to add a version".
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/planner/families/atom/family.h"
#include "reference/planner/families/floor_divide/family.h"
#include "reference/planner/families/gathered/family.h"
#include "reference/planner/families/indexer/family.h"
#include "reference/planner/families/local_shard/family.h"
#include "reference/planner/families/packed/family.h"
#include "reference/planner/families/pcp/family.h"
#include "reference/planner/families/sglang/family.h"
#include "reference/planner/families/tokenspeed/family.h"
#include "reference/planner/families/trtllm/family.h"
#include "reference/planner/platform.h"
#include "reference/planner/sizing.h"

namespace cp {

enum class Version {
  v0_early,
  v1_dcp,
  v2_interleave,
  pr41229,
  v3_pr46114,
  v4_pr47327,
  v5_packed,
  v6_current,
  atom_pre2113,
  atom_current,
  atom_fixed,
  tokenspeed_pr1162,
  tokenspeed_compact,
  tokenspeed_compact_fixed,
  sglang_pre22688,
  sglang_current,
  sglang_oneshot_dcp,
  trtllm_pre7477,
  trtllm_current,
  trtllm_sm90_pre19269,
  v6_sparse,
  indexer_dsv32,
  indexer_dsv4,
  gathered_pr56157,
  gathered_vblock,
  pcp_a,
  pcp_b,
  pcp_c,
  pcp_local_shard,
};

struct VersionInfo {
  Version version{};
  std::string_view name;
  std::string_view summary;
  std::string_view source;  // the engine code it models (docs/plan.md "vLLM commit -> version")
  const FamilyInfo* family = nullptr;
  SizingRule sizing = SizingRule::legacy;
  bool supports_dcp = false;
  bool supports_interleave = false;
  GatherKind gather_without_dcp = GatherKind::token_major;
  bool expected_correct = false;    // campaigns expect no finding (fuzz --expect-correct's default)
  FloorDivideRules floor_divide{};  // read by the floor-divide family only
  PackedRules packed{};             // read by the packed family only
  AtomRules atom{};                 // read by the atom family only
  TokenSpeedRules tokenspeed{};     // read by the tokenspeed family only
  SGLangRules sglang{};             // read by the sglang family only
  TrtllmRules trtllm{};             // read by the trtllm family only
  IndexerRules indexer{};           // read by the sparse-indexer family only
  GatheredRules gathered{};         // read by the sparse-gathered family only
  PcpRules pcp{};                   // read by the pcp family only

  bool is_packed() const { return family == &packed_family; }
};

// One row per version, in enum order (checked below).
inline constexpr std::array kVersions{
    VersionInfo{.version = Version::v0_early,
                .name = "v0-early",
                .summary = "earliest V1: 128K cap, floor-divide per prefill, round to page_size (set only with FA3: "
                           "crashes elsewhere), no DCP",
                .source = "S1 (earliest V1 common.py)",
                .family = &floor_divide_family,
                .sizing = SizingRule::v0_128k,
                .gather_without_dcp = GatherKind::page_rounding,
                .floor_divide = {.rounding = RoundingRule::block_needs_fa3, .local = LocalRule::v1_floor}},
    VersionInfo{.version = Version::v1_dcp,
                .name = "v1-dcp",
                .summary = "first DCP version: interleave 1, floor-divide, round to B only when aot_schedule (CUDA), "
                           "per-step assert M % W == 0",
                .source = "S2 (first DCP common.py)",
                .family = &floor_divide_family,
                .sizing = SizingRule::legacy,
                .supports_dcp = true,
                .gather_without_dcp = GatherKind::page_rounding,
                .floor_divide = {.rounding = RoundingRule::block_if_aot,
                                 .local = LocalRule::v1_floor,
                                 .per_step_assert = true}},
    VersionInfo{.version = Version::v2_interleave,
                .name = "v2-interleave",
                .summary = "interleave-aware DCP (padded local lengths), round-down gated on aot_schedule, per-step "
                           "assert M % W == 0",
                .source = "S3/S4 (0014ca6b mla_attention.py, pre-#46114)",
                .family = &floor_divide_family,
                .sizing = SizingRule::legacy,
                .supports_dcp = true,
                .supports_interleave = true,
                .floor_divide = {.rounding = RoundingRule::block_if_aot,
                                 .per_step_assert = true,
                                 .passes_prefill_tokens_with_context = true}},
    VersionInfo{.version = Version::pr41229,
                .name = "pr41229",
                .summary = "seed proposal #41229: workspace rounded down to a multiple of W, M rounded to lcm(B, W) "
                           "(W alone when not aot_schedule)",
                .source = "#41229 on S4 (PR text)",
                .family = &floor_divide_family,
                .sizing = SizingRule::pr41229,
                .supports_dcp = true,
                .supports_interleave = true,
                .floor_divide = {.rounding = RoundingRule::lcm_bw_if_aot_else_w,
                                 .per_step_assert = true,
                                 .passes_prefill_tokens_with_context = true}},
    VersionInfo{.version = Version::v3_pr46114,
                .name = "v3-pr46114",
                .summary = "#46114: the dense builder rounds M down to B on every platform (builder=sparse: only on "
                           "CUDA); per-step assert kept",
                .source = "S5/S6 (#46114 merged)",
                .family = &floor_divide_family,
                .sizing = SizingRule::legacy,
                .supports_dcp = true,
                .supports_interleave = true,
                .floor_divide = {.rounding = RoundingRule::block_per_builder,
                                 .per_step_assert = true,
                                 .passes_prefill_tokens_with_context = true}},
    VersionInfo{
        .version = Version::v4_pr47327,
        .name = "v4-pr47327",
        .summary = "#47327: per-step assert removed, floor-divide kept (rounding as v3)",
        .source = "#47327 as #41229's text describes it",
        .family = &floor_divide_family,
        .sizing = SizingRule::legacy,
        .supports_dcp = true,
        .supports_interleave = true,
        .floor_divide = {.rounding = RoundingRule::block_per_builder, .passes_prefill_tokens_with_context = true}},
    VersionInfo{.version = Version::v5_packed,
                .name = "v5-packed",
                .summary = "per-request packing planner (#50613) with #50484 workspace alignment (mns * lcm(B, I*W) "
                           "floor); a context-free request closes the chunk",
                .source = "S7 (#50613 with #50484)",
                .family = &packed_family,
                .sizing = SizingRule::packed_v5,
                .supports_dcp = true,
                .supports_interleave = true,
                .expected_correct = true},
    VersionInfo{.version = Version::v6_current,
                .name = "v6-current",
                .summary = "v5 planner with #51733 workspace sizing (no max_num_seqs floor; round_up(max(S0, A), A), "
                           "A = B or lcm(B, I*W)); every context-free prefill an empty query range",
                .source = "vLLM 903ecb17 mla_attention.py",
                .family = &packed_family,
                .sizing = SizingRule::packed_v6,
                .supports_dcp = true,
                .supports_interleave = true,
                .expected_correct = true},
    VersionInfo{.version = Version::atom_pre2113,
                .name = "atom-pre2113",
                .summary = "ROCm/ATOM before #2113: DCP window max(B, round_down(S // (n*W), B)), uncapped when "
                           "S < n*W*B; reorg_kvcache, k/v of each chunk allocated by kv_b_proj (the workspace "
                           "unused under DCP)",
                .source = "ROCm/ATOM ffdf3bb5 aiter_mla.py l.1221-1445, attention_mla.py l.1052-1163",
                .family = &atom_family,
                .sizing = SizingRule::atom_chunk_size,
                .supports_dcp = true,
                .supports_interleave = true},
    VersionInfo{.version = Version::atom_current,
                .name = "atom-current",
                .summary = "ROCm/ATOM after #2113: the same planner; ag_row_indices into the fused gather, the "
                           "workspace when total <= S, else fresh k/v (the guard of _dcp_context_kv_buffers)",
                .source = "ROCm/ATOM aiter_mla.py post-#2113 (code-index 57357971103), attention_mla.py (57518279004)",
                .family = &atom_family,
                .sizing = SizingRule::atom_chunk_size,
                .supports_dcp = true,
                .supports_interleave = true},
    VersionInfo{.version = Version::atom_fixed,
                .name = "atom-fixed",
                .summary = "proposed fix of ATOM's DCP window (A-B1): at most max(1, S // (W*I)) requests with "
                           "context per group of chunks, window max(I, round_down(S // (g*W), I)), so every "
                           "chunk holds <= S rows whenever S >= W*I (docs/findings/atom.md)",
                .source = "atom-current's planner with the window rule of docs/findings/atom.md (not ATOM code)",
                .family = &atom_family,
                .sizing = SizingRule::atom_chunk_size,
                .supports_dcp = true,
                .supports_interleave = true,
                .expected_correct = true,
                .atom = {.window = AtomWindow::grouped_interleave}},
    VersionInfo{.version = Version::tokenspeed_pr1162,
                .name = "tokenspeed-pr1162",
                .summary = "TokenSpeed PR #1162's head (closed): chunk_len = C // bs; under DCP an owner mask "
                           "p mod W == r over the span with non-negative operands, i.e. each rank's own rows "
                           "from the right first position",
                .source = "lightseekorg/tokenspeed 95089f56 python/tokenspeed/runtime/layers/attention/chunk.py (T2)",
                .family = &tokenspeed_family,
                .sizing = SizingRule::tokenspeed_chunk_capacity,
                .supports_dcp = true,
                .tokenspeed = {.first_owned = KernelModulo::floor}},
    VersionInfo{.version = Version::tokenspeed_compact,
                .name = "tokenspeed-compact",
                .summary = "TokenSpeed build_dcp_compact_reconstruction_plan: compact per-rank rows, the index "
                           "kernel's first_owned = s + ((r - s % W) % W) with Triton's truncating % (T-B1: "
                           "s mod W keys twice and s mod W never per request and chunk)",
                .source = "TokenSpeed chunk.py with build_dcp_compact_reconstruction_plan (code-index 59621798817, "
                          "T1; commit not named)",
                .family = &tokenspeed_family,
                .sizing = SizingRule::tokenspeed_chunk_capacity,
                .supports_dcp = true,
                .tokenspeed = {.first_owned = KernelModulo::truncating}},
    VersionInfo{.version = Version::tokenspeed_compact_fixed,
                .name = "tokenspeed-compact-fixed",
                .summary = "proposed fix of T-B1: the compact plan with the index kernel's first_owned = s + "
                           "((r - s % W + W) % W), a non-negative operand, so Triton's % agrees with the host's "
                           "floor (docs/findings/tokenspeed.md)",
                .source = "tokenspeed-compact with the one-line kernel change of docs/findings/tokenspeed.md",
                .family = &tokenspeed_family,
                .sizing = SizingRule::tokenspeed_chunk_capacity,
                .supports_dcp = true,
                .expected_correct = true,
                .tokenspeed = {.first_owned = KernelModulo::floor}},
    VersionInfo{.version = Version::sglang_pre22688,
                .name = "sglang-pre22688",
                .summary = "SGLang's chunked prefix cache before #22688: C = 128*1024, chunk_len = C // bs over "
                           "every request, no prefix_chunk_has_zero_kv; no DCP yet",
                .source = "sgl-project/sglang forward_batch_info.py, older copy (code-index 286988748; G1)",
                .family = &sglang_family,
                .sizing = SizingRule::sglang_kv_chunk_capacity,
                .sglang = {.read = SGLangPrefixRead::owner_mask, .zero_kv_flag = false}},
    VersionInfo{.version = Version::sglang_current,
                .name = "sglang-current",
                .summary = "SGLang's chunked prefix cache: C = SGLANG_MAX_KV_CHUNK_CAPACITY, has_zero_kv per chunk; "
                           "under DCP owner-mask read, padded send, all-gather transposed, slice per request",
                .source = "sgl-project/sglang 0220422f forward_batch_deepseek_mha_mixin.py (G2); layers/dcp/ "
                          "layout.py 076a4245, comm.py (G4, G6); forward_mha.py 00cc79fa (G7)",
                .family = &sglang_family,
                .sizing = SizingRule::sglang_kv_chunk_capacity,
                .supports_dcp = true,
                .sglang = {.read = SGLangPrefixRead::owner_mask, .zero_kv_flag = true}},
    VersionInfo{.version = Version::sglang_oneshot_dcp,
                .name = "sglang-oneshot-dcp",
                .summary = "SGLang's one-shot MHA path (sum of prefixes <= C, else chunked): under DCP every W-th "
                           "element of the concatenated prefix indices from r (G-10: a shape mismatch when a request "
                           "with prefix mod W != 0 starts at an offset that is not a multiple of W)",
                .source = "sgl-project/sglang 0003011e layers/dcp/planner.py (G3); comm.py (G6)",
                .family = &sglang_family,
                .sizing = SizingRule::sglang_kv_chunk_capacity,
                .supports_dcp = true,
                .sglang = {.read = SGLangPrefixRead::strided_concat, .zero_kv_flag = true}},
    VersionInfo{.version = Version::trtllm_pre7477,
                .name = "trtllm-pre7477",
                .summary = "TensorRT-LLM context MLA before #7477: every request's context in columns of chunk_size "
                           "= max_num_tokens, nch = cdiv(max c_i, chunk_size): a loop holds up to "
                           "num_contexts * chunk_size rows (R-2)",
                .source = "NVIDIA/TensorRT-LLM 00bede19 tensorrt_llm/_torch/attention_backend/trtllm.py (R1)",
                .family = &trtllm_family,
                .sizing = SizingRule::trtllm_kv_buffer,
                .trtllm = {.split = TrtllmSplit::per_request_columns}},
    VersionInfo{.version = Version::trtllm_current,
                .name = "trtllm-current",
                .summary = "TensorRT-LLM from #7477 on, SM >= 100: the contexts packed in request order into loops of "
                           "T = 4 * max_num_tokens rows, chunked_global_offset per piece (R-1)",
                .source = "TensorRT-LLM trtllm.py post-#7477 (code-index 55410938029, R2); interface.py (R3); "
                          "modules/attention.py (R4)",
                .family = &trtllm_family,
                .sizing = SizingRule::trtllm_kv_buffer,
                .expected_correct = true,
                .trtllm = {.split = TrtllmSplit::packed}},
    VersionInfo{.version = Version::trtllm_sm90_pre19269,
                .name = "trtllm-sm90-pre19269",
                .summary = "TensorRT-LLM on SM < 100 (Hopper) before #19269: no chunked context, "
                           "forward_context_with_cached_kv gathers every cached row at once with no workspace "
                           "reserved (R-7, R-B1)",
                .source = "TensorRT-LLM modules/attention.py (code-index 55351525993, R4: get_sm_version() >= 100 "
                          "gate); #19269 (PR text)",
                .family = &trtllm_family,
                .sizing = SizingRule::trtllm_kv_buffer,
                .trtllm = {.split = TrtllmSplit::none}},
    VersionInfo{.version = Version::v6_sparse,
                .name = "v6-sparse",
                .summary =
                    "vLLM's sparse MLA builder (DeepSeek V3.2) on its dense-MHA short-prefill path: v6-current's "
                    "planner over S_sparse = max(min(max(8*mml, 4*mns*B), 65536, mns*topk), mns*B), topk 2048, "
                    "no lcm(B, I*W) rounding; under DCP the init assert S_sparse % W == 0 (Z-2); the profile run "
                    "reserves the dense size (Z-1, #57170)",
                .source = "vllm-project/vllm 002ed43a sparse_mla_attention.py (Q11); #57170 (PR text)",
                .family = &packed_family,
                .sizing = SizingRule::sparse_mla,
                .supports_dcp = true,
                .supports_interleave = true},
    VersionInfo{.version = Version::indexer_dsv32,
                .name = "indexer-dsv32",
                .summary = "vLLM's sparse indexer prefill chunker (#36178) for DeepSeek V3.2: row slices within WS = "
                           "40*mml K rows and E = max_logits_bytes/4 logits, query sub-slices sharing one K gather; "
                           "the consumer's K buffer is WS rows (rho = 1)",
                .source = "vLLM indexer.py split_indexer_prefill_chunks (code-index 51768060791, Q10); #36178",
                .family = &indexer_family,
                .sizing = SizingRule::indexer_workspace,
                .indexer = {.consumer = IndexerConsumer::workspace, .compresses = false}},
    VersionInfo{.version = Version::indexer_dsv4,
                .name = "indexer-dsv4",
                .summary = "the same chunker for DeepSeek V4 (compress_ratio rho): it admits up to WS = 40*mml "
                           "compressed K rows, the V4 consumer allocates floor(WS/rho) (#51252, open: rows past the "
                           "buffer stay uninitialised, wrong top-k, no crash)",
                .source = "vLLM indexer.py (Q10) with vllm/models/deepseek_v4/attention.py as #51252's text quotes it",
                .family = &indexer_family,
                .sizing = SizingRule::indexer_workspace,
                .indexer = {.consumer = IndexerConsumer::divided_by_ratio, .compresses = true}},
    VersionInfo{.version = Version::gathered_pr56157,
                .name = "gathered-pr56157",
                .summary = "FlashMLA sparse PCP x DCP gathered prefill (#56157): regions of extent e = N + q, "
                           "cdiv(e, W) rows per rank (exact for I = 1 only: DB-2), chunks within floor(5*mml/W) shard "
                           "rows, rank-major all-gather, top-k rows owner*SR + ws + local",
                .source = "vLLM flashmla_sparse.py plan_gathered_prefill (code-index 66430773948, Q9); #56157",
                .family = &gathered_family,
                .sizing = SizingRule::gathered_prefill,
                .supports_dcp = true,
                .supports_interleave = true,
                .gathered = {.rows_per_rank = GatheredRowsPerRank::cdiv_e_w}},
    VersionInfo{.version = Version::gathered_vblock,
                .name = "gathered-vblock",
                .summary = "gathered-pr56157 with cdiv(e, I*W)*I rows per rank, the busiest rank's rows for every "
                           "interleave (the rule DB-2 asks for; whether merged vLLM has it is not verified)",
                .source = "vllm-pcp-and-sparse.md §4.6 DB-2 on Q9 (a proposal, as pr41229 is)",
                .family = &gathered_family,
                .sizing = SizingRule::gathered_prefill,
                .supports_dcp = true,
                .supports_interleave = true,
                .gathered = {.rows_per_rank = GatheredRowsPerRank::cdiv_e_v_times_i}},
    VersionInfo{.version = Version::pcp_a,
                .name = "pcp-a",
                .summary = "PCP virtual rows, older PCPManager (PCP-A): balanced DualChunkSwap pieces, rows sorted by "
                           "(is_prefilling, start == 0, j, start), decodes on every rank, DCP == P when DCP > 1; each "
                           "rank runs v6-current's packed planner over its rows",
                .source = "vLLM pcp_manager.py copy (code-index 56944409800, Q2); tests Q3 (56188280196); #46570",
                .family = &pcp_family,
                .sizing = SizingRule::packed_v6,
                .supports_dcp = true,
                .supports_interleave = true,
                .pcp = {.split = PcpSplit::balanced,
                        .order = PcpOrder::sort_key,
                        .dcp_rule = PcpDcpRule::one_or_pcp,
                        .gather = PcpGather::compacted,
                        .graph_padding = false}},
    VersionInfo{.version = Version::pcp_b,
                .name = "pcp-b",
                .summary = "PCPManager (PCP-B): ceil pieces cdiv(q, 2P), rows with is_prefilling and start == 0 moved "
                           "last, decodes on every rank, DCP in {1, P, TP*P}; v6-current per rank (P-13 under DCP: "
                           "#53573)",
                .source = "vllm-project/vllm 0036d38d vllm/v1/worker/gpu/pcp_manager.py (Q1; same logic at 2bbe3005)",
                .family = &pcp_family,
                .sizing = SizingRule::packed_v6,
                .supports_dcp = true,
                .supports_interleave = true,
                .pcp = {.split = PcpSplit::ceil, .order = PcpOrder::pure_prefill_last}},
    VersionInfo{.version = Version::pcp_c,
                .name = "pcp-c",
                .summary = "PCPManager after #56157 (PCP-C): ceil pieces, every decode row first, prefill rows in "
                           "request order on every rank, and under DCP a prefill whose ceil split has an empty piece "
                           "replicated on every rank (inferred from tests); v6-current per rank",
                .source = "vLLM test copies code-index 66529083865, 66602372702 (Q5; manager code not found); #56157",
                .family = &pcp_family,
                .sizing = SizingRule::packed_v6,
                .supports_dcp = true,
                .supports_interleave = true,
                .pcp = {.split = PcpSplit::ceil, .order = PcpOrder::decodes_first, .replicate_short_under_dcp = true}},
    // One row: mla_pcp.py at b4a0027c and at 0268d827 compute the same local lengths, unpad, empty
    // chunk output (0, -inf), chunk merge and combine; they differ only in where the metadata lives
    // (a pcp_chunk_metadata dataclass vs local_* fields) and in the dispatch, which only b4a0027c's
    // file holds. The chunk metadata is b4a0027c's build_mla_chunked_context_metadata: v3-pr46114's
    // rules (dense: M rounded down to B, assert M % W == 0, prefill_tokens_with_context).
    VersionInfo{.version = Version::pcp_local_shard,
                .name = "pcp-local-shard",
                .summary = "PCP x DCP dense context (mla_pcp.py): floor-divide metadata (as v3-pr46114); dcp = pcp: "
                           "each rank attends its own rows l = clamp(min(L, s + PL) - s, 0), one LSE combine over "
                           "the DCP group; dcp = tp*pcp: all-gather + reorg",
                .source = "vllm-project/vllm b4a0027c mla_pcp.py + mla_attention.py "
                          "(build_mla_chunked_context_metadata, _compute_dcp_prefill_context); 0268d827 mla_pcp.py",
                .family = &local_shard_family,
                .sizing = SizingRule::legacy,
                .supports_dcp = true,
                .supports_interleave = true,
                .floor_divide = {.rounding = RoundingRule::block_per_builder,
                                 .per_step_assert = true,
                                 .passes_prefill_tokens_with_context = true}},
};
// That every row names its family is checked by VersionTable.RowsAreConsistent: GCC does not
// take a comparison of an extern object's address with nullptr as a constant under ASan.
static_assert(
    [] {
      for (std::size_t i = 0; i < kVersions.size(); ++i)
        if (static_cast<std::size_t>(kVersions[i].version) != i) return false;
      return true;
    }(),
    "kVersions: one row per Version, in enum order");

std::span<const VersionInfo> all_versions();
const VersionInfo& info(Version v);
std::optional<Version> parse_version(std::string_view name);
std::string_view name(Version v);

// Lists derived from the rows (never spelled by hand elsewhere).
std::vector<Version> versions_where(bool (*pred)(const VersionInfo&));
std::vector<Version> dcp_versions();
std::vector<Version> expected_correct_versions();
std::string joined_names(const std::vector<Version>& vs, std::string_view sep = ",");  // "v5-packed,v6-current"

// The gather kernel a plan of this version uses.
GatherKind gather_kind(const VersionInfo& v, bool dcp);

// Whether the S1 builder dies before planning: it rounds by self.page_size, which __init__
// sets only when aot_schedule (vLLM FlashAttention 3). Off CUDA every step with chunked
// context raises AttributeError.
constexpr bool v0_page_size_missing(const VersionInfo& v, Platform p) {
  return v.family == &floor_divide_family && v.floor_divide.rounding == RoundingRule::block_needs_fa3 &&
         !aot_schedule(p);
}

}  // namespace cp
