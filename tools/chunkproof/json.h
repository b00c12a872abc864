// JSON output of the CLI: nlohmann::json with keys in insertion order. Every document a
// command prints carries "schema": "chunkproof.<output>/<version>" (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

namespace cp::cli {

using Json = nlohmann::ordered_json;

// One document per line (JSON lines when a command prints several); invalid UTF-8 in case
// text is replaced, never thrown.
inline void print_json(std::ostream& os, const Json& j) {
  os << j.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n" << std::flush;
}

}  // namespace cp::cli
