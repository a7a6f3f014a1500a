/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Finding the bytes a JSON string cannot hold as they are, 16 at a time:
 * most string bytes need no work, and a byte-at-a-time loop over them is
 * what the parser and the writer spent most of their time in. SSE2 (every
 * x86-64) when the compiler targets it; elsewhere two 64-bit words with the
 * classic "has a byte less than" bit trick, which is exact for the lowest
 * matching byte (a false hit can only lie above a true one). And finding a
 * substring (tl_scan_find), 16 places at a time where SSE2 is.
 * Depends on nothing.
 */
#ifndef TL_SCAN_H
#define TL_SCAN_H

#include "base/config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* For the portable paths: the bytes that stop a scan. */
static inline bool tl_scan_stops(unsigned char c, bool high)
{
    return c < 0x20 || c == '"' || c == '\\' || (high && c >= 0x80);
}

/* The portable versions, also compiled where SSE2 is used, for the tests. */
static inline unsigned tl_scan16_json_bytes(const unsigned char *p, bool high)
{
    for (unsigned i = 0; i < 16; i++)
        if (tl_scan_stops(p[i], high))
            return i;
    return 16;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TL_SCAN_HAVE_SWAR 1
static inline unsigned tl_scan16_json_swar(const unsigned char *p, bool high)
{
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t highs = 0x8080808080808080ULL;
    for (unsigned half = 0; half < 16; half += 8) {
        uint64_t x;
        memcpy(&x, p + half, 8);
        uint64_t q = x ^ (ones * '"');
        uint64_t b = x ^ (ones * '\\');
        uint64_t t = ((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x);
        if (high)
            t |= x;
        t &= highs;
        if (t)
            return half + (unsigned)__builtin_ctzll(t) / 8;
    }
    return 16;
}
#endif

/**
 * The index of the first byte of p[0..16) that is '"', '\\' or below 0x20,
 * or with high also one at or above 0x80; 16 when there is none. p must
 * have 16 readable bytes.
 */
static inline unsigned tl_scan16_json(const unsigned char *p, bool high)
{
#if defined(__SSE2__)
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
    __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(ctl, _mm_or_si128(q, b)));
    if (high)
        m |= (unsigned)_mm_movemask_epi8(v);
    return m ? (unsigned)__builtin_ctz(m) : 16;
#elif defined(TL_SCAN_HAVE_SWAR)
    return tl_scan16_json_swar(p, high);
#else
    return tl_scan16_json_bytes(p, high);
#endif
}

/**
 * The first occurrence of needle[0..n) in hay[0..hn), or NULL (n >= 1). With SSE2, 16 places
 * are tried at once by the needle's first and last bytes and only places where both match are
 * compared in full: several times faster than glibc's memmem, which the diagnosis and the model
 * use on every chromium event and stack frame.
 */
static inline const char *tl_scan_find(const char *hay, size_t hn, const char *needle, size_t n)
{
    if (hn < n)
        return NULL;
    if (n == 1)
        return memchr(hay, needle[0], hn);
#if defined(__SSE2__)
    size_t i = 0;
    const __m128i first = _mm_set1_epi8(needle[0]);
    const __m128i last = _mm_set1_epi8(needle[n - 1]);
    for (; i + n - 1 + 16 <= hn; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(hay + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(hay + i + n - 1));
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
        while (m) {
            unsigned k = (unsigned)__builtin_ctz(m);
            if (memcmp(hay + i + k + 1, needle + 1, n - 2) == 0)
                return hay + i + k;
            m &= m - 1;
        }
    }
    /* The last places, fewer than 16: one by one. */
    for (; i + n <= hn; i++)
        if (hay[i] == needle[0] && memcmp(hay + i + 1, needle + 1, n - 1) == 0)
            return hay + i;
    return NULL;
#else
    return memmem(hay, hn, needle, n);
#endif
}

#endif
