#include "invariants/interval/interval.h"

#include <algorithm>
#include <array>

#include "invariants/interval/local_len.h"
#include "invariants/violation_sink.h"
#include "reference/dcp/ownership.h"
#include "reference/dcp/simulate.h"

namespace cp::interval {
namespace {

using detail::str;

// A run of consecutive workspace rows as the reorg output holds them: rank `rank`'s local slots
// [la, lb) of request `request` (global positions global_position(l, rank, I, W), increasing in
// l), starting at output row `row`. request < 0: rows nobody wrote (RowSource{}).
struct Piece {
  int request;
  std::int64_t rank, la, lb, row;
};

struct Group {  // foreign rows of one (request, kind), as token-level I-9 groups them
  int request;
  RowKind kind;
  std::int64_t count, lo, hi;
};

struct Own {  // a run of the entry's own positions: rank, local slots [la, lb), first row
  std::int64_t rank, la, lb, row;
};

struct Scratch {
  std::vector<Group> groups;
  std::vector<Own> own;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Walks one chunk: generates the reorg output as pieces, splits them at the entries' reading
// ranges [cu_seq_lens[b], cu_seq_lens[b+1]) and accumulates, per entry, what it received.
// `done(b, counts, first_missing, last_missing)` is called once per entry, in order.
class ChunkWalk {
 public:
  ChunkWalk(const Case& c, const Plan& p, const Chunk& ch, int chunk)
      : c_(c), p_(p), ch_(ch), chunk_(chunk), W_(c.dcp), I_(c.interleave), s_(scratch()), text_(!verdict_only()) {}

  template <class Done>
  void run(Done&& done) {
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
    if (c_.dcp == 1) {
      for (const auto& e : ch_.entries) {
        // The old batch-grid kernel starts copying at the page holding `start` (spec §3.4).
        const std::int64_t first = p_.gather == GatherKind::page_rounding ? e.start / c_.block * c_.block : e.start;
        emit({e.request, 0, first, first + e.len, out});
        out += e.len;
      }
    } else {
      const std::int64_t toks = ch_.local_tokens();
      for (std::size_t eb = 0; eb < n; ++eb) {
        const ChunkEntry& e = ch_.entries[eb];
        for (std::int64_t r = 0; r < c_.dcp; ++r) {
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
      if (g >= c_.dcp * toks) {
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
    for (auto& g : s_.groups)
      if (g.request == request && g.kind == kind) {
        g.count += count, g.lo = std::min(g.lo, lo), g.hi = std::max(g.hi, hi);
        return;
      }
    s_.groups.push_back({request, kind, count, lo, hi});
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
    const std::int64_t Lc = L(c_.ctx[q], r), Ln = L(c_.ctx[q] + c_.q[q], r);
    const std::int64_t cA = pc.la, cB = std::min(pc.lb, Lc);
    if (cA < cB) {
      const ChunkEntry& e = ch_.entries[b_];
      std::int64_t oA = cB, oB = cB;  // the entry's own slots: span positions, and context
      if (pc.request == e.request) {
        // A span that reaches the end of the context ends at Lc; one from 0 starts at slot 0.
        const std::int64_t end = std::min(e.start + e.len, c_.ctx[q]);
        const std::int64_t os = e.start == 0 ? 0 : L(e.start, r), oe = end == c_.ctx[q] ? Lc : L(end, r);
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

  template <class Done>
  void finish_entry(Done& done) {
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
    EntryCounts k;
    k.chunk = chunk_;
    k.entry = static_cast<int>(b_);
    k.request = e.request;
    k.foreign = foreign_;
    k.duplicate = sum - uni;
    k.missing = e.len - uni;
    k.first_bad_row = first_foreign_;
    if (first_dup >= 0 && (k.first_bad_row < 0 || first_dup < k.first_bad_row)) k.first_bad_row = first_dup;
    std::int64_t first_missing = -1, last_missing = -1;
    if (k.missing > 0 && text_) missing_range(e, first_missing, last_missing);
    done(k, s_.groups, first_missing, last_missing);
  }

  // First and last span position no own run covers (own is sorted by rank, then slot).
  void missing_range(const ChunkEntry& e, std::int64_t& first, std::int64_t& last) {
    const auto& own = s_.own;
    std::size_t i = 0;
    const std::int64_t ranks = c_.dcp;
    for (std::int64_t r = 0; r < ranks; ++r) {
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

  const Case& c_;
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

template <class Visit>
void walk_plan(const Case& c, const Plan& p, Visit&& visit) {
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) ChunkWalk(c, p, p.chunks[ci], static_cast<int>(ci)).run(visit);
}

}  // namespace

InvariantResult check_I9(const Case& c, const Plan& p) {
  detail::Sink s(InvariantId::I9_reorg_exact);
  if (!p.built) return s.not_evaluated();
  walk_plan(
      c, p,
      [&](const EntryCounts& k, std::vector<Group>& groups, std::int64_t first_missing, std::int64_t last_missing) {
        if (k.foreign == 0 && k.duplicate == 0 && k.missing == 0) return;
        // The text is built only for a recorded violation (the first kMaxRecorded, never under
        // VerdictOnlyScope).
        s.add([&] {
          const ChunkEntry& e = p.chunks[static_cast<std::size_t>(k.chunk)].entries[static_cast<std::size_t>(k.entry)];
          // The same text as the token-level check (its std::map orders by request, then kind).
          std::sort(groups.begin(), groups.end(), [](const Group& x, const Group& y) {
            return x.request != y.request ? x.request < y.request : x.kind < y.kind;
          });
          std::string got;
          for (const auto& g : groups) {
            if (!got.empty()) got += "; ";
            got += str(g.count) + " " + row_kind_name(g.kind) + " row(s)";
            if (g.request >= 0)
              got += " of request " + str(g.request) + " (positions " + str(g.lo) + ".." + str(g.hi) + ")";
          }
          if (k.duplicate) got += (got.empty() ? "" : "; ") + str(k.duplicate) + " duplicate row(s)";
          if (k.missing)
            got += (got.empty() ? "" : "; ") + str(k.missing) + " position(s) never received (" + str(first_missing) +
                   ".." + str(last_missing) + ")";
          return Violation{
              .chunk = k.chunk,
              .request = e.request,
              .row = k.first_bad_row,
              .expected = "exactly its context positions [" + str(e.start) + ", " + str(e.start + e.len) + ") once",
              .got = got,
              .reason = k.foreign ? "attention reads rows of the wrong token" : "rows lost or repeated"};
        });
      });
  return s.done();
}

// With I | B the slot mapping equals the ownership formula at every position: write
// P = j*(B*W) + v, 0 <= v < B*W. Since I*W divides B*W, (P / I) mod W = (v / I) mod W, and
// P / (I*W) = j*(B/I) + v / (I*W), so local_index(P) = j*B + (v / (I*W))*I + v mod I, which is
// the slot mapping. The token-level check compares them position by position (up to 2^16);
// here the boundary positions of a page, an interleave group and a virtual block are enough
// to catch an ownership formula that was changed without this proof.
InvariantResult check_I11(const Case& c, const Plan&) { return detail::check_I11_slots(c, false); }

InvariantResult check(InvariantId id, const Case& c, const Plan& p) {
  switch (id) {
    case InvariantId::I9_reorg_exact: return check_I9(c, p);
    case InvariantId::I11_config_validity: return check_I11(c, p);
    default: return cp::check(id, c, p);
  }
}

std::vector<EntryCounts> reorg_counts(const Case& c, const Plan& p) {
  std::vector<EntryCounts> out;
  if (!p.built) return out;
  walk_plan(c, p, [&](const EntryCounts& k, std::vector<Group>&, std::int64_t, std::int64_t) { out.push_back(k); });
  return out;
}

std::vector<EntryCounts> reorg_counts_token(const Case& c, const Plan& p) {
  std::vector<EntryCounts> out;
  if (!p.built) return out;
  std::vector<std::uint8_t> seen;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const std::vector<RowSource> rows = simulate_chunk(c, p, ch);
    for (std::size_t b = 0; b < ch.entries.size(); ++b) {
      const ChunkEntry& e = ch.entries[b];
      EntryCounts k;
      k.chunk = static_cast<int>(ci), k.entry = static_cast<int>(b), k.request = e.request;
      seen.assign(static_cast<std::size_t>(e.len), 0);
      for (std::int64_t t = ch.cu_seq_lens[b]; t < ch.cu_seq_lens[b + 1]; ++t) {
        const RowSource& src = rows[static_cast<std::size_t>(t)];
        const bool own = src.kind == RowKind::context && src.request == e.request && src.position >= e.start &&
                         src.position < e.start + e.len;
        if (!own) {
          ++k.foreign;
          if (k.first_bad_row < 0) k.first_bad_row = t;
          continue;
        }
        auto& flag = seen[static_cast<std::size_t>(src.position - e.start)];
        if (flag) {
          ++k.duplicate;
          if (k.first_bad_row < 0) k.first_bad_row = t;
        }
        flag = 1;
      }
      for (auto f : seen) k.missing += f == 0;
      out.push_back(k);
    }
  }
  return out;
}

void evaluate_plan(const Case& c, const Plan& p, std::vector<InvariantResult>& out, Outcome& outcome) {
  out.resize(kNumInvariants);
  bool any = false;
  for (const auto& inv : all_invariants()) {
    auto& r = out[static_cast<std::size_t>(inv.id)];
    r = interval::check(inv.id, c, p);
    any = any || r.verdict == Verdict::violated;
  }
  outcome = outcome_of(c, p, any);
}

Evaluation evaluate(const Case& c) {
  Evaluation ev{c, make_plan(c), {}, Outcome::ok};
  evaluate_plan(c, ev.plan, ev.results, ev.outcome);
  return ev;
}

}  // namespace cp::interval
