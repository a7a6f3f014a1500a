/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UTF-8 validation (an ASCII fast path 64, 32 and 8 bytes at a time, then the Unicode table of
 * well-formed sequences) and repair with U+FFFD.
 */
#include "base/config.h"
#include "base/utf8.h"
#include "base/buf.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

size_t tl_utf8_valid_prefix(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* Skip ASCII 64, 32, then 8 bytes at a time: the common case by far (whole chunks
         * of a log are checked at once, lines.c). */
#if defined(__SSE2__)
        while (i + 64 <= n) {
            const __m128i *v = (const __m128i *)(const void *)(p + i);
            __m128i o = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
                                     _mm_or_si128(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
            if (_mm_movemask_epi8(o))
                break;
            i += 64;
        }
#endif
        while (i + 32 <= n) {
            uint64_t w[4];
            memcpy(w, p + i, 32);
            if ((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL)
                break;
            i += 32;
        }
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0; /* no overlongs */
            else if (c == 0xED)
                hi = 0x9F; /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F; /* nothing above U+10FFFF */
        } else {
            return i;
        }
        if (i + len > n)
            return i;
        if (p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (size_t k = 2; k < len; k++)
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
        i += len;
    }
    return n;
}

bool tl_utf8_valid(const char *p, size_t n)
{
    return tl_utf8_valid_prefix(p, n) == n;
}

void tl_utf8_sanitize(struct tl_buf *out, const char *p, size_t n)
{
    while (n) {
        size_t ok = tl_utf8_valid_prefix(p, n);
        tl_buf_add(out, p, ok);
        p += ok;
        n -= ok;
        if (!n)
            break;
        /* One replacement per maximal ill-formed subpart: the bad lead byte
         * and the continuation bytes that follow it. */
        tl_buf_add(out, "\xEF\xBF\xBD", 3);
        size_t k = 1;
        while (k < n && k < 4 && ((unsigned char)p[k] & 0xC0) == 0x80)
            k++;
        p += k;
        n -= k;
    }
}
