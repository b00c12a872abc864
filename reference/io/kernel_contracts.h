// Kernel contracts at the boundaries (issue 28): what a production kernel set must do where the
// shipped bugs were -- empty context rows, zero-length KV chunks, the LSE base, the merge's
// strides, ranks that own nothing, continuation chunks, mid-block gathers, both-empty merges,
// FA2's +inf, prefill_tokens_with_context -- one catalogue, read by `chunkproof compare`, which
// prints a line per contract per result: holds / violated / not exercised by this export.
// Each contract says from the export's plan (and the result's declared boundary facts) whether
// it is exercised, then judges the result's numbers on the tokens (or chunk partials) it
// concerns against the exact reference with the kernel bound.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/io/compare.h"
#include "reference/io/export.h"

namespace cp::io {

enum class ContractVerdict { holds, violated, not_exercised };
std::string_view name(ContractVerdict v);  // "holds", "violated", "not exercised"

// One result and everything a contract may read.
struct ContractInput {
  const nlohmann::json& manifest;   // the manifest of the export the result ran on
  const RunResult& result;          // result.json (boundary facts, LSE convention) and tensors
  const SafetensorsFile& partials;  // that export's reference: chunk.<c>.out/.lse
  const std::vector<float>& out;    // the result's out, lse
  const std::vector<float>& lse;
  const std::vector<float>& want_out;  // the exact unchunked reference
  const std::vector<float>& want_lse;
  int heads = 0, v_dim = 0;
  KernelBound bound;
};

struct ContractResult {
  std::string id, name;
  ContractVerdict verdict = ContractVerdict::not_exercised;
  std::string detail;  // what was checked, or why not exercised
};

struct KernelContract {
  std::string_view id, name;
  std::string_view refs;       // the bug reports and spec sections it comes from
  std::string_view statement;  // what must hold
  ContractResult (*judge)(const ContractInput&);
};

std::span<const KernelContract> kernel_contracts();
std::vector<ContractResult> judge_contracts(const ContractInput& in);

}  // namespace cp::io
