// make_plan: workspace sizing, batch split, dispatch to the planner family, forward asserts.
#include <algorithm>

#include "reference/planner/planner_internal.h"
#include "reference/planner/sizing.h"
#include "reference/planner/steps.h"

namespace cp {

std::int64_t Chunk::max_seq_len() const {
  std::int64_t m = 0;
  for (const auto& e : entries) m = std::max(m, e.len);
  return m;
}

int Chunk::token_to_seq(std::int64_t t) const {
  // cu_seq_lens is non-decreasing; the owner is the last entry whose start is <= t.
  auto it = std::upper_bound(cu_seq_lens.begin(), cu_seq_lens.end(), t);
  return static_cast<int>(it - cu_seq_lens.begin()) - 1;
}

std::vector<std::int64_t> query_start_loc(const Case& c) {
  std::vector<std::int64_t> qsl{0};
  for (auto q : c.q) qsl.push_back(qsl.back() + q);
  return qsl;
}

std::int64_t size_workspace(Version v, Platform, std::int64_t mml, std::int64_t mns, std::int64_t block,
                            std::int64_t dcp, std::int64_t interleave) {
  return steps::workspace_size(info(v).sizing, Int(mml), Int(mns), Int(block), Int(dcp), Int(interleave)).get();
}

bool Plan::crashed() const {
  return std::any_of(asserts.begin(), asserts.end(),
                     [](const AssertFailure& a) { return a.kind == FailureKind::crash; });
}

namespace {
thread_local bool t_plan_text = true;
}  // namespace
bool plan_text() { return t_plan_text; }
PlanTextOffScope::PlanTextOffScope() : saved_(t_plan_text) { t_plan_text = false; }
PlanTextOffScope::~PlanTextOffScope() { t_plan_text = saved_; }

namespace detail {
namespace {

struct Pool {
  std::vector<Chunk> chunks;
  std::vector<std::vector<std::int64_t>> rows;
  std::vector<std::int64_t> qsl;
};
Pool& pool() {
  thread_local Pool p;
  return p;
}

// Moves the chunks and per-rank row vectors of `plan` into the pool (emptied, capacity kept)
// and resets every other field to a fresh Plan's, keeping the vectors' capacity.
void recycle(Plan& plan) {
  Pool& pl = pool();
  for (auto& ch : plan.chunks) {
    for (auto& e : ch.entries)
      if (e.kept.capacity() > 0) {
        e.kept.clear();
        pl.rows.push_back(std::move(e.kept));
      }
    ch.entries.clear();
    ch.cu_seq_lens.clear();
    ch.padded_local_cu.clear();
    pl.chunks.push_back(std::move(ch));
  }
  for (auto& v : plan.local_ctx)
    if (v.capacity() > 0) {
      v.clear();
      pl.rows.push_back(std::move(v));
    }
  auto chunks = std::move(plan.chunks);
  auto prefills = std::move(plan.prefills);
  auto local_ctx = std::move(plan.local_ctx);
  auto asserts = std::move(plan.asserts);
  auto empty_ranges = std::move(plan.empty_token_ranges);
  auto notes = std::move(plan.notes);
  chunks.clear();
  prefills.clear();
  local_ctx.clear();  // its rows are in the pool
  asserts.clear();
  empty_ranges.clear();
  notes.clear();
  plan = Plan{};
  plan.chunks = std::move(chunks);
  plan.prefills = std::move(prefills);
  plan.local_ctx = std::move(local_ctx);
  plan.asserts = std::move(asserts);
  plan.empty_token_ranges = std::move(empty_ranges);
  plan.notes = std::move(notes);
}

}  // namespace

Chunk take_chunk() {
  auto& chunks = pool().chunks;
  Chunk fresh;  // every field a fresh Chunk's; only the (empty) vectors' storage is reused
  if (chunks.empty()) return fresh;
  Chunk& old = chunks.back();
  fresh.entries = std::move(old.entries);
  fresh.cu_seq_lens = std::move(old.cu_seq_lens);
  fresh.padded_local_cu = std::move(old.padded_local_cu);
  chunks.pop_back();
  return fresh;
}

void return_chunk(Chunk&& ch) {
  ch.entries.clear();
  ch.cu_seq_lens.clear();
  ch.padded_local_cu.clear();
  pool().chunks.push_back(std::move(ch));
}

std::vector<std::int64_t> take_rows() {
  auto& rows = pool().rows;
  if (rows.empty()) return {};
  std::vector<std::int64_t> v = std::move(rows.back());
  rows.pop_back();
  return v;
}

const std::vector<std::int64_t>& query_start_loc_scratch(const Case& c) {
  auto& qsl = pool().qsl;
  qsl.assign(1, 0);
  for (auto q : c.q) qsl.push_back(qsl.back() + q);
  return qsl;
}

void finish_chunk(Chunk& ch, bool dcp, const std::vector<std::int64_t>& qsl, std::int64_t base) {
  ch.request_start = ch.entries.front().request;
  ch.request_end = ch.entries.back().request + 1;
  ch.token_start = qsl[static_cast<std::size_t>(ch.request_start)] - base;
  ch.token_end = qsl[static_cast<std::size_t>(ch.request_end)] - base;
  ch.cu_seq_lens.assign(1, 0);
  for (const auto& e : ch.entries) ch.cu_seq_lens.push_back((Int(ch.cu_seq_lens.back()) + e.len).get());
  if (dcp) {
    ch.padded_local_cu.assign(1, 0);
    for (const auto& e : ch.entries)
      ch.padded_local_cu.push_back((Int(ch.padded_local_cu.back()) + e.padded_local_len).get());
  }
}

void vllm_init(const Case& c, Plan& plan) {
  const Int W = c.dcp;
  plan.workspace_rows = steps::workspace_rows(Int(plan.workspace), W, plan.is_dcp()).get();
  if (plan.is_dcp() && floormod(Int(plan.workspace), W) != 0)
    add_assert(plan, "init", "chunked_prefill_workspace_size % dcp_world_size == 0", [&] {
      return "S=" + std::to_string(plan.workspace) + " W=" + std::to_string(c.dcp) +
             " (S mod W = " + std::to_string(plan.workspace % c.dcp) + ")";
    });
}

void record_forward_asserts(Plan& plan) {
  if (!plan.is_dcp()) return;
  const Int W = plan.dcp, R = plan.workspace_rows, S = plan.workspace;
  // allgather_offset = R // (W+1), which is S/W exactly when W | S (spec §3.3).
  const std::int64_t allgather_offset = floordiv(R, W + 1).get();
  for (std::size_t ci = 0; ci < plan.chunks.size(); ++ci) {
    const Chunk& ch = plan.chunks[ci];
    const int chunk = static_cast<int>(ci);
    const Int toks = ch.local_tokens();
    if (!steps::forward_fits_allgather_offset(toks, R, W))
      add_assert(
          plan, "forward", "toks <= allgather_offset",
          [&] {
            return "toks=" + std::to_string(toks.get()) + " allgather_offset=" + std::to_string(allgather_offset);
          },
          chunk);
    if (!steps::forward_fits_workspace(toks, W, S))
      add_assert(
          plan, "forward", "toks * dcp_world_size <= workspace",
          [&] { return "toks*W=" + std::to_string((toks * W).get()) + " S=" + std::to_string(plan.workspace); }, chunk);
    std::int64_t kept_total = 0, kept_max = 0;
    for (const auto& e : ch.entries) {
      std::int64_t k = 0;
      for (auto v : e.kept) k += v;
      kept_total += k;
      kept_max = std::max(kept_max, k);
    }
    if (kept_total != ch.total_tokens())
      add_assert(
          plan, "forward", "reorganized_kv_c_normed.shape[0] == sum_seq_len",
          [&] {
            return "reorg kept " + std::to_string(kept_total) +
                   " rows, sum_seq_len=" + std::to_string(ch.total_tokens());
          },
          chunk);
    if (kept_max != ch.max_seq_len())
      add_assert(
          plan, "forward", "max reorganized rows per request == max_seq_len",
          [&] { return "max kept " + std::to_string(kept_max) + ", max_seq_len=" + std::to_string(ch.max_seq_len()); },
          chunk);
  }
}

void split_prefills(const Case& c, Plan& plan, int num_decodes) {
  plan.num_decodes = num_decodes;
  for (auto i = static_cast<std::size_t>(num_decodes); i < c.q.size(); ++i) {
    plan.prefills.push_back(static_cast<int>(i));
    if (c.ctx[i] > 0) ++plan.num_with_context;
  }
  if (plan.is_dcp()) {
    plan.local_ctx.resize(c.ctx.size());  // every row empty; a prefill's comes from the pool
    for (int r : plan.prefills) {
      plan.local_ctx[r] = take_rows();
      for (std::int64_t rank = 0; rank < c.dcp; ++rank)
        plan.local_ctx[r].push_back(dcp_local_len(Int(c.ctx[r]), Int(c.dcp), Int(rank), Int(c.interleave)).get());
    }
  }
}

}  // namespace detail

namespace {

// Step 0: the geometry the plan is made for (Plan carries it for every consumer).
void record_geometry(const Case& c, Plan& plan) {
  plan.version = c.version;
  plan.platform = c.platform;
  plan.builder = c.builder;
  plan.block = c.block;
  plan.dcp = c.dcp;
  plan.interleave = c.interleave;
  plan.virtual_block = (Int(c.interleave) * c.dcp).get();
  plan.merge = merge_flavour(c.platform, c.dims.v_dim);
  plan.packed = info(c.version).is_packed();
  plan.gather = gather_kind(info(c.version), c.dcp > 1);
}

// Step 1: workspace size S, allocated rows R (spec §1) and the init asserts.
void size_plan_workspace(const Case& c, Plan& plan) {
  const VersionInfo& vi = info(c.version);
  const Int W = c.dcp;
  if (c.workspace) {
    plan.workspace = *c.workspace;
  } else {
    const Int mns = *c.max_num_seqs, B = c.block;
    const Int S = steps::workspace_size(vi.sizing, Int(*c.max_model_len), mns, B, W, Int(c.interleave));
    plan.workspace = S.get();
    plan.sized_from_engine = true;
    // #57170: MLAAttention sizes the profile run's kv_b_proj dummy with the dense formula whatever
    // the backend; the sparse builder then up-projects S_sparse rows (Z-1).
    if (vi.sizing == SizingRule::sparse_mla)
      plan.profile_rows =
          steps::workspace_size(SizingRule::packed_v6, Int(*c.max_model_len), mns, B, W, Int(c.interleave)).get();
    if (vi.sizing == SizingRule::v0_128k && !steps::v0_init_assert_holds(S, mns, B))
      detail::add_assert(plan, "init", "chunked_prefill_workspace_size >= max_num_seqs * block_size", [&] {
        return "S=" + std::to_string(plan.workspace) + " mns*B=" + std::to_string((mns * B).get());
      });
  }
  vi.family->init(c, plan);
}

// Step 2: batch split. validate_case guarantees vLLM's order (decodes first, spec §2.1). A
// family that plans every request of the batch (SGLang's extend batch) has no decodes.
void split_batch(const Case& c, Plan& plan) {
  std::size_t i = 0;
  const bool every = plan.version_info().family->plans_every_request;
  while (!every && i < c.q.size() && c.q[i] <= 1) ++i;
  if (i > 0)
    detail::add_note(
        plan, [&] { return std::to_string(i) + " leading request(s) with q <= 1 counted as decode(s), not planned"; });
  detail::split_prefills(c, plan, static_cast<int>(i));
}

}  // namespace

Plan make_plan(const Case& c) {
  Plan plan;
  make_plan_into(c, plan);
  return plan;
}

void make_plan_into(const Case& c, Plan& plan) {
  validate_case(c);
  detail::recycle(plan);
  const VersionInfo& vi = info(c.version);
  record_geometry(c, plan);
  size_plan_workspace(c, plan);
  // 2-3. A PCP family splits its rows per rank itself (its requests are rows, not the batch's).
  if (vi.family->partitions_global_batch) {
    vi.family->plan(c, plan);
    return;
  }
  split_batch(c, plan);

  // 3. No chunked-context metadata at all when no prefill has context.
  if (plan.num_with_context == 0 && vi.family->spans_are_context) {
    plan.built = true;
    detail::add_note(plan, "no prefill has context: no chunked-context plan");
    return;
  }
  // 4. S1 rounds by self.page_size, which exists only with FA3: elsewhere build() raises.
  if (v0_page_size_missing(vi, c.platform)) {
    detail::add_assert(plan, "plan", "AttributeError: 'MLACommonMetadataBuilder' object has no attribute 'page_size'",
                       "build() calls round_down(max_context_chunk, self.page_size) whenever a prefill has "
                       "context, but __init__ sets page_size only when aot_schedule (vLLM FlashAttention 3, "
                       "CUDA only)");
    plan.asserts.back().kind = FailureKind::crash;
    return;
  }
  vi.family->plan(c, plan);
}

}  // namespace cp
