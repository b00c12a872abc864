#include "reference/caseio/pins.h"

#include <charconv>

namespace cp {
namespace {

std::optional<std::int64_t>& field(Pins& p, std::string_view key) {
  if (key == "block") return p.block;
  if (key == "dcp") return p.dcp;
  if (key == "interleave") return p.interleave;
  if (key == "workspace") return p.workspace;
  if (key == "mml" || key == "max_model_len") return p.mml;
  return p.mns;  // mns | max_num_seqs (checked by the caller)
}

std::int64_t max_of(std::string_view key) {
  if (key == "block") return CaseLimits::max_block;
  if (key == "dcp" || key == "interleave") return key == "dcp" ? CaseLimits::max_dcp : CaseLimits::max_block;
  if (key == "workspace") return CaseLimits::max_workspace;
  if (key == "mml" || key == "max_model_len") return CaseLimits::max_model_len;
  return CaseLimits::max_num_seqs;
}

std::string accepted() {
  std::string s;
  for (auto k : pin_keys()) s += (s.empty() ? "" : ", ") + std::string(k);
  return s;
}

}  // namespace

const std::vector<std::string_view>& pin_keys() {
  static const std::vector<std::string_view> keys{"block", "dcp", "interleave", "workspace", "mml", "mns"};
  return keys;
}

void parse_pins(std::string_view list, Pins& into) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view kv = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (kv.empty()) continue;
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos) throw CaseError("", "a pin is key=value, got '" + std::string(kv) + "'");
    const std::string_view key = kv.substr(0, eq), val = kv.substr(eq + 1);
    const bool known = key == "block" || key == "dcp" || key == "interleave" || key == "workspace" || key == "mml" ||
                       key == "mns" || key == "max_model_len" || key == "max_num_seqs";
    if (!known) throw CaseError(std::string(key), "not a pinnable key (" + accepted() + ")");
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (ec != std::errc{} || end != val.data() + val.size() || v < 1 || v > max_of(key))
      throw CaseError(std::string(key),
                      "'" + std::string(val) + "' is not an integer in 1.." + std::to_string(max_of(key)));
    field(into, key) = v;
  }
  if (into.workspace && (into.mml || into.mns))
    throw CaseError("workspace", "pin the workspace or the sizing inputs (mml, mns), not both");
  if (into.block && into.interleave && *into.block % *into.interleave != 0)
    throw CaseError("interleave", "the interleave must divide the block (" + std::to_string(*into.interleave) +
                                      " does not divide " + std::to_string(*into.block) + ")");
}

void apply_pins(const Pins& p, Case& c) {
  if (p.block) c.block = *p.block;
  if (p.dcp) c.dcp = *p.dcp;
  if (p.interleave) {
    c.interleave = *p.interleave;
    if (c.block % c.interleave != 0) c.block = std::max<std::int64_t>(1, c.block / c.interleave) * c.interleave;
  }
  if (p.workspace) {
    c.workspace = *p.workspace;
    c.max_model_len.reset();
    c.max_num_seqs.reset();
  }
  if (p.mml || p.mns) {
    c.workspace.reset();
    if (p.mml) c.max_model_len = *p.mml;
    if (p.mns) c.max_num_seqs = *p.mns;
    if (!c.max_model_len) c.max_model_len = 163840;  // vLLM's DeepSeek default, when only mns is pinned
    if (!c.max_num_seqs) c.max_num_seqs = 256;       // vLLM's default --max-num-seqs
  }
}

bool satisfies(const Pins& p, const Case& c) {
  return (!p.block || c.block == *p.block) && (!p.dcp || c.dcp == *p.dcp) &&
         (!p.interleave || c.interleave == *p.interleave) && (!p.workspace || c.workspace == p.workspace) &&
         (!p.mml || c.max_model_len == p.mml) && (!p.mns || c.max_num_seqs == p.mns);
}

std::string describe(const Pins& p) {
  std::string s;
  auto add = [&](std::string_view k, const std::optional<std::int64_t>& v) {
    if (v) s += (s.empty() ? "" : " ") + std::string(k) + "=" + std::to_string(*v);
  };
  add("block", p.block), add("dcp", p.dcp), add("interleave", p.interleave), add("workspace", p.workspace);
  add("mml", p.mml), add("mns", p.mns);
  return s;
}

}  // namespace cp
