// The user's words (DESIGN §9): a vLLM deployment — serve flags, the attention backend, the GPU or
// platform, the vLLM release or commit — mapped to a planner version and pinned case keys, for
// `chunkproof audit`. The two tables here are the only place these mappings are spelled
// (docs/plan.md "vLLM release or commit -> version" shows them; `chunkproof audit --tables`
// prints them).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "reference/caseio/case.h"

namespace cp {

// Bad deployment input: the message names the flag and the accepted values (exit 2).
struct DeploymentError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// vLLM's MLA attention backends (the --attention-backend / VLLM_ATTENTION_BACKEND names).
struct BackendRow {
  std::string_view name;
  std::optional<Platform> platform;  // nullopt: runs on both (give --platform)
  Builder builder = Builder::dense;
  std::string_view note;
};
std::span<const BackendRow> backend_rows();

// The vLLM code a deployment runs, in release order: a commit (prefix of 7+ hex digits) or a PR
// mark ("#46114": a vLLM that has this PR and not the next row's), and the version row that
// models it. Version names (`v1-dcp`) are accepted as themselves.
struct ReleaseRow {
  std::string_view key;
  Version version{};
  std::string_view what;
};
std::span<const ReleaseRow> release_rows();
// The version rows vLLM shipped, in release order (derived from release_rows): "fixed in" walks it.
std::vector<Version> release_order();

struct Deployment {
  Case base;             // version, platform, builder, block, dcp, interleave, S or mml+mns; no batch
  std::string backend;   // as given, upper case
  std::string vllm;      // as given
  std::string vllm_row;  // what the release table says about it
  std::int64_t tensor_parallel = 1;
  std::optional<std::int64_t> max_model_len;           // bounds every request's ctx + q
  std::optional<std::int64_t> max_num_seqs;            // bounds the requests of a step
  std::optional<std::int64_t> max_num_batched_tokens;  // bounds the step's new tokens
  std::vector<std::string> mapped;                     // "--block-size 64 -> block=64"
  std::vector<std::string> ignored;                    // serve flags that do not reach the planner
  std::vector<std::string> notes;
  // The pinned keys as a case-line fragment (no ctx/q).
  std::string pinned() const;
};

struct DeploymentInput {
  std::string serve;     // vLLM serve flags (a command line; `vllm serve MODEL` and env words allowed)
  std::string backend;   // backend name (or from --attention-backend / VLLM_ATTENTION_BACKEND in serve)
  std::string platform;  // cuda | rocm | a GPU name (MI300X, H100, ...); "" = the backend's
  std::string vllm;      // release row key, commit or version name; "" = from `keys`' version
  std::string keys;      // case-line form: key=value words (version, platform, builder, workspace, ...)
  std::optional<std::int64_t> workspace;  // explicit S (else the version sizes it from mml and mns)
};
// Throws DeploymentError naming the flag or option.
Deployment parse_deployment(const DeploymentInput& in);

// Release row key / commit / version name -> the row's version; nullopt if unknown.
std::optional<Version> resolve_vllm(std::string_view word, std::string* what = nullptr);

}  // namespace cp
