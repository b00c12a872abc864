#include "tools/chunkproof/cli.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "reference/caseio/suggest.h"
#include "reference/dcp/simulate.h"
#include "reference/io/user_dirs.h"

namespace cp::cli {

namespace fs = std::filesystem;

int worst(int a, int b) {
  auto rank = [](int c) {
    switch (c) {
      case kExitUsage: return 5;
      case kExitCannotRun: return 4;
      case kExitFinding: return 3;
      case kExitInconclusive: return 2;
      case kExitOk: return 0;
      default: return 1;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}

void configure(CLI::App& app, std::string footer) {
  app.footer(std::move(footer));
  app.get_formatter()->column_width(30);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

namespace {
// "did you mean" for the first word of `args` that looks like an option this command lacks.
std::string option_hint(const CLI::App& app, Args args) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
    for (const auto& n : o->get_snames()) names.push_back("-" + n);
  }
  for (const auto& a : args) {
    if (a.size() < 3 || a.rfind("--", 0) != 0) continue;
    const std::string word = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    return did_you_mean(word, names);
  }
  return {};
}
}  // namespace

bool parse(CLI::App& app, Args args) {
  std::vector<std::string> rev(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return false;
  } catch (const CLI::ExtrasError& e) {
    throw UsageError(e.what() + option_hint(app, args));
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  return true;
}

// ---- the flag vocabulary -------------------------------------------------------------------

namespace {

std::vector<std::string> split_words(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) {
    std::stringstream ss(w);
    for (std::string item; std::getline(ss, item, ',');) {
      while (!item.empty() && item.front() == ' ') item.erase(item.begin());
      while (!item.empty() && item.back() == ' ') item.pop_back();
      if (!item.empty()) out.push_back(item);
    }
  }
  return out;
}

std::string lowered(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

template <class T>
void add_unique(std::vector<T>& v, T x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

[[noreturn]] void empty_selection(std::string_view option) {
  throw UsageError("option " + std::string(option) + " selects nothing (give a name, a comma list or all)");
}

}  // namespace

std::vector<Version> parse_versions(const std::vector<std::string>& words, std::string_view option) {
  std::vector<Version> out;
  for (const auto& w : split_words(words)) {
    if (w == "all") {
      for (const auto& v : all_versions()) add_unique(out, v.version);
      continue;
    }
    const auto v = parse_version(lowered(w));
    if (!v) {
      std::vector<std::string> names{"all"};
      for (const auto& r : all_versions()) names.emplace_back(r.name);
      throw UsageError(std::string(option) + ": unknown version '" + w + "'" + did_you_mean(w, names) +
                       " (see `chunkproof versions`)");
    }
    add_unique(out, *v);
  }
  if (out.empty()) empty_selection(option);
  return out;
}

std::vector<Platform> parse_platforms(const std::vector<std::string>& words, std::string_view option) {
  std::vector<Platform> out;
  for (const auto& w : split_words(words)) {
    if (lowered(w) == "all" || lowered(w) == "both") {
      add_unique(out, Platform::cuda);
      add_unique(out, Platform::rocm);
      continue;
    }
    const auto p = parse_platform(lowered(w));
    if (!p)
      throw UsageError(std::string(option) + ": unknown platform '" + w + "'" +
                       did_you_mean(w, {"cuda", "rocm", "both", "all"}) + " (cuda, rocm, both)");
    add_unique(out, *p);
  }
  if (out.empty()) empty_selection(option);
  return out;
}

std::vector<InvariantId> parse_invariants(const std::vector<std::string>& words, std::string_view option) {
  std::vector<InvariantId> out;
  for (const auto& w : split_words(words)) {
    if (w == "all") {
      for (const auto& i : all_invariants()) add_unique(out, i.id);
      continue;
    }
    InvariantId id{};
    if (!parse_invariant(w, id)) {
      std::vector<std::string> names{"all"};
      for (const auto& i : all_invariants()) names.emplace_back(i.tag);
      throw UsageError(std::string(option) + ": unknown invariant '" + w + "'" + did_you_mean(w, names) +
                       " (see `chunkproof invariants`)");
    }
    add_unique(out, id);
  }
  if (out.empty()) empty_selection(option);
  return out;
}

CLI::Option* add_list(CLI::App& app, const std::string& name, std::vector<std::string>& values, std::string what) {
  return app.add_option(name, values, std::move(what))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

CLI::Option* add_jobs(CLI::App& app, int& jobs, std::string what) {
  return app.add_option("--jobs,--threads", jobs, std::move(what) + " (--threads: the same)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
}

bool show_progress(bool forced) { return forced || ::isatty(STDERR_FILENO); }

// ---- cases ---------------------------------------------------------------------------------

void add_case_options(CLI::App& app, CaseArgs& a) {
  add_list(app, "--case", a.cases, "a case line (repeatable: every case runs, the worst verdict is the exit code)")
      ->type_name("LINE");
  app.add_option("--cases", a.cases_file,
                 "cases from a file, - for stdin: one case line per line, '#' lines ignored, '# expect' lines "
                 "honoured")
      ->type_name("FILE|-");
}

std::vector<CaseRecord> read_case_file(const std::string& path) {
  if (path == "-") return read_case_records(std::cin, "<stdin>");
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError("cannot read cases from '" + path + "': a directory");
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read cases from '" + path + "'");
  return read_case_records(in, path);
}

namespace {

// A sweep in a case line: every `key=LO..HI` or `key=LO..HI:STEP` word becomes one case per value
// (several such words: every combination, the first word outermost), each origin naming its values
// ("--case 1 [dcp=3]"). At most kMaxSweep cases per line.
constexpr std::size_t kMaxSweep = 10000;

bool sweep_word(const std::string& word, std::string& key, std::int64_t& lo, std::int64_t& hi, std::int64_t& step) {
  const auto eq = word.find('='), dots = word.find("..");
  if (eq == std::string::npos || dots == std::string::npos || dots < eq) return false;
  const std::string v = word.substr(eq + 1);
  std::int64_t a = 0, b = 0, st = 1;
  char tail = 0;
  const int n = std::sscanf(v.c_str(), "%" SCNd64 "..%" SCNd64 ":%" SCNd64 "%c", &a, &b, &st, &tail);
  const bool ok =
      n == 3 || (n == 2 && v.find(':') == std::string::npos && v.find_first_not_of("0123456789.") == std::string::npos);
  key = word.substr(0, eq);
  if (!ok) throw CaseError(key, "a sweep is LO..HI or LO..HI:STEP (non-negative integers), got '" + v + "'");
  if (b < a || st < 1) throw CaseError(key, "empty sweep '" + v + "' (LO <= HI, STEP >= 1)");
  lo = a;
  hi = b;
  step = st;
  return true;
}

void expand_sweeps(const std::string& line, const std::string& origin, const std::vector<Expectation>& expects,
                   std::vector<CaseInput>& out) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string key;
    std::int64_t lo = 0, hi = 0, step = 1;
    if (words[i].rfind('#', 0) == 0 || !sweep_word(words[i], key, lo, hi, step)) continue;
    if (static_cast<std::uint64_t>((hi - lo) / step) + 1 > kMaxSweep)
      throw CaseError(key, "the sweep " + words[i].substr(key.size() + 1) + " gives more than " +
                               std::to_string(kMaxSweep) + " cases");
    const std::size_t before = out.size();
    for (std::int64_t v = lo; v <= hi; v += step) {
      std::string one;
      for (std::size_t k = 0; k < words.size(); ++k)
        one += (k ? " " : "") + (k == i ? key + "=" + std::to_string(v) : words[k]);
      const std::string tag = key + "=" + std::to_string(v);
      const bool nested = origin.back() == ']';
      expand_sweeps(one, nested ? origin.substr(0, origin.size() - 1) + " " + tag + "]" : origin + " [" + tag + "]",
                    expects, out);
      if (out.size() - before > kMaxSweep)
        throw CaseError(key, "the sweeps of this line give more than " + std::to_string(kMaxSweep) + " cases");
    }
    return;
  }
  out.push_back({line, origin, expects});
}

}  // namespace

std::vector<CaseInput> collect_cases(const CaseArgs& a, bool required) {
  std::vector<CaseInput> out;
  for (std::size_t i = 0; i < a.cases.size(); ++i)
    expand_sweeps(a.cases[i], "--case " + std::to_string(i + 1), {}, out);
  if (!a.cases_file.empty()) {
    const auto records = read_case_file(a.cases_file);
    if (records.empty()) throw UsageError("--cases " + a.cases_file + ": no case line in it");
    for (const auto& r : records) expand_sweeps(r.line, r.origin, r.expects, out);
  }
  if (out.empty() && required) throw UsageError("missing --case '<case line>' (or --cases FILE|-)");
  return out;
}

std::vector<CaseJob> parse_jobs(const std::vector<CaseInput>& inputs) {
  std::vector<CaseJob> out;
  for (const auto& in : inputs) {
    try {
      const Case c = parse_case(in.line);
      if (in.expects.empty()) out.push_back({c, in.origin, std::nullopt});
      for (const auto& e : in.expects) {
        Case d = c;
        d.version = e.version;
        validate_case(d);
        out.push_back({d, in.origin, e});
      }
    } catch (const CaseError& e) {
      if (inputs.size() == 1 && in.origin.rfind("--case", 0) == 0) throw;
      throw CaseError(e.key, in.origin + ": " + std::string(e.what()).substr(e.key.empty() ? 0 : e.key.size() + 8));
    }
  }
  return out;
}

// ---- folders -------------------------------------------------------------------------------

bool writable_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec)) return false;
  const fs::path probe = fs::path(dir) / (".chunkproof-write-test-" + std::to_string(::getpid()));
  {
    std::ofstream f(probe);
    if (!f || !(f << "x") || !f.flush()) return false;
  }
  fs::remove(probe, ec);
  return true;
}

void require_writable_dir(const std::string& dir, std::string_view option) {
  if (!writable_dir(dir))
    throw UsageError(std::string(option) + ": cannot create or write the folder '" + dir + "' (nothing was run)");
}

std::string default_cache_dir(std::string_view sub, std::string* warning) {
  const std::vector<fs::path> tries = io::user_dir_candidates("XDG_CACHE_HOME", ".cache", sub);
  std::string tried;
  for (const auto& p : tries) {
    if (writable_dir(p.string())) return p.string();
    tried += (tried.empty() ? "" : ", ") + p.string();
  }
  if (warning)
    *warning = tries.empty() ? "no cache: neither XDG_CACHE_HOME nor HOME is set"
                             : "no cache: cannot write " + tried + " (results are not reused)";
  return {};
}

// ---- resources -----------------------------------------------------------------------------

namespace {

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                               : std::uint64_t{8} << 30;
}

std::string bytes_text(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (b >= 1024 && u < 5) {
    b /= 1024;
    ++u;
  }
  std::ostringstream os;
  os.precision(b < 10 ? 2 : 3);
  os << b << " " << unit[u];
  return os.str();
}

struct Term {
  const char* what;  // the memory it is and the keys that make it large
  double bytes;
};

}  // namespace

CLI::Option* add_max_memory(CLI::App& app, std::uint64_t& bytes) {
  bytes = physical_memory() / 4;
  return app
      .add_option_function<std::string>(
          "--max-memory",
          [&bytes](const std::string& s) {
            double v = 0;
            auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
            std::string unit(p, s.data() + s.size());
            for (auto& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
            double mul = 0;
            if (unit.empty() || unit == "B")
              mul = 1;
            else if (unit == "K" || unit == "KB" || unit == "KIB")
              mul = 1024.0;
            else if (unit == "M" || unit == "MB" || unit == "MIB")
              mul = 1024.0 * 1024;
            else if (unit == "G" || unit == "GB" || unit == "GIB")
              mul = 1024.0 * 1024 * 1024;
            else if (unit == "T" || unit == "TB" || unit == "TIB")
              mul = 1024.0 * 1024 * 1024 * 1024;
            if (ec != std::errc() || mul == 0 || v <= 0 || v * mul > 1.8e19)
              throw CLI::ValidationError("--max-memory",
                                         "expects bytes with an optional K, M, G or T, got '" + s + "'");
            bytes = static_cast<std::uint64_t>(v * mul);
          },
          "refuse cases whose estimated memory exceeds this (bytes; K, M, G, T suffixes; default: a quarter of "
          "physical memory, " +
              bytes_text(static_cast<double>(bytes)) + ")")
      ->type_name("BYTES");
}

void check_memory(const Case& c, bool numerics, std::uint64_t limit) {
  const Plan p = make_plan(c);
  const double W = static_cast<double>(c.dcp);
  double chunk_rows = 0, plan_bytes = 0, ctx = 0, qs = 0, ctx_x_q = 0, reqs = static_cast<double>(c.ctx.size());
  for (const auto& ch : p.chunks) {
    chunk_rows =
        std::max(chunk_rows, static_cast<double>(ch.local_tokens()) * W + static_cast<double>(ch.total_tokens()));
    plan_bytes += static_cast<double>(ch.entries.size()) * (96 + 8 * W) + 64;
  }
  for (std::size_t r = 0; r < c.ctx.size(); ++r) {
    ctx += static_cast<double>(c.ctx[r]);
    qs += static_cast<double>(c.q[r]);
    ctx_x_q += static_cast<double>(c.ctx[r]) * static_cast<double>(c.q[r]);
  }
  std::vector<Term> terms = {
      {"the token-level simulation of the largest chunk (keys workspace, ctx, dcp)",
       chunk_rows * static_cast<double>(sizeof(RowSource))},
      {"the plan (chunks x requests x dcp: keys workspace, ctx, dcp)", plan_bytes},
  };
  if (numerics) {
    const auto& d = c.dims;
    const double row = static_cast<double>(d.kv_lora_rank + d.rope_dim), N = static_cast<double>(d.heads);
    const double B = static_cast<double>(c.block);
    terms.push_back({"the paged latent cache (keys ctx, q, block, dcp, dims)", 2 * (ctx + qs + reqs * B * W) * row});
    terms.push_back({"the queries (keys q, heads, nope_dim, rope_dim, dims)",
                     qs * N * static_cast<double>(d.nope_dim + d.rope_dim) * 4});
    terms.push_back({"the context scores (keys ctx x q per request, heads, dims)", 2 * ctx_x_q * N * 4});
    terms.push_back({"the outputs (keys q, heads, v_dim, dims)", qs * N * static_cast<double>(d.v_dim) * 40});
    terms.push_back({"the chunk workspace (keys workspace, ctx, dcp, dims)", 2 * chunk_rows * row * 2});
    terms.push_back({"the up-projection weights (keys kv_lora_rank, heads, nope_dim, v_dim, dims)",
                     static_cast<double>(d.kv_lora_rank) * N * static_cast<double>(d.nope_dim + d.v_dim) * 4});
  }
  double total = 0;
  const Term* big = &terms.front();
  for (const auto& t : terms) {
    total += t.bytes;
    if (t.bytes > big->bytes) big = &t;
  }
  if (total <= static_cast<double>(limit)) return;
  throw UsageError("the case needs an estimated " + bytes_text(total) + ", over --max-memory " +
                   bytes_text(static_cast<double>(limit)) + "; the largest part is " + big->what + ": " +
                   bytes_text(big->bytes) + " (case: " + print_case(c) + ")");
}

// ---- GPU -----------------------------------------------------------------------------------

GpuHooks& gpu_hooks() {
  static GpuHooks hooks;
  return hooks;
}

void no_gpu_backend(std::string_view command) {
  throw CannotRun("chunkproof " + std::string(command) +
                  " --device gpu: no GPU backend in this build (configure with a CUDA or HIP compiler; see "
                  "kernels/CMakeLists.txt)");
}

}  // namespace cp::cli
