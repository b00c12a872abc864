#include "reference/caseio/suggest.h"

#include <algorithm>
#include <cctype>

namespace cp {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insert, delete, substitute, swap two neighbours (`plna` -> `plan`).
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty()) return {};
  std::string best;
  std::size_t best_d = 0;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    const std::size_t limit = std::max<std::size_t>(1, std::max(word.size(), c.size()) / 3);
    const bool prefix =
        word.size() >= 2 && c.size() > word.size() && edit_distance(word, c.substr(0, word.size())) == 0;
    if (d > limit && !prefix) continue;
    const std::size_t score = prefix ? std::min(d, limit) : d;
    if (best.empty() || score < best_d) best = c, best_d = score;
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string n = nearest(word, candidates);
  return n.empty() ? std::string() : " (did you mean '" + n + "'?)";
}

}  // namespace cp
