// Issue 24 item 3: the self-contained HTML report. Pictures the markdown links are inside the page
// (SVG markup, PNG as a data: URI), text is escaped, tables and lists are tables and lists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "reference/io/html_report.h"

namespace cp::io {
namespace {

namespace fs = std::filesystem;

struct HtmlReport : ::testing::Test {
  // One folder per test and process: ctest runs the tests of this file side by side.
  fs::path dir = fs::temp_directory_path() /
                 ("cp-html-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
                  std::to_string(::getpid()));
  void SetUp() override {
    fs::create_directories(dir);
    std::ofstream(dir / "map.svg")
        << "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><rect id=\"cell\"/></svg>\n";
    std::ofstream(dir / "only.png", std::ios::binary) << std::string("\x89PNG\r\n", 6);
  }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(HtmlReport, PicturesAreInlinedNotLinked) {
  const std::string md = "# Report\n\n- [the map](map.svg) ([PNG](map.png))\n- ![png alone](only.png)\n";
  const std::string html = markdown_to_html("t", md, dir);
  // The SVG's markup (its XML prolog dropped), not a link to the file.
  EXPECT_NE(html.find("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect id=\"cell\"/></svg>"), std::string::npos)
      << html;
  EXPECT_EQ(html.find("href=\"map.svg\""), std::string::npos) << html;
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  // A PNG with no SVG beside it: base64 of 89 50 4e 47 0d 0a.
  EXPECT_NE(html.find("src=\"data:image/png;base64,iVBORw0K\""), std::string::npos) << html;
  // A PNG whose SVG is drawn is not drawn twice.
  EXPECT_EQ(html.find("map.png\""), std::string::npos) << html;
}

TEST_F(HtmlReport, MissingPictureStaysALinkAndTextIsEscaped) {
  const std::string html = markdown_to_html("a<b", "see [gone](gone.svg) and `x < y & z`\n", dir);
  EXPECT_NE(html.find("<a href=\"gone.svg\">gone</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("<code>x &lt; y &amp; z</code>"), std::string::npos) << html;
  EXPECT_NE(html.find("<title>a&lt;b</title>"), std::string::npos) << html;
}

TEST_F(HtmlReport, TablesListsAndCodeBlocks) {
  // GitHub's table rule: a '|' inside a cell's code span is escaped (cmark-gfm renders the markdown).
  const std::string md = "| a | b |\n|---|---|\n| `1\\|2` | **3** |\n\n```\nkeep  <spacing>\n```\n";
  const std::string html = markdown_to_html("t", md, dir);
  EXPECT_NE(html.find("<tr>\n<th>a</th>\n<th>b</th>\n</tr>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr>\n<td><code>1|2</code></td>\n<td><strong>3</strong></td>\n</tr>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<pre><code>keep  &lt;spacing&gt;\n</code></pre>"), std::string::npos) << html;
  EXPECT_EQ(html.find("---"), std::string::npos) << html;
}

TEST_F(HtmlReport, WriteNamesTheFileItCannotWrite) {
  EXPECT_THROW(write_html_report("/dev/null/x/report.html", "t", "x\n", dir), std::runtime_error);
  write_html_report(dir / "r.html", "t", "x\n", dir);
  EXPECT_TRUE(fs::exists(dir / "r.html"));
  EXPECT_FALSE(fs::exists(dir / "r.html.tmp"));
}

}  // namespace
}  // namespace cp::io
