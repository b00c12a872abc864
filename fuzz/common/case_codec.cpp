#include "fuzz/common/case_codec.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>
#include <span>
#include <string_view>

#include "fuzz/common/plan_cost.h"
#include "reference/planner/plan.h"

namespace cp::fuzz {
namespace {

// Reads each field from the provider (integers come from the END of the input).
class Reader {
 public:
  explicit Reader(FuzzedDataProvider& f) : f_(f) {}
  std::int64_t range(std::int64_t /*value*/, std::int64_t lo, std::int64_t hi) {
    return f_.ConsumeIntegralInRange<std::int64_t>(lo, hi);
  }

 private:
  FuzzedDataProvider& f_;
};

// Writes the bytes FuzzedDataProvider::ConsumeIntegralInRange reads back as `value`: the
// most significant byte first in consumption order, as many bytes as the range needs.
class Writer {
 public:
  std::int64_t range(std::int64_t value, std::int64_t lo, std::int64_t hi) {
    if (value < lo || value > hi)
      throw CaseError(key_, "value " + std::to_string(value) + " outside the fuzz decoder's range [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    const auto r = static_cast<std::uint64_t>(value) - static_cast<std::uint64_t>(lo);
    int bytes = 0;
    while (bytes < 8 && (span >> (8 * bytes)) > 0) ++bytes;
    for (int i = bytes - 1; i >= 0; --i) tail_.push_back(static_cast<std::uint8_t>((r >> (8 * i)) & 0xff));
    return value;
  }
  void key(std::string k) { key_ = std::move(k); }
  std::vector<std::uint8_t> bytes() const { return {tail_.rbegin(), tail_.rend()}; }

 private:
  std::vector<std::uint8_t> tail_;  // consumption order: the input's last byte first
  std::string key_;
};

template <class IO>
void key(IO& io, const char* k) {
  if constexpr (std::is_same_v<IO, Writer>) io.key(k);
}

// The selector byte that writes `value`: 2 * its index in the table, or 1 (raw). Only the writer
// needs it: the reader ignores the value it is given (the previous case's, on the hot path).
template <class IO>
std::int64_t table_index(IO&, [[maybe_unused]] std::int64_t value,
                         [[maybe_unused]] std::span<const std::int64_t> table) {
  if constexpr (std::is_same_v<IO, Writer>) {
    const auto it = std::find(table.begin(), table.end(), value);
    return it != table.end() ? 2 * (it - table.begin()) : 1;
  } else {
    return 1;
  }
}

// A field drawn half the time from a table of values that matter (the spec's configs) and
// half the time raw from [lo, hi].
template <class IO>
std::int64_t pick(IO& io, std::int64_t value, std::span<const std::int64_t> table, std::int64_t lo, std::int64_t hi) {
  std::int64_t sel = io.range(table_index(io, value, table), 0, 255);  // even: table, odd: raw
  if (sel % 2 == 0) return table[static_cast<std::size_t>(sel / 2) % table.size()];
  return io.range(value, lo, hi);
}

// A raw value on a log scale: its bit length first (uniform), then the value of that length, so
// small values are as likely as large ones (a family of bugs shows at every scale, and small
// cases simulate fast). `hi` must be 2^k - 1.
template <class IO>
std::int64_t log_scale(IO& io, std::int64_t value, std::int64_t lo, std::int64_t hi) {
  int hi_bits = 0;
  while (((hi - lo) >> hi_bits) > 0) ++hi_bits;
  int bits = 0;  // the bit length of `value`: only the writer needs it
  if constexpr (std::is_same_v<IO, Writer>)
    while (bits < 63 && ((value - lo) >> bits) > 0) ++bits;
  bits = static_cast<int>(io.range(bits, 0, hi_bits));
  if (bits == 0) return lo;
  const std::int64_t first = std::int64_t{1} << (bits - 1);
  return lo + io.range(value - lo, first, std::min(hi - lo, (first << 1) - 1));
}

// Like pick(), with the raw half on a log scale.
template <class IO>
std::int64_t pick_log(IO& io, std::int64_t value, std::span<const std::int64_t> table, std::int64_t lo,
                      std::int64_t hi) {
  std::int64_t sel = io.range(table_index(io, value, table), 0, 255);
  if (sel % 2 == 0) return table[static_cast<std::size_t>(sel / 2) % table.size()];
  return log_scale(io, value, lo, hi);
}

// Index 0 of each table is what an exhausted input decodes to: a realistic DCP configuration
// (W=8, B=64, I=1, S sized from DeepSeek's engine config, every request with some context), so
// small mutations of short inputs explore the neighbourhood of production settings.
constexpr std::array<std::int64_t, 8> kDcp{8, 1, 2, 4, 3, 16, 6, 12};
constexpr std::array<std::int64_t, 8> kBlock{64, 16, 128, 1, 2, 32, 8, 256};
constexpr std::array<std::int64_t, 8> kInterleave{1, 64, 16, 8, 2, 4, 32, 128};
constexpr std::array<std::int64_t, 8> kModelLen{163840, 4096, 4095, 32768, 131072, 8192, 2048, 65536};
constexpr std::array<std::int64_t, 8> kNumSeqs{256, 64, 1024, 1, 32, 128, 8, 16};
constexpr std::array<std::int64_t, 10> kWorkspace{65536, 32768, 131072, 1024, 256, 4096, 512, 128, 1000, 384};
constexpr std::array<std::int64_t, 14> kCtx{1000, 0,    100,   500,   300,   64,    1,
                                            3000, 2048, 30000, 20000, 50000, 70000, 12000};
constexpr std::array<std::int64_t, 8> kQ{4, 16, 8, 1, 2, 32, 3, 64};
constexpr std::array<std::int64_t, 4> kCompressRatio{4, 1, 128, 2};
constexpr std::array<std::int64_t, 4> kLogitsMb{512, 256, 1, 64};
constexpr std::array<std::int64_t, 5> kPcp{2, 4, 8, 1, 3};
constexpr std::array<std::int64_t, 4> kTp{1, 2, 4, 8};

// The PCP manager versions, in row order (pcp_rows' values past "replicated").
const std::vector<Version>& pcp_managers() {
  static const std::vector<Version> managers = [] {
    std::vector<Version> out;
    for (const VersionInfo& v : all_versions())
      if (v.family == &pcp_family) out.push_back(v.version);
    return out;
  }();
  return managers;
}
// What the pcp_rank field writes: the rank (pcp family), or for the local-shard family
// pcp_rows' index (0: replicated) + (1 + managers) * the selected rank.
std::int64_t pcp_rank_byte(const Case& c) {
  if (info(c.version).family != &local_shard_family) return c.pcp_rank.value_or(0);
  const auto& ms = pcp_managers();
  const auto m = static_cast<std::int64_t>(ms.size()) + 1;
  const std::int64_t idx = c.pcp_rows ? 1 + (std::find(ms.begin(), ms.end(), *c.pcp_rows) - ms.begin()) : 0;
  return idx + m * c.pcp_rank.value_or(0);
}

template <class IO>
void schema(IO& io, Case& c, const Selection& sel) {
  using L = DecodeLimits;
  key(io, "version");
  std::int64_t vi = 0;
  for (std::size_t i = 0; i < sel.versions.size(); ++i)
    if (sel.versions[i] == c.version) vi = static_cast<std::int64_t>(i);
  vi = io.range(vi, 0, 255);
  c.version = sel.versions[static_cast<std::size_t>(vi) % sel.versions.size()];
  key(io, "platform");
  std::int64_t pi = 0;
  for (std::size_t i = 0; i < sel.platforms.size(); ++i)
    if (sel.platforms[i] == c.platform) pi = static_cast<std::int64_t>(i);
  pi = io.range(pi, 0, 255);
  c.platform = sel.platforms[static_cast<std::size_t>(pi) % sel.platforms.size()];
  key(io, "asserts");
  c.asserts = io.range(c.asserts ? 0 : 3, 0, 255) % 4 != 3;  // on 3 times in 4, like production

  const VersionInfo& info_v = info(c.version);
  key(io, "block");
  c.block = pick(io, c.block, kBlock, 1, L::max_block);
  key(io, "dcp");
  c.dcp = pick(io, c.dcp, kDcp, 1, L::max_dcp);
  if (!info_v.supports_dcp) c.dcp = 1;
  key(io, "interleave");
  std::int64_t il = pick(io, c.interleave, kInterleave, 1, L::max_block);
  if (il > c.block || c.block % il != 0) il = std::gcd(il, c.block);  // I-11: I divides B
  c.interleave = info_v.supports_interleave ? il : 1;

  // The pcp family's keys (other versions take none): P from the spec's domain {1, 2, 3, 4, 8}, the
  // rank whose plan the universal checks see, TP; then dcp moved into the version's rule (Q6:
  // {1, P, TP*P}; PCP-A: {1, P}) so that every decoded pcp case is one the engine accepts.
  key(io, "pcp");
  const std::int64_t pcp = pick(io, c.pcp.value_or(2), kPcp, 1, 16);
  key(io, "pcp_rank");
  const std::int64_t pcp_rank = io.range(pcp_rank_byte(c), 0, 15);
  key(io, "tp");
  std::int64_t tp = pick(io, c.tp.value_or(1), kTp, 1, 16);
  // ctx_reuse (#57668) with its fallback conditions, and the CUDA-graph token count (Q4, pcp-b/c;
  // 0: unset; below max T_r it is the manager's ValueError, a finding the target must reach).
  key(io, "ctx_reuse");
  const std::int64_t reuse = io.range(c.ctx_reuse ? (c.causal ? (c.sliding_window ? 3 : 1) : 2) : 0, 0, 255) % 4;
  key(io, "padded_num_tokens");
  const std::int64_t padded = io.range(c.padded_num_tokens.value_or(0), 0, 1 << 16);
  c.pcp.reset();
  c.pcp_rank.reset();
  c.tp.reset();
  c.prefilling.clear();
  c.pcp_rows.reset();
  c.mla_pcp_path.reset();
  c.ctx_reuse = false, c.causal = true;
  c.sliding_window.reset();
  c.padded_num_tokens.reset();
  if (info_v.family == &pcp_family) {
    c.pcp = pcp;
    if (pcp_rank % pcp != 0) c.pcp_rank = pcp_rank % pcp;
    const bool a_rule = info_v.pcp.dcp_rule == PcpDcpRule::one_or_pcp;
    if (pcp > 1 && c.dcp > 1 && c.dcp != pcp && (a_rule || c.dcp != tp * pcp))
      c.dcp = a_rule || c.dcp % 2 == 0 ? pcp : tp * pcp;
    if (pcp == 1 && tp % c.dcp != 0) tp = c.dcp;
    if (tp != 1) c.tp = tp;
    c.ctx_reuse = reuse != 0;  // 1: reuse, 2: not causal, 3: a sliding window (both: the fallback)
    c.causal = reuse != 2;
    if (reuse == 3) c.sliding_window = 4096;
    if (info_v.pcp.graph_padding && padded > 0) c.padded_num_tokens = padded;
  }
  // The local-shard family's keys from the same bytes (no new field: the schema's layout stays):
  // P >= 2, dcp moved into {P, TP*P} (the dispatch's two paths), and the pcp_rank byte's value
  // (0..15) read as pcp_rows (replicated or each PCP manager version: v % (1 + managers)) and the
  // selected rank (v / (1 + managers) mod P).
  if (info_v.family == &local_shard_family) {
    const std::int64_t P = std::max<std::int64_t>(2, pcp);
    c.pcp = P;
    if (c.dcp != P && c.dcp != tp * P) c.dcp = c.dcp % 2 == 0 || tp == 1 ? P : tp * P;
    if (tp != 1) c.tp = tp;
    const auto& managers = pcp_managers();
    const auto m = static_cast<std::int64_t>(managers.size()) + 1;
    if (pcp_rank % m != 0) {
      c.pcp_rows = managers[static_cast<std::size_t>(pcp_rank % m - 1)];
      const bool a_rule = info(*c.pcp_rows).pcp.dcp_rule == PcpDcpRule::one_or_pcp;
      if (a_rule) c.dcp = P;  // PCP-A's manager accepts dcp = P only
      if ((pcp_rank / m) % P != 0) c.pcp_rank = (pcp_rank / m) % P;
    }
  }

  // The sparse indexer's keys (its other versions take the defaults): rho from DeepSeek V4's
  // ratios, the logits budget from the default (512, unset) and smaller ones.
  key(io, "compress_ratio");
  const std::int64_t rho = pick(io, c.compress_ratio, kCompressRatio, 1, 1024);
  c.compress_ratio = info_v.family == &indexer_family && info_v.indexer.compresses ? rho : 1;
  key(io, "max_logits_mb");
  const std::int64_t mb = pick(io, c.max_logits_mb.value_or(kIndexerDefaultLogitsMb), kLogitsMb, 1, 1 << 20);
  c.max_logits_mb.reset();
  if (info_v.family == &indexer_family && mb != kIndexerDefaultLogitsMb) c.max_logits_mb = mb;

  key(io, "workspace");
  std::int64_t mode = c.workspace ? 2 : 0;
  if (c.workspace && *c.workspace % alignment_unit(c) == 0 &&
      *c.workspace / alignment_unit(c) <= std::max<std::int64_t>(1, L::max_workspace / alignment_unit(c)))
    mode = 1;
  mode = io.range(mode, 0, 2);
  if (mode == 0) {
    key(io, "max_model_len");
    c.max_model_len = pick_log(io, c.max_model_len.value_or(0), kModelLen, 1, L::max_model_len);
    key(io, "max_num_seqs");
    c.max_num_seqs = pick_log(io, c.max_num_seqs.value_or(0), kNumSeqs, 1, L::max_num_seqs);
    c.workspace.reset();
  } else if (mode == 1) {  // a multiple of the alignment unit: inside every sizing's domain
    const std::int64_t unit = alignment_unit(c);
    const std::int64_t k =
        io.range(c.workspace ? *c.workspace / unit : 1, 1, std::max<std::int64_t>(1, L::max_workspace / unit));
    c.workspace = k * unit;
    c.max_model_len.reset();
    c.max_num_seqs.reset();
  } else {
    c.workspace = pick_log(io, c.workspace.value_or(0), kWorkspace, 1, L::max_workspace);
    c.max_model_len.reset();
    c.max_num_seqs.reset();
  }

  key(io, "ctx");
  const auto n = log_scale(io, static_cast<std::int64_t>(c.ctx.size()), 1, L::max_requests);
  c.ctx.resize(static_cast<std::size_t>(n));
  c.q.resize(static_cast<std::size_t>(n));
  std::int64_t left = L::max_total_ctx;
  for (std::size_t i = 0; i < c.ctx.size(); ++i) {
    key(io, "ctx");
    c.ctx[i] = std::min(pick_log(io, c.ctx[i], kCtx, 0, L::max_ctx), left);
    left -= c.ctx[i];
    key(io, "q");
    c.q[i] = pick_log(io, c.q[i], kQ, 1, L::max_q);
  }
}

}  // namespace

Selection Selection::all() {
  Selection s;
  for (const auto& v : all_versions()) s.versions.push_back(v.version);
  s.platforms = {Platform::cuda, Platform::rocm};
  return s;
}

Selection Selection::from_env() {
  Selection s = all();
  auto split = [](std::string_view list) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= list.size()) {
      auto comma = list.find(',', pos);
      if (comma == std::string_view::npos) comma = list.size();
      if (comma > pos) out.emplace_back(list.substr(pos, comma - pos));
      pos = comma + 1;
    }
    return out;
  };
  if (const char* e = std::getenv("CHUNKPROOF_FUZZ_VERSIONS"); e && *e && std::string_view(e) != "all") {
    s.versions.clear();
    for (const auto& n : split(e)) {
      auto v = parse_version(n);
      if (!v) throw CaseError("version", "CHUNKPROOF_FUZZ_VERSIONS: unknown version '" + n + "'");
      s.versions.push_back(*v);
    }
    if (s.versions.empty()) s = all();
  }
  if (const char* e = std::getenv("CHUNKPROOF_FUZZ_PLATFORMS");
      e && *e && std::string_view(e) != "all" && std::string_view(e) != "both") {
    s.platforms.clear();
    for (const auto& n : split(e)) {
      auto p = parse_platform(n);
      if (!p) throw CaseError("platform", "CHUNKPROOF_FUZZ_PLATFORMS: unknown platform '" + n + "'");
      s.platforms.push_back(*p);
    }
    if (s.platforms.empty()) s.platforms = all().platforms;
  }
  if (const char* e = std::getenv("CHUNKPROOF_FUZZ_PINS"); e && *e) parse_pins(e, s.pins);
  return s;
}

Case decode_case(FuzzedDataProvider& fdp, const Selection& sel) {
  Case c;
  decode_case_into(fdp, sel, c);
  return c;
}

void decode_case_into(FuzzedDataProvider& fdp, const Selection& sel, Case& c) {
  // A fresh case that keeps the request vectors' storage (the reader never looks at the old
  // values: they only steer the writer).
  auto ctx = std::move(c.ctx);
  auto q = std::move(c.q);
  c = Case{};
  c.ctx = std::move(ctx);
  c.q = std::move(q);
  Reader r(fdp);
  schema(r, c, sel);
  if (!sel.pins.empty()) apply_pins(sel.pins, c);
  // vLLM's batch order (a no-op, skipped, when every decode already precedes every prefill, as in
  // the cases encode_case wrote). A PCP manager takes the global batch in its input order (PB-2).
  if (!decodes_must_lead(c)) return;
  bool prefill_seen = false;
  for (auto x : c.q) {
    if (x > 1) {
      prefill_seen = true;
    } else if (prefill_seen) {
      order_decodes_first(c);
      break;
    }
  }
}

Case decode_case(const std::uint8_t* data, std::size_t size, const Selection& sel) {
  FuzzedDataProvider fdp(data, size);
  return decode_case(fdp, sel);
}

std::vector<std::uint8_t> encode_case(const Case& c) {
  if (c.ctx.size() != c.q.size() || c.ctx.empty())
    throw CaseError("ctx", "ctx and q must have the same, non-zero length");
  Writer w;
  Case copy = c;
  const Selection sel = Selection::all();
  schema(w, copy, sel);
  auto bytes = w.bytes();
  // Fields the decoder cannot express (numerics keys, a total context over the bound) differ here.
  Case back = decode_case(bytes.data(), bytes.size(), sel);
  back.dims = c.dims;
  back.seed = c.seed;
  if (!(back == c))
    throw CaseError("", "case is outside the fuzz decoder's domain (decodes to '" + print_case(back) + "')");
  return bytes;
}

bool in_sizing_domain(const Case& c) {
  if (!c.workspace) return true;
  const std::int64_t unit = alignment_unit(c);
  return *c.workspace % c.dcp == 0 && *c.workspace >= unit;
}

}  // namespace cp::fuzz
