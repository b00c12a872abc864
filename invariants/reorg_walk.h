// The two walks behind I-9 (internal to invariants/): each goes over every entry of every
// chunk of a built plan, in plan order, and reports what the entry's reading range
// [cu_seq_lens[b], cu_seq_lens[b+1]) received. walk_tokens (reorg_token.cpp) reads the
// simulated rows (reference/dcp/simulate.h), the ground truth; walk_intervals
// (interval/reorg_interval.cpp) derives the same receipt from the closed-form ownership and
// local-length formulas, in O(chunks x requests x W) whatever the context length.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "invariants/reorg.h"
#include "reference/dcp/simulate.h"

namespace cp::detail {

struct Group {  // foreign rows of one (request, kind)
  int request;
  RowKind kind;
  std::int64_t count, lo, hi;  // lo..hi: the positions they hold (request >= 0)
};

// What one entry received. The groups and the missing range make only the violation's text:
// the walks leave them empty under VerdictOnlyScope (catalogue.h).
struct Receipt {
  ReorgCounts counts;
  std::vector<Group>& groups;  // any order; the walk's scratch, valid during the visit
  // The first and last span position never received.
  std::int64_t first_missing = -1, last_missing = -1;
  bool exact() const { return counts.foreign == 0 && counts.duplicate == 0 && counts.missing == 0; }
};

// A non-owning reference to the visitor a walk calls once per entry (no allocation).
class ReceiptVisitor {
 public:
  template <class F, std::enable_if_t<!std::is_same_v<std::remove_cv_t<F>, ReceiptVisitor>, int> = 0>
  ReceiptVisitor(F& f)  // NOLINT(google-explicit-constructor): a lambda passes as is
      : obj_(&f), call_([](void* o, Receipt& r) { (*static_cast<F*>(o))(r); }) {}
  void operator()(Receipt& r) const { call_(obj_, r); }

 private:
  void* obj_;
  void (*call_)(void*, Receipt&);
};

void walk_tokens(const Batch& b, const Plan& p, ReceiptVisitor visit);
void walk_intervals(const Batch& b, const Plan& p, ReceiptVisitor visit);

// Accumulates foreign rows into groups of one (request, kind).
inline void add_to_group(std::vector<Group>& groups, int request, RowKind kind, std::int64_t count, std::int64_t lo,
                         std::int64_t hi) {
  for (auto& g : groups)
    if (g.request == request && g.kind == kind) {
      g.count += count, g.lo = std::min(g.lo, lo), g.hi = std::max(g.hi, hi);
      return;
    }
  groups.push_back({request, kind, count, lo, hi});
}

}  // namespace cp::detail
