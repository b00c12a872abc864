#include "reference/io/export.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "reference/mla/check.h"
#include "reference/mla/inputs.h"
#include "reference/mla/math/bf16.h"
#include "reference/planner/merge_kernels.h"

namespace cp::io {

namespace {

using json = nlohmann::ordered_json;

std::vector<std::uint16_t> to_bf16(const std::vector<float>& v) {
  std::vector<std::uint16_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = mla::float_to_bf16(v[i]);  // already bf16 values: exact
  return out;
}

// The chunk's request slice as vLLM's ContextChunk: requests [request_start, request_end)
// (case indices) whose query tokens are [token_start, token_end) of the prefill tokens. Taken
// from the plan when Plan::Chunk carries them (the lead's planner rewrite), else derived from
// the entries; "slice_source" says which.
template <class C>
void slice_fields(const C& ch, const std::vector<std::int64_t>& q_of, const std::vector<std::int64_t>& token0_of,
                  json& j) {
  if constexpr (requires(const C& x) {
                  x.request_start;
                  x.request_end;
                  x.token_start;
                  x.token_end;
                }) {
    j["request_start"] = ch.request_start;
    j["request_end"] = ch.request_end;
    j["token_start"] = ch.token_start;
    j["token_end"] = ch.token_end;
    j["slice_source"] = "planner";
  } else {
    int rs = 0, re = 0;
    std::int64_t ts = 0, te = 0;
    if (!ch.entries.empty()) {
      rs = ch.entries.front().request;
      re = ch.entries.back().request + 1;
      ts = token0_of[static_cast<std::size_t>(rs)];
      te = token0_of[static_cast<std::size_t>(re - 1)] + q_of[static_cast<std::size_t>(re - 1)];
    }
    j["request_start"] = rs;
    j["request_end"] = re;
    j["token_start"] = ts;
    j["token_end"] = te;
    j["slice_source"] = "derived-from-entries";
  }
}

json chunk_record(const Chunk& ch, std::size_t index, const std::vector<std::int64_t>& q_of,
                  const std::vector<std::int64_t>& token0_of) {
  json j;
  j["index"] = index;
  slice_fields(ch, q_of, token0_of, j);
  j["is_continuation"] = ch.is_continuation;
  j["total_tokens"] = ch.total_tokens();
  j["local_tokens"] = ch.local_tokens();
  j["cu_seq_lens"] = ch.cu_seq_lens;
  j["padded_local_cu"] = ch.padded_local_cu;
  std::vector<std::int64_t> q_cu{0};
  json entries = json::array();
  for (const auto& e : ch.entries) {
    entries.push_back({{"request", e.request},
                       {"start", e.start},
                       {"len", e.len},
                       {"local_start", e.local_start},
                       {"padded_local_len", e.padded_local_len},
                       {"kept", e.kept}});
    q_cu.push_back(q_cu.back() + q_of[static_cast<std::size_t>(e.request)]);
  }
  j["entries"] = entries;
  j["q_cu"] = q_cu;  // rows of chunk.<c>.out / .lse per entry
  return j;
}

// Stable keys for readers (the descriptions may change wording).
const char* gather_key(GatherKind g) {
  switch (g) {
    case GatherKind::page_rounding: return "page_rounding";
    case GatherKind::token_major: return "token_major";
    case GatherKind::cp_gather: return "cp_gather";
  }
  return "?";
}

// The merge kernel the version shipped with for the dispatched flavour (merge_kernels.h): the
// runner emulates or loads it, compare's kernel contracts judge it.
json kernel_record(const MergeKernel& k) {
  return {{"id", std::string(k.id)},
          {"source", std::string(k.source)},
          {"inf", k.inf == InfRule::none         ? "none"
                  : k.inf == InfRule::pos_to_neg ? "pos_to_neg"
                                                 : "any_to_neg"},
          {"zero_weight_guard", k.zero_weight_guard},
          {"both_empty", k.both_empty == BothEmpty::nan           ? "nan"
                         : k.both_empty == BothEmpty::copy_prefix ? "copy_prefix"
                                                                  : "zero"},
          {"empty_partial", k.empty == EmptyPartial::merged ? "merged" : "skipped"},
          {"order", k.order == MergeOrder::context_then_suffix ? "context_then_suffix" : "suffix_first"},
          {"strides", k.strides == SuffixStrides::contiguous      ? "contiguous"
                      : k.strides == SuffixStrides::prefix_stride ? "prefix_stride"
                      : k.strides == SuffixStrides::own           ? "own"
                                                                  : "checked"},
          {"prefill_tokens_with_context", k.takes_prefill_tokens_with_context},
          {"masks_empty_context", k.masks_empty_context},
          {"note", std::string(k.note)}};
}
json merge_kernel_json(Version v, MergeFlavour f) {
  const auto choice = kernel_for(v, f);
  json j = kernel_record(*choice.kernel);
  j["fallback"] = choice.fallback;
  return j;
}

json build_manifest(const Case& c, const Plan& p, const PlanVerdict& v, const mla::CheckResult* res) {
  const auto s = mla::shape_of(c);
  json m;
  m["schema"] = "chunkproof-export";
  m["schema_version"] = kExportSchemaVersion;
  m["producer"] = {{"tool", "chunkproof export"}, {"version", "0.1.0"}};
  m["case"] = print_case(c);
  m["seed"] = c.seed;
  m["version"] = std::string(name(c.version));
  m["platform"] = std::string(name(c.platform));
  m["asserts"] = c.asserts;
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.qk()));
  m["shape"] = {{"kv_lora_rank", s.L}, {"rope_dim", s.Rr}, {"nope_dim", s.Pn}, {"v_dim", s.Vd},
                {"heads", s.N},        {"row", s.row()},   {"qk_dim", s.qk()}, {"scale", scale}};
  m["geometry"] = {{"block", c.block},
                   {"dcp", c.dcp},
                   {"interleave", c.interleave},
                   {"virtual_block", c.block * c.dcp},
                   {"workspace", p.workspace},
                   {"workspace_rows", p.workspace_rows},
                   {"packed", p.packed},
                   {"chunk_width", p.chunk_width},
                   {"gather", gather_key(p.gather)},
                   {"gather_description", std::string(name(p.gather))},
                   {"merge_flavour", std::string(name(p.merge))},
                   {"merge_kernel", merge_kernel_json(c.version, p.merge)}};
  // Requests: every case request; prefills carry their prefill token offset.
  json reqs = json::array();
  std::vector<std::int64_t> q_of(c.q.begin(), c.q.end());
  std::int64_t T = 0;
  for (std::size_t r = 0; r < c.ctx.size(); ++r) {
    const bool prefill = std::find(p.prefills.begin(), p.prefills.end(), static_cast<int>(r)) != p.prefills.end();
    json j{{"request", r}, {"ctx", c.ctx[r]}, {"q", c.q[r]}, {"prefill", prefill}};
    if (prefill) j["token0"] = nullptr;
    reqs.push_back(j);
  }
  std::vector<std::int64_t> token0_of(c.ctx.size(), 0);
  for (int r : p.prefills) {
    reqs[static_cast<std::size_t>(r)]["token0"] = T;
    token0_of[static_cast<std::size_t>(r)] = T;
    T += c.q[static_cast<std::size_t>(r)];
  }
  m["requests"] = reqs;
  m["prefills"] = p.prefills;
  m["num_decodes"] = p.num_decodes;
  m["prefill_tokens"] = T;
  m["prefill_tokens_with_context"] =
      p.prefill_tokens_with_context ? json(*p.prefill_tokens_with_context) : json(nullptr);
  json chunks = json::array();
  for (std::size_t i = 0; i < p.chunks.size(); ++i) chunks.push_back(chunk_record(p.chunks[i], i, q_of, token0_of));
  m["chunks"] = chunks;
  json kernels = json::array();  // every known merge kernel, for --merge-kernel (runner)
  for (const auto& k : merge_kernels()) kernels.push_back(kernel_record(k));
  m["merge_kernels"] = kernels;
  json asserts = json::array();
  for (const auto& a : p.asserts)
    asserts.push_back({{"stage", a.stage}, {"which", a.which}, {"detail", a.detail}, {"chunk", a.chunk}});
  json violated = json::array();
  for (const auto& tag : v.violated) violated.push_back(tag);
  m["verdict"] = {{"outcome", v.outcome},
                  {"asserts", asserts},
                  {"invariants_violated", violated},
                  {"expected", v.outcome == "ok" ? "exact" : "corrupt"}};
  if (res != nullptr) {
    m["reference"] = {{"one_line", res->one_line()},
                      {"exact_chunked_identical", res->exact.identical()},
                      {"differing_elements", res->exact.differing},
                      {"seconds", res->seconds}};
    m["files"] = {{"inputs", kInputsFile}, {"reference", kReferenceFile}};
  } else {
    m["files"] = json::object();
  }
  return m;
}

void write_json(const std::string& path, const json& j) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw IoError("cannot write " + path);
  f << j.dump(1) << "\n";
  if (!f) throw IoError("write failed: " + path);
}

// [N][qn] -> [qn][N]
std::vector<float> token_major(const std::vector<float>& lse, int N, int qn) {
  std::vector<float> out(lse.size());
  for (int h = 0; h < N; ++h)
    for (int t = 0; t < qn; ++t) out[static_cast<std::size_t>(t) * N + h] = lse[static_cast<std::size_t>(h) * qn + t];
  return out;
}

}  // namespace

nlohmann::ordered_json manifest_of(const Case& c, const PlanVerdict& v) {
  return build_manifest(c, make_plan(c), v, nullptr);
}

void write_manifest_only(const Case& c, const PlanVerdict& v, const std::string& dir, const std::string& why) {
  std::filesystem::create_directories(dir);
  json m = build_manifest(c, make_plan(c), v, nullptr);
  m["reference"] = {{"one_line", why}, {"exported", false}};
  write_json(dir + "/" + kManifestFile, m);
}

ExportSummary write_export(const Case& c, const PlanVerdict& verdict, const std::string& dir, mla::CheckOptions opts) {
  opts.keep_outputs = true;
  const mla::CheckResult res = mla::run_check(c, opts);
  return write_export_result(c, verdict, dir, res, nlohmann::ordered_json{{"source", "cpu"}});
}

ExportSummary write_export_result(const Case& c, const PlanVerdict& verdict, const std::string& dir,
                                  const mla::CheckResult& res, const nlohmann::ordered_json& source) {
  std::filesystem::create_directories(dir);
  ExportSummary sum;
  sum.dir = dir;
  if (!res.assert_fired && static_cast<int>(res.heads.size()) != res.all_heads)
    throw IoError("write_export_result: the reference covers " + std::to_string(res.heads.size()) + " of " +
                  std::to_string(res.all_heads) + " heads (an export needs every head)");
  sum.outcome = verdict.outcome;
  sum.one_line = res.one_line();
  sum.seconds = res.seconds;
  if (res.assert_fired) {
    sum.asserted = true;
    json m = build_manifest(c, res.plan, verdict, nullptr);
    m["reference"] = {{"one_line", res.one_line()}, {"exported", false}};
    for (const auto& [k, x] : source.items()) m["reference"][k] = x;
    write_json(dir + "/" + kManifestFile, m);
    return sum;
  }
  sum.exact_identical = res.exact.identical();
  sum.prefill_tokens = res.prefill_tokens;
  sum.context_rows = res.context_rows;

  const mla::Inputs in = mla::make_inputs(c);
  const auto& s = in.s;
  const std::int64_t N = s.N, Vd = s.Vd, row = s.row(), T = res.prefill_tokens;
  const Plan& p = res.plan;

  // --- inputs.safetensors
  std::vector<Tensor> ins;
  const auto pages = static_cast<std::int64_t>(in.shard[0].size()) / (in.B * row);
  std::vector<std::uint16_t> cache;
  for (const auto& sh : in.shard) cache.insert(cache.end(), sh.begin(), sh.end());
  ins.push_back(Tensor::of("kv_cache", DType::BF16, {in.W, pages, in.B, row}, cache));
  std::size_t maxvb = 1;
  for (const auto& bt : in.block_table) maxvb = std::max(maxvb, bt.size());
  std::vector<std::int32_t> bt(c.ctx.size() * maxvb, 0);  // vLLM pads unused columns with 0
  for (std::size_t r = 0; r < in.block_table.size(); ++r)
    for (std::size_t v = 0; v < in.block_table[r].size(); ++v)
      bt[r * maxvb + v] = static_cast<std::int32_t>(in.block_table[r][v]);
  ins.push_back(Tensor::of("block_table", DType::I32,
                           {static_cast<std::int64_t>(c.ctx.size()), static_cast<std::int64_t>(maxvb)}, bt));
  std::vector<std::int32_t> ctx32, qsl{0};
  for (auto x : c.ctx) ctx32.push_back(static_cast<std::int32_t>(x));
  for (int r : p.prefills) qsl.push_back(qsl.back() + static_cast<std::int32_t>(c.q[static_cast<std::size_t>(r)]));
  ins.push_back(Tensor::of("context_lens", DType::I32, {static_cast<std::int64_t>(ctx32.size())}, ctx32));
  ins.push_back(Tensor::of("query_start_loc", DType::I32, {static_cast<std::int64_t>(qsl.size())}, qsl));
  std::vector<float> q;
  std::vector<std::uint16_t> new_kv(static_cast<std::size_t>(T * row));
  std::int64_t t0 = 0;
  for (int r : p.prefills) {
    const auto& qr = in.query[static_cast<std::size_t>(r)];
    q.insert(q.end(), qr.begin(), qr.end());
    for (std::int64_t k = 0; k < c.q[static_cast<std::size_t>(r)]; ++k, ++t0)
      in.fetch(r, c.ctx[static_cast<std::size_t>(r)] + k, new_kv.data() + t0 * row);
  }
  ins.push_back(Tensor::of("q", DType::BF16, {T, N, s.qk()}, to_bf16(q)));
  ins.push_back(Tensor::of("new_kv", DType::BF16, {T, row}, new_kv));
  ins.push_back(Tensor::of("w_uk", DType::BF16, {s.L, N, s.Pn}, to_bf16(in.w_uk)));
  ins.push_back(Tensor::of("w_uv", DType::BF16, {s.L, N, Vd}, to_bf16(in.w_uv)));
  const std::map<std::string, std::string> meta{{"case", print_case(c)},
                                                {"schema_version", std::to_string(kExportSchemaVersion)}};
  write_safetensors(dir + "/" + kInputsFile, ins, meta);

  // --- reference.safetensors
  const int prod = (c.platform == Platform::cuda && Vd % 8 == 0) ? 1 : 0;
  std::vector<Tensor> ref;
  ref.push_back(Tensor::of("out", DType::F32, {T, N, Vd}, res.reference_out));
  ref.push_back(Tensor::of("lse", DType::F32, {T, N}, res.reference_lse));
  ref.push_back(Tensor::of("chunked_out", DType::F32, {T, N, Vd}, res.chunked_out));
  ref.push_back(Tensor::of("vllm_out", DType::F32, {T, N, Vd}, res.vllm_out[prod]));
  ref.push_back(Tensor::of("vllm_lse", DType::F32, {T, N}, res.vllm_lse[prod]));
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    std::vector<float> o, l;
    std::int64_t rows = 0;
    for (const auto& part : res.vllm_partials) {
      if (part.chunk != static_cast<int>(ci)) continue;
      o.insert(o.end(), part.out.begin(), part.out.end());
      const auto tm = token_major(part.lse, s.N, part.qn);
      l.insert(l.end(), tm.begin(), tm.end());
      rows += part.qn;
    }
    ref.push_back(Tensor::of("chunk." + std::to_string(ci) + ".out", DType::F32, {rows, N, Vd}, o));
    ref.push_back(Tensor::of("chunk." + std::to_string(ci) + ".lse", DType::F32, {rows, N}, l));
  }
  write_safetensors(dir + "/" + kReferenceFile, ref, meta);
  json m = build_manifest(c, res.plan, verdict, &res);
  for (const auto& [k, x] : source.items()) m["reference"][k] = x;
  write_json(dir + "/" + kManifestFile, m);
  return sum;
}

Export read_export(const std::string& dir) {
  Export e;
  e.dir = dir;
  std::ifstream f(dir + "/" + kManifestFile);
  if (!f) throw IoError("cannot read " + dir + "/" + kManifestFile + " (not an export directory)");
  try {
    e.manifest = nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& x) {
    throw IoError(dir + "/" + kManifestFile + ": " + x.what());
  }
  if (e.manifest.value("schema", "") != "chunkproof-export")
    throw IoError(dir + ": manifest schema is not chunkproof-export");
  const int v = e.manifest.value("schema_version", 0);
  if (v != kExportSchemaVersion)
    throw IoError(dir + ": manifest schema_version " + std::to_string(v) + ", this build reads " +
                  std::to_string(kExportSchemaVersion));
  if (e.manifest.contains("files") && e.manifest["files"].contains("reference"))
    e.reference = read_safetensors(dir + "/" + e.manifest["files"]["reference"].get<std::string>());
  return e;
}

RunResult read_result(const std::string& dir) {
  RunResult r;
  r.dir = dir;
  std::ifstream f(dir + "/" + kResultJson);
  if (!f) throw IoError("cannot read " + dir + "/" + kResultJson + " (not a runner result directory)");
  try {
    r.info = nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& x) {
    throw IoError(dir + "/" + kResultJson + ": " + x.what());
  }
  if (r.info.value("schema", "") != "chunkproof-result")
    throw IoError(dir + ": result.json schema is not chunkproof-result");
  r.tensors = read_safetensors(dir + "/" + kResultFile);
  return r;
}

std::vector<TokenOwner> token_owners(const nlohmann::json& m) {
  try {
    const std::int64_t T = m.at("prefill_tokens").get<std::int64_t>();
    std::vector<TokenOwner> owners(static_cast<std::size_t>(std::max<std::int64_t>(T, 0)));
    for (const auto& r : m.at("prefills")) {
      const auto& req = m.at("requests").at(r.get<std::size_t>());
      const std::int64_t t0 = req.at("token0").get<std::int64_t>(), q = req.at("q").get<std::int64_t>();
      for (std::int64_t k = 0; k < q; ++k) {
        if (t0 + k < 0 || t0 + k >= T || owners[static_cast<std::size_t>(t0 + k)].request >= 0)
          throw IoError("manifest: request " + std::to_string(r.get<int>()) + "'s tokens overlap or leave 0.." +
                        std::to_string(T - 1));
        owners[static_cast<std::size_t>(t0 + k)] = {r.get<int>(), k};
      }
    }
    for (const auto& o : owners)
      if (o.request < 0) throw IoError("manifest: the prefills' tokens do not cover prefill_tokens");
    return owners;
  } catch (const nlohmann::json::exception& x) {
    throw IoError(std::string("manifest: ") + x.what());
  }
}

std::string RunResult::label() const {
  return info.value("kernel_set", "?") + " " + info.value("mode", "?") + " " + info.value("version", "?") +
         " dcp=" + std::to_string(info.value("dcp", 0));
}

}  // namespace cp::io
