// live_planner_fuzz: libFuzzer through a persistent external planner (docs/live.md, issue 26).
// `chunkproof fuzz --engine libfuzzer --planner-cmd CMD` runs it: each input is decoded to a case
// by the planner target's decoder (fuzz/common/case_codec.h), sent to ONE planner child started
// at LLVMFuzzerInitialize (live::ExternalPlanner, the protocol client every command uses), and
// judged by live_judgement (live_judge.h: every invariant that applies, and with
// CHUNKPROOF_LIVE_PLANNER_DIFF=1 the field-by-field diff against the model of the case's
// version). A crash, hang or garbage of the child is a finding (`protocol: ...`) and the client
// restarts it on the next input; findings are records in CHUNKPROOF_FUZZ_FINDINGS_DIR, which the
// campaign runner minimizes through its own planner and reports as case lines, as with the
// built-in engine. Without libFuzzer (g++) it links the standalone replay driver like every
// target (chunkproof_add_fuzz_target), so CTest replays inputs through a planner too.
//
// Environment (set by the campaign runner, campaign.cpp): CHUNKPROOF_LIVE_PLANNER_CMD (the
// shell command; required), CHUNKPROOF_LIVE_PLANNER_DIFF (1: diff), CHUNKPROOF_LIVE_PLANNER_TIMEOUT
// (seconds per reply, default 10), and the planner target's CHUNKPROOF_FUZZ_* (selection,
// findings folder, --stop-on, execution log, CHUNKPROOF_PRINT_CASE).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "campaign/live_judge.h"
#include "fuzz/common/case_codec.h"
#include "fuzz/common/findings.h"

extern "C" {
int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv);
}

namespace {

using namespace cp;
using namespace cp::fuzz;

struct State {
  TargetConfig cfg = TargetConfig::from_env();
  Selection sel = Selection::all();
  FindingSink sink{cfg};
  std::unique_ptr<live::ExternalPlanner> planner;
  bool diff = false;
};
State& state() {
  static State s;
  return s;
}

[[noreturn]] void stop(int code, const std::string& why) {
  std::fprintf(stderr, "live_planner_fuzz: %s\n", why.c_str());
  std::fflush(stderr);
  std::_Exit(code);
}

// Verdict features (as planner_fuzz's): a (version, platform, geometry, signature) seen for the
// first time enters the corpus. The planner's own coverage is out of reach (another process),
// so its answers are the guidance: a new kind of disagreement, violation or error is new.
constexpr std::size_t kFeatureSlots = 4096;
__attribute__((section("__libfuzzer_extra_counters"), used)) std::uint8_t g_live_features[kFeatureSlots];

void mark_verdict(const Case& c, const Judgement& j) {
  const std::size_t geometry = (c.dcp > 1 ? 1 : 0) + (c.interleave > 1 ? 2 : 0) + (c.pcp ? 4 : 0);
  const std::size_t h = std::hash<std::string>{}(j.signature) ^ (static_cast<std::size_t>(c.version) * 131 +
                                                                 static_cast<std::size_t>(c.platform) * 17 + geometry) *
                                                                    0x9e3779b97f4a7c15ULL;
  g_live_features[h % kFeatureSlots] = 1;
}

// One case through the planner; a planner that says it cannot run here (exit 4 before its first
// reply) ends the process with 4, as every --planner-cmd command does.
Judgement judge(State& st, const Case& c) {
  try {
    return live_judgement(*st.planner, c, st.diff);
  } catch (const live::PlannerCannotRun& e) {
    stop(4, e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  State& st = state();
  const char* cmd = std::getenv("CHUNKPROOF_LIVE_PLANNER_CMD");
  if (!cmd || !*cmd)
    stop(2, "CHUNKPROOF_LIVE_PLANNER_CMD is not set (run it through chunkproof fuzz --planner-cmd CMD)");
  const char* diff = std::getenv("CHUNKPROOF_LIVE_PLANNER_DIFF");
  st.diff = diff && std::string(diff) == "1";
  const char* timeout = std::getenv("CHUNKPROOF_LIVE_PLANNER_TIMEOUT");
  const double t = timeout ? std::atof(timeout) : 0;
  try {
    st.sel = Selection::from_env();
    st.planner =
        std::make_unique<live::ExternalPlanner>(live::PlannerOptions{.command = cmd, .timeout_s = t > 0 ? t : 10});
  } catch (const std::exception& e) {
    stop(2, e.what());
  }
  // The child's start (its imports: up to the client's start timeout) is paid here, before
  // libFuzzer times the inputs: the empty input's case, judged and dropped.
  judge(st, decode_case(nullptr, 0, st.sel));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  count_execution();
  State& st = state();
  if (!st.planner) LLVMFuzzerInitialize(nullptr, nullptr);
  FuzzedDataProvider fdp(data, size);
  thread_local Case c;  // reused, as planner_fuzz's
  decode_case_into(fdp, st.sel, c);
  const Judgement j = judge(st, c);
  if (j.kind == Judgement::rejected) return 0;
  mark_verdict(c, j);
  if (st.cfg.print_case)
    std::printf("case: %s\nverdict: %s\n", print_case(c).c_str(), j.signature.empty() ? "ok" : j.signature.c_str());
  if (j.kind == Judgement::ok) return 0;
  if (stop_on_matches(st.cfg.stop_on, j.tags)) crash_for(j.signature, j.case_line, j.detail);
  st.sink.record(j.signature, j.case_line, j.detail);  // once per signature and process
  return 0;
}
