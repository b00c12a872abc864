// The external-planner protocol (docs/live.md): one request line per case to the planner's
// stdin, one reply line per request from its stdout. The request carries the canonical case
// line and the same case as JSON fields; the reply is a chunkproof.plan/4 object or an error
// record {"error": {"kind": "assert"|"exception", "message", "location", "type"}}.
// (/3 replies are read too: /4 only added the optional PCP rows, `pcp`.)
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "reference/caseio/case.h"
#include "reference/planner/plan.h"

namespace cp::live {

using Json = nlohmann::ordered_json;

inline constexpr const char* kRequestSchema = "chunkproof.live-request/1";
inline constexpr const char* kPlanSchema = "chunkproof.plan/4";
// A reply in the previous schema is still read: /4 only added the optional `pcp` object.
inline constexpr const char* kPlanSchemaPrevious = "chunkproof.plan/3";

// The request line for case `c` (no trailing newline): {"schema", "id", "case", "version",
// "platform", "builder", "workspace", "max_model_len", "max_num_seqs", "block", "dcp",
// "interleave", "compress_ratio", "max_logits_mb", "ctx", "q", "asserts", and the PCP family's
// "pcp", "pcp_rank", "tp", "prefilling"}; an absent optional key is null ("prefilling": [] when unset).
std::string request_line(const Case& c, std::int64_t id);

// A reply that breaks the protocol: not JSON, not an object, a wrong schema, a missing or
// ill-typed field. `path` names the field as a JSON path ("chunks[2].requests[0].len").
struct SchemaError : std::runtime_error {
  SchemaError(std::string p, const std::string& what)
      : std::runtime_error(p.empty() ? what : p + ": " + what), path(std::move(p)) {}
  std::string path;
};

// What the planner's own code raised (its assert or exception), as the error record says it.
struct ErrorRecord {
  std::string kind;      // "assert" (AssertionError) or "exception" (anything else)
  std::string type;      // the exception's type, e.g. "AssertionError", "ZeroDivisionError"
  std::string message;   // str(exception), may be empty for a bare assert
  std::string location;  // "file.py:123 in function" of the raising frame
};

// A reply line decoded: the plan object or the error record. Throws SchemaError.
struct Reply {
  std::optional<Json> plan;
  std::optional<ErrorRecord> error;
};
Reply decode_reply(std::string_view line);

}  // namespace cp::live
