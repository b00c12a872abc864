// Where chunkproof writes what outlives a command when the user names no folder: the user's
// data folder (XDG base directories), never the source checkout.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <vector>

namespace cp::io {

// The folders to try for `<base>/chunkproof/<sub>`, first choice first: $<xdg_var>, then
// ~/<home_rel> (the XDG defaults: XDG_DATA_HOME / .local/share, XDG_CACHE_HOME / .cache).
inline std::vector<std::filesystem::path> user_dir_candidates(const char* xdg_var, const char* home_rel,
                                                              std::string_view sub) {
  std::vector<std::filesystem::path> out;
  if (const char* x = std::getenv(xdg_var); x && *x) out.push_back(std::filesystem::path(x) / "chunkproof" / sub);
  if (const char* h = std::getenv("HOME"); h && *h)
    out.push_back(std::filesystem::path(h) / home_rel / "chunkproof" / sub);
  return out;
}

// $XDG_DATA_HOME/chunkproof/<sub>, else ~/.local/share/chunkproof/<sub>; empty when neither
// variable is set.
inline std::filesystem::path user_data_dir(std::string_view sub) {
  const auto c = user_dir_candidates("XDG_DATA_HOME", ".local/share", sub);
  return c.empty() ? std::filesystem::path{} : c.front();
}

}  // namespace cp::io
