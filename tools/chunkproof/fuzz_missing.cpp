// `chunkproof fuzz` where the fuzz runner was not built (no FuzzedDataProvider.h at configure
// time): the command exists and says this machine cannot run it (exit 4), not "unknown command".
#include "tools/chunkproof/cli.h"

namespace cp::cli {
namespace {

int run(Args args) {
  CLI::App app{"Runs a fuzz campaign (not available in this build).", "chunkproof fuzz"};
  configure(app, "exit: 4 this build has no fuzz runner\n");
  app.allow_extras();
  if (!parse(app, args)) return kExitOk;
  throw CannotRun(
      "built without the fuzz runner: fuzzer/FuzzedDataProvider.h was not found at configure time (install "
      "libclang-rt-14-dev or set CHUNKPROOF_FDP_INCLUDE_DIR, then reconfigure)");
}

const RegisterCommand reg{"fuzz", "run a fuzz campaign (not in this build: no fuzz runner)", run};

}  // namespace
}  // namespace cp::cli
