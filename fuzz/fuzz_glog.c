/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for glog.c: the input up to its first newline is one log line
 * (the reader never hands out a '\n'). On a match, every captured field must
 * be what spec core.md §1.2 describes and lie inside the line; the match must
 * be the leftmost one, as found by an independent, slower reading of the
 * pattern; on no match, that reading must find nothing either.
 */
#include "base/config.h"
#include "input/glog.h"
#include "base/utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_glog: check failed: %s (line %d)\n", #cond, __LINE__);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool all_digits(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_digit(p[i]))
            return false;
    return true;
}

/* Whether the decimal digits p[0..n) fit in a u64, compared as text. */
static bool fits_u64(const char *p, size_t n)
{
    static const char max[] = "18446744073709551615";
    while (n > 1 && *p == '0') {
        p++;
        n--;
    }
    if (n != sizeof(max) - 1)
        return n < sizeof(max) - 1;
    return memcmp(p, max, n) <= 0;
}

static uint64_t value(const char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint64_t)(p[i] - '0');
    return v;
}

struct slow {
    size_t micros0;           /* the microseconds, after the separator */
    size_t thread0, thread_n; /* the thread digits */
    size_t path0, path_n;     /* the pathname */
    size_t line0, line_n;     /* the line-number digits */
    size_t env0;              /* the envelope, to the end of the line */
};

/*
 * The pattern at s[i], read from a template for the fixed part and piece by
 * piece for the rest:
 *   [VIWEC] DDDD ' ' DD:DD:DD any DDDDDD ' ' D+ [^:]+ ':' D+ "] " .+
 * The thread run gives back digits to the path only as far as needed (the
 * path needs one byte); numbers too large for a u64 do not match (glog.c's
 * choice; the reference would panic).
 */
static bool slow_match(const char *s, size_t n, size_t i, struct slow *m)
{
    static const char tmpl[] = "L9999 99:99:99?999999 ";
    size_t k = 0;
    size_t skew = 0; /* extra bytes of a multi-byte separator character */
    for (; tmpl[k]; k++) {
        if (i + k + skew >= n)
            return false;
        char c = s[i + k + skew];
        if (tmpl[k] == '?') {
            /* any one character: a whole code point when well-formed UTF-8 */
            unsigned char b = (unsigned char)c;
            size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
            if (len > 1 && i + k + len <= n && tl_utf8_valid_prefix(s + i + k, len) == len)
                skew = len - 1;
            continue;
        }
        if (tmpl[k] == 'L' && !strchr("VIWEC", c))
            return false;
        if (tmpl[k] == 'L' && c == '\0')
            return false;
        if (tmpl[k] == '9' && !is_digit(c))
            return false;
        if ((tmpl[k] == ' ' || tmpl[k] == ':') && c != tmpl[k])
            return false;
    }
    size_t t0 = i + k + skew;
    m->micros0 = t0 - 7;
    size_t t1 = t0;
    while (t1 < n && is_digit(s[t1]))
        t1++;
    /* Path: from the thread's end to the first ':' after it, not empty. */
    size_t c = t1;
    while (c < n && s[c] != ':')
        c++;
    if (c == n)
        return false;
    if (c == t1)
        t1--; /* give one digit back to the path */
    if (t1 <= t0)
        return false;
    size_t l0 = c + 1;
    size_t l1 = l0;
    while (l1 < n && is_digit(s[l1]))
        l1++;
    if (l1 == l0 || n - l1 < 3 || s[l1] != ']' || s[l1 + 1] != ' ')
        return false;
    if (!fits_u64(s + t0, t1 - t0) || !fits_u64(s + l0, l1 - l0))
        return false;
    m->thread0 = t0;
    m->thread_n = t1 - t0;
    m->path0 = t1;
    m->path_n = c - t1;
    m->line0 = l0;
    m->line_n = l1 - l0;
    m->env0 = l1 + 2;
    return true;
}

static bool inside(struct tl_str part, const char *s, size_t n)
{
    return part.p >= s && part.n <= n && (size_t)(part.p - s) <= n - part.n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nl = memchr(data, '\n', size);
    size_t n = nl ? (size_t)(nl - (const char *)data) : size;
    /* A private copy, so reads past the line are caught even when the
     * input goes on after the newline. */
    char *s = malloc(n ? n : 1);
    CHECK(s != NULL);
    if (n)
        memcpy(s, data, n);
    else
        s[0] = '\0';

    struct tl_glog g;
    memset(&g, 0xa5, sizeof(g));
    bool ok = tl_glog_parse(tl_str_make(s, n), &g);

    size_t first = n;
    struct slow m = {0};
    for (size_t i = 0; i < n; i++) {
        if (slow_match(s, n, i, &m)) {
            first = i;
            break;
        }
    }
    CHECK(ok == (first < n));
    if (!ok) {
        free(s);
        return 0;
    }

    /* Fixed fields. */
    const char *p = s + first;
    CHECK(g.level == p[0] && strchr("VIWEC", g.level) && g.level != '\0');
    CHECK(all_digits(g.month, 2) && all_digits(g.day, 2));
    CHECK(memcmp(g.month, p + 1, 2) == 0 && memcmp(g.day, p + 3, 2) == 0);
    CHECK(is_digit(g.time[0]) && is_digit(g.time[1]) && g.time[2] == ':');
    CHECK(is_digit(g.time[3]) && is_digit(g.time[4]) && g.time[5] == ':');
    CHECK(is_digit(g.time[6]) && is_digit(g.time[7]));
    CHECK(memcmp(g.time, p + 6, 8) == 0);
    CHECK(all_digits(g.micros, 6) && memcmp(g.micros, s + m.micros0, 6) == 0);

    /* Views: inside the line, in order, and the envelope runs to its end. */
    CHECK(inside(g.pathname, s, n) && inside(g.envelope, s, n));
    CHECK(g.pathname.n > 0 && !memchr(g.pathname.p, ':', g.pathname.n));
    CHECK(g.envelope.n > 0 && g.envelope.p + g.envelope.n == s + n);
    CHECK(g.pathname.p + g.pathname.n < g.envelope.p);
    CHECK(g.pathname.p[g.pathname.n] == ':');
    /* Greedy thread: the path starts with a digit only if it is that digit. */
    CHECK(!is_digit(g.pathname.p[0]) || g.pathname.n == 1);

    /* Same captures as the slow reading. */
    CHECK(g.pathname.p == s + m.path0 && g.pathname.n == m.path_n);
    CHECK(g.envelope.p == s + m.env0);
    CHECK(g.thread == value(s + m.thread0, m.thread_n));
    CHECK(g.lineno == value(s + m.line0, m.line_n));

    /* Parsing is a pure function of the line. */
    struct tl_glog h;
    CHECK(tl_glog_parse(tl_str_make(s, n), &h));
    CHECK(h.pathname.p == g.pathname.p && h.envelope.p == g.envelope.p);
    CHECK(h.thread == g.thread && h.lineno == g.lineno);

    free(s);
    return 0;
}
