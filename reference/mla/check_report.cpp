// The CPU check's reports (check.h): exit codes, the one-line verdict, range lists; and the
// random cases the check draws.
#include <iterator>
#include <numeric>
#include <sstream>

#include "reference/mla/check.h"
#include "reference/mla/inputs.h"

namespace cp::mla {

std::string ranges_text(const std::vector<std::pair<std::int64_t, std::int64_t>>& r, std::size_t max_items) {
  std::ostringstream os;
  for (std::size_t i = 0; i < r.size() && i < max_items; ++i)
    os << (i ? ", " : "") << "[" << r[i].first << ", " << r[i].second << ")";
  if (r.size() > max_items) os << ", ... (" << r.size() << " ranges)";
  return os.str();
}

int CheckResult::exit_code() const {
  if (assert_fired) return 1;
  if (exact.ran && exact.differing > 0) return 1;
  if (vllm.ran && !vllm.ok()) return 1;
  if (exact.ran && exact.overflow) return 3;
  return 0;
}

std::string CheckResult::one_line() const {
  std::ostringstream os;
  if (assert_fired) return "assert fired: " + assert_text;
  if (exact.ran) {
    if (exact.overflow && exact.differing == 0) {
      os << "inconclusive: exact accumulator overflow";
    } else if (exact.differing == 0) {
      os << "bits identical (" << exact.elements << " elements";
      if (static_cast<int>(heads.size()) < all_heads) os << ", " << heads.size() << " of " << all_heads << " heads";
      os << ")";
    } else {
      const auto& f = *exact.first;
      os << "bits differ: " << exact.differing << "/" << exact.elements << " elements, first at token " << f.token
         << " (request " << f.request << " t" << f.token_in_request << ") head " << f.head << " dim " << f.dim;
      for (const auto& r : exact.routing) {
        if (r.exact()) continue;
        os << "; request " << r.request << ":";
        if (r.n_missing) os << " missing " << r.n_missing;
        if (r.n_twice) os << " twice " << r.n_twice;
        if (r.foreign_context) os << " foreign " << r.foreign_context;
        if (r.new_token_rows) os << " new-token " << r.new_token_rows;
        if (r.stale_rows) os << " stale " << r.stale_rows;
      }
    }
  }
  if (vllm.ran) {
    const auto& p = vllm.prod();
    if (exact.ran) os << "; ";
    os << "vllm " << (vllm.production == MergeFlavour::triton ? "triton" : "cuda") << ": ";
    if (p.nan)
      os << p.nan << " NaN";
    else if (p.inf)
      os << p.inf << " inf";
    else {
      std::ostringstream e;
      e.precision(2);
      e << std::scientific << p.max_abs;
      os << "max abs " << e.str() << ", max rel " << p.max_rel << ", " << p.max_ulp << " bf16 ulp";
    }
    os << (p.within_bound ? " (within bound)" : " (OUT OF BOUND)");
  }
  return os.str();
}

namespace {

// One draw of random_case; `next` continues the case's counter stream.
template <class Next>
Case draw_case(Version v, Platform p, std::uint64_t seed, std::uint64_t index, Next& next) {
  Case c;
  c.version = v;
  c.platform = p;
  c.seed = counter_hash(seed, 78, index);
  const VersionInfo& vi = info(v);
  static constexpr std::int64_t kBlocks[] = {1, 2, 4, 8, 16, 32, 64, 3, 6, 12};
  c.block = kBlocks[next(std::size(kBlocks))];
  c.dcp = vi.supports_dcp ? static_cast<std::int64_t>(1 + next(8)) : 1;
  const bool pcp = vi.family->partitions_global_batch;  // PCP: P ranks, DCP 1 or P (every version's rule)
  if (pcp) {
    static constexpr std::int64_t kPcp[] = {2, 4, 2, 3, 1};
    c.pcp = kPcp[next(std::size(kPcp))];
    c.dcp = next(2) != 0 ? *c.pcp : 1;
  }
  c.interleave = 1;
  if (vi.supports_interleave && c.dcp > 1 && next(3) != 0) {
    std::vector<std::int64_t> divs;
    for (std::int64_t d = 1; d <= c.block; ++d)
      if (c.block % d == 0) divs.push_back(d);
    c.interleave = divs[next(divs.size())];
  }
  if (vi.family == &local_shard_family) {  // its dispatch needs DCP, with dcp = pcp (the local path)
    c.dcp = std::max<std::int64_t>(2, c.dcp);
    c.pcp = c.dcp;
  }
  const std::int64_t V = c.interleave * c.dcp;
  const int n = static_cast<int>(1 + next(5));
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t ctx = next(5) == 0 ? 0 : static_cast<std::int64_t>(next(next(2) ? 200 : 900));
    c.ctx.push_back(ctx);
    c.q.push_back(static_cast<std::int64_t>(1 + next(pcp ? 40 : 5)));  // PCP: pieces of several tokens
    total += ctx;
  }
  // A workspace that forces several chunks: a multiple of lcm(B, V) (packed sizing guarantees
  // it; the old versions get it too, so only their own planning errors show).
  const std::int64_t align = std::lcm(c.block, V);
  const auto units = static_cast<std::uint64_t>(std::max<std::int64_t>(1, total / align / 2));
  c.workspace = align * static_cast<std::int64_t>(1 + next(units));
  order_decodes_first(c);
  validate_case(c);
  return c;
}

}  // namespace

Case random_case(Version v, Platform p, std::uint64_t seed, std::uint64_t index) {
  std::uint64_t k = 0;
  auto next = [&](std::uint64_t mod) { return counter_hash(seed, 77, (index << 8) + k++) % mod; };
  // A family's own rules on its keys (TensorRT-LLM's workspace of 4 x max_num_tokens rows) are
  // its planner's (FamilyInfo::init raises CaseError naming the key): draw again, from the same
  // stream, until the family accepts the case. The first draw is the case of every family that
  // accepts it (the golden random cases keep their bits).
  for (int attempt = 0;; ++attempt) {
    Case c = draw_case(v, p, seed, index, next);
    try {
      (void)make_plan(c);
      return c;
    } catch (const CaseError&) {
      if (attempt == 63) throw;
    }
  }
}

// random_case of a pcp version as PCP context reuse runs it (#57668's conditions, §2.2): dcp 1,
// ctx_reuse=on, causal, no sliding window; the rest of the draw kept.
Case random_reuse_case(Version v, Platform p, std::uint64_t seed, std::uint64_t index) {
  Case c = random_case(v, p, seed, index);
  if (!info(v).family->partitions_global_batch)
    throw std::invalid_argument("random_reuse_case: " + std::string(name(v)) + " has no PCP rows to merge");
  c.dcp = 1;
  c.interleave = 1;
  c.ctx_reuse = true;
  validate_case(c);
  return c;
}

}  // namespace cp::mla
