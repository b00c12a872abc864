#include "reference/dcp/movement.h"

#include <algorithm>

namespace cp {

ChunkMovement chunk_movement(const Plan& p, const Chunk& ch) { return p.version_info().family->movement(p, ch); }

bool vllm_shaped(const ChunkMovement& m) {
  return m.exchange != Exchange::local_attend && m.layout == GatherLayout::rank_major && !m.gather_per_rank &&
         std::all_of(m.reorg.begin(), m.reorg.end(), [](const CopyRun& r) { return r.dst_stride == 1; });
}

CopyRun clip_gather(const ChunkMovement& m, const CopyRun& g) {
  CopyRun out = g;
  out.len = std::max<std::int64_t>(0, std::min(g.len, m.local_rows - g.dst));
  return out;
}

namespace {
// ceil(a / b) for b > 0 (either sign of a).
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
}  // namespace

CopyRun clip_keep(const ChunkMovement& m, const CopyRun& run) {
  const std::int64_t st = std::max<std::int64_t>(1, run.dst_stride);
  // src + k in [0, gathered), dst + k*st in [0, total), k in [0, len).
  const std::int64_t k0 = std::max({std::int64_t{0}, -run.src, ceil_div(-run.dst, st)});
  const std::int64_t k1 = std::min({run.len, m.gathered_rows - run.src, ceil_div(m.total_rows - run.dst, st)});
  CopyRun out = run;
  out.src = run.src + k0;
  out.dst = run.dst + k0 * st;
  out.len = std::max<std::int64_t>(0, k1 - k0);
  return out;
}

std::vector<AttendSpan> attended_spans(const ChunkMovement& m, const Chunk& ch, std::size_t entry, std::int64_t ranks) {
  if (m.exchange != Exchange::local_attend) return {{0, ch.cu_seq_lens[entry], ch.cu_seq_lens[entry + 1]}};
  std::vector<AttendSpan> out;
  const int request = ch.entries[entry].request;
  for (std::int64_t r = 0; r < ranks; ++r)
    for (const auto& g0 : m.gather) {
      const CopyRun g = clip_gather(m, g0);
      if (g.request != request || !runs_on(m, g, r) || g.len == 0) continue;
      out.push_back({static_cast<int>(r), r * m.local_rows + g.dst, r * m.local_rows + g.dst + g.len});
    }
  return out;
}

std::int64_t workspace_rows(const ChunkMovement& m, std::int64_t ranks) {
  return m.exchange == Exchange::local_attend ? m.local_rows * ranks : m.total_rows;
}

}  // namespace cp
