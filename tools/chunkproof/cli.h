// Shared pieces of the chunkproof CLI: the subcommand table and argument helpers.
#pragma once

#include <functional>
#include <stdexcept>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cp::cli {

// Exit codes, everywhere (DESIGN §8).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFinding = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInconclusive = 3;

using Args = std::span<const std::string>;

struct Command {
  std::string_view name;
  std::string_view summary;
  std::function<int(Args)> run;
};
// Subcommands register themselves (one cmd_*.cpp per subcommand, compiled into the
// executable), so adding one touches no shared file.
std::vector<Command>& commands();
struct RegisterCommand {
  RegisterCommand(std::string_view name, std::string_view summary, std::function<int(Args)> run) {
    commands().push_back({name, summary, std::move(run)});
  }
};

// Usage error: printed with a pointer to --help, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Tiny option parser: --flag, --key value, --key=value. Unknown options are usage errors.
class Options {
 public:
  Options(Args args, std::vector<std::string> flags, std::vector<std::string> valued);
  bool has(std::string_view flag) const;
  std::optional<std::string> get(std::string_view key) const;
  std::string get_or(std::string_view key, std::string def) const;
  long long get_int(std::string_view key, long long def, long long lo, long long hi) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
  std::vector<std::string> flags_set_;
  std::vector<std::string> positional_;
};

bool wants_help(Args args);

// GPU entry points. The GPU backend (kernels/, when built) installs them from its own
// registration file; `check --device gpu` and `bench --device gpu` forward the whole
// argument list to them. Empty when no GPU backend was built.
struct GpuHooks {
  std::function<int(Args)> check;
  std::function<int(Args)> bench;
};
GpuHooks& gpu_hooks();


}  // namespace cp::cli
