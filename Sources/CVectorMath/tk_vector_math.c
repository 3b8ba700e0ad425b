#include "tk_vector_math.h"
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define TK_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static int32_t dot_portable(const int8_t *a, const int8_t *b, size_t n) {
    int32_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += (int32_t)a[i] * (int32_t)b[i];
    return sum;
}

#ifdef TK_X86
static int32_t dot_sse2(const int8_t *a, const int8_t *b, size_t n) {
    __m128i acc = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
        __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
        /* Each byte into the high half of a 16-bit lane, then an arithmetic shift: sign-extended. */
        __m128i alo = _mm_srai_epi16(_mm_unpacklo_epi8(va, va), 8);
        __m128i ahi = _mm_srai_epi16(_mm_unpackhi_epi8(va, va), 8);
        __m128i blo = _mm_srai_epi16(_mm_unpacklo_epi8(vb, vb), 8);
        __m128i bhi = _mm_srai_epi16(_mm_unpackhi_epi8(vb, vb), 8);
        acc = _mm_add_epi32(acc, _mm_madd_epi16(alo, blo));
        acc = _mm_add_epi32(acc, _mm_madd_epi16(ahi, bhi));
    }
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0x4E));
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0xB1));
    int32_t sum = _mm_cvtsi128_si32(acc);
    return sum + dot_portable(a + i, b + i, n - i);
}

__attribute__((target("avx2")))
static int32_t dot_avx2(const int8_t *a, const int8_t *b, size_t n) {
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(a + i)));
        __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(b + i)));
        __m256i a1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(a + i + 16)));
        __m256i b1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(b + i + 16)));
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(a0, b0));
        acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(a1, b1));
    }
    if (i + 16 <= n) {
        __m256i a0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(a + i)));
        __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(b + i)));
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(a0, b0));
        i += 16;
    }
    __m256i acc = _mm256_add_epi32(acc0, acc1);
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    int32_t sum = _mm_cvtsi128_si32(s);
    return sum + dot_portable(a + i, b + i, n - i);
}

/* AVX2 needs the processor's instructions and the system saving the 256-bit registers (XCR0 bits
   1 and 2, read only when OSXSAVE says XGETBV may be used). */
static int have_avx2(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    if (!(ecx & (1u << 27)) || !(ecx & (1u << 28))) return 0; /* OSXSAVE, AVX */
    unsigned int lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 6u) != 6u) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & (1u << 5)) != 0;
}
#endif

typedef int32_t (*dot_fn)(const int8_t *, const int8_t *, size_t);

/* Chosen at the first call. Several threads may race to choose: each finds the same answer and
   stores it atomically, so every reader sees either none yet (and chooses too) or that one. */
static dot_fn chosen = 0;

static dot_fn choose(void) {
    dot_fn f = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (f) return f;
    f = dot_portable;
#ifdef TK_X86
    f = have_avx2() ? dot_avx2 : dot_sse2;
#endif
    __atomic_store_n(&chosen, f, __ATOMIC_RELEASE);
    return f;
}

int32_t tk_dot_i8(const int8_t *a, const int8_t *b, size_t n) { return choose()(a, b, n); }

static void rows_with(dot_fn f, const int8_t *query, const int8_t *rows, size_t count, size_t dim, int32_t *out) {
    for (size_t i = 0; i < count; i++) out[i] = f(query, rows + i * dim, dim);
}

void tk_dot_i8_rows(const int8_t *query, const int8_t *rows, size_t count, size_t dim, int32_t *out) {
    rows_with(choose(), query, rows, count, dim, out);
}

const char *tk_dot_i8_kernel(void) {
    dot_fn f = choose();
#ifdef TK_X86
    if (f == dot_avx2) return "avx2";
    if (f == dot_sse2) return "sse2";
#endif
    (void)f;
    return "portable";
}

int tk_dot_i8_rows_with(const char *kernel, const int8_t *query, const int8_t *rows, size_t count, size_t dim,
                        int32_t *out) {
    dot_fn f = 0;
    if (strcmp(kernel, "portable") == 0) f = dot_portable;
#ifdef TK_X86
    else if (strcmp(kernel, "sse2") == 0) f = dot_sse2;
    else if (strcmp(kernel, "avx2") == 0 && have_avx2()) f = dot_avx2;
#endif
    if (!f) return 0;
    rows_with(f, query, rows, count, dim, out);
    return 1;
}
