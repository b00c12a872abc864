// The numerics pipeline's stages (DESIGN §1) as one list, in the order a chunk's keys pass
// through them: the CPU driver (reference/mla/check.cpp, CheckRun) and the GPU driver
// (kernels/harness/pipeline.cpp) both walk passes() and run each pass's stages in this order,
// with one function per stage named after it, so the two cannot drift apart.
//
//   gather      the chunk's rows from the paged cache (per rank under DCP; the causal suffix:
//               the new tokens' own rows)
//   collective  the all-gather of the ranks' padded local rows (DCP only)
//   reorg       the un-padding copy into the workspace (DCP only)
//   up_project  kv_b_proj: the latent rows to k_nope (with the scores) and v (with accumulate)
//   scores      scale * q . k per (token, head), and the global row max
//   accumulate  the exact sums (ExactAcc) and the vLLM-style partial (out, lse)
//   merge       merge_attn_states of a request's partials in plan order, then with the suffix
//   normalize   the exact path's one division per output, after the last pass
#pragma once

#include <cstdint>
#include <span>

namespace cp::mla {

enum class Stage : std::uint8_t { gather, collective, reorg, up_project, scores, accumulate, merge, normalize };

inline constexpr Stage kStages[] = {Stage::gather, Stage::collective, Stage::reorg, Stage::up_project,
                                    Stage::scores, Stage::accumulate, Stage::merge, Stage::normalize};

constexpr const char* stage_name(Stage s) {
  switch (s) {
    case Stage::gather: return "gather";
    case Stage::collective: return "collective";
    case Stage::reorg: return "reorg";
    case Stage::up_project: return "up-projection";
    case Stage::scores: return "scores";
    case Stage::accumulate: return "accumulate";
    case Stage::merge: return "merge";
    case Stage::normalize: return "normalize";
  }
  return "?";
}

// One pass over every chunk of the plan (the workspace stages gather, collective, reorg, then
// the pass's own stages on each piece of keys), then over every request's causal suffix.
struct Pass {
  int number;       // 1, 2: the exact path's passes; 0: the single pass of the vLLM-only path
  bool scores;      // up-project K, score, update the global max
  bool accumulate;  // up-project V, accumulate
  bool merge;       // merge the vLLM-style partials (with accumulate)
  constexpr bool has(Stage s) const {
    switch (s) {
      case Stage::scores: return scores;
      case Stage::accumulate: return accumulate;
      case Stage::merge: return merge;
      case Stage::normalize: return false;  // after the passes
      default: return true;                 // gather, collective, reorg, up_project
    }
  }
};

// The exact path needs the global row max before any exp: scores over every key first (pass
// 1), then the sums (pass 2), the vLLM-style partials computed from the same stored scores.
inline constexpr Pass kExactPasses[] = {{.number = 1, .scores = true, .accumulate = false, .merge = false},
                                        {.number = 2, .scores = false, .accumulate = true, .merge = true}};
// The vLLM-style path alone: a chunk's softmax needs only that chunk's max, so one pass.
inline constexpr Pass kVllmPasses[] = {{.number = 0, .scores = true, .accumulate = true, .merge = true}};

// The passes a run makes: the exact path's two (the vLLM-style path rides along in pass 2), the
// vLLM-style path's one, or none. Normalize follows the passes when `exact`.
constexpr std::span<const Pass> passes(bool exact, bool vllm) {
  if (exact) return kExactPasses;
  if (vllm) return kVllmPasses;
  return {};
}

}  // namespace cp::mla
