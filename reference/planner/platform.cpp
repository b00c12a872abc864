#include "reference/planner/platform.h"

namespace cp {

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

}  // namespace cp
