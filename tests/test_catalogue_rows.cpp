// The catalogue's rows as data (DESIGN §9): which invariants need DCP (the one list; check()
// answers n/a from it), which are universal and which are family rules; and the strategy of
// the token-walking checks (Level): automatic walks tokens on small plans and decides large
// ones at interval level, saying so.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "invariants/catalogue.h"
#include "invariants/reorg.h"

namespace cp {
namespace {

const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }

std::vector<std::string_view> tags_where(bool (*pick)(const InvariantInfo&)) {
  std::vector<std::string_view> out;
  for (const auto& row : all_invariants())
    if (pick(row)) out.push_back(row.tag);
  return out;
}

TEST(CatalogueRows, DcpOnlyRowsAreExactlyTheOnesNotApplicableWithoutDcp) {
  EXPECT_EQ(
      tags_where([](const InvariantInfo& r) { return r.dcp_only; }),
      (std::vector<std::string_view>{"I-1", "I-6", "I-7", "I-8",  "I-10", "A-3", "A-4", "A-7", "G-7", "G-10", "T-1",
                                     "T-3", "D-5", "D-7", "P-13", "C-1",  "C-2", "C-3", "C-4", "C-5", "C-6"}));
  const Evaluation flat =
      evaluate(parse_case("version=v2-interleave platform=rocm workspace=1000 block=16 ctx=900,900 q=4,4"));
  const Evaluation dcp =
      evaluate(parse_case("version=v2-interleave platform=rocm workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4"));
  for (const auto& row : all_invariants()) {
    const InvariantResult& r = result(flat, row.id);
    EXPECT_EQ(row.dcp_only, r.verdict == Verdict::not_applicable && r.note == "no DCP (dcp=1)") << row.tag;
    EXPECT_NE(result(dcp, row.id).note, "no DCP (dcp=1)") << row.tag;
  }
}

TEST(CatalogueRows, UniversalPropertiesAndFamilyRules) {
  // Every context position attended exactly once (I-3, I-9), the row budgets (I-4, I-7), an
  // empty span giving (0, -inf) to the merge (I-12, I-13); the rest are a family's or a
  // kernel's rules.
  EXPECT_EQ(tags_where([](const InvariantInfo& r) { return r.scope == Scope::universal; }),
            (std::vector<std::string_view>{"I-3", "I-4", "I-7", "I-9", "I-12", "I-13"}));
  for (const auto& row : all_invariants()) EXPECT_FALSE(row.rule.empty()) << row.tag;
  EXPECT_EQ(name(Scope::universal), "universal");
  EXPECT_EQ(name(Scope::family), "family");
}

void expect_same(const InvariantResult& a, const InvariantResult& b, const std::string& where) {
  EXPECT_EQ(a.verdict, b.verdict) << where;
  EXPECT_EQ(a.total_violations, b.total_violations) << where;
  EXPECT_EQ(a.note, b.note) << where;
  ASSERT_EQ(a.violations.size(), b.violations.size()) << where;
  for (std::size_t k = 0; k < a.violations.size(); ++k) {
    EXPECT_EQ(a.violations[k].row, b.violations[k].row) << where;
    EXPECT_EQ(a.violations[k].got, b.violations[k].got) << where;
    EXPECT_EQ(a.violations[k].reason, b.violations[k].reason) << where;
  }
}

// A small plan: automatic is the token level, and the interval level says the same.
TEST(CheckLevels, SmallPlansWalkTokensAndBothLevelsAgree) {
  const Case c = parse_case(
      "version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 q=4,4,4 "
      "asserts=off");
  const Plan p = make_plan(c);
  for (const auto& row : all_invariants()) {
    const InvariantResult a = check(row.id, c, p);
    expect_same(a, check(row.id, c, p, Level::token), std::string(row.tag) + " token");
    expect_same(a, check(row.id, c, p, Level::interval), std::string(row.tag) + " interval");
  }
  EXPECT_EQ(result(evaluate(c), InvariantId::I9_reorg_exact).total_violations, 5);
  EXPECT_EQ(reorg_counts(c, p, Level::token), reorg_counts(c, p, Level::interval));
}

// Over 2^22 context tokens: automatic decides I-9 and I-11 at interval level and notes it.
TEST(CheckLevels, LargePlansAreDecidedAtIntervalLevelWithANote) {
  const Case c =
      parse_case("version=v6-current platform=cuda workspace=65536 block=64 dcp=8 ctx=3000000,3000000 q=4,4");
  const Evaluation automatic = evaluate(c), interval = evaluate(c, Level::interval);
  EXPECT_EQ(automatic.outcome, Outcome::ok);
  for (const auto& row : all_invariants()) {
    const InvariantResult &a = result(automatic, row.id), &i = result(interval, row.id);
    EXPECT_EQ(a.verdict, i.verdict) << row.tag;
    const bool walks = row.id == InvariantId::I9_reorg_exact || row.id == InvariantId::I11_config_validity;
    EXPECT_EQ(a.note, walks ? "decided at interval level (over 2^22 rows to simulate)" : i.note) << row.tag;
  }
}

// Issue 25 item 3: the families whose movement is vLLM's (ATOM, the sparse families, TensorRT-LLM)
// and the local shard's local attention are decided at interval level: on their regression plans,
// and with a rank's rows dropped, both levels give the same results and I-9 counts.
TEST(CheckLevels, FamiliesOnVllmMovementAndLocalAttentionAgreeWithTheTokenWalk) {
  for (const char* line :
       {"version=atom-current platform=rocm workspace=2048 block=16 dcp=4 interleave=4 ctx=1000,0,37,4096 q=3,4,5,6",
        "version=atom-pre2113 platform=rocm workspace=100 block=16 dcp=1 ctx=70,50,0,30 q=2,2,2,2",
        "version=gathered-pr56157 platform=cuda max_model_len=4096 max_num_seqs=4 block=64 dcp=2 interleave=64 ctx=1 "
        "q=64",
        "version=indexer-dsv4 platform=cuda max_model_len=4096 max_num_seqs=8 block=64 compress_ratio=4 "
        "ctx=4094,4094,100 q=2,2,2",
        "version=trtllm-sm90-pre19269 platform=cuda workspace=4096 block=64 ctx=12000,1200 q=16,16",
        "version=pcp-local-shard platform=rocm workspace=64 block=4 dcp=2 interleave=2 pcp=2 ctx=100,7 q=7,3",
        "version=pcp-local-shard platform=cuda workspace=256 block=16 dcp=3 pcp=3 pcp_rows=pcp-b ctx=300,40 q=9,5"}) {
    const Case c = parse_case(line);
    Plan p = make_plan(c);
    for (int broken = 0; broken < 2; ++broken) {
      if (broken == 1)  // a rank's rows dropped: the token walk sees positions never attended
        for (auto& ch : p.chunks)
          for (auto& e : ch.entries)
            if (!e.kept.empty() && e.kept.back() > 0) e.kept.back() -= 1;
      for (const auto& row : all_invariants())
        expect_same(check(row.id, c, p, Level::token), check(row.id, c, p, Level::interval),
                    std::string(row.tag) + (broken ? " broken " : " ") + line);
      const Batch b = batch_of(c, p);
      EXPECT_EQ(reorg_counts(b, p, Level::token), reorg_counts(b, p, Level::interval)) << line;
    }
  }
  // Interval level for real: past 2^22 rows automatic decides I-9 without walking and says so.
  for (const char* line :
       {"version=atom-current platform=rocm workspace=65536 block=64 dcp=8 ctx=3000000,3000000 q=4,4",
        "version=pcp-local-shard platform=rocm workspace=65536 block=64 dcp=2 pcp=2 ctx=6000000 q=4"})
    EXPECT_EQ(result(evaluate(parse_case(line)), InvariantId::I9_reorg_exact).note,
              "decided at interval level (over 2^22 rows to simulate)")
        << line;
}

}  // namespace
}  // namespace cp
