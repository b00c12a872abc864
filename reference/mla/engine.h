// The CPU numerics engine behind run_check (check.h; internal to reference/mla/): the
// per-request state and the compute stages of reference/mla/stages.h on the host — up-projection
// with scores (pass 1), up-projection with accumulate and the vLLM-style partial (pass 2). Every
// element keeps one fixed order whatever the threads (DESIGN §6).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "reference/mla/inputs.h"
#include "reference/mla/math/exact_accumulator.h"

namespace cp::mla::detail {

using Row = std::uint16_t;  // bf16 bits

// One prefill request's running state.
struct Work {
  int request = 0;
  int qn = 0;
  std::int64_t ctx = 0;
  std::int64_t token0 = 0;  // prefill token index of its first new token
  // The causal suffix's leading keys (a merged row's b group, token_groups.h): positions
  // [lead_ctx, lead_ctx + lead_q) before its own tokens [ctx, ctx + qn).
  std::int64_t lead_ctx = 0;
  int lead_q = 0;
  std::int64_t suffix_rows() const { return lead_q + qn; }
  const float* q = nullptr;        // [qn][N][qk]
  std::vector<float> mx;           // [qn][N] global row max of the attended scores
  std::vector<float> ctx_scores;   // context keys, appended per batch: [rows][qn][N]
  std::size_t cursor = 0;          // read position of accumulate in ctx_scores
  std::vector<float> suf_scores;   // causal suffix: [key j][qn][N], lead_q + qn keys
  std::vector<ExactAcc> den, num;  // [qn][N], [qn][N][Vd]
  // vLLM path: running context partial per flavour ([qn][N][Vd], lse [N][qn]).
  bool have_part = false;
  std::vector<float> part_out[2], part_lse[2];
  // MergeOrder::suffix_first (SGLang): the chunk partials, merged into the suffix at the end.
  std::vector<std::vector<float>> pend_out, pend_lse;
  // float64 oracle (reference only)
  std::vector<double> o_den, o_num;
};

class Engine {
 public:
  Engine(const Inputs& in, int threads);
  // The same engine on another number of threads (the packed weights are shared, not copied).
  Engine(const Engine& e, int threads);

  void init(Work& w, bool oracle) const;

  // up-projection (K) + scores: score every (token, head) of `n` rows, update the row max.
  // causal: the rows are the causal suffix's n keys and token t sees keys j < causal_end(t, n, qn)
  // (math/causal.h: j <= t for a request's own new tokens, n == qn).
  void scores(Work& w, const Row* rows, std::int64_t n, bool causal) const;

  // vLLM path: the fp32 softmax of one chunk's rows for a request, accumulated over
  // consecutive sub-batches of those rows (same sequential order as one batch).
  struct Partial {
    std::vector<float> m, l, acc;  // [qn][N], [qn][N], [qn][N][Vd]
  };
  // The chunk max of the next `n` stored context scores (or of the causal suffix).
  void begin_partial(const Work& w, std::int64_t n, bool causal, Partial& p) const;
  // (out [qn][N][Vd], lse [N][qn]); no rows: (0, -inf).
  void end_partial(const Work& w, const Partial& p, float* out, float* lse) const;

  // up-projection (V) + accumulate: exact accumulation of w = exp(s - max) and w * v over the
  // next `n` stored scores. With `oracle`, the same terms in float64 (libm exp). With `part`
  // (vLLM path), the fp32 softmax sums of these rows against the partial's chunk max.
  void accumulate(Work& w, const Row* rows, std::int64_t n, bool causal, bool exact, bool oracle, Partial* part) const;

 private:
  void accumulate_exact(Work& w, const float* v, const float* sc, std::int64_t n, bool causal, int h) const;
  void up_project(const Row* rows, std::int64_t n, const std::vector<float>& W, const std::vector<float>& Wp, int cols,
                  float* out) const;

  const Inputs& in_;
  const Shape s_;
  int threads_;
  std::shared_ptr<const std::vector<float>> wk_pack_, wv_pack_;  // W_UK / W_UV as 16-column strips
};

}  // namespace cp::mla::detail
