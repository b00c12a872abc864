// Launcher layer of the MLA kernels (plain C++: pointers are device pointers). Each launcher
// mirrors one stage of the CPU reference (reference/mla/check.cpp) with the same CP_HD math.
#pragma once

#include <cstdint>
#include <string>

#include "reference/mla/math/exact_accumulator.h"
#include "reference/mla/math/merge_attn_states.h"

namespace cp::gpu {

// The paged latent cache as the kernels see it: one shard per DCP rank (separate buffers).
struct CacheView {
  const std::uint16_t* const* shards = nullptr;  // device array of W device pointers
  const std::int64_t* bt = nullptr;              // block tables, concatenated
  const std::int64_t* bt_off = nullptr;          // [request] offset into bt
  const std::int64_t* bt_len = nullptr;          // [request] virtual blocks
  std::int64_t B = 1, W = 1, I = 1;
  int row = 0;  // L + Rr
  std::uint64_t seed = 0;
};

// One gather entry (the plan's ChunkEntry, flattened).
struct GatherEntry {
  int request;
  std::int64_t first;  // dcp=1: first global position (page-rounded for the old kernel); DCP: local start
  std::int64_t cu;     // first output row (cu_seq_lens or padded_local_cu)
  std::int64_t len;    // rows
};

// Token-major gather / page-rounding gather (dcp=1) and the unchunked/suffix fetch (any W):
// row k of entry b = cache row (request, first + k); garbage (stream 1) past the block table.
void launch_gather_positions(const CacheView& cv, const GatherEntry* entries_dev, int n_entries, std::int64_t rows,
                             std::uint16_t* out);
// cp_gather_cache on rank `rank`: row cu + k = local slot first + k of the rank's shard;
// garbage (stream 2 + rank) past the block table.
void launch_gather_local(const CacheView& cv, std::int64_t rank, const GatherEntry* entries_dev, int n_entries,
                         std::int64_t rows, std::uint16_t* out);
// Rows [0, rows) <- garbage_row(stream, row): the workspace's stale contents.
void launch_fill_garbage(const CacheView& cv, std::uint64_t stream, std::int64_t rows, std::uint16_t* out);
// Reorg (and the all-gather's transpose): copy `count` rows, src row s + k to dst row
// d + k * dst_stride, for each segment (TokenSpeed's reconstruction keeps a rank's rows W apart).
struct CopySegment {
  std::int64_t src, dst, count;
  std::int64_t dst_stride = 1;
};
void launch_copy_rows(const CopySegment* segs_dev, int n_segs, std::int64_t max_count, int row,
                      const std::uint16_t* src, std::uint16_t* dst);

// out[i][h][c] = round_to_bf16(kv_c_i . W[:, h*cols + c]) in fixed order over L; kpe[i][e]
// = bf16_to_float(k_pe_i) when kpe != nullptr.
// Which up-projection kernel launch_up_project runs: `tiled` (128 x 128 outputs per block, 8 x 8
// per thread, W and x staged in shared memory) unless CHUNKPROOF_GPU_UPPROJ=rows8 selects the
// previous one (8 rows per block, one column per thread). Same bits either way.
enum class UpKernel { tiled, rows8 };
UpKernel up_project_kernel_choice();
void launch_up_project(const std::uint16_t* rows, std::int64_t n, int L, int Rr, int N, int cols, const float* w,
                       float* out, float* kpe);

// `--mode fast` (issue 15 part 4): the up-projection on the bf16 matrix units, fp32
// accumulation, bf16-rounded output; W as bf16 bits (wb, [L][N*cols]). Same on every
// chunking (chunked == unchunked on one device), not the CPU's bits. fast_mode_supported says
// whether this build and GPU have it (why: the backend, or the reason it is not supported).
bool fast_mode_supported(std::string& why);
void launch_up_project_fast(const std::uint16_t* rows, std::int64_t n, int L, int Rr, int N, int cols,
                            const std::uint16_t* wb, float* out, float* kpe);

// Which scores + max kernel launch_scores runs: `reg4x4` (16 tokens x 128 keys per block, a
// 4 x 4 register tile per thread, q.k staged in steps of 16) unless CHUNKPROOF_GPU_SCORES=tiled32
// selects the previous one (16 tokens x 32 keys, 2 scores per thread). Same bits either way.
enum class ScoresKernel { reg4x4, tiled32 };
ScoresKernel scores_kernel_choice();
// Scores of one request's qn tokens against rows [0, n): store[(key0 + i)*qn*N + t*N + h] =
// mul_rn(dot_concat(q[t][h], kn[i][h], Pn, kpe[i], Rr), scale), causal: keys i < mla::causal_end(t, n, qn)
// only (reference/mla/math/causal.h: i <= t when n == qn).
// Updates mx_key[t*N + h] (ordered-integer image of the running max).
void launch_scores(const float* q, int qn, int N, int Pn, int Rr, const float* kn, const float* kpe, std::int64_t n,
                   bool causal, float scale, float* store, std::int64_t key0, std::uint32_t* mx_key);
void launch_decode_max(const std::uint32_t* mx_key, std::int64_t count, float* mx);

// Exact accumulation of rows [0, n) (scores from store at key0): partials per key tile, then
// merged into num [qn][N][Vd], den [qn][N]. scratch: launch_exact_scratch(n, qn, N, Vd) accs.
std::int64_t exact_scratch_size(std::int64_t n, int qn, int N, int Vd);
void launch_exact_accumulate(const float* store, std::int64_t key0, std::int64_t n, bool causal, int qn, int N, int Vd,
                             const float* mx, const float* v, mla::ExactAcc* scratch, mla::ExactAcc* num,
                             mla::ExactAcc* den);
void launch_init_acc(mla::ExactAcc* a, std::int64_t count);
// out[t][h][d] = normalize(num, den); flags[0] |= 1 when any accumulator is flagged.
void launch_normalize(const mla::ExactAcc* num, const mla::ExactAcc* den, std::int64_t th, int Vd, float* out,
                      std::uint32_t* flags);

// vLLM path: the fp32 softmax partial of rows [0, n) -> part_out [qn][N][Vd], part_lse [N][qn].
void launch_vllm_partial(const float* store, std::int64_t key0, std::int64_t n, bool causal, int qn, int N, int Vd,
                         const float* v, float* part_out, float* part_lse);
// merge_attn_states over (qn, N) with flavour 0 = Triton, 1 = CUDA (contiguous [qn][N][Vd]);
// rule: the engine's Triton variant (mla::MergeRule; default vLLM's).
void launch_merge(int flavour, int qn, int N, int Vd, const float* p_out, const float* p_lse, const float* s_out,
                  const float* s_lse, float* out, float* out_lse, mla::MergeRule rule = {});

}  // namespace cp::gpu
