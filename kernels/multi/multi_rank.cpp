// Multi-GPU DCP: the coordinator (see multi_rank.h for the model): which cases run, the start of
// the rank group (rank_group.h), the comparison, check and bench. The wire format is wire.h's.
#include "kernels/multi/multi_rank.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>

#include "kernels/collective.h"
#include "kernels/harness/bit_diff.h"
#include "kernels/harness/pipeline.h"
#include "kernels/multi/rank_group.h"
#include "kernels/multi/wire.h"
#include "reference/mla/check.h"
#include "reference/mla/inputs.h"
#include "reference/mla/math/all.h"

namespace cp::gpu::multi {

namespace {

// Which cases run, decided identically by the coordinator and every rank.
bool plan_runs(const Case& c, Plan& plan) {
  plan = make_plan(c);  // the plan run_check's evaluate() builds
  return !((c.asserts && !plan.asserts.empty()) || !plan.built);
}

// Common start: library present, enough GPUs, the group up with its unique id forwarded.
// Returns the exit code to stop with, or nullopt to go on.
std::optional<int> preflight(const RankOptions& o, const char* what, std::ostream& err) {
  if (o.ranks < 1) {
    err << "chunkproof " << what << " --ranks: need at least 1 rank\n";
    return kExitBadInput;
  }
  if (const auto m = collective_missing()) {
    err << "chunkproof " << what << " --device gpu --ranks " << o.ranks << ": cannot run here: " << *m << "\n";
    return kExitCannotRunHere;
  }
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);  // before any rank initialises NCCL (inherited)
  std::string why;
  const int n = count_devices(why);
  if (n < o.ranks) {
    err << "chunkproof " << what << " --device gpu --ranks " << o.ranks << ": cannot run here: " << o.ranks
        << " ranks need " << o.ranks << " GPUs (one rank per GPU), this machine has " << n
        << (why.empty() ? "" : " (" + why + ")") << "\n";
    return kExitCannotRunHere;
  }
  return std::nullopt;
}

std::optional<std::string> start_group(Group& g, std::ostream& out) {
  if (auto f = g.wait([](const std::vector<Inbox>& b) { return !b[0].unique_id.empty(); },
                      [](const Inbox& b) { return b.hello; }, "while starting"))
    return f;
  const std::string id =
      g.with([](std::vector<Inbox>& b) { return std::string(b[0].unique_id.begin(), b[0].unique_id.end()); });
  for (int r = 1; r < g.ranks(); ++r) g.send_to(r, Msg::unique_id, id);
  out << "ranks: " << g.ranks() << " processes, one per GPU (";
  for (int r = 0; r < g.ranks(); ++r) out << (r ? ", " : "") << "rank " << r << ": pid " << g.pid(r) << " GPU " << r;
  out << "); " << collective_library() << ", NCCL_NVLS_ENABLE=0" << std::endl;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Comparison (coordinator).

// The first step whose digest differs between rank r and the emulation (steps after the
// all-gather are recorded once by the emulation, rank -1; gathers per rank).
std::string localize(const std::vector<StageDigest>& emu, const std::vector<StageDigest>& mine, int r) {
  std::vector<StageDigest> want;
  for (const auto& d : emu)
    if (d.rank == -1 || d.rank == r) want.push_back(d);
  const std::size_t n = std::min(want.size(), mine.size());
  for (std::size_t i = 0; i < n; ++i) {
    const StageDigest &a = want[i], &b = mine[i];
    if (a.pass != b.pass || a.chunk != b.chunk || a.step != b.step) return "step sequences differ (structure)";
    if (a.hash == b.hash) continue;
    std::ostringstream os;
    os << "first differing step: " << step_name(a.step) << " of ";
    if (a.chunk >= 0)
      os << "chunk " << a.chunk;
    else if (a.chunk == -1)
      os << "the causal suffix";
    else
      os << "request work " << (-2 - a.chunk);
    os << ", pass " << a.pass << ", rank " << r;
    return os.str();
  }
  if (want.size() != mine.size()) return "step counts differ";
  return "every step digest equal: the difference is in the final copy-out";
}

struct Verdict {
  bool agree = true;
  std::string line;
};

Verdict compare_case(const Case& c, const mla::CheckResult& cpu, const PipelineResult& emu,
                     const PipelineResult& unchunked, const std::vector<PipelineResult>& rank) {
  Verdict v;
  std::ostringstream os;
  const mla::Shape s = mla::shape_of(c);
  const std::int64_t N = s.N, Vd = s.Vd;
  struct Out {
    const char* name;
    const std::vector<float>* (*get)(const PipelineResult&);
    std::int64_t vd;
  };
  const Out outs[] = {
      {"exact", [](const PipelineResult& p) { return &p.exact; }, Vd},
      {"vllm triton out", [](const PipelineResult& p) { return &p.vllm[0]; }, Vd},
      {"vllm cuda out", [](const PipelineResult& p) { return &p.vllm[1]; }, Vd},
      {"vllm triton lse", [](const PipelineResult& p) { return &p.vllm_lse[0]; }, 1},
      {"vllm cuda lse", [](const PipelineResult& p) { return &p.vllm_lse[1]; }, 1},
  };
  // (1) every rank vs the single-GPU emulation.
  std::int64_t per_rank = 0;
  for (std::size_t r = 0; r < rank.size(); ++r) {
    bool same = rank[r].overflow == emu.overflow;
    std::string detail;
    for (const Out& o : outs) {
      const BitDiff d = bit_diff(*o.get(rank[r]), *o.get(emu));
      if (r == 0) per_rank += d.elements;
      if (d.differing == 0 && !d.size_mismatch) continue;
      same = false;
      detail += "; " + describe(o.name, d, N, o.vd);
    }
    if (!same) {
      v.agree = false;
      os << "rank " << r << " DIFFERS from the single-GPU emulation ("
         << localize(emu.digests, rank[r].digests, static_cast<int>(r)) << ")" << detail << "; ";
    }
  }
  if (v.agree)
    os << "every rank == single-GPU emulation (" << rank.size() << " x " << per_rank << " elements, "
       << emu.digests.size() << " step digests); ";
  // (2) the emulation vs the CPU, as `check --device gpu` compares them.
  const std::int64_t diff = count_nonequal(unchunked.exact, emu.exact);
  const auto& ex = cpu.exact;
  bool cpu_ok = ex.differing == diff && ex.overflow == (emu.overflow || unchunked.overflow);
  os << "chunked vs unchunked: " << diff << " differ (CPU: " << ex.differing << (ex.overflow ? ", overflow" : "")
     << ")";
  struct Pair {
    const char* name;
    const std::vector<float>* gpu;
    const std::vector<float>* cpu;
    std::int64_t vd;
  };
  const Pair pairs[] = {
      {"reference", &unchunked.exact, &cpu.reference_out, Vd},
      {"chunked", &emu.exact, &cpu.chunked_out, Vd},
      {"vllm triton out", &emu.vllm[0], &cpu.vllm_out[0], Vd},
      {"vllm cuda out", &emu.vllm[1], &cpu.vllm_out[1], Vd},
      {"vllm triton lse", &emu.vllm_lse[0], &cpu.vllm_lse[0], 1},
      {"vllm cuda lse", &emu.vllm_lse[1], &cpu.vllm_lse[1], 1},
  };
  std::int64_t compared = 0;
  for (const Pair& p : pairs) {
    const BitDiff d = bit_diff(*p.gpu, *p.cpu);
    compared += d.elements;
    if (d.differing == 0 && !d.size_mismatch) continue;
    cpu_ok = false;
    os << "; emulation vs CPU " << describe(p.name, d, N, p.vd);
  }
  if (cpu_ok) os << "; emulation == CPU (" << compared << " elements)";
  v.agree = v.agree && cpu_ok;
  v.line = os.str();
  return v;
}

std::string failure_footer(const char* what, Clock::time_point t0) {
  char b[160];
  std::snprintf(b, sizeof b, "chunkproof %s --ranks: run stopped %.1f s after the start; exit 3 (inconclusive)\n", what,
                std::chrono::duration<double>(Clock::now() - t0).count());
  return b;
}

}  // namespace

Case random_case_for_ranks(std::uint64_t seed, std::uint64_t index, int ranks) {
  for (std::uint64_t j = 0;; ++j) {
    Case c =
        mla::random_case(Version::v6_current, index % 2 ? Platform::rocm : Platform::cuda, seed, (index << 12) + j);
    if (c.dcp == ranks) return c;
    if (ranks > 8 && c.dcp == 8) {  // random_case draws dcp 1..8: scale the DCP group up
      c.dcp = ranks;
      const std::int64_t align = std::lcm(c.block, c.interleave * c.dcp);
      if (c.workspace)
        c.workspace = align * std::max<std::int64_t>(1, *c.workspace / std::lcm(c.block, c.interleave * 8));
      validate_case(c);
      return c;
    }
  }
}

int check_ranks(const std::vector<Case>& cases, const RankOptions& o, std::ostream& out, std::ostream& err) {
  if (auto code = preflight(o, "check", err)) return *code;
  const auto t0 = Clock::now();
  const int W = o.ranks;
  // Every rank walks the same case list; one rank in turn also runs the single-GPU emulation.
  const RankJob job = [&cases, W](Communicator& comm, const Emit& emit) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      Plan plan;
      if (c.dcp != W || !plan_runs(c, plan)) continue;
      const mla::Inputs in = mla::make_inputs(c);
      PipelineOptions po;
      po.digests = true;
      po.comm = &comm;
      Writer w;
      encode(w, run_pipeline(c, plan, in, po));
      emit(Msg::result, static_cast<std::uint32_t>(i), w.b);
      if (static_cast<int>(i % static_cast<std::size_t>(W)) == comm.rank()) {
        po.comm = nullptr;
        Writer e;
        encode(e, run_pipeline(c, plan, in, po));
        PipelineOptions pu;
        pu.chunked = false;
        pu.vllm = false;
        encode(e, run_pipeline(c, plan, in, pu));
        emit(Msg::emulation, static_cast<std::uint32_t>(i), e.b);
      }
    }
  };
  Group g(W, o.timeout_s, job);
  if (auto f = start_group(g, out)) {
    err << "chunkproof check --ranks: " << *f << "\n";
    g.stop_all(&err);
    err << failure_footer("check", t0);
    return kExitRankFailed;
  }
  int bad = 0, ran = 0, identical = 0, differing = 0, asserts = 0, skipped = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string line = print_case(c);
    if (c.dcp != W) {
      ++skipped;
      if (!o.quiet) out << "n/a  dcp=" << c.dcp << " (this run has " << W << " ranks)\n     case: " << line << "\n";
      continue;
    }
    mla::CheckOptions co;
    co.keep_outputs = true;
    const mla::CheckResult cpu = mla::run_check(c, co);
    if (cpu.assert_fired) {
      ++asserts;
      if (!o.quiet)
        out << "ok   assert fired on the CPU plan (nothing to run): " << cpu.assert_text << "\n     case: " << line
            << "\n";
      continue;
    }
    const auto k = static_cast<std::uint32_t>(i);
    const int emu_rank = static_cast<int>(i % static_cast<std::size_t>(W));
    auto failure = g.wait(
        [k, emu_rank](const std::vector<Inbox>& b) {
          for (const Inbox& x : b)
            if (!x.result.count(k)) return false;
          return b[static_cast<std::size_t>(emu_rank)].emulation.count(k) > 0;
        },
        [k](const Inbox& b) { return b.result.count(k) > 0; }, "during case " + std::to_string(i));
    if (failure) {
      err << "chunkproof check --ranks: " << *failure << "\n     case " << i << ": " << line
          << "\n  stopping the other ranks (SIGTERM: each aborts its communicator with ncclCommAbort)\n";
      g.stop_all(&err);
      err << "  " << ran << " cases compared before the failure, " << bad << " disagreements\n";
      err << failure_footer("check", t0);
      return kExitRankFailed;
    }
    std::vector<PipelineResult> rank;
    PipelineResult emu, unchunked;
    g.with([&](std::vector<Inbox>& b) {
      for (auto& x : b) {
        Reader rd{x.result.at(k)};
        rank.push_back(decode(rd));
        x.result.erase(k);
      }
      Reader rd{b[static_cast<std::size_t>(emu_rank)].emulation.at(k)};
      emu = decode(rd);
      unchunked = decode(rd);
      b[static_cast<std::size_t>(emu_rank)].emulation.erase(k);
      return 0;
    });
    const Verdict v = compare_case(c, cpu, emu, unchunked, rank);
    ++ran;
    if (!v.agree) ++bad;
    if (cpu.exact.differing == 0)
      ++identical;
    else
      ++differing;
    if (!v.agree || !o.quiet || cases.size() == 1)
      out << (v.agree ? "ok   " : "FAIL ") << v.line << "\n     case: " << line << "\n";
  }
  const bool clean = g.finish();
  out << "multi-GPU check (" << W << " ranks): " << cases.size() << " cases, " << ran << " ran on " << W << " GPUs ("
      << identical << " chunked == unchunked, " << differing << " differ as on the CPU), " << asserts << " assert, "
      << skipped << " not applicable (dcp != " << W << "), " << bad << " disagreements\n";
  if (!clean) {
    err << "chunkproof check --ranks: a rank did not exit cleanly after the last case\n";
    return kExitRankFailed;
  }
  return bad ? kExitDisagree : kExitAgree;
}

int bench_ranks(const Case& c, int reps, int warmup, const RankOptions& o, std::ostream& out, std::ostream& err) {
  if (c.dcp != o.ranks) {
    err << "chunkproof bench --ranks " << o.ranks << ": the case has dcp=" << c.dcp << " (they must be equal)\n";
    return kExitBadInput;
  }
  Plan plan;
  if (!plan_runs(c, plan)) {
    err << "chunkproof bench --ranks: the case does not plan (assert fired)\n";
    return kExitBadInput;
  }
  if (auto code = preflight(o, "bench", err)) return *code;
  const auto t0 = Clock::now();
  const int W = o.ranks;
  constexpr std::size_t kBwBytes = std::size_t{256} << 20;  // per rank
  const RankJob job = [&c, &plan, reps, warmup, W](Communicator& comm, const Emit& emit) {
    Writer w;
    const AllGatherBandwidth bw = measure_all_gather(comm, kBwBytes);
    w.f64(bw.ms);
    w.f64(bw.algbw);
    w.f64(bw.busbw);
    std::string why;
    const double peer = W > 1 ? measure_peer_copy(comm.rank(), (comm.rank() + 1) % W, kBwBytes, why) : 0.0;
    w.f64(peer);
    w.str(why);
    const mla::Inputs in = mla::make_inputs(c);
    for (int p = 0; p < 2; ++p) {
      PipelineOptions po;
      po.exact = p == 0;
      po.vllm = p == 1;
      po.poison = false;
      po.time_stages = true;
      po.comm = &comm;
      w.u64(static_cast<std::uint64_t>(reps));
      for (int k = 0; k < warmup + reps; ++k) {
        PipelineResult r = run_pipeline(c, plan, in, po);
        r.exact.clear();  // the timings are what the coordinator needs
        for (int f = 0; f < 2; ++f) {
          r.vllm[f].clear();
          r.vllm_lse[f].clear();
        }
        if (k >= warmup) encode(w, r);
      }
    }
    emit(Msg::bench, 0, w.b);
  };
  Group g(W, o.timeout_s, job);
  if (auto f = start_group(g, out)) {
    err << "chunkproof bench --ranks: " << *f << "\n";
    g.stop_all(&err);
    err << failure_footer("bench", t0);
    return kExitRankFailed;
  }
  auto failure = g.wait(
      [](const std::vector<Inbox>& b) {
        for (const Inbox& x : b)
          if (!x.bench.count(0)) return false;
        return true;
      },
      [](const Inbox& b) { return b.bench.count(0) > 0; }, "during the benchmark");
  if (failure) {
    err << "chunkproof bench --ranks: " << *failure << "\n  stopping the other ranks\n";
    g.stop_all(&err);
    err << failure_footer("bench", t0);
    return kExitRankFailed;
  }
  g.finish();
  out << "case: " << print_case(c) << "\nchunks: " << plan.chunks.size() << "; warm-up runs: " << warmup
      << ", timed runs: " << reps << " per path, on every rank\n";
  const char* stages[] = {"gather",       "rank skew (barrier)", "all-gather",       "reorg",        "up-project K",
                          "up-project V", "scores + max",        "exact accumulate", "vllm partial", "merge",
                          "normalize"};
  char buf[512];
  for (int r = 0; r < W; ++r) {
    const std::string payload =
        g.with([r](std::vector<Inbox>& b) { return b[static_cast<std::size_t>(r)].bench.at(0); });
    Reader rd{payload};
    const double bw_ms = rd.f64(), algbw = rd.f64(), busbw = rd.f64(), peer = rd.f64();
    const std::string why = rd.str();
    std::snprintf(buf, sizeof buf,
                  "\nrank %d: all-gather of %zu MiB per rank through the library: %.3f ms, algbw %.1f GB/s, busbw "
                  "%.1f GB/s; peer copy GPU %d -> GPU %d: %s\n",
                  r, kBwBytes >> 20, bw_ms, algbw * 1e-9, busbw * 1e-9, r, (r + 1) % W,
                  peer > 0 ? (std::to_string(static_cast<int>(peer * 1e-9)) + " GB/s").c_str() : why.c_str());
    out << buf;
    std::vector<PipelineResult> runs[2];
    for (int p = 0; p < 2; ++p)
      for (auto n = rd.u64(); n > 0; --n) runs[p].push_back(decode(rd));
    auto median = [](std::vector<double> v) {
      if (v.empty()) return 0.0;
      std::sort(v.begin(), v.end());
      return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    };
    out << "| stage | exact ms (median [min..max]) | vLLM-style ms |\n|---|---:|---:|\n";
    auto cell = [&](int p, const std::string& stage) {
      std::vector<double> v;
      for (const auto& x : runs[p])
        if (x.stage_ms.count(stage)) v.push_back(x.stage_ms.at(stage));
      if (stage == "total")
        for (const auto& x : runs[p]) v.push_back(x.total_ms);
      if (v.empty()) return std::string("–");
      std::snprintf(buf, sizeof buf, "%.2f [%.2f..%.2f]", median(v), *std::min_element(v.begin(), v.end()),
                    *std::max_element(v.begin(), v.end()));
      return std::string(buf);
    };
    for (const char* st : stages) {
      const std::string e = cell(0, st), v = cell(1, st);
      if (e == "–" && v == "–") continue;
      out << "| " << st << " | " << e << " | " << v << " |\n";
    }
    out << "| **total** | " << cell(0, "total") << " | " << cell(1, "total") << " |\n";
    // Every all-gather of the last timed run of the exact path (both passes), against busbw.
    if (!runs[0].empty()) {
      const auto& ag = runs[0].back().all_gathers;
      double bytes = 0, ms = 0;
      out << "all-gathers (last timed exact run): pass, chunk, bytes per rank, received by each rank, ms, busbw, "
             "fraction of the measured busbw\n";
      for (const auto& a : ag) {
        const double recv = static_cast<double>(a.bytes_per_rank) * (W - 1);
        const double t = std::abs(a.ms);
        const double bw = t > 0 ? recv / (t * 1e-3) : 0;
        bytes += recv;
        ms += t;
        std::snprintf(buf, sizeof buf, "  pass %d chunk %d: %lld B, %.0f B, %.3f ms%s, %.1f GB/s, %.3f\n", a.pass,
                      a.chunk, static_cast<long long>(a.bytes_per_rank), recv, t,
                      a.ms < 0 ? " (includes a host gap)" : "", bw * 1e-9, bw / busbw);
        out << buf;
      }
      if (ms > 0) {
        std::snprintf(buf, sizeof buf,
                      "  all chunks: %.0f B received in %.3f ms: %.1f GB/s = %.3f of the measured busbw\n", bytes, ms,
                      bytes / (ms * 1e-3) * 1e-9, bytes / (ms * 1e-3) / busbw);
        out << buf;
      }
    }
  }
  return 0;
}

}  // namespace cp::gpu::multi
