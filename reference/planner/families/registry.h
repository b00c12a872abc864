// Every planner family, one line each: adding a family is its folder, its line here (with its
// include) and its tests. `chunkproof versions` groups the rows by these.
#pragma once

#include <array>

#include "reference/planner/families/atom/family.h"
#include "reference/planner/families/floor_divide/family.h"
#include "reference/planner/families/packed/family.h"
#include "reference/planner/families/tokenspeed/family.h"

namespace cp {

inline constexpr std::array<const FamilyInfo*, 4> kFamilies{
    &floor_divide_family,
    &packed_family,
    &atom_family,
    &tokenspeed_family,
};

}  // namespace cp
