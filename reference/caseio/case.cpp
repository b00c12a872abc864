#include "reference/caseio/case.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "reference/caseio/suggest.h"

namespace cp {
namespace {

std::int64_t parse_int(const std::string& key, std::string_view s) {
  if (s.empty()) throw CaseError(key, "empty number");
  std::int64_t v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range) throw CaseError(key, "number out of range: '" + std::string(s) + "'");
  if (ec != std::errc() || ptr != last) throw CaseError(key, "not an integer: '" + std::string(s) + "'");
  return v;
}

[[noreturn, gnu::cold, gnu::noinline]] void out_of_range(const char* key, std::int64_t v, std::int64_t lo,
                                                         std::int64_t hi) {
  throw CaseError(
      key, "value " + std::to_string(v) + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}
// The key as a literal and the message built out of line: validate_case runs on every fuzz
// execution (twice per request), where a std::string key would be built on every call.
inline void check_range(const char* key, std::int64_t v, std::int64_t lo, std::int64_t hi) {
  if (v < lo || v > hi) [[unlikely]]
    out_of_range(key, v, lo, hi);
}

std::vector<std::int64_t> parse_list(const std::string& key, std::string_view s) {
  std::vector<std::int64_t> out;
  if (s.empty()) throw CaseError(key, "empty list");
  std::size_t pos = 0;
  while (true) {
    std::size_t comma = s.find(',', pos);
    std::string_view item = s.substr(pos, comma == std::string_view::npos ? s.npos : comma - pos);
    if (item.empty()) throw CaseError(key, "empty entry in list '" + std::string(s) + "'");
    // A repeat: `30000*9` is nine entries of 30000 (the printed form spells them out).
    const std::size_t star = item.find('*');
    std::int64_t copies = 1;
    if (star != std::string_view::npos) {
      copies = parse_int(key, item.substr(star + 1));
      if (copies < 1 || copies > CaseLimits::max_requests)
        throw CaseError(key, "repeat count in '" + std::string(item) + "' out of range [1, " +
                                 std::to_string(CaseLimits::max_requests) + "]");
      item = item.substr(0, star);
    }
    const std::int64_t value = parse_int(key, item);
    if (out.size() + static_cast<std::size_t>(copies) > static_cast<std::size_t>(CaseLimits::max_requests))
      throw CaseError(key, "more than " + std::to_string(CaseLimits::max_requests) + " entries");
    out.insert(out.end(), static_cast<std::size_t>(copies), value);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

// Enum values are matched case-insensitively (`platform=ROCm`); the printed form is lower case.
std::string lowered(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// on | off, case-insensitive (asserts, ctx_reuse, causal).
bool parse_on_off(const std::string& key, const std::string& s) {
  if (lowered(s) == "on") return true;
  if (lowered(s) == "off") return false;
  throw CaseError(key, "expected on or off, got '" + s + "'" + did_you_mean(s, {"on", "off"}));
}

std::vector<std::string> version_names() {
  std::vector<std::string> out;
  for (const auto& v : all_versions()) out.emplace_back(v.name);
  return out;
}

std::string join(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

}  // namespace

std::optional<MlaDims> dims_preset(std::string_view name) {
  if (name == "small") return MlaDims{};
  // DeepSeek-V3: kv_lora_rank 512, rope 64, nope 128, v 128, 128 heads (spec §4).
  if (name == "deepseek-v3") return MlaDims{512, 64, 128, 128, 128, "deepseek-v3"};
  // Kimi-K2: identical MLA dims, 64 heads.
  if (name == "kimi-k2") return MlaDims{512, 64, 128, 128, 64, "kimi-k2"};
  return std::nullopt;
}

const std::vector<CaseKey>& case_keys() {
  static const std::vector<CaseKey> keys{
      {"version", "planner version (see `chunkproof versions`), required"},
      {"platform", "cuda | rocm: selects aot_schedule / align_chunk_to_block (default cuda)"},
      {"builder", "dense | sparse: the MLA metadata builder (#46114; default dense, what DeepSeek-V2/V3 run)"},
      {"workspace", "workspace rows S, used as is (or give max_model_len and max_num_seqs)"},
      {"max_model_len", "engine max_model_len; with max_num_seqs the version sizes S"},
      {"max_num_seqs", "engine max_num_seqs"},
      {"block", "KV page size B, required"},
      {"dcp", "decode-context-parallel world size W (default 1)"},
      {"interleave", "DCP interleave I, must divide block (default 1)"},
      {"compress_ratio", "sparse indexer only: the indexer's compress ratio rho (DeepSeek V4: 4; default 1)"},
      {"max_logits_mb", "sparse indexer only: VLLM_SPARSE_INDEXER_MAX_LOGITS_MB, the logits budget (default 512)"},
      {"pcp", "PCP and local-shard families only: prefill context parallel size P, required there"},
      {"pcp_rank", "PCP family only: the rank whose v6 plan is shown and checked (default 0; P- checks see all)"},
      {"tp", "PCP and local-shard families: tensor parallel size, for the rule dcp in {1, pcp, tp*pcp} (default 1)"},
      {"prefilling", "PCP family only: is_prefilling per request, 0/1 (default: decode iff q <= 1 and ctx > 0)"},
      {"pcp_rows",
       "local-shard family only: replicated (every DCP rank sees the batch, default) or a PCP manager "
       "version (pcp-a, pcp-b, pcp-c) whose rank-local rows each rank's builder sees"},
      {"mla_pcp_path",
       "local-shard family only: local_shard (needs dcp = pcp) | gather_reorg (needs dcp = tp*pcp, "
       "tp > 1); default: what the dispatch dcp_tp_size = dcp / pcp picks"},
      {"ctx_reuse", "PCP family only: on | off, #57668's context reuse over a rank's adjacent rows (default off)"},
      {"causal", "PCP family, ctx_reuse only: on | off, metadata.causal (off: no reuse, v6 per row; default on)"},
      {"sliding_window", "PCP family, ctx_reuse only: the model's sliding window (set: no reuse; default none)"},
      {"padded_num_tokens", "pcp-b/pcp-c only: CUDA-graph token count every rank is padded to (default max T_r)"},
      {"ctx", "comma-separated context lengths, one per request (V*N: N requests of V), required"},
      {"q", "comma-separated new-token counts, one per request (V*N repeats), required"},
      {"asserts", "on | off: off models python -O (asserts stripped; default on)"},
      {"dims", "small | deepseek-v3 | kimi-k2: MLA shape preset for numerics (default small)"},
      {"heads", "number of attention heads (overrides the preset)"},
      {"kv_lora_rank", "latent width L (overrides the preset)"},
      {"rope_dim", "rope dim (overrides the preset)"},
      {"nope_dim", "nope dim (overrides the preset)"},
      {"v_dim", "value dim (overrides the preset)"},
      {"seed", "seed of the numerics inputs (default 1)"},
  };
  return keys;
}

namespace {
// The PCP family's keys (vllm-pcp-and-sparse.md §1.6, §7): P, the rank, TP, is_prefilling, and
// ParallelConfig's DCP rule (Q6: P > 1 => dcp in {1, P, TP*P}; PCP-A's manager: dcp in {1, P}).
void validate_local_shard(const Case& c, const VersionInfo& vi);

void validate_pcp(const Case& c, const VersionInfo& vi) {
  if (vi.family == &local_shard_family) return validate_local_shard(c, vi);
  for (auto [key, given] :
       {std::pair{"pcp_rows", c.pcp_rows.has_value()}, std::pair{"mla_pcp_path", c.mla_pcp_path.has_value()}})
    if (given)
      throw CaseError(key, "a key of the local-shard family (pcp-local-shard), not of " + std::string(vi.name));
  if (vi.family != &pcp_family) {
    for (auto [key, given] : {std::pair{"pcp", c.pcp.has_value()}, std::pair{"pcp_rank", c.pcp_rank.has_value()},
                              std::pair{"tp", c.tp.has_value()}, std::pair{"prefilling", !c.prefilling.empty()},
                              std::pair{"ctx_reuse", c.ctx_reuse}, std::pair{"causal", !c.causal},
                              std::pair{"sliding_window", c.sliding_window.has_value()},
                              std::pair{"padded_num_tokens", c.padded_num_tokens.has_value()}})
      if (given)
        throw CaseError(key,
                        std::string("a key of the pcp family (pcp-a, pcp-b, pcp-c), not of ") + std::string(vi.name));
    return;
  }
  if (!c.pcp) throw CaseError("pcp", "missing: " + std::string(vi.name) + " needs the PCP world size P");
  check_range("pcp", *c.pcp, 1, CaseLimits::max_pcp);
  if (c.pcp_rank) check_range("pcp_rank", *c.pcp_rank, 0, *c.pcp - 1);
  const std::int64_t tp = c.tp.value_or(1);
  if (c.tp) check_range("tp", tp, 1, CaseLimits::max_tp);
  const std::int64_t P = *c.pcp;
  if (P > 1 && c.dcp > 1) {
    const bool a_rule = vi.pcp.dcp_rule == PcpDcpRule::one_or_pcp;
    if (a_rule ? c.dcp != P : (c.dcp != P && c.dcp != tp * P))
      throw CaseError("dcp", "dcp=" + std::to_string(c.dcp) + " with pcp=" + std::to_string(P) +
                                 " tp=" + std::to_string(tp) + ": " + std::string(vi.name) + " accepts " +
                                 std::string(name(vi.pcp.dcp_rule)) +
                                 (a_rule ? " (PCPManager: decode context parallel must equal PCP)"
                                         : " (ParallelConfig: DCP must be equal to PCP or TP x PCP)"));
  }
  if (!c.ctx_reuse)
    for (auto [key, given] :
         {std::pair{"causal", !c.causal}, std::pair{"sliding_window", c.sliding_window.has_value()}})
      if (given) throw CaseError(key, "a condition of ctx_reuse's fallback (§2.2): give it with ctx_reuse=on");
  if (c.sliding_window) check_range("sliding_window", *c.sliding_window, 1, CaseLimits::max_model_len);
  if (c.padded_num_tokens) {
    if (!vi.pcp.graph_padding)
      throw CaseError("padded_num_tokens", std::string(vi.name) +
                                               "'s manager takes no CUDA-graph token count "
                                               "(pcp-b and pcp-c do: vLLM 07e1fce5's test, Q4)");
    check_range("padded_num_tokens", *c.padded_num_tokens, 0, CaseLimits::max_workspace);
  }
  if (P == 1 && tp % c.dcp != 0)
    throw CaseError("dcp", "dcp=" + std::to_string(c.dcp) + " must divide tp=" + std::to_string(tp) +
                               " when pcp=1 (ParallelConfig)");
  if (!c.prefilling.empty()) {
    if (c.prefilling.size() != c.ctx.size())
      throw CaseError("prefilling", "has " + std::to_string(c.prefilling.size()) + " entries but ctx has " +
                                        std::to_string(c.ctx.size()));
    for (std::size_t i = 0; i < c.prefilling.size(); ++i) {
      check_range("prefilling", c.prefilling[i], 0, 1);
      if (c.prefilling[i] == 0 && c.ctx[i] == 0)
        throw CaseError("prefilling",
                        "request " + std::to_string(i) +
                            " has ctx=0, so nothing of it is computed: it is prefilling (1), not a decode");
    }
  }
}

// The local-shard family's keys (vllm-pcp-and-sparse.md §3.1, §7): P >= 2, TP, and the dispatch's
// domain: mla_pcp.py runs under DCP only, with dcp in {P, TP*P} (ParallelConfig, Q6); dcp / pcp
// picks the path (dcp_tp_size). pcp_rows names a PCP manager whose own rules then apply too.
void validate_local_shard(const Case& c, const VersionInfo& vi) {
  if (!c.pcp) throw CaseError("pcp", "missing: " + std::string(vi.name) + " needs the PCP world size P");
  check_range("pcp", *c.pcp, 2, CaseLimits::max_pcp);
  const std::int64_t tp = c.tp.value_or(1), P = *c.pcp;
  if (c.tp) check_range("tp", tp, 1, CaseLimits::max_tp);
  if (c.dcp != P && c.dcp != tp * P)
    throw CaseError("dcp", "dcp=" + std::to_string(c.dcp) + " with pcp=" + std::to_string(P) +
                               " tp=" + std::to_string(tp) + ": " + std::string(vi.name) +
                               " runs under DCP with dcp in {pcp, tp*pcp} (ParallelConfig: DCP must be equal to PCP "
                               "or TP x PCP; mla_pcp.py is the DCP context path)");
  const LocalShardPath path = steps::local_shard_path(c.dcp, P);
  if (c.mla_pcp_path && *c.mla_pcp_path != path)
    throw CaseError("mla_pcp_path",
                    std::string(name(*c.mla_pcp_path)) + " needs " +
                        (*c.mla_pcp_path == LocalShardPath::local_shard ? "dcp = pcp" : "dcp = tp*pcp with tp > 1") +
                        " (the dispatch takes dcp_tp_size = dcp / pcp = " + std::to_string(c.dcp / P) + ": " +
                        std::string(name(path)) + ")");
  if (c.pcp_rank && !c.pcp_rows)
    throw CaseError("pcp_rank", "selects a rank's rows: give pcp_rows (replicated rows are every rank's)");
  if (c.pcp_rank) check_range("pcp_rank", *c.pcp_rank, 0, P - 1);
  if (!c.prefilling.empty() && !c.pcp_rows)
    throw CaseError("prefilling", "is_prefilling feeds a PCP manager's rows: give pcp_rows");
  if (c.pcp_rows) {  // the manager's own rules (its dcp rule, prefilling) on the same keys
    Case pc = c;
    pc.version = *c.pcp_rows;
    pc.pcp_rows.reset();
    pc.mla_pcp_path.reset();
    validate_pcp(pc, info(pc.version));
  }
}

void check_decodes_lead(const Case& c) {
  std::size_t i = 0;
  while (i < c.q.size() && c.q[i] <= 1) ++i;
  for (std::size_t j = i; j < c.q.size(); ++j)
    if (c.q[j] <= 1) {
      Case o = c;
      order_decodes_first(o);
      throw CaseError("q", "request " + std::to_string(j) + " has q=" + std::to_string(c.q[j]) +
                               " (a decode) after prefill request " + std::to_string(i) +
                               "; vLLM moves decodes to the front before planning (reorder_batch): write the "
                               "batch as ctx=" +
                               join(o.ctx) + " q=" + join(o.q));
    }
}
}  // namespace

void validate_case(const Case& c) {
  if (!dims_preset(c.dims.preset)) throw CaseError("dims", "unknown preset '" + c.dims.preset + "'");
  if (c.workspace && (c.max_model_len || c.max_num_seqs))
    throw CaseError("workspace", "give either workspace or max_model_len+max_num_seqs, not both");
  if (!c.workspace && !(c.max_model_len && c.max_num_seqs)) {
    if (c.max_model_len) throw CaseError("max_num_seqs", "missing (needed with max_model_len)");
    if (c.max_num_seqs) throw CaseError("max_model_len", "missing (needed with max_num_seqs)");
    throw CaseError("workspace", "missing (or give max_model_len and max_num_seqs)");
  }
  if (c.workspace) check_range("workspace", *c.workspace, 1, CaseLimits::max_workspace);
  if (c.max_model_len) check_range("max_model_len", *c.max_model_len, 1, CaseLimits::max_model_len);
  if (c.max_num_seqs) check_range("max_num_seqs", *c.max_num_seqs, 1, CaseLimits::max_num_seqs);
  check_range("block", c.block, 1, CaseLimits::max_block);
  check_range("dcp", c.dcp, 1, CaseLimits::max_dcp);
  check_range("interleave", c.interleave, 1, c.block);
  // I-11: the slot mapping decomposes pos // (B*W) into whole interleave groups only if I | B.
  if (c.block % c.interleave != 0)
    throw CaseError("interleave",
                    "interleave " + std::to_string(c.interleave) + " does not divide block " + std::to_string(c.block));
  const VersionInfo& vi = info(c.version);
  if (!vi.supports_dcp && c.dcp != 1)
    throw CaseError("dcp", std::string(vi.name) + " has no DCP support: dcp must be 1");
  if (!vi.supports_interleave && c.interleave != 1)
    throw CaseError("interleave", std::string(vi.name) + " predates interleave: interleave must be 1");
  check_range("compress_ratio", c.compress_ratio, 1, CaseLimits::max_block);
  if (c.max_logits_mb) check_range("max_logits_mb", *c.max_logits_mb, 1, std::int64_t{1} << 20);
  if (vi.family != &indexer_family) {
    if (c.compress_ratio != 1)
      throw CaseError("compress_ratio",
                      "a key of the sparse-indexer family (indexer-dsv4), not of " + std::string(vi.name));
    if (c.max_logits_mb)
      throw CaseError("max_logits_mb", "a key of the sparse-indexer family (indexer-dsv32, indexer-dsv4), not of " +
                                           std::string(vi.name));
  }
  if (c.ctx.empty()) throw CaseError("ctx", "missing");
  if (c.q.empty()) throw CaseError("q", "missing");
  if (c.ctx.size() != c.q.size())
    throw CaseError("q", "has " + std::to_string(c.q.size()) + " entries but ctx has " + std::to_string(c.ctx.size()));
  if (c.ctx.size() > static_cast<std::size_t>(CaseLimits::max_requests))
    throw CaseError("ctx", "more than " + std::to_string(CaseLimits::max_requests) + " requests");
  std::int64_t total = 0;
  for (auto v : c.ctx) {
    check_range("ctx", v, 0, CaseLimits::max_ctx);
    total += v;
    if (total > CaseLimits::max_total_ctx)
      throw CaseError("ctx", "total context over " + std::to_string(CaseLimits::max_total_ctx) +
                                 " tokens (the token-level simulation would not fit)");
  }
  for (auto v : c.q) check_range("q", v, 1, CaseLimits::max_q);
  validate_pcp(c, vi);
  // A PCP manager partitions the global batch in its input order (PCP-B keeps it: PB-2).
  if (decodes_must_lead(c)) check_decodes_lead(c);
  check_range("heads", c.dims.heads, 1, CaseLimits::max_heads);
  check_range("kv_lora_rank", c.dims.kv_lora_rank, 1, CaseLimits::max_dim);
  check_range("rope_dim", c.dims.rope_dim, 0, CaseLimits::max_dim);
  check_range("nope_dim", c.dims.nope_dim, 1, CaseLimits::max_dim);
  check_range("v_dim", c.dims.v_dim, 1, CaseLimits::max_dim);
}

bool decodes_must_lead(const Case& c) {
  const VersionInfo& vi = info(c.version);
  return !vi.family->partitions_global_batch || (vi.family == &local_shard_family && !c.pcp_rows);
}

void order_decodes_first(Case& c) {
  std::vector<std::size_t> decodes, prefills;
  for (std::size_t i = 0; i < c.q.size(); ++i) (c.q[i] <= 1 ? decodes : prefills).push_back(i);
  const std::size_t nd = decodes.size(), np = prefills.size();
  std::size_t first_prefill = 0;
  for (std::size_t i = 1; i <= std::min(nd, np); ++i) {
    const std::size_t d = decodes[nd - i];
    if (d < nd) break;  // every decode from here on is already in the decode region
    const std::size_t p = prefills[first_prefill++];
    std::swap(c.ctx[p], c.ctx[d]);
    std::swap(c.q[p], c.q[d]);
  }
}

Case parse_case(std::string_view line) {
  Case c;
  std::map<std::string, std::string> kv;
  std::vector<std::string> order;
  std::istringstream in{std::string(line)};
  std::string word;
  std::set<std::string> known;
  for (const auto& k : case_keys()) known.insert(std::string(k.key));
  while (in >> word) {
    auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) throw CaseError("", "expected key=value, got '" + word + "'");
    std::string key = word.substr(0, eq);
    if (!known.count(key))
      throw CaseError(
          key, "unknown key" + did_you_mean(key, {known.begin(), known.end()}) + " (see `chunkproof plan --help`)");
    if (kv.count(key)) throw CaseError(key, "given twice");
    kv[key] = word.substr(eq + 1);
    if (kv[key].empty()) throw CaseError(key, "empty value");
  }
  if (kv.empty()) throw CaseError("", "empty case line");

  auto take = [&](const char* k) -> std::optional<std::string> {
    auto it = kv.find(k);
    if (it == kv.end()) return std::nullopt;
    return it->second;
  };
  auto v = take("version");
  if (!v) throw CaseError("version", "missing");
  auto ver = parse_version(lowered(*v));
  if (!ver)
    throw CaseError(
        "version", "unknown version '" + *v + "'" + did_you_mean(*v, version_names()) + " (see `chunkproof versions`)");
  c.version = *ver;
  if (auto p = take("platform")) {
    auto pl = parse_platform(lowered(*p));
    if (!pl)
      throw CaseError("platform", "expected cuda or rocm, got '" + *p + "'" + did_you_mean(*p, {"cuda", "rocm"}));
    c.platform = *pl;
  }
  if (auto bd = take("builder")) {
    auto b = parse_builder(lowered(*bd));
    if (!b)
      throw CaseError("builder",
                      "expected dense or sparse, got '" + *bd + "'" + did_you_mean(*bd, {"dense", "sparse"}));
    c.builder = *b;
  }
  if (auto s = take("workspace")) c.workspace = parse_int("workspace", *s);
  if (auto s = take("max_model_len")) c.max_model_len = parse_int("max_model_len", *s);
  if (auto s = take("max_num_seqs")) c.max_num_seqs = parse_int("max_num_seqs", *s);
  auto b = take("block");
  if (!b) throw CaseError("block", "missing");
  c.block = parse_int("block", *b);
  if (auto s = take("dcp")) c.dcp = parse_int("dcp", *s);
  if (auto s = take("interleave")) c.interleave = parse_int("interleave", *s);
  if (auto s = take("compress_ratio")) c.compress_ratio = parse_int("compress_ratio", *s);
  if (auto s = take("max_logits_mb")) c.max_logits_mb = parse_int("max_logits_mb", *s);
  if (auto s = take("pcp")) c.pcp = parse_int("pcp", *s);
  if (auto s = take("pcp_rank")) c.pcp_rank = parse_int("pcp_rank", *s);
  if (auto s = take("tp")) c.tp = parse_int("tp", *s);
  if (auto s = take("prefilling")) c.prefilling = parse_list("prefilling", *s);
  if (auto s = take("pcp_rows")) {
    std::vector<std::string> names{"replicated"};
    for (const VersionInfo& row : all_versions())
      if (row.family == &pcp_family) names.emplace_back(row.name);
    const auto pv = parse_version(lowered(*s));
    if (pv && info(*pv).family == &pcp_family)
      c.pcp_rows = *pv;
    else if (lowered(*s) != "replicated")
      throw CaseError("pcp_rows",
                      "expected replicated or a PCP manager version, got '" + *s + "'" + did_you_mean(*s, names));
  }
  if (auto s = take("mla_pcp_path")) {
    std::vector<std::string> names;
    for (LocalShardPath p : kLocalShardPaths) names.emplace_back(name(p));
    for (LocalShardPath p : kLocalShardPaths)
      if (lowered(*s) == name(p)) c.mla_pcp_path = p;
    if (!c.mla_pcp_path)
      throw CaseError("mla_pcp_path",
                      "expected local_shard or gather_reorg, got '" + *s + "'" + did_you_mean(*s, names));
  }
  if (auto s = take("ctx_reuse")) c.ctx_reuse = parse_on_off("ctx_reuse", *s);
  if (auto s = take("causal")) c.causal = parse_on_off("causal", *s);
  if (auto s = take("sliding_window")) c.sliding_window = parse_int("sliding_window", *s);
  if (auto s = take("padded_num_tokens")) c.padded_num_tokens = parse_int("padded_num_tokens", *s);
  if (auto s = take("ctx")) c.ctx = parse_list("ctx", *s);
  if (auto s = take("q")) c.q = parse_list("q", *s);
  if (auto s = take("asserts")) c.asserts = parse_on_off("asserts", *s);
  if (auto s = take("dims")) {
    auto d = dims_preset(lowered(*s));
    if (!d)
      throw CaseError("dims", "expected small, deepseek-v3 or kimi-k2, got '" + *s + "'" +
                                  did_you_mean(*s, {"small", "deepseek-v3", "kimi-k2"}));
    c.dims = *d;
  }
  if (auto s = take("heads")) c.dims.heads = parse_int("heads", *s);
  if (auto s = take("kv_lora_rank")) c.dims.kv_lora_rank = parse_int("kv_lora_rank", *s);
  if (auto s = take("rope_dim")) c.dims.rope_dim = parse_int("rope_dim", *s);
  if (auto s = take("nope_dim")) c.dims.nope_dim = parse_int("nope_dim", *s);
  if (auto s = take("v_dim")) c.dims.v_dim = parse_int("v_dim", *s);
  if (auto s = take("seed")) {
    std::uint64_t sd = 0;
    auto [ptr, ec] = std::from_chars(s->data(), s->data() + s->size(), sd);
    if (ec != std::errc() || ptr != s->data() + s->size())
      throw CaseError("seed", "not an unsigned integer: '" + *s + "'");
    c.seed = sd;
  }
  validate_case(c);
  return c;
}

std::string print_case(const Case& c) {
  std::string s = "version=" + std::string(name(c.version)) + " platform=" + std::string(name(c.platform));
  if (c.builder != Builder::dense) s += " builder=" + std::string(name(c.builder));
  if (c.workspace) s += " workspace=" + std::to_string(*c.workspace);
  if (c.max_model_len) s += " max_model_len=" + std::to_string(*c.max_model_len);
  if (c.max_num_seqs) s += " max_num_seqs=" + std::to_string(*c.max_num_seqs);
  s += " block=" + std::to_string(c.block) + " dcp=" + std::to_string(c.dcp) +
       " interleave=" + std::to_string(c.interleave);
  if (c.compress_ratio != 1) s += " compress_ratio=" + std::to_string(c.compress_ratio);
  if (c.max_logits_mb) s += " max_logits_mb=" + std::to_string(*c.max_logits_mb);
  if (c.pcp) s += " pcp=" + std::to_string(*c.pcp);
  if (c.pcp_rank) s += " pcp_rank=" + std::to_string(*c.pcp_rank);
  if (c.tp) s += " tp=" + std::to_string(*c.tp);
  if (!c.prefilling.empty()) s += " prefilling=" + join(c.prefilling);
  if (c.pcp_rows) s += " pcp_rows=" + std::string(name(*c.pcp_rows));
  if (c.mla_pcp_path) s += " mla_pcp_path=" + std::string(name(*c.mla_pcp_path));
  if (c.ctx_reuse) s += " ctx_reuse=on";
  if (!c.causal) s += " causal=off";
  if (c.sliding_window) s += " sliding_window=" + std::to_string(*c.sliding_window);
  if (c.padded_num_tokens) s += " padded_num_tokens=" + std::to_string(*c.padded_num_tokens);
  s += " ctx=" + join(c.ctx) + " q=" + join(c.q);
  if (!c.asserts) s += " asserts=off";
  const MlaDims preset = *dims_preset(c.dims.preset);
  if (c.dims.preset != "small") s += " dims=" + c.dims.preset;
  if (c.dims.heads != preset.heads) s += " heads=" + std::to_string(c.dims.heads);
  if (c.dims.kv_lora_rank != preset.kv_lora_rank) s += " kv_lora_rank=" + std::to_string(c.dims.kv_lora_rank);
  if (c.dims.rope_dim != preset.rope_dim) s += " rope_dim=" + std::to_string(c.dims.rope_dim);
  if (c.dims.nope_dim != preset.nope_dim) s += " nope_dim=" + std::to_string(c.dims.nope_dim);
  if (c.dims.v_dim != preset.v_dim) s += " v_dim=" + std::to_string(c.dims.v_dim);
  if (c.seed != 1) s += " seed=" + std::to_string(c.seed);
  return s;
}

}  // namespace cp
