// The wire format of multi-GPU DCP (wire.h).
#include "kernels/multi/wire.h"

#include <unistd.h>

#include <cerrno>

namespace cp::gpu::multi {

bool write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool send(int fd, Msg type, std::uint32_t index, const std::string& payload) {
  const Header h{static_cast<std::uint32_t>(type), index, payload.size()};
  return write_all(fd, &h, sizeof h) && write_all(fd, payload.data(), payload.size());
}

void encode(Writer& w, const PipelineResult& r) {
  w.floats(r.exact);
  w.u64(r.overflow ? 1 : 0);
  for (int f = 0; f < 2; ++f) {
    w.floats(r.vllm[f]);
    w.floats(r.vllm_lse[f]);
  }
  w.u64(r.digests.size());
  for (const auto& d : r.digests) {
    w.i64(d.pass);
    w.i64(d.chunk);
    w.i64(static_cast<std::int64_t>(d.step));
    w.i64(d.rank);
    w.u64(d.hash);
  }
  w.u64(r.stage_ms.size());
  for (const auto& [k, v] : r.stage_ms) {
    w.str(k);
    w.f64(v);
  }
  w.u64(r.all_gathers.size());
  for (const auto& a : r.all_gathers) {
    w.i64(a.pass);
    w.i64(a.chunk);
    w.i64(a.bytes_per_rank);
    w.f64(a.ms);
  }
  w.f64(r.total_ms);
}

PipelineResult decode(Reader& rd) {
  PipelineResult r;
  r.exact = rd.floats();
  r.overflow = rd.u64() != 0;
  for (int f = 0; f < 2; ++f) {
    r.vllm[f] = rd.floats();
    r.vllm_lse[f] = rd.floats();
  }
  r.digests.resize(rd.u64());
  for (auto& d : r.digests) {
    d.pass = static_cast<int>(rd.i64());
    d.chunk = static_cast<int>(rd.i64());
    d.step = static_cast<Step>(rd.i64());
    d.rank = static_cast<int>(rd.i64());
    d.hash = rd.u64();
  }
  for (auto n = rd.u64(); n > 0; --n) {
    std::string k = rd.str();
    r.stage_ms[k] = rd.f64();
  }
  r.all_gathers.resize(rd.u64());
  for (auto& a : r.all_gathers) {
    a.pass = static_cast<int>(rd.i64());
    a.chunk = static_cast<int>(rd.i64());
    a.bytes_per_rank = rd.i64();
    a.ms = rd.f64();
  }
  r.total_ms = rd.f64();
  return r;
}

}  // namespace cp::gpu::multi
