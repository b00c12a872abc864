// chunkproof: one CLI, subcommands registered by the cmd_*.cpp files beside this one.
#include <algorithm>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "live/client.h"
#include "reference/arith/checked_int.h"
#include "reference/caseio/case.h"
#include "reference/caseio/suggest.h"
#include "reference/io/png.h"
#include "tools/chunkproof/cli.h"

#ifndef CHUNKPROOF_VERSION
#define CHUNKPROOF_VERSION "unknown"
#endif
#ifndef CHUNKPROOF_BUILD_SOLVER
#define CHUNKPROOF_BUILD_SOLVER "none"
#endif
#ifndef CHUNKPROOF_BUILD_FUZZ
#define CHUNKPROOF_BUILD_FUZZ "none"
#endif
#ifndef CHUNKPROOF_BUILD_GPU
#define CHUNKPROOF_BUILD_GPU "OFF"
#endif

namespace cp::cli {
std::vector<Command>& commands() {
  static std::vector<Command> table;
  return table;
}
}  // namespace cp::cli

namespace {

using namespace cp::cli;

constexpr const char* kExitCodes =
    "exit codes: 0 checked and holds, 1 finding, 2 bad input or usage, 3 inconclusive,\n"
    "            4 this machine cannot run it (no GPU, no fuzzer build, no solver)\n";

void usage(std::ostream& os) {
  auto cmds = commands();
  std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  os << "chunkproof: planner models, invariants, fuzzing, proofs and bit-exact kernels for vLLM's\n"
        "MLA chunked-context prefill.\n\n"
        "usage: chunkproof <command> [options]   (chunkproof help <command>, chunkproof <command> --help)\n"
        "       chunkproof --version\n\ncommands:\n";
  for (const auto& c : cmds)
    os << "  " << c.name << std::string(12 - std::min<std::size_t>(c.name.size(), 11), ' ') << c.summary << "\n";
  os << "\n" << kExitCodes;
}

int version(bool json) {
  if (json) {
    print_json(std::cout, Json{{"schema", "chunkproof.version/1"},
                               {"version", CHUNKPROOF_VERSION},
                               {"gpu_backend", CHUNKPROOF_BUILD_GPU},
                               {"solver", CHUNKPROOF_BUILD_SOLVER},
                               {"fuzz_engine", CHUNKPROOF_BUILD_FUZZ},
                               {"png", cp::io::png_available()}});
    return kExitOk;
  }
  std::cout << "chunkproof " << CHUNKPROOF_VERSION << "\n"
            << "gpu backend: " << CHUNKPROOF_BUILD_GPU << "\n"
            << "solver:      " << CHUNKPROOF_BUILD_SOLVER << "\n"
            << "fuzz engine: " << CHUNKPROOF_BUILD_FUZZ << "\n"
            << "pictures:    SVG"
            << (cp::io::png_available() ? " and PNG (librsvg + Cairo)" : " (no PNG: built without librsvg2-dev)") << "\n";
  return kExitOk;
}

// An error: text on stderr, and under --json also a JSON object on stdout.
int fail(const std::string& cmd, bool json, int code, const std::string& kind, const std::string& what) {
  std::cerr << "chunkproof" << (cmd.empty() ? "" : " " + cmd) << ": " << what;
  if (code == kExitUsage && kind == "usage" && !cmd.empty()) std::cerr << " (see chunkproof " << cmd << " --help)";
  std::cerr << "\n";
  if (json)
    print_json(
        std::cout,
        Json{{"schema", "chunkproof.error/1"}, {"command", cmd}, {"exit_code", code}, {"kind", kind}, {"error", what}});
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const auto json_count = std::count(args.begin(), args.end(), "--json");
  const bool json = json_count > 0;
  if (args.empty()) {
    usage(std::cerr);
    return kExitUsage;
  }
  if (args[0] == "--version" || args[0] == "version") return version(json);
  if (args[0] == "--help" || args[0] == "-h" || (args[0] == "help" && args.size() == 1)) {
    usage(std::cout);
    return kExitOk;
  }
  if (args[0] == "help") {  // chunkproof help CMD == chunkproof CMD --help
    if (args.size() > 2) return fail("help", json, kExitUsage, "usage", "help takes one command name");
    if (args[1] == "help" || args[1] == "--help" || args[1] == "-h") {  // help about help: the usage
      usage(std::cout);
      return kExitOk;
    }
    args = {args[1], "--help"};
  }
  const std::string cmd = args[0];
  // A flag given twice is a usage error like any repeated option (`--json --json`).
  if (json_count > 1)
    return fail(cmd, true, kExitUsage, "usage",
                "option --json given " + std::to_string(json_count) + " times (give it once)");
  for (const auto& c : commands()) {
    if (c.name != cmd) continue;
    try {
      return c.run(Args(args).subspan(1));
    } catch (const UsageError& e) {
      return fail(cmd, json, kExitUsage, "usage", e.what());
    } catch (const CannotRun& e) {
      return fail(cmd, json, kExitCannotRun, "cannot_run", e.what());
    } catch (const cp::live::PlannerCannotRun& e) {  // --planner-cmd's adapter lacks its engine (docs/live.md)
      return fail(cmd, json, kExitCannotRun, "cannot_run", e.what());
    } catch (const cp::CaseError& e) {
      return fail(cmd, json, kExitUsage, "bad_case", std::string("bad case: ") + e.what());
    } catch (const cp::ArithmeticError& e) {
      return fail(cmd, json, kExitUsage, "out_of_range", std::string("input out of range: ") + e.what());
    } catch (const std::bad_alloc&) {
      return fail(cmd, json, kExitUsage, "out_of_memory",
                  "out of memory: the input is larger than this machine can hold (lower the case's ctx, q, "
                  "workspace or dims; --max-memory estimates before running)");
    } catch (const std::exception& e) {
      return fail(cmd, json, kExitUsage, "error", std::string("error: ") + e.what());
    }
  }
  std::vector<std::string> names{"help"};
  for (const auto& c : commands()) names.emplace_back(c.name);
  fail("", json, kExitUsage, "usage", "unknown command '" + cmd + "'" + cp::did_you_mean(cmd, names));
  std::cerr << "\n";
  usage(std::cerr);
  return kExitUsage;
}
