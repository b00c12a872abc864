#include "live/protocol.h"

namespace cp::live {
namespace {

Json opt(const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

std::string string_field(const Json& o, const char* key, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return {};
  if (!it->is_string()) throw SchemaError(where + "." + key, "not a string");
  return it->get<std::string>();
}

}  // namespace

std::string request_line(const Case& c, std::int64_t id) {
  const Json j{{"schema", kRequestSchema},
               {"id", id},
               {"case", print_case(c)},
               {"version", name(c.version)},
               {"platform", name(c.platform)},
               {"builder", name(c.builder)},
               {"workspace", opt(c.workspace)},
               {"max_model_len", opt(c.max_model_len)},
               {"max_num_seqs", opt(c.max_num_seqs)},
               {"block", c.block},
               {"dcp", c.dcp},
               {"interleave", c.interleave},
               {"compress_ratio", c.compress_ratio},  // the sparse indexer's (indexer-dsv4)
               {"max_logits_mb", opt(c.max_logits_mb)},
               {"pcp", opt(c.pcp)},  // the PCP family's (pcp-a, pcp-b, pcp-c)
               {"pcp_rank", opt(c.pcp_rank)},
               {"tp", opt(c.tp)},
               {"prefilling", c.prefilling},
               // the local-shard family's (pcp-local-shard): whose rows, the dispatch path
               {"pcp_rows", c.pcp_rows ? Json(std::string(name(*c.pcp_rows))) : Json(nullptr)},
               {"mla_pcp_path", c.mla_pcp_path ? Json(std::string(name(*c.mla_pcp_path))) : Json(nullptr)},
               // the PCP family's context reuse (#57668) and its fallback's conditions
               {"ctx_reuse", c.ctx_reuse},
               {"causal", c.causal},
               {"sliding_window", opt(c.sliding_window)},
               {"padded_num_tokens", opt(c.padded_num_tokens)},
               {"ctx", c.ctx},
               {"q", c.q},
               {"asserts", c.asserts}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Reply decode_reply(std::string_view line) {
  Json j;
  try {
    j = Json::parse(line.begin(), line.end());
  } catch (const Json::parse_error& e) {
    std::string shown(line.substr(0, 80));
    throw SchemaError("", "not JSON (" + std::string(e.what()) + "): '" + CaseError::printable(shown) +
                              (line.size() > 80 ? "...'" : "'"));
  }
  if (!j.is_object()) throw SchemaError("", "the reply is not a JSON object");
  Reply r;
  if (const auto it = j.find("error"); it != j.end()) {
    if (!it->is_object()) throw SchemaError("error", "not an object");
    ErrorRecord e;
    e.kind = string_field(*it, "kind", "error");
    if (e.kind != "assert" && e.kind != "exception")
      throw SchemaError("error.kind", "'" + e.kind + "' is neither 'assert' nor 'exception'");
    e.type = string_field(*it, "type", "error");
    e.message = string_field(*it, "message", "error");
    e.location = string_field(*it, "location", "error");
    r.error = std::move(e);
    return r;
  }
  const auto s = j.find("schema");
  if (s == j.end() || !s->is_string())
    throw SchemaError("schema", "missing (expected \"" + std::string(kPlanSchema) + "\")");
  if (s->get<std::string>() != kPlanSchema && s->get<std::string>() != kPlanSchemaPrevious)
    throw SchemaError("schema", "\"" + s->get<std::string>() + "\", expected \"" + kPlanSchema + "\"");
  r.plan = std::move(j);
  return r;
}

}  // namespace cp::live
