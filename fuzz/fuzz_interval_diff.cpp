// interval_diff_fuzz: the interval-level evaluation (Level::interval: invariants/interval/)
// against the token-level oracle (Level::token: on reference/dcp/simulate.*), on inputs small
// enough to enumerate token by token.
//
// One input: a small case (any version, platform, block, DCP up to 8, any interleave dividing
// the block, up to 6 requests of up to 600 context tokens, the PCP, local-shard and indexer keys) and, half the time, a
// few edits of the plan the version produced (a rank's kept rows, a local start, a padded local length, a span), so
// that the interval code is also checked on plans no planner makes today — the misaligned reorgs, overlapping gathers
// and short spans a future planner bug would produce.
//
// Crash: any of the 13 invariants differs between the two levels in verdict, violation count,
// recorded violations (chunk, request, rank, row, expected, got, reason) or note; or the
// per-entry I-9 counts (foreign, duplicate, missing rows, first bad row) differ.
#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "invariants/catalogue.h"
#include "invariants/reorg.h"
#include "reference/arith/checked_int.h"
#include "reference/planner/families/indexer/family.h"
#include "reference/planner/families/local_shard/family.h"
#include "reference/planner/families/pcp/family.h"

namespace {

using namespace cp;

// The keys of the families that need them, each inside the rules validate_case applies (the
// planner codec's choices, case_codec.cpp, at small sizes): PCP's P, rank, TP and context reuse;
// the local shard's P, dcp in {P, TP*P} and whose rows; the indexer's compress ratio.
void family_keys(FuzzedDataProvider& f, Case& c) {
  const VersionInfo& vi = info(c.version);
  const std::int64_t P = f.ConsumeIntegralInRange<std::int64_t>(1, 4);
  if (vi.family == &pcp_family) {
    c.pcp = P;
    if (P > 1 && c.dcp > 1) c.dcp = P;  // {1, P}: every manager's rule accepts it
    if (P == 1 && c.dcp > 1) c.tp = c.dcp;
    if (const auto r = f.ConsumeIntegralInRange<std::int64_t>(0, P - 1); r > 0) c.pcp_rank = r;
    c.ctx_reuse = f.ConsumeBool();
    if (vi.pcp.graph_padding && f.ConsumeBool()) c.padded_num_tokens = f.ConsumeIntegralInRange<std::int64_t>(1, 64);
  } else if (vi.family == &local_shard_family) {
    c.pcp = std::max<std::int64_t>(2, P);
    const bool reorg_path = f.ConsumeBool();  // dcp = TP*P with TP = 2: the all-gather + reorg path
    c.dcp = reorg_path ? 2 * *c.pcp : *c.pcp;
    if (reorg_path) c.tp = 2;
    const auto m = f.ConsumeIntegralInRange<int>(0, 3);  // 0: replicated rows, else a PCP manager's
    std::vector<Version> managers;
    for (const auto& v : all_versions())
      if (v.family == &pcp_family) managers.push_back(v.version);
    if (m > 0 && !managers.empty()) {
      c.pcp_rows = managers[static_cast<std::size_t>(m - 1) % managers.size()];
      if (info(*c.pcp_rows).pcp.dcp_rule == PcpDcpRule::one_or_pcp) c.dcp = *c.pcp, c.tp.reset();
      if (const auto r = f.ConsumeIntegralInRange<std::int64_t>(0, *c.pcp - 1); r > 0) c.pcp_rank = r;
    }
  } else if (vi.family == &indexer_family && vi.indexer.compresses) {
    c.compress_ratio = f.ConsumeBool() ? 4 : 1;
  }
}

Case decode_small(FuzzedDataProvider& f) {
  static constexpr std::array<std::int64_t, 8> kBlock{16, 64, 1, 2, 4, 8, 32, 12};
  Case c;
  const auto& vs = all_versions();
  c.version = vs[f.ConsumeIntegralInRange<std::size_t>(0, vs.size() - 1)].version;
  c.platform = f.ConsumeBool() ? Platform::rocm : Platform::cuda;
  c.asserts = f.ConsumeIntegralInRange<int>(0, 3) != 3;
  c.block = kBlock[f.ConsumeIntegralInRange<std::size_t>(0, kBlock.size() - 1)];
  const VersionInfo& vi = info(c.version);
  c.dcp = vi.supports_dcp ? f.ConsumeIntegralInRange<std::int64_t>(1, 8) : 1;
  std::int64_t il = f.ConsumeIntegralInRange<std::int64_t>(1, c.block);
  while (c.block % il != 0) --il;
  c.interleave = vi.supports_interleave ? il : 1;
  if (f.ConsumeBool()) {
    c.workspace = f.ConsumeIntegralInRange<std::int64_t>(1, 4096);
  } else {
    c.max_model_len = f.ConsumeIntegralInRange<std::int64_t>(1, 512);
    c.max_num_seqs = f.ConsumeIntegralInRange<std::int64_t>(1, 16);
  }
  const int n = f.ConsumeIntegralInRange<int>(1, 6);
  for (int i = 0; i < n; ++i) {
    c.ctx.push_back(f.ConsumeIntegralInRange<std::int64_t>(0, 600));
    c.q.push_back(f.ConsumeIntegralInRange<std::int64_t>(1, 8));
  }
  family_keys(f, c);
  if (decodes_must_lead(c)) order_decodes_first(c);
  return c;
}

// A few edits of the plan's DCP/span geometry; prefix sums are recomputed so the plan stays
// a well-formed value (what the simulation indexes by).
void mutate(FuzzedDataProvider& f, const Case& c, Plan& p, std::string& what) {
  if (p.chunks.empty()) return;
  const int edits = f.ConsumeIntegralInRange<int>(1, 3);
  for (int i = 0; i < edits; ++i) {
    Chunk& ch = p.chunks[f.ConsumeIntegralInRange<std::size_t>(0, p.chunks.size() - 1)];
    if (ch.entries.empty()) continue;
    ChunkEntry& e = ch.entries[f.ConsumeIntegralInRange<std::size_t>(0, ch.entries.size() - 1)];
    const int field = f.ConsumeIntegralInRange<int>(0, 4);
    const std::int64_t v = f.ConsumeIntegralInRange<std::int64_t>(0, 700);
    if (c.dcp == 1 && field < 3) {
      e.start = v;  // no DCP fields: move the span instead
    } else if (field == 0 && !e.kept.empty()) {
      e.kept[f.ConsumeIntegralInRange<std::size_t>(0, e.kept.size() - 1)] = v % 128;
    } else if (field == 1) {
      e.local_start = v;
    } else if (field == 2) {
      e.padded_local_len = v % 128;
    } else if (field == 3) {
      e.start = v;
    } else {
      e.len = v % 256;
    }
    what += " edit" + std::to_string(field) + "=" + std::to_string(v);
  }
  for (auto& ch : p.chunks) {
    ch.cu_seq_lens.assign(1, 0);
    for (const auto& e : ch.entries) ch.cu_seq_lens.push_back(ch.cu_seq_lens.back() + e.len);
    if (c.dcp > 1) {
      ch.padded_local_cu.assign(1, 0);
      for (const auto& e : ch.entries) ch.padded_local_cu.push_back(ch.padded_local_cu.back() + e.padded_local_len);
    }
  }
}

std::string describe(const Violation& v) {
  std::string s;  // the places that apply (-1 is "none": never printed)
  using At = std::pair<const char*, std::int64_t>;
  for (const auto& [what, at] : {At{"chunk", v.chunk}, At{"request", v.request}, At{"rank", v.rank}, At{"row", v.row}})
    if (at >= 0) s += std::string(what) + " " + std::to_string(at) + " ";
  return s + "expected '" + v.expected + "' got '" + v.got + "' reason '" + v.reason + "'";
}

bool same(const Violation& a, const Violation& b) {
  return a.chunk == b.chunk && a.request == b.request && a.rank == b.rank && a.row == b.row &&
         a.expected == b.expected && a.got == b.got && a.reason == b.reason;
}

[[noreturn]] void differ(const Case& c, const std::string& edits, const std::string& what) {
  std::fprintf(stderr, "INTERVAL-DIFF %s\n  case: %s\n  plan edits:%s\n", what.c_str(), print_case(c).c_str(),
               edits.empty() ? " none" : edits.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider f(data, size);
  Case c = decode_small(f);
  Plan p;
  try {
    validate_case(c);
    p = make_plan(c);
  } catch (const CaseError&) {
    return 0;
  } catch (const ArithmeticError&) {
    return 0;
  }
  std::string edits;
  if (f.ConsumeBool()) mutate(f, c, p, edits);
  static const bool print = std::getenv("CHUNKPROOF_PRINT_CASE") != nullptr;  // which cases a corpus reaches
  if (print) std::fprintf(stderr, "case: %s%s\n", print_case(c).c_str(), edits.c_str());
  for (const auto& inv : all_invariants()) {
    const InvariantResult t = check(inv.id, c, p, Level::token);
    const InvariantResult i = check(inv.id, c, p, Level::interval);
    const std::string tag(inv.tag);
    if (t.verdict != i.verdict)
      differ(c, edits,
             tag + " verdict: token " + std::string(name(t.verdict)) + ", interval " + std::string(name(i.verdict)));
    if (t.total_violations != i.total_violations)
      differ(c, edits,
             tag + " violations: token " + std::to_string(t.total_violations) + ", interval " +
                 std::to_string(i.total_violations));
    if (t.note != i.note) differ(c, edits, tag + " note: token '" + t.note + "', interval '" + i.note + "'");
    for (std::size_t k = 0; k < t.violations.size() && k < i.violations.size(); ++k)
      if (!same(t.violations[k], i.violations[k]))
        differ(c, edits,
               tag + " violation " + std::to_string(k) + ": token " + describe(t.violations[k]) + "; interval " +
                   describe(i.violations[k]));
  }
  const Batch batch = batch_of(c, p);  // under PCP the plan's requests are the rank's rows
  const auto tk = reorg_counts(batch, p, Level::token), ik = reorg_counts(batch, p, Level::interval);
  if (tk.size() != ik.size()) differ(c, edits, "I-9 entry count differs");
  for (std::size_t k = 0; k < tk.size(); ++k)
    if (!(tk[k] == ik[k]))
      differ(c, edits,
             "I-9 counts of chunk " + std::to_string(tk[k].chunk) + " entry " + std::to_string(tk[k].entry) +
                 ": token foreign/dup/missing/first " + std::to_string(tk[k].foreign) + "/" +
                 std::to_string(tk[k].duplicate) + "/" + std::to_string(tk[k].missing) + "/" +
                 std::to_string(tk[k].first_bad_row) + ", interval " + std::to_string(ik[k].foreign) + "/" +
                 std::to_string(ik[k].duplicate) + "/" + std::to_string(ik[k].missing) + "/" +
                 std::to_string(ik[k].first_bad_row));
  return 0;
}
