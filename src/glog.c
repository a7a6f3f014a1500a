/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"
#include "glog.h"

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

/* Try to match the prefix starting exactly at s[i]. */
static bool match_at(const char *s, size_t n, size_t i, struct tl_glog *g)
{
    /* L MMDD space HH:MM:SS sep uuuuuu space = 1+4+1+8+1+6+1 = 22 bytes */
    if (n - i < 22)
        return false;
    const char *p = s + i;
    for (int k = 1; k <= 4; k++)
        if (!dig(p[k]))
            return false;
    if (p[5] != ' ' || !dig(p[6]) || !dig(p[7]) || p[8] != ':' || !dig(p[9]) || !dig(p[10]) ||
        p[11] != ':' || !dig(p[12]) || !dig(p[13]))
        return false;
    /* p[14] is any single character (normally '.'), but '.' in a regex does
     * not match a newline, which a line cannot hold anyway. */
    for (int k = 15; k < 21; k++)
        if (!dig(p[k]))
            return false;
    if (p[21] != ' ')
        return false;
    size_t j = i + 22;
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
    memcpy(g->micros, p + 15, 6);
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
