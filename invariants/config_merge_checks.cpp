// Configuration and merge bookkeeping: I-11, I-12, I-13.
#include <algorithm>
#include <array>
#include <cstdint>

#include "invariants/checks.h"
#include "reference/dcp/ownership.h"
#include "reference/planner/merge_kernels.h"

namespace cp::detail {
namespace {

// query_start_loc of the batch in thread-local storage: no allocation per check once warm.
const std::vector<std::int64_t>& qsl_scratch(const Batch& b) {
  thread_local std::vector<std::int64_t> qsl;
  qsl.assign(1, 0);
  for (auto q : b.q) qsl.push_back(qsl.back() + q);
  return qsl;
}

// The slot mapping against the ownership formula on every position of two virtual pages (up
// to 2^16: token level), or on the page, interleave-group and virtual-block boundaries only
// (interval level). With I | B the two agree at every position: write P = j*(B*W) + v,
// 0 <= v < B*W. Since I*W divides B*W, (P / I) mod W = (v / I) mod W, and P / (I*W) =
// j*(B/I) + v / (I*W), so local_index(P) = j*B + (v / (I*W))*I + v mod I, which is the slot
// mapping. The probes catch an ownership formula changed without this proof.
InvariantResult check_I11_slots(const Plan& p, bool every_position) {
  Sink s(InvariantId::I11_config_validity);
  // parse_case/validate_case already reject I > B and I not dividing B (exit 2); this check
  // restates the rule and confirms the slot-mapping decomposition on one virtual block.
  if (p.interleave > p.block || p.block % p.interleave != 0) {
    s.add([&] {
      return Violation{.expected = "I <= B and B mod I == 0",
                       .got = "I=" + str(p.interleave) + " B=" + str(p.block),
                       .reason = "slot mapping pos // (B*W) no longer matches owner = (pos / I) mod W"};
    });
    return s.done();
  }
  const Int I = p.interleave, W = p.dcp, B = p.block;
  const std::int64_t span = std::min<std::int64_t>(p.block * p.dcp * 2, 1 << 16);
  const std::int64_t v = p.virtual_block, bw = p.block * p.dcp;
  const std::array<std::int64_t, 8> probes{0, p.interleave - 1, p.interleave, v - 1, v, bw - 1, bw, 2 * bw - 1};
  const auto differs = [&](std::int64_t pos) {
    const Int P = pos;
    const auto slot = paged_slot(P, I, W, B);
    return slot.owner != owner_rank(P, I, W) || slot.local != local_index(P, I, W);
  };
  std::int64_t bad = -1;
  if (every_position) {
    for (std::int64_t pos = 0; pos < span && bad < 0; ++pos)
      if (differs(pos)) bad = pos;
  } else {
    for (std::int64_t pos : probes)
      if (pos >= 0 && pos < span && differs(pos) && (bad < 0 || pos < bad)) bad = pos;
  }
  if (bad >= 0)
    s.add([&] {
      return Violation{
          .row = bad, .expected = "slot mapping == ownership formula", .got = "differs at position " + str(bad)};
    });
  return s.done();
}

}  // namespace

InvariantResult check_I11(const Batch& b, const Plan& p, Level level) {
  // The slot mapping is the KV writer's, the same in every family: its interval level (the
  // theorem above) needs no closed form of the family's movement.
  const Strategy s = choose(level, b, p, /*movement=*/false);
  return noted(s, check_I11_slots(p, s.token));
}

InvariantResult check_I12(const Batch& batch, const Plan& p) {
  Sink s(InvariantId::I12_merge_preconditions);
  if (!p.built) return s.not_evaluated();
  if (p.chunks.empty()) return s.not_applicable("no context chunks: no merge of context partials");
  // The kernel that ran: the one the version shipped with for the dispatcher's flavour
  // (merge_kernels.h), e.g. v1-dcp on CUDA ran the CUDA kernel from before #28181, which gives NaN.
  const MergeKernel& kernel = *kernel_for(p.version, p.merge).kernel;
  // Two empty partials meet only where the loop merges every chunk's partial before the suffix
  // (SGLang starts from the causal suffix; TensorRT-LLM skips a len-0 row by op code).
  const bool meet = kernel.order == MergeOrder::context_then_suffix && kernel.empty == EmptyPartial::merged;
  const bool nan_kernel = meet && kernel.both_empty == BothEmpty::nan;
  if (p.packed) {
    // No chunk may hold an empty span: two empty partials must never meet.
    for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
      for (const auto& e : p.chunks[ci].entries)
        if (e.len == 0)
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = e.request,
                             .expected = "non-empty span",
                             .got = "empty span",
                             .reason = "an empty partial would be merged"};
          });
    s.note("packed planner: context-free prefills get an explicit (0, -inf) partial");
    return s.done();
  }
  // Old planner: out_0 = chunk 0, out_c = merge(out_{c-1}, chunk c) for every prefill.
  const auto& qsl = qsl_scratch(batch);
  const std::int64_t base = qsl[static_cast<std::size_t>(p.num_decodes)];
  const std::size_t P = p.prefills.size();
  for (std::size_t b = 0; b < P; ++b) {
    bool empty = p.chunks[0].entries[b].len == 0;
    for (std::size_t ci = 1; ci < p.chunks.size(); ++ci) {
      const bool chunk_empty = p.chunks[ci].entries[b].len == 0;
      if (empty && chunk_empty) {
        const int r = p.prefills[b];
        const std::int64_t first_tok = qsl[static_cast<std::size_t>(r)] - base;
        const bool masked = p.prefill_tokens_with_context && first_tok >= *p.prefill_tokens_with_context;
        if (!meet) {
          s.note([&] {
            return "chunks with no rows for a request occur, but " + std::string(kernel.id) + "'s loop (" +
                   std::string(name(kernel.order)) + ", empty partials " + std::string(name(kernel.empty)) +
                   ") never merges two empty states";
          });
        } else if (!nan_kernel) {
          s.note([&] {
            return "empty+empty merges occur but go through " + std::string(kernel.id) +
                   ", whose both-empty rule is: " + std::string(name(kernel.both_empty));
          });
        } else if (!masked) {
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = r,
                             .expected = "no merge of two empty partials through " + std::string(kernel.id),
                             .got = "lse -inf and -inf at chunk " + str(static_cast<std::int64_t>(ci)),
                             .reason = "merge_attn_states " + std::string(kernel.id) +
                                       " gives NaN output and NaN lse, which survives later merges"};
          });
        }
        break;
      }
      empty = empty && chunk_empty;
    }
  }
  return s.done();
}

InvariantResult check_I13(const Batch& b, const Plan& p) {
  Sink s(InvariantId::I13_context_prefix);
  if (p.num_with_context == 0) return s.not_applicable("no prefill has context: no context merge");
  if (p.packed) {
    // Explicit empty ranges (neutralize_empty_context_partials): exactly the context-free
    // prefills' query ranges, in order. A missing one leaves garbage in that request's context
    // partial; an extra one zeroes the partial of a request whose context was attended.
    const auto& qsl = qsl_scratch(b);
    const std::int64_t base = qsl[static_cast<std::size_t>(p.num_decodes)];
    std::vector<std::pair<std::int64_t, std::int64_t>> want;
    for (int r : p.prefills)  // a merged row's leading tokens may attend no chunk (Batch::chunkless_tokens)
      if (const std::int64_t n = b.chunkless_tokens(static_cast<std::size_t>(r)); n > 0)
        want.emplace_back(qsl[r] - base, qsl[r] - base + n);
    const auto text = [](const std::pair<std::int64_t, std::int64_t>& t) {
      return "[" + str(t.first) + ", " + str(t.second) + ")";
    };
    for (const auto& t : want)
      if (std::find(p.empty_token_ranges.begin(), p.empty_token_ranges.end(), t) == p.empty_token_ranges.end())
        s.add([&] {
          return Violation{.expected = "empty token range " + text(t),
                           .got = "absent",
                           .reason = "a context-free prefill's tokens are not neutralised to (0, -inf)"};
        });
    for (const auto& t : p.empty_token_ranges)
      if (std::find(want.begin(), want.end(), t) == want.end())
        s.add([&] {
          return Violation{.expected = "no empty range over tokens of a request with context",
                           .got = "empty token range " + text(t),
                           .reason = "the request's attended context partial would be zeroed"};
        });
    return s.done();
  }
  if (!p.prefill_tokens_with_context) return s.not_applicable("this version passes no prefill_tokens_with_context");
  bool seen_free = false;
  for (int r : p.prefills) {
    if (b.ctx[static_cast<std::size_t>(r)] == 0)
      seen_free = true;
    else if (seen_free)
      s.add([&] {
        return Violation{.request = r,
                         .expected = "prefills with context precede those without",
                         .got = "request " + str(r) + " has context after a context-free prefill",
                         .reason = "prefill_tokens_with_context = " + str(*p.prefill_tokens_with_context) +
                                   " sends this request's tokens down the suffix-only path"};
      });
  }
  return s.done();
}

}  // namespace cp::detail
