// chunkproof export: a case's inputs, plan and exact reference outputs as files for production
// kernels (safetensors + JSON manifest, docs/export.md). python/ runs kernel sets on them;
// `chunkproof compare` reads the results back.
#include <iostream>
#include <span>
#include <string>

#include "reference/io/export.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {

namespace {
constexpr const char* kExportHelp = R"(usage: chunkproof export --case '<case line>' --out DIR [--threads T]

Writes everything a kernel needs to run the case's chunked-context prefill the way vLLM does,
and the exact answers (schema: docs/export.md):
  DIR/manifest.json          case, shapes, geometry, the plan (per chunk: request slice,
                             cu_seq_lens, starts, DCP local fields, reorg kept rows), verdict
  DIR/inputs.safetensors     paged bf16 latent cache per DCP rank, block table, q,
                             new-token latent K/V, W_UK, W_UV
  DIR/reference.safetensors  exact unchunked out + lse, exact chunked out, the CPU vLLM-style
                             out + lse, and each chunk's (out, lse) partials
Runs the CPU reference (the slow part at DeepSeek-V3 size: use --threads).

  --case LINE   the case (as for `chunkproof check`; add dims=deepseek-v3, heads=, seed=)
  --out DIR     output directory (created)
  --threads T   worker threads for the CPU reference (default 1)

exit: 0 written, the plan's chunked pipeline equals the unchunked reference bit for bit;
1 a finding (an assert fired: only the manifest is written; or the plan corrupts: files
written, marked "expected": "corrupt"); 2 bad input; 3 inconclusive (accumulator overflow).
)";
}  // namespace

int export_main(Args args) {
  CLI::App app{kExportHelp, "chunkproof export"};
  configure(app);
  std::string line_s, out_s;
  int threads = 1;
  app.add_option("--case", line_s, "the case line")->required();
  app.add_option("--out", out_s, "output directory (created)")->required()->type_name("DIR");
  add_jobs(app, threads, "worker threads for the CPU reference");
  if (!parse(app, args)) return kExitOk;
  const std::string* line = &line_s;
  const std::string* out = &out_s;
  const Case c = parse_case(*line);
  io::PlanVerdict verdict;  // the CLI combines the invariant verdict with the numerics
  {
    const Evaluation ev = evaluate(c);
    verdict.outcome = std::string(name(ev.outcome));
    for (const auto& r : ev.results)
      if (r.verdict == Verdict::violated) verdict.violated.emplace_back(info(r.id).tag);
  }
  require_writable_dir(*out, "--out");
  const io::ExportSummary s = io::write_export(c, verdict, *out, threads);
  std::cout << "case      " << print_case(c) << "\n"
            << "outcome   " << s.outcome << "\n"
            << "reference " << s.one_line << "\n";
  if (s.asserted) {
    std::cout << "wrote     " << *out << "/" << io::kManifestFile
              << " only (the version's assert fires: nothing ran)\n";
    return kExitFinding;
  }
  std::cout << "wrote     " << *out << "/{" << io::kManifestFile << ", " << io::kInputsFile << ", "
            << io::kReferenceFile << "}: " << s.prefill_tokens << " prefill tokens, " << s.context_rows
            << " context rows (" << s.seconds << " s)\n";
  if (s.one_line.rfind("inconclusive", 0) == 0) return kExitInconclusive;
  return s.exact_identical && s.outcome == "ok" ? kExitOk : kExitFinding;
}

namespace {
const RegisterCommand reg{"export", "write a case's inputs, plan and exact outputs for production kernels",
                          export_main};
}

}  // namespace cp::cli
