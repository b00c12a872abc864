// The interval-level evaluation is a strategy of the checks that walk tokens (catalogue.h:
// Level::interval; I-9's walk is interval/reorg_interval.cpp). This header only keeps the old
// entry point for campaign/heatmap.cpp until it calls cp::evaluate(c, Level::interval).
#pragma once

#include "invariants/catalogue.h"

namespace cp::interval {

inline Evaluation evaluate(const Case& c) { return cp::evaluate(c, Level::interval); }

}  // namespace cp::interval
