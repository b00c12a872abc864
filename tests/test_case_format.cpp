// The case format (DESIGN §8): round trips, and errors that name the bad key.
#include <gtest/gtest.h>

#include "reference/caseio/case.h"

namespace cp {
namespace {

TEST(CaseFormat, CanonicalLineRoundTrips) {
  const std::string line =
      "version=v2-interleave platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,100,100 q=16,16,16";
  EXPECT_EQ(print_case(parse_case(line)), line);
}

TEST(CaseFormat, OptionalKeysRoundTrip) {
  const std::string line =
      "version=v6-current platform=cuda max_model_len=163840 max_num_seqs=256 block=64 dcp=4 interleave=16 "
      "ctx=0,5,70000 q=1,4,4 asserts=off dims=deepseek-v3 heads=16 seed=7";
  const Case c = parse_case(line);
  EXPECT_EQ(print_case(c), line);
  EXPECT_EQ(parse_case(print_case(c)), c);
  EXPECT_EQ(c.dims.kv_lora_rank, 512);
  EXPECT_EQ(c.dims.heads, 16);
  EXPECT_FALSE(c.asserts);
}

TEST(CaseFormat, WordOrderAndDefaultsDoNotMatter) {
  const Case a = parse_case("q=4 ctx=100 block=16 workspace=1024 version=v5-packed");
  EXPECT_EQ(print_case(a), "version=v5-packed platform=cuda workspace=1024 block=16 dcp=1 interleave=1 ctx=100 q=4");
}

struct BadLine {
  const char* line;
  const char* key;  // the key the error must name ("" = the line itself)
};

class CaseFormatErrors : public ::testing::TestWithParam<BadLine> {};

TEST_P(CaseFormatErrors, NameTheKey) {
  try {
    parse_case(GetParam().line);
    FAIL() << "accepted: " << GetParam().line;
  } catch (const CaseError& e) {
    EXPECT_EQ(e.key, GetParam().key) << e.what();
    if (*GetParam().key) {
      EXPECT_NE(std::string(e.what()).find(GetParam().key), std::string::npos) << e.what();
    }
  }
}

constexpr const char* kOk = "workspace=1024 block=16 ctx=10 q=4";

INSTANTIATE_TEST_SUITE_P(
    Malformed, CaseFormatErrors,
    ::testing::Values(
        BadLine{"", ""}, BadLine{"version v6-current", ""}, BadLine{"=3", ""},
        BadLine{"version=v6-current colour=red workspace=1024 block=16 ctx=10 q=4", "colour"},
        BadLine{"workspace=1024 block=16 ctx=10 q=4", "version"},
        BadLine{"version=v9 workspace=1024 block=16 ctx=10 q=4", "version"},
        BadLine{"version=v6-current platform=tpu workspace=1024 block=16 ctx=10 q=4", "platform"},
        BadLine{"version=v6-current block=16 ctx=10 q=4", "workspace"},
        BadLine{"version=v6-current max_model_len=4096 block=16 ctx=10 q=4", "max_num_seqs"},
        BadLine{"version=v6-current workspace=1024 max_model_len=4096 max_num_seqs=2 block=16 ctx=10 q=4", "workspace"},
        BadLine{"version=v6-current workspace=0 block=16 ctx=10 q=4", "workspace"},
        BadLine{"version=v6-current workspace=-5 block=16 ctx=10 q=4", "workspace"},
        BadLine{"version=v6-current workspace=1k block=16 ctx=10 q=4", "workspace"},
        BadLine{"version=v6-current workspace=1024 block=0 ctx=10 q=4", "block"},
        BadLine{"version=v6-current workspace=1024 ctx=10 q=4", "block"},
        BadLine{"version=v6-current workspace=1024 block=16 dcp=0 ctx=10 q=4", "dcp"},
        BadLine{"version=v6-current workspace=1024 block=16 dcp=2 interleave=3 ctx=10 q=4", "interleave"},
        BadLine{"version=v6-current workspace=1024 block=16 dcp=2 interleave=32 ctx=10 q=4", "interleave"},
        BadLine{"version=v0-early workspace=1024 block=16 dcp=2 ctx=10 q=4", "dcp"},
        BadLine{"version=v1-dcp workspace=1024 block=16 dcp=2 interleave=2 ctx=10 q=4", "interleave"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=10,20 q=4", "q"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=10,,20 q=4,4", "ctx"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=-1 q=4", "ctx"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=99999999999999999999 q=4", "ctx"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=2000000000,2000000000,2000000000,2000000000,2000000000,"
                "2000000000,2000000000,2000000000,2000000000 q=4,4,4,4,4,4,4,4,4",
                "ctx"},  // total over 2^34
        BadLine{"version=v6-current workspace=1024 block=16 ctx=10 q=0", "q"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=10", "q"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=10 q=4 asserts=maybe", "asserts"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=10 q=4 dims=gpt2", "dims"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=10 q=4 heads=0", "heads"},
        BadLine{"version=v6-current workspace=1024 block=16 ctx=10 q=4 seed=-1", "seed"},
        BadLine{"version=v6-current workspace=1024 workspace=2048 block=16 ctx=10 q=4", "workspace"}));

TEST(CaseFormat, OkLineForTheErrorTableIsValid) {
  EXPECT_NO_THROW(parse_case(std::string("version=v6-current ") + kOk));
}

}  // namespace
}  // namespace cp

namespace cp {
namespace {

// Found by case_parser_fuzz: a NUL byte inside an unknown key cut the message short.
TEST(CaseFormat, NonPrintableBytesInAKeyAreEscapedInTheMessage) {
  try {
    parse_case(std::string("version=v6-current co\0lour=1 workspace=64 block=16 ctx=1 q=4", 60));
    FAIL() << "accepted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("co\\x00lour"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cp
