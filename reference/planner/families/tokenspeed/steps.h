// The TokenSpeed family's steps (python/tokenspeed/runtime/layers/attention/chunk.py;
// other-engines.md §3): the rectangular split (rectangular_steps.h), and under DCP the compact
// plan of build_dcp_compact_reconstruction_plan: rank r sends count[r][i] rows of request i
// (the positions p of the chunk's span with p mod W = r, I = 1), P = max_r sum_i count[r][i]
// rows per rank, and the reconstruction index puts rank r's rows W apart from its first owned
// position. The host computes in Python (floor); the index-building Triton kernel computes the
// first owned position with Triton's `%`, which truncates (T-3, T-B1).
#pragma once

#include <array>
#include <string_view>

#include "reference/arith/ops.h"
#include "reference/planner/families/rectangular_steps.h"

namespace cp {

// How the index-building kernel evaluates `(r - s mod W) % W` (spec §0 "integer semantics").
enum class KernelModulo : std::uint8_t {
  floor,       // Python's / the host's: the first owned position is right
  truncating,  // Triton's signed `%` (srem): one stride early for r < s mod W (T-B1)
};
inline constexpr std::array kKernelModulos{KernelModulo::floor, KernelModulo::truncating};
constexpr std::string_view name(KernelModulo m) { return m == KernelModulo::floor ? "floor" : "truncating"; }

// A TokenSpeed version's rules (versions.h: VersionInfo::tokenspeed).
struct TokenSpeedRules {
  KernelModulo first_owned = KernelModulo::floor;
};

namespace steps {

// The host's first owned position of rank r in a span starting at s: s + (r - s) mod W.
template <class N>
N ts_first_owned_host(const N& rank, const N& s, const N& W) {
  return s + floormod(rank - s, W);
}

// The kernel's: first_owned = s + ((r - s % W) % W), the outer `%` as the version's kernel
// evaluates it. Truncating: s - (s mod W) + r for r < s mod W, one stride before the host's.
template <class N>
N ts_first_owned_kernel(const N& rank, const N& s, const N& W, KernelModulo m) {
  const N x = rank - floormod(s, W);
  return s + (m == KernelModulo::truncating ? truncmod(x, W) : floormod(x, W));
}

}  // namespace steps
}  // namespace cp
