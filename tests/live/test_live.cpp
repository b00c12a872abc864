// The external-planner protocol (live/): what `plan --json` writes reads back into the same Plan
// (so the protocol's reader and the CLI's writer are one schema), every schema error names its
// field, the diff names the field that differs, and the client turns a dead, silent or babbling
// planner into an exchange kind without hanging.
#include <gtest/gtest.h>

#include <chrono>

#include "live/client.h"
#include "live/live.h"
#include "live/plan_read.h"
#include "reference/mla/check.h"
#include "reference/planner/families/pcp/family.h"
#include "tools/chunkproof/report.h"

namespace cp::live {
namespace {

Json written(const Case& c) {
  const Evaluation ev = evaluate(c);
  const auto text = cli::plan_json(ev).dump();
  return Json::parse(text);
}

TEST(PlanRead, WhatPlanJsonWritesReadsBackToTheSamePlan) {
  int cases = 0;
  for (const VersionInfo& vi : all_versions())
    for (Platform p : {Platform::cuda, Platform::rocm})
      for (std::uint64_t i = 0; i < 40 && vi.family != &pcp_family; ++i) {  // pcp: no random pcp= (test below)
        const Case c = mla::random_case(vi.version, p, 5, i);
        Plan model;
        try {
          model = make_plan(c);
        } catch (const CaseError&) {
          continue;  // the generator's workspace is not one this version takes
        }
        if (model.crashed()) continue;
        const Plan back = plan_from_json(written(c), c, model);
        const PlanDiff d = diff_plans(model, back);
        ASSERT_EQ(d.total, 0u) << print_case(c) << ": " << d.diffs.front().field << " ours " << d.diffs.front().ours
                               << " read " << d.diffs.front().theirs;
        ASSERT_EQ(back.asserts.size(), model.asserts.size()) << print_case(c);
        ++cases;
      }
  EXPECT_GT(cases, 500);
}

TEST(PlanRead, OnlyThePlannersDecisionsAreRequired) {
  const Case c = parse_case("version=v6-current workspace=128 block=64 dcp=4 ctx=65,96 q=3,3");
  const Plan model = make_plan(c);
  const Json j = Json::parse(R"({"schema":"chunkproof.plan/3","workspace":128,"chunks":[
    {"request_start":0,"request_end":1,"token_start":0,"token_end":3,
     "requests":[{"request":0,"start":0,"len":65,"local_start":0,"padded_local_len":17}]},
    {"request_start":1,"request_end":2,"token_start":3,"token_end":6,
     "requests":[{"request":1,"start":0,"len":96,"local_start":0,"padded_local_len":24}]}]})");
  const Plan p = plan_from_json(j, c, model);
  EXPECT_EQ(diff_plans(model, p).total, 0u);
  EXPECT_EQ(p.chunks[0].entries[0].kept, (std::vector<std::int64_t>{17, 16, 16, 16}));  // the reorg formula
}

// Regression: plan_from_json left compress_ratio = 1 and logits_budget = 0 (the plan schema does
// not carry them), so every indexer-dsv4 plan read back broke E-6 (K ranges at rho = 1): the vLLM
// adapter's campaign on vLLM 8bdc70ec7 reported E-6 on plans identical to the model's.
TEST(PlanRead, TheIndexersBudgetsComeFromTheModel) {
  const Case c = parse_case(
      "version=indexer-dsv4 platform=cuda max_model_len=1024 max_num_seqs=64 block=64 compress_ratio=4 "
      "max_logits_mb=1 ctx=0,1000 q=1024,24");
  const Plan model = make_plan(c);
  const Plan back = plan_from_json(written(c), c, model);
  EXPECT_EQ(back.compress_ratio, 4);
  EXPECT_EQ(back.logits_budget, model.logits_budget);
  std::vector<InvariantResult> results;
  Outcome outcome{};
  evaluate_plan(c, back, results, outcome, Level::automatic);
  EXPECT_EQ(outcome, evaluate(c).outcome) << print_case(c);
  EXPECT_EQ(outcome, Outcome::ok);
}

void expect_schema_error(const std::string& text, const std::string& path, const Case& c) {
  try {
    plan_from_json(Json::parse(text), c, make_plan(c));
    ADD_FAILURE() << "accepted: " << text;
  } catch (const SchemaError& e) {
    EXPECT_EQ(e.path, path) << e.what();
  }
}

// chunkproof.plan/4's `pcp` (PCP rows): what plan --json writes reads back with every rank's
// rows, the chunks index the selected rank's rows, and a row that differs is named by the diff.
TEST(PlanRead, PcpRowsReadBackAndTheChunksIndexTheRanksRows) {
  for (const char* line : {"version=pcp-b pcp=2 dcp=2 workspace=256 block=16 ctx=0,100,20 q=2,32,1",
                           "version=pcp-a pcp=2 pcp_rank=1 workspace=64 block=16 ctx=100,8 q=8,1",
                           "version=pcp-c pcp=4 pcp_rank=3 tp=2 dcp=8 workspace=512 block=64 ctx=0,512,70 q=32,32,5",
                           "version=pcp-b pcp=2 workspace=64 block=64 ctx=0 q=1"}) {
    const Case c = parse_case(line);
    const Plan model = make_plan(c);
    ASSERT_TRUE(model.pcp) << line;
    const Json j = written(c);
    ASSERT_TRUE(j.contains("pcp")) << line;
    EXPECT_EQ(j["schema"], "chunkproof.plan/4");
    const Plan back = plan_from_json(j, c, model);
    EXPECT_EQ(diff_plans(model, back).total, 0u) << line;
    ASSERT_TRUE(back.pcp);
    for (std::size_t r = 0; r < model.pcp->ranks.size(); ++r) {
      EXPECT_EQ(back.pcp->ranks[r].rows, model.pcp->ranks[r].rows) << line << " rank " << r;
      EXPECT_EQ(back.pcp->ranks[r].gathered, model.pcp->ranks[r].gathered) << line << " rank " << r;
    }
    EXPECT_EQ(back.pcp->batch_ctx, model.pcp->batch_ctx) << line;
  }
  const Case c = parse_case("version=pcp-b pcp=2 dcp=2 workspace=256 block=16 ctx=0,100,20 q=2,32,1");
  const Plan model = make_plan(c);
  Json j = written(c);
  j["pcp"]["ranks"][1]["rows"][1]["start"] = 109;
  const PlanDiff d = diff_plans(model, plan_from_json(j, c, model));
  ASSERT_FALSE(d.diffs.empty());
  EXPECT_EQ(d.diffs.front().field, "pcp.ranks[1].rows[1].start");
  EXPECT_EQ(generic_field(d.diffs.front().field), "pcp.ranks[].rows[].start");
  // Rank 0 has 4 rows: a span of row 4 is no request of its batch, though the case has 3.
  Json k = written(c);
  k["chunks"][0]["requests"][0]["request"] = 4;
  try {
    plan_from_json(k, c, model);
    ADD_FAILURE() << "row 4 accepted";
  } catch (const SchemaError& e) {
    EXPECT_EQ(e.path, "chunks[0].requests[0].request");
    EXPECT_NE(std::string(e.what()).find("rank's rows"), std::string::npos) << e.what();
  }
  // Rows are the case's requests, within their tokens; `pcp` only where the family has rows.
  expect_schema_error(R"({"schema":"chunkproof.plan/4","workspace":256,"chunks":[],"pcp":{"size":2,"rank":0,"tp":1,
    "ranks":[{"rows":[{"request":3,"start":0,"len":1,"prefilling":true}]},{"rows":[]}]}})",
                      "pcp.ranks[0].rows[0].request", c);
  expect_schema_error(R"({"schema":"chunkproof.plan/4","workspace":256,"chunks":[],"pcp":{"size":4,"ranks":[]}})",
                      "pcp.size", c);
  expect_schema_error(R"({"schema":"chunkproof.plan/4","workspace":64,"chunks":[],"pcp":{}})", "pcp",
                      parse_case("version=v6-current workspace=64 block=16 ctx=10 q=2"));
}

// Every key of the vLLM-main families reaches the external planner (it was missing: a planner of
// pcp-local-shard or ctx_reuse could not see pcp_rows, mla_pcp_path, ctx_reuse...).
TEST(Protocol, TheRequestCarriesTheLocalShardAndReuseKeys) {
  const Json local = Json::parse(request_line(
      parse_case("version=pcp-local-shard pcp=2 dcp=2 pcp_rows=pcp-b mla_pcp_path=local_shard workspace=256 "
                 "block=16 ctx=0,100 q=2,32"),
      7));
  EXPECT_EQ(local["pcp_rows"], "pcp-b");
  EXPECT_EQ(local["mla_pcp_path"], "local_shard");
  EXPECT_EQ(local["ctx_reuse"], false);
  const Json reuse = Json::parse(
      request_line(parse_case("version=pcp-b pcp=2 ctx_reuse=on causal=off sliding_window=128 padded_num_tokens=64 "
                              "workspace=256 block=16 ctx=0,100 q=2,32"),
                   8));
  EXPECT_EQ(reuse["ctx_reuse"], true);
  EXPECT_EQ(reuse["causal"], false);
  EXPECT_EQ(reuse["sliding_window"], 128);
  EXPECT_EQ(reuse["padded_num_tokens"], 64);
  EXPECT_TRUE(reuse["pcp_rows"].is_null());
  EXPECT_TRUE(reuse["mla_pcp_path"].is_null());
}

TEST(PlanRead, SchemaErrorsNameTheField) {
  const Case c = parse_case("version=v6-current workspace=128 block=16 ctx=65,96 q=3,3");
  const std::string head = R"({"schema":"chunkproof.plan/3","workspace":128,)";
  expect_schema_error(R"({"schema":"chunkproof.plan/3","chunks":[]})", "workspace", c);
  expect_schema_error(head + R"("version":"v5-packed","chunks":[]})", "version", c);
  expect_schema_error(head + R"("chunks":{}})", "chunks", c);
  expect_schema_error(head + R"("chunks":[{"request_start":0,"request_end":1,"token_start":0,"token_end":3,
    "requests":[{"request":7,"start":0,"len":65}]}]})",
                      "chunks[0].requests[0].request", c);
  expect_schema_error(head + R"("chunks":[{"request_start":0,"request_end":1,"token_start":0,"token_end":3,
    "requests":[{"request":0,"start":0,"len":"65"}]}]})",
                      "chunks[0].requests[0].len", c);
  expect_schema_error(head + R"("chunks":[{"request_start":0,"request_end":1,"token_start":0,"token_end":3,
    "requests":[{"request":0,"start":0,"len":1099511627776000}]}]})",
                      "chunks[0].requests[0].len", c);
  EXPECT_THROW(decode_reply("not json"), SchemaError);
  EXPECT_THROW(decode_reply(R"({"schema":"chunkproof.plan/2"})"), SchemaError);
  EXPECT_THROW(decode_reply(R"({"error":{"kind":"panic"}})"), SchemaError);
}

TEST(Diff, NamesTheFieldThatDiffers) {
  const Case c = parse_case("version=v6-current workspace=64 block=16 ctx=100,30 q=3,3");
  const Plan model = make_plan(c);
  Plan other = model;
  other.chunks[0].entries[0].len += 16;
  const PlanDiff d = diff_plans(model, other);
  ASSERT_GE(d.total, 1u);
  EXPECT_EQ(d.diffs.front().field, "chunks[0].requests[0].len");
  EXPECT_EQ(generic_field("chunks[3].requests[12].len"), "chunks[].requests[].len");
}

// A planner written in sh: every case gets `reply` (a printf format, newline added).
PlannerOptions sh_planner(const std::string& body, double timeout = 5) {
  return {.command = body, .timeout_s = timeout, .start_timeout_s = timeout};
}

TEST(Client, ErrorRecordsBecomeAssertsAndTheChildIsKept) {
  ExternalPlanner p(sh_planner(
      R"(while read -r l; do echo '{"error":{"kind":"assert","type":"AssertionError","message":"x > 0","location":"m.py:3 in f"}}'; done)"));
  const Case c = parse_case("version=v6-current workspace=64 block=16 ctx=100 q=3");
  const LiveResult r = run_live(p, c);
  EXPECT_EQ(r.exchange.kind, Exchange::error);
  ASSERT_TRUE(r.ev);
  EXPECT_EQ(r.ev->outcome, Outcome::assert_fired);
  EXPECT_EQ(r.signature, "live v6-current/cuda assert: x > 0");
  run_live(p, c);
  EXPECT_EQ(p.starts(), 1);
}

TEST(Client, DeadSilentAndBabblingPlannersAreRestartedNeverWaitedFor) {
  const Case c = parse_case("version=v6-current workspace=64 block=16 ctx=100 q=3");
  const auto t0 = std::chrono::steady_clock::now();
  {
    ExternalPlanner p(sh_planner("echo oops >&2; exit 3"));
    const LiveResult r = run_live(p, c);
    EXPECT_EQ(r.exchange.kind, Exchange::exited);
    EXPECT_NE(r.exchange.message.find("exit 3"), std::string::npos) << r.exchange.message;
    EXPECT_EQ(r.exchange.stderr_tail, "oops");
    EXPECT_EQ(run_live(p, c).exchange.kind, Exchange::exited);
    EXPECT_EQ(p.starts(), 2);
  }
  {
    ExternalPlanner p(sh_planner("sleep 100", 0.3));
    EXPECT_EQ(run_live(p, c).signature, "live v6-current/cuda protocol: timeout");
  }
  {
    ExternalPlanner p(sh_planner("while read -r l; do echo hello; done"));
    EXPECT_EQ(run_live(p, c).exchange.kind, Exchange::garbage);
  }
  {
    ExternalPlanner p(sh_planner(R"(while read -r l; do echo '{"schema":"chunkproof.plan/3","chunks":[]}'; done)"));
    const LiveResult r = run_live(p, c);
    EXPECT_EQ(r.signature, "live v6-current/cuda protocol: schema workspace");
    run_live(p, c);
    EXPECT_EQ(p.starts(), 1);  // a schema error keeps the child
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

}  // namespace
}  // namespace cp::live
