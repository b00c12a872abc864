// Demo stage "check": the CPU numerics, bit for bit (reference/mla). A legacy plan that
// misroutes rows shows a bit difference, the same case under v6-current is identical, the
// empty+empty merge is NaN on Triton only, and a few hundred random packed-planner cases
// (dcp 1..8, interleave > 1 among them) are all bit-identical.
#include <string>

#include "reference/mla/check.h"
#include "tools/chunkproof/demo.h"

namespace cp::cli {
namespace stage_check {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kInterleave =
    "version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 q=4,4,4";

StageRow one(const std::string& item, const std::string& expected, const std::string& line,
             bool (*pred)(const mla::CheckResult&)) {
  StageRow r;
  r.item = item;
  r.expected = expected;
  const mla::CheckResult res = mla::run_check(parse_case(line), {});
  r.got = res.one_line();
  r.as_expected = pred(res);
  r.detail = "chunkproof check --case '" + print_case(res.c) + "'";
  return r;
}

std::vector<StageRow> run(const DemoOptions& opts) {
  std::vector<StageRow> rows;
  rows.push_back(one("v2-interleave I=64: assert", "assert", kInterleave,
                     [](const mla::CheckResult& r) { return r.assert_fired; }));
  rows.push_back(one("v2-interleave I=64, python -O", "bits differ", std::string(kInterleave) + " asserts=off",
                     [](const mla::CheckResult& r) { return r.exact.differing > 0; }));
  rows.push_back(one("v1-dcp page-rounding gather", "bits differ",
                     "version=v1-dcp platform=rocm workspace=65536 block=16 dcp=1 interleave=1 ctx=50000,30000,30000 "
                     "q=8,8,8",
                     [](const mla::CheckResult& r) { return r.exact.differing > 0; }));
  rows.push_back(one("v6-current, the interleave case", "bits identical",
                     "version=v6-current platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 "
                     "q=4,4,4",
                     [](const mla::CheckResult& r) { return r.exact.identical() && r.exit_code() == 0; }));
  rows.push_back(one("empty+empty merge (I-12b), v1/rocm", "NaN on Triton, not CUDA",
                     "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=1 interleave=1 ctx=70000,0 q=4,4",
                     [](const mla::CheckResult& r) {
                       return r.vllm.flavours[0].nan > 0 && r.vllm.flavours[1].nan == 0 && r.exact.identical();
                     }));
  // Random packed-planner cases.
  struct Batch {
    Version v;
    Platform p;
    int n;
  };
  const int scale = opts.quick ? 1 : 3;
  for (const Batch& b :
       {Batch{Version::v6_current, Platform::cuda, 50 * scale}, Batch{Version::v6_current, Platform::rocm, 50 * scale},
        Batch{Version::v5_packed, Platform::cuda, 30 * scale}}) {
    StageRow r;
    r.item = std::string(name(b.v)) + "/" + std::string(name(b.p)) + " random x" + std::to_string(b.n);
    r.expected = "all bits identical";
    int bad = -1;
    std::string got;
    for (int i = 0; i < b.n && bad < 0; ++i) {
      const auto res = mla::run_check(mla::random_case(b.v, b.p, 1, static_cast<std::uint64_t>(i)), {});
      if (res.exit_code() != 0) {
        bad = i;
        got = res.one_line();
        r.detail = "chunkproof check --case '" + print_case(res.c) + "'";
      }
    }
    r.as_expected = bad < 0;
    r.got = bad < 0 ? std::to_string(b.n) + "/" + std::to_string(b.n) + " bits identical"
                    : "case " + std::to_string(bad) + ": " + got;
    if (bad < 0)
      r.detail = "chunkproof check --random " + std::to_string(b.n) + " --version " + std::string(name(b.v)) +
                 " --platform " + std::string(name(b.p));
    rows.push_back(std::move(r));
  }
  return rows;
}

const RegisterDemoStage reg{30, "check", run};

}  // namespace
}  // namespace stage_check
}  // namespace cp::cli
