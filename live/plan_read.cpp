#include "live/plan_read.h"

#include <algorithm>

#include "reference/arith/checked_int.h"
#include "reference/planner/arith.h"
#include "reference/planner/platform.h"

namespace cp::live {
namespace {

// Values past this are refused (schema), so no check ever meets a number it cannot hold.
constexpr std::int64_t kMaxValue = std::int64_t{1} << 40;
constexpr std::int64_t kMaxOverrun = std::int64_t{1} << 26;

// A JSON object being read, with the path of its fields for SchemaError.
struct Reader {
  const Json& o;
  std::string path;

  std::string at(const char* key) const { return path.empty() ? key : path + "." + key; }
  const Json* find(const char* key) const {
    const auto it = o.find(key);
    return it == o.end() || it->is_null() ? nullptr : &*it;
  }
  const Json& need(const char* key) const {
    const Json* v = find(key);
    if (!v) throw SchemaError(at(key), "missing");
    return *v;
  }
  static std::int64_t as_int(const Json& v, const std::string& where, std::int64_t lo = -kMaxValue) {
    if (!v.is_number_integer()) throw SchemaError(where, "not an integer");
    const std::int64_t x = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxValue)
                               ? kMaxValue + 1
                               : v.get<std::int64_t>();
    if (x < lo || x > kMaxValue) throw SchemaError(where, std::to_string(x) + " is out of range");
    return x;
  }
  std::int64_t integer(const char* key, std::int64_t lo = -kMaxValue) const { return as_int(need(key), at(key), lo); }
  std::int64_t integer_or(const char* key, std::int64_t dflt, std::int64_t lo = -kMaxValue) const {
    const Json* v = find(key);
    return v ? as_int(*v, at(key), lo) : dflt;
  }
  bool boolean_or(const char* key, bool dflt) const {
    const Json* v = find(key);
    if (!v) return dflt;
    if (!v->is_boolean()) throw SchemaError(at(key), "not a boolean");
    return v->get<bool>();
  }
  std::string string_or(const char* key, std::string dflt) const {
    const Json* v = find(key);
    if (!v) return dflt;
    if (!v->is_string()) throw SchemaError(at(key), "not a string");
    return v->get<std::string>();
  }
  const Json& array(const char* key) const {
    const Json& v = need(key);
    if (!v.is_array()) throw SchemaError(at(key), "not an array");
    return v;
  }
  std::vector<std::int64_t> ints(const Json& a, const std::string& where, std::int64_t lo = -kMaxValue) const {
    if (!a.is_array()) throw SchemaError(where, "not an array");
    std::vector<std::int64_t> out;
    out.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(as_int(a[i], where + "[" + std::to_string(i) + "]", lo));
    return out;
  }
  std::string index(const char* key, std::size_t i) const { return at(key) + "[" + std::to_string(i) + "]"; }
};

// A field the case fixes (version, geometry): absent, or equal to the case's value.
void same(const Reader& r, const char* key, std::string_view expected) {
  const std::string got = r.string_or(key, std::string(expected));
  if (got != expected) throw SchemaError(r.at(key), "'" + got + "', but the case has '" + std::string(expected) + "'");
}
void same(const Reader& r, const char* key, std::int64_t expected) {
  const std::int64_t got = r.integer_or(key, expected);
  if (got != expected)
    throw SchemaError(r.at(key), std::to_string(got) + ", but the case has " + std::to_string(expected));
}

template <class E, std::size_t N>
E enum_field(const Reader& r, const char* key, E dflt, const E (&all)[N]) {
  const std::string got = r.string_or(key, std::string(name(dflt)));
  for (E e : all)
    if (name(e) == got) return e;
  throw SchemaError(r.at(key), "unknown value '" + got + "'");
}

void read_geometry(const Reader& r, const Case& c, Plan& p) {
  same(r, "version", name(c.version));
  same(r, "platform", name(c.platform));
  same(r, "builder", name(c.builder));
  same(r, "block", p.block);
  same(r, "dcp", p.dcp);
  same(r, "interleave", p.interleave);
  same(r, "virtual_block", p.virtual_block);
  p.merge = enum_field(r, "merge", p.merge, {MergeFlavour::cuda, MergeFlavour::triton});
  p.gather =
      enum_field(r, "gather", p.gather, {GatherKind::page_rounding, GatherKind::token_major, GatherKind::cp_gather});
}

void read_sizing_and_split(const Reader& r, const Case& c, Plan& p) {
  p.workspace = r.integer("workspace", 0);
  p.workspace_rows = r.integer_or("workspace_rows", p.workspace_rows, 0);
  p.sized_from_engine = r.boolean_or("workspace_sized_from_engine", p.sized_from_engine);
  p.num_decodes = static_cast<int>(r.integer_or("num_decodes", p.num_decodes, 0));
  if (const Json* v = r.find("prefills")) {
    p.prefills.clear();
    for (std::int64_t i : r.ints(*v, r.at("prefills"), 0)) {
      if (i >= static_cast<std::int64_t>(batch_of(c, p).ctx.size()))
        throw SchemaError(r.at("prefills"), "request index out of range");
      p.prefills.push_back(static_cast<int>(i));
    }
  }
  p.num_with_context = static_cast<int>(r.integer_or("num_prefills_with_context", p.num_with_context, 0));
  const std::string planner = r.string_or("planner", p.packed ? "packed" : "floor_divide");
  if (planner != "packed" && planner != "floor_divide")
    throw SchemaError(r.at("planner"), "'" + planner + "' is neither 'packed' nor 'floor_divide'");
  p.packed = planner == "packed";
  p.chunk_width = r.integer_or("chunk_width", p.chunk_width);
  p.align = r.integer_or("align", p.align);
  p.local_chunk = r.integer_or("local_chunk", p.local_chunk);
  p.row_budget = r.integer_or("row_budget", p.row_budget);
  p.built = r.boolean_or("plan_built", true);
  if (const Json* v = r.find("local_context_lens")) {
    if (!p.is_dcp()) throw SchemaError(r.at("local_context_lens"), "sent without DCP (dcp=1)");
    if (!v->is_array() || v->size() != p.prefills.size())
      throw SchemaError(r.at("local_context_lens"),
                        "expected one row per prefill (" + std::to_string(p.prefills.size()) + ")");
    p.local_ctx.assign(batch_of(c, p).ctx.size(), {});
    for (std::size_t i = 0; i < v->size(); ++i) {
      auto row = r.ints((*v)[i], r.index("local_context_lens", i), 0);
      if (static_cast<std::int64_t>(row.size()) != p.dcp)
        throw SchemaError(r.index("local_context_lens", i), "expected " + std::to_string(p.dcp) + " ranks");
      p.local_ctx[static_cast<std::size_t>(p.prefills[i])] = std::move(row);
    }
  }
}

ChunkEntry read_entry(const Reader& r, const Case& c, const Plan& p) {
  ChunkEntry e;
  const std::int64_t req = r.integer("request", 0);
  const Batch batch = batch_of(c, p);  // under PCP the chunks index the selected rank's rows
  if (req >= static_cast<std::int64_t>(batch.ctx.size()))
    throw SchemaError(r.at("request"), std::to_string(req) + " is not a request of the " +
                                           (p.pcp ? "rank's rows (" : "case (") + std::to_string(batch.ctx.size()) +
                                           " requests)");
  e.request = static_cast<int>(req);
  e.start = r.integer("start", 0);
  e.len = r.integer("len", 0);
  // A span far past its request's context is refused: the token-level checks would walk it.
  const std::int64_t ctx = batch.ctx[static_cast<std::size_t>(e.request)];
  if (e.start + e.len > ctx + kMaxOverrun)
    throw SchemaError(r.at("len"), "span [" + std::to_string(e.start) + ", +" + std::to_string(e.len) +
                                       ") ends over 2^26 rows past the request's context (" + std::to_string(ctx) +
                                       ")");
  if (!p.is_dcp()) return e;
  e.local_start = r.integer("local_start", 0);
  e.padded_local_len = r.integer("padded_local_len", 0);
  const auto& lc = p.local_ctx[static_cast<std::size_t>(e.request)];
  if (lc.size() != static_cast<std::size_t>(p.dcp))
    throw SchemaError(r.at("request"),
                      "request " + std::to_string(req) + " has no local_context_lens row (not a prefill)");
  if (e.local_start + e.padded_local_len > ctx + kMaxOverrun)
    throw SchemaError(r.at("padded_local_len"), "ends over 2^26 rows past the request's context");
  if (const Json* k = r.find("kept_per_rank")) {
    e.kept = r.ints(*k, r.at("kept_per_rank"), 0);
    if (static_cast<std::int64_t>(e.kept.size()) != p.dcp)
      throw SchemaError(r.at("kept_per_rank"), "expected " + std::to_string(p.dcp) + " ranks");
  } else {
    for (std::int64_t rank = 0; rank < p.dcp; ++rank)
      e.kept.push_back(
          arith::reorg_kept_rows(Int(lc[static_cast<std::size_t>(rank)]), Int(e.local_start), Int(e.padded_local_len))
              .get());
  }
  return e;
}

std::vector<std::int64_t> prefix_sums(const std::vector<ChunkEntry>& es, std::int64_t ChunkEntry::*field) {
  std::vector<std::int64_t> cu{0};
  for (const auto& e : es) cu.push_back((Int(cu.back()) + e.*field).get());
  return cu;
}

Chunk read_chunk(const Reader& r, const Case& c, const Plan& p, std::int64_t& entries_seen) {
  Chunk ch;
  ch.request_start = static_cast<int>(r.integer("request_start", 0));
  ch.request_end = static_cast<int>(r.integer("request_end", 0));
  ch.token_start = r.integer("token_start", 0);
  ch.token_end = r.integer("token_end", 0);
  const auto n = static_cast<int>(batch_of(c, p).ctx.size());
  if (ch.request_start > n || ch.request_end > n)
    throw SchemaError(r.at("request_end"), "request slice past the batch's " + std::to_string(n) + " requests");
  const Json& reqs = r.array("requests");
  if (reqs.empty()) throw SchemaError(r.at("requests"), "a chunk without requests");
  entries_seen += static_cast<std::int64_t>(reqs.size());
  if (entries_seen > kMaxEntries) throw SchemaError(r.at("requests"), "over " + std::to_string(kMaxEntries) + " spans");
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (!reqs[i].is_object()) throw SchemaError(r.index("requests", i), "not an object");
    ch.entries.push_back(read_entry(Reader{reqs[i], r.index("requests", i)}, c, p));
  }
  ch.is_continuation = r.boolean_or("is_continuation", ch.entries.front().start > 0);
  const auto sized = [&](const char* key, std::vector<std::int64_t> dflt) {
    const Json* v = r.find(key);
    if (!v) return dflt;
    auto got = r.ints(*v, r.at(key));
    if (got.size() != ch.entries.size() + 1)
      throw SchemaError(r.at(key), "expected " + std::to_string(ch.entries.size() + 1) + " values (requests + 1)");
    return got;
  };
  ch.cu_seq_lens = sized("cu_seq_lens", prefix_sums(ch.entries, &ChunkEntry::len));
  if (p.is_dcp())
    ch.padded_local_cu = sized("padded_local_cu_seq_lens", prefix_sums(ch.entries, &ChunkEntry::padded_local_len));
  return ch;
}

// `pcp` (PCP family, /4): every rank's rows and what its v6 plan does. Absent: the model's. The
// size, the selected rank and tp are the case's; a rank's fields other than its rows default to
// the model's rank. The selected rank's rows become the batch the chunks index (batch_of).
PcpRank read_pcp_rank(const Reader& r, const Case& c, const PcpRank& dflt) {
  PcpRank rk;
  const Json& rows = r.array("rows");
  if (rows.empty() || rows.size() > static_cast<std::size_t>(kMaxEntries))
    throw SchemaError(r.at("rows"),
                      "expected 1 to " + std::to_string(kMaxEntries) + " rows (an empty rank has the dummy row)");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Reader w{rows[i], r.index("rows", i)};
    if (!w.o.is_object()) throw SchemaError(w.path, "not an object");
    PcpRow row;
    const std::int64_t req = w.integer("request", 0);
    if (req >= static_cast<std::int64_t>(c.ctx.size()))
      throw SchemaError(w.at("request"), std::to_string(req) + " is not a request of the case");
    row.request = static_cast<int>(req);
    row.start = w.integer("start", 0);
    row.len = w.integer("len", 0);
    const std::int64_t end = c.ctx[static_cast<std::size_t>(req)] + c.q[static_cast<std::size_t>(req)];
    if (row.start + row.len > end)
      throw SchemaError(w.at("len"), "row [" + std::to_string(row.start) + ", +" + std::to_string(row.len) +
                                         ") ends past the request's " + std::to_string(end) + " tokens");
    const Json& pf = w.need("prefilling");
    if (!pf.is_boolean()) throw SchemaError(w.at("prefilling"), "not a boolean");
    row.prefilling = pf.get<bool>();
    row.replicated = w.boolean_or("replicated", false);  // absent: inferred by read_pcp
    rk.rows.push_back(row);
  }
  rk.num_decodes = static_cast<int>(r.integer_or("num_decodes", dflt.num_decodes, 0));
  if (rk.num_decodes > static_cast<int>(rk.rows.size())) throw SchemaError(r.at("num_decodes"), "more than the rows");
  rk.context_path = r.boolean_or("context_path", dflt.context_path);
  rk.built = r.boolean_or("plan_built", dflt.built);
  rk.gathered = dflt.gathered;
  if (const Json* g = r.find("gathered")) rk.gathered = r.ints(*g, r.at("gathered"), 0);
  rk.tokens = r.integer_or("tokens", dflt.tokens, 0);
  return rk;
}

// A row sent without "replicated" (an engine's own rows carry no such flag) is replicated when the
// same row (request, start, len) is on every rank: a decode, or PCP-C's unsplit short prefill.
void infer_replicated(const Json& ranks, PcpLayout& L) {
  const auto on_rank = [](const PcpRank& rk, const PcpRow& w) {
    for (const PcpRow& x : rk.rows)
      if (x.request == w.request && x.start == w.start && x.len == w.len) return true;
    return false;
  };
  for (std::size_t i = 0; i < L.ranks.size(); ++i)
    for (std::size_t j = 0; j < L.ranks[i].rows.size(); ++j) {
      if (ranks[i]["rows"][j].contains("replicated")) continue;
      PcpRow& w = L.ranks[i].rows[j];
      w.replicated = L.ranks.size() > 1;
      for (const PcpRank& rk : L.ranks) w.replicated = w.replicated && on_rank(rk, w);
    }
}

void read_pcp(const Reader& r, const Case& c, Plan& p) {
  const Json* v = r.find("pcp");
  if (!p.pcp) {
    if (v) throw SchemaError("pcp", "sent for a case of a family without PCP rows");
    return;
  }
  if (!v) return;  // the model's rows (p.pcp is the model's)
  if (!v->is_object()) throw SchemaError("pcp", "not an object");
  const Reader pr{*v, "pcp"};
  PcpLayout& L = *p.pcp;
  same(pr, "size", L.size);
  same(pr, "rank", std::int64_t{L.rank});
  same(pr, "tp", L.tp);
  const Json& ranks = pr.array("ranks");
  if (static_cast<std::int64_t>(ranks.size()) != L.size)
    throw SchemaError("pcp.ranks", "expected " + std::to_string(L.size) + " ranks");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (!ranks[i].is_object()) throw SchemaError(pr.index("ranks", i), "not an object");
    L.ranks[i] = read_pcp_rank(Reader{ranks[i], pr.index("ranks", i)}, c, L.ranks[i]);
  }
  infer_replicated(ranks, L);
  L.batch_ctx.clear();
  L.batch_q.clear();
  for (const auto& w : L.ranks[static_cast<std::size_t>(L.rank)].rows) {
    L.batch_ctx.push_back(w.start);
    L.batch_q.push_back(w.len);
  }
}

void read_asserts(const Reader& r, Plan& p) {
  const Json* a = r.find("asserts");
  if (!a) return;
  if (!a->is_array()) throw SchemaError(r.at("asserts"), "not an array");
  for (std::size_t i = 0; i < a->size(); ++i) {
    const Reader ar{(*a)[i], r.index("asserts", i)};
    if (!ar.o.is_object()) throw SchemaError(ar.path, "not an object");
    AssertFailure f;
    f.stage = ar.string_or("stage", "plan");
    f.which = ar.string_or("which", "");
    f.detail = ar.string_or("detail", "");
    f.chunk = static_cast<int>(ar.integer_or("chunk", -1, -1));
    const std::string kind = ar.string_or("kind", "assert");
    if (kind != "assert" && kind != "crash")
      throw SchemaError(ar.at("kind"), "'" + kind + "' is neither 'assert' nor 'crash'");
    f.kind = kind == "crash" ? FailureKind::crash : FailureKind::assert_fired;
    p.asserts.push_back(std::move(f));
  }
}

}  // namespace

Plan plan_from_json(const Json& j, const Case& c, const Plan& model) {
  Plan p;
  // Geometry and batch split from the model (defaults); everything the planner decides is read.
  p.version = model.version;
  p.platform = model.platform;
  p.builder = model.builder;
  p.block = model.block;
  p.dcp = model.dcp;
  p.interleave = model.interleave;
  p.virtual_block = model.virtual_block;
  p.merge = model.merge;
  p.gather = model.gather;
  p.workspace_rows = model.workspace_rows;
  p.sized_from_engine = model.sized_from_engine;
  p.num_decodes = model.num_decodes;
  p.prefills = model.prefills;
  p.num_with_context = model.num_with_context;
  p.packed = model.packed;
  p.chunk_width = model.chunk_width;
  p.align = model.align;
  p.local_chunk = model.local_chunk;
  p.row_budget = model.row_budget;
  p.local_ctx = model.local_ctx;
  // Not in the plan schema: the case fixes them (max_logits_mb, compress_ratio, the sizing rule).
  p.logits_budget = model.logits_budget;
  p.compress_ratio = model.compress_ratio;
  p.profile_rows = model.profile_rows;
  p.pcp = model.pcp;
  const Reader r{j, ""};
  read_geometry(r, c, p);
  read_pcp(r, c, p);  // before the split and the chunks: under PCP they index the rows
  read_sizing_and_split(r, c, p);
  const Json& chunks = r.array("chunks");
  if (static_cast<std::int64_t>(chunks.size()) > kMaxChunks)
    throw SchemaError("chunks", "over " + std::to_string(kMaxChunks) + " chunks");
  std::int64_t entries = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (!chunks[i].is_object()) throw SchemaError(r.index("chunks", i), "not an object");
    p.chunks.push_back(read_chunk(Reader{chunks[i], r.index("chunks", i)}, c, p, entries));
  }
  if (const Json* v = r.find("prefill_tokens_with_context"))
    p.prefill_tokens_with_context = Reader::as_int(*v, "prefill_tokens_with_context");
  if (const Json* v = r.find("empty_token_ranges")) {
    if (!v->is_array()) throw SchemaError("empty_token_ranges", "not an array");
    for (std::size_t i = 0; i < v->size(); ++i) {
      const auto pair = r.ints((*v)[i], r.index("empty_token_ranges", i));
      if (pair.size() != 2) throw SchemaError(r.index("empty_token_ranges", i), "expected [start, end]");
      p.empty_token_ranges.emplace_back(pair[0], pair[1]);
    }
  }
  read_asserts(r, p);
  if (const Json* v = r.find("notes"); v && v->is_array())
    for (const auto& n : *v)
      if (n.is_string()) p.notes.push_back(n.get<std::string>());
  return p;
}

}  // namespace cp::live
