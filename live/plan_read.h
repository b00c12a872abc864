// A chunkproof.plan/3 object from an external planner, read back into the one Plan value
// (reference/planner/plan.h) so that every consumer — the invariant catalogue, the diff, the
// reports — reads it as it reads our own plans. docs/live.md lists which fields a planner must
// send and which default to chunkproof's model of the case.
#pragma once

#include "live/protocol.h"
#include "reference/planner/plan.h"

namespace cp::live {

// Reads `j` (decode_reply's plan) for case `c`. `model` is make_plan(c): the batch split and
// the geometry a planner may leave out are taken from it (docs/live.md, "defaults"); what a
// planner decides — the workspace, every chunk and every span — must be sent. Throws
// SchemaError naming the first missing, ill-typed or out-of-range field; a plan that is merely
// wrong (a span past its context, rows over the budget) is read as sent: that is for the
// invariants to find.
Plan plan_from_json(const Json& j, const Case& c, const Plan& model);

}  // namespace cp::live
