// I-9: reorg exactness, token by token. From the simulated gather -> all-gather -> reorg,
// every request must receive exactly its own positions [start, start+len), each once.
#include <algorithm>

#include "invariants/violation_sink.h"
#include "reference/dcp/simulate.h"

namespace cp::detail {

namespace {

std::string describe(const RowSource& src) {
  switch (src.kind) {
    case RowKind::context: return "context position " + str(src.position) + " of request " + str(src.request);
    case RowKind::new_token: return "new-token KV at position " + str(src.position) + " of request " + str(src.request);
    case RowKind::stale: return src.request < 0 ? "a stale workspace row" : "a stale slot of request " + str(src.request);
  }
  return "?";
}

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
      for (std::int64_t t = ch.cu_seq_lens[b]; t < ch.cu_seq_lens[b + 1]; ++t) {
        const RowSource& src = rows[static_cast<std::size_t>(t)];
        const bool own = src.kind == RowKind::context && src.request == e.request && src.position >= e.start &&
                         src.position < e.start + e.len;
        if (!own) {
          s.add({.chunk = static_cast<int>(ci), .request = e.request, .row = t,
                 .expected = "a context position of request " + str(e.request) + " in [" + str(e.start) + ", " +
                             str(e.start + e.len) + ")",
                 .got = describe(src), .reason = "foreign row"});
          continue;
        }
        auto& flag = seen[static_cast<std::size_t>(src.position - e.start)];
        if (flag) s.add({.chunk = static_cast<int>(ci), .request = e.request, .row = t,
                         .expected = "position " + str(src.position) + " once", .got = "twice", .reason = "duplicate row"});
        flag = 1;
      }
      for (std::int64_t k = 0; k < e.len; ++k)
        if (!seen[static_cast<std::size_t>(k)])
          s.add({.chunk = static_cast<int>(ci), .request = e.request,
                 .expected = "position " + str(e.start + k), .got = "missing", .reason = "position never received"});
    }
  }
  return s.done();
}

}  // namespace cp::detail
