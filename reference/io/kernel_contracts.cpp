#include "reference/io/kernel_contracts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <sstream>

namespace cp::io {

namespace {

using J = nlohmann::json;
using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;  // prefill-token ranges [a, b)
using Verdict = ContractVerdict;

ContractResult verdict(Verdict v, std::string detail) { return {"", "", v, std::move(detail)}; }
ContractResult not_exercised(std::string why) { return verdict(Verdict::not_exercised, std::move(why)); }

struct Prefill {
  int request = 0;
  std::int64_t token0 = 0, q = 0, ctx = 0;
};
std::vector<Prefill> prefills(const J& m) {
  std::vector<Prefill> out;
  for (const auto& r : m.at("prefills")) {
    const auto& req = m.at("requests").at(r.get<std::size_t>());
    out.push_back({r.get<int>(), req.at("token0").get<std::int64_t>(), req.at("q").get<std::int64_t>(),
                   req.at("ctx").get<std::int64_t>()});
  }
  return out;
}
std::optional<std::int64_t> ptwc(const J& m) {
  const auto it = m.find("prefill_tokens_with_context");
  if (it == m.end() || it->is_null()) return std::nullopt;
  return it->get<std::int64_t>();
}
bool chunked(const ContractInput& in) { return in.result.info.value("mode", "") == "chunked"; }
J boundary(const ContractInput& in) { return in.result.info.value("boundary", J::object()); }
std::string kernel_of(const ContractInput& in) {
  const auto mk = in.result.info.value("merge_kernel", J::object());
  if (mk.is_object() && mk.contains("id") && mk.at("id").is_string()) return mk.at("id").get<std::string>();
  return in.manifest.at("geometry").value("merge_kernel", J::object()).value("id", "?");
}
// The record of the kernel that ran (the result's id among the export's merge_kernels; else the
// export's own geometry.merge_kernel).
J record_of(const ContractInput& in) {
  const std::string id = kernel_of(in);
  for (const auto& k : in.manifest.value("merge_kernels", J::array()))
    if (k.value("id", "") == id) return k;
  return in.manifest.at("geometry").value("merge_kernel", J::object());
}
std::string ints(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}
std::string sci(double x) {
  std::ostringstream os;
  os.precision(3);
  os << x;
  return os.str();
}

// The result on some tokens against the exact reference, judged by the bound.
ContractResult judge_tokens(const ContractInput& in, const Ranges& tokens, const std::string& what) {
  const auto row = static_cast<std::size_t>(in.heads) * static_cast<std::size_t>(in.v_dim);
  const auto heads = static_cast<std::size_t>(in.heads);
  std::vector<float> go, wo, gl, wl;
  for (const auto& [a, b] : tokens) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    go.insert(go.end(), in.out.begin() + static_cast<std::ptrdiff_t>(ua * row),
              in.out.begin() + static_cast<std::ptrdiff_t>(ub * row));
    wo.insert(wo.end(), in.want_out.begin() + static_cast<std::ptrdiff_t>(ua * row),
              in.want_out.begin() + static_cast<std::ptrdiff_t>(ub * row));
    gl.insert(gl.end(), in.lse.begin() + static_cast<std::ptrdiff_t>(ua * heads),
              in.lse.begin() + static_cast<std::ptrdiff_t>(ub * heads));
    wl.insert(wl.end(), in.want_lse.begin() + static_cast<std::ptrdiff_t>(ua * heads),
              in.want_lse.begin() + static_cast<std::ptrdiff_t>(ub * heads));
  }
  const auto o = compare_out(go, wo, in.heads, in.v_dim);
  const auto l = compare_lse(gl, wl, in.heads);
  if (within(o, l, in.bound))
    return verdict(Verdict::holds, what + ": max rel " + sci(o.max_rel) + ", LSE max abs " + sci(l.max_abs));
  return verdict(Verdict::violated, what + ": " + why_not_within(o, l, in.bound));
}

Ranges tokens_of(const std::vector<Prefill>& ps, const std::vector<int>& requests) {
  Ranges r;
  for (const auto& p : ps)
    for (int q : requests)
      if (p.request == q) r.emplace_back(p.token0, p.token0 + p.q);
  return r;
}

// A chunk partial of one entry (rows q_cu[b]..q_cu[b+1] of chunk.<c>) against the CPU's partial
// over the same workspace rows. nullopt when either side lacks the tensors.
std::optional<bool> partial_within(const ContractInput& in, std::size_t c, std::size_t b, std::string& why) {
  const std::string on = "chunk." + std::to_string(c) + ".out", ln = "chunk." + std::to_string(c) + ".lse";
  if (!in.result.tensors.has(on) || !in.partials.has(on)) return std::nullopt;
  const auto& qcu = in.manifest.at("chunks").at(c).at("q_cu");
  const auto r0 = qcu.at(b).get<std::size_t>(), r1 = qcu.at(b + 1).get<std::size_t>();
  const auto row = static_cast<std::size_t>(in.heads) * static_cast<std::size_t>(in.v_dim);
  const auto heads = static_cast<std::size_t>(in.heads);
  const auto cut = [](const std::vector<float>& v, std::size_t a, std::size_t e) {
    return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(a), v.begin() + static_cast<std::ptrdiff_t>(e));
  };
  const auto go = in.result.tensors.at(on).to_f32(), wo = in.partials.at(on).to_f32();
  const auto gl = in.result.tensors.at(ln).to_f32(), wl = in.partials.at(ln).to_f32();
  if (go.size() != wo.size() || gl.size() != wl.size() || r1 * row > go.size()) {
    why = on + " holds " + std::to_string(go.size()) + " values, the export's " + std::to_string(wo.size());
    return false;
  }
  const auto o = compare_out(cut(go, r0 * row, r1 * row), cut(wo, r0 * row, r1 * row), in.heads, in.v_dim);
  const auto l = compare_lse(cut(gl, r0 * heads, r1 * heads), cut(wl, r0 * heads, r1 * heads), in.heads);
  if (within(o, l, in.bound)) return true;
  why = "chunk " + std::to_string(c) + " entry " + std::to_string(b) + ": " + why_not_within(o, l, in.bound);
  return false;
}

// Requests of chunk entries that satisfy pred(chunk, entry index, entry).
template <class Pred>
std::vector<int> requests_where(const J& m, Pred pred) {
  std::vector<int> out;
  const auto& chunks = m.at("chunks");
  for (std::size_t c = 0; c < chunks.size(); ++c)
    for (std::size_t b = 0; b < chunks[c].at("entries").size(); ++b) {
      const auto& e = chunks[c]["entries"][b];
      const int r = e.at("request").get<int>();
      if (pred(c, b, e) && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
  return out;
}

std::string empty_rows_lse(const ContractInput& in) {
  const auto b = boundary(in);
  const std::string inj = b.value("empty_lse", "kernel");
  if (inj != "kernel") return "LSE " + inj + " (injected)";
  const auto probe = b.value("empty_probe", J());
  if (probe.is_object() && probe.contains("raised"))
    return "the kernel raised on zero keys (" + probe.value("raised", "") + "); the runner gave (0, -inf)";
  if (probe.is_object() && probe.contains("lse")) return "the kernel's LSE " + probe.value("lse", "?");
  return "the kernel's LSE";
}

// --- the contracts

ContractResult k1_empty_context_rows(const ContractInput& in) {
  if (!chunked(in)) return not_exercised("an unchunked run merges no context partials");
  const auto ps = prefills(in.manifest);
  const auto cut = ptwc(in.manifest);
  std::vector<int> reqs;
  for (const auto& p : ps)
    if (p.ctx == 0 && (!cut || p.token0 < *cut)) reqs.push_back(p.request);
  const auto zero = requests_where(in.manifest, [](std::size_t, std::size_t, const J& e) { return e.at("len") == 0; });
  for (int r : zero)
    if (std::find(reqs.begin(), reqs.end(), r) == reqs.end()) reqs.push_back(r);
  if (reqs.empty())
    return not_exercised(
        "no empty context rows reach a merge (no ctx=0 request before "
        "prefill_tokens_with_context, no zero-length span)");
  return judge_tokens(in, tokens_of(ps, reqs),
                      "request(s) " + ints(reqs) + " with empty context rows, " + empty_rows_lse(in) +
                          ", merge kernel " + kernel_of(in));
}

ContractResult k2_zero_length_chunk(const ContractInput& in) {
  if (!chunked(in)) return not_exercised("unchunked run");
  const auto ps = prefills(in.manifest);
  std::vector<int> reqs;
  for (int r : requests_where(in.manifest, [](std::size_t, std::size_t, const J& e) { return e.at("len") == 0; }))
    for (const auto& p : ps)
      if (p.request == r && p.ctx > 0) reqs.push_back(r);
  if (reqs.empty()) return not_exercised("no request with context has a zero-length span in a chunk");
  return judge_tokens(in, tokens_of(ps, reqs),
                      "request(s) " + ints(reqs) + " with context and a zero-length KV chunk, " + empty_rows_lse(in));
}

// Chunk 0's LSE against the CPU's natural-log partial: base e, or base 2 (LSE * log2 e)?
ContractResult k3_lse_base(const ContractInput& in) {
  const auto conv = in.result.info.value("lse_convention", J::object());
  const std::string ab = conv.value("attention_base", "e"), mb = conv.value("merge_base", "e");
  if (!chunked(in) || !in.result.tensors.has("chunk.0.lse") || !in.partials.has("chunk.0.lse"))
    return ab == mb ? not_exercised("no chunk-0 partial (unchunked run); declared bases agree (" + ab + ")")
                    : verdict(Verdict::violated, "declared: attention LSE base " + ab + ", merge base " + mb);
  const auto got = in.result.tensors.at("chunk.0.lse").to_f32(), want = in.partials.at("chunk.0.lse").to_f32();
  double err_e = 0, err_2 = 0;
  std::int64_t n = 0;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i)
    if (std::isfinite(got[i]) && std::isfinite(want[i])) {
      err_e = std::max(err_e, std::fabs(double(got[i]) - want[i]));
      err_2 = std::max(err_2, std::fabs(double(got[i]) - want[i] * 1.4426950408889634));
      ++n;
    }
  const std::string meas = "chunk 0: max |lse - ln-LSE| " + sci(err_e) + ", max |lse - log2(e) ln-LSE| " + sci(err_2) +
                           " over " + std::to_string(n) + " finite values";
  if (ab != mb) return verdict(Verdict::violated, "a base-" + ab + " attention into a base-" + mb + " merge; " + meas);
  if (n && err_2 < err_e && err_e > in.bound.lse_abs)
    return verdict(Verdict::violated, "chunk 0's LSE is base 2 but declared base " + ab + "; " + meas);
  if (n == 0) return not_exercised("chunk 0 has no finite LSE");
  return verdict(err_e <= in.bound.lse_abs ? Verdict::holds : Verdict::violated, "natural log; " + meas);
}

ContractResult k4_merge_strides(const ContractInput& in) {
  const auto pairs = boundary(in).value("merge_stride_pairs", J::array());
  std::string seen;
  bool mismatch = false;
  for (const auto& p : pairs) {
    seen += (seen.empty() ? "" : ", ") + p.dump();
    mismatch = mismatch || p.at(0) != p.at(1);
  }
  if (!mismatch)
    return not_exercised("every merge got equal prefix/suffix head strides" + (seen.empty() ? "" : " (" + seen + ")") +
                         "; runner --v-layout padded-view hands padded-V views");
  const auto ps = prefills(in.manifest);
  std::vector<int> reqs;
  for (const auto& p : ps)
    if (p.ctx > 0) reqs.push_back(p.request);
  return judge_tokens(in, tokens_of(ps, reqs),
                      "merges got (prefix, suffix) head strides " + seen + "; merge kernel " + kernel_of(in) +
                          ", requests with context " + ints(reqs));
}

ContractResult k5_zero_row_ranks(const ContractInput& in) {
  if (!chunked(in)) return not_exercised("unchunked run");
  if (in.manifest.at("geometry").value("dcp", 1) <= 1) return not_exercised("dcp=1: one rank owns every row");
  const auto reqs = requests_where(in.manifest, [](std::size_t, std::size_t, const J& e) {
    if (e.at("len") == 0) return false;
    for (const auto& k : e.at("kept"))
      if (k == 0) return true;
    return false;
  });
  if (reqs.empty()) return not_exercised("every rank keeps rows of every non-empty span");
  return judge_tokens(in, tokens_of(prefills(in.manifest), reqs),
                      "request(s) " + ints(reqs) + " with spans some rank owns no row of");
}

// Entries of chunks matching pred: every chunk partial within bound, then the requests' outputs.
template <class Pred>
ContractResult judge_partials_then_tokens(const ContractInput& in, Pred pred, const std::string& what) {
  const auto& chunks = in.manifest.at("chunks");
  std::vector<int> reqs;
  for (std::size_t c = 0; c < chunks.size(); ++c)
    for (std::size_t b = 0; b < chunks[c].at("entries").size(); ++b) {
      const auto& e = chunks[c]["entries"][b];
      if (!pred(c, b, e)) continue;
      reqs.push_back(e.at("request").get<int>());
      std::string why;
      const auto ok = partial_within(in, c, b, why);
      if (ok && !*ok) return verdict(Verdict::violated, what + ": " + why);
    }
  return judge_tokens(in, tokens_of(prefills(in.manifest), reqs), what + ", request(s) " + ints(reqs));
}

ContractResult k6_continuation(const ContractInput& in) {
  if (!chunked(in)) return not_exercised("unchunked run");
  std::vector<int> cont;
  for (const auto& ch : in.manifest.at("chunks"))
    if (ch.value("is_continuation", false) && !ch.at("entries").empty())
      cont.push_back(ch["entries"][0].at("request").get<int>());
  if (cont.empty()) return not_exercised("no continuation chunk in this plan");
  return judge_partials_then_tokens(
      in,
      [&](std::size_t, std::size_t, const J& e) {
        return std::find(cont.begin(), cont.end(), e.at("request").get<int>()) != cont.end();
      },
      "every partial of the continued request(s) " + ints(cont));
}

ContractResult k7_mid_block_gather(const ContractInput& in) {
  if (!chunked(in)) return not_exercised("unchunked run");
  const auto B = in.manifest.at("geometry").value("block", 1);
  const bool dcp = in.manifest.at("geometry").value("dcp", 1) > 1;
  const auto pred = [&](std::size_t, std::size_t, const J& e) {
    const auto start = dcp ? e.value("local_start", 0) : e.value("start", 0);
    return e.at("len") != 0 && start % B != 0;
  };
  if (requests_where(in.manifest, pred).empty())
    return not_exercised("every chunk starts on a block boundary (the fp8_ds_mla cache layout is not in export v1)");
  return judge_partials_then_tokens(in, pred, "bf16 gathers starting inside a block (fp8_ds_mla: not in export v1)");
}

ContractResult k8_both_empty(const ContractInput& in) {
  if (!chunked(in)) return not_exercised("unchunked run");
  const auto& chunks = in.manifest.at("chunks");
  const auto cut = ptwc(in.manifest);
  const auto ps = prefills(in.manifest);
  std::vector<int> reqs;  // requests whose running context state merges two empty partials
  for (const auto& p : ps) {
    int leading = 0;  // old planner: out_c = merge(out_{c-1}, chunk c); empty while every span so far is
    bool seen_rows = false;
    for (const auto& ch : chunks)
      for (const auto& e : ch.at("entries"))
        if (e.at("request") == p.request && !seen_rows) {
          if (e.at("len") == 0)
            ++leading;
          else
            seen_rows = true;
        }
    if (leading >= 2 && (!cut || p.token0 < *cut)) reqs.push_back(p.request);
  }
  if (reqs.empty()) return not_exercised("no request merges two empty partials");
  return judge_tokens(in, tokens_of(ps, reqs),
                      "request(s) " + ints(reqs) + " merge two empty partials; merge kernel " + kernel_of(in) +
                          " (both empty: " + record_of(in).value("both_empty", "?") + ")");
}

ContractResult k9_fa2_inf(const ContractInput& in) {
  const auto b = boundary(in);
  const auto probe = b.value("empty_probe", J::object());
  const bool inf = b.value("empty_lse", "kernel") == "+inf" || (probe.is_object() && probe.value("lse", "") == "+inf");
  if (!chunked(in) || b.value("empty_key_calls", 0) == 0 || !inf)
    return not_exercised("no empty row got a +inf LSE (runner --empty-lse +inf: FA2's)");
  const auto zero = requests_where(in.manifest, [](std::size_t, std::size_t, const J& e) { return e.at("len") == 0; });
  return judge_tokens(in, tokens_of(prefills(in.manifest), zero),
                      "+inf LSE on empty rows into merge kernel " + kernel_of(in) + ", request(s) " + ints(zero));
}

ContractResult k10_suffix_alone(const ContractInput& in) {
  const auto cut = ptwc(in.manifest);
  const std::int64_t T = in.manifest.value("prefill_tokens", 0);
  if (!chunked(in) || !cut || *cut >= T) return not_exercised("no prefill token past prefill_tokens_with_context");
  std::vector<int> cut_off;  // requests with context past the cut: the plan drops their context (S4/S5)
  for (const auto& p : prefills(in.manifest))
    if (p.ctx > 0 && p.token0 + p.q > *cut) cut_off.push_back(p.request);
  if (!cut_off.empty())
    return verdict(Verdict::violated,
                   "prefill_tokens_with_context = " + std::to_string(*cut) + " cuts off the context of request(s) " +
                       ints(cut_off) + " (a context request after a context-free one: the plan's, not the kernel's)");
  return judge_tokens(in, {{*cut, T}},
                      "tokens [" + std::to_string(*cut) + ", " + std::to_string(T) + ") take the suffix alone");
}

ContractResult k11_final_lse(const ContractInput& in) {
  const std::int64_t T = in.manifest.value("prefill_tokens", 0);
  return judge_tokens(in, {{0, T}}, "every prefill token (out and natural-log LSE)");
}

constexpr std::array kContracts{
    KernelContract{"K-1", "empty context rows give (0, -inf) to the merge", "vLLM #49294; spec §4",
                   "tokens of requests with empty context rows come out within the bound, whatever LSE the kernel "
                   "gives an empty row",
                   k1_empty_context_rows},
    KernelContract{"K-2", "zero-length KV chunks", "SGLang #22291/#22688",
                   "a request with context and a zero-length span in some chunk is within the bound",
                   k2_zero_length_chunk},
    KernelContract{"K-3", "LSE base agrees between attention and merge", "vLLM #52796; SGLang #40903/#35045",
                   "the attention's LSE is natural-log where the merge assumes it (checked on chunk 0)", k3_lse_base},
    KernelContract{"K-4", "merge reads each operand with its own strides", "spec §4 (local-inference-lab/vllm #15/#17)",
                   "with prefix and suffix of different head strides (192 vs 128) the merge is within the bound",
                   k4_merge_strides},
    KernelContract{"K-5", "ranks that own zero rows", "ATOM #2057; TensorRT-LLM #15383",
                   "spans some rank owns no row of are within the bound", k5_zero_row_ranks},
    KernelContract{"K-6", "continuation chunks keep earlier partials", "vLLM #51772",
                   "every partial of a continued request and its output are within the bound", k6_continuation},
    KernelContract{"K-7", "gathers starting inside a block", "vLLM #48611/#48642 (fp8_ds_mla)",
                   "chunk partials whose gather starts mid-block are within the bound", k7_mid_block_gather},
    KernelContract{"K-8", "empty + empty merge", "spec §4 (Triton cfc4079e NaN; CUDA #28181); FlashInfer #4051",
                   "a request whose running context merges two empty partials comes out finite and within the bound",
                   k8_both_empty},
    KernelContract{"K-9", "FA2's +inf LSE for empty rows becomes -inf", "spec §4 (Triton +inf -> -inf)",
                   "empty rows with a +inf LSE do not poison the merge", k9_fa2_inf},
    KernelContract{"K-10", "tokens past prefill_tokens_with_context take the suffix alone", "spec §4 (S4/S5)",
                   "those tokens are within the bound", k10_suffix_alone},
    KernelContract{"K-11", "final output and natural-log LSE", "spec §4 (merge output LSE)",
                   "every prefill token's out and LSE within the bound", k11_final_lse},
};

}  // namespace

std::string_view name(ContractVerdict v) {
  return v == ContractVerdict::holds ? "holds" : v == ContractVerdict::violated ? "violated" : "not exercised";
}

std::span<const KernelContract> kernel_contracts() { return kContracts; }

std::vector<ContractResult> judge_contracts(const ContractInput& in) {
  std::vector<ContractResult> out;
  for (const auto& k : kContracts) {
    ContractResult r = k.judge(in);
    r.id = std::string(k.id);
    r.name = std::string(k.name);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cp::io
