// Issue 24: the case line's shorthand (repeats, case-insensitive enum values) and "did you mean".
#include <gtest/gtest.h>

#include "reference/caseio/case.h"
#include "reference/caseio/suggest.h"

namespace cp {
namespace {

const char* kMi300x = "platform=rocm workspace=65536 block=64 dcp=8 interleave=1";

TEST(CaseShorthand, RepeatsSpellOutInThePrintedForm) {
  const Case c = parse_case(std::string("version=v1-dcp ") + kMi300x + " ctx=30000*3 q=16*2,16");
  EXPECT_EQ(c.ctx, (std::vector<std::int64_t>{30000, 30000, 30000}));
  EXPECT_EQ(c.q, (std::vector<std::int64_t>{16, 16, 16}));
  EXPECT_EQ(
      print_case(c),
      "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16");
  EXPECT_EQ(parse_case(std::string("version=v6-current ") + kMi300x + " ctx=1,30000*9,2 q=4*11").ctx.size(), 11u);
}

TEST(CaseShorthand, BadRepeatsNameTheKey) {
  for (const char* list : {"ctx=5*0 q=4", "ctx=5*x q=4", "ctx=5* q=4", "ctx=5*5000 q=4*5000", "ctx=5 q=4*-1"}) {
    try {
      parse_case(std::string("version=v6-current workspace=64 block=16 ") + list);
      ADD_FAILURE() << list << " parsed";
    } catch (const CaseError& e) {
      EXPECT_TRUE(e.key == "ctx" || e.key == "q") << list << ": " << e.what();
    }
  }
}

TEST(CaseShorthand, EnumValuesAreCaseInsensitive) {
  const Case c = parse_case(
      "version=V6-Current platform=ROCm builder=Sparse asserts=OFF dims=DeepSeek-V3 "
      "workspace=64 block=16 ctx=5 q=4");
  EXPECT_EQ(c.version, Version::v6_current);
  EXPECT_EQ(c.platform, Platform::rocm);
  EXPECT_EQ(c.builder, Builder::sparse);
  EXPECT_FALSE(c.asserts);
  EXPECT_EQ(c.dims.preset, "deepseek-v3");
  EXPECT_EQ(print_case(c).substr(0, 46), "version=v6-current platform=rocm builder=spars");
}

TEST(Suggest, NearestWordOrNothing) {
  EXPECT_EQ(edit_distance("plna", "plan"), 1u);  // a swap of neighbours is one edit
  EXPECT_EQ(edit_distance("ROCm", "rocm"), 0u);
  EXPECT_EQ(nearest("blok", {"block", "dcp", "ctx"}), "block");
  EXPECT_EQ(nearest("v6-curent", {"v5-packed", "v6-current"}), "v6-current");
  EXPECT_EQ(nearest("colour", {"block", "dcp", "ctx", "q"}), "");
  EXPECT_EQ(did_you_mean("rcom", {"cuda", "rocm"}), " (did you mean 'rocm'?)");
  EXPECT_EQ(did_you_mean("zzz", {"cuda", "rocm"}), "");
}

TEST(Suggest, CaseErrorsSuggest) {
  try {
    parse_case("version=v6-current workspace=64 blok=16 ctx=5 q=4");
    ADD_FAILURE();
  } catch (const CaseError& e) {
    EXPECT_EQ(e.key, "blok");
    EXPECT_NE(std::string(e.what()).find("did you mean 'block'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cp
