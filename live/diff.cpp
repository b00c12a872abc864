#include "live/diff.h"

#include <algorithm>

namespace cp::live {
namespace {

std::string text(std::int64_t v) { return std::to_string(v); }
std::string text(bool v) { return v ? "true" : "false"; }
std::string text(const std::string& s) { return s; }
std::string text(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size() && i < 16; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  if (v.size() > 16) s += ",...(" + std::to_string(v.size()) + ")";
  return s + "]";
}
std::string text(const std::vector<int>& v) { return text(std::vector<std::int64_t>(v.begin(), v.end())); }
std::string text(const std::optional<std::int64_t>& v) { return v ? text(*v) : "null"; }
std::string text(const std::vector<std::pair<std::int64_t, std::int64_t>>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size() && i < 8; ++i)
    s += (i ? "," : "") + ("[" + std::to_string(v[i].first) + "," + std::to_string(v[i].second) + "]");
  if (v.size() > 8) s += ",...(" + std::to_string(v.size()) + ")";
  return s + "]";
}

struct Differ {
  PlanDiff& out;
  std::size_t max;
  template <class T>
  void field(const std::string& f, const T& a, const T& b) {
    if (a == b) return;
    ++out.total;
    if (out.diffs.size() < max) out.diffs.push_back({f, text(a), text(b)});
  }
};

void diff_entry(Differ& d, const std::string& at, const ChunkEntry& a, const ChunkEntry& b, bool dcp) {
  d.field(at + ".request", std::int64_t{a.request}, std::int64_t{b.request});
  d.field(at + ".start", a.start, b.start);
  d.field(at + ".len", a.len, b.len);
  if (!dcp) return;
  d.field(at + ".local_start", a.local_start, b.local_start);
  d.field(at + ".padded_local_len", a.padded_local_len, b.padded_local_len);
  d.field(at + ".kept_per_rank", a.kept, b.kept);
}

void diff_chunk(Differ& d, const std::string& at, const Chunk& a, const Chunk& b, bool dcp) {
  d.field(at + ".request_start", std::int64_t{a.request_start}, std::int64_t{b.request_start});
  d.field(at + ".request_end", std::int64_t{a.request_end}, std::int64_t{b.request_end});
  d.field(at + ".token_start", a.token_start, b.token_start);
  d.field(at + ".token_end", a.token_end, b.token_end);
  d.field(at + ".is_continuation", a.is_continuation, b.is_continuation);
  d.field(at + ".cu_seq_lens", a.cu_seq_lens, b.cu_seq_lens);
  if (dcp) d.field(at + ".padded_local_cu_seq_lens", a.padded_local_cu, b.padded_local_cu);
  d.field(at + ".requests.length", static_cast<std::int64_t>(a.entries.size()),
          static_cast<std::int64_t>(b.entries.size()));
  for (std::size_t i = 0; i < std::min(a.entries.size(), b.entries.size()); ++i)
    diff_entry(d, at + ".requests[" + std::to_string(i) + "]", a.entries[i], b.entries[i], dcp);
}

// PCP (plan.pcp, /4): every rank's rows in the manager's order and what its v6 plan does.
void diff_pcp(Differ& d, const PcpLayout& a, const PcpLayout& b) {
  for (std::size_t r = 0; r < std::min(a.ranks.size(), b.ranks.size()); ++r) {
    const PcpRank &x = a.ranks[r], &y = b.ranks[r];
    const std::string at = "pcp.ranks[" + std::to_string(r) + "]";
    d.field(at + ".rows.length", static_cast<std::int64_t>(x.rows.size()), static_cast<std::int64_t>(y.rows.size()));
    for (std::size_t i = 0; i < std::min(x.rows.size(), y.rows.size()); ++i) {
      const std::string w = at + ".rows[" + std::to_string(i) + "]";
      d.field(w + ".request", std::int64_t{x.rows[i].request}, std::int64_t{y.rows[i].request});
      d.field(w + ".start", x.rows[i].start, y.rows[i].start);
      d.field(w + ".len", x.rows[i].len, y.rows[i].len);
      d.field(w + ".prefilling", x.rows[i].prefilling, y.rows[i].prefilling);
    }
    d.field(at + ".num_decodes", std::int64_t{x.num_decodes}, std::int64_t{y.num_decodes});
    d.field(at + ".context_path", x.context_path, y.context_path);
    d.field(at + ".plan_built", x.built, y.built);
    d.field(at + ".gathered", x.gathered, y.gathered);
    d.field(at + ".tokens", x.tokens, y.tokens);
  }
}

}  // namespace

std::string generic_field(const std::string& field) {
  std::string s;
  bool in_index = false;
  for (char ch : field) {
    if (ch == '[') {
      in_index = true;
      s += "[]";
    } else if (ch == ']') {
      in_index = false;
    } else if (!in_index) {
      s += ch;
    }
  }
  return s;
}

PlanDiff diff_plans(const Plan& a, const Plan& b, std::size_t max) {
  PlanDiff out;
  Differ d{out, max};
  const bool dcp = a.is_dcp();
  if (a.pcp && b.pcp) diff_pcp(d, *a.pcp, *b.pcp);  // first: a row that differs explains the chunks
  d.field("workspace", a.workspace, b.workspace);
  d.field("workspace_rows", a.workspace_rows, b.workspace_rows);
  d.field("num_decodes", std::int64_t{a.num_decodes}, std::int64_t{b.num_decodes});
  d.field("prefills", a.prefills, b.prefills);
  d.field("num_prefills_with_context", std::int64_t{a.num_with_context}, std::int64_t{b.num_with_context});
  d.field("planner", std::string(a.packed ? "packed" : "floor_divide"),
          std::string(b.packed ? "packed" : "floor_divide"));
  d.field("chunk_width", a.chunk_width, b.chunk_width);
  d.field("align", a.align, b.align);
  if (dcp) d.field("local_chunk", a.local_chunk, b.local_chunk);
  d.field("row_budget", a.row_budget, b.row_budget);
  d.field("plan_built", a.built, b.built);
  if (dcp)
    for (int r : a.prefills)
      if (static_cast<std::size_t>(r) < b.local_ctx.size())
        d.field("local_context_lens[" + std::to_string(&r - a.prefills.data()) + "]", a.local_ctx[r], b.local_ctx[r]);
  d.field("chunks.length", static_cast<std::int64_t>(a.chunks.size()), static_cast<std::int64_t>(b.chunks.size()));
  for (std::size_t i = 0; i < std::min(a.chunks.size(), b.chunks.size()); ++i)
    diff_chunk(d, "chunks[" + std::to_string(i) + "]", a.chunks[i], b.chunks[i], dcp);
  d.field("prefill_tokens_with_context", a.prefill_tokens_with_context, b.prefill_tokens_with_context);
  d.field("empty_token_ranges", a.empty_token_ranges, b.empty_token_ranges);
  return out;
}

}  // namespace cp::live
