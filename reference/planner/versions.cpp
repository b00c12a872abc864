#include "reference/planner/versions.h"

namespace cp {

std::span<const VersionInfo> all_versions() { return kVersions; }

const VersionInfo& info(Version v) { return kVersions[static_cast<std::size_t>(v)]; }

std::optional<Version> parse_version(std::string_view n) {
  for (const auto& v : kVersions)
    if (v.name == n) return v.version;
  return std::nullopt;
}

std::string_view name(Version v) { return info(v).name; }

std::vector<Version> versions_where(bool (*pred)(const VersionInfo&)) {
  std::vector<Version> out;
  for (const auto& v : kVersions)
    if (pred(v)) out.push_back(v.version);
  return out;
}
std::vector<Version> dcp_versions() {
  return versions_where([](const VersionInfo& v) { return v.supports_dcp; });
}
std::vector<Version> expected_correct_versions() {
  return versions_where([](const VersionInfo& v) { return v.expected_correct; });
}
std::string joined_names(const std::vector<Version>& vs, std::string_view sep) {
  std::string out;
  for (Version v : vs) {
    if (!out.empty()) out += sep;
    out += name(v);
  }
  return out;
}

GatherKind gather_kind(const VersionInfo& v, bool dcp) { return dcp ? GatherKind::cp_gather : v.gather_without_dcp; }

}  // namespace cp
