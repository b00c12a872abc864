#include "reference/caseio/deployment.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <sstream>

#include "reference/caseio/suggest.h"

namespace cp {
namespace {

constexpr std::array kBackends{
    BackendRow{"TRITON_MLA", std::nullopt, Builder::dense,
               "Triton decode kernel; ROCm's default MLA backend, also on CUDA"},
    BackendRow{"ROCM_AITER_MLA", Platform::rocm, Builder::dense, "AITER MLA (MI300X/MI325X/MI355X)"},
    BackendRow{"ROCM_AITER_MLA_SPARSE", Platform::rocm, Builder::sparse, "AITER sparse MLA (DeepSeek-V3.2 indexer)"},
    BackendRow{"FLASHMLA", Platform::cuda, Builder::dense, "FlashMLA (Hopper)"},
    BackendRow{"FLASHMLA_SPARSE", Platform::cuda, Builder::sparse, "FlashMLA sparse (DeepSeek-V3.2 indexer)"},
    BackendRow{"FLASH_ATTN_MLA", Platform::cuda, Builder::dense, "FlashAttention 3 MLA (Hopper)"},
    BackendRow{"CUTLASS_MLA", Platform::cuda, Builder::dense, "CUTLASS MLA (Blackwell)"},
    BackendRow{"FLASHINFER_MLA", Platform::cuda, Builder::dense, "FlashInfer MLA"},
};

// In release order. Commits are the ones docs/plan.md "vLLM commit -> version" reads; PR marks
// name the change that makes the next row (a vLLM with the PR and without the next row's PR).
constexpr std::array kReleases{
    ReleaseRow{"37fa5c0940ef6770b265fe3a99581fec91f9cf2d", Version::v0_early, "S1: earliest V1 common.py, no DCP"},
    ReleaseRow{"00a817ada81626793c9e2432903ee4c5b33ab33a", Version::v1_dcp, "S2: first DCP common.py"},
    ReleaseRow{"90b0a26e0e1a8ae3ba34e9e0ea514411f1a6a182", Version::v2_interleave, "S3: mla_attention.py, interleave"},
    ReleaseRow{"0014ca6b9929614f1b72c4bb11e5238de49cba89", Version::v2_interleave, "S4: pre-#46114"},
    ReleaseRow{"#46114", Version::v3_pr46114, "#46114 merged: the dense builder rounds M to B on every platform"},
    ReleaseRow{"#47327", Version::v4_pr47327, "#47327 merged: the per-step assert removed"},
    ReleaseRow{"#50613", Version::v5_packed, "#50613 (with #50484): the packed planner"},
    ReleaseRow{"#51733", Version::v6_current, "#51733: workspace sizing without the max_num_seqs floor"},
    ReleaseRow{"903ecb17a9033fe698d275f261088c7211373280", Version::v6_current, "vLLM 903ecb17: the shipped code"},
    ReleaseRow{"main", Version::v6_current, "vLLM main as modelled (903ecb17)"},
};

std::string upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}
std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}
bool is_hex(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// vLLM's human-readable integers (--max-model-len 128k): k/m/g decimal, K/M/G binary.
std::int64_t serve_int(const std::string& flag, const std::string& v) {
  std::int64_t n = 0;
  const char* b = v.data();
  const char* e = v.data() + v.size();
  auto [p, ec] = std::from_chars(b, e, n);
  std::int64_t mul = 1;
  if (ec == std::errc() && p + 1 == e) {
    switch (*p) {
      case 'k': mul = 1000; break;
      case 'm': mul = 1000 * 1000; break;
      case 'g': mul = 1000 * 1000 * 1000; break;
      case 'K': mul = 1024; break;
      case 'M': mul = 1024 * 1024; break;
      case 'G': mul = 1024 * 1024 * 1024; break;
      default: mul = 0;
    }
    if (mul) p = e;
  }
  if (ec != std::errc() || p != e || n < 1 || n > (std::int64_t{1} << 40) / mul)
    throw DeploymentError("--serve: flag " + flag + ": expected a positive integer, got '" + v + "'");
  return n * mul;
}

std::vector<std::string> words_of(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  char quote = 0;
  bool any = false;
  for (char ch : s) {
    if (quote) {
      if (ch == quote)
        quote = 0;
      else
        cur += ch;
    } else if (ch == '\'' || ch == '"') {
      quote = ch, any = true;
    } else if (ch == '\\') {
      continue;  // line continuations
    } else if (std::isspace(static_cast<unsigned char>(ch))) {
      if (!cur.empty() || any) out.push_back(cur);
      cur.clear(), any = false;
    } else {
      cur += ch;
    }
  }
  if (quote) throw DeploymentError("--serve: unbalanced quote");
  if (!cur.empty() || any) out.push_back(cur);
  return out;
}

// The serve flags that reach the planner, with their aliases.
struct ServeFlag {
  std::string_view flag, alias, key;
};
constexpr std::array kServeFlags{
    ServeFlag{"--decode-context-parallel-size", "-dcp", "dcp"},
    ServeFlag{"--block-size", "", "block"},
    ServeFlag{"--max-num-seqs", "", "max_num_seqs"},
    ServeFlag{"--max-model-len", "", "max_model_len"},
    ServeFlag{"--cp-kv-cache-interleave-size", "", "interleave"},
    ServeFlag{"--dcp-kv-cache-interleave-size", "", "interleave"},
    ServeFlag{"--tensor-parallel-size", "-tp", "tp"},
    ServeFlag{"--max-num-batched-tokens", "", "max_num_batched_tokens"},
    ServeFlag{"--prefill-context-parallel-size", "-pcp", "pcp"},
    ServeFlag{"--attention-backend", "", "backend"},
};

const BackendRow* find_backend(const std::string& name) {
  for (const auto& b : kBackends)
    if (b.name == upper(name)) return &b;
  return nullptr;
}

std::optional<Platform> platform_of(const std::string& word, std::string* note) {
  const std::string w = lower(word);
  if (auto p = parse_platform(w)) return p;
  static const std::map<std::string, Platform> kGpus{
      {"mi250", Platform::rocm},  {"mi250x", Platform::rocm}, {"mi300a", Platform::rocm}, {"mi300x", Platform::rocm},
      {"mi308x", Platform::rocm}, {"mi325x", Platform::rocm}, {"mi350x", Platform::rocm}, {"mi355x", Platform::rocm},
      {"a100", Platform::cuda},   {"h100", Platform::cuda},   {"h200", Platform::cuda},   {"h800", Platform::cuda},
      {"h20", Platform::cuda},    {"b200", Platform::cuda},   {"gb200", Platform::cuda},  {"b300", Platform::cuda},
      {"l40s", Platform::cuda},
  };
  auto it = kGpus.find(w);
  if (it == kGpus.end()) return std::nullopt;
  if (note) *note = upper(word) + " -> platform=" + std::string(name(it->second));
  return it->second;
}

}  // namespace

std::span<const BackendRow> backend_rows() { return kBackends; }
std::span<const ReleaseRow> release_rows() { return kReleases; }

std::vector<Version> release_order() {
  std::vector<Version> out;
  for (const auto& r : kReleases)
    if (std::find(out.begin(), out.end(), r.version) == out.end()) out.push_back(r.version);
  return out;
}

std::optional<Version> resolve_vllm(std::string_view word_in, std::string* what) {
  const std::string word = lower(std::string(word_in));
  if (auto v = parse_version(word)) {
    if (what) *what = "version row " + word;
    return v;
  }
  const std::string mark = word.rfind("pr", 0) == 0 ? "#" + word.substr(2) : word;
  for (const auto& r : kReleases) {
    const bool commit = is_hex(word) && word.size() >= 7 && r.key.size() == 40 && r.key.substr(0, word.size()) == word;
    if (commit || r.key == mark) {
      if (what) *what = std::string(r.key.size() == 40 ? r.key.substr(0, 8) : r.key) + ": " + std::string(r.what);
      return r.version;
    }
  }
  return std::nullopt;
}

std::string Deployment::pinned() const {
  std::string s = "version=" + std::string(name(base.version)) + " platform=" + std::string(name(base.platform));
  if (base.builder != Builder::dense) s += " builder=" + std::string(name(base.builder));
  if (base.workspace) s += " workspace=" + std::to_string(*base.workspace);
  if (base.max_model_len) s += " max_model_len=" + std::to_string(*base.max_model_len);
  if (base.max_num_seqs) s += " max_num_seqs=" + std::to_string(*base.max_num_seqs);
  s += " block=" + std::to_string(base.block) + " dcp=" + std::to_string(base.dcp) +
       " interleave=" + std::to_string(base.interleave);
  return s;
}

namespace {

// What the serve line said: the planner's flags by key, the backend, and the rest.
struct ServeWords {
  std::map<std::string, std::string> got;  // key -> value
  std::string backend;
};

// Step 1: the serve line's words -> flags that reach the planner; the rest listed as ignored.
ServeWords read_serve(const std::string& serve, Deployment& d) {
  ServeWords sw;
  const auto words = words_of(serve);
  std::vector<std::string> flag_names;
  for (const auto& f : kServeFlags) {
    flag_names.emplace_back(f.flag);
    if (!f.alias.empty()) flag_names.emplace_back(f.alias);
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i];
    const bool launcher = (w == "vllm" || w.ends_with("/vllm")) && i + 1 < words.size() && words[i + 1] == "serve";
    if (launcher || w == "serve") continue;
    if (w.rfind("VLLM_ATTENTION_BACKEND=", 0) == 0) {
      sw.backend = w.substr(w.find('=') + 1);
      continue;
    }
    if (w.empty() || w[0] != '-') {
      d.ignored.push_back(w);  // the model, an environment word
      continue;
    }
    std::string value;
    bool has_value = false;
    if (const auto eq = w.find('='); eq != std::string::npos)
      value = w.substr(eq + 1), w = w.substr(0, eq), has_value = true;
    const ServeFlag* f = nullptr;
    for (const auto& sf : kServeFlags)
      if (sf.flag == w || (!sf.alias.empty() && sf.alias == w)) f = &sf;
    if (!f) {  // a flag that does not reach the planner; its value, if any, with it
      std::string shown = w;
      if (has_value)
        shown += "=" + value;
      else if (i + 1 < words.size() && !words[i + 1].empty() && words[i + 1][0] != '-')
        shown += " " + words[++i];
      const std::string near = nearest(w, flag_names);
      d.ignored.push_back(shown + (near.empty() ? "" : " (did you mean " + near + "?)"));
      continue;
    }
    if (!has_value) {
      if (i + 1 >= words.size() || (words[i + 1].size() > 1 && words[i + 1][0] == '-'))
        throw DeploymentError("--serve: flag " + w + " needs a value");
      value = words[++i];
    }
    const std::string key(f->key);
    if (sw.got.count(key) && sw.got[key] != value)
      throw DeploymentError("--serve: flag " + w + " given twice with different values");
    sw.got[key] = value;
    if (key == "backend")
      sw.backend = value;
    else
      d.mapped.push_back(std::string(f->flag) + " " + value + " -> " +
                         (key == "tp"                       ? "tensor parallel (must be a multiple of dcp)"
                          : key == "pcp"                    ? "prefill context parallel (1 only)"
                          : key == "max_num_batched_tokens" ? "bounds a step's new tokens"
                                                            : key + "=" + std::to_string(serve_int(w, value))));
  }
  return sw;
}

// Step 2: the case-line form's key=value words.
std::map<std::string, std::string> read_keys(const std::string& keys) {
  std::map<std::string, std::string> kv;
  std::istringstream ks(keys);
  for (std::string w; ks >> w;) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) throw DeploymentError("--deployment: expected key=value, got '" + w + "'");
    const std::string k = w.substr(0, eq);
    if (k == "ctx" || k == "q")
      throw DeploymentError("--deployment: key '" + k +
                            "': the batch is what audit searches; give the deployment's keys only");
    kv[k] = w.substr(eq + 1);
  }
  return kv;
}

// Step 3: the vLLM code -> the version row.
Version read_vllm(const DeploymentInput& in, std::map<std::string, std::string>& kv, Deployment& d) {
  std::string vllm = in.vllm;
  if (vllm.empty() && kv.count("version")) vllm = kv["version"];
  if (vllm.empty())
    throw DeploymentError(
        "--vllm: missing (a commit, a PR mark such as #46114, main, or a version name; "
        "`chunkproof audit --tables` lists them)");
  std::string what;
  const auto ver = resolve_vllm(vllm, &what);
  if (!ver) {
    std::vector<std::string> keys;
    for (const auto& r : kReleases)
      if (r.key.size() != 40) keys.emplace_back(r.key);
    for (const auto& v : all_versions()) keys.emplace_back(v.name);
    throw DeploymentError("--vllm: unknown release or commit '" + vllm + "'" + did_you_mean(vllm, keys) +
                          " (accepted: a commit of the release table, #46114, #47327, #50613, #51733, main, or a "
                          "version name; `chunkproof audit --tables` lists them)");
  }
  d.vllm = vllm;
  d.vllm_row = what;
  kv["version"] = std::string(name(*ver));
  return *ver;
}

// Step 4: the backend and the platform or GPU -> platform and builder.
void read_backend(const DeploymentInput& in, const std::string& serve_backend, std::map<std::string, std::string>& kv,
                  Deployment& d) {
  const std::string backend = in.backend.empty() ? serve_backend : in.backend;
  if (!in.backend.empty() && !serve_backend.empty() && upper(in.backend) != upper(serve_backend))
    throw DeploymentError("--backend " + in.backend + " and the serve line's " + serve_backend + " disagree");
  std::optional<Platform> platform;
  std::string pnote;
  if (!in.platform.empty()) {
    platform = platform_of(in.platform, &pnote);
    if (!platform)
      throw DeploymentError("--platform: unknown platform or GPU '" + in.platform +
                            "' (cuda, rocm, or a GPU: MI300X, MI325X, MI355X, H100, H200, B200, ...)");
    if (!pnote.empty()) d.notes.push_back(pnote);
  }
  if (kv.count("platform")) {
    const auto p = platform_of(kv["platform"], nullptr);
    if (!p) throw DeploymentError("--deployment: key 'platform': expected cuda or rocm, got '" + kv["platform"] + "'");
    if (platform && *platform != *p) throw DeploymentError("--platform and --deployment's platform disagree");
    platform = p;
  }
  if (!backend.empty()) {
    const BackendRow* b = find_backend(backend);
    if (!b) {
      std::vector<std::string> names;
      std::string list;
      for (const auto& r : kBackends)
        names.emplace_back(r.name), list += (list.empty() ? "" : ", ") + std::string(r.name);
      throw DeploymentError("--backend: unknown MLA backend '" + backend + "'" + did_you_mean(backend, names) +
                            " (accepted: " + list + ")");
    }
    d.backend = std::string(b->name);
    if (b->platform && platform && *b->platform != *platform)
      throw DeploymentError("--backend " + d.backend + " runs on " + std::string(name(*b->platform)) +
                            ", not on platform " + std::string(name(*platform)));
    if (b->platform) platform = b->platform;
    if (!platform)
      throw DeploymentError("--backend " + d.backend +
                            " runs on CUDA and ROCm: give --platform (cuda, rocm, or a GPU such as MI300X, H100)");
    if (!kv.count("builder")) kv["builder"] = std::string(name(b->builder));
    d.mapped.push_back("backend " + d.backend + " -> platform=" + std::string(name(*platform)) +
                       " builder=" + kv["builder"]);
  } else if (!platform) {
    throw DeploymentError(
        "--backend: missing (TRITON_MLA, ROCM_AITER_MLA, FLASHMLA, FLASH_ATTN_MLA, CUTLASS_MLA, ...) "
        "or give platform= in --deployment");
  }
  kv["platform"] = std::string(name(*platform));
}

// Step 5: serve flags -> keys (the case-line form may give the same keys: they must agree), and
// the engine bounds of the batch.
void map_flags(const DeploymentInput& in, ServeWords& sw, std::map<std::string, std::string>& kv, Deployment& d) {
  auto& got = sw.got;
  auto put = [&](const std::string& key) {
    if (!got.count(key)) return;
    std::string flag = key;
    for (const auto& f : kServeFlags)
      if (f.key == key) flag = std::string(f.flag);
    const std::string v = std::to_string(serve_int(flag, got[key]));
    if (kv.count(key) && kv[key] != v)
      throw DeploymentError("--serve " + flag + " " + got[key] + " and --deployment " + key + "=" + kv[key] +
                            " disagree");
    kv[key] = v;
  };
  for (const char* k : {"dcp", "block", "interleave", "max_model_len", "max_num_seqs"}) put(k);
  if (got.count("pcp") && serve_int("--prefill-context-parallel-size", got["pcp"]) != 1)
    throw DeploymentError(
        "--serve: flag --prefill-context-parallel-size: PCP > 1 is not modelled (vLLM main's PCP "
        "rows: issue 25); the accepted value is 1");
  if (got.count("tp")) d.tensor_parallel = serve_int("--tensor-parallel-size", got["tp"]);
  if (got.count("max_num_batched_tokens"))
    d.max_num_batched_tokens = serve_int("--max-num-batched-tokens", got["max_num_batched_tokens"]);
  if (in.workspace) {
    if (kv.count("workspace") && kv["workspace"] != std::to_string(*in.workspace))
      throw DeploymentError("--workspace and --deployment workspace= disagree");
    kv["workspace"] = std::to_string(*in.workspace);
  }
  if (!kv.count("block"))
    throw DeploymentError(
        "--serve: flag --block-size: missing (vLLM's default depends on the backend and the "
        "model; give it, or block= in --deployment)");
  // An explicit S wins: the version's sizing is then not used (max_model_len still bounds ctx).
  auto number = [&](const char* k) -> std::optional<std::int64_t> {
    if (!kv.count(k)) return std::nullopt;
    return serve_int(k, kv[k]);
  };
  d.max_model_len = number("max_model_len");
  d.max_num_seqs = number("max_num_seqs");
  if (kv.count("workspace")) {
    kv.erase("max_model_len"), kv.erase("max_num_seqs");
  } else if (!d.max_model_len || !d.max_num_seqs) {
    throw DeploymentError(std::string("--serve: flag ") + (d.max_model_len ? "--max-num-seqs" : "--max-model-len") +
                          ": missing (the version sizes the workspace from --max-model-len and --max-num-seqs; "
                          "or give --workspace ROWS)");
  }
  if (got.count("tp") && kv.count("dcp") && d.tensor_parallel % serve_int("dcp", kv["dcp"]) != 0)
    throw DeploymentError("--serve: flags --tensor-parallel-size " + std::to_string(d.tensor_parallel) +
                          " and --decode-context-parallel-size " + kv["dcp"] +
                          ": vLLM needs the DCP size to divide the TP size");
}

}  // namespace

Deployment parse_deployment(const DeploymentInput& in) {
  Deployment d;
  ServeWords sw = read_serve(in.serve, d);
  auto kv = read_keys(in.keys);
  read_vllm(in, kv, d);
  read_backend(in, sw.backend, kv, d);
  map_flags(in, sw, kv, d);
  // The pinned case: the keys with a placeholder batch, through the one parser.
  std::string line;
  for (const auto& [k, v] : kv) line += k + "=" + v + " ";
  line += "ctx=1 q=2";
  try {
    d.base = parse_case(line);
  } catch (const CaseError& e) {
    throw DeploymentError(std::string("deployment: ") + e.what());
  }
  d.base.ctx.clear();
  d.base.q.clear();
  return d;
}

}  // namespace cp
