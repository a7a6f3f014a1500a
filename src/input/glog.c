/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The glog prefix scanner: finds "V1206 15:18:15.925000 1500233 path:22] " anywhere in a line,
 * as the reference's unanchored regex does.
 */
#include "base/config.h"
#include "input/glog.h"
#include "base/utf8.h"

#include <string.h>

static inline bool dig(char c)
{
    return c >= '0' && c <= '9';
}

/* Parse digits p[0..n) into *v; false on overflow of u64. */
static bool to_u64(const char *p, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = (uint64_t)(p[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

/* Length of the UTF-8 character at p: 1 for ASCII, and for any byte that
 * does not start a well-formed sequence (only repaired lines come here, but
 * the scanner is also used on its own). */
static size_t char_len(const char *p, size_t avail)
{
    unsigned c = (unsigned char)p[0];
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (n == 1 || n > avail || !tl_utf8_valid(p, n))
        return 1;
    return n;
}

/* Try to match the prefix starting exactly at s[i]. */
static bool match_at(const char *s, size_t n, size_t i, struct tl_glog *g)
{
    /* L MMDD space HH:MM:SS sep uuuuuu space: 22 bytes with a 1-byte sep */
    if (n - i < 22)
        return false;
    const char *p = s + i;
    for (int k = 1; k <= 4; k++)
        if (!dig(p[k]))
            return false;
    if (p[5] != ' ' || !dig(p[6]) || !dig(p[7]) || p[8] != ':' || !dig(p[9]) || !dig(p[10]) ||
        p[11] != ':' || !dig(p[12]) || !dig(p[13]))
        return false;
    /* The separator is any one character; the reference's regex runs on
     * UTF-8 text, where that is a whole code point. */
    size_t sl = char_len(p + 14, n - i - 14);
    if (n - i < 21 + sl)
        return false;
    const char *u = p + 14 + sl;
    for (int k = 0; k < 6; k++)
        if (!dig(u[k]))
            return false;
    if (u[6] != ' ')
        return false;
    size_t j = (size_t)(u + 7 - s);
    size_t t0 = j;
    while (j < n && dig(s[j]))
        j++;
    if (j == t0)
        return false;
    size_t t1 = j;
    /* The path is [^:]+ right after the thread digits; if the digits run into
     * the ':' the regex backtracks one digit into the path. */
    const char *colon = memchr(s + t1, ':', n - t1);
    if (!colon)
        return false;
    size_t c = (size_t)(colon - s);
    if (c == t1) {
        if (t1 - t0 < 2)
            return false;
        t1--;
    }
    size_t l0 = c + 1, l = l0;
    while (l < n && dig(s[l]))
        l++;
    /* "]", one space, and at least one character of envelope. */
    if (l == l0 || l + 2 >= n || s[l] != ']' || s[l + 1] != ' ')
        return false;
    uint64_t thread, lineno;
    if (!to_u64(s + t0, t1 - t0, &thread) || !to_u64(s + l0, l - l0, &lineno))
        return false;
    g->level = p[0];
    memcpy(g->month, p + 1, 2);
    memcpy(g->day, p + 3, 2);
    memcpy(g->time, p + 6, 8);
    memcpy(g->micros, u, 6);
    g->thread = thread;
    g->pathname = tl_str_make(s + t1, c - t1);
    g->lineno = lineno;
    g->envelope = tl_str_make(s + l + 2, n - (l + 2));
    return true;
}

bool tl_glog_parse(struct tl_str line, struct tl_glog *g)
{
    const char *s = line.p;
    size_t n = line.n;
    for (size_t i = 0; i + 22 <= n; i++) {
        char c = s[i];
        if ((c == 'V' || c == 'I' || c == 'W' || c == 'E' || c == 'C') && match_at(s, n, i, g))
            return true;
    }
    return false;
}
