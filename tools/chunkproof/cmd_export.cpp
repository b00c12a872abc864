// chunkproof export: a case's inputs, plan and exact reference outputs as files for production
// kernels (safetensors + JSON manifest, docs/export.md). python/ runs kernel sets on them;
// `chunkproof compare` reads the results back.
#include <csignal>
#include <iostream>
#include <optional>
#include <span>
#include <string>

#include "reference/io/export.h"
#include "reference/proc/interrupt.h"
#include "reference/proc/progress.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/json.h"

namespace cp::cli {

namespace cmd_export {  // one per file: the unity build puts several files in one TU
namespace {
constexpr const char* kExportHelp =
    R"(usage: chunkproof export --case '<case line>' --out DIR [--device auto|cpu|gpu] [--sample-heads K] [--threads T]

Writes everything a kernel needs to run the case's chunked-context prefill the way vLLM does,
and the exact answers (schema: docs/export.md):
  DIR/manifest.json          case, shapes, geometry, the plan (per chunk: request slice,
                             cu_seq_lens, starts, DCP local fields, reorg kept rows), verdict
  DIR/inputs.safetensors     paged bf16 latent cache per DCP rank, block table, q,
                             new-token latent K/V, W_UK, W_UV
  DIR/reference.safetensors  exact unchunked out + lse, exact chunked out, the vLLM-style
                             out + lse, and each chunk's (out, lse) partials
Where the reference comes from (--device): `gpu` runs the GPU exact path on every head and
cross-checks it as `check --device gpu --sample-heads K` does: the CPU computes K heads and
every element of those heads of every written tensor must have the CPU's bits (else exit 1,
nothing written); `cpu` computes every head on the CPU (slow at DeepSeek-V3 size: use
--threads); `auto` (default) is gpu when this build has a GPU backend and a GPU is present.
The manifest's reference.source says which.

  --case LINE        the case (as for `chunkproof check`; add dims=deepseek-v3, heads=, seed=)
  --out DIR          output directory (created)
  --device D         auto | cpu | gpu (default auto)
  --sample-heads K   heads the CPU cross-checks a GPU reference on (default 2; >= heads: all)
  --threads T        worker threads for the CPU reference (default 1)
  --json             one chunkproof.export/1 object on stdout (docs/json.md)
  --progress         the CPU reference's progress line on stderr even when it is not a terminal

Ctrl-C or SIGTERM during the CPU reference: the manifest (the plan) alone is written, its
reference object saying why, exit 3.

exit: 0 written, the plan's chunked pipeline equals the unchunked reference bit for bit;
1 a finding (an assert fired: only the manifest is written; or the plan corrupts: files
written, marked "expected": "corrupt"; or the GPU reference disagrees with the CPU: nothing
written); 2 bad input; 3 inconclusive (accumulator overflow, or interrupted); 4 --device gpu without a GPU.
)";
}  // namespace

namespace {
// The CPU reference with a progress line (rows through the pipeline, an estimate); empty when
// SIGINT/SIGTERM stopped it (nothing written yet).
std::optional<io::ExportSummary> cpu_export(const Case& c, const io::PlanVerdict& verdict, const std::string& out,
                                            int threads, bool progress_flag) {
  proc::InterruptGuard guard;
  proc::Progress progress("export", 0, "rows", show_progress(progress_flag));
  mla::CheckOptions opts;
  opts.threads = threads;
  opts.progress = [&](const mla::CheckProgress& at) {
    progress.set_total(at.rows_total);
    progress.set(at.rows_done);
    progress.note("chunk " + std::to_string(at.chunk + 1) + "/" + std::to_string(at.chunks) + ", pass " +
                  std::to_string(at.pass + 1) + "/" + std::to_string(at.passes));
  };
  opts.stop = [] { return proc::interrupted(); };
  try {
    return io::write_export(c, verdict, out, opts);
  } catch (const mla::CheckStopped&) {
    return std::nullopt;
  }
}
}  // namespace

int export_main(Args args) {
  CLI::App app{kExportHelp, "chunkproof export"};
  configure(app);
  std::string line, out;
  int threads = 1;
  app.add_option("--case", line, "the case line")->required();
  app.add_option("--out", out, "output directory (created)")->required()->type_name("DIR");
  add_jobs(app, threads, "worker threads for the CPU reference");
  std::string device = "auto";
  int sample_heads = 2;
  app.add_option("--device", device, "auto | cpu | gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  app.add_option("--sample-heads", sample_heads, "heads the CPU cross-checks a GPU reference on")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  bool json = false, progress_flag = false;
  app.add_flag("--json", json, "machine-readable output");
  app.add_flag("--progress", progress_flag, "progress on stderr even when it is not a terminal (CPU reference)");
  if (!parse(app, args)) return kExitOk;
  const Case c = parse_case(line);
  // --json: one document with what the text lines say.
  auto report = [&](int rc, const std::string& outcome, const std::string& source, const std::string& reference,
                    const std::vector<std::string>& written, const std::string& note) {
    print_json(std::cout, Json{{"schema", "chunkproof.export/1"},
                               {"case", print_case(c)},
                               {"outcome", outcome},
                               {"source", source},
                               {"reference", reference},
                               {"out", out},
                               {"written", written},
                               {"note", note.empty() ? Json(nullptr) : Json(note)},
                               {"exit_code", rc}});
    return rc;
  };
  io::PlanVerdict verdict;  // the CLI combines the invariant verdict with the numerics
  {
    const Evaluation ev = evaluate(c);
    verdict.outcome = std::string(name(ev.outcome));
    for (const auto& r : ev.results)
      if (r.verdict == Verdict::violated) verdict.violated.emplace_back(info(r.id).tag);
  }
  require_writable_dir(out, "--out");
  bool use_gpu = false;
  std::string why_cpu;
  if (device == "gpu") {
    if (!gpu_hooks().export_reference) no_gpu_backend("export");
    use_gpu = true;  // the hook says why and exits 4 when no GPU is usable
  } else if (device == "auto") {
    if (!gpu_hooks().export_reference)
      why_cpu = "built without a GPU backend";
    else if (gpu_hooks().available(&why_cpu))
      use_gpu = true;  // else why_cpu says why (the probe's reason)
  }
  io::ExportSummary s;
  std::string source_line;
  if (use_gpu) {
    GpuExport g = gpu_hooks().export_reference(c, threads, sample_heads);
    if (!g.agree) {
      if (json)
        return report(kExitFinding, verdict.outcome, "gpu, " + g.device, g.line, {},
                      "nothing written: the GPU reference disagrees with the CPU");
      std::cout << "case      " << print_case(c) << "\n"
                << "device    " << g.device << "\n"
                << "FAIL      " << g.line << "\n"
                << "nothing written: the GPU reference disagrees with the CPU\n";
      return kExitFinding;
    }
    nlohmann::ordered_json src{{"source", "gpu"},
                               {"device", g.device},
                               {"cross_check",
                                {{"heads", g.checked_heads},
                                 {"elements", g.compared},
                                 {"bit_identical", true},
                                 {"cpu_seconds", g.cpu_seconds},
                                 {"gpu_seconds", g.gpu_seconds}}}};
    s = io::write_export_result(c, verdict, out, g.result, src);
    source_line = g.result.assert_fired ? std::string("none (the plan asserts)") : "GPU, " + g.device + ": " + g.line;
  } else {
    std::optional<io::ExportSummary> done = cpu_export(c, verdict, out, threads, progress_flag);
    if (!done) {
      const std::string why = "interrupted (" +
                              std::string(proc::interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT") +
                              ") before the reference was complete: only the manifest (the plan) is written";
      io::write_manifest_only(c, verdict, out, why);
      if (json)
        return report(kExitInconclusive, verdict.outcome, "CPU, every head", why, {out + "/" + io::kManifestFile}, why);
      std::cout << "case      " << print_case(c) << "\n"
                << "outcome   " << verdict.outcome << "\n"
                << "reference " << why << "\n"
                << "wrote     " << out << "/" << io::kManifestFile << " only\n";
      return kExitInconclusive;
    }
    s = *done;
    source_line = "CPU, every head" + (why_cpu.empty() ? std::string() : " (" + why_cpu + ")");
  }
  if (json) {
    const std::string dir = out + "/";
    if (s.asserted)
      return report(kExitFinding, s.outcome, source_line, s.one_line, {dir + io::kManifestFile},
                    "the version's assert fires: nothing ran");
    const int rc = s.one_line.rfind("inconclusive", 0) == 0 ? kExitInconclusive
                   : s.exact_identical && s.outcome == "ok" ? kExitOk
                                                            : kExitFinding;
    return report(rc, s.outcome, source_line, s.one_line,
                  {dir + io::kManifestFile, dir + io::kInputsFile, dir + io::kReferenceFile}, "");
  }
  std::cout << "case      " << print_case(c) << "\n"
            << "outcome   " << s.outcome << "\n"
            << "source    " << source_line << "\n"
            << "reference " << s.one_line << "\n";
  if (s.asserted) {
    std::cout << "wrote     " << out << "/" << io::kManifestFile << " only (the version's assert fires: nothing ran)\n";
    return kExitFinding;
  }
  std::cout << "wrote     " << out << "/{" << io::kManifestFile << ", " << io::kInputsFile << ", " << io::kReferenceFile
            << "}: " << s.prefill_tokens << " prefill tokens, " << s.context_rows << " context rows (" << s.seconds
            << " s)\n";
  if (s.one_line.rfind("inconclusive", 0) == 0) return kExitInconclusive;
  return s.exact_identical && s.outcome == "ok" ? kExitOk : kExitFinding;
}

namespace {
const RegisterCommand reg{"export", "write a case's inputs, plan and exact outputs for production kernels",
                          export_main};
}  // namespace
}  // namespace cmd_export

}  // namespace cp::cli
