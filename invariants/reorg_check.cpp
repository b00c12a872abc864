// I-9: reorg exactness, token by token. From the simulated gather -> all-gather -> reorg,
// every request must receive exactly its own positions [start, start+len), each once. One
// violation per (chunk, request) summarises what it received instead: foreign rows grouped
// by where they came from, duplicates, and the positions it never received.
#include <algorithm>
#include <map>

#include "invariants/violation_sink.h"
#include "reference/dcp/simulate.h"

namespace cp::detail {

namespace {

struct Span {  // positions of one source request seen among the foreign rows
  std::int64_t count = 0, lo = INT64_MAX, hi = -1;
};

}  // namespace

InvariantResult check_I9(const Case& c, const Plan& p) {
  Sink s(InvariantId::I9_reorg_exact);
  if (!p.built) return s.not_evaluated();
  std::vector<std::uint8_t> seen;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const std::vector<RowSource> rows = simulate_chunk(c, p, ch);
    for (std::size_t b = 0; b < ch.entries.size(); ++b) {
      const ChunkEntry& e = ch.entries[b];
      seen.assign(static_cast<std::size_t>(e.len), 0);
      std::map<std::pair<int, RowKind>, Span> foreign;
      std::int64_t n_foreign = 0, n_dup = 0, first_bad_row = -1;
      for (std::int64_t t = ch.cu_seq_lens[b]; t < ch.cu_seq_lens[b + 1]; ++t) {
        const RowSource& src = rows[static_cast<std::size_t>(t)];
        const bool own = src.kind == RowKind::context && src.request == e.request && src.position >= e.start &&
                         src.position < e.start + e.len;
        if (!own) {
          Span& sp = foreign[{src.request, src.kind}];
          ++sp.count, ++n_foreign;
          sp.lo = std::min(sp.lo, src.position), sp.hi = std::max(sp.hi, src.position);
          if (first_bad_row < 0) first_bad_row = t;
          continue;
        }
        auto& flag = seen[static_cast<std::size_t>(src.position - e.start)];
        if (flag && ++n_dup && first_bad_row < 0) first_bad_row = t;
        flag = 1;
      }
      std::int64_t n_missing = 0, first_missing = -1, last_missing = -1;
      for (std::int64_t k = 0; k < e.len; ++k)
        if (!seen[static_cast<std::size_t>(k)]) {
          if (n_missing++ == 0) first_missing = e.start + k;
          last_missing = e.start + k;
        }
      if (n_foreign == 0 && n_dup == 0 && n_missing == 0) continue;
      std::string got;
      for (const auto& [key, sp] : foreign) {
        if (!got.empty()) got += "; ";
        got += str(sp.count) + " " + row_kind_name(key.second) + " row(s)";
        if (key.first >= 0)
          got += " of request " + str(key.first) + " (positions " + str(sp.lo) + ".." + str(sp.hi) + ")";
      }
      if (n_dup) got += (got.empty() ? "" : "; ") + str(n_dup) + " duplicate row(s)";
      if (n_missing)
        got += (got.empty() ? "" : "; ") + str(n_missing) + " position(s) never received (" + str(first_missing) +
               ".." + str(last_missing) + ")";
      s.add([&] {
        return Violation{
            .chunk = static_cast<int>(ci),
            .request = e.request,
            .row = first_bad_row,
            .expected = "exactly its context positions [" + str(e.start) + ", " + str(e.start + e.len) + ") once",
            .got = got,
            .reason = n_foreign ? "attention reads rows of the wrong token" : "rows lost or repeated"};
      });
    }
  }
  return s.done();
}

}  // namespace cp::detail
