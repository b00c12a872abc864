// chunkproof versions / chunkproof invariants: the two catalogues, one line each.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "invariants/catalogue.h"
#include "reference/planner/families/registry.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {
namespace cmd_catalogue {  // one per file: the unity build puts several files in one TU
namespace {

int versions(Args args) {
  CLI::App app{"Lists the planner versions that `version=` accepts.", "chunkproof versions"};
  configure(app, "JSON (--json): one chunkproof.versions/1 object (docs/json.md).\nexit: 0\n");
  bool json = false;
  app.add_flag("--json", json, "machine-readable output");
  if (!parse(app, args)) return kExitOk;
  if (json) {
    Json j{{"schema", "chunkproof.versions/1"}, {"versions", Json::array()}, {"families", Json::array()}};
    for (const auto& v : all_versions())
      j["versions"].push_back(Json{{"name", v.name},
                                   {"summary", v.summary},
                                   {"source", v.source},
                                   {"family", v.family->name},
                                   {"supports_dcp", v.supports_dcp},
                                   {"expected_correct", v.expected_correct}});
    for (const FamilyInfo* f : kFamilies)
      j["families"].push_back(Json{{"name", f->name}, {"summary", f->summary}, {"models", f->models}});
    print_json(std::cout, j);
    return kExitOk;
  }
  // One line per version, its name first (completion reads the first word): the columns as wide
  // as the longest name, so a name never runs into its family.
  std::size_t width = 0, fwidth = 0;
  for (const auto& v : all_versions()) width = std::max(width, v.name.size());
  for (const FamilyInfo* f : kFamilies) fwidth = std::max(fwidth, f->name.size());
  for (const auto& v : all_versions())
    std::cout << std::left << std::setw(static_cast<int>(width + 1)) << v.name
              << std::setw(static_cast<int>(fwidth + 2)) << v.family->name
              << (v.expected_correct ? "[expected correct] " : "") << v.summary << " [" << v.source << "]\n";
  return kExitOk;
}

int invariants(Args args) {
  CLI::App app{
      "Lists the invariant catalogue (DESIGN §5, §9, spec §6): id, name, scope (universal: a property of every "
      "engine's plan; family: a rule of one planner family or kernel), `DCP only` (n/a without DCP), summary "
      "[the property, or whose rule it is].",
      "chunkproof invariants"};
  configure(app, "JSON (--json): one chunkproof.invariants/1 object (docs/json.md).\nexit: 0\n");
  bool json = false;
  app.add_flag("--json", json, "machine-readable output");
  if (!parse(app, args)) return kExitOk;
  if (json) {
    Json j{{"schema", "chunkproof.invariants/1"}, {"invariants", Json::array()}};
    for (const auto& i : all_invariants())
      j["invariants"].push_back(Json{{"id", i.tag},
                                     {"name", i.name},
                                     {"summary", i.summary},
                                     {"scope", name(i.scope)},
                                     {"rule", i.rule},
                                     {"dcp_only", i.dcp_only}});
    print_json(std::cout, j);
    return kExitOk;
  }
  // scope: universal (every engine's plan) or family (one planner family's or kernel's rule);
  // "DCP only": n/a without DCP.
  for (const auto& i : all_invariants())
    std::cout << std::left << std::setw(6) << i.tag << std::setw(30) << i.name << std::setw(11) << name(i.scope)
              << std::setw(10) << (i.dcp_only ? "DCP only" : "") << i.summary << " [" << i.rule << "]\n";
  return kExitOk;
}

const RegisterCommand reg_v{"versions", "list the planner versions", versions};
const RegisterCommand reg_i{"invariants", "list the invariant catalogue", invariants};

}  // namespace
}  // namespace cmd_catalogue
}  // namespace cp::cli
