// bf16 <-> fp32, bit-exact on host and device.
//
//   std::uint16_t float_to_bf16(float)   round to nearest even; NaN stays NaN (quiet, sign kept);
//                                        overflow rounds to +-inf as IEEE does.
//   float bf16_to_float(std::uint16_t)   exact (bf16 is the top half of an fp32).
//   float round_to_bf16(float)           float_to_bf16 then back: the value a bf16 store keeps.
//   int bf16_ulp_distance(a, b)          ULPs between two bf16 values on the ordered integer line
//                                        (+0 and -0 are 0 apart); -1 when either is NaN.
#pragma once

#include "reference/mla/math/hd.h"

namespace cp::mla {

CP_HD inline float bf16_to_float(std::uint16_t h) { return float_of(static_cast<std::uint32_t>(h) << 16); }

CP_HD inline std::uint16_t float_to_bf16(float x) {
  const std::uint32_t u = bits_of(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  const std::uint32_t lsb = (u >> 16) & 1u;
  return static_cast<std::uint16_t>((u + 0x7fffu + lsb) >> 16);
}

CP_HD inline float round_to_bf16(float x) { return bf16_to_float(float_to_bf16(x)); }

// Maps a bf16 to a monotone signed integer: negative values below positive ones, -0 == +0.
CP_HD inline std::int32_t bf16_ordinal(std::uint16_t h) {
  const std::int32_t mag = h & 0x7fff;
  return (h & 0x8000) ? -mag : mag;
}

CP_HD inline std::int32_t bf16_ulp_distance(std::uint16_t a, std::uint16_t b) {
  if ((a & 0x7fff) > 0x7f80 || (b & 0x7fff) > 0x7f80) return -1;
  const std::int32_t d = bf16_ordinal(a) - bf16_ordinal(b);
  return d < 0 ? -d : d;
}

}  // namespace cp::mla
