// Demo stage "plan": the notable cases of the spec, each with the verdict the spec predicts.
#include "invariants/catalogue.h"
#include "tools/chunkproof/demo.h"
#include "tools/chunkproof/report.h"

namespace cp::cli {
namespace stage_plan {  // one per file: the unity build puts several files in one TU
namespace {

struct Notable {
  const char* name;
  const char* line;
  const char* expected;  // "assert", "violation <tag>", "ok"
};

constexpr Notable kCases[] = {
    {"MI300X crash, v1-dcp/rocm dcp=8 n=3",
     "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16",
     "assert"},
    {"MI300X crash, v2-interleave/rocm dcp=8 n=3",
     "version=v2-interleave platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,100,100 q=16,16,16",
     "assert"},
    {"#46114 zero accuracy, v2/rocm dcp=4 S=32768",
     "version=v2-interleave platform=rocm workspace=32768 block=16 dcp=4 interleave=1 ctx=12000,12000,12000 q=8,8,8",
     "assert"},
    {"interleave: v2/cuda I=64, assert passes M%W",
     "version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 q=4,4,4",
     "assert"},
    {"interleave, python -O: silent misrouting",
     "version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 q=4,4,4 "
     "asserts=off",
     "violation I-9"},
    {"v4-pr47327/rocm sparse builder: assert removed, misaligned",
     "version=v4-pr47327 builder=sparse platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,100,100 "
     "q=16,16,16",
     "assert"},
    {"#46114 fixed: v3-pr46114/rocm dense builder, M=21824",
     "version=v3-pr46114 platform=rocm workspace=65536 block=64 dcp=4 interleave=1 ctx=30000,30000,30000 q=16,16,16",
     "ok"},
    {"v0-early without FA3 (rocm): page_size crash",
     "version=v0-early platform=rocm max_model_len=4095 max_num_seqs=128 block=128 dcp=1 interleave=1 ctx=1 q=41",
     "crash"},
    {"page-rounding gather, v1/rocm no DCP",
     "version=v1-dcp platform=rocm workspace=65536 block=16 dcp=1 interleave=1 ctx=50000,30000,30000 q=8,8,8",
     "violation I-5"},
    {"empty+empty Triton merge, v1/rocm",
     "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=1 interleave=1 ctx=70000,0 q=4,4", "violation I-12"},
    {"W=3 init assert, v2 sized from engine",
     "version=v2-interleave platform=cuda max_model_len=163840 max_num_seqs=256 block=64 dcp=3 interleave=1 "
     "ctx=70000,20000 q=8,8",
     "assert"},
    {"v6-current, the MI300X case",
     "version=v6-current platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16",
     "ok"},
    {"v6-current, the interleave case",
     "version=v6-current platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 q=4,4,4", "ok"},
    {"v6-current sized, mns=1024 I=64",
     "version=v6-current platform=rocm max_model_len=163840 max_num_seqs=1024 block=64 dcp=8 interleave=64 "
     "ctx=150000,4000,0,90000 q=16,16,16,16",
     "ok"},
    {"PCP row, #53573: pcp-b P=2 DCP=2, 2-token prompt",
     "version=pcp-b platform=cuda workspace=1024 block=16 dcp=2 interleave=1 pcp=2 ctx=0 q=2", "violation P-13"},
    {"v5-packed sized, W=3",
     "version=v5-packed platform=cuda max_model_len=163840 max_num_seqs=256 block=64 dcp=3 interleave=1 "
     "ctx=70000,20000 q=8,8",
     "ok"},
};

std::vector<StageRow> run(const DemoOptions&) {
  std::vector<StageRow> rows;
  for (const auto& n : kCases) {
    StageRow r;
    r.item = n.name;
    r.expected = n.expected;
    const Evaluation ev = evaluate(parse_case(n.line));
    r.got = one_line_verdict(ev);
    const std::string exp = n.expected;
    if (exp == "ok")
      r.as_expected = ev.outcome == Outcome::ok;
    else if (exp == "assert")
      r.as_expected = ev.outcome == Outcome::assert_fired;
    else if (exp == "crash")
      r.as_expected = ev.outcome == Outcome::crashed;
    else {
      InvariantId id{};
      parse_invariant(exp.substr(exp.find(' ') + 1), id);
      r.as_expected = ev.outcome == Outcome::violation && ev.violated(id);
    }
    r.detail = "chunkproof plan --case '" + print_case(ev.c) + "'";
    rows.push_back(std::move(r));
  }
  return rows;
}

const RegisterDemoStage reg{10, "plan", run};

}  // namespace
}  // namespace stage_plan
}  // namespace cp::cli
