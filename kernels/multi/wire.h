// The coordinator <-> rank wire format of multi-GPU DCP (multi_rank.h; internal to kernels/multi/):
// [u32 type][u32 case][u64 length][payload] over pipes, in host byte order (both ends are the
// same binary on the same host), and the encoding of a PipelineResult.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/harness/pipeline.h"

namespace cp::gpu::multi {

enum class Msg : std::uint32_t { hello = 1, unique_id, result, emulation, bench, error, done };

struct Writer {
  std::string b;
  void raw(const void* p, std::size_t n) { b.append(static_cast<const char*>(p), n); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void i64(std::int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void floats(const std::vector<float>& v) {
    u64(v.size());
    raw(v.data(), v.size() * sizeof(float));
  }
};

struct Reader {
  const std::string& b;
  std::size_t at = 0;
  void raw(void* p, std::size_t n) {
    if (at + n > b.size()) throw std::runtime_error("multi-rank: truncated message from a rank");
    std::memcpy(p, b.data() + at, n);
    at += n;
  }
  std::uint64_t u64() {
    std::uint64_t v;
    raw(&v, sizeof v);
    return v;
  }
  std::int64_t i64() {
    std::int64_t v;
    raw(&v, sizeof v);
    return v;
  }
  double f64() {
    double v;
    raw(&v, sizeof v);
    return v;
  }
  std::string str() {
    std::string s(u64(), '\0');
    raw(s.data(), s.size());
    return s;
  }
  std::vector<float> floats() {
    std::vector<float> v(u64());
    raw(v.data(), v.size() * sizeof(float));
    return v;
  }
};

struct Header {
  std::uint32_t type, index;
  std::uint64_t len;
};

// The whole buffer through fd (EINTR retried); false when the pipe closed or failed.
bool write_all(int fd, const void* p, std::size_t n);
bool read_all(int fd, void* p, std::size_t n);
// One message: header and payload.
bool send(int fd, Msg type, std::uint32_t index, const std::string& payload);

void encode(Writer& w, const PipelineResult& r);
PipelineResult decode(Reader& rd);

}  // namespace cp::gpu::multi
