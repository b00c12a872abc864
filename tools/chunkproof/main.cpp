// chunkproof: one CLI, subcommands registered by the cmd_*.cpp files beside this one.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "reference/arith/checked_int.h"
#include "reference/caseio/case.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {
std::vector<Command>& commands() {
  static std::vector<Command> table;
  return table;
}
GpuHooks& gpu_hooks() {
  static GpuHooks hooks;
  return hooks;
}
}  // namespace cp::cli

namespace {

void usage(std::ostream& os) {
  auto cmds = cp::cli::commands();
  std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  os << "chunkproof: planner models, invariants, fuzzing, proofs and bit-exact kernels for vLLM's\n"
        "MLA chunked-context prefill.\n\n"
        "usage: chunkproof <command> [options]   (chunkproof <command> --help for details)\n\ncommands:\n";
  for (const auto& c : cmds) os << "  " << c.name << std::string(12 - std::min<std::size_t>(c.name.size(), 11), ' ') << c.summary << "\n";
  os << "\nexit codes: 0 checked and holds, 1 finding, 2 bad input or usage, 3 inconclusive\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? cp::cli::kExitUsage : cp::cli::kExitOk;
  }
  for (const auto& c : cp::cli::commands()) {
    if (c.name != args[0]) continue;
    try {
      return c.run(cp::cli::Args(args).subspan(1));
    } catch (const cp::cli::UsageError& e) {
      std::cerr << "chunkproof " << args[0] << ": " << e.what() << " (see chunkproof " << args[0] << " --help)\n";
      return cp::cli::kExitUsage;
    } catch (const cp::CaseError& e) {
      std::cerr << "chunkproof " << args[0] << ": bad case: " << e.what() << "\n";
      return cp::cli::kExitUsage;
    } catch (const cp::ArithmeticError& e) {
      std::cerr << "chunkproof " << args[0] << ": input out of range: " << e.what() << "\n";
      return cp::cli::kExitUsage;
    } catch (const std::exception& e) {
      std::cerr << "chunkproof " << args[0] << ": error: " << e.what() << "\n";
      return cp::cli::kExitUsage;
    }
  }
  std::cerr << "chunkproof: unknown command '" << args[0] << "'\n\n";
  usage(std::cerr);
  return cp::cli::kExitUsage;
}
