// The collective layer: the only file that includes the collective library's header (NCCL on
// NVIDIA, RCCL on AMD, one API). Built only when CMake found the library (CHUNKPROOF_WITH_NCCL).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "kernels/collective.h"
#include "kernels/gpu_compat.h"
#include "kernels/runtime.h"

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
#include <rccl/rccl.h>
#define CP_COLLECTIVE_NAME "RCCL"
#else
#include <nccl.h>
#define CP_COLLECTIVE_NAME "NCCL"
#endif

namespace cp::gpu {

namespace {

std::string nccl_text(ncclResult_t r) { return std::string(ncclGetErrorString(r)) + " (" + std::to_string(r) + ")"; }

void nccl_check(ncclResult_t r, const char* stmt) {
  if (r != ncclSuccess && r != ncclInProgress)
    throw CollectiveError(std::string(CP_COLLECTIVE_NAME) + " error " + nccl_text(r) + " in `" + stmt + "`");
}

using Clock = std::chrono::steady_clock;

}  // namespace

std::optional<std::string> collective_missing() { return std::nullopt; }

std::string collective_library() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return CP_COLLECTIVE_NAME;
  // NCCL_VERSION_CODE: X*10000 + Y*100 + Z since 2.9 (X*1000 + Y*100 + Z before).
  const int major = v >= 10000 ? v / 10000 : v / 1000;
  const int minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
  return std::string(CP_COLLECTIVE_NAME) + " " + std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(v % 100);
}

std::vector<unsigned char> collective_unique_id() {
  ncclUniqueId id;
  nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  std::vector<unsigned char> out(sizeof id.internal);
  std::memcpy(out.data(), id.internal, out.size());
  return out;
}

Communicator::Communicator(const std::vector<unsigned char>& id, int rank, int ranks, double timeout_s,
                           const volatile std::sig_atomic_t* abort_flag)
    : rank_(rank), ranks_(ranks), timeout_s_(timeout_s), abort_flag_(abort_flag) {
  ncclUniqueId uid;
  if (id.size() != sizeof uid.internal) throw CollectiveError("bad unique id size");
  std::memcpy(uid.internal, id.data(), id.size());
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // every wait is ours, bounded, and abortable
  ncclComm_t comm = nullptr;
  const ncclResult_t r = ncclCommInitRankConfig(&comm, ranks, uid, rank, &config);
  comm_ = comm;
  if (r != ncclSuccess && r != ncclInProgress) {
    if (comm) abort();
    throw CollectiveError(std::string("ncclCommInitRankConfig failed: ") + nccl_text(r));
  }
  wait("communicator initialisation (ncclCommInitRankConfig)");
}

Communicator::~Communicator() {
  raw_free(barrier_buf_);
  if (!comm_ || aborted_) return;
  auto comm = static_cast<ncclComm_t>(comm_);
  // Non-blocking finalize, bounded; abort when a peer does not take part.
  ncclResult_t st = ncclCommFinalize(comm);
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_);
  while (st == ncclInProgress && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (ncclCommGetAsyncError(comm, &st) != ncclSuccess) break;
  }
  if (st != ncclSuccess) {
    abort();
    return;
  }
  (void)ncclCommDestroy(comm);
}

void Communicator::abort() noexcept {
  if (!comm_ || aborted_) return;
  aborted_ = true;
  (void)ncclCommAbort(static_cast<ncclComm_t>(comm_));
}

void Communicator::wait(const std::string& what) {
  auto comm = static_cast<ncclComm_t>(comm_);
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    ncclResult_t st = ncclSuccess;
    const ncclResult_t q = ncclCommGetAsyncError(comm, &st);
    if (q != ncclSuccess) st = q;
    if (st != ncclSuccess && st != ncclInProgress) {
      abort();
      throw CollectiveError(what + ": " + CP_COLLECTIVE_NAME + " reports " + nccl_text(st) + "; ncclCommAbort called");
    }
    if (st == ncclSuccess) {
      const hipError_t e = hipStreamQuery(0);
      if (e == hipSuccess) return;
      if (e != hipErrorNotReady) {
        abort();
        throw CollectiveError(what + ": " + CP_GPU_VENDOR + " error " + hipGetErrorName(e) + "; ncclCommAbort called");
      }
    }
    if (abort_flag_ && *abort_flag_) {
      abort();
      throw CollectiveError(what + ": stopped by the coordinator (another rank failed); ncclCommAbort called");
    }
    if (Clock::now() > deadline) {
      abort();
      throw CollectiveError(what + ": not complete after " + std::to_string(static_cast<int>(timeout_s_)) +
                            " s (a peer rank is dead or hung); ncclCommAbort called");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

namespace {
// Holds the stream for 2e7 GPU clock cycles (about 10 ms at 2 GHz), so that the events and the
// collective queued behind it meet the device back to back (their timestamps are then device
// time only).
__global__ void spin_kernel() {
  const long long t0 = clock64();
  while (clock64() - t0 < 20000000LL) {
  }
}
}  // namespace

void Communicator::all_gather(const void* send, void* recv, std::size_t bytes_per_rank, const std::string& what,
                              double* device_ms) {
  if (aborted_) throw CollectiveError(what + ": the communicator was aborted");
  hipEvent_t ev[2] = {nullptr, nullptr};
  if (device_ms) {
    // The non-blocking communicator may enqueue the collective after ncclAllGather returns:
    // the end event is recorded once it has (async error no longer "in progress"), all of it
    // behind a spin of ~10 ms at H200/MI300 clocks so that none of it starts before.
    CP_GPU_CHECK(hipEventCreate(&ev[0]));
    CP_GPU_CHECK(hipEventCreate(&ev[1]));
    CP_LAUNCH(spin_kernel, 1, 1, 0, 0);
    CP_GPU_CHECK(hipEventRecord(ev[0], 0));
  }
  const ncclResult_t r =
      ncclAllGather(send, recv, bytes_per_rank, ncclChar, static_cast<ncclComm_t>(comm_), static_cast<hipStream_t>(0));
  if (r != ncclSuccess && r != ncclInProgress) {
    abort();
    throw CollectiveError(what + ": ncclAllGather failed: " + nccl_text(r) + "; ncclCommAbort called");
  }
  if (device_ms) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_);
    ncclResult_t st = ncclInProgress;
    while (st == ncclInProgress && Clock::now() < deadline)
      if (ncclCommGetAsyncError(static_cast<ncclComm_t>(comm_), &st) != ncclSuccess) break;
    const bool late = hipEventQuery(ev[0]) == hipSuccess;  // the spin ended before we got here
    CP_GPU_CHECK(hipEventRecord(ev[1], 0));
    wait(what);
    float ms = 0;
    CP_GPU_CHECK(hipEventElapsedTime(&ms, ev[0], ev[1]));
    *device_ms = late ? -static_cast<double>(ms) : static_cast<double>(ms);  // negative: host gap included
    (void)hipEventDestroy(ev[0]);
    (void)hipEventDestroy(ev[1]);
    return;
  }
  wait(what);
}

void Communicator::barrier(const std::string& what) {
  if (aborted_) throw CollectiveError(what + ": the communicator was aborted");
  if (!barrier_buf_) barrier_buf_ = raw_alloc(sizeof(float));
  const ncclResult_t r = ncclAllReduce(barrier_buf_, barrier_buf_, 1, ncclFloat, ncclSum,
                                       static_cast<ncclComm_t>(comm_), static_cast<hipStream_t>(0));
  if (r != ncclSuccess && r != ncclInProgress) {
    abort();
    throw CollectiveError(what + ": ncclAllReduce failed: " + nccl_text(r) + "; ncclCommAbort called");
  }
  wait(what);
}

AllGatherBandwidth measure_all_gather(Communicator& comm, std::size_t bytes_per_rank, int reps) {
  AllGatherBandwidth b;
  b.bytes_per_rank = bytes_per_rank;
  DeviceBuffer<unsigned char> send(bytes_per_rank), recv(bytes_per_rank * static_cast<std::size_t>(comm.ranks()));
  send.zero();
  comm.all_gather(send.data(), recv.data(), bytes_per_rank, "bandwidth all-gather (warm-up)");
  double best = 1e30;
  for (int k = 0; k < reps; ++k) {
    comm.barrier("bandwidth barrier");
    double ms = 0;
    comm.all_gather(send.data(), recv.data(), bytes_per_rank, "bandwidth all-gather", &ms);
    best = std::min(best, std::abs(ms));
  }
  b.ms = best;
  const double total = static_cast<double>(bytes_per_rank) * comm.ranks();
  b.algbw = total / (best * 1e-3);
  b.busbw = b.algbw * (comm.ranks() - 1) / comm.ranks();
  return b;
}

double measure_peer_copy(int src_device, int dst_device, std::size_t bytes, std::string& why, int reps) {
  int can = 0;
  CP_GPU_CHECK(hipDeviceCanAccessPeer(&can, dst_device, src_device));
  if (!can) {
    why = "device " + std::to_string(dst_device) + " cannot access device " + std::to_string(src_device) + " as a peer";
    return 0;
  }
  int prev = 0;
  CP_GPU_CHECK(hipGetDevice(&prev));
  CP_GPU_CHECK(hipSetDevice(dst_device));
  const hipError_t e = hipDeviceEnablePeerAccess(src_device, 0);
  if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) CP_GPU_CHECK(e);
  (void)hipGetLastError();
  DeviceBuffer<unsigned char> dst(bytes);
  CP_GPU_CHECK(hipSetDevice(src_device));
  DeviceBuffer<unsigned char> src(bytes);
  src.zero();
  CP_GPU_CHECK(hipMemcpyPeerAsync(dst.data(), dst_device, src.data(), src_device, bytes, 0));
  Timer t;
  double best = 1e30;
  for (int k = 0; k < reps; ++k) {
    t.start();
    CP_GPU_CHECK(hipMemcpyPeerAsync(dst.data(), dst_device, src.data(), src_device, bytes, 0));
    best = std::min(best, t.stop_ms());
  }
  CP_GPU_CHECK(hipSetDevice(prev));
  return static_cast<double>(bytes) / (best * 1e-3);
}

}  // namespace cp::gpu
