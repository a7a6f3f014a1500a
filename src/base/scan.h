/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Finding the bytes a JSON string cannot hold as they are, 16 at a time:
 * most string bytes need no work, and a byte-at-a-time loop over them is
 * what the parser and the writer spent most of their time in. SSE2 (every
 * x86-64) when the compiler targets it; elsewhere two 64-bit words with the
 * classic "has a byte less than" bit trick, which is exact for the lowest
 * matching byte (a false hit can only lie above a true one).
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

#endif
