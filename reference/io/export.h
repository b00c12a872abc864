// Golden vectors for production kernels (issue 13): a case's inputs, plan and exact reference
// outputs as safetensors + a JSON manifest (docs/export.md, schema below), and the reading
// side that `chunkproof compare` uses.
//
//   ExportSummary s = write_export(c, v, dir, opts);  // runs the CPU reference, writes 3 files
//   Export e = read_export(dir);                      // manifest + reference tensors
//   RunResult r = read_result(dir);                   // what python/chunkproof_runner wrote
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reference/caseio/case.h"
#include "reference/io/safetensors.h"
#include "reference/mla/check.h"

namespace cp::io {

// Bump on any change a reader must know about (docs/export.md has the history).
inline constexpr int kExportSchemaVersion = 1;
inline constexpr const char* kManifestFile = "manifest.json";
inline constexpr const char* kInputsFile = "inputs.safetensors";
inline constexpr const char* kReferenceFile = "reference.safetensors";
inline constexpr const char* kResultFile = "result.safetensors";
inline constexpr const char* kResultJson = "result.json";

struct ExportSummary {
  std::string dir;
  std::string outcome;           // the evaluation's outcome: ok | assert fired | invariant violated
  bool asserted = false;         // asserts=on and an assert fired: nothing exported
  bool exact_identical = false;  // chunked exact pipeline == unchunked reference, bit for bit
  std::string one_line;          // the CPU check's verdict line
  std::int64_t prefill_tokens = 0, context_rows = 0;
  double seconds = 0;
};

// The invariant verdict of the case, computed by the caller (the CLI evaluates the catalogue;
// reference/ does not look up into invariants/).
struct PlanVerdict {
  std::string outcome = "ok";         // ok | assert | crash | violation
  std::vector<std::string> violated;  // invariant tags
};

// Runs the CPU reference (exact + vLLM-style path, keep_outputs) and writes
// dir/manifest.json, dir/inputs.safetensors, dir/reference.safetensors. An assert that fires
// (asserts=on) writes only the manifest, saying so. `opts` gives the threads and the progress and
// stop hooks (keep_outputs is set here); a stop throws mla::CheckStopped with nothing written.
// Throws IoError/CaseError.
ExportSummary write_export(const Case& c, const PlanVerdict& v, const std::string& dir, mla::CheckOptions opts);

// An interrupted export: the manifest alone (the plan, no tensors), its reference object saying
// why ("exported": false), as an assert that fires writes it.
void write_manifest_only(const Case& c, const PlanVerdict& v, const std::string& dir, const std::string& why);

// The same files from a reference computed elsewhere (the GPU exact path, kernels/harness):
// `res` as run_check(keep_outputs) fills it, every head. `source` is merged into the manifest's
// "reference" object (write_export passes {"source": "cpu"}; docs/export.md).
ExportSummary write_export_result(const Case& c, const PlanVerdict& v, const std::string& dir,
                                  const mla::CheckResult& res, const nlohmann::ordered_json& source);

// The manifest as JSON (for tests: no files).
nlohmann::ordered_json manifest_of(const Case& c, const PlanVerdict& v);

struct Export {
  std::string dir;
  nlohmann::json manifest;
  SafetensorsFile reference;  // empty when the manifest says nothing was exported
};
Export read_export(const std::string& dir);  // checks schema and version; throws IoError

struct RunResult {
  std::string dir;
  nlohmann::json info;  // result.json
  SafetensorsFile tensors;
  std::string label() const;  // "<kernel set> <mode> <version>..." for the report
};
RunResult read_result(const std::string& dir);

// Which request, and which of its new tokens, each prefill token of an export is (manifest
// "prefills", "requests": token0, q), in prefill-token order. Throws IoError on a manifest
// without them or whose offsets do not cover 0..prefill_tokens-1 once each.
struct TokenOwner {
  int request = -1;
  std::int64_t token_in_request = -1;
};
std::vector<TokenOwner> token_owners(const nlohmann::json& manifest);

}  // namespace cp::io
