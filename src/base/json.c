/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JSON DOM parser: a recursive-descent reader over one buffer, strings decoded only
 * when they hold escapes (scanned 16 bytes at a time, scan.h), numbers kept with their
 * literal kind and converted as serde_json converts them (json_num.c).
 */
#include "base/config.h"
#include "base/json.h"
#include "base/json_num.h"
#include "base/scan.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Recursive descent, bounded by TL_JSON_MAX_DEPTH. Children of the open
 * containers are collected on one shared value stack (first on the C stack,
 * then in the arena when it outgrows that) and copied into an exactly sized
 * arena array when their container closes, so every array and object ends up
 * contiguous without per-node allocations.
 */

/* Room for the children of a chromium event's open containers (an array of some 300 cache key
 * components) on the C stack: 28 KiB. */
#define LOCAL_STACK 512

struct parser {
    const unsigned char *p;
    const unsigned char *end;
    struct tl_arena *a;
    struct tl_json_member *stk; /* open containers' children */
    size_t top;
    size_t cap;
    const unsigned char *err_at;
    const char *err_msg;
};

/* String body bytes: 0 = copy through, else a class needing attention. */
enum { S_PLAIN = 0, S_QUOTE, S_BSLASH, S_CTRL, S_HIGH };

static const unsigned char str_class[256] = {
    /* 0x00-0x1f: control characters */
    S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, /* 0x00 */
    S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, /* 0x08 */
    S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, /* 0x10 */
    S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, S_CTRL, /* 0x18 */
    ['"'] = S_QUOTE, ['\\'] = S_BSLASH,
    /* 0x80-0xff: UTF-8 sequences, validated one by one */
    [0x80] = S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, /* 0x80 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0x88 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0x90 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0x98 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xa0 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xa8 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xb0 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xb8 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xc0 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xc8 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xd0 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xd8 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xe0 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xe8 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xf0 */
    S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH, S_HIGH,          /* 0xf8 */
};

/* The bytes after a backslash that make a two-byte escape. */
static const bool short_escape[256] = {
    ['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 1, ['f'] = 1, ['n'] = 1, ['r'] = 1, ['t'] = 1,
};

/* Value of a hex digit plus one, or 0 for other bytes. */
static const unsigned char hex_val1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Exact powers of ten for the fast float path (10^22 is the last exact one). */
static const double pow10_exact[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int fail(struct parser *ps, const unsigned char *at, const char *msg)
{
    ps->err_at = at;
    ps->err_msg = msg;
    return -1;
}

static inline const unsigned char *skip_ws(const unsigned char *p, const unsigned char *end)
{
    while (p < end && *p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* Validate one UTF-8 sequence whose lead byte (>= 0x80) is at p; returns its end or NULL. */
static const unsigned char *utf8_seq(struct parser *ps, const unsigned char *p,
                                     const unsigned char *end)
{
    unsigned c = p[0];
    unsigned lo = 0x80;
    unsigned hi = 0xbf;
    size_t len;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* > U+10FFFF */
    } else {
        fail(ps, p, "invalid UTF-8 in string");
        return NULL;
    }
    if ((size_t)(end - p) < len) {
        fail(ps, end, "unexpected end of input");
        return NULL;
    }
    if (p[1] < lo || p[1] > hi) {
        fail(ps, p, "invalid UTF-8 in string");
        return NULL;
    }
    for (size_t i = 2; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            fail(ps, p, "invalid UTF-8 in string");
            return NULL;
        }
    }
    return p + len;
}

/* Four hex digits at p into *cp; returns the end or NULL. */
static const unsigned char *hex4(struct parser *ps, const unsigned char *p,
                                 const unsigned char *end, unsigned *cp)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++, p++) {
        if (p >= end) {
            fail(ps, end, "unexpected end of input");
            return NULL;
        }
        unsigned h = hex_val1[*p];
        if (h == 0) {
            fail(ps, p, "invalid escape");
            return NULL;
        }
        v = v << 4 | (h - 1);
    }
    *cp = v;
    return p;
}

/* Validate the escape whose backslash is at p; returns the end or NULL. */
static const unsigned char *check_escape(struct parser *ps, const unsigned char *p,
                                         const unsigned char *end)
{
    const unsigned char *bs = p;
    p++;
    if (p >= end) {
        fail(ps, end, "unexpected end of input");
        return NULL;
    }
    switch (*p) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
        return p + 1;
    case 'u':
        break;
    default:
        fail(ps, p, "invalid escape");
        return NULL;
    }
    unsigned cp;
    p = hex4(ps, p + 1, end, &cp);
    if (!p)
        return NULL;
    if (cp >= 0xdc00 && cp <= 0xdfff) {
        fail(ps, bs, "lone surrogate");
        return NULL;
    }
    if (cp < 0xd800 || cp > 0xdbff)
        return p;
    /* A high surrogate must be followed by an escaped low one. */
    if (p >= end) {
        fail(ps, end, "unexpected end of input");
        return NULL;
    }
    if (p[0] != '\\') {
        fail(ps, bs, "lone surrogate");
        return NULL;
    }
    if (p + 1 >= end) {
        fail(ps, end, "unexpected end of input");
        return NULL;
    }
    if (p[1] != 'u') {
        fail(ps, bs, "lone surrogate");
        return NULL;
    }
    unsigned lo;
    const unsigned char *q = hex4(ps, p + 2, end, &lo);
    if (!q)
        return NULL;
    if (lo < 0xdc00 || lo > 0xdfff) {
        fail(ps, bs, "lone surrogate");
        return NULL;
    }
    return q;
}

static inline unsigned hex4_trusted(const unsigned char *p)
{
    return (unsigned)(hex_val1[p[0]] - 1) << 12 | (unsigned)(hex_val1[p[1]] - 1) << 8 |
           (unsigned)(hex_val1[p[2]] - 1) << 4 | (unsigned)(hex_val1[p[3]] - 1);
}

/* Decode the validated body s[0..n) (with escapes) into the arena. */
static struct tl_str decode_string(struct tl_arena *a, const unsigned char *s, size_t n)
{
    /* Every escape decodes to no more bytes than it spans. */
    char *dst = tl_arena_alloc(a, n + 1);
    char *o = dst;
    const unsigned char *end = s + n;
    while (s < end) {
        const unsigned char *bs = memchr(s, '\\', (size_t)(end - s));
        if (!bs)
            bs = end;
        memcpy(o, s, (size_t)(bs - s));
        o += bs - s;
        s = bs;
        if (s == end)
            break;
        unsigned char c = s[1];
        s += 2;
        switch (c) {
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'u': {
            unsigned cp = hex4_trusted(s);
            s += 4;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4_trusted(s + 2) - 0xdc00);
                s += 6;
            }
            if (cp < 0x80) {
                *o++ = (char)cp;
            } else if (cp < 0x800) {
                *o++ = (char)(0xc0 | cp >> 6);
                *o++ = (char)(0x80 | (cp & 0x3f));
            } else if (cp < 0x10000) {
                *o++ = (char)(0xe0 | cp >> 12);
                *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
                *o++ = (char)(0x80 | (cp & 0x3f));
            } else {
                *o++ = (char)(0xf0 | cp >> 18);
                *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
                *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
                *o++ = (char)(0x80 | (cp & 0x3f));
            }
            break;
        }
        default: /* '"', '\\', '/' */
            *o++ = (char)c;
            break;
        }
    }
    *o = '\0';
    return tl_str_make(dst, (size_t)(o - dst));
}

/* Whether the escape at p (validated, ending at e) is the one json_write.h writes for the
 * byte it stands for: \u00XX in lowercase hex for a control character without a short form
 * (\b \t \n \f \r, which the caller has seen). */
static bool canonical_u(const unsigned char *p, const unsigned char *e)
{
    if (e - p != 6 || p[2] != '0' || p[3] != '0' || (p[4] != '0' && p[4] != '1'))
        return false;
    unsigned char d = p[5];
    if (!((d >= '0' && d <= '9') || (d >= 'a' && d <= 'f')))
        return false;
    return p[4] == '1' || !(d == '8' || d == '9' || d == 'a' || d == 'c' || d == 'd');
}

/* ps->p is just past the opening quote. *src: the body as written when writing *out escaped
 * gives it back (see json.h), else TL_STR_NULL; NULL for keys, which do not keep it. */
static int parse_string(struct parser *ps, struct tl_str *out, struct tl_str *src)
{
    const unsigned char *start = ps->p;
    const unsigned char *p = start;
    const unsigned char *end = ps->end;
    bool escaped = false, canonical = true;
    for (;;) {
        unsigned k = 16;
        while (k == 16 && end - p >= 16) {
            k = tl_scan16_json(p, true);
            p += k;
        }
        if (k == 16)
            while (p < end && str_class[*p] == S_PLAIN)
                p++;
        if (TL_UNLIKELY(p >= end))
            return fail(ps, end, "unexpected end of input");
        switch (str_class[*p]) {
        case S_QUOTE: {
            struct tl_str body = tl_str_make((const char *)start, (size_t)(p - start));
            *out = TL_LIKELY(!escaped) ? body : decode_string(ps->a, start, body.n);
            if (src)
                *src = canonical ? body : TL_STR_NULL;
            ps->p = p + 1;
            return 0;
        }
        case S_BSLASH: {
            escaped = true;
            if (TL_LIKELY(end - p >= 2 && short_escape[p[1]])) { /* most: \n, \" */
                canonical = canonical && p[1] != '/';
                p += 2;
                continue;
            }
            const unsigned char *e = check_escape(ps, p, end);
            canonical = canonical && e && canonical_u(p, e);
            p = e;
            break;
        }
        case S_CTRL:
            return fail(ps, p, "control character in string");
        default:
            p = utf8_seq(ps, p, end);
            break;
        }
        if (!p)
            return -1;
    }
}

static inline bool is_digit(unsigned c)
{
    return c - '0' < 10;
}

/* A number as scanned: its digits in m (with frac_digits of them after the point) and its
 * exponent; inexact when m lost digits (integer overflow or a long fraction). */
struct numscan {
    uint64_t m;
    int frac_digits;
    long exp10;
    bool neg, is_float, inexact;
};

/* The integer part: "0" or a digit 1-9 then digits. NULL (and ps's error set) when invalid. */
static inline const unsigned char *scan_int_part(struct parser *ps, const unsigned char *p,
                                                 const unsigned char *end, struct numscan *n)
{
    if (p >= end || !is_digit(*p)) {
        fail(ps, p, "invalid number");
        return NULL;
    }
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p)) {
            fail(ps, p, "invalid number");
            return NULL;
        }
        return p;
    }
    uint64_t m = n->m;
    do {
        unsigned d = *p - '0';
        /* 1844674407370955161 * 10 + 5 == UINT64_MAX */
        if (TL_LIKELY(m < 1844674407370955161ULL) || (m == 1844674407370955161ULL && d <= 5))
            m = m * 10 + d;
        else
            n->inexact = true;
        p++;
    } while (p < end && is_digit(*p));
    n->m = m;
    return p;
}

/* The digits after a '.' (p is past it), added to m while they fit. */
static inline const unsigned char *scan_fraction(struct parser *ps, const unsigned char *p,
                                                 const unsigned char *end, struct numscan *n)
{
    if (p >= end || !is_digit(*p)) {
        fail(ps, p, "invalid number");
        return NULL;
    }
    do {
        if (n->m < 1844674407370955161ULL) {
            n->m = n->m * 10 + (unsigned)(*p - '0');
            n->frac_digits++;
        } else {
            n->inexact = true;
        }
        p++;
    } while (p < end && is_digit(*p));
    return p;
}

/* The exponent after an 'e' or 'E' (p is past it), capped so that it cannot overflow. */
static inline const unsigned char *scan_exponent(struct parser *ps, const unsigned char *p,
                                                 const unsigned char *end, struct numscan *n)
{
    bool eneg = false;
    if (p < end && (*p == '+' || *p == '-')) {
        eneg = *p == '-';
        p++;
    }
    if (p >= end || !is_digit(*p)) {
        fail(ps, p, "invalid number");
        return NULL;
    }
    long exp10 = 0;
    do {
        if (exp10 < 100000)
            exp10 = exp10 * 10 + (*p - '0');
        p++;
    } while (p < end && is_digit(*p));
    n->exp10 = eneg ? -exp10 : exp10;
    return p;
}

/* An exact integer as a u64 or i64; false when it must be a float. */
static inline bool store_integer(struct tl_json *out, const struct numscan *n)
{
    if (n->is_float || n->inexact)
        return false;
    if (!n->neg) {
        out->u.num.kind = TL_JSON_UINT;
        out->u.num.u = n->m;
        out->u.num.d = (double)n->m;
        return true;
    }
    /* serde_json turns "-0" into the float -0.0 */
    if (n->m != 0 && n->m <= (uint64_t)INT64_MAX + 1) {
        out->u.num.kind = TL_JSON_INT;
        out->u.num.i = n->m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)n->m;
        out->u.num.d = (double)out->u.num.i;
        return true;
    }
    return false;
}

/* A float, the number s..p scanned into n. */
static inline int store_float(struct parser *ps, struct tl_json *out, const struct numscan *n,
                              const unsigned char *s, const unsigned char *p)
{
    out->u.num.kind = TL_JSON_FLOAT;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    long e = n->exp10 - n->frac_digits;
    if (!n->inexact && n->m <= (1ULL << 53) && e >= -22 && e <= 22) {
        /* Clinger's fast path: both operands are exact, so one IEEE
         * operation rounds correctly. */
        double d = (double)n->m;
        if (e < 0)
            d /= pow10_exact[-e];
        else
            d *= pow10_exact[e];
        out->u.num.d = n->neg ? -d : d;
        return 0;
    }
#endif
    /* Everything else goes through serde_json's own (not correctly rounded)
     * conversion, so that floats are written back as the reference writes
     * them; see json_num.h. The fast path above gives the same results. */
    struct tl_num num;
    if (tl_json_num_parse((const char *)s, (size_t)(p - s), &num) < 0)
        return fail(ps, s, "number out of range");
    out->u.num.d = num.d;
    return 0;
}

static int parse_number(struct parser *ps, struct tl_json *out)
{
    const unsigned char *s = ps->p;
    const unsigned char *p = s;
    const unsigned char *end = ps->end;
    struct numscan n = {0, 0, 0, false, false, false};

    if (*p == '-') {
        n.neg = true;
        p++;
    }
    p = scan_int_part(ps, p, end, &n);
    if (!p)
        return -1;
    if (p < end && *p == '.') {
        n.is_float = true;
        p = scan_fraction(ps, p + 1, end, &n);
        if (!p)
            return -1;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        n.is_float = true;
        p = scan_exponent(ps, p + 1, end, &n);
        if (!p)
            return -1;
    }
    ps->p = p;
    out->type = TL_JSON_NUMBER;
    out->u.num.u = 0;
    out->u.num.i = 0;
    if (store_integer(out, &n))
        return 0;
    return store_float(ps, out, &n, s, p);
}

static void push(struct parser *ps, const struct tl_str *key, const struct tl_json *v)
{
    if (TL_UNLIKELY(ps->top == ps->cap)) {
        size_t ncap = ps->cap * 2;
        struct tl_json_member *n = tl_arena_alloc(ps->a, ncap * sizeof(*n));
        memcpy(n, ps->stk, ps->top * sizeof(*n));
        ps->stk = n;
        ps->cap = ncap;
    }
    struct tl_json_member *m = &ps->stk[ps->top++];
    if (key)
        m->key = *key;
    m->value = *v;
}

static int parse_value(struct parser *ps, struct tl_json *out, int depth);

static int parse_array(struct parser *ps, struct tl_json *out, int depth)
{
    const unsigned char *end = ps->end;
    if (depth + 1 >= TL_JSON_MAX_DEPTH)
        return fail(ps, ps->p, "nesting too deep");
    out->type = TL_JSON_ARRAY;
    out->u.arr.items = NULL;
    out->u.arr.n = 0;
    const unsigned char *p = skip_ws(ps->p + 1, end);
    if (p < end && *p == ']') {
        ps->p = p + 1;
        return 0;
    }
    size_t base = ps->top;
    for (;;) {
        struct tl_json v;
        ps->p = p;
        if (parse_value(ps, &v, depth + 1))
            return -1;
        push(ps, NULL, &v);
        p = skip_ws(ps->p, end);
        if (TL_UNLIKELY(p >= end))
            return fail(ps, end, "unexpected end of input");
        if (*p == ',') {
            p = skip_ws(p + 1, end);
            continue;
        }
        if (*p == ']')
            break;
        return fail(ps, p, "expected ',' or ']'");
    }
    size_t n = ps->top - base;
    struct tl_json *items = tl_arena_alloc(ps->a, n * sizeof(*items));
    for (size_t i = 0; i < n; i++)
        items[i] = ps->stk[base + i].value;
    ps->top = base;
    out->u.arr.items = items;
    out->u.arr.n = n;
    ps->p = p + 1;
    return 0;
}

static int parse_object(struct parser *ps, struct tl_json *out, int depth)
{
    const unsigned char *end = ps->end;
    if (depth + 1 >= TL_JSON_MAX_DEPTH)
        return fail(ps, ps->p, "nesting too deep");
    out->type = TL_JSON_OBJECT;
    out->u.obj.items = NULL;
    out->u.obj.n = 0;
    const unsigned char *p = skip_ws(ps->p + 1, end);
    if (p < end && *p == '}') {
        ps->p = p + 1;
        return 0;
    }
    size_t base = ps->top;
    for (;;) {
        if (TL_UNLIKELY(p >= end))
            return fail(ps, end, "unexpected end of input");
        if (TL_UNLIKELY(*p != '"'))
            return fail(ps, p, "key must be a string");
        struct tl_str key;
        ps->p = p + 1;
        if (parse_string(ps, &key, NULL))
            return -1;
        p = ps->p;
        if (TL_LIKELY(p < end && *p == ':')) {
            p++;
        } else {
            p = skip_ws(p, end);
            if (p >= end)
                return fail(ps, end, "unexpected end of input");
            if (*p != ':')
                return fail(ps, p, "expected ':'");
            p++;
        }
        struct tl_json v;
        ps->p = skip_ws(p, end);
        if (parse_value(ps, &v, depth + 1))
            return -1;
        push(ps, &key, &v);
        p = skip_ws(ps->p, end);
        if (TL_UNLIKELY(p >= end))
            return fail(ps, end, "unexpected end of input");
        if (*p == ',') {
            p = skip_ws(p + 1, end);
            continue;
        }
        if (*p == '}')
            break;
        return fail(ps, p, "expected ',' or '}'");
    }
    size_t n = ps->top - base;
    struct tl_json_member *items = tl_arena_alloc(ps->a, n * sizeof(*items));
    memcpy(items, ps->stk + base, n * sizeof(*items));
    ps->top = base;
    out->u.obj.items = items;
    out->u.obj.n = n;
    ps->p = p + 1;
    return 0;
}

static int parse_literal(struct parser *ps, const char *word, size_t n)
{
    const unsigned char *p = ps->p;
    size_t avail = (size_t)(ps->end - p);
    size_t i = 0;
    while (i < n && i < avail && p[i] == (unsigned char)word[i])
        i++;
    if (i == n) {
        ps->p = p + n;
        return 0;
    }
    if (i == avail)
        return fail(ps, ps->end, "unexpected end of input");
    return fail(ps, p, "expected value");
}

/* ps->p is at the first byte of the value (whitespace already skipped). */
static int parse_value(struct parser *ps, struct tl_json *out, int depth)
{
    const unsigned char *p = ps->p;
    if (TL_UNLIKELY(p >= ps->end))
        return fail(ps, p, "unexpected end of input");
    switch (*p) {
    case '"':
        out->type = TL_JSON_STRING;
        ps->p = p + 1;
        return parse_string(ps, &out->u.str, &out->u.src);
    case '{':
        return parse_object(ps, out, depth);
    case '[':
        return parse_array(ps, out, depth);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return parse_number(ps, out);
    case 't':
        out->type = TL_JSON_BOOL;
        out->u.b = true;
        return parse_literal(ps, "true", 4);
    case 'f':
        out->type = TL_JSON_BOOL;
        out->u.b = false;
        return parse_literal(ps, "false", 5);
    case 'n':
        out->type = TL_JSON_NULL;
        return parse_literal(ps, "null", 4);
    default:
        return fail(ps, p, "expected value");
    }
}

int tl_json_parse(struct tl_arena *a, const char *text, size_t n, struct tl_json *out,
                  struct tl_json_error *err)
{
    struct tl_json_member local[LOCAL_STACK];
    if (!text) {
        text = "";
        n = 0;
    }
    const unsigned char *start = (const unsigned char *)text;
    struct parser ps = {
        .p = start,
        .end = start + n,
        .a = a,
        .stk = local,
        .top = 0,
        .cap = LOCAL_STACK,
    };
    ps.p = skip_ws(ps.p, ps.end);
    if (parse_value(&ps, out, 0) == 0) {
        ps.p = skip_ws(ps.p, ps.end);
        if (ps.p == ps.end)
            return 0;
        fail(&ps, ps.p, "trailing characters");
    }
    out->type = TL_JSON_NULL;
    if (err) {
        err->offset = (size_t)(ps.err_at - start);
        err->msg = ps.err_msg;
    }
    return -1;
}

const struct tl_json *tl_json_get_n(const struct tl_json *obj, const char *key, size_t n)
{
    if (!obj || obj->type != TL_JSON_OBJECT)
        return NULL;
    for (size_t i = obj->u.obj.n; i-- > 0;) {
        const struct tl_json_member *m = &obj->u.obj.items[i];
        /* The first byte first: no call for most other members of the same length. */
        if (m->key.n == n && (n == 0 || (m->key.p[0] == key[0] && memcmp(m->key.p, key, n) == 0)))
            return &m->value;
    }
    return NULL;
}

uint64_t tl_json_get_u64(const struct tl_json *obj, const char *key, uint64_t dflt)
{
    const struct tl_json *v = tl_json_get_type(obj, key, TL_JSON_NUMBER);
    return v && v->u.num.kind == TL_JSON_UINT ? v->u.num.u : dflt;
}

bool tl_json_get_seconds(const struct tl_json *obj, const char *key, double *out)
{
    const struct tl_json *v = tl_json_get_type(obj, key, TL_JSON_NUMBER);
    if (!v || !isfinite(v->u.num.d) || fabs(v->u.num.d) > 1e12)
        return false;
    *out = v->u.num.d;
    return true;
}
