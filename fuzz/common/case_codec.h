// The planner fuzzer's input format: a case decoded from the bytes with FuzzedDataProvider,
// and its exact inverse, so that case lines (the spec's counterexamples, upstream tests,
// regression files) become seed inputs and every input prints as a case line.
//
// One schema, two directions: `schema()` is written once over an IO type that either reads
// a field from FuzzedDataProvider or writes the field's bytes, so decode(encode(c)) == c by
// construction (and encode_case() checks it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/common/plan_cost.h"
#include "reference/caseio/case.h"
#include "reference/caseio/pins.h"
#include "reference/planner/versions.h"

class FuzzedDataProvider;

namespace cp::fuzz {

// Which versions and platforms the decoded byte selects from. The same bytes decode to a
// version of this list (index modulo its size), so a campaign restricted to one version
// still reuses any corpus.
struct Selection {
  std::vector<Version> versions;    // default: every version, catalogue order
  std::vector<Platform> platforms;  // default: cuda, rocm
  Pins pins;                        // values every decoded case has (`fuzz --pin`); the batch stays free
  static Selection all();
  // From CHUNKPROOF_FUZZ_VERSIONS / CHUNKPROOF_FUZZ_PLATFORMS (comma lists; "all" or unset = all)
  // and CHUNKPROOF_FUZZ_PINS (block=64,dcp=8: reference/caseio/pins.h). Throws CaseError on an
  // unknown name or a bad pin.
  static Selection from_env();
};

// The decoder's domain (issue 11: the full domain). The checks are interval level
// (invariants/interval/), so an execution costs O(chunks x requests x W), not O(context):
// contexts up to 2^24 tokens, workspaces up to 2^31 rows, up to 1024 requests, DCP up to 64 and
// every interleave dividing the block. What bounds one execution is the plan's size
// (judge.h: kMaxFuzzWork), never a context length.
struct DecodeLimits {
  static constexpr std::int64_t max_requests = 1024;  // 1 + (2^10 - 1)
  static constexpr std::int64_t max_dcp = 64;
  static constexpr std::int64_t max_block = 16384;
  static constexpr std::int64_t max_ctx = (std::int64_t{1} << 24) - 1;
  static constexpr std::int64_t max_total_ctx = std::int64_t{1} << 34;  // 1024 x 2^24: not binding
  static constexpr std::int64_t max_q = 1024;                           // 1 + (2^10 - 1)
  static constexpr std::int64_t max_workspace = std::int64_t{1} << 31;  // 1 + (2^31 - 1)
  static constexpr std::int64_t max_model_len = std::int64_t{1} << 24;  // 1 + (2^24 - 1)
  static constexpr std::int64_t max_num_seqs = 2048;                    // 1 + (2^11 - 1)
};

// Decodes a case; never throws for any input (the result may still fail validate_case()). The
// selection's pins are applied last, so a pinned campaign explores only its batch.
Case decode_case(FuzzedDataProvider& fdp, const Selection& sel);
Case decode_case(const std::uint8_t* data, std::size_t size, const Selection& sel);
// The same into `c`, reusing its storage (the fuzzers' hot path: no allocation once warm).
void decode_case_into(FuzzedDataProvider& fdp, const Selection& sel, Case& c);

// Bytes that decode (with Selection::all()) to exactly `c`. Throws CaseError naming the key
// when `c` is outside the decoder's bounds (DecodeLimits).
std::vector<std::uint8_t> encode_case(const Case& c);

// The sizing domain of a workspace: S % W == 0 and S >= lcm(B, I*W) (B without DCP) — what
// every aligned sizing function guarantees. An explicit workspace outside it is not a bug of
// a version whose own sizing never produces it.
bool in_sizing_domain(const Case& c);

}  // namespace cp::fuzz
