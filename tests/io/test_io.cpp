// The IO library: safetensors round trip and validation, the manifest's chunk records, and
// the comparison numbers (ULP buckets, LSE infinities, bounds).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "reference/io/compare.h"
#include "reference/io/export.h"
#include "reference/io/pictures.h"
#include "reference/io/safetensors.h"

namespace cp::io {
namespace {

std::vector<std::uint8_t> bytes_of(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::vector<std::uint8_t> b;
  for (int c; (c = std::fgetc(f)) != EOF;) b.push_back(static_cast<std::uint8_t>(c));
  std::fclose(f);
  return b;
}

TEST(Safetensors, RoundTrip) {
  const auto path = (std::filesystem::temp_directory_path() / "cp_io_test.safetensors").string();
  std::vector<float> a{1.5f, -2.0f, 0.25f, 3.0f, 5.0f, 6.0f};
  std::vector<std::uint16_t> b{0x3f80, 0xc000};
  std::vector<std::int32_t> c{7, -8, 9};
  write_safetensors(path,
                    {Tensor::of("a", DType::F32, {2, 3}, a), Tensor::of("b", DType::BF16, {2}, b),
                     Tensor::of("c", DType::I32, {3}, c), Tensor::of("e", DType::F32, {0, 4}, std::vector<float>{})},
                    {{"case", "x"}});
  const auto bytes = bytes_of(path);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(bytes[static_cast<std::size_t>(i)]) << (8 * i);
  EXPECT_EQ(n % 8, 0u);
  const auto f = read_safetensors(path);
  EXPECT_EQ(f.metadata.at("case"), "x");
  EXPECT_EQ(f.at("a").as<float>(), a);
  EXPECT_EQ(f.at("a").shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(f.at("b").to_f32(), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(f.at("c").as<std::int32_t>(), c);
  EXPECT_EQ(f.at("e").numel(), 0);
  EXPECT_THROW((void)f.at("zz"), IoError);
  std::filesystem::remove(path);
}

std::vector<std::uint8_t> with_header(const std::string& h, std::size_t data) {
  std::vector<std::uint8_t> b;
  b.reserve(8 + h.size() + data);
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(h.size() >> (8 * i)));
  for (char c : h) b.push_back(static_cast<std::uint8_t>(c));
  for (std::size_t i = 0; i < data; ++i) b.push_back(0);
  return b;
}

TEST(Safetensors, RejectsMalformed) {
  EXPECT_THROW(parse_safetensors({1, 2}, "t"), IoError);
  EXPECT_THROW(parse_safetensors(with_header("[]", 0), "t"), IoError);
  EXPECT_THROW(parse_safetensors(with_header("{", 0), "t"), IoError);
  EXPECT_THROW(parse_safetensors(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4), "t"),
               IoError);
  EXPECT_THROW(parse_safetensors(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4), "t"),
               IoError);
  EXPECT_THROW(parse_safetensors(with_header(R"({"a":{"dtype":"Q7","shape":[1],"data_offsets":[0,4]}})", 4), "t"),
               IoError);
  EXPECT_THROW(parse_safetensors(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 8), "t"),
               IoError);
  EXPECT_THROW(parse_safetensors(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                                             12),
                                 "t"),
               IoError);
  EXPECT_NO_THROW(parse_safetensors(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4), "t"));
}

TEST(Manifest, ChunkRecordsCarryDerivedSlices) {
  const Case c =
      parse_case("version=v6-current platform=cuda workspace=256 block=16 dcp=4 interleave=2 ctx=300,0,77 q=3,2,4");
  const auto m = manifest_of(c, PlanVerdict{});
  EXPECT_EQ(m["schema_version"], kExportSchemaVersion);
  ASSERT_FALSE(m["chunks"].empty());
  for (const auto& ch : m["chunks"]) {
    const auto& e = ch["entries"];
    EXPECT_EQ(ch["request_start"], e.front()["request"]);
    EXPECT_EQ(ch["request_end"].get<int>(), e.back()["request"].get<int>() + 1);
    // vLLM's ContextChunk: the query tokens of the slice's requests
    const auto& rs = m["requests"][ch["request_start"].get<std::size_t>()];
    const auto& rl = m["requests"][ch["request_end"].get<std::size_t>() - 1];
    EXPECT_EQ(ch["token_start"], rs["token0"]);
    EXPECT_EQ(ch["token_end"].get<std::int64_t>(), rl["token0"].get<std::int64_t>() + rl["q"].get<std::int64_t>());
    EXPECT_EQ(ch["cu_seq_lens"].size(), e.size() + 1);
    EXPECT_EQ(ch["q_cu"].size(), e.size() + 1);
  }
  EXPECT_EQ(m["geometry"]["merge_flavour"], "cuda");
  // The dispatcher's Triton fallback (v_dim % 8 != 0 on CUDA) is what the export names too.
  EXPECT_EQ(manifest_of(parse_case("version=v6-current platform=cuda workspace=64 block=16 ctx=100 q=2 v_dim=4"),
                        PlanVerdict{})["geometry"]["merge_flavour"],
            "triton");
  EXPECT_EQ(m["geometry"]["gather"], "cp_gather");
  const auto old =
      manifest_of(parse_case("version=v0-early platform=cuda workspace=64 block=16 ctx=100 q=2"), PlanVerdict{});
  EXPECT_EQ(old["geometry"]["gather"], "page_rounding");
  EXPECT_EQ(m["verdict"]["expected"], "exact");
}

TEST(Compare, UlpBuckets) {
  EXPECT_EQ(UlpHistogram::bucket_of(0), 0);
  EXPECT_EQ(UlpHistogram::bucket_of(2), 2);
  EXPECT_EQ(UlpHistogram::bucket_of(3), 3);
  EXPECT_EQ(UlpHistogram::bucket_of(4), 3);
  EXPECT_EQ(UlpHistogram::bucket_of(5), 4);
  EXPECT_EQ(UlpHistogram::bucket_of(std::int64_t{1} << 40), UlpHistogram::kBuckets - 1);
  EXPECT_EQ(UlpHistogram::label(3), "3-4");
}

TEST(Compare, OutAndLse) {
  const float inf = INFINITY, nan = NAN;
  // 2 tokens x 1 head x 2 dims
  const std::vector<float> want{1.0f, 0.5f, 2.0f, -2.0f};
  const std::vector<float> got{1.0f, 0.5f + 0x1p-12f, 2.0f, nan};
  const auto o = compare_out(got, want, 1, 2);
  EXPECT_EQ(o.elements, 4);
  EXPECT_EQ(o.bit_equal, 2);
  EXPECT_EQ(o.nan_got, 1);
  EXPECT_EQ(o.hist.nan, 1);
  EXPECT_DOUBLE_EQ(o.max_abs, 0x1p-12);
  EXPECT_DOUBLE_EQ(o.max_rel, 0x1p-12);  // scaled by the row max |want| = 1
  const auto l = compare_lse({-inf, -inf, 1.0f, inf}, {-inf, 0.0f, 1.25f, 2.0f}, 1);
  EXPECT_EQ(l.both_neg_inf, 1);
  EXPECT_EQ(l.inf_mismatch, 2);
  EXPECT_DOUBLE_EQ(l.max_abs, 0.25);
  EXPECT_FALSE(within(o, l));
  const auto ok = compare_out({1.0f, 0.5f}, {1.0f, 0.5f}, 1, 2);
  EXPECT_TRUE(within(ok, compare_lse({1.0f}, {1.0f}, 1)));
  EXPECT_NE(ulp_histogram_svg(o.hist, "t<").find("&lt;"), std::string::npos);
}

TEST(Pictures, OverviewColoursACorruptingPlanRedUnderTheBound) {
  const auto svg = error_overview_svg({{"good", 1e-3, false}, {"past", 1.0, false}, {"broken", 1e-3, true}}, 1e-2, "t");
  const auto bar = [&](const std::string& label) {  // the fill of the bar after the label
    const auto at = svg.find(">" + label + "<");
    const auto fill = svg.find("fill='", at);
    return svg.substr(fill + 6, 4);
  };
  EXPECT_EQ(bar("good"), "#4a7");
  EXPECT_EQ(bar("past"), "#c44");
  EXPECT_EQ(bar("broken"), "#c44");
  EXPECT_NE(svg.find("corrupting plan</text>"), std::string::npos);
  EXPECT_EQ(svg.find("corrupting plan</text>"), svg.rfind("corrupting plan</text>"));  // only the broken row
}

}  // namespace
}  // namespace cp::io
