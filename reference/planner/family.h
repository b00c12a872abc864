// A planner family (DESIGN §9): one folder under reference/planner/families/ with its steps
// (templates over the number type, called by the planner and the prover alike), its plan
// builder and its plan-time asserts. A family's versions are rows of versions.h whose
// family-specific fields (FloorDivideRules, PackedRules) its steps read; the registry
// (families/registry.h) lists the families, one line each. How to add either: docs/plan.md.
#pragma once

#include <string_view>

#include "reference/planner/movement.h"

namespace cp {

struct Case;
struct Plan;
struct Chunk;

struct FamilyInfo {
  std::string_view name;     // as `chunkproof versions` prints it: "floor-divide", "packed"
  std::string_view summary;  // one line: how the family splits the context
  std::string_view models;   // the engine function(s) it models
  // Step 1b of make_plan, after the version's sizing rule set plan.workspace: the rows the
  // engine allocates (plan.workspace_rows) and the engine's init-time asserts on its config.
  void (*init)(const Case& c, Plan& plan);
  // Steps 3+ of make_plan (after sizing and the batch split, which every family shares): fills
  // plan.chunks with their DCP movement and records the family's plan-time asserts; sets
  // plan.built when a plan was produced.
  void (*plan)(const Case& c, Plan& plan);
  // The data movement of one chunk of a built plan, in the one vocabulary of movement.h: what
  // the engine's gather, collective and reorg (or local attention) do with the chunk's rows.
  ChunkMovement (*movement)(const Plan& plan, const Chunk& chunk);
  // The invariants' interval level (catalogue.h: Level) decides this family's plans in closed
  // form (vLLM's ownership and local-length formulas); without it every walk is token level.
  bool interval_level = false;
  // The engine's batch split: false (vLLM, ATOM, TensorRT-LLM as modelled): the leading requests
  // with q <= 1 are decodes and not planned; true (SGLang, TokenSpeed): every request of the
  // extend batch is planned and counted in bs (chunk_len = C // batch_size, G2; TokenSpeed's
  // capacity // len(prefix_lens_cpu)), q = 1 included.
  bool plans_every_request = false;
  // Under DCP the engine allocates each chunk's send and all-gather buffers from the plan (ATOM's
  // index_select + all_gather, SGLang's pad + all_gather, TokenSpeed's [W*P]): no fixed S/W slice
  // per rank, so the local row budget I-7 is not this engine's rule (the rows attention reads are
  // I-4's; ATOM's window promise A-7's).
  bool send_buffers_per_chunk = false;
  // The chunk entries are spans of each request's cached context [0, ctx) (false: of another
  // extent, the sparse indexer's compressed K rows or the gathered prefill's whole sequence
  // ctx + q). Checks that compare spans with the batch's context (InvariantInfo::reads_context)
  // answer n/a on the other plans, and the numerics refuse them by name.
  bool spans_are_context = true;
  // The family partitions the global batch into per-rank rows (PCP, vllm-pcp-and-sparse.md §1): the
  // requests its plan's chunks and every check see are the selected rank's rows (Plan::pcp,
  // batch_of), and the global batch keeps the engine's input order (decodes need not lead: PB-2).
  bool partitions_global_batch = false;
  // The Z3 prover encodes this family's steps (invariants/smt/); `prove` refuses the others by name.
  bool smt_encoded = false;
};

}  // namespace cp
