// The TensorRT-LLM family (other-engines.md §4): the per-request columns before #7477, the
// packing into loops of T = 4 * max_num_tokens rows from #7477 on, and Hopper's
// single pass over every cached row before #19269 (R-B1), judged by the universal invariants.
#include <gtest/gtest.h>

#include <string>

#include "invariants/catalogue.h"

namespace cp {
namespace {

const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }

Evaluation trtllm(const char* version, const std::string& rest) {
  return evaluate(parse_case(std::string("version=") + version + rest));
}

// `n` requests with `ctx` cached and 16 new tokens each, as a case-line sweep.
std::string batch(int n, std::int64_t ctx) {
  return " ctx=" + std::to_string(ctx) + "*" + std::to_string(n) + " q=16*" + std::to_string(n);
}

// T = 32768, cached [70000, 1000, 0, 30000]: four loops, each T rows but the last, and
// loop 3's piece of request 3 starts at 27304 of its context (not a multiple of 64).
TEST(TrtllmFamily, PackingIntoLoopsOfT) {
  const Evaluation ev = trtllm("trtllm-current", " workspace=32768 block=64 ctx=70000,1000,0,30000 q=4,4,4,4");
  ASSERT_EQ(ev.plan.chunks.size(), 4u);
  for (std::size_t c = 0; c + 1 < ev.plan.chunks.size(); ++c) EXPECT_EQ(ev.plan.chunks[c].total_tokens(), 32768);
  const auto& last = ev.plan.chunks[3].entries;
  ASSERT_EQ(last.size(), 4u);
  EXPECT_EQ(last[3].start, 27304);
  EXPECT_EQ(last[3].len, 2696);
  EXPECT_EQ(last[0].len, 0);
  EXPECT_EQ(ev.outcome, Outcome::ok);
  EXPECT_EQ(result(ev, InvariantId::I9_reorg_exact).verdict, Verdict::ok);
}

// before #7477 a loop holds up to num_contexts * chunk_size rows: five contexts of 10000 with
// chunk_size 8192 put 40960 rows in loop 0, over 4 * 8192 (I-4; the old C++ buffer was not read,
// the plan says so); four fit exactly.
TEST(TrtllmFamily, PerRequestColumnsExceedT) {
  const Evaluation five = trtllm("trtllm-pre7477", " workspace=32768 block=64" + batch(5, 10000));
  EXPECT_EQ(five.plan.chunk_width, 8192);
  ASSERT_EQ(five.plan.chunks.size(), 2u);
  EXPECT_EQ(five.plan.chunks[0].total_tokens(), 40960);
  EXPECT_EQ(result(five, InvariantId::I4_global_row_budget).verdict, Verdict::violated);
  EXPECT_EQ(result(five, InvariantId::I3_coverage).verdict, Verdict::ok);
  const Evaluation four = trtllm("trtllm-pre7477", " workspace=32768 block=64" + batch(4, 10000));
  EXPECT_EQ(four.outcome, Outcome::ok);
}

// Bug pinned: TensorRT-LLM R-B1 (#19269, other-engines.md §4.5): on Hopper no chunking — four
// requests of 120000 cached tokens are gathered and up-projected in one pass of 480000 rows
// with no workspace reserved for it; the same batch packs into loops of T on SM >= 100.
TEST(TrtllmFamily, HopperGathersEveryCachedRowAtOnce) {
  const Evaluation ev = trtllm("trtllm-sm90-pre19269", " workspace=32768 block=64" + batch(4, 120000));
  ASSERT_EQ(ev.plan.chunks.size(), 1u);
  EXPECT_EQ(ev.plan.chunks[0].total_tokens(), 480000);
  EXPECT_EQ(ev.outcome, Outcome::violation);
  EXPECT_EQ(result(ev, InvariantId::I4_global_row_budget).verdict, Verdict::violated);
  const Evaluation blackwell = trtllm("trtllm-current", " workspace=32768 block=64" + batch(4, 120000));
  EXPECT_EQ(blackwell.plan.chunks.size(), 15u);
  EXPECT_EQ(blackwell.outcome, Outcome::ok);
}

// The workspace is BBS x max_num_tokens rows (a multiple of 4, default 4 * 8192); no DCP.
TEST(TrtllmFamily, WorkspaceIsFourTimesMaxNumTokens) {
  EXPECT_EQ(trtllm("trtllm-current", " max_model_len=163840 max_num_seqs=256 block=64 ctx=100 q=2").plan.workspace,
            32768);
  try {
    trtllm("trtllm-current", " workspace=1001 block=64 ctx=100 q=2");
    ADD_FAILURE() << "workspace=1001 accepted";
  } catch (const CaseError& e) {
    EXPECT_EQ(e.key, "workspace");
  }
  EXPECT_THROW(parse_case("version=trtllm-current workspace=1024 block=64 dcp=2 ctx=100 q=2"), CaseError);
}

}  // namespace
}  // namespace cp
