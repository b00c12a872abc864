// Proofs that survive a rewrite (issue 23, item 5). The encoders take the quantities a lemma
// chain needs from the rule's own decomposition (ops.h's cdiv_parts / round_*_parts, arith.h's
// Rounding, ownership.h's dcp_local_len_parts), never by reading back the terms a template
// built. So spelling a formula in an equivalent form (smt::use_spelling, a test hook on the
// z3 number type) leaves every verdict as it was. An encoder that pattern-matched the old
// spelling fails here: the old reading of round_up's quotient or of cdiv's witness throws "no
// definition of (+ q!n 1)", and pr41229's product match falls back to a sliced query (UNKNOWN).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "invariants/catalogue.h"
#include "invariants/smt/prover.h"

namespace cp::smt {
namespace {

namespace fs = std::filesystem;
using enum InvariantId;

// Sets a spelling for the scope of one test and restores the previous one.
class SpellingScope {
 public:
  explicit SpellingScope(const Spelling& s) : prev_(use_spelling(s)) {}
  ~SpellingScope() { use_spelling(prev_); }
  SpellingScope(const SpellingScope&) = delete;
  SpellingScope& operator=(const SpellingScope&) = delete;

 private:
  Spelling prev_;
};

constexpr Spelling kPlanner{};
constexpr Spelling kCdivFromPredecessor{.cdiv_from_predecessor = true};       // cdiv(a, b) = (a - 1) // b + 1
constexpr Spelling kRoundDownAsDifference{.round_down_as_difference = true};  // round_down(x, m) = x - x mod m

ProveOptions rows(Version v, Platform p, std::vector<InvariantId> inv) {
  ProveOptions o;
  o.versions = {v};
  o.platforms = {p};
  o.invariants = std::move(inv);
  o.jobs = 2;
  o.rlimit = 40'000'000;  // as test_smt.cpp: deterministic, with room for a loaded machine
  o.timeout_s = 60;
  return o;
}

// Every row of `o` is PROVED UNBOUNDED under spelling `s`.
void expect_proved_unbounded(const ProveOptions& o, const Spelling& s, const std::string& spelling) {
  const SpellingScope scope(s);
  const auto res = prove(o);
  ASSERT_EQ(res.size(), o.invariants.size() * o.platforms.size()) << spelling;
  for (const auto& r : res) {
    const std::string row = std::string(name(r.version)) + "/" + std::string(name(r.platform)) + " " +
                            std::string(info(r.invariant).tag) + " (" + spelling + ")";
    EXPECT_EQ(r.status, Status::proved) << row << ": " << r.detail << r.replay;
    EXPECT_TRUE(r.unbounded) << row << ": " << r.method;
  }
}

// The queries `o` builds under spelling `s`, by file name (emitted, none solved).
std::map<std::string, std::string> exported(ProveOptions o, const Spelling& s, const std::string& tag) {
  const SpellingScope scope(s);
  const fs::path dir = fs::temp_directory_path() / ("chunkproof-rewrite-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  o.emit_smt2_dir = dir.string();
  o.emit_only = true;
  prove(o);
  std::map<std::string, std::string> out;
  for (const auto& f : fs::directory_iterator(dir)) {
    std::ifstream in(f.path());
    std::ostringstream text;
    text << in.rdbuf();
    out[f.path().filename().string()] = text.str();
  }
  fs::remove_all(dir);
  return out;
}

// The hook really changes the terms the prover solves: the same steps, other queries.
TEST(SmtRewrite, TheRewriteChangesTheQueries) {
  const ProveOptions o = rows(Version::v6_current, Platform::cuda, {I6_virtual_block_alignment});
  const auto a = exported(o, kPlanner, "planner"), b = exported(o, kCdivFromPredecessor, "cdiv");
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size());
  int differ = 0;
  for (const auto& [file, text] : a) {
    ASSERT_TRUE(b.count(file)) << file;
    if (b.at(file) != text) ++differ;
  }
  EXPECT_GT(differ, 0) << "cdiv_from_predecessor did not change a single query";
}

// cdiv(a, b) as (a - 1) // b + 1: the packed chains (round_up's quotient qU in I-1 and I-2, the
// local start cdiv(start, I*W) in I-6, the cdiv witnesses of I-4's budget and of I-8's spans).
TEST(SmtRewrite, PackedChainsSurviveCdivRewrite) {
  const ProveOptions cuda =
      rows(Version::v6_current, Platform::cuda,
           {I1_workspace_div_dcp, I2_nonempty_chunk_width, I4_global_row_budget, I6_virtual_block_alignment});
  const ProveOptions rocm = rows(Version::v6_current, Platform::rocm, {I8_local_length_bookkeeping});
  for (const ProveOptions* o : {&cuda, &rocm}) {
    expect_proved_unbounded(*o, kPlanner, "planner's spelling");
    expect_proved_unbounded(*o, kCdivFromPredecessor, "cdiv(a, b) = (a - 1) // b + 1");
  }
}

// round_down(x, m) as x - x mod m: pr41229's sizing S = round_down(x, W), whose I-1 chain takes
// S = q*W from the rule's Rounding (a product match would fall back to an UNKNOWN sliced query).
TEST(SmtRewrite, Pr41229ChainSurvivesRoundDownRewrite) {
  const ProveOptions o = rows(Version::pr41229, Platform::cuda, {I1_workspace_div_dcp});
  expect_proved_unbounded(o, kPlanner, "planner's spelling");
  expect_proved_unbounded(o, kRoundDownAsDifference, "round_down(x, m) = x - x mod m");
}

// vLLM main's new families (issue 25 item 4): the gathered prefill's cdiv(e, I*W)*I rows per
// rank (the owned-span chain takes c = cdiv(e, V) and its witness from cdiv_parts) and the PCP
// ceil pieces cdiv(q, 2P) keep PROVED UNBOUNDED under the cdiv rewrite, and DB-2 (cdiv(e, W))
// stays a replayed counterexample.
TEST(SmtRewrite, GatheredAndPcpRowsSurviveCdivRewrite) {
  const ProveOptions vblock =
      rows(Version::gathered_vblock, Platform::cuda, {D5_gathered_shard_cover, D7_gathered_layout});
  const ProveOptions pcp = rows(Version::pcp_b, Platform::cuda, {P1_pcp_row_coverage});
  for (const ProveOptions* o : {&vblock, &pcp}) {
    expect_proved_unbounded(*o, kPlanner, "planner's spelling");
    expect_proved_unbounded(*o, kCdivFromPredecessor, "cdiv(a, b) = (a - 1) // b + 1");
  }
  const SpellingScope scope(kCdivFromPredecessor);
  const auto res = prove(rows(Version::gathered_pr56157, Platform::cuda, {D5_gathered_shard_cover}));
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(res[0].status, Status::counterexample) << res[0].detail;
  EXPECT_FALSE(res[0].encoding_disagrees) << res[0].replay;
}

}  // namespace
}  // namespace cp::smt
