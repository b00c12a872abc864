// The check functions, one per invariant, grouped in files by theme. Each takes the batch and
// the plan only (the geometry is the plan's), and is called through check() (catalogue.h),
// which answers n/a for a dcp_only row of a plan without DCP: those checks assume W > 1.
#pragma once

#include "invariants/catalogue.h"
#include "invariants/violation_sink.h"

namespace cp::detail {

InvariantResult check_I1(const Batch&, const Plan&);
InvariantResult check_I2(const Batch&, const Plan&);
InvariantResult check_I3(const Batch&, const Plan&);
InvariantResult check_I4(const Batch&, const Plan&);
InvariantResult check_I5(const Batch&, const Plan&);
InvariantResult check_I6(const Batch&, const Plan&);
InvariantResult check_I7(const Batch&, const Plan&);
InvariantResult check_I8(const Batch&, const Plan&);
InvariantResult check_I9(const Batch&, const Plan&, Level);
InvariantResult check_I10(const Batch&, const Plan&);
InvariantResult check_I11(const Batch&, const Plan&, Level);
InvariantResult check_I12(const Batch&, const Plan&);
InvariantResult check_I13(const Batch&, const Plan&);
// The other engines' rules (engine_checks.cpp).
InvariantResult check_A3(const Batch&, const Plan&);
InvariantResult check_A4(const Batch&, const Plan&);
InvariantResult check_A7(const Batch&, const Plan&);
InvariantResult check_G4(const Batch&, const Plan&);
InvariantResult check_G7(const Batch&, const Plan&);
InvariantResult check_G10(const Batch&, const Plan&);
InvariantResult check_T1(const Batch&, const Plan&);
InvariantResult check_T3(const Batch&, const Plan&);
InvariantResult check_R1(const Batch&, const Plan&);
// vLLM main's sparse families (sparse_checks.cpp).
InvariantResult check_E2(const Batch&, const Plan&);
InvariantResult check_E3(const Batch&, const Plan&);
InvariantResult check_E4(const Batch&, const Plan&);
InvariantResult check_E5(const Batch&, const Plan&);
InvariantResult check_E6(const Batch&, const Plan&);
InvariantResult check_D5(const Batch&, const Plan&);
InvariantResult check_D7(const Batch&, const Plan&);
InvariantResult check_Z1(const Batch&, const Plan&);
// vLLM's PCP virtual rows (pcp_checks.cpp).
InvariantResult check_P1(const Batch&, const Plan&);
InvariantResult check_P2(const Batch&, const Plan&);
InvariantResult check_P4(const Batch&, const Plan&);
InvariantResult check_P9(const Batch&, const Plan&);
InvariantResult check_P13(const Batch&, const Plan&);
// vLLM's dense PCP x DCP local-shard path (local_shard_checks.cpp).
InvariantResult check_C1(const Batch&, const Plan&);
InvariantResult check_C2(const Batch&, const Plan&);
InvariantResult check_C3(const Batch&, const Plan&);
InvariantResult check_C4(const Batch&, const Plan&);
InvariantResult check_C5(const Batch&, const Plan&);
InvariantResult check_C6(const Batch&, const Plan&);
InvariantResult check_P5(const Batch&, const Plan&);
InvariantResult check_P6(const Batch&, const Plan&);
InvariantResult check_P7(const Batch&, const Plan&);
InvariantResult check_P8(const Batch&, const Plan&);
// vLLM's PCP context reuse (reuse_checks.cpp).
InvariantResult check_CR1(const Batch&, const Plan&);
InvariantResult check_CR2(const Batch&, const Plan&);
InvariantResult check_CR3(const Batch&, const Plan&);
InvariantResult check_CR4(const Batch&, const Plan&);
InvariantResult check_CR6(const Batch&, const Plan&);

// The strategy of a token-walking check (I-9, I-11) on one plan: walk tokens, or decide at
// interval level. Level::automatic walks tokens up to 2^22 simulated rows and context tokens.
struct Strategy {
  bool token = true;
  bool fell_back = false;  // automatic chose the interval level: the plan is too large to simulate
};
// `movement`: the check's interval level needs the family's movement in closed form (I-9:
// FamilyInfo::interval_level); false: only the ownership formulas, the same for every family (I-11).
Strategy choose(Level level, const Batch& b, const Plan& p, bool movement = true);
// `r` with the fallback's note appended (full evaluation only).
InvariantResult noted(const Strategy& s, InvariantResult r);

}  // namespace cp::detail
