// Renders an Evaluation (plan + invariant verdicts) for humans and as JSON
// (schema: docs/plan-json.md).
#pragma once

#include <ostream>
#include <string>

#include "invariants/catalogue.h"
#include "live/protocol.h"
#include "tools/chunkproof/json.h"

namespace cp::cli {

void print_plan_text(std::ostream& os, const Evaluation& ev, std::size_t max_rows = 40);
// schema chunkproof.plan/4 (docs/plan-json.md; /3: null, not -1, for "none"; /4: `pcp`, the PCP
// family's rows): the protocol's constant, one for both directions.
using live::kPlanSchema;
Json plan_json(const Evaluation& ev);
// One line: "assert fired: <which> (<detail>)" / "violation: I-6 ..." / "ok".
std::string one_line_verdict(const Evaluation& ev);
std::string describe(const Violation& v);
// --summary: one line per case, "<version> <case id> <outcome> violated=<tags|none>
// assert=<first assert|none>", the fields in fixed order (`extra` appended when given).
std::string summary_line(const Evaluation& ev, const std::string& id, const std::string& extra = {});

}  // namespace cp::cli
