#ifndef TK_VECTOR_MATH_H
#define TK_VECTOR_MATH_H
/* Integer dot products of int8 embeddings, the inner loop of every semantic question.

   Swift's SIMD types compile for the x86-64 baseline (SSE2), where widening int8 lanes to int32
   and multiplying them takes a long run of shuffles; here the products are taken as 16-bit pairs
   summed into 32 bits (pmaddwd), with AVX2 when the processor has it (chosen once, at the first
   call) and SSE2 otherwise; other architectures take a plain loop the compiler vectorises.
   Results are exact (int32 sums of int8 products) and the same on every path. */
#include <stddef.h>
#include <stdint.h>

/* The dot product of a and b, n values each. */
int32_t tk_dot_i8(const int8_t *_Nonnull a, const int8_t *_Nonnull b, size_t n);

/* out[i] = the dot product of `query` with row i of `rows` (count rows of dim values each, one
   after another). */
void tk_dot_i8_rows(const int8_t *_Nonnull query, const int8_t *_Nonnull rows, size_t count, size_t dim,
                    int32_t *_Nonnull out);

/* Which kernel the calls use: "avx2", "sse2" or "portable". */
const char *_Nonnull tk_dot_i8_kernel(void);

/* The same products through a kernel chosen by name ("avx2", "sse2", "portable"), for tests that
   compare the paths; returns 0 when that kernel is not available on this processor. */
int tk_dot_i8_rows_with(const char *_Nonnull kernel, const int8_t *_Nonnull query, const int8_t *_Nonnull rows,
                        size_t count, size_t dim, int32_t *_Nonnull out);

#endif
