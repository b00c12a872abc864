#include "reference/planner/versions.h"

#include <array>

namespace cp {
namespace {

constexpr std::array kVersions{
    VersionInfo{Version::v0_early, "v0-early",
                "earliest V1: 128K cap, floor-divide per prefill, round to B, no DCP", "S1", false,
                false, false, false},
    VersionInfo{Version::v1_dcp, "v1-dcp",
                "first DCP version: interleave 1, floor-divide, round to B only when aot_schedule "
                "(CUDA), per-step assert M % W == 0",
                "S2", false, true, false, false},
    VersionInfo{Version::v2_interleave, "v2-interleave",
                "interleave-aware DCP (padded local lengths), round-down gated on aot_schedule, "
                "per-step assert M % W == 0",
                "S3/S4", false, true, true, true},
    VersionInfo{Version::pr41229, "pr41229",
                "seed proposal #41229: workspace rounded down to a multiple of W, M rounded to "
                "lcm(B, W) (W alone when not aot_schedule)",
                "#41229 on S4", false, true, true, true},
    VersionInfo{Version::v3_pr46114, "v3-pr46114",
                "#46114: round M down to B regardless of aot_schedule (dense builder; the sparse "
                "builder, modelled by platform=rocm, rounds only on CUDA); assert kept",
                "S5/S6", false, true, true, true},
    VersionInfo{Version::v4_pr47327, "v4-pr47327",
                "#47327: per-step assert removed, floor-divide kept (rounding as v3)",
                "#41229 text", false, true, true, true},
    VersionInfo{Version::v5_packed, "v5-packed",
                "per-request packing planner (#50613) with #50484 workspace alignment "
                "(mns * lcm(B, I*W) floor)",
                "S7", true, true, true, false},
    VersionInfo{Version::v6_current, "v6-current",
                "v5 planner with #51733 workspace sizing (no max_num_seqs floor)", "S8/S9/S10",
                true, true, true, false},
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

VersionBehaviour behaviour(Version v, Platform p) {
  const bool aot = p == Platform::cuda;  // aot_schedule = current_platform.is_cuda() (S2-S4)
  switch (v) {
    case Version::v0_early: return {true, false, true};
    case Version::v1_dcp:
    case Version::v2_interleave: return {aot, true, true};
    case Version::pr41229: return {true, true, true};  // rounds to lcm(B,W) or W
    case Version::v3_pr46114: return {aot, true, true};
    case Version::v4_pr47327: return {aot, false, true};
    // The dense builder always aligns to B; the sparse builder (S6) passes is_cuda().
    case Version::v5_packed:
    case Version::v6_current: return {true, false, aot};
  }
  return {};
}

}  // namespace cp
