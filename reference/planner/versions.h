// The catalogue of planner versions (DESIGN §4). Names are part of the CLI and the corpus
// format; never rename one.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace cp {

enum class Version { v0_early, v1_dcp, v2_interleave, pr41229, v3_pr46114, v4_pr47327, v5_packed, v6_current };
enum class Platform { cuda, rocm };

// How a version moves context rows from the paged cache into the workspace (spec §3.4).
enum class GatherKind {
  page_rounding,  // old batch-grid gather_and_maybe_dequant_cache: start rounded down to the page
  token_major,    // token-major gather_and_maybe_dequant_cache (token_to_seq): exact starts
  cp_gather,      // cp_gather_cache on local slots (every DCP version): exact local starts
};

struct VersionInfo {
  Version version;
  std::string_view name;
  std::string_view summary;
  std::string_view source;  // spec source tag(s)
  bool packed;              // per-request packing planner (v5, v6) vs equal floor-divide split
  bool supports_dcp;
  bool supports_interleave;
  bool masks_context_free_tokens;  // prefill_tokens_with_context passed to the merge (S4/S5)
};

std::span<const VersionInfo> all_versions();
const VersionInfo& info(Version v);
std::optional<Version> parse_version(std::string_view name);
std::string_view name(Version v);
std::string_view name(Platform p);
std::string_view name(GatherKind g);
std::optional<Platform> parse_platform(std::string_view name);

// Behaviour selected by the platform switch (spec §2.4).
struct VersionBehaviour {
  bool round_chunk;           // old planner: round M down (to round_to)
  bool per_step_assert;       // old planner: assert M % W == 0 every step
  bool align_chunk_to_block;  // packed planner: align = B (else 1) before lcm with V
};
VersionBehaviour behaviour(Version v, Platform p);

}  // namespace cp
