// The input generator's integer core (reference/mla/inputs.cpp), shared with the GPU kernels
// that regenerate stale/garbage rows on the device: a counter-based hash, so any element is
// computed from (seed, stream, index) alone, in any order, on any device, with the same bits.
//
//   counter_hash(seed, stream, index)   splitmix64 of the stream key and the index
//   CounterStream s(seed, stream); s(i) the same hash with the stream key computed once (loops)
//   garbage_elem(seed, stream, key, e)  element e of the garbage row for `key`
#pragma once

#include "reference/mla/math/bf16.h"
#include "reference/mla/math/hd.h"

namespace cp::mla {

// Streams of the generator: one per kind of value.
enum GeneratorStream : std::uint64_t { kKv = 1, kWuk, kWuv, kQuery, kPages, kGarbage };

CP_HD inline std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct CounterStream {
  std::uint64_t key;
  CP_HD CounterStream(std::uint64_t seed, std::uint64_t stream)
      : key(splitmix(seed ^ (stream * 0xd1b54a32d192ed03ull))) {}
  CP_HD std::uint64_t operator()(std::uint64_t index) const { return splitmix(key ^ index); }
};

CP_HD inline std::uint64_t counter_hash(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return CounterStream(seed, stream)(index);
}

// The generator's key of (request, position).
CP_HD inline std::uint64_t pos_key(int request, std::int64_t position) {
  return (static_cast<std::uint64_t>(request) << 40) ^ static_cast<std::uint64_t>(position);
}

// Magnitude in [2, 4): never equal to a real value (those are below 1).
CP_HD inline std::uint16_t garbage_value(std::uint64_t h) {
  const float mag = add_rn(2.0f, mul_rn(static_cast<float>(h >> 41), 0x1p-22f));
  return float_to_bf16((h & 1u) ? -mag : mag);
}

// Element e of the garbage row of `key` in garbage stream `stream`.
CP_HD inline std::uint16_t garbage_elem(std::uint64_t seed, std::uint64_t stream, std::uint64_t key, int e) {
  const std::uint64_t base = counter_hash(seed, kGarbage, splitmix(stream) ^ key);
  return garbage_value(splitmix(base + static_cast<std::uint64_t>(e)));
}

// The garbage streams of the data path (CPU and GPU alike): 0 slots past what a request wrote,
// 1 positions past the block table (dcp = 1 gather), 2 + r local slots of rank r past the block
// table, 1000 + chunk the workspace's stale rows, and unsent_stream(chunk, r) the send-buffer
// rows of rank r that no gather run writes (SGLang's one-shot holes, TokenSpeed's zero pad of a
// rank with fewer rows), keyed by the send row.
CP_HD inline std::uint64_t unsent_stream(std::uint64_t chunk, std::uint64_t rank) {
  return (std::uint64_t{5} << 56) ^ (chunk << 24) ^ rank;
}

}  // namespace cp::mla
