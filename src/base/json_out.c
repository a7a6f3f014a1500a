/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The streaming JSON writer (json_out.h): a comma and, when pretty, a newline and indent
 * before each item; the container's closing bracket on its own line unless it is empty.
 */
#include "base/config.h"
#include "base/json_out.h"
#include "base/json_num.h"
#include "base/json_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tl_jw_init(struct tl_jw *w, struct tl_buf *out, bool pretty)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->pretty = pretty;
}

static void newline(struct tl_jw *w, int depth)
{
    if (!w->pretty)
        return;
    tl_buf_addch(w->out, '\n');
    for (int i = 0; i < depth; i++)
        tl_buf_adds(w->out, "  ");
}

/* Before a value or a key: the separator of the container it is in. */
static void item(struct tl_jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0)
        return;
    if (w->has_items[w->depth])
        tl_buf_addch(w->out, ',');
    w->has_items[w->depth] = true;
    newline(w, w->depth);
}

static void open(struct tl_jw *w, char c)
{
    item(w);
    tl_buf_addch(w->out, c);
    if (w->depth + 1 < TL_JW_MAX_DEPTH)
        w->depth++;
    w->has_items[w->depth] = false;
}

void tl_jw_object(struct tl_jw *w)
{
    open(w, '{');
}

void tl_jw_array(struct tl_jw *w)
{
    open(w, '[');
}

void tl_jw_end(struct tl_jw *w, char close)
{
    if (w->depth == 0)
        return;
    bool any = w->has_items[w->depth];
    w->depth--;
    if (any)
        newline(w, w->depth);
    tl_buf_addch(w->out, close);
}

void tl_jw_key(struct tl_jw *w, const char *key)
{
    item(w);
    tl_json_write_string(w->out, key, strlen(key));
    tl_buf_adds(w->out, w->pretty ? ": " : ":");
    w->after_key = true;
}

void tl_jw_strn(struct tl_jw *w, const char *p, size_t n)
{
    item(w);
    if (p)
        tl_json_write_text(w->out, p, n);
    else
        tl_buf_adds(w->out, "null");
}

void tl_jw_str(struct tl_jw *w, const char *s)
{
    tl_jw_strn(w, s, s ? strlen(s) : 0);
}

void tl_jw_u64(struct tl_jw *w, uint64_t v)
{
    item(w);
    tl_buf_addu(w->out, v);
}

void tl_jw_f64(struct tl_jw *w, double v)
{
    item(w);
    tl_json_write_double(w->out, v);
}

static bool reads_back(const char *p, size_t n, double v)
{
    struct tl_num num;
    return tl_json_num_parse(p, n, &num) == 0 && memcmp(&num.d, &v, sizeof(v)) == 0;
}

/* The next integer-valued double after f (f an integer) in direction dir. */
static double next_integer(double f, int dir)
{
    if (f < 9007199254740992.0) /* 2^53: every integer is a double */
        return f + dir;
    return nextafter(f, dir > 0 ? INFINITY : 0);
}

/* A decimal "<significand>e<exp>" that serde's reader maps to v. It converts the significand
 * to a double (exact here: a double this large is an integer) and divides or multiplies it
 * by a power of ten (rounded, and the power itself may be), so the digits of v may land an
 * ulp or more away: walk the doubles next to them until one lands on v, with significands of
 * 1 digit up to 20 (their binades differ, so one may reach a double another skips, and a
 * value serde read from a short literal is reached from that literal's length). Some doubles
 * no literal reaches; every value serde read is reached. */
static bool serde_exact(char *out, size_t cap, double v)
{
    char e[40];
    snprintf(e, sizeof(e), "%.19e", fabs(v)); /* "d.ddddddddddddddddddde+XX" */
    uint64_t sig = 0;
    int digits = 0;
    const char *p = e;
    for (; *p && *p != 'e'; p++) {
        if (*p == '.')
            continue;
        if (sig > (UINT64_MAX - 9) / 10)
            break; /* serde keeps up to 20 digits, as many as fit */
        sig = sig * 10 + (uint64_t)(*p - '0');
        digits++;
    }
    int exp10 = atoi(strchr(e, 'e') + 1) - (digits - 1);
    /* the fewest digits first: 0.9... as 1, then 1 digit, ... */
    int n = snprintf(out, cap, "%s1e%d", v < 0 ? "-" : "", exp10 + digits);
    if (n > 0 && (size_t)n < cap && reads_back(out, (size_t)n, v))
        return true;
    for (int m = digits - 1; m >= 0; m--) {
        uint64_t scale = 1;
        for (int k = 0; k < m; k++)
            scale *= 10;
        uint64_t s = sig / scale + (m && sig % scale >= scale / 2); /* rounded to digits - m */
        double up = (double)s, down = up;
        for (int i = 0; s && i < 128; i++) {
            double f = i % 2 ? (up = next_integer(up, 1))
                       : i   ? (down = next_integer(down, -1))
                             : up;
            if (f <= 0 || f >= 18446744073709551616.0)
                continue;
            n = snprintf(out, cap, "%s%llue%d", v < 0 ? "-" : "", (unsigned long long)f, exp10 + m);
            if (n > 0 && (size_t)n < cap && reads_back(out, (size_t)n, v))
                return true;
        }
    }
    return false;
}

void tl_jw_f64_exact(struct tl_jw *w, double v)
{
    item(w);
    size_t at = w->out->len;
    tl_json_write_double(w->out, v);
    if (!isfinite(v) || reads_back(w->out->buf + at, w->out->len - at, v))
        return;
    char alt[48];
    if (serde_exact(alt, sizeof(alt), v)) {
        tl_buf_setlen(w->out, at);
        tl_buf_adds(w->out, alt);
    }
}

void tl_jw_bool(struct tl_jw *w, bool v)
{
    item(w);
    tl_buf_adds(w->out, v ? "true" : "false");
}

void tl_jw_null(struct tl_jw *w)
{
    item(w);
    tl_buf_adds(w->out, "null");
}
