#include "tools/chunkproof/cli.h"

#include <algorithm>
#include <charconv>

namespace cp::cli {

Options::Options(Args args, std::vector<std::string> flags, std::vector<std::string> valued) {
  auto is = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) { positional_.push_back(a); continue; }
    auto eq = a.find('=');
    std::string k = a.substr(0, eq);
    if (is(flags, k) && eq == std::string::npos) { flags_set_.push_back(k); continue; }
    if (!is(valued, k)) throw UsageError("unknown option '" + k + "'");
    if (eq != std::string::npos) values_.emplace_back(k, a.substr(eq + 1));
    else if (i + 1 < args.size()) values_.emplace_back(k, args[++i]);
    else throw UsageError("option '" + k + "' needs a value");
  }
}

bool Options::has(std::string_view flag) const {
  return std::find(flags_set_.begin(), flags_set_.end(), flag) != flags_set_.end();
}

std::optional<std::string> Options::get(std::string_view key) const {
  for (auto it = values_.rbegin(); it != values_.rend(); ++it)
    if (it->first == key) return it->second;
  return std::nullopt;
}

std::string Options::get_or(std::string_view key, std::string def) const {
  auto v = get(key);
  return v ? *v : def;
}

long long Options::get_int(std::string_view key, long long def, long long lo, long long hi) const {
  auto v = get(key);
  if (!v) return def;
  long long x = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc() || p != v->data() + v->size())
    throw UsageError("option '" + std::string(key) + "' expects an integer, got '" + *v + "'");
  if (x < lo || x > hi)
    throw UsageError("option '" + std::string(key) + "' must be in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  return x;
}

bool wants_help(Args args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

}  // namespace cp::cli
