// Fixed-order dot products: the same bits on every device and for every caller.
//
// The order is part of the contract: acc = +0.0f, then for i = 0, 1, ..., n-1:
//     p   = a[i] * b[i]        (one IEEE fp32 multiply, round to nearest even)
//     acc = acc + p            (one IEEE fp32 add,      round to nearest even)
// never fused into an FMA (mul_rn/add_rn, see hd.h for why they cannot be contracted). We
// chose "no FMA" over "explicit fmaf" so the CPU reference needs no libm and compilers that
// auto-vectorise the axpy form below produce the same bits (FMA would need hardware FMA on
// every host we compare with).
//
//   dot(a, b, n)                          contiguous vectors
//   dot_strided(a, sa, b, sb, n)          a[i*sa] * b[i*sb]
//   dot_concat(a, b1, n1, b2, n2)         a . concat(b1, b2): one accumulator over n1 + n2 terms
//                                         (the score q . [k_nope, k_pe] of MLA)
//   axpy_rows(acc, x, B, n, m)            acc[j] = acc[j] + x[i]*B[i*m + j] for i = 0..n-1, j = 0..m-1:
//                                         per output j, exactly the order of dot(x, B[.][j]).
//                                         Initialise acc to +0.0f first. This is the
//                                         vectorisable form of a row-vector x matrix product.
//   axpy_rows_strided(acc, x, B, n, ldb, m) the same over columns [0, m) of a matrix with row
//                                         stride ldb (a slice of heads of W_UK / W_UV).
#pragma once

#include "reference/mla/math/hd.h"

namespace cp::mla {

CP_HD inline float dot_step(float acc, float a, float b) {
  const float p = mul_rn(a, b);
  return add_rn(acc, p);
}

CP_HD inline float dot(const float* a, const float* b, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) acc = dot_step(acc, a[i], b[i]);
  return acc;
}

CP_HD inline float dot_strided(const float* a, long sa, const float* b, long sb, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) acc = dot_step(acc, a[i * sa], b[i * sb]);
  return acc;
}

CP_HD inline float dot_concat(const float* a, const float* b1, int n1, const float* b2, int n2) {
  float acc = 0.0f;
  for (int i = 0; i < n1; ++i) acc = dot_step(acc, a[i], b1[i]);
  for (int i = 0; i < n2; ++i) acc = dot_step(acc, a[n1 + i], b2[i]);
  return acc;
}

CP_HD inline void axpy_rows_strided(float* acc, const float* x, const float* B, int n, long ldb, long m) {
  for (int i = 0; i < n; ++i) {
    const float xi = x[i];
    const float* row = B + i * ldb;
    for (long j = 0; j < m; ++j) acc[j] = dot_step(acc[j], xi, row[j]);
  }
}

CP_HD inline void axpy_rows(float* acc, const float* x, const float* B, int n, long m) {
  axpy_rows_strided(acc, x, B, n, m, m);
}

}  // namespace cp::mla
