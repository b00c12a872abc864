#include "tools/chunkproof/report.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace cp::cli {
namespace {

std::string join(const std::vector<std::int64_t>& v, std::size_t max = 16) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  if (v.size() > max) s += ",...(" + std::to_string(v.size()) + ")";
  return s;
}

}  // namespace

std::string describe(const Violation& v) {
  std::ostringstream os;
  std::string where;
  if (v.chunk >= 0) where += "chunk " + std::to_string(v.chunk) + " ";
  if (v.request >= 0) where += "request " + std::to_string(v.request) + " ";
  if (v.rank >= 0) where += "rank " + std::to_string(v.rank) + " ";
  if (v.row >= 0) where += "row " + std::to_string(v.row) + " ";
  if (!where.empty()) os << where << ": ";
  os << "expected " << v.expected << ", got " << v.got;
  if (!v.reason.empty()) os << " — " << v.reason;
  return os.str();
}

std::string one_line_verdict(const Evaluation& ev) {
  if (ev.outcome == Outcome::crashed) {
    for (const auto& a : ev.plan.asserts)
      if (a.kind == FailureKind::crash) return "crashed: " + a.which + " (" + a.detail + ")";
  }
  if (ev.outcome == Outcome::assert_fired) {
    const auto& a = *ev.first_assert();
    return "assert fired: " + a.which + " (" + a.detail + (a.chunk >= 0 ? ", chunk " + std::to_string(a.chunk) : "") +
           ")";
  }
  if (ev.outcome == Outcome::violation) {
    std::string s = "violation:";
    for (const auto& r : ev.results)
      if (r.verdict == Verdict::violated) s += " " + std::string(info(r.id).tag);
    return s;
  }
  return "ok: every invariant holds";
}

std::string summary_line(const Evaluation& ev, const std::string& id, const std::string& extra) {
  std::string violated;
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) violated += (violated.empty() ? "" : ",") + std::string(info(r.id).tag);
  std::string s = std::string(name(ev.c.version));
  s += std::string(s.size() < 14 ? 14 - s.size() : 1, ' ');
  s += id + "  " + std::string(name(ev.outcome)) + "  violated=" + (violated.empty() ? "none" : violated);
  s += "  assert=";
  if (const AssertFailure* a = ev.first_assert())
    s += a->which + " (" + a->detail + ")";
  else
    s += "none";
  if (!extra.empty()) s += "  " + extra;
  return s;
}

void print_plan_text(std::ostream& os, const Evaluation& ev, std::size_t max_rows) {
  const Case& c = ev.c;
  const Plan& p = ev.plan;
  const bool dcp = c.dcp > 1;
  os << "case      " << print_case(c) << "\n";
  os << "version   " << name(c.version) << " — " << info(c.version).summary << "\n";
  os << "workspace S=" << p.workspace << " rows";
  if (p.sized_from_engine)
    os << " (sized by " << name(c.version) << " from max_model_len=" << *c.max_model_len
       << ", max_num_seqs=" << *c.max_num_seqs << ")";
  else
    os << " (explicit)";
  os << "; allocated R=" << p.workspace_rows << " rows\n";
  os << "batch     " << p.prefills.size() << " prefill(s), " << p.num_with_context << " with context, " << p.num_decodes
     << " decode(s)\n";
  for (const auto& n : p.notes) os << "note      " << n << "\n";
  const FamilyInfo& fam = *p.version_info().family;
  if (&fam != &packed_family && &fam != &floor_divide_family)
    os << "planner   " << fam.name << ": " << fam.summary << "\n";
  else if (p.packed)
    os << "planner   packed: align=" << p.align << ", Mmax=" << p.chunk_width << ", row budget=" << p.row_budget
       << (dcp ? " local rows/rank" : " rows") << "\n";
  else
    os << "planner   floor-divide: M=" << p.chunk_width << " (S // n rounded to " << p.align << ")"
       << (dcp ? ", local chunk PL=" + std::to_string(p.local_chunk) : "") << "\n";
  os << "gather    " << name(p.gather) << "\n";
  if (dcp) {
    os << "dcp       W=" << c.dcp << " I=" << c.interleave << " V=" << c.dcp * c.interleave
       << ", local context lengths per rank:\n";
    const Batch b = batch_of(c, p);  // under PCP: the rank's rows
    for (int r : p.prefills)
      os << "            request " << r << " (ctx " << b.ctx[static_cast<std::size_t>(r)] << "): ["
         << join(p.local_ctx[static_cast<std::size_t>(r)]) << "]\n";
  }
  // Chunk table, summarised when large.
  std::size_t rows = 0;
  for (const auto& ch : p.chunks) rows += ch.entries.size();
  os << "chunks    " << p.chunks.size() << " chunk(s), " << rows << " span(s)";
  if (rows > max_rows) os << " (showing the first " << max_rows - 4 << " and the last 4)";
  os << "\n";
  if (!p.chunks.empty()) {
    os << "  chunk  req        start          len";
    if (dcp) os << "  local_start  padded_local  kept per rank";
    os << "\n";
    std::size_t k = 0;
    for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
      const auto& ch = p.chunks[ci];
      for (const auto& e : ch.entries) {
        const bool show = rows <= max_rows || k < max_rows - 4 || k >= rows - 4;
        if (rows > max_rows && k == max_rows - 4) os << "  ...\n";
        ++k;
        if (!show) continue;
        os << "  " << std::setw(5) << ci << "  " << std::setw(3) << e.request << "  " << std::setw(11) << e.start
           << "  " << std::setw(11) << e.len;
        if (dcp)
          os << "  " << std::setw(11) << e.local_start << "  " << std::setw(12) << e.padded_local_len << "  ["
             << join(e.kept) << "]";
        if (&e == &ch.entries.front())
          os << "  requests [" << ch.request_start << "," << ch.request_end << ") tokens [" << ch.token_start << ","
             << ch.token_end << ")" << (ch.is_continuation ? " (continuation)" : "");
        os << "\n";
      }
    }
    os << "  per chunk: total rows";
    if (dcp) os << " / local rows (toks)";
    os << ":";
    for (std::size_t ci = 0; ci < p.chunks.size() && ci < 16; ++ci) {
      os << " " << p.chunks[ci].total_tokens();
      if (dcp) os << "/" << p.chunks[ci].local_tokens();
    }
    if (p.chunks.size() > 16) os << " ...";
    os << "\n";
  }
  if (p.prefill_tokens_with_context)
    os << "merge     prefill_tokens_with_context=" << *p.prefill_tokens_with_context << "\n";
  if (!p.asserts.empty()) {
    os << "asserts   " << p.asserts.size() << " assert(s) of " << name(c.version)
       << (c.asserts ? " fire:" : " would fire (asserts=off: the run continues silently):") << "\n";
    for (std::size_t i = 0; i < p.asserts.size() && i < 8; ++i) {
      const auto& a = p.asserts[i];
      os << "            [" << a.stage << (a.chunk >= 0 ? " chunk " + std::to_string(a.chunk) : "") << "] assert "
         << a.which << "  (" << a.detail << ")\n";
    }
    if (p.asserts.size() > 8) os << "            ... " << p.asserts.size() - 8 << " more\n";
  }
  os << "invariants\n";
  for (const auto& r : ev.results) {
    const auto& inf = info(r.id);
    os << "  " << std::left << std::setw(5) << inf.tag << std::setw(30) << inf.name << std::setw(14) << name(r.verdict)
       << std::right;
    if (r.verdict == Verdict::violated) {
      os << r.total_violations << " violation(s)\n";
      for (const auto& v : r.violations) os << "        - " << describe(v) << "\n";
      if (r.total_violations > static_cast<std::int64_t>(r.violations.size()))
        os << "        - ... " << r.total_violations - static_cast<std::int64_t>(r.violations.size()) << " more\n";
    } else {
      os << r.note << "\n";
    }
  }
  os << "outcome   " << one_line_verdict(ev) << "\n";
}

// "none" (-1 in the structs) is null in JSON (chunkproof.plan/3).
Json index_or_null(std::int64_t i) { return i < 0 ? Json(nullptr) : Json(i); }

// Plan::pcp (families/pcp/rows.h): every rank's rows and what its v6 plan over them does.
Json pcp_json(const PcpLayout& L) {
  Json j{{"size", L.size}, {"rank", L.rank}, {"tp", L.tp}, {"ranks", Json::array()}};
  for (const auto& rk : L.ranks) {
    Json rows = Json::array();
    for (const auto& w : rk.rows)
      rows.push_back(Json{{"request", w.request},
                          {"start", w.start},
                          {"len", w.len},
                          {"prefilling", w.prefilling},
                          {"replicated", w.replicated}});
    j["ranks"].push_back(Json{{"rows", std::move(rows)},
                              {"num_decodes", rk.num_decodes},
                              {"context_path", rk.context_path},
                              {"plan_built", rk.built},
                              {"gathered", rk.gathered},
                              {"tokens", rk.tokens}});
  }
  return j;
}

Json plan_json(const Evaluation& ev) {
  const Case& c = ev.c;
  const Plan& p = ev.plan;
  Json j;
  j["schema"] = kPlanSchema;
  j["case"] = print_case(c);
  j["version"] = name(c.version);
  j["platform"] = name(c.platform);
  j["builder"] = name(p.builder);
  j["block"] = p.block;
  j["dcp"] = p.dcp;
  j["interleave"] = p.interleave;
  j["virtual_block"] = p.virtual_block;
  j["merge"] = name(p.merge);
  j["workspace"] = p.workspace;
  j["workspace_rows"] = p.workspace_rows;
  j["workspace_sized_from_engine"] = p.sized_from_engine;
  Json outcome{{"status", name(ev.outcome)}};
  if (ev.outcome == Outcome::assert_fired) {
    outcome["assert"] = ev.first_assert()->which;
    outcome["detail"] = ev.first_assert()->detail;
  }
  outcome["summary"] = one_line_verdict(ev);
  j["outcome"] = outcome;
  j["asserts"] = Json::array();
  for (const auto& a : p.asserts)
    j["asserts"].push_back(Json{{"stage", a.stage},
                                {"which", a.which},
                                {"detail", a.detail},
                                {"chunk", index_or_null(a.chunk)},
                                {"kind", a.kind == FailureKind::crash ? "crash" : "assert"}});
  j["num_decodes"] = p.num_decodes;
  j["prefills"] = p.prefills;
  j["num_prefills_with_context"] = p.num_with_context;
  j["planner"] = p.packed ? "packed" : "floor_divide";
  j["chunk_width"] = p.chunk_width;
  j["align"] = p.align;
  if (c.dcp > 1) j["local_chunk"] = p.local_chunk;
  j["row_budget"] = p.row_budget;
  j["gather"] = name(p.gather);
  j["plan_built"] = p.built;
  if (c.dcp > 1) {
    j["local_context_lens"] = Json::array();
    for (int r : p.prefills) j["local_context_lens"].push_back(p.local_ctx[static_cast<std::size_t>(r)]);
  }
  j["chunks"] = Json::array();
  for (const auto& ch : p.chunks) {
    Json cj{{"request_start", ch.request_start},     {"request_end", ch.request_end},
            {"token_start", ch.token_start},         {"token_end", ch.token_end},
            {"is_continuation", ch.is_continuation}, {"num_context_tokens", ch.total_tokens()},
            {"cu_seq_lens", ch.cu_seq_lens}};
    if (c.dcp > 1) {
      cj["num_local_context_tokens"] = ch.local_tokens();
      cj["padded_local_cu_seq_lens"] = ch.padded_local_cu;
    }
    cj["requests"] = Json::array();
    for (const auto& e : ch.entries) {
      Json ej{{"request", e.request}, {"start", e.start}, {"len", e.len}};
      if (c.dcp > 1) {
        ej["local_start"] = e.local_start;
        ej["padded_local_len"] = e.padded_local_len;
        ej["kept_per_rank"] = e.kept;
      }
      cj["requests"].push_back(std::move(ej));
    }
    j["chunks"].push_back(std::move(cj));
  }
  if (p.prefill_tokens_with_context) j["prefill_tokens_with_context"] = *p.prefill_tokens_with_context;
  j["empty_token_ranges"] = Json::array();
  for (auto [a, b] : p.empty_token_ranges) j["empty_token_ranges"].push_back(Json::array({a, b}));
  if (p.pcp) j["pcp"] = pcp_json(*p.pcp);
  j["invariants"] = Json::array();
  for (const auto& r : ev.results) {
    Json ij{{"id", info(r.id).tag},
            {"name", info(r.id).name},
            {"verdict", name(r.verdict)},
            {"total_violations", r.total_violations},
            {"note", r.note},
            {"violations", Json::array()}};
    for (const auto& v : r.violations)
      ij["violations"].push_back(Json{{"chunk", index_or_null(v.chunk)},
                                      {"request", index_or_null(v.request)},
                                      {"rank", index_or_null(v.rank)},
                                      {"row", index_or_null(v.row)},
                                      {"expected", v.expected},
                                      {"got", v.got},
                                      {"reason", v.reason}});
    j["invariants"].push_back(std::move(ij));
  }
  j["notes"] = p.notes;
  return j;
}

}  // namespace cp::cli
