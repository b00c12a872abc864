// The collective layer of a build without NCCL/RCCL (CHUNKPROOF_WITH_NCCL=OFF, or the library
// was not found): every entry says so; `--ranks` then exits with "cannot run here".
#include "kernels/collective.h"

namespace cp::gpu {

namespace {
[[noreturn]] void missing() { throw CollectiveError(*collective_missing()); }
}  // namespace

std::optional<std::string> collective_missing() {
  return std::string(
      "this chunkproof was built without a collective library (NCCL/RCCL): reconfigure with "
      "CHUNKPROOF_WITH_NCCL=ON where nccl.h (NVIDIA) or rccl/rccl.h (ROCm) is installed");
}
std::string collective_library() { return "none"; }
std::vector<unsigned char> collective_unique_id() { missing(); }

Communicator::Communicator(const std::vector<unsigned char>&, int, int, double, const volatile std::sig_atomic_t*) {
  missing();
}
Communicator::~Communicator() = default;
void Communicator::abort() noexcept {}
void Communicator::wait(const std::string&) {
  // (the members exist for the real layer; clang's -Wunused-private-field wants them read here)
  if (comm_ || barrier_buf_ || abort_flag_ || aborted_ || timeout_s_ < 0) missing();
  missing();
}
void Communicator::all_gather(const void*, void*, std::size_t, const std::string&, double*) { missing(); }
void Communicator::barrier(const std::string&) { missing(); }
AllGatherBandwidth measure_all_gather(Communicator&, std::size_t, int) { missing(); }
double measure_peer_copy(int, int, std::size_t, std::string& why, int) {
  why = *collective_missing();
  return 0;
}

}  // namespace cp::gpu
