// vLLM's PCP virtual rows (vllm-pcp-and-sparse.md §1): the PCPManager versions PCP-A/B/C as rows
// of the pcp family, each rank's rows fed to v6-current (§1.7), the P- checks, the bug cases PB-1
// (#53573, P-13) and PB-2 (P-9), and the keys. The Fidelity tests reproduce the expected values of
// vLLM's own manager tests (tests/v1/worker/test_gpu_pcp_manager.py: code-index 56188280196 and
// 56716784735 for PCP-A, vllm-project/vllm@07e1fce5 for the dispatch counts, code-index 66529083865
// and 66602372702 for PCP-C), listed as those tests list them: (request, start, len) per rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "invariants/catalogue.h"

namespace cp {
namespace {

using Seg = std::tuple<int, std::int64_t, std::int64_t>;  // RankSegment: (request, start, len)
using Segs = std::vector<Seg>;

const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }
Evaluation eval(const std::string& line) { return evaluate(parse_case(line)); }

// The rank's segments, without the 0-token dummy row a manager emits on a rank with no rows (the
// upstream tests list the segments, `[]` for such a rank).
Segs segs(const Plan& p, int rank) {
  Segs out;
  for (const auto& w : p.pcp->ranks[static_cast<std::size_t>(rank)].rows)
    if (w.len > 0) out.emplace_back(w.request, w.start, w.len);
  return out;
}
Plan plan(const std::string& tail) { return make_plan(parse_case("workspace=4096 block=16 " + tail)); }
std::vector<std::int64_t> tokens(const Plan& p) {
  std::vector<std::int64_t> t;
  for (const auto& rk : p.pcp->ranks) t.push_back(rk.tokens);
  return t;
}

// Q3 "DCS after cached prefix / even partition": both piece rules give cs = 2.
TEST(PcpFidelity, EvenPartitionAfterCachedPrefix) {
  for (const char* v : {"pcp-a", "pcp-b", "pcp-c"}) {
    const Plan p = plan(std::string("version=") + v + " pcp=2 ctx=100 q=8");
    EXPECT_EQ(segs(p, 0), (Segs{{0, 100, 2}, {0, 106, 2}})) << v;
    EXPECT_EQ(segs(p, 1), (Segs{{0, 102, 2}, {0, 104, 2}})) << v;
    EXPECT_EQ(tokens(p), (std::vector<std::int64_t>{4, 4})) << v;
  }
}

// Q3 "uneven partition" (PCP-A only) and PB-3: the balanced and the ceil rule differ on q = 10.
TEST(PcpFidelity, UnevenPartitionDiscriminatesTheVersions) {
  const Plan a = plan("version=pcp-a pcp=2 ctx=0 q=10");
  EXPECT_EQ(segs(a, 0), (Segs{{0, 8, 2}, {0, 0, 3}}));
  EXPECT_EQ(segs(a, 1), (Segs{{0, 3, 3}, {0, 6, 2}}));
  EXPECT_EQ(tokens(a), (std::vector<std::int64_t>{5, 5}));
  const Plan b = plan("version=pcp-b pcp=2 ctx=0 q=10");
  EXPECT_EQ(segs(b, 0), (Segs{{0, 9, 1}, {0, 0, 3}}));
  EXPECT_EQ(segs(b, 1), (Segs{{0, 3, 3}, {0, 6, 3}}));
  EXPECT_EQ(tokens(b), (std::vector<std::int64_t>{4, 6}));
  // Q3 "restore", q = 5: T [3, 2] under PCP-A, [2, 3] under PCP-B.
  EXPECT_EQ(tokens(plan("version=pcp-a pcp=2 ctx=0 q=5")), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(tokens(plan("version=pcp-b pcp=2 ctx=0 q=5")), (std::vector<std::int64_t>{2, 3}));
}

// Q3 "short prefill" and "decodes duplicated" (also the restore case's T [5, 5]).
TEST(PcpFidelity, ShortPrefillAndDuplicatedDecodes) {
  for (const char* v : {"pcp-a", "pcp-b"}) {
    const Plan s = plan(std::string("version=") + v + " pcp=2 ctx=0 q=1");
    EXPECT_EQ(segs(s, 0), (Segs{{0, 0, 1}})) << v;
    EXPECT_EQ(segs(s, 1), Segs{}) << v;
    ASSERT_EQ(s.pcp->ranks[1].rows.size(), 1u) << v;  // the dummy row (0, N_0, 0)
    EXPECT_EQ(s.pcp->ranks[1].rows[0].len, 0) << v;
    const Plan d = plan(std::string("version=") + v + " pcp=2 ctx=8,0 q=1,8");
    EXPECT_EQ(segs(d, 0), (Segs{{0, 8, 1}, {1, 6, 2}, {1, 0, 2}})) << v;
    EXPECT_EQ(segs(d, 1), (Segs{{0, 8, 1}, {1, 2, 2}, {1, 4, 2}})) << v;
    EXPECT_EQ(tokens(d), (std::vector<std::int64_t>{5, 5})) << v;
    EXPECT_EQ(d.pcp->ranks[0].num_decodes, 1) << v;
  }
}

// Q4 "dispatch tokens": the per-rank token count the dispatcher pads to is max_r T_r.
TEST(PcpFidelity, DispatchTokenCounts) {
  const auto dispatch = [](const std::string& tail) {
    std::int64_t m = 0;
    for (auto t : tokens(plan("version=pcp-b " + tail))) m = std::max(m, t);
    return m;
  };
  EXPECT_EQ(dispatch("pcp=2 ctx=0 q=8"), 4);
  EXPECT_EQ(dispatch("pcp=2 ctx=0 q=7"), 4);
  EXPECT_EQ(dispatch("pcp=2 ctx=10 q=3 prefilling=0"), 3);
  EXPECT_EQ(dispatch("pcp=2 ctx=10,0 q=3,8 prefilling=0,1"), 7);
  EXPECT_EQ(dispatch("pcp=4 ctx=10,0 q=2,9 prefilling=0,1"), 5);
}

// Q5 "DCP replication" (PCP-C, P = 2, DCP = 2): q in {1, 2, 3, 5, 6, 9} is one row (0, 0, q) on both
// ranks; 4, 7, 8 are split. Without DCP PCP-C splits them as PCP-B does.
TEST(PcpFidelity, PcpCReplicatesShortPrefillsUnderDcp) {
  for (std::int64_t q = 1; q <= 12; ++q) {
    const bool replicated = q == 1 || q == 2 || q == 3 || q == 5 || q == 6 || q == 9;
    const Plan p = plan("version=pcp-c pcp=2 dcp=2 ctx=0 q=" + std::to_string(q));
    for (int r = 0; r < 2; ++r)
      if (replicated)
        EXPECT_EQ(segs(p, r), (Segs{{0, 0, q}})) << "q=" << q << " rank " << r;
      else
        EXPECT_EQ(segs(p, r).size(), 2u) << "q=" << q << " rank " << r;
    const Plan no_dcp = plan("version=pcp-c pcp=2 ctx=0 q=" + std::to_string(q));
    EXPECT_EQ(segs(no_dcp, 0).size() + segs(no_dcp, 1).size(),
              segs(plan("version=pcp-b pcp=2 ctx=0 q=" + std::to_string(q)), 0).size() +
                  segs(plan("version=pcp-b pcp=2 ctx=0 q=" + std::to_string(q)), 1).size())
        << q;
  }
}

// Q5 "rank-invariant order", "decodes first", "split rows share extent".
TEST(PcpFidelity, PcpCOrderIsRankInvariant) {
  const std::vector<std::pair<std::string, std::string>> cases{{"32,32", "0,0"},   {"32,32,32,32", "0,0,0,0"},
                                                               {"32,32", "100,0"}, {"64,32,48", "0,512,0"},
                                                               {"64,3", "0,0"},    {"64,3,64", "0,0,0"}};
  for (const int P : {2, 4})
    for (const auto& [q, n] : cases) {
      const Plan p =
          plan("version=pcp-c pcp=" + std::to_string(P) + " dcp=" + std::to_string(P) + " ctx=" + n + " q=" + q);
      std::vector<int> first;
      for (int r = 0; r < P; ++r) {
        std::vector<int> reqs;
        for (const auto& w : p.pcp->ranks[static_cast<std::size_t>(r)].rows) reqs.push_back(w.request);
        EXPECT_TRUE(std::is_sorted(reqs.begin(), reqs.end())) << q << " rank " << r;
        if (r == 0) first = reqs;
        EXPECT_EQ(reqs, first) << "P=" << P << " q=" << q << " rank " << r;
      }
    }
  const Plan d = plan("version=pcp-c pcp=2 ctx=100,20 q=32,1");
  EXPECT_EQ(std::get<0>(segs(d, 0).front()), 1);  // the decode leads
  const Plan e = plan("version=pcp-c pcp=2 dcp=2 ctx=100,0 q=64,3");
  EXPECT_EQ(segs(e, 1), (Segs{{0, 116, 16}, {0, 132, 16}, {1, 0, 3}}));  // requests [0, 0, 1]
}

// §1.7: each row is a v6 request with context `start`; the rows of a rank gather overlapping
// contexts (P=2, N=1000, q=64: rank 0 rows (1000, 16), (1048, 16) gather 2048 rows), and the
// universal checks run on that plan with no PCP code.
TEST(PcpFamily, RowsFeedV6PerRank) {
  const Evaluation ev = eval("version=pcp-b workspace=4096 block=16 pcp=2 ctx=1000 q=64");
  ASSERT_TRUE(ev.plan.built);
  std::int64_t rows = 0;
  for (const auto& ch : ev.plan.chunks) rows += ch.total_tokens();
  EXPECT_EQ(rows, 2048);
  EXPECT_EQ(ev.plan.pcp->batch_ctx, (std::vector<std::int64_t>{1000, 1048}));
  const Evaluation r1 = eval("version=pcp-b workspace=4096 block=16 pcp=2 pcp_rank=1 ctx=1000 q=64");
  EXPECT_EQ(r1.plan.pcp->batch_ctx, (std::vector<std::int64_t>{1016, 1032}));
  // A small workspace splits the rows' contexts over chunks: I-3 sees each row's [0, start) once.
  const Evaluation small = eval("version=pcp-b workspace=256 block=16 pcp=2 ctx=1000 q=64");
  EXPECT_GT(small.plan.chunks.size(), 4u);
  for (auto id : {InvariantId::I3_coverage, InvariantId::I4_global_row_budget, InvariantId::I13_context_prefix,
                  InvariantId::P1_pcp_row_coverage, InvariantId::P4_pcp_decodes_replicated})
    EXPECT_EQ(result(small, id).verdict, Verdict::ok) << info(id).name;
  EXPECT_EQ(small.outcome, Outcome::ok);
}

// PB-1 (#53573): TP=1, P=2, DCP=2, one fresh 2-token prompt: rank 0's row (0, 0, 1) has no context,
// rank 1's row (0, 1, 1) has one token of context and enters v6's DCP KV all-gather alone.
TEST(PcpFamily, PB1RanksDisagreeOnTheContextPath) {
  for (const char* v : {"pcp-a", "pcp-b"}) {
    const Evaluation ev = eval(std::string("version=") + v + " workspace=1024 block=16 pcp=2 dcp=2 ctx=0 q=2");
    const auto& p13 = result(ev, InvariantId::P13_pcp_collective_symmetry);
    ASSERT_EQ(p13.verdict, Verdict::violated) << v;
    EXPECT_EQ(p13.violations[0].rank, 1);
    EXPECT_NE(p13.violations[0].got.find("entered"), std::string::npos);
    EXPECT_FALSE(ev.plan.pcp->ranks[0].context_path);
    EXPECT_TRUE(ev.plan.pcp->ranks[1].context_path);
  }
  // PCP-C replicates the prompt on both ranks: no rank has context, no collective.
  EXPECT_EQ(eval("version=pcp-c workspace=1024 block=16 pcp=2 dcp=2 ctx=0 q=2").outcome, Outcome::ok);
  // Without DCP the context path has no collective: P-13 is n/a.
  EXPECT_EQ(
      result(eval("version=pcp-b workspace=1024 block=16 pcp=2 ctx=0 q=2"), InvariantId::P13_pcp_collective_symmetry)
          .verdict,
      Verdict::not_applicable);
}

// P-13 beyond the entry decision: chunk counts differ when the rows' contexts split differently.
TEST(PcpFamily, P13ChunkSizesDiffer) {
  const Evaluation ev = eval("version=pcp-c workspace=256 block=16 pcp=2 dcp=2 ctx=0 q=400");
  const auto& p13 = result(ev, InvariantId::P13_pcp_collective_symmetry);
  ASSERT_EQ(p13.verdict, Verdict::violated);
  EXPECT_NE(ev.plan.pcp->ranks[0].gathered, ev.plan.pcp->ranks[1].gathered);
}

// PB-2: a prefill listed before a decode. PCP-B keeps the order, so rank 0's rows are
// (0, 100, 8), (0, 124, 8), (1, 20, 1), num_decodes = 0 and the decode goes down the prefill path.
TEST(PcpFamily, PB2DecodeAfterPrefillOnPcpB) {
  const Evaluation b = eval("version=pcp-b workspace=1024 block=16 pcp=2 ctx=100,20 q=32,1");
  EXPECT_EQ(segs(b.plan, 0), (Segs{{0, 100, 8}, {0, 124, 8}, {1, 20, 1}}));
  EXPECT_EQ(b.plan.pcp->ranks[0].num_decodes, 0);
  const auto& p9 = result(b, InvariantId::P9_pcp_decodes_first);
  ASSERT_EQ(p9.verdict, Verdict::violated);
  EXPECT_EQ(p9.violations[0].request, 1);
  EXPECT_EQ(p9.violations[0].row, 2);
  for (const char* v : {"pcp-a", "pcp-c"})
    EXPECT_EQ(result(eval(std::string("version=") + v + " workspace=1024 block=16 pcp=2 ctx=100,20 q=32,1"),
                     InvariantId::P9_pcp_decodes_first)
                  .verdict,
              Verdict::ok)
        << v;
}

// The P- checks fail on plans bent by hand (a real plan, one field changed).
TEST(PcpChecks, FailOnBentPlans) {
  const Case c = parse_case("version=pcp-b workspace=1024 block=16 pcp=2 ctx=8,0 q=1,8");
  Plan p = make_plan(c);
  ASSERT_EQ(check(InvariantId::P1_pcp_row_coverage, c, p).verdict, Verdict::ok);
  Plan dropped = p;  // rank 1 loses its piece (1, 2, 2): positions [2, 4) on no rank
  auto& r1 = dropped.pcp->ranks[1].rows;
  r1.erase(r1.begin() + 1);
  const auto p1 = check(InvariantId::P1_pcp_row_coverage, c, dropped);
  ASSERT_EQ(p1.verdict, Verdict::violated);
  EXPECT_EQ(p1.violations[0].reason, "new tokens on no rank");
  Plan twice = p;  // rank 1 also holds rank 0's piece (1, 6, 2)
  twice.pcp->ranks[1].rows.push_back({1, 6, 2, true});
  EXPECT_EQ(check(InvariantId::P1_pcp_row_coverage, c, twice).verdict, Verdict::violated);
  EXPECT_EQ(check(InvariantId::P2_pcp_row_shape, c, twice).verdict, Verdict::violated);
  Plan no_decode = p;  // rank 1 without the decode row
  no_decode.pcp->ranks[1].rows.erase(no_decode.pcp->ranks[1].rows.begin());
  const auto p4 = check(InvariantId::P4_pcp_decodes_replicated, c, no_decode);
  ASSERT_EQ(p4.verdict, Verdict::violated);
  EXPECT_EQ(p4.violations[0].rank, 1);
}

// Keys: the pcp family's keys elsewhere, the dcp rule (Q6; PCP-A's own), pcp missing, the rank range.
TEST(PcpFamily, KeysAndDcpRule) {
  const auto key_of = [](const std::string& line) {
    try {
      parse_case(line);
    } catch (const CaseError& e) {
      return e.key;
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(key_of("version=v6-current workspace=1024 block=16 pcp=2 ctx=10 q=4"), "pcp");
  EXPECT_EQ(key_of("version=v6-current workspace=1024 block=16 pcp_rank=0 ctx=10 q=4"), "pcp_rank");
  EXPECT_EQ(key_of("version=gathered-pr56157 workspace=1024 block=16 dcp=2 tp=2 ctx=10 q=4"), "tp");
  EXPECT_EQ(key_of("version=v6-current workspace=1024 block=16 prefilling=1 ctx=10 q=4"), "prefilling");
  EXPECT_EQ(key_of("version=pcp-b workspace=1024 block=16 ctx=10 q=4"), "pcp");
  EXPECT_EQ(key_of("version=pcp-b workspace=1024 block=16 pcp=2 pcp_rank=2 ctx=10 q=4"), "pcp_rank");
  EXPECT_EQ(key_of("version=pcp-b workspace=1024 block=16 pcp=2 prefilling=0 ctx=0 q=4"), "prefilling");
  // Q3 (56716784735): TP=4, P=2 accepts DCP 1, 2, 8 and rejects 4; PCP-A's manager only 1 and 2.
  for (const char* v : {"pcp-b", "pcp-c"}) {
    const std::string base = std::string("version=") + v + " workspace=1024 block=16 pcp=2 tp=4 ctx=10 q=4 dcp=";
    EXPECT_EQ(key_of(base + "1"), "(accepted)") << v;
    EXPECT_EQ(key_of(base + "2"), "(accepted)") << v;
    EXPECT_EQ(key_of(base + "8"), "(accepted)") << v;
    EXPECT_EQ(key_of(base + "4"), "dcp") << v;
  }
  const std::string a = "version=pcp-a workspace=1024 block=16 pcp=2 tp=4 ctx=10 q=4 dcp=";
  EXPECT_EQ(key_of(a + "2"), "(accepted)");
  EXPECT_EQ(key_of(a + "8"), "dcp");
  EXPECT_EQ(key_of(a + "4"), "dcp");
  // A prefill before a decode is the PCP manager's input order, not an error.
  EXPECT_EQ(key_of("version=pcp-b workspace=1024 block=16 pcp=2 ctx=100,20 q=32,1"), "(accepted)");
  const Case c = parse_case(
      "version=pcp-c workspace=1024 block=16 pcp=4 pcp_rank=3 tp=2 dcp=8 ctx=5,0 q=1,9 "
      "prefilling=0,1");
  EXPECT_EQ(parse_case(print_case(c)), c);
}

}  // namespace
}  // namespace cp
