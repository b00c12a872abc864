// The case format (DESIGN §8): one line of key=value words that every tool accepts and
// every finding prints.
//
//   version=v2-interleave platform=rocm workspace=65536 block=64 dcp=8 interleave=1
//   ctx=30000,100,100 q=16,16,16
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "reference/planner/versions.h"

namespace cp {

// A malformed case line. `key` names the offending key ("" when the line itself is bad).
struct CaseError : std::runtime_error {
  CaseError(std::string k, const std::string& what)
      : std::runtime_error(printable(k.empty() ? what : "key '" + k + "': " + what)), key(std::move(k)) {}
  std::string key;

  // Non-printable bytes as \xNN: a NUL inside a key must not cut the message short.
  static std::string printable(const std::string& s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char ch : s) {
      if (ch >= 0x20 && ch < 0x7f) {
        out += static_cast<char>(ch);
      } else {
        out += "\\x";
        out += kHex[ch >> 4];
        out += kHex[ch & 0xf];
      }
    }
    return out;
  }
};

// MLA shapes for the numerics (reference/mla). Defaults are small so tests run fast.
struct MlaDims {
  std::int64_t kv_lora_rank = 32;  // L
  std::int64_t rope_dim = 8;       // Rr
  std::int64_t nope_dim = 16;      // Pn
  std::int64_t v_dim = 16;         // Vd
  std::int64_t heads = 2;          // N
  std::string preset = "small";    // small | deepseek-v3 | kimi-k2 (overrides follow it)
  friend bool operator==(const MlaDims&, const MlaDims&) = default;
};
std::optional<MlaDims> dims_preset(std::string_view name);

struct Case {
  Version version = Version::v6_current;
  Platform platform = Platform::cuda;
  Builder builder = Builder::dense;           // the metadata builder (#46114): dense | sparse
  std::optional<std::int64_t> workspace;      // explicit S (rows), used as is
  std::optional<std::int64_t> max_model_len;  // else the version sizes S from these two
  std::optional<std::int64_t> max_num_seqs;
  std::int64_t block = 16;
  std::int64_t dcp = 1;
  std::int64_t interleave = 1;
  // The sparse indexer family only (vllm-pcp-and-sparse.md §5): the indexer's compress ratio rho
  // (kv_cache_spec.compress_ratio: 1 for DeepSeek V3.2, 4 for V4) and its logits budget
  // VLLM_SPARSE_INDEXER_MAX_LOGITS_MB (unset: 512 MiB, #36178).
  std::int64_t compress_ratio = 1;
  std::optional<std::int64_t> max_logits_mb;
  // The PCP family only (vllm-pcp-and-sparse.md §1, §7): the PCP world size P
  // (prefill_context_parallel_size), the rank whose v6 plan is the plan's chunks (unset: 0; the P-
  // checks see every rank), the TP size of the dcp rule (unset: 1), and per request is_prefilling
  // as 0/1 (empty: a request is a decode iff q <= 1 and ctx > 0). On other families: exit 2.
  std::optional<std::int64_t> pcp;
  std::optional<std::int64_t> pcp_rank;
  std::optional<std::int64_t> tp;
  std::vector<std::int64_t> prefilling;
  // The local-shard family only (vllm-pcp-and-sparse.md §3, §7; pcp and tp above are its keys too):
  // whose rows each DCP rank's builder sees (unset: "replicated", the case's batch on every rank;
  // a pcp-family version: that PCPManager's rank-local rows) and the dispatch path as the user
  // expects it (unset: derived from dcp / pcp; given: must agree, else exit 2).
  std::optional<Version> pcp_rows;
  std::optional<LocalShardPath> mla_pcp_path;
  // The PCP family's context reuse (§2, #57668, open): ctx_reuse on merges a rank's two adjacent
  // rows of one request into one row (shared chunk + tail chunk); causal and sliding_window are
  // the conditions its fallback reads (§2.2). padded_num_tokens: the CUDA-graph token count the
  // manager pads every rank to (Q4; unset: max_r T_r). On other families: exit 2.
  bool ctx_reuse = false;
  bool causal = true;
  std::optional<std::int64_t> sliding_window;
  std::optional<std::int64_t> padded_num_tokens;
  std::vector<std::int64_t> ctx;
  std::vector<std::int64_t> q;
  bool asserts = true;  // false models `python -O`: asserts stripped, corruption is silent
  // numerics
  MlaDims dims;
  std::uint64_t seed = 1;
  friend bool operator==(const Case&, const Case&) = default;
};

// Limits on accepted values. Beyond them the planner would still be correct arithmetic, but
// the token-level simulation would not fit in memory or time; they are errors, not findings.
struct CaseLimits {
  static constexpr std::int64_t max_workspace = std::int64_t{1} << 31;
  static constexpr std::int64_t max_model_len = std::int64_t{1} << 26;
  static constexpr std::int64_t max_num_seqs = std::int64_t{1} << 16;
  static constexpr std::int64_t max_block = std::int64_t{1} << 20;
  static constexpr std::int64_t max_dcp = 1024;
  static constexpr std::int64_t max_pcp = 64;
  static constexpr std::int64_t max_tp = 1024;
  static constexpr std::int64_t max_requests = 4096;
  static constexpr std::int64_t max_ctx = (std::int64_t{1} << 31) - 1;
  static constexpr std::int64_t max_total_ctx = std::int64_t{1} << 34;  // 1024 requests x 2^24 (interval level)
  static constexpr std::int64_t max_q = std::int64_t{1} << 20;
  static constexpr std::int64_t max_heads = 1024;
  static constexpr std::int64_t max_dim = 4096;
};

// Parses a case line; throws CaseError naming the bad key. Checks ranges and the
// configuration rules a version accepts (I-11: interleave divides block, ...).
Case parse_case(std::string_view line);
// Canonical form: parse_case(print_case(c)) == c and print(parse(print(c))) == print(c).
std::string print_case(const Case& c);
// Validates a Case built in code (generators, fuzzers); throws CaseError like parse_case.
void validate_case(const Case& c);
// Whether vLLM's batch order (decodes first) applies: every family but a PCP manager's input batch
// (the pcp family, and the local-shard family's rank-local pcp_rows).
bool decodes_must_lead(const Case& c);

// vLLM's batch reorder (reorder_batch in vllm/v1/attention/backends/mla/common.py @37fa5c09,
// later reorder_batch_to_split_decodes_and_prefills): requests with q <= 1 are decodes and must
// precede every prefill; decodes found past the decode region are SWAPPED with the first
// prefills (not a stable partition). A case line must already be in this order (validate_case
// rejects it otherwise, naming `q` and showing this order); generators call it.
void order_decodes_first(Case& c);

// Keys the format accepts, with one-line descriptions (for --help and docs).
struct CaseKey {
  std::string_view key;
  std::string_view help;
};
const std::vector<CaseKey>& case_keys();

}  // namespace cp
