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
#include "reference/arith/checked_int.h"

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

// Judges one case and acts on it; returns false when the input is rejected.
bool run_case(const Case& c, bool allow_record) {
  State& st = state();
  const Judgement j = judge(c, st.cfg, st.cfg.print_case ? nullptr : &st.sink);
  if (j.kind == Judgement::rejected) return false;
  if (st.cfg.print_case)
    std::printf("case: %s\nverdict: %s\n", j.case_line.c_str(), j.signature.empty() ? "ok" : j.signature.c_str());
  if (j.kind == Judgement::ok) return true;
  if (j.kind == Judgement::crash || stop_on_matches(st.cfg.stop_on, j.tags))
    crash_for(j.signature, j.case_line, j.detail);
  if (allow_record) st.sink.record(j.signature, j.case_line, j.detail);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cp::fuzz::count_execution();
  State& st = state();
  FuzzedDataProvider fdp(data, size);
  Case c = decode_case(fdp, st.sel);
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

// Regression files: `# expect <version>: ok|assert|violation I-x,I-y` lines and one case line;
// each expectation replays the case with version= substituted.
extern "C" int ChunkproofReplayCaseFile(const char* path, const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string s, line;
  std::vector<std::pair<std::string, std::string>> expects;
  while (std::getline(in, s)) {
    if (s.rfind("# expect ", 0) == 0) {
      const auto colon = s.find(':');
      if (colon == std::string::npos) continue;
      expects.emplace_back(s.substr(9, colon - 9), s.substr(colon + 1));
    } else if (!s.empty() && s[0] != '#' && line.empty()) {
      line = s;
    }
  }
  auto trim = [](std::string t) {
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.erase(t.begin());
    while (!t.empty() && (t.back() == ' ' || t.back() == '\r' || t.back() == '\t')) t.pop_back();
    return t;
  };
  if (line.empty() || expects.empty()) {
    std::fprintf(stderr, "%s: no case line or no '# expect' line\n", path);
    return 1;
  }
  int bad = 0;
  for (auto& [ver, want] : expects) {
    ver = trim(ver);
    want = trim(want);
    try {
      Case c = parse_case(line);
      const auto v = parse_version(ver);
      if (!v) throw CaseError("version", "unknown version '" + ver + "' in # expect");
      c.version = *v;
      validate_case(c);
      const Evaluation ev = evaluate(c);
      bool as_expected = false;
      if (want == "ok")
        as_expected = ev.outcome == Outcome::ok;
      else if (want == "assert")
        as_expected = ev.outcome == Outcome::assert_fired;
      else if (want == "crash")
        as_expected = ev.outcome == Outcome::crashed;
      else if (want.rfind("violation", 0) == 0) {
        as_expected = ev.outcome == Outcome::violation;
        std::istringstream tags(want.substr(9));
        std::string tag;
        while (std::getline(tags, tag, ',')) {
          tag = trim(tag);
          InvariantId id{};
          if (tag.empty()) continue;
          if (!parse_invariant(tag, id)) throw CaseError("", "bad invariant '" + tag + "' in # expect");
          as_expected = as_expected && ev.violated(id);
        }
      } else {
        throw CaseError("", "bad expectation '" + want + "'");
      }
      if (!as_expected) {
        std::fprintf(stderr, "%s: %s: expected %s, got %s (%s)\n", path, ver.c_str(), want.c_str(),
                     signature(ev).empty() ? "ok" : signature(ev).c_str(), print_case(c).c_str());
        ++bad;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s: %s\n", path, ver.c_str(), e.what());
      ++bad;
    }
  }
  return bad ? 1 : 0;
}
