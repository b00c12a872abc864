// Where chunkproof writes what outlives a command when the user names no folder: the user's
// data folder (XDG base directories), never the source checkout.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace cp::io {

// $XDG_DATA_HOME/chunkproof/<sub>, else ~/.local/share/chunkproof/<sub>; empty when neither
// variable is set.
inline std::filesystem::path user_data_dir(std::string_view sub) {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::filesystem::path(x) / "chunkproof" / sub;
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".local" / "share" / "chunkproof" / sub;
  return {};
}

}  // namespace cp::io
