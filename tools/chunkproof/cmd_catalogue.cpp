// chunkproof versions / chunkproof invariants: the two catalogues, one line each.
#include <iomanip>
#include <iostream>

#include "invariants/catalogue.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/json.h"

namespace cp::cli {
namespace {

int versions(Args args) {
  if (wants_help(args)) {
    std::cout << "usage: chunkproof versions [--json]\n\nLists the planner versions that `version=` accepts.\n";
    return kExitOk;
  }
  Options o(args, {"--json"}, {});
  if (o.has("--json")) {
    Json j(std::cout);
    j.begin_array();
    for (const auto& v : all_versions())
      j.begin_object().field("name", v.name).field("summary", v.summary).field("source", v.source).end_object();
    j.end_array();
    std::cout << "\n";
    return kExitOk;
  }
  for (const auto& v : all_versions())
    std::cout << std::left << std::setw(15) << v.name << v.summary << " [" << v.source << "]\n";
  return kExitOk;
}

int invariants(Args args) {
  if (wants_help(args)) {
    std::cout << "usage: chunkproof invariants [--json]\n\nLists the invariant catalogue (DESIGN §5, spec §6).\n";
    return kExitOk;
  }
  Options o(args, {"--json"}, {});
  if (o.has("--json")) {
    Json j(std::cout);
    j.begin_array();
    for (const auto& i : all_invariants())
      j.begin_object().field("id", i.tag).field("name", i.name).field("summary", i.summary).end_object();
    j.end_array();
    std::cout << "\n";
    return kExitOk;
  }
  for (const auto& i : all_invariants())
    std::cout << std::left << std::setw(6) << i.tag << std::setw(30) << i.name << i.summary << "\n";
  return kExitOk;
}

const RegisterCommand reg_v{"versions", "list the planner versions", versions};
const RegisterCommand reg_i{"invariants", "list the invariant catalogue", invariants};

}  // namespace
}  // namespace cp::cli
