// planner_fuzz: a case decoded from the bytes (fuzz/common/case_codec.h) runs through the
// version's sizing and planner and every invariant of the catalogue, evaluated at interval level
// (invariants/interval/: the token-level verdicts at a cost independent of context length;
// interval_diff_fuzz holds the two levels together). The domain is the full one: contexts up to
// 2^24, workspaces up to 2^31, 1024 requests, DCP up to 64, every interleave dividing the block;
// only plans over max_fuzz_work() entries x W are skipped.
//
// Which versions are expected correct (a violation or an assert is a crash) and which are
// under investigation (a violation is a recorded finding, fuzzing goes on) is chosen at run
// time (fuzz/common/findings.h: CHUNKPROOF_FUZZ_EXPECT_CORRECT, default v5-packed,v6-current),
// and which versions/platforms the input selects from by CHUNKPROOF_FUZZ_VERSIONS /
// CHUNKPROOF_FUZZ_PLATFORMS, so one binary serves every campaign.
//
// Crashes regardless of the version: an exception other than the documented input errors,
// a sanitizer report, and a violation of an invariant every version keeps by construction
// (I-3 coverage, I-11 configuration: spec §6).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "fuzz/common/case_codec.h"
#include "fuzz/common/findings.h"
#include "fuzz/common/judge.h"
#include "fuzz/replay.h"
#include "invariants/catalogue.h"
#include "invariants/expect.h"
#include "reference/arith/checked_int.h"
#include "reference/caseio/regression.h"

namespace {

using namespace cp;
using namespace cp::fuzz;

struct State {
  TargetConfig cfg = TargetConfig::from_env();
  Selection sel = [] {
    try {
      return Selection::from_env();
    } catch (const CaseError& e) {
      std::fprintf(stderr, "planner_fuzz: %s\n", e.what());
      std::exit(2);
    }
  }();
  FindingSink sink{cfg};
};
State& state() {
  static State s;
  return s;
}

// Verdict features: libFuzzer reads this section like its coverage counters (and clears it
// before every execution), so an input whose verdict is new — a version/platform/geometry that
// holds, asserts at a stage, or violates an invariant for the first time — enters the corpus.
// The invariant checks themselves are compiled without coverage (fuzz/CMakeLists.txt,
// CHUNKPROOF_FUZZ_CHECKS_COVERAGE): their loops run once per chunk entry and rank, so their
// counters would reward larger plans, not new behaviour. Unused (a plain array) without libFuzzer.
constexpr std::size_t kVersionSlots = 8, kGeometries = 4,
                      kKinds = 8 + kNumInvariants;  // 8 versions; kinds: ok, 4 stages (slots 1-7), the invariants
__attribute__((section("__libfuzzer_extra_counters"), used))
std::uint8_t g_verdict_features[kVersionSlots * 2 * kGeometries * kKinds];

void mark_verdict(const Case& c, const Judgement& j) {
  const std::size_t geometry = (c.dcp > 1 ? 1 : 0) + (c.interleave > 1 ? 2 : 0);
  const std::size_t base =
      ((static_cast<std::size_t>(c.version) % kVersionSlots * 2 + static_cast<std::size_t>(c.platform) % 2) *
           kGeometries +
       geometry) *
      kKinds;
  if (j.outcome == Outcome::ok) {
    g_verdict_features[base] = 1;
    return;
  }
  if (j.outcome != Outcome::violation) g_verdict_features[base + 1 + static_cast<std::size_t>(j.assert_stage)] = 1;
  for (int i = 0; i < kNumInvariants; ++i)
    if (j.violated >> i & 1) g_verdict_features[base + 8 + static_cast<std::size_t>(i)] = 1;
}

// Judges one case and acts on it; returns false when the input is rejected.
bool run_case(const Case& c, bool allow_record) {
  State& st = state();
  const Judgement j = judge(c, st.cfg, st.cfg.print_case ? nullptr : &st.sink);
  if (j.kind == Judgement::rejected) return false;
  mark_verdict(c, j);
  if (st.cfg.print_case)
    std::printf("case: %s\nverdict: %s\n", j.case_line.c_str(), j.signature.empty() ? "ok" : j.signature.c_str());
  if (j.kind == Judgement::ok) return true;
  if (j.kind == Judgement::crash || stop_on_matches(st.cfg.stop_on, j.tags))
    crash_for(j.signature, j.case_line, j.detail);
  if (allow_record && !j.known) st.sink.record(j.signature, j.case_line, j.detail);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cp::fuzz::count_execution();
  State& st = state();
  FuzzedDataProvider fdp(data, size);
  thread_local Case c;  // reused: the hot path allocates nothing once warm
  decode_case_into(fdp, st.sel, c);
  if (!run_case(c, true)) return 0;
  if (st.cfg.differential) {
    // Differential (STYLE habit 8): every expected-correct version must accept the same batch.
    for (Version v : st.cfg.expect_correct) {
      if (v == c.version) continue;
      Case d = c;
      d.version = v;
      run_case(d, false);
    }
  }
  return 0;
}

// Regression files (reference/caseio/regression.h): `# expect <version>: ok|assert|violation
// I-x,I-y` lines and one case line; each expectation replays the case with version= substituted.
extern "C" int ChunkproofReplayCaseFile(const char* path, const std::uint8_t* data, std::size_t size) {
  std::vector<CaseRecord> records;
  try {
    records = read_case_records_text(std::string(reinterpret_cast<const char*>(data), size), path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  if (records.size() != 1 || records.front().expects.empty()) {
    std::fprintf(stderr, "%s: not one case line with '# expect' lines\n", path);
    return 1;
  }
  const CaseRecord& rf = records.front();
  int bad = 0;
  for (const auto& ex : rf.expects) {
    const std::string ver(name(ex.version));
    try {
      const Evaluation ev = evaluate(rf.case_for(ex.version));
      if (!meets(ev, ex)) {
        std::fprintf(stderr, "%s: %s: expected %s, got %s (%s)\n", path, ver.c_str(), verdict_text(ex).c_str(),
                     signature(ev).empty() ? "ok" : signature(ev).c_str(), print_case(ev.c).c_str());
        ++bad;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s: %s\n", path, ver.c_str(), e.what());
      ++bad;
    }
  }
  return bad ? 1 : 0;
}
