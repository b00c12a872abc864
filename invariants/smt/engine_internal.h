// Internal to the other engines' encoders (invariants/smt/encode_{atom,sglang,tokenspeed,trtllm}.cpp):
// the engine parameters, the one direct closed step each encoding ends in, and the rule table
// (encode_engines.cpp) that says which family's invariant which encoder proves.
//
// These planners' workspaces are config values (ATOM's attn_prefill_chunk_size, SGLang's
// SGLANG_MAX_KV_CHUNK_CAPACITY, TokenSpeed's chunk capacity, TensorRT-LLM's BBS*max_num_tokens):
// with a sized domain (the default) S is any positive integer, not the engine's default value, so
// a proof holds for every configuration. Each goal is one closed step over every domain fact that
// is not an upper bound and every witness definition: unsat is a proof for every integer value
// of the unbounded parameters; a sat answer is re-solved with the whole domain (its bounds, the
// search hints first) and its model replayed through the planner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "invariants/smt/encode_internal.h"

namespace cp::smt::detail {

struct EngineCommon {
  expr S, B, W, I, bi;
};
// S >= 1 (<= workspace_max with an explicit workspace), B >= 1, I | B (I = 1 where the version
// has no interleave), W >= 2 for a DCP-only rule, W >= 1 where the version has DCP, else W = 1;
// the domain's maxima as bounds, its pins.
EngineCommon make_engine_common(z3::context& ctx, Encoding& enc, const Domain& d, Version v, bool dcp_only);
// The case line's engine keys from a model: version, platform, workspace=S, block, dcp, interleave.
Case engine_base_case(const z3::model& m, const EngineCommon& c, const TaskKey& key);
// The case of a batch: the engine keys and one request per context (q = 16: prefills).
std::function<Case(const z3::model&)> engine_batch_case(const EngineCommon& c, const std::vector<expr>& cxs,
                                                        const TaskKey& key);
// n symbolic context lengths ctx0.. in [min_ctx, ctx_max] (shown, with the search hint ctx <= hint_max).
std::vector<expr> engine_contexts(z3::context& ctx, Encoding& enc, const Domain& d, std::int64_t n,
                                  std::int64_t min_ctx, std::int64_t hint_max);
// The encoding's goal: a direct closed step over every non-bound domain fact and every witness
// definition so far (build the goal's terms first), and the earlier steps `earlier` (a lemma
// chain's); definedness gets the same hypotheses. linear: the argument is linear over its
// products (a chunk's start c*chunk_len as one quantity), so the own query abstracts them
// (Step::abstract_products, a weakening; the whole-domain re-solve of a sat answer does not).
void engine_goal(Encoding& enc, const Z3Scope& sc, std::string name, std::string comment, const expr& goal,
                 const std::vector<expr>& earlier = {}, bool linear = false);

// One encoder per (family, invariant) row of the table; n: the batch's requests (a batch rule's
// split case), else 0.
using EngineEncoder = void (*)(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t n, Encoding&);
void encode_atom_A7(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_tokenspeed_T3(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_sglang_G10(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_sglang_G4(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_rect_I3(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_rect_I4(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_trtllm_I4(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
// vLLM's sparse-MLA planners and PCP rows (encode_sparse.cpp, encode_pcp.cpp).
void encode_indexer_rows(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_indexer_E2(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_indexer_tiling(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_indexer_E6(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_gathered(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_sparse_Z1(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_pcp_pieces(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_pcp_P9(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);
void encode_pcp_P13(z3::context&, Z3Scope&, const TaskKey&, const Domain&, std::int64_t, Encoding&);

}  // namespace cp::smt::detail
