// Pins (issue 24): deployment values fixed exactly — not upper bounds — for `prove`, `fuzz` and
// `map`. One key list and one parser for every command; the batch (ctx, q, prefills) stays free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/caseio/case.h"

namespace cp {

struct Pins {
  std::optional<std::int64_t> block, dcp, interleave, workspace, mml, mns;
  bool empty() const { return !block && !dcp && !interleave && !workspace && !mml && !mns; }
  friend bool operator==(const Pins&, const Pins&) = default;
};

// The keys a pin may name, in this order: block, dcp, interleave, workspace, mml, mns.
const std::vector<std::string_view>& pin_keys();

// "block=64,dcp=8" (comma list; repeated calls add to `into`). Throws CaseError naming the key:
// unknown key (with the accepted ones), not key=value, a value out of the case format's range,
// workspace together with mml/mns, an interleave that does not divide a pinned block.
void parse_pins(std::string_view list, Pins& into);

// Sets the pinned fields of `c` (workspace pins clear mml/mns and the other way round). A pinned
// interleave that does not divide c's block rounds the block down to a multiple of it (at least
// the interleave itself), so a decoded case stays inside the case format.
void apply_pins(const Pins& p, Case& c);

// True when `c` has every pinned value.
bool satisfies(const Pins& p, const Case& c);

// "block=64 dcp=8" ("" without pins).
std::string describe(const Pins& p);

}  // namespace cp
