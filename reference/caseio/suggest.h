// "Did you mean": the nearest accepted word to a mistyped one (case keys, enum values, version
// names, commands, options). One helper for the case parser and the CLI.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cp {

// Edit distance (insert, delete, substitute, swap of neighbours: 1 each), case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is close enough to be a typo (distance at most a third
// of the longer word, at least 1; a candidate that starts with `word` counts as close too), else
// "". Ties go to the first candidate.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" for the nearest candidate, or "" when none is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace cp
