// The narrow MLA shape the corpus replays run at (1 head, latent 8, rope 4, nope 4, v 4): the
// corpus holds up to 110K context rows per case, and a single misrouted row still changes the
// exact integers. One definition, so the golden hashes and the corpus test run the same shape.
#pragma once

#include "reference/caseio/case.h"

namespace cp::mla::test_shapes {

inline Case with_narrow_dims(Case c) {
  c.dims.heads = 1;
  c.dims.kv_lora_rank = 8;
  c.dims.nope_dim = 4;
  c.dims.rope_dim = 4;
  c.dims.v_dim = 4;
  return c;
}

}  // namespace cp::mla::test_shapes
