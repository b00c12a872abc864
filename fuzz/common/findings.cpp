#include "fuzz/common/findings.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace cp::fuzz {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

std::string signature(const Evaluation& ev) {
  const std::string who = std::string(name(ev.c.version)) + "/" + std::string(name(ev.c.platform));
  if (ev.outcome == Outcome::crashed) return who + " crash: " + ev.first_assert()->which;
  if (ev.outcome == Outcome::assert_fired) {
    const AssertFailure* a = ev.first_assert();
    return who + " assert[" + (a ? a->stage : std::string("?")) + "]: " + (a ? a->which : std::string("?"));
  }
  if (ev.outcome == Outcome::violation) {
    std::string s = who + " violation: ";
    bool first = true;
    for (const auto& r : ev.results)
      if (r.verdict == Verdict::violated) {
        if (!first) s += ",";
        s += info(r.id).tag;
        first = false;
      }
    return s;
  }
  return {};
}

std::string primary_invariant(const Evaluation& ev) {
  if (ev.outcome == Outcome::assert_fired) return "assert";
  if (ev.outcome == Outcome::crashed) return "crash";
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) return std::string(info(r.id).tag);
  return {};
}

std::string slug(std::string_view sig) {
  std::string s;
  for (char ch : sig) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-';
    if (keep)
      s += ch;
    else if (!s.empty() && s.back() != '_')
      s += '_';
    if (s.size() >= 60) break;
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  char hash[17];
  std::snprintf(hash, sizeof hash, "%08llx", static_cast<unsigned long long>(fnv1a(sig) & 0xffffffffull));
  return s + "-" + hash;
}

bool TargetConfig::expected_correct(Version v) const {
  for (auto e : expect_correct)
    if (e == v) return true;
  return false;
}

TargetConfig TargetConfig::from_env() {
  TargetConfig t;
  const char* e = std::getenv("CHUNKPROOF_FUZZ_EXPECT_CORRECT");
  std::string list = e ? e : joined_names(expected_correct_versions());
  if (list != "none") {
    std::size_t pos = 0;
    while (pos <= list.size()) {
      auto comma = list.find(',', pos);
      if (comma == std::string::npos) comma = list.size();
      const std::string n = list.substr(pos, comma - pos);
      if (!n.empty()) {
        auto v = parse_version(n);
        if (!v) {
          std::fprintf(stderr, "CHUNKPROOF_FUZZ_EXPECT_CORRECT: unknown version '%s'\n", n.c_str());
          std::exit(2);
        }
        t.expect_correct.push_back(*v);
      }
      pos = comma + 1;
    }
  }
  if (const char* d = std::getenv("CHUNKPROOF_FUZZ_FINDINGS_DIR")) t.findings_dir = d;
  auto flag = [](const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::string_view(v) != "0";
  };
  t.print_case = flag("CHUNKPROOF_PRINT_CASE");
  t.quiet = flag("CHUNKPROOF_FUZZ_QUIET");
  t.differential = flag("CHUNKPROOF_FUZZ_DIFFERENTIAL");
  if (const char* s = std::getenv("CHUNKPROOF_FUZZ_STOP_ON")) t.stop_on = s;
  return t;
}

bool write_file_atomic(const std::string& path, std::string_view data) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  return !ec;
}

namespace {

struct ExecCounter {
  std::string path;
  std::int64_t pending = 0;
  ExecCounter() {
    if (const char* p = std::getenv("CHUNKPROOF_FUZZ_EXEC_LOG")) path = p;
  }
  ~ExecCounter() { flush(); }
  void flush() {
    if (path.empty() || pending == 0) return;
    const std::string line = std::to_string(pending) + "\n";
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
      if (::write(fd, line.data(), line.size()) < 0) { /* best effort: a lost count, never a crash */
      }
      ::close(fd);
    }
    pending = 0;
  }
};

}  // namespace

void count_execution() {
  static ExecCounter counter;
  if (++counter.pending >= 1024) counter.flush();
}

void FindingSink::record(const std::string& sig, const std::string& case_line, const std::string& detail) {
  if (!seen_.insert(sig).second) return;
  if (!cfg_.quiet) std::fprintf(stderr, "CHUNKPROOF-FINDING %s | %s\n", sig.c_str(), case_line.c_str());
  if (cfg_.findings_dir.empty()) return;
  const std::string path = cfg_.findings_dir + "/" + slug(sig) + ".case";
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return;  // another process already has this signature
  std::filesystem::create_directories(cfg_.findings_dir, ec);
  write_file_atomic(path, "# signature: " + sig + "\n# detail: " + detail + "\n" + case_line + "\n");
}

namespace {

template <int K>
[[noreturn]] __attribute__((noinline)) void crash_family() {
  std::fflush(stderr);
  std::abort();
}

using CrashFn = void (*)();
constexpr CrashFn kFamilies[] = {crash_family<0>,  crash_family<1>,  crash_family<2>,  crash_family<3>,
                                 crash_family<4>,  crash_family<5>,  crash_family<6>,  crash_family<7>,
                                 crash_family<8>,  crash_family<9>,  crash_family<10>, crash_family<11>,
                                 crash_family<12>, crash_family<13>, crash_family<14>, crash_family<15>};

}  // namespace

void crash_for(const std::string& sig, const std::string& case_line, const std::string& detail) {
  std::fprintf(stderr, "CHUNKPROOF-CRASH %s | %s\n  %s\n", sig.c_str(), case_line.c_str(), detail.c_str());
  kFamilies[fnv1a(sig) % 16]();
  std::abort();
}

}  // namespace cp::fuzz
