/* SPDX-License-Identifier: BSD-3-Clause */
/* A chromium event's few fields off its JSON text (chromium.h). */
#include "base/config.h"
#include "input/chromium.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cur {
    const char *p, *end;
};

static void ws(struct cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* A string at c->p (its opening quote): its bytes between the quotes; false if unterminated. */
static bool string(struct cur *c, struct tl_str *s)
{
    const char *q = ++c->p;
    for (;;) {
        const char *e = memchr(q, '"', (size_t)(c->end - q));
        if (!e)
            return false;
        size_t bs = 0; /* an odd run of backslashes before it escapes it */
        while (e - bs > c->p && e[-1 - (ptrdiff_t)bs] == '\\')
            bs++;
        if (bs % 2 == 0) {
            *s = (struct tl_str){c->p, (size_t)(e - c->p)};
            c->p = e + 1;
            return true;
        }
        q = e + 1;
    }
}

/* The bytes that end a number, true, false or null (NUL too, as strchr finds it). */
static const bool DELIM[256] = {
    [','] = 1, ['}'] = 1, [']'] = 1, [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, [0] = 1};

/* The bytes skip() stops at outside strings: a string's quote, brackets. */
static const bool STRUCTURAL[256] = {['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1};

/* The bytes of a number. */
static const bool NUMERIC[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1};

/* A number, true, false or null: its bytes up to the next delimiter. */
static struct tl_str scalar(struct cur *c)
{
    const char *s = c->p;
    while (c->p < c->end && !DELIM[(unsigned char)*c->p])
        c->p++;
    return (struct tl_str){s, (size_t)(c->p - s)};
}

/* Any value, skipped: strings whole, brackets matched. */
static bool skip(struct cur *c)
{
    if (c->p >= c->end)
        return false;
    if (*c->p == '"') {
        struct tl_str s;
        return string(c, &s);
    }
    if (*c->p != '{' && *c->p != '[')
        return scalar(c).n > 0;
    /* The big events' arguments are long arrays of strings: from one bracket or quote to the
     * next by a table, strings by their closing quote. */
    int depth = 0;
    while (c->p < c->end) {
        while (c->p < c->end && !STRUCTURAL[(unsigned char)*c->p])
            c->p++;
        if (c->p >= c->end)
            break;
        char ch = *c->p;
        if (ch == '"') {
            struct tl_str s;
            if (!string(c, &s))
                return false;
            continue;
        }
        c->p++;
        if (ch == '{' || ch == '[')
            depth++;
        else if (--depth == 0)
            return true;
    }
    return false;
}

static bool number(struct tl_str s, double *out)
{
    char buf[64];
    if (!s.n || s.n >= sizeof(buf))
        return false;
    for (size_t i = 0; i < s.n; i++)
        if (!NUMERIC[(unsigned char)s.p[i]])
            return false;
    /* Whole numbers of up to 15 digits (pid, tid) are exact as doubles: strtod's value. */
    size_t neg = s.p[0] == '-', i = neg;
    uint64_t m = 0;
    while (i < s.n && i - neg < 15 && s.p[i] >= '0' && s.p[i] <= '9')
        m = m * 10 + (uint64_t)(s.p[i++] - '0');
    if (i == s.n && i > neg) {
        *out = neg ? -(double)m : (double)m;
        return true;
    }
    memcpy(buf, s.p, s.n);
    buf[s.n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static int64_t whole(struct tl_str s)
{
    double v;
    return number(s, &v) && fabs(v) < 9e15 ? (int64_t)v : 0;
}

/* The members of the object at c->p; each value handed to member(), which consumes it. */
static bool members(struct cur *c, bool (*member)(struct cur *, struct tl_str, void *), void *ctx)
{
    if (c->p >= c->end || *c->p != '{')
        return false;
    c->p++;
    ws(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return true;
    }
    while (c->p < c->end) {
        struct tl_str key;
        if (*c->p != '"' || !string(c, &key))
            return false;
        ws(c);
        if (c->p >= c->end || *c->p != ':')
            return false;
        c->p++;
        ws(c);
        if (!member(c, key, ctx))
            return false;
        ws(c);
        if (c->p >= c->end)
            return false;
        if (*c->p == '}') {
            c->p++;
            return true;
        }
        if (*c->p != ',')
            return false;
        c->p++;
        ws(c);
    }
    return false;
}

static bool arg(struct cur *c, struct tl_str key, void *ctx)
{
    struct tl_chromium_peek *ev = ctx;
    if (tl_str_eq_cstr(key, "cache_state") && c->p < c->end && *c->p == '"')
        return string(c, &ev->cache_state);
    return skip(c);
}

static bool top(struct cur *c, struct tl_str key, void *ctx)
{
    struct tl_chromium_peek *ev = ctx;
    bool str = c->p < c->end && *c->p == '"';
    if (str && tl_str_eq_cstr(key, "name"))
        return string(c, &ev->name);
    if (str && tl_str_eq_cstr(key, "ph")) {
        struct tl_str s;
        if (!string(c, &s))
            return false;
        ev->ph = s.n == 1 ? s.p[0] : 0;
        return true;
    }
    if (c->p < c->end && *c->p == '{' && tl_str_eq_cstr(key, "args")) {
        ev->cache_state = TL_STR_NULL;
        return members(c, arg, ev);
    }
    if (str || c->p >= c->end || *c->p == '{' || *c->p == '[')
        return skip(c);
    struct tl_str s = scalar(c);
    if (!s.n)
        return false;
    if (tl_str_eq_cstr(key, "ts"))
        ev->has_ts = number(s, &ev->ts);
    else if (tl_str_eq_cstr(key, "dur"))
        ev->has_dur = number(s, &ev->dur);
    else if (tl_str_eq_cstr(key, "pid"))
        ev->pid = whole(s);
    else if (tl_str_eq_cstr(key, "tid"))
        ev->tid = whole(s);
    return true;
}

bool tl_chromium_peek(struct tl_str text, struct tl_chromium_peek *out)
{
    memset(out, 0, sizeof(*out));
    struct cur c = {text.p, text.p + text.n};
    if (!text.p)
        return false;
    ws(&c);
    if (!members(&c, top, out))
        return false;
    ws(&c);
    return c.p == c.end;
}
