// I-9: reorg exactness. Every request must receive exactly its own positions [start,
// start+len), each once, in the rows attention reads for it — decided token by token or at
// interval level (reorg_walk.h, the strategy of catalogue.h: Level). One violation per
// (chunk, request) summarises what it received instead: foreign rows grouped by where they
// came from, duplicates, and the positions it never received.
#include <algorithm>

#include "invariants/checks.h"
#include "invariants/reorg_walk.h"

namespace cp::detail {
namespace {

void walk(const Strategy& s, const Batch& b, const Plan& p, ReceiptVisitor visit) {
  if (s.token)
    walk_tokens(b, p, visit);
  else
    walk_intervals(b, p, visit);
}

// The violation of an entry that did not receive exactly its span (the same text at both levels).
Violation reorg_violation(const Plan& p, Receipt& r) {
  const ReorgCounts& k = r.counts;
  const ChunkEntry& e = p.chunks[static_cast<std::size_t>(k.chunk)].entries[static_cast<std::size_t>(k.entry)];
  std::sort(r.groups.begin(), r.groups.end(), [](const Group& x, const Group& y) {
    return x.request != y.request ? x.request < y.request : x.kind < y.kind;
  });
  std::string got;
  for (const auto& g : r.groups) {
    if (!got.empty()) got += "; ";
    got += str(g.count) + " " + row_kind_name(g.kind) + " row(s)";
    if (g.request >= 0) got += " of request " + str(g.request) + " (positions " + str(g.lo) + ".." + str(g.hi) + ")";
  }
  if (k.duplicate) got += (got.empty() ? "" : "; ") + str(k.duplicate) + " duplicate row(s)";
  if (k.missing)
    got += (got.empty() ? "" : "; ") + str(k.missing) + " position(s) never received (" + str(r.first_missing) + ".." +
           str(r.last_missing) + ")";
  return Violation{
      .chunk = k.chunk,
      .request = e.request,
      .row = k.first_bad_row,
      .expected = "exactly its context positions [" + str(e.start) + ", " + str(e.start + e.len) + ") once",
      .got = got,
      .reason = k.foreign ? "attention reads rows of the wrong token" : "rows lost or repeated"};
}

}  // namespace

InvariantResult check_I9(const Batch& b, const Plan& p, Level level) {
  const Strategy st = choose(level, b, p);
  Sink s(InvariantId::I9_reorg_exact);
  if (!p.built) return noted(st, s.not_evaluated());
  auto visit = [&](Receipt& r) {
    if (!r.exact()) s.add([&] { return reorg_violation(p, r); });  // text only when recorded
  };
  walk(st, b, p, visit);
  return noted(st, s.done());
}

}  // namespace cp::detail

namespace cp {

std::vector<ReorgCounts> reorg_counts(const Batch& b, const Plan& p, Level level) {
  std::vector<ReorgCounts> out;
  if (!p.built) return out;
  auto visit = [&](detail::Receipt& r) { out.push_back(r.counts); };
  detail::walk(detail::choose(level, b, p), b, p, visit);
  return out;
}

}  // namespace cp
