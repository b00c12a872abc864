// Host-side view of the collective library (NCCL on NVIDIA, RCCL on AMD: the same API), in
// plain C++. Implemented in kernels/multi/collective.hip (the only file that includes nccl.h /
// rccl.h) or, in a build without NCCL/RCCL, by kernels/multi/collective_none.cpp, whose
// functions say why there is no collective.
//
// Every wait is bounded: a collective that does not complete within the timeout (a dead or hung
// peer rank) or that is asked to stop (abort flag, set by the SIGTERM handler of a rank
// process) aborts the communicator with ncclCommAbort and throws CollectiveError.
#pragma once

#include <csignal>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cp::gpu {

struct CollectiveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// nullopt when this build has a collective library; else the reason (built without NCCL/RCCL).
std::optional<std::string> collective_missing();
std::string collective_library();  // e.g. "NCCL 2.28.9"

// ncclGetUniqueId, as bytes (passed to the other ranks over a pipe).
std::vector<unsigned char> collective_unique_id();

class Communicator {
 public:
  // ncclCommInitRankConfig, non-blocking, with a bounded wait. NCCL_NVLS_ENABLE=0 is set by
  // the caller before (see multi_rank.cpp): NVLink multicast stays off.
  Communicator(const std::vector<unsigned char>& id, int rank, int ranks, double timeout_s,
               const volatile std::sig_atomic_t* abort_flag);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  // recv[r * bytes_per_rank ...] = rank r's send buffer, rank-major (ncclAllGather on the
  // default stream), then waits until it completed (bounded). `what` names it in errors.
  // device_ms: when given, the device time of the collective: two events around it, queued
  // behind a short spin kernel so the device meets them back to back (what the all-gather took
  // once every rank had joined). Negative when the spin ended before the end event was queued
  // (the time then includes a host gap).
  void all_gather(const void* send, void* recv, std::size_t bytes_per_rank, const std::string& what,
                  double* device_ms = nullptr);
  // Every rank reaches this point (a one-element all-reduce), bounded like the rest: it takes
  // the ranks' skew out of a timed all-gather that follows.
  void barrier(const std::string& what);
  void abort() noexcept;  // ncclCommAbort (idempotent)

 private:
  void wait(const std::string& what);
  void* comm_ = nullptr;
  void* barrier_buf_ = nullptr;
  int rank_ = 0, ranks_ = 1;
  double timeout_s_ = 60;
  const volatile std::sig_atomic_t* abort_flag_ = nullptr;
  bool aborted_ = false;
};

// Large-message all-gather bandwidth through `comm`, measured now (best of `reps`): the
// algorithm bandwidth (bytes of the whole output / time) and NCCL's bus bandwidth
// (algbw * (ranks - 1) / ranks: what each link carries).
struct AllGatherBandwidth {
  std::size_t bytes_per_rank = 0;
  double ms = 0, algbw = 0, busbw = 0;  // bytes per second
};
AllGatherBandwidth measure_all_gather(Communicator& comm, std::size_t bytes_per_rank, int reps = 10);

// Device-to-device copy between two GPUs of this host (peer access enabled when the devices
// allow it): bytes per second, best of `reps`. 0 and `why` filled when peer access is absent.
double measure_peer_copy(int src_device, int dst_device, std::size_t bytes, std::string& why, int reps = 10);

}  // namespace cp::gpu
