// Which merge_attn_states kernel a platform dispatches to (spec §4, S12). Its own header so the
// device-side merge math (reference/mla/math) and the plan share one enum.
#pragma once

#include <cstdint>

namespace cp {

enum class MergeFlavour : std::uint8_t { triton, cuda };

}  // namespace cp
