// I-9's measure of the context movement: for every chunk entry, what the rows attention reads
// for it hold, as counts. The verdict of I-9 (catalogue.h) is "every count is zero"; the counts
// are public so that the two levels can be compared entry by entry (fuzz_interval_diff).
#pragma once

#include <cstdint>
#include <vector>

#include "invariants/catalogue.h"

namespace cp {

struct ReorgCounts {
  int chunk = -1;
  int entry = -1;
  int request = -1;
  std::int64_t foreign = 0;    // rows that are not one of its own context positions of the span
  std::int64_t duplicate = 0;  // own positions received more than once (every extra copy)
  std::int64_t missing = 0;    // span positions never received
  std::int64_t first_bad_row = -1;
  friend bool operator==(const ReorgCounts&, const ReorgCounts&) = default;
};

// Per-entry counts of every chunk of a built plan (none for an unbuilt one), in plan order:
// token by token (simulate_chunk), at interval level, or (automatic) as I-9 chooses.
std::vector<ReorgCounts> reorg_counts(const Batch& b, const Plan& p, Level level);

}  // namespace cp
