// The host loop of `check --device gpu` (gpu_cases.h).
#include "tools/chunkproof/gpu_cases.h"

#include <csignal>

#include "reference/mla/check.h"
#include "reference/proc/interrupt.h"
#include "tools/chunkproof/json.h"

namespace cp::cli {
namespace {

struct Tally {
  int bad = 0, identical = 0, differing = 0, asserts = 0;
  std::size_t checked = 0;
  Json results = Json::array();
};

void count(Tally& t, const GpuCheckOptions& o, const Case& c, const GpuCaseOutcome& r, std::ostream& out) {
  ++t.checked;
  if (!r.agree) ++t.bad;
  if (r.line.rfind("assert", 0) == 0)
    ++t.asserts;
  else if (r.line.find("chunked == unchunked") != std::string::npos)
    ++t.identical;
  else
    ++t.differing;
  if (r.agree && o.quiet && o.cases.size() > 1) return;
  if (o.json)
    t.results.push_back(Json{{"case", print_case(c)}, {"agree", r.agree}, {"detail", r.line}});
  else
    out << (r.agree ? "ok   " : "FAIL ") << r.line << "\n     case: " << print_case(c) << "\n";
}

}  // namespace

int run_gpu_cases(const GpuCheckOptions& o, const GpuDevice& dev, const GpuCaseRunner& one, std::ostream& out) {
  proc::InterruptGuard guard;  // SIGINT/SIGTERM: the cases so far, exit 3
  if (!o.json) out << "device: " << dev.name << " (" << dev.arch << ", " << dev.backend << ")\n";
  Tally t;
  for (std::size_t i = 0; i < o.cases.size() && !proc::interrupted(); ++i) {
    try {
      count(t, o, o.cases[i], one(o.cases[i], i), out);
    } catch (const mla::CheckStopped&) {
      break;  // the CPU reference saw the interrupt: this case is not counted
    }
  }
  const bool interrupted = t.checked < o.cases.size();
  const int rc = t.bad ? kExitFinding : interrupted ? kExitInconclusive : kExitOk;
  const std::string stopped =
      interrupted ? std::string("interrupted (") + (proc::interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT") +
                        ") after " + std::to_string(t.checked) + " of " + std::to_string(o.cases.size()) + " cases"
                  : std::string();
  if (o.json) {
    print_json(out, Json{{"schema", "chunkproof.check-gpu/1"},
                         {"device", dev.name},
                         {"arch", dev.arch},
                         {"backend", dev.backend},
                         {"cases", o.cases.size()},
                         {"checked", t.checked},
                         {"interrupted", interrupted},
                         {"identical", t.identical},
                         {"differing", t.differing},
                         {"asserts", t.asserts},
                         {"disagreements", t.bad},
                         {"exit_code", rc},
                         {"results", t.results}});
    return rc;
  }
  if (interrupted) out << stopped << ": the rest is unchecked\n";
  out << "gpu check: " << t.checked << " cases, " << t.identical << " chunked == unchunked, " << t.differing
      << " differ (as on the CPU when agreeing), " << t.asserts << " assert, " << t.bad
      << " disagreements with the CPU\n";
  return rc;
}

}  // namespace cp::cli
