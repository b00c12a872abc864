// Pins (issue 24 item 2): exact values for prove, fuzz and map; the fuzz decoder applies them and
// the minimiser never leaves them.
#include <gtest/gtest.h>

#include "campaign/minimize.h"
#include "fuzz/common/case_codec.h"
#include "fuzz/common/judge.h"
#include "reference/caseio/pins.h"

namespace cp {
namespace {

TEST(Pins, ParseNamesTheBadKeyAndRange) {
  Pins p;
  parse_pins("block=64,dcp=8", p);
  EXPECT_EQ(p.block, 64);
  EXPECT_EQ(p.dcp, 8);
  EXPECT_EQ(describe(p), "block=64 dcp=8");
  try {
    parse_pins("blok=64", p);
    FAIL() << "unknown key accepted";
  } catch (const CaseError& e) {
    EXPECT_EQ(e.key, "blok");
  }
  EXPECT_THROW(parse_pins("dcp=0", p), CaseError);
  EXPECT_THROW(parse_pins("dcp", p), CaseError);
  Pins q;
  EXPECT_THROW(parse_pins("workspace=65536,mml=4096", q), CaseError);
  Pins r;
  EXPECT_THROW(parse_pins("block=64,interleave=48", r), CaseError);
}

TEST(Pins, ApplyKeepsTheCaseInsideTheFormat) {
  Case c;
  c.block = 16;
  c.max_model_len = 4096;
  c.max_num_seqs = 8;
  Pins p;
  parse_pins("interleave=64,workspace=65536", p);
  apply_pins(p, c);
  EXPECT_EQ(c.interleave, 64);
  EXPECT_EQ(c.block % c.interleave, 0) << "a pinned interleave must divide the block";
  EXPECT_EQ(c.workspace, 65536);
  EXPECT_FALSE(c.max_model_len) << "a workspace pin replaces the sizing inputs";
  EXPECT_TRUE(satisfies(p, c));
}

TEST(Pins, EveryDecodedCaseHasThePinnedValues) {
  fuzz::Selection sel = fuzz::Selection::all();
  parse_pins("block=64,dcp=8,workspace=65536", sel.pins);
  for (unsigned seed = 0; seed < 200; ++seed) {
    std::vector<std::uint8_t> bytes(64);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(seed * 131 + i * 17);
    const Case c = fuzz::decode_case(bytes.data(), bytes.size(), sel);
    ASSERT_TRUE(satisfies(sel.pins, c)) << print_case(c);
  }
}

// The bug the pins exist for: the MI300X seed (block=64 dcp=8 workspace=65536) was minimised into
// toy configurations (block=1, workspace=1); with the pins the minimiser shrinks only the batch.
TEST(Pins, MinimiserNeverLeavesThePins) {
  const Case seed = parse_case(
      "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16");
  fuzz::TargetConfig cfg;
  cfg.quiet = true;
  const fuzz::Judgement j = fuzz::judge(seed, cfg);
  ASSERT_NE(j.kind, fuzz::Judgement::ok);
  Pins p;
  parse_pins("block=64,dcp=8,workspace=65536", p);
  const auto pinned = fuzz::minimize_case(seed, j.signature, cfg, 5.0, nullptr, p);
  EXPECT_TRUE(satisfies(p, pinned.c)) << print_case(pinned.c);
  EXPECT_EQ(fuzz::judge(pinned.c, cfg).signature, j.signature);
  const auto free = fuzz::minimize_case(seed, j.signature, cfg, 5.0);
  EXPECT_FALSE(satisfies(p, free.c)) << "without pins the minimiser shrinks the geometry too: " << print_case(free.c);
}

}  // namespace
}  // namespace cp

namespace cp {
namespace {

// The planner target's decoder reaches the pcp family's reuse keys (#57668) and the CUDA-graph
// token count (Q4) on their domains, and encode_case round-trips them (so findings replay).
TEST(FuzzDomain, PcpReuseKeysAreReached) {
  fuzz::Selection sel = fuzz::Selection::all();
  sel.versions = {Version::pcp_a, Version::pcp_b, Version::pcp_c};
  int reuse = 0, fallback_cond = 0, padded = 0, reused_plans = 0;
  for (unsigned seed = 0; seed < 400; ++seed) {
    std::vector<std::uint8_t> bytes(96);
    for (std::size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<std::uint8_t>((seed * 2654435761u + i * 40503u) >> (i % 13));
    const Case c = fuzz::decode_case(bytes.data(), bytes.size(), sel);
    reuse += c.ctx_reuse ? 1 : 0;
    fallback_cond += (!c.causal || c.sliding_window) ? 1 : 0;
    padded += c.padded_num_tokens ? 1 : 0;
    if (c.padded_num_tokens) {
      ASSERT_NE(c.version, Version::pcp_a) << print_case(c);
    }
    try {
      validate_case(c);
      if (c.ctx_reuse && c.workspace && *c.workspace >= 4096) {  // plans of a few chunks: a fast test
        const Plan p = make_plan(c);
        reused_plans += p.pcp && p.pcp->ranks[static_cast<std::size_t>(p.pcp->rank)].reused ? 1 : 0;
      }
    } catch (const std::exception&) {
    }
  }
  EXPECT_GT(reuse, 40);
  EXPECT_GT(fallback_cond, 10);
  EXPECT_GT(padded, 40);
  EXPECT_GT(reused_plans, 0);  // the merged plan itself runs, not only its fallback
  const Case c = parse_case("version=pcp-c workspace=128 block=16 pcp=2 ctx_reuse=on sliding_window=4096 ctx=64 q=64");
  EXPECT_EQ(fuzz::decode_case(fuzz::encode_case(c).data(), fuzz::encode_case(c).size(), fuzz::Selection::all()), c);
  const Case d = parse_case("version=pcp-b workspace=128 block=16 pcp=2 padded_num_tokens=2 ctx=8,8,8 q=1,1,1");
  EXPECT_EQ(fuzz::decode_case(fuzz::encode_case(d).data(), fuzz::encode_case(d).size(), fuzz::Selection::all()), d);
}

}  // namespace
}  // namespace cp
