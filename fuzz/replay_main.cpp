// Standalone replay driver: links into every fuzz target when libFuzzer is not the engine
// (g++ builds, the ASan+UBSan CTest run), and runs the target over files and directories.
//
//   planner_fuzz [--print-case] PATH...     PATH: an input file, or a directory of inputs
//   planner_fuzz --bench SECONDS PATH...    the inputs over and over for SECONDS of CPU time:
//                                           executions per second of the target alone (no
//                                           engine): wall and per CPU second (bench/fuzz_execs.sh)
//
// A missing or unreadable path is an error with a message and exit status 2 — never an
// assert, which NDEBUG would turn into a silently empty input. Regression files (`*.case`)
// go to the target's ChunkproofReplayCaseFile hook when it has one. libFuzzer-style flags
// (-runs=, -dict=, ...) are accepted and ignored so the same command line works for both
// builds.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/replay.h"

namespace fs = std::filesystem;

namespace {

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--print-case | --bench SECONDS] PATH...\n"
               "  Replays fuzz inputs (files, or every file of a directory) through the target without\n"
               "  libFuzzer. Regression files (*.case) are checked against their '# expect' lines.\n"
               "  --print-case  print the case line each input decodes to (CHUNKPROOF_PRINT_CASE=1)\n"
               "  --bench S     run the inputs (not *.case) in a loop for S CPU seconds; print executions,\n"
               "                exec/s (wall) and executions per CPU second\n"
               "exit: 0 all inputs ran (and expectations held), 1 an expectation failed, 2 bad usage or\n"
               "      a missing/unreadable path; a finding in the target aborts (non-zero, with a message).\n",
               argv0);
  return 2;
}

bool read_file(const fs::path& p, std::vector<std::uint8_t>& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// The target alone on a fixed set of inputs: what one execution costs without the engine's
// mutation, coverage and corpus bookkeeping.
int bench(const std::vector<std::vector<std::uint8_t>>& inputs, double seconds) {
  if (inputs.empty()) {
    std::fprintf(stderr, "replay --bench: no inputs\n");
    return 2;
  }
  std::vector<std::unique_ptr<std::uint8_t[]>> copies;
  for (const auto& in : inputs) {
    copies.emplace_back(new std::uint8_t[in.size() + 1]);
    std::copy(in.begin(), in.end(), copies.back().get());
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) LLVMFuzzerTestOneInput(copies[i].get(), inputs[i].size());  // warm
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  std::uint64_t n = 0;
  double cpu = 0;
  do {
    for (std::size_t i = 0; i < inputs.size(); ++i) LLVMFuzzerTestOneInput(copies[i].get(), inputs[i].size());
    n += inputs.size();
    cpu = cpu_seconds() - c0;
  } while (cpu < seconds);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "bench: %zu inputs, %llu executions, %.2f s wall, %.2f s cpu: %.0f exec/s wall, %.0f exec per cpu-s, "
      "%.2f us per execution\n",
      inputs.size(), static_cast<unsigned long long>(n), wall, cpu, static_cast<double>(n) / wall,
      static_cast<double>(n) / cpu, cpu * 1e6 / static_cast<double>(n));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  double bench_seconds = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h" || a == "-help=1") return usage(argv[0]), 0;
    if (a == "--bench") {
      if (i + 1 >= argc || (bench_seconds = std::atof(argv[i + 1])) <= 0) return usage(argv[0]);
      ++i;
    } else if (a == "--print-case") {
      ::setenv("CHUNKPROOF_PRINT_CASE", "1", 1);
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "replay: ignoring libFuzzer flag %s (this is the replay build, not libFuzzer)\n", a.c_str());
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) return usage(argv[0]);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);

  std::vector<fs::path> files;
  for (const auto& p : paths) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", p.c_str());
      return 2;
    }
    if (fs::is_directory(st)) {
      std::vector<fs::path> in_dir;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') in_dir.push_back(e.path());
      if (ec) {
        std::fprintf(stderr, "replay: cannot read directory %s: %s\n", p.c_str(), ec.message().c_str());
        return 2;
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.emplace_back(p);
    }
  }

  if (bench_seconds > 0) {
    std::vector<std::vector<std::uint8_t>> inputs;
    for (const auto& f : files) {
      if (f.extension() == ".case") continue;
      inputs.emplace_back();
      if (!read_file(f, inputs.back())) {
        std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
        return 2;
      }
    }
    return bench(inputs, bench_seconds);
  }

  int failed = 0, cases = 0;
  std::vector<std::uint8_t> data;
  for (const auto& f : files) {
    if (!read_file(f, data)) {
      std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
      return 2;
    }
    if (f.extension() == ".case" && ChunkproofReplayCaseFile) {
      ++cases;
      if (ChunkproofReplayCaseFile(f.c_str(), data.data(), data.size()) != 0) ++failed;
      continue;
    }
    // A copy of exactly `size` bytes, so ASan sees reads past the end of the input.
    std::unique_ptr<std::uint8_t[]> copy(new std::uint8_t[data.size()]);
    std::copy(data.begin(), data.end(), copy.get());
    LLVMFuzzerTestOneInput(copy.get(), data.size());
  }
  std::fprintf(stderr, "replay: %zu input(s) ran (%d regression file(s)), %d expectation failure(s)\n", files.size(),
               cases, failed);
  return failed ? 1 : 0;
}
