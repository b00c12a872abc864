// The libFuzzer build of a target, made on first use: `chunkproof fuzz` right after the README's
// first command (which builds only the CLI) configures the `fuzz` preset in the source tree this
// chunkproof was built from and builds the one target it needs, showing the build's progress.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "campaign/campaign.h"
#include "campaign/campaign_run.h"
#include "reference/proc/group_reaper.h"
#include "reference/proc/interrupt.h"

namespace cp::fuzz {
namespace {

// The first executable `name` on $PATH, "" if none.
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    const std::string p = (fs::path(d.empty() ? "." : d) / name).string();
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// Runs argv with its output on our stderr; false (and `why`) unless it exits 0. Ctrl-C kills it.
bool run_visible(const std::vector<std::string>& argv, std::string& why) {
  std::optional<proc::Child> child;
  try {
    child = proc::Child::exec(argv, {.from_child = true});
  } catch (const proc::ProcError& e) {
    why = e.what();
    return false;
  }
  proc::GroupReaper reaper(child->pid());
  pump_output(
      *child, [](const char* data, std::size_t n) { std::fwrite(data, 1, n, stderr); },
      [&] {
        if (proc::interrupted()) child->signal_group(SIGKILL);
      });
  const int status = child->reap();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  why = argv[0] + (WIFEXITED(status) ? " exited " + std::to_string(WEXITSTATUS(status)) : " was killed");
  return false;
}

}  // namespace

std::string build_fuzzer_on_demand(const std::string& target, std::string& why) {
  const fs::path src = CHUNKPROOF_SOURCE_DIR;
  std::error_code ec;
  if (!fs::is_regular_file(src / "CMakePresets.json", ec)) {
    why = "the source tree this chunkproof was built from (" + src.string() + ") is not here";
    return {};
  }
  const std::string cmake = on_path("cmake");
  if (cmake.empty() || on_path("clang++").empty()) {
    why = "building it needs cmake and clang++ (with libclang-rt-14-dev) on PATH";
    return {};
  }
  const std::string exe = target + "_fuzz";
  const fs::path bin = src / "build" / "fuzz";
  std::fprintf(stderr, "fuzz: no libFuzzer build of %s yet: building it now (first use, about a minute)\n",
               exe.c_str());
  const long jobs = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  if (!run_visible({cmake, "-S", src.string(), "--preset", "fuzz"}, why) ||
      !run_visible({cmake, "--build", bin.string(), "-j", std::to_string(jobs), "--target", exe}, why))
    return {};
  return (bin / "fuzz" / exe).string();
}

}  // namespace cp::fuzz
