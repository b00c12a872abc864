// Host-side view of the GPU runtime, in plain C++ (no vendor header): device probing, device
// buffers, poisoning, copies, timing. Implemented in src/runtime.hip, the only place that
// talks to the vendor runtime for these; the harness (plain .cpp) uses only this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cp::gpu {

// A failed runtime call (CP_GPU_CHECK) or launch. `code` is the vendor's error number.
struct GpuError : std::runtime_error {
  GpuError(const std::string& what, int code_) : std::runtime_error(what), code(code_) {}
  int code;
};

struct DeviceInfo {
  std::string backend;  // "CUDA" or "HIP"
  std::string name;     // e.g. "NVIDIA H200", "AMD Instinct MI300X"
  std::string arch;     // "sm_90", "gfx942"
  int runtime_version = 0;
  int driver_version = 0;
  int multiprocessors = 0;
  int wave_size = 0;
  std::int64_t global_mem = 0;
};

// The first device, or nullopt with the reason in `why` (no device, driver too old, ...).
// Never throws for a missing GPU: that is an expected state on CI machines.
std::optional<DeviceInfo> probe(std::string& why);
const char* backend_name();  // the backend this build was compiled for
// Number of visible devices (0 with the reason in `why`), and make `device` current (the rank
// processes of a multi-GPU run: rank r uses device r).
int device_count(std::string& why);
void set_device(int device);

// Raw memory (every call checked; errors throw GpuError).
void* raw_alloc(std::size_t bytes);
void raw_free(void* p) noexcept;
void upload(void* dst, const void* src, std::size_t bytes);
void download(void* dst, const void* src, std::size_t bytes);
void copy_d2d(void* dst, const void* src, std::size_t bytes);
void fill_bytes(void* dst, unsigned char byte, std::size_t bytes);
void synchronize();

// The poison byte written over every output buffer before the kernel that produces it.
// 0xFF gives NaN for fp32/bf16 and -1 for integers: distinctive, and a second run with
// kPoisonAlt must give the same bits (an element nobody wrote would differ).
inline constexpr unsigned char kPoison = 0xFF;
inline constexpr unsigned char kPoisonAlt = 0x5A;

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n), p_(static_cast<T*>(n ? raw_alloc(n * sizeof(T)) : nullptr)) {}
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { put(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : n_(std::exchange(o.n_, 0)), p_(std::exchange(o.p_, nullptr)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      raw_free(p_);
      n_ = std::exchange(o.n_, 0);
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  ~DeviceBuffer() { raw_free(p_); }

  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  void put(const std::vector<T>& host) {
    if (host.size() != n_) throw std::logic_error("DeviceBuffer::put: size mismatch");
    if (n_) upload(p_, host.data(), bytes());
  }
  std::vector<T> get() const {
    std::vector<T> host(n_);
    if (n_) download(host.data(), p_, bytes());
    return host;
  }
  void poison(unsigned char byte = kPoison) {
    if (n_) fill_bytes(p_, byte, bytes());
  }
  void zero() {
    if (n_) fill_bytes(p_, 0, bytes());
  }

 private:
  std::size_t n_ = 0;
  T* p_ = nullptr;
};

// Device-side elapsed time between two points of the default stream, in milliseconds.
class Timer {
 public:
  Timer();
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  void start();
  double stop_ms();  // waits for the device

 private:
  void* a_ = nullptr;
  void* b_ = nullptr;
};

// The ceilings the benchmark compares every stage against, measured in the same run.
struct Ceilings {
  double copy_bytes_per_s = 0;          // device-to-device copy: bytes read + bytes written per second
  double fp32_flops_per_s = 0;          // dependent-chain-free fp32 FMA loop: 2 flops per FMA
  double fp32_mul_add_flops_per_s = 0;  // the same loop with an unfused mul + add (dot_step): 2 flops per pair
  double exact_terms_per_s = 0;         // the exact accumulation's per-term integer work in registers (ExactWin)
  std::size_t copy_bytes = 0;           // buffer size used for the copy
};
Ceilings measure_ceilings(std::size_t copy_bytes = std::size_t{2} << 30);

}  // namespace cp::gpu
