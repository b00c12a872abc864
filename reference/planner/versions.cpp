#include "reference/planner/versions.h"

#include <array>

namespace cp {
namespace {

using enum PlannerKind;
using enum SizingRule;
using enum RoundingRule;
using enum ContextMask;

constexpr VersionInfo row(Version v, std::string_view n, std::string_view summary, std::string_view source,
                          PlannerKind pk, SizingRule s, RoundingRule r, bool dcp, bool interleave, bool step_assert,
                          GatherKind g, ContextMask m) {
  return {v, n, summary, source, pk, s, r, dcp, interleave, step_assert, g, m, pk == packed, m == first_n};
}

// One row per version. Columns: planner, sizing, rounding, DCP, interleave, per-step assert,
// gather without DCP, context mask.
constexpr std::array kVersions{
    row(Version::v0_early, "v0-early",
        "earliest V1: 128K cap, floor-divide per prefill, round to page_size (set only with FA3: "
        "crashes elsewhere), no DCP",
        "S1", floor_divide_v1, v0_128k, block_needs_fa3, false, false, false, GatherKind::page_rounding, none),
    row(Version::v1_dcp, "v1-dcp",
        "first DCP version: interleave 1, floor-divide, round to B only when aot_schedule (CUDA), "
        "per-step assert M % W == 0",
        "S2", floor_divide_v1, legacy, block_if_aot, true, false, true, GatherKind::page_rounding, none),
    row(Version::v2_interleave, "v2-interleave",
        "interleave-aware DCP (padded local lengths), round-down gated on aot_schedule, per-step "
        "assert M % W == 0",
        "S3/S4", floor_divide_interleave, legacy, block_if_aot, true, true, true, GatherKind::token_major, first_n),
    row(Version::pr41229, "pr41229",
        "seed proposal #41229: workspace rounded down to a multiple of W, M rounded to lcm(B, W) "
        "(W alone when not aot_schedule)",
        "#41229 on S4", floor_divide_interleave, SizingRule::pr41229, lcm_bw_if_aot_else_w, true, true, true,
        GatherKind::token_major, first_n),
    row(Version::v3_pr46114, "v3-pr46114",
        "#46114: the dense builder rounds M down to B on every platform (builder=sparse: only on "
        "CUDA); per-step assert kept",
        "S5/S6", floor_divide_interleave, legacy, block_per_builder, true, true, true, GatherKind::token_major,
        first_n),
    row(Version::v4_pr47327, "v4-pr47327", "#47327: per-step assert removed, floor-divide kept (rounding as v3)",
        "#41229 text", floor_divide_interleave, legacy, block_per_builder, true, true, false, GatherKind::token_major,
        first_n),
    row(Version::v5_packed, "v5-packed",
        "per-request packing planner (#50613) with #50484 workspace alignment (mns * lcm(B, I*W) "
        "floor); a context-free request closes the chunk",
        "S7", packed, packed_v5, block_per_builder, true, true, false, GatherKind::token_major, none),
    row(Version::v6_current, "v6-current",
        "v5 planner with #51733 workspace sizing (no max_num_seqs floor; round_up(max(S0, A), A), "
        "A = B or lcm(B, I*W)); every context-free prefill an empty query range",
        "vLLM 903ecb17 (S9/S10)", packed, packed_v6, block_per_builder, true, true, false, GatherKind::token_major,
        none),
};

}  // namespace

std::span<const VersionInfo> all_versions() { return kVersions; }

const VersionInfo& info(Version v) { return kVersions[static_cast<std::size_t>(v)]; }

std::optional<Version> parse_version(std::string_view n) {
  for (const auto& v : kVersions)
    if (v.name == n) return v.version;
  return std::nullopt;
}

std::string_view name(Version v) { return info(v).name; }
std::string_view name(Platform p) { return p == Platform::cuda ? "cuda" : "rocm"; }
std::string_view name(Builder b) { return b == Builder::dense ? "dense" : "sparse"; }
std::string_view name(MergeFlavour f) { return f == MergeFlavour::cuda ? "cuda" : "triton"; }
std::string_view name(GatherKind g) {
  switch (g) {
    case GatherKind::page_rounding: return "page-rounding batch-grid gather";
    case GatherKind::token_major: return "token-major gather (token_to_seq)";
    case GatherKind::cp_gather: return "cp_gather_cache (local slots)";
  }
  return "?";
}
std::optional<Platform> parse_platform(std::string_view n) {
  if (n == "cuda") return Platform::cuda;
  if (n == "rocm") return Platform::rocm;
  return std::nullopt;
}
std::optional<Builder> parse_builder(std::string_view n) {
  if (n == "dense") return Builder::dense;
  if (n == "sparse") return Builder::sparse;
  return std::nullopt;
}

GatherKind gather_kind(const VersionInfo& v, bool dcp) { return dcp ? GatherKind::cp_gather : v.gather_without_dcp; }

}  // namespace cp
