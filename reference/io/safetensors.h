// safetensors read and write (https://github.com/huggingface/safetensors, format v0.x): an
// 8-byte little-endian header length N, N bytes of JSON header
//   {"__metadata__": {"k": "v"}, "name": {"dtype": "F32", "shape": [..], "data_offsets": [b, e]}}
// (padded with spaces to a multiple of 8), then the tensors' bytes, little-endian, offsets
// relative to the end of the header. The field's standard file format; the Python runner reads
// the same files with the `safetensors` package or with python/chunkproof_runner/st.py.
//
//   write_safetensors(path, tensors, metadata)   throws IoError
//   SafetensorsFile f = read_safetensors(path);  validates every offset and size; throws IoError
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace cp::io {

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class DType : std::uint8_t { F64, F32, BF16, F16, I64, I32, U8 };
const char* name(DType d);
std::size_t size_of(DType d);
bool parse_dtype(const std::string& s, DType& out);

struct Tensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;  // little-endian element bytes

  std::int64_t numel() const;
  // Typed copies in and out (host little-endian, as every supported host is).
  template <class T>
  static Tensor of(std::string name, DType d, std::vector<std::int64_t> shape, const std::vector<T>& v) {
    Tensor t{std::move(name), d, std::move(shape), {}};
    if (sizeof(T) != size_of(d) || static_cast<std::int64_t>(v.size()) != t.numel())
      throw IoError("tensor '" + t.name + "': element size or count does not match its dtype and shape");
    t.data.resize(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(t.data.data(), v.data(), t.data.size());
    return t;
  }
  template <class T>
  std::vector<T> as() const {
    if (sizeof(T) != size_of(dtype)) throw IoError("tensor '" + name + "': read as the wrong element size");
    std::vector<T> v(data.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), data.data(), data.size());
    return v;
  }
  // Any float dtype (F64, F32, BF16, F16 excluded) as float.
  std::vector<float> to_f32() const;
};

struct SafetensorsFile {
  std::map<std::string, std::string> metadata;
  std::map<std::string, Tensor> tensors;
  const Tensor& at(const std::string& name) const;  // throws IoError naming the missing tensor
  bool has(const std::string& name) const { return tensors.count(name) != 0; }
};

void write_safetensors(const std::string& path, const std::vector<Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});
SafetensorsFile read_safetensors(const std::string& path);
// The same, from bytes in memory (tests, fuzzing).
SafetensorsFile parse_safetensors(const std::vector<std::uint8_t>& bytes, const std::string& what);

}  // namespace cp::io
