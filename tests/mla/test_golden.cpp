// Golden hashes of every output bit of the CPU numerics check (issue 15): the exact reference
// and chunked outputs, and the vLLM-style out + lse of both merge flavours, over the regression
// corpus and a fixed set of random cases. tests/mla/golden_hashes.txt was recorded BEFORE any
// speed work on reference/mla; a speed change must leave every line unchanged.
//
// Re-record (only for a deliberate change of the numbers or of the case set, say why in the
// commit): CHUNKPROOF_RECORD_GOLDEN=1 ./build/release/tests/mla/test_mla_golden
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "reference/caseio/regression.h"
#include "reference/mla/check.h"
#include "tests/mla/narrow_dims.h"

namespace cp::mla {
namespace {

std::uint64_t fnv1a(const std::vector<float>& v) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](std::uint32_t b) {
    for (int k = 0; k < 4; ++k) {
      h ^= (b >> (8 * k)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  };
  mix(static_cast<std::uint32_t>(v.size()));
  for (float f : v) mix(bits_of(f));
  return h;
}

struct Named {
  std::string name;
  Case c;
};

// The corpus (narrow shapes, as MlaRegressions), random cases of every version at the default
// shape, and a few wide cases (DeepSeek-V3 head dims, few heads) that cross the column blocks.
std::vector<Named> golden_cases() {
  std::vector<Named> out;
  const std::filesystem::path dir = std::filesystem::path(CHUNKPROOF_SOURCE_DIR) / "corpus" / "regressions";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".case") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const CaseRecord rf = read_regression_file(f.string());
    for (const auto& ex : rf.expects) {
      // Recorded over vLLM's families, like the random cases below: the other engines' corpus
      // cases are replayed by MlaRegressions where the numerics run their movement.
      const FamilyInfo* fam = info(ex.version).family;
      if (fam != &floor_divide_family && fam != &packed_family) continue;
      Case c = test_shapes::with_narrow_dims(rf.case_for(ex.version));
      out.push_back({"corpus/" + f.stem().string() + "/" + std::string(name(ex.version)), c});
      c.asserts = false;  // what the plan does to the numbers past its assert
      out.push_back({"corpus/" + f.stem().string() + "/" + std::string(name(ex.version)) + "/asserts=off", c});
    }
  }
  // The random cases were recorded over vLLM's versions (its two families): a family added
  // later brings its own recorded cases rather than renumbering these, and so does v6-sparse
  // (a packed row with the sparse builder's sizing, added in issue 25: its corpus cases above).
  const auto versions = versions_where([](const VersionInfo& v) {
    return (v.family == &floor_divide_family || v.family == &packed_family) && v.sizing != SizingRule::sparse_mla;
  });
  for (std::uint64_t i = 0; i < 200; ++i) {
    const Version v = versions[i % versions.size()];
    const Platform p = (i / versions.size()) % 2 == 0 ? Platform::cuda : Platform::rocm;
    out.push_back({"random/" + std::to_string(i), random_case(v, p, 20261201, i)});
  }
  for (const char* line : {
           "version=v6-current platform=cuda workspace=512 block=16 dcp=2 interleave=4 ctx=700,0,300 q=3,2,4 "
           "dims=deepseek-v3 heads=3 seed=11",
           "version=v6-current platform=rocm workspace=256 block=64 dcp=1 ctx=600 q=5 dims=deepseek-v3 heads=2 seed=12",
           "version=v5-packed platform=cuda workspace=96 block=3 dcp=4 interleave=3 ctx=250,90 q=2,3 "
           "kv_lora_rank=40 rope_dim=12 nope_dim=20 v_dim=36 heads=5 seed=13",
       })
    out.push_back({std::string("wide/") + std::to_string(out.size()), parse_case(line)});
  return out;
}

std::string golden_line(const Named& n) {
  CheckOptions o;
  o.keep_outputs = true;
  std::ostringstream os;
  os << n.name << " ";
  CheckResult r;
  try {
    r = run_check(n.c, o);
  } catch (const std::exception& e) {
    os << "throws";
    return os.str();
  }
  os << "exit=" << r.exit_code() << " differing=" << r.exact.differing << std::hex;
  os << " ref=" << fnv1a(r.reference_out) << " chk=" << fnv1a(r.chunked_out);
  for (int f = 0; f < 2; ++f)
    os << " out" << f << "=" << fnv1a(r.vllm_out[f]) << " lse" << f << "=" << fnv1a(r.vllm_lse[f]);
  return os.str();
}

std::filesystem::path golden_path() {
  return std::filesystem::path(CHUNKPROOF_SOURCE_DIR) / "tests" / "mla" / "golden_hashes.txt";
}

TEST(MlaGolden, EveryOutputBitMatchesTheRecordedHashes) {
  const auto cases = golden_cases();
  if (const char* rec = std::getenv("CHUNKPROOF_RECORD_GOLDEN"); rec != nullptr && std::string(rec) == "1") {
    std::ofstream f(golden_path());
    f << "# tests/mla/test_golden.cpp: FNV-1a 64 of every output bit per case; do not edit by hand\n";
    for (const auto& n : cases) f << golden_line(n) << "\n";
    GTEST_SKIP() << "recorded " << cases.size() << " cases into " << golden_path();
  }
  std::ifstream in(golden_path());
  ASSERT_TRUE(in) << "cannot read " << golden_path();
  std::map<std::string, std::string> want;
  std::string s;
  while (std::getline(in, s)) {
    if (s.empty() || s[0] == '#') continue;
    want[s.substr(0, s.find(' '))] = s;
  }
  ASSERT_EQ(want.size(), cases.size()) << "the case set changed: re-record (see the header of this file)";
  int mismatches = 0;
  for (const auto& n : cases) {
    const std::string got = golden_line(n);
    const auto it = want.find(n.name);
    ASSERT_NE(it, want.end()) << n.name << " not in the golden file";
    if (got != it->second && ++mismatches <= 20)
      ADD_FAILURE() << print_case(n.c) << "\n  golden: " << it->second << "\n  now:    " << got;
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace cp::mla
