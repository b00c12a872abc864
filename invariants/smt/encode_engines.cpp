// The other engines' planners (ATOM, SGLang, TokenSpeed, TensorRT-LLM; other-engines.md): the
// rule table that says which family's invariant which encoder proves, the engine parameters
// every encoder shares, and the dispatch encode.cpp and prover.cpp call. The encoders are
// encode_{atom,sglang,tokenspeed,trtllm}.cpp; each instantiates its family's steps
// (reference/planner/families/<family>/steps.h) with z3::expr, the templates the planner runs.
#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>

#include "invariants/smt/engine_internal.h"

namespace cp::smt {
namespace detail {
namespace {

// One row per encoded (family, invariant). A batch rule needs the batch's requests one by one
// (a sum or a prefix sum over them): it is split into n = n_min .. max(n_min, prefills_max)
// requests, each case symbolic in everything else; the others hold for any batch.
// own_encoder: a rule of a family the prover encodes elsewhere (the packed family's Z-1): that
// family's other invariants keep their encoder (encode_packed.cpp).
struct EngineRule {
  std::string_view family;
  InvariantId invariant;
  bool batch;
  std::int64_t n_min;
  EngineEncoder encode;
  bool own_encoder = false;
};
constexpr std::array kEngineRules{
    EngineRule{"atom", InvariantId::A7_atom_window_budget, false, 0, encode_atom_A7},
    EngineRule{"tokenspeed", InvariantId::T3_tokenspeed_first_owned, false, 0, encode_tokenspeed_T3},
    EngineRule{"sglang", InvariantId::G10_sglang_strided_premise, true, 1, encode_sglang_G10},
    EngineRule{"sglang", InvariantId::G4_sglang_zero_kv_rows, true, 2, encode_sglang_G4},
    EngineRule{"sglang", InvariantId::I3_coverage, false, 0, encode_rect_I3},
    EngineRule{"sglang", InvariantId::I4_global_row_budget, true, 1, encode_rect_I4},
    EngineRule{"tokenspeed", InvariantId::I3_coverage, false, 0, encode_rect_I3},
    EngineRule{"tokenspeed", InvariantId::I4_global_row_budget, true, 1, encode_rect_I4},
    EngineRule{"trtllm", InvariantId::I4_global_row_budget, true, 1, encode_trtllm_I4},
    // vLLM's sparse-MLA planners (vllm-pcp-and-sparse.md §4, §5) and PCP rows (§1).
    EngineRule{"sparse-indexer", InvariantId::I4_global_row_budget, false, 0, encode_indexer_rows},
    EngineRule{"sparse-indexer", InvariantId::E3_indexer_consumer_rows, false, 0, encode_indexer_rows},
    EngineRule{"sparse-indexer", InvariantId::E2_indexer_logits_budget, false, 0, encode_indexer_E2},
    EngineRule{"sparse-indexer", InvariantId::E4_indexer_shared_gather, false, 0, encode_indexer_tiling},
    EngineRule{"sparse-indexer", InvariantId::E5_indexer_token_cover, false, 0, encode_indexer_tiling},
    EngineRule{"sparse-indexer", InvariantId::E6_indexer_key_ranges, false, 0, encode_indexer_E6},
    EngineRule{"sparse-gathered", InvariantId::D5_gathered_shard_cover, false, 0, encode_gathered},
    EngineRule{"sparse-gathered", InvariantId::D7_gathered_layout, false, 0, encode_gathered},
    EngineRule{"packed", InvariantId::Z1_profile_reservation, false, 0, encode_sparse_Z1, true},
    EngineRule{"pcp", InvariantId::P1_pcp_row_coverage, false, 0, encode_pcp_pieces},
    EngineRule{"pcp", InvariantId::P2_pcp_row_shape, false, 0, encode_pcp_pieces},
    EngineRule{"pcp", InvariantId::P9_pcp_decodes_first, false, 0, encode_pcp_P9},
    EngineRule{"pcp", InvariantId::P13_pcp_collective_symmetry, false, 0, encode_pcp_P13},
};

const EngineRule* rule_of(Version v, InvariantId id) {
  for (const EngineRule& r : kEngineRules)
    if (r.family == info(v).family->name && r.invariant == id) return &r;
  return nullptr;
}

std::int64_t batch_max(const EngineRule& r, const Domain& d) { return std::max(r.n_min, d.prefills_max); }

}  // namespace

EngineCommon make_engine_common(z3::context& ctx, Encoding& enc, const Domain& d, Version v, bool dcp_only) {
  EngineCommon c{ctx.int_const("S"), ctx.int_const("block"), ctx.int_const("dcp"), ctx.int_const("interleave"),
                 ctx.int_const("block_div_interleave")};
  fact(enc, c.S >= 1, {c.S});
  if (d.workspace_max != 0) bound(enc, c.S <= ctx.int_val(d.workspace_max), {c.S});
  block_and_interleave_facts(ctx, enc, d, v, c.B, c.I, c.bi);
  if (info(v).supports_dcp) {
    fact(enc, c.W >= (dcp_only ? 2 : 1), {c.W});
    bound(enc, c.W <= ctx.int_val(d.dcp_max), {c.W});
  } else {
    fact(enc, c.W == 1, {c.W});
  }
  if (d.block_pin) bound(enc, c.B == ctx.int_val(d.block_pin), {c.B});
  if (d.dcp_pin) bound(enc, c.W == ctx.int_val(d.dcp_pin), {c.W});
  if (d.interleave_pin) bound(enc, c.I == ctx.int_val(d.interleave_pin), {c.I});
  if (d.workspace_pin) bound(enc, c.S == ctx.int_val(d.workspace_pin), {c.S});
  // Replayable models first: the token-level checks walk every row of the case.
  enc.search_hints.insert(enc.search_hints.end(), {c.B <= 1024, c.W <= 16, c.S <= 1 << 16});
  enc.shown.insert(enc.shown.end(), {{"block", c.B}, {"dcp", c.W}, {"interleave", c.I}, {"S", c.S}});
  enc.unbounded = true;  // every goal is closed over the non-bound facts (engine_goal)
  return c;
}

Case engine_base_case(const z3::model& m, const EngineCommon& c, const TaskKey& key) {
  Case k;
  k.version = key.version;
  k.platform = key.platform;
  k.workspace = get(m, c.S);
  k.block = get(m, c.B);
  k.dcp = get(m, c.W);
  k.interleave = get(m, c.I);
  return k;
}

std::function<Case(const z3::model&)> engine_batch_case(const EngineCommon& c, const std::vector<expr>& cxs,
                                                        const TaskKey& key) {
  return [c, cxs, key](const z3::model& m) {
    Case k = engine_base_case(m, c, key);
    for (const auto& x : cxs) {
      k.ctx.push_back(get(m, x));
      k.q.push_back(16);
    }
    return k;
  };
}

std::vector<expr> engine_contexts(z3::context& ctx, Encoding& enc, const Domain& d, std::int64_t n,
                                  std::int64_t min_ctx, std::int64_t hint_max) {
  std::vector<expr> out;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::string nm = "ctx" + std::to_string(i);
    out.push_back(ctx.int_const(nm.c_str()));
    fact(enc, out.back() >= ctx.int_val(min_ctx), {out.back()});
    bound(enc, out.back() <= ctx.int_val(d.ctx_max), {out.back()});
    enc.search_hints.push_back(out.back() <= ctx.int_val(hint_max));
    enc.shown.push_back({nm, out.back()});
  }
  return out;
}

void engine_goal(Encoding& enc, const Z3Scope& sc, std::string name, std::string comment, const expr& goal,
                 const std::vector<expr>& earlier, bool linear) {
  std::vector<expr> hyps;
  for (const auto& f : enc.domain)
    if (!enc.bound_ids.count(f.id())) hyps.push_back(f);
  hyps.insert(hyps.end(), sc.defs().begin(), sc.defs().end());
  enc.definedness_hyps = hyps;
  hyps.insert(hyps.end(), earlier.begin(), earlier.end());
  Step s{std::move(name), std::move(comment), goal, std::nullopt, true};
  s.hyps = hyps;
  s.abstract_products = linear;
  enc.steps.push_back(std::move(s));
}

}  // namespace detail

using namespace detail;

bool engine_family(Version v) {
  return std::any_of(kEngineRules.begin(), kEngineRules.end(),
                     [&](const EngineRule& r) { return !r.own_encoder && r.family == info(v).family->name; });
}

bool engine_rule(Version v, InvariantId id) { return engine_family(v) || rule_of(v, id) != nullptr; }

bool engine_encoded(Version v, InvariantId id, std::string* why) {
  if (rule_of(v, id)) return true;
  if (why)
    *why = "not encoded for the " + std::string(info(v).family->name) +
           " family (the prover encodes its own rules listed in docs/proving.md; `check` decides this one)";
  return false;
}

std::string engine_describe(const Domain& d) {
  std::ostringstream o;
  o << "block 1.." << d.block_max << ", dcp 2.." << d.dcp_max << " under DCP (else 1), interleave | block";
  if (d.interleave_max < d.block_max) o << " (<= " << d.interleave_max << ")";
  if (d.workspace_pin)
    o << ", workspace " << d.workspace_pin;
  else if (d.workspace_max == 0)
    o << ", S any >= 1 (the engine's chunk size / capacity config, not its default)";
  else
    o << ", workspace 1.." << d.workspace_max;
  o << ", ctx 0.." << d.ctx_max << "; batch rules: n = 1.." << d.prefills_max << " requests (G-4: 2..)";
  return o.str();
}

int engine_num_splits(Version v, InvariantId id, const Domain& d) {
  const EngineRule* r = rule_of(v, id);
  if (!r || !r->batch) return 1;
  return static_cast<int>(batch_max(*r, d) - r->n_min + 1);
}

std::string engine_split_label(Version v, InvariantId id, int split, const Domain&) {
  const EngineRule* r = rule_of(v, id);
  if (!r || !r->batch) return "any batch";
  return "n=" + std::to_string(r->n_min + split) + " requests";
}

Encoding encode_engine(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d) {
  Encoding enc;
  const EngineRule* r = rule_of(key.version, key.invariant);
  if (!r) {
    enc.na = "not encoded";
    return enc;
  }
  r->encode(ctx, sc, key, d, r->batch ? r->n_min + key.split : 0, enc);
  return enc;
}

}  // namespace cp::smt
