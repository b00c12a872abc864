// fuzz_seedgen: turns case lines into planner_fuzz inputs (the exact inverse of the decoder),
// so the spec's counterexamples, upstream tests and regression files seed the corpus.
//
//   fuzz_seedgen OUTDIR FILE...
// Each FILE holds case lines (lines starting with '#' are comments). For a regression file,
// every `# expect <version>:` line also yields the case with that version substituted.
// Output files are named <file stem>-<n>-<hash of the bytes>; existing files are kept.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/common/case_codec.h"
#include "fuzz/common/findings.h"
#include "reference/caseio/regression.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_seedgen OUTDIR FILE...\n");
    return 2;
  }
  const fs::path out = argv[1];
  fs::create_directories(out);
  int written = 0, skipped = 0;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i]);
    if (!in) {
      std::fprintf(stderr, "fuzz_seedgen: cannot read %s\n", argv[i]);
      return 2;
    }
    std::vector<cp::CaseRecord> records;
    try {
      records = cp::read_case_records(in, argv[i]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_seedgen: %s\n", e.what());
      return 2;
    }
    int n = 0;
    for (const auto& rec : records) {
      std::vector<cp::Case> cases;
      try {
        cases.push_back(cp::parse_case(rec.line));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_seedgen: %s: bad case line: %s\n", rec.origin.c_str(), e.what());
        return 2;
      }
      for (const auto& ex : rec.expects) {
        try {
          cases.push_back(rec.case_for(ex.version));
        } catch (const cp::CaseError&) {
        }
      }
      for (const auto& c : cases) {
        std::vector<std::uint8_t> bytes;
        try {
          bytes = cp::fuzz::encode_case(c);
        } catch (const cp::CaseError& e) {
          std::fprintf(stderr, "fuzz_seedgen: skipped (%s): %s\n", e.what(), cp::print_case(c).c_str());
          ++skipped;
          continue;
        }
        const std::string data(bytes.begin(), bytes.end());
        char hash[17];
        std::snprintf(hash, sizeof hash, "%08llx", static_cast<unsigned long long>(cp::fuzz::fnv1a(data) & 0xffffffff));
        const fs::path p = out / (fs::path(argv[i]).stem().string() + "-" + std::to_string(n++) + "-" + hash);
        if (!fs::exists(p)) cp::fuzz::write_file_atomic(p.string(), data);
        ++written;
      }
    }
  }
  std::fprintf(stderr, "fuzz_seedgen: %d seed(s), %d skipped\n", written, skipped);
  return 0;
}
