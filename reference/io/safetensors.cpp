#include "reference/io/safetensors.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "reference/mla/math/bf16.h"

namespace cp::io {

namespace {
constexpr std::uint64_t kMaxHeader = std::uint64_t{100} << 20;  // the reference library's limit
}

const char* name(DType d) {
  switch (d) {
    case DType::F64: return "F64";
    case DType::F32: return "F32";
    case DType::BF16: return "BF16";
    case DType::F16: return "F16";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::U8: return "U8";
  }
  return "?";
}

std::size_t size_of(DType d) {
  switch (d) {
    case DType::F64:
    case DType::I64: return 8;
    case DType::F32:
    case DType::I32: return 4;
    case DType::BF16:
    case DType::F16: return 2;
    case DType::U8: return 1;
  }
  return 0;
}

bool parse_dtype(const std::string& s, DType& out) {
  for (DType d : {DType::F64, DType::F32, DType::BF16, DType::F16, DType::I64, DType::I32, DType::U8})
    if (s == name(d)) {
      out = d;
      return true;
    }
  return false;
}

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::vector<float> Tensor::to_f32() const {
  const auto n = static_cast<std::size_t>(numel());
  std::vector<float> v(n);
  switch (dtype) {
    case DType::F32: return as<float>();
    case DType::F64: {
      const auto d = as<double>();
      for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(d[i]);
      return v;
    }
    case DType::BF16: {
      const auto b = as<std::uint16_t>();
      for (std::size_t i = 0; i < n; ++i) v[i] = mla::bf16_to_float(b[i]);
      return v;
    }
    default: throw IoError("tensor '" + name + "': dtype " + io::name(dtype) + " is not a float type read here");
  }
}

const Tensor& SafetensorsFile::at(const std::string& n) const {
  auto it = tensors.find(n);
  if (it == tensors.end()) throw IoError("no tensor '" + n + "'");
  return it->second;
}

void write_safetensors(const std::string& path, const std::vector<Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  std::uint64_t off = 0;
  for (const auto& t : tensors) {
    if (t.name.empty() || t.name == "__metadata__") throw IoError("bad tensor name '" + t.name + "'");
    if (h.contains(t.name)) throw IoError("tensor '" + t.name + "' written twice");
    if (static_cast<std::int64_t>(t.data.size()) != t.numel() * static_cast<std::int64_t>(size_of(t.dtype)))
      throw IoError("tensor '" + t.name + "': byte count does not match shape and dtype");
    h[t.name] = {{"dtype", name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {off, off + t.data.size()}}};
    off += t.data.size();
  }
  std::string hs = h.dump();
  while (hs.size() % 8 != 0) hs.push_back(' ');
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw IoError("cannot write " + path);
  std::uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(hs.size()) >> (8 * i));
  f.write(reinterpret_cast<const char*>(len), 8);
  f.write(hs.data(), static_cast<std::streamsize>(hs.size()));
  for (const auto& t : tensors)
    f.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.data.size()));
  if (!f) throw IoError("write failed: " + path);
}

SafetensorsFile parse_safetensors(const std::vector<std::uint8_t>& bytes, const std::string& what) {
  auto bad = [&](const std::string& why) { return IoError(what + ": not a valid safetensors file: " + why); };
  if (bytes.size() < 8) throw bad("shorter than its 8-byte header length");
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(bytes[static_cast<std::size_t>(i)]) << (8 * i);
  if (n > kMaxHeader || n > bytes.size() - 8) throw bad("header length " + std::to_string(n) + " past the file");
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  } catch (const nlohmann::json::exception& e) {
    throw bad(std::string("header is not JSON (") + e.what() + ")");
  }
  if (!h.is_object()) throw bad("header is not a JSON object");
  const std::uint64_t data_size = bytes.size() - 8 - n;
  SafetensorsFile out;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (auto it = h.begin(); it != h.end(); ++it) {
    const auto& v = it.value();
    if (it.key() == "__metadata__") {
      if (!v.is_object()) throw bad("__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) throw bad("metadata '" + m.key() + "' is not a string");
        out.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    try {
      Tensor t;
      t.name = it.key();
      if (!parse_dtype(v.at("dtype").get<std::string>(), t.dtype))
        throw bad("tensor '" + t.name + "': unsupported dtype " + v.at("dtype").dump());
      std::uint64_t numel = 1;
      for (const auto& d : v.at("shape")) {
        const auto x = d.get<std::int64_t>();
        if (x < 0 || (x > 0 && numel > (std::uint64_t{1} << 62) / static_cast<std::uint64_t>(x)))
          throw bad("tensor '" + t.name + "': bad shape");
        numel *= static_cast<std::uint64_t>(x);
        t.shape.push_back(x);
      }
      const auto& o = v.at("data_offsets");
      if (!o.is_array() || o.size() != 2) throw bad("tensor '" + t.name + "': data_offsets is not [begin, end]");
      const auto b = o[0].get<std::uint64_t>(), e = o[1].get<std::uint64_t>();
      if (b > e || e > data_size) throw bad("tensor '" + t.name + "': data_offsets past the data");
      if (e - b != numel * size_of(t.dtype)) throw bad("tensor '" + t.name + "': byte count does not match its shape");
      spans.emplace_back(b, e);
      const auto* base = bytes.data() + 8 + n;
      t.data.assign(base + b, base + e);
      out.tensors.emplace(t.name, std::move(t));
    } catch (const nlohmann::json::exception& e) {
      throw bad("tensor '" + it.key() + "': " + e.what());
    }
  }
  // The format requires the tensors to tile the data section without holes or overlap.
  std::sort(spans.begin(), spans.end());
  std::uint64_t at = 0;
  for (const auto& [b, e] : spans) {
    if (b != at) throw bad("tensors overlap or leave a hole in the data section");
    at = e;
  }
  if (at != data_size) throw bad("bytes after the last tensor");
  return out;
}

SafetensorsFile read_safetensors(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError("cannot read " + path);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parse_safetensors(bytes, path);
}

}  // namespace cp::io
