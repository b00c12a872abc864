// Demo stage "prove": the fastest meaningful subset of `chunkproof prove` — v6-current's
// structural invariants proved by the closed lemma chains (symbolic B, W, I: unbounded, a few
// seconds; both platforms) and the legacy interleave counterexample (v2-interleave/cuda, I-6)
// found and replayed. The whole table (I-3 on the split grid too) is `chunkproof prove
// --version v6-current` (docs/proving.md).
#include "tools/chunkproof/demo.h"

#ifdef CHUNKPROOF_HAVE_Z3
#include "invariants/smt/prover.h"
#endif

namespace cp::cli {
namespace stage_prove {  // one per file: the unity build puts several files in one TU
namespace {

#ifdef CHUNKPROOF_HAVE_Z3

std::vector<StageRow> run(const DemoOptions& opts) {
  std::vector<StageRow> rows;
  smt::ProveOptions po;
  po.jobs = 2;
  po.timeout_s = opts.quick ? 10 : 20;
  po.cache_dir = "";  // the demo shows the solver's own time
  po.versions = {Version::v6_current};
  po.platforms = {Platform::cuda, Platform::rocm};
  po.invariants = {InvariantId::I1_workspace_div_dcp, InvariantId::I2_nonempty_chunk_width,
                   InvariantId::I6_virtual_block_alignment, InvariantId::I7_local_row_budget};
  for (const auto& r : smt::prove(po)) {
    StageRow row;
    row.item =
        std::string(name(r.version)) + "/" + std::string(name(r.platform)) + " " + std::string(info(r.invariant).tag);
    row.expected = "PROVED";
    row.got = std::string(smt::name(r.status)) + " (" + std::to_string(r.queries) + " queries)";
    row.as_expected = r.status == smt::Status::proved;
    row.detail = r.unbounded ? "unbounded (lemma chain, no upper bound assumed)" : "domain: " + r.domain;
    if (!r.detail.empty() && r.status != smt::Status::proved) row.detail += "; " + r.detail;
    rows.push_back(std::move(row));
  }
  smt::ProveOptions ce = po;
  ce.domain = smt::Domain{};
  ce.domain.apply("prefills=2");
  ce.domain.apply("dcp=16");
  ce.versions = {Version::v2_interleave};
  ce.platforms = {Platform::cuda};
  ce.invariants = {InvariantId::I6_virtual_block_alignment};
  for (const auto& r : smt::prove(ce)) {
    StageRow row;
    row.item = "v2-interleave/cuda " + std::string(info(r.invariant).tag);
    row.expected = "COUNTEREXAMPLE (replayed)";
    row.got = std::string(smt::name(r.status));
    if (r.status == smt::Status::counterexample)
      row.got += r.encoding_disagrees ? ", ENCODING DISAGREES" : ", replayed";
    row.as_expected = r.status == smt::Status::counterexample && !r.encoding_disagrees;
    row.detail = r.case_line.empty() ? r.detail : "chunkproof plan --case '" + r.case_line + "'";
    rows.push_back(std::move(row));
  }
  return rows;
}

#else

std::vector<StageRow> run(const DemoOptions&) {
  return {
      StageRow::skipped_because("SMT proofs", "PROVED / COUNTEREXAMPLE", "built without Z3 (CHUNKPROOF_WITH_Z3=OFF)")};
}

#endif

const RegisterDemoStage reg{40, "prove", run};

}  // namespace
}  // namespace stage_prove
}  // namespace cp::cli
