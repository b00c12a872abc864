// I-9's interval-level walk (reorg_walk.h): the receipt of every chunk entry from the plan's
// intervals and the closed-form ownership and local-length formulas of reference/dcp/
// ownership.h. A rank's gathered rows are the positions it owns with local index in an
// interval, so "how many of a request's positions does this run of rows hold" is a difference
// of two dcp_local_len() values: the cost is independent of the context length.
#include <algorithm>

#include "invariants/catalogue.h"
#include "invariants/interval/local_len.h"
#include "invariants/reorg_walk.h"
#include "reference/dcp/movement.h"
#include "reference/dcp/ownership.h"

namespace cp::detail {
namespace {

// A run of consecutive workspace rows as the reorg output holds them: rank `rank`'s local slots
// [la, lb) of request `request` (global positions global_position(l, rank, I, W), increasing in
// l), starting at output row `row`. request < 0: rows nobody wrote (RowSource{}).
struct Piece {
  int request;
  std::int64_t rank, la, lb, row;
};

struct Own {  // a run of the entry's own positions: rank, local slots [la, lb), first row
  std::int64_t rank, la, lb, row;
};

struct Scratch {
  std::vector<Group> groups;
  std::vector<Own> own;
  std::vector<std::size_t> order;  // run_local: gather runs by request and rank
};

// Compares a gather run (by index) with a request, for equal_range over Scratch::order.
struct Request {
  const ChunkMovement& m;
  bool operator()(std::size_t i, int q) const { return m.gather[i].request < q; }
  bool operator()(int q, std::size_t i) const { return q < m.gather[i].request; }
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Walks one chunk: generates the reorg output as pieces, splits them at the entries' reading
// ranges [cu_seq_lens[b], cu_seq_lens[b+1]) and accumulates, per entry, what it received.
// `done(receipt)` is called once per entry, in order.
class ChunkWalk {
 public:
  ChunkWalk(const Batch& batch, const Plan& p, const Chunk& ch, int chunk)
      : batch_(batch),
        p_(p),
        ch_(ch),
        chunk_(chunk),
        W_(p.dcp),
        I_(p.interleave),
        s_(scratch()),
        text_(!verdict_only()) {}

  void run(ReceiptVisitor done) {
    if (p_.local_attention) return run_local(done);
    const std::size_t n = ch_.entries.size();
    b_ = 0;
    begin_entry();
    auto settle = [&] {  // finishes every entry whose reading range is complete
      while (b_ < n && row_ >= ch_.cu_seq_lens[b_ + 1]) {
        finish_entry(done);
        ++b_;
        begin_entry();
      }
    };
    settle();
    const std::int64_t total = ch_.total_tokens();
    std::int64_t out = 0;  // rows the reorg produced so far
    auto emit = [&](const Piece& pc) {
      // Feed the piece into the entries it overlaps; rows past `total` are never read.
      std::int64_t la = pc.la, row = pc.row;
      while (la < pc.lb && b_ < n) {
        const std::int64_t take = std::min(pc.lb - la, ch_.cu_seq_lens[b_ + 1] - row);
        overlap({pc.request, pc.rank, la, la + take, row});
        la += take;
        row += take;
        row_ = row;
        settle();
      }
    };
    if (!p_.is_dcp()) {
      for (const auto& e : ch_.entries) {
        // The old batch-grid kernel starts copying at the page holding `start` (spec §3.4).
        const std::int64_t first = p_.gather == GatherKind::page_rounding ? e.start / p_.block * p_.block : e.start;
        emit({e.request, 0, first, first + e.len, out});
        out += e.len;
      }
    } else {
      const std::int64_t toks = ch_.local_tokens();
      for (std::size_t eb = 0; eb < n; ++eb) {
        const ChunkEntry& e = ch_.entries[eb];
        for (std::int64_t r = 0; r < W_; ++r) {
          const std::int64_t kept = e.kept[static_cast<std::size_t>(r)];
          if (kept <= e.padded_local_len) {  // within the entry's own block of rank r's gather
            emit({e.request, r, e.local_start, e.local_start + kept, out});
          } else {
            emit_rows(r * toks + ch_.padded_local_cu[eb], kept, toks, out, emit);
          }
          out += kept;
        }
      }
    }
    if (out < total) emit({-1, 0, 0, total - out, out});  // never written: stale buffer rows
    row_ = total;
    settle();
  }

  // Local attention (movement.h: local_attend): an entry receives, rank after rank, the slots of
  // that rank's gather runs of its request (the rows attended_spans names), numbered from 0 as
  // the token walk numbers them. Exact while one rank's runs do not overlap in its buffer
  // (local_shard_movement packs them entry after entry), so every run's rows hold its own slots.
  void run_local(ReceiptVisitor done) {
    const ChunkMovement m = chunk_movement(p_, ch_);
    // The runs by (request, rank, run): an entry finds its own without scanning every run.
    auto& order = s_.order;
    order.resize(m.gather.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto key = [&](std::size_t i) {
      return std::pair{m.gather[i].request, m.gather_per_rank ? m.gather[i].rank : 0};
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    for (b_ = 0; b_ < ch_.entries.size(); ++b_) {
      begin_entry();
      const int request = ch_.entries[b_].request;
      const auto [lo, hi] = std::equal_range(order.begin(), order.end(), request, Request{m});
      std::int64_t row = 0;
      // Every rank runs a run unless gather_per_rank: then each run once, its rank's, in rank order.
      for (std::int64_t r = 0; r < (m.gather_per_rank ? 1 : W_); ++r)
        for (auto it = lo; it != hi; ++it) {
          const CopyRun g = clip_gather(m, m.gather[*it]);
          if (g.len == 0 || (m.gather_per_rank && (g.rank < 0 || g.rank >= W_))) continue;
          overlap({request, m.gather_per_rank ? g.rank : r, g.src, g.src + g.len, row});
          row += g.len;
        }
      finish_entry(done);
    }
  }

 private:
  std::int64_t pos(std::int64_t l, std::int64_t r) const {
    return global_position(Int(l), Int(r), Int(I_), Int(W_)).get();
  }
  // Local slots of rank r below global position x (the first slot at or after x).
  [[gnu::always_inline]] std::int64_t L(std::int64_t x, std::int64_t r) const {
    return interval_detail::local_len(x, W_, r, I_);
  }

  // All-gather rows [g, g + k) (rank-major, toks rows per rank) cut at the entries' local blocks.
  template <class Emit>
  void emit_rows(std::int64_t g, std::int64_t k, std::int64_t toks, std::int64_t row, Emit& emit) {
    const auto& cu = ch_.padded_local_cu;
    while (k > 0) {
      if (g >= W_ * toks) {
        emit(Piece{-1, 0, 0, k, row});
        return;
      }
      const std::int64_t r = g / toks, off = g - r * toks;
      const auto e = static_cast<std::size_t>(std::upper_bound(cu.begin(), cu.end(), off) - cu.begin() - 1);
      const ChunkEntry& en = ch_.entries[e];
      const std::int64_t kk = off - cu[e], m = std::min(k, en.padded_local_len - kk);
      emit(Piece{en.request, r, en.local_start + kk, en.local_start + kk + m, row});
      g += m, k -= m, row += m;
    }
  }

  void begin_entry() {
    foreign_ = 0;
    first_foreign_ = -1;
    s_.groups.clear();
    s_.own.clear();
  }

  [[gnu::always_inline]] void add_foreign(int request, RowKind kind, std::int64_t count, std::int64_t lo,
                                          std::int64_t hi, std::int64_t row) {
    if (count <= 0) return;
    foreign_ += count;
    if (first_foreign_ < 0 || row < first_foreign_) first_foreign_ = row;
    if (!text_) return;  // the groups and positions only make the violation's text
    add_to_group(s_.groups, request, kind, count, lo, hi);
  }

  // Slots [a, b) of piece `pc` as foreign rows of one kind.
  [[gnu::always_inline]] void foreign_run(const Piece& pc, RowKind kind, std::int64_t a, std::int64_t b) {
    if (a >= b) return;
    if (!text_) return add_foreign(pc.request, kind, b - a, -1, -1, pc.row + (a - pc.la));
    add_foreign(pc.request, kind, b - a, pos(a, pc.rank), pos(b - 1, pc.rank), pc.row + (a - pc.la));
  }

  // What the rows of piece `pc` (all inside the current entry's reading range) are to that entry.
  void overlap(const Piece& pc) {
    if (pc.la >= pc.lb) return;
    if (pc.request < 0) {
      add_foreign(-1, RowKind::stale, pc.lb - pc.la, -1, -1, pc.row);
      return;
    }
    const auto q = static_cast<std::size_t>(pc.request);
    const std::int64_t r = pc.rank;
    // Slots below Lc hold context positions, [Lc, Ln) the request's new tokens, the rest stale.
    const std::int64_t Lc = L(batch_.ctx[q], r), Ln = L(batch_.ctx[q] + batch_.q[q], r);
    const std::int64_t cA = pc.la, cB = std::min(pc.lb, Lc);
    if (cA < cB) {
      const ChunkEntry& e = ch_.entries[b_];
      std::int64_t oA = cB, oB = cB;  // the entry's own slots: span positions, and context
      if (pc.request == e.request) {
        // A span that reaches the end of the context ends at Lc; one from 0 starts at slot 0.
        const std::int64_t end = std::min(e.start + e.len, batch_.ctx[q]);
        const std::int64_t os = e.start == 0 ? 0 : L(e.start, r), oe = end == batch_.ctx[q] ? Lc : L(end, r);
        oA = std::max(cA, os), oB = std::min(cB, oe);
        if (oA >= oB) oA = oB = cB;
      }
      foreign_run(pc, RowKind::context, cA, oA);
      if (oA < oB) s_.own.push_back({r, oA, oB, pc.row + (oA - pc.la)});
      foreign_run(pc, RowKind::context, oB, cB);
    }
    foreign_run(pc, RowKind::new_token, std::max(pc.la, Lc), std::min(pc.lb, Ln));
    foreign_run(pc, RowKind::stale, std::max(pc.la, Ln), pc.lb);
  }

  void finish_entry(ReceiptVisitor done) {
    const ChunkEntry& e = ch_.entries[b_];
    auto& own = s_.own;
    std::sort(own.begin(), own.end(),
              [](const Own& x, const Own& y) { return x.rank != y.rank ? x.rank < y.rank : x.la < y.la; });
    std::int64_t sum = 0, uni = 0, first_dup = -1;
    for (std::size_t i = 0; i < own.size();) {
      std::size_t j = i;
      std::int64_t reach = -1;
      for (; j < own.size() && own[j].rank == own[i].rank; ++j) {
        sum += own[j].lb - own[j].la;
        uni += std::max<std::int64_t>(0, own[j].lb - std::max(own[j].la, reach));
        reach = std::max(reach, own[j].lb);
      }
      // A duplicate row is a later run's copy of a slot an earlier run (in row order) holds.
      for (std::size_t x = i; x < j; ++x)
        for (std::size_t y = i; y < j; ++y) {
          if (own[x].row >= own[y].row) continue;  // x must come first
          const std::int64_t a = std::max(own[x].la, own[y].la), b = std::min(own[x].lb, own[y].lb);
          if (a >= b) continue;
          const std::int64_t row = own[y].row + (a - own[y].la);
          if (first_dup < 0 || row < first_dup) first_dup = row;
        }
      i = j;
    }
    Receipt rc{.counts = {.chunk = chunk_,
                          .entry = static_cast<int>(b_),
                          .request = e.request,
                          .foreign = foreign_,
                          .duplicate = sum - uni,
                          .missing = e.len - uni,
                          .first_bad_row = first_foreign_},
               .groups = s_.groups};
    ReorgCounts& k = rc.counts;
    if (first_dup >= 0 && (k.first_bad_row < 0 || first_dup < k.first_bad_row)) k.first_bad_row = first_dup;
    if (k.missing > 0 && text_) missing_range(e, rc.first_missing, rc.last_missing);
    done(rc);
  }

  // First and last span position no own run covers (own is sorted by rank, then slot).
  void missing_range(const ChunkEntry& e, std::int64_t& first, std::int64_t& last) {
    const auto& own = s_.own;
    std::size_t i = 0;
    for (std::int64_t r = 0; r < W_; ++r) {
      const std::int64_t lo = L(e.start, r), hi = L(e.start + e.len, r);
      std::int64_t cur = lo, rank_first = -1, rank_last = -1;
      for (; i < own.size() && own[i].rank == r; ++i) {
        if (own[i].la > cur && cur < hi) {
          if (rank_first < 0) rank_first = cur;
          rank_last = std::min(own[i].la, hi) - 1;
        }
        cur = std::max(cur, own[i].lb);
      }
      if (cur < hi) {
        if (rank_first < 0) rank_first = cur;
        rank_last = hi - 1;
      }
      if (rank_first < 0) continue;
      const std::int64_t pf = pos(rank_first, r), pl = pos(rank_last, r);
      if (first < 0 || pf < first) first = pf;
      last = std::max(last, pl);
    }
  }

  const Batch& batch_;
  const Plan& p_;
  const Chunk& ch_;
  int chunk_;
  std::int64_t W_, I_;
  Scratch& s_;
  bool text_;  // build what only the violation text uses (not under VerdictOnlyScope)
  std::size_t b_ = 0;
  std::int64_t row_ = 0;  // rows fed so far
  std::int64_t foreign_ = 0, first_foreign_ = -1;
};

}  // namespace

void walk_intervals(const Batch& b, const Plan& p, ReceiptVisitor visit) {
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) ChunkWalk(b, p, p.chunks[ci], static_cast<int>(ci)).run(visit);
}

}  // namespace cp::detail
