/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writing JSON (json_write.h), in four parts: strings (escaping sixteen bytes at a time),
 * numbers (shortest round-trip floats, Ryu-style digit generation in serde's layout, and the
 * exact form serde's own reader reads back), parsed values in serde_json's compact and pretty
 * layouts with sorted keys, and the streaming writer of our own documents.
 */
#include "base/config.h"
#include "base/json_write.h"
#include "base/json_num.h"
#include "base/scan.h"
#include "base/utf8.h"
#include "base/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings --------------------------------------------------------------------------------- */

/* How each byte is written inside a string: 0 = raw, 'u' = \u00XX, else \<c>. */
/* clang-format off */
static const char esc_tbl[256] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', /* 0x00 */
    'b', 't', 'n', 'u', 'f', 'r', 'u', 'u', /* 0x08 */
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', /* 0x10 */
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', /* 0x18 */
    ['"'] = '"',
    ['\\'] = '\\',
};
/* clang-format on */

/* s[0..n) (n < 16) to the front of dst, in two overlapping loads and stores at most: a call
 * of memcpy for every short string (most keys) cost more than escaping them. */
static inline void pad_copy(unsigned char *dst, const unsigned char *s, size_t n)
{
    if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(dst + n - 8, &b, 8);
        memcpy(dst, &a, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(dst + n - 4, &b, 4);
        memcpy(dst, &a, 4);
    } else if (n) {
        unsigned char a = s[0], b = s[n / 2], c = s[n - 1];
        dst[0] = a;
        dst[n / 2] = b;
        dst[n - 1] = c;
    }
}

/* Escape s[0..n) into dst, which has room for 6n + 16 bytes (the slack lets
 * every step store 16 bytes); returns the end. */
static char *escape_into(char *dst, const unsigned char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *end = s + n;
    while (s < end) {
        /* Copy up to the first byte that needs escaping, 16 bytes a step; the last few
         * bytes through a padded copy, so that short strings (most keys) take one step too. */
        unsigned k = 16;
        while (k == 16 && end - s >= 16) {
            k = tl_scan16_json(s, false);
            memcpy(dst, s, 16);
            dst += k;
            s += k;
        }
        if (k == 16) {
            size_t left = (size_t)(end - s);
            if (!left)
                break;
            unsigned char tail[16];
            memset(tail, 'a', sizeof(tail));
            pad_copy(tail, s, left);
            k = tl_scan16_json(tail, false);
            memcpy(dst, tail, 16);
            if (k >= left)
                return dst + left;
            dst += k;
            s += k;
        }
        unsigned char c = *s++;
        char e = esc_tbl[c];
        if (e == 'u') {
            memcpy(dst, "\\u00", 4);
            dst[4] = hex[c >> 4];
            dst[5] = hex[c & 15];
            dst += 6;
        } else {
            dst[0] = '\\';
            dst[1] = e;
            dst += 2;
        }
    }
    return dst;
}

/* Room for extra more bytes (tl_buf_grow without a call when there is). */
static inline void reserve(struct tl_buf *out, size_t extra)
{
    if (TL_UNLIKELY(out->len + extra + 1 > out->alloc))
        tl_buf_grow(out, extra);
}

/* The longest string escaped in one reservation (6 bytes out per byte in at worst). */
#define SLICE 65536

/* s[0..n) escaped, without quotes. */
static void add_escaped(struct tl_buf *out, const unsigned char *s, size_t n)
{
    while (n) {
        size_t k = n < SLICE ? n : SLICE;
        reserve(out, 6 * k + 16);
        char *dst = escape_into(out->buf + out->len, s, k);
        out->len = (size_t)(dst - out->buf);
        s += k;
        n -= k;
    }
}

/* '"', p[0..n) escaped, '"', then tail[0..tn) (tn <= 2): in one reservation unless long. */
static void add_quoted(struct tl_buf *out, const char *p, size_t n, const char *tail, size_t tn)
{
    if (TL_UNLIKELY(n > SLICE)) {
        tl_buf_addch(out, '"');
        add_escaped(out, (const unsigned char *)p, n);
        tl_buf_addch(out, '"');
        tl_buf_add(out, tail, tn);
        return;
    }
    reserve(out, 6 * n + 20);
    char *dst = out->buf + out->len;
    *dst++ = '"';
    dst = escape_into(dst, (const unsigned char *)p, n);
    *dst++ = '"';
    for (size_t i = 0; i < tn; i++)
        *dst++ = tail[i];
    tl_buf_setlen(out, (size_t)(dst - out->buf));
}

void tl_json_write_string(struct tl_buf *out, const char *p, size_t n)
{
    add_quoted(out, p, n, "", 0);
}

/* p[0..n) as well-formed UTF-8: itself, or its bytes of no character made U+FFFD in fixed. */
static const unsigned char *well_formed(const char *p, size_t *n, struct tl_buf *fixed)
{
    if (tl_utf8_valid(p, *n))
        return (const unsigned char *)p;
    tl_utf8_sanitize(fixed, p, *n);
    *n = fixed->len;
    return (const unsigned char *)fixed->buf;
}

void tl_json_write_text(struct tl_buf *out, const char *p, size_t n)
{
    struct tl_buf fixed = TL_BUF_INIT;
    const unsigned char *s = well_formed(p, &n, &fixed);
    size_t from = 0;
    tl_buf_addch(out, '"');
    for (size_t i = 0; i < n; i++) {
        /* DEL, and C1 (U+0080..U+009F: C2 80..C2 9F once the text is well-formed) */
        bool c1 = s[i] == 0xC2 && i + 1 < n && s[i + 1] <= 0x9F;
        if (s[i] != 0x7F && !c1)
            continue;
        add_escaped(out, s + from, i - from);
        tl_buf_addf(out, "\\u%04x", c1 ? s[i + 1] : 0x7Fu);
        i += c1;
        from = i + 1;
    }
    add_escaped(out, s + from, n - from);
    tl_buf_addch(out, '"');
    tl_buf_release(&fixed);
}

/* The code point of the well-formed UTF-8 sequence at s (n >= 1 bytes left, s[0] >= 0x80); its
 * length in *len. A sequence cut short (which well-formed text has not) is one U+FFFD. */
static uint32_t decode_utf8(const unsigned char *s, size_t n, size_t *len)
{
    size_t k = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : 2;
    if (k > n) {
        *len = 1;
        return 0xFFFD;
    }
    uint32_t cp = s[0] & (0x7Fu >> k);
    for (size_t i = 1; i < k; i++)
        cp = cp << 6 | (s[i] & 0x3Fu);
    *len = k;
    return cp;
}

static void add_u_escape(struct tl_buf *out, uint32_t unit)
{
    static const char hex[] = "0123456789abcdef";
    char e[6] = {'\\',          'u', hex[unit >> 12 & 15], hex[unit >> 8 & 15], hex[unit >> 4 & 15],
                 hex[unit & 15]};
    tl_buf_add(out, e, sizeof(e));
}

void tl_json_write_script(struct tl_buf *out, const char *p, size_t n)
{
    struct tl_buf fixed = TL_BUF_INIT;
    const unsigned char *s = well_formed(p, &n, &fixed);
    size_t from = 0;
    tl_buf_addch(out, '"');
    for (size_t i = 0; i < n;) {
        /* the rest of ASCII as tl_json_write_string writes it, in runs */
        if (s[i] < 0x80 && s[i] != '<' && s[i] != '>' && s[i] != '&') {
            i++;
            continue;
        }
        add_escaped(out, s + from, i - from);
        size_t len = 1;
        uint32_t cp = s[i] < 0x80 ? s[i] : decode_utf8(s + i, n - i, &len);
        if (cp >= 0x10000) {
            add_u_escape(out, 0xD800 + ((cp - 0x10000) >> 10));
            add_u_escape(out, 0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            add_u_escape(out, cp);
        }
        i += len;
        from = i;
    }
    add_escaped(out, s + from, n - from);
    tl_buf_addch(out, '"');
    tl_buf_release(&fixed);
}

/* ---- numbers --------------------------------------------------------------------------------- */

static int trim_zeros(char *digits, int n)
{
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return n;
}

/* Split "%.*e" output "d.ddde+XX" into digits and exponent. */
static int from_sci(const char *s, char *digits, int *exp10)
{
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            digits[n++] = *s;
    *exp10 = atoi(s + 1);
    return trim_zeros(digits, n);
}

/*
 * Try p significant digits: the correctly rounded candidate, then (when
 * `neighbour`) the only other p-digit decimal that can lie within v's rounding
 * interval, the next one on the other side of v. Returns the digit count, or
 * 0 if no p-digit decimal reads back as v.
 */
static int try_digits(double v, int p, bool neighbour, char *digits, int *exp10)
{
    char buf[48];
    snprintf(buf, sizeof(buf), "%.*e", p - 1, v);
    double c0 = strtod(buf, NULL);
    if (c0 == v)
        return from_sci(buf, digits, exp10);
    if (!neighbour)
        return 0;
    int e;
    char dp[24];
    int n = from_sci(buf, dp, &e);
    unsigned long long m = strtoull(dp, NULL, 10);
    for (; n < p; n++) /* from_sci trimmed the zeros */
        m *= 10;
    m = c0 < v ? m + 1 : m - 1;
    snprintf(buf, sizeof(buf), "%llue%d", m, e - (p - 1));
    if (strtod(buf, NULL) != v)
        return 0;
    n = snprintf(digits, 24, "%llu", m);
    *exp10 = n - 1 + e - (p - 1);
    return trim_zeros(digits, n);
}

/* Decimal digits of c (c > 0) into digits; returns the count. */
static int u64_digits(uint64_t c, char *digits)
{
    char tmp[24];
    int n = 0;
    while (c) {
        tmp[n++] = (char)('0' + c % 10);
        c /= 10;
    }
    for (int i = 0; i < n; i++)
        digits[i] = tmp[n - 1 - i];
    digits[n] = '\0';
    return n;
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/*
 * Exact search for non-integers v = m * 2^e with -126 < e < 0 (about 1e-22
 * to 2^52), in 128-bit integers: for j = 0, 1, ... fraction digits, look for
 * integers c with c / 10^j inside v's rounding interval (the interval ryu
 * uses: half-way to the neighbours, ends included when m is even, the lower
 * end twice as close at powers of two) and take the one nearest to v, ties
 * to even. The fewest fraction digits give the fewest significant digits.
 * Since (4m + 2) * 10^21 < 2^125 every product stays in range, and the first
 * hit has at most 17 digits, so c fits 64 bits. Returns 0 when v is out of
 * range or needs more than 21 fraction digits.
 */
static int shortest_exact(double v, char *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    int be = (int)(bits >> 52 & 0x7ff);
    if (be == 0)
        return 0; /* subnormal */
    uint64_t m = (bits & ((1ULL << 52) - 1)) | 1ULL << 52;
    int e = be - 1075;
    if (e >= 0 || e <= -126)
        return 0;
    /* Work in units of 2^(e-2): v = 4m, neighbour midpoints 4m -/+ 2. */
    int s = 2 - e;
    bool incl = (m & 1) == 0;
    u128 lo4 = 4 * (u128)m - (m == (1ULL << 52) ? 1 : 2);
    u128 hi4 = 4 * (u128)m + 2;
    u128 mid4 = 4 * (u128)m;
    u128 half = (u128)1 << (s - 1);
    u128 p10 = 1;
    for (int j = 0; j <= 21; j++, p10 *= 10) {
        u128 lo = lo4 * p10;
        u128 hi = hi4 * p10;
        u128 clo = lo >> s;
        if ((clo << s) < lo || (!incl && (clo << s) == lo))
            clo++;
        u128 chi = hi >> s;
        if (!incl && (chi << s) == hi)
            chi--;
        if (clo > chi)
            continue;
        u128 t = mid4 * p10;
        u128 c = t >> s;
        u128 rem = t - (c << s);
        if (rem > half || (rem == half && (c & 1)))
            c++;
        if (c < clo)
            c = clo;
        else if (c > chi)
            c = chi;
        int n = u64_digits((uint64_t)c, digits);
        *exp10 = n - 1 - j;
        return trim_zeros(digits, n);
    }
    return 0;
}
#endif

/*
 * Shortest round-trip digits of v > 0 (finite): the fewest significant digits
 * that read back as v, and among those the one closest to v, which is what
 * ryu (serde_json's float printer) produces. Fills digits (no trailing zeros,
 * NUL-terminated), returns their count, and sets *exp10 to the exponent of the
 * first digit (v ~ d.ddd x 10^exp10).
 */
static int shortest_digits(double v, char *digits, int *exp10)
{
    int n;
    /* Integers below 2^53 are exact and nothing shorter lies within half
     * an ulp (< 1) of them, so their decimal form is the answer. */
    if (v < 9007199254740992.0 && (double)(uint64_t)v == v) {
        n = u64_digits((uint64_t)v, digits);
        *exp10 = n - 1;
        return trim_zeros(digits, n);
    }
#ifdef __SIZEOF_INT128__
    if ((n = shortest_exact(v, digits, exp10)) != 0)
        return n;
#endif
    if (TL_UNLIKELY(v < DBL_MIN)) {
        /* Subnormals have fewer bits, so search from one digit up. */
        for (int p = 1; p < 17; p++)
            if ((n = try_digits(v, p, true, digits, exp10)) != 0)
                return n;
        return try_digits(v, 17, false, digits, exp10);
    }
    /* Any decimal of up to DBL_DIG (15) digits survives a trip through a
     * normal double, so if the 15-digit rounding does not read back as v, no
     * decimal of 15 or fewer digits does; if it does, it is the shortest
     * (after trimming zeros). 17 digits always round-trip. */
    if ((n = try_digits(v, 15, false, digits, exp10)) != 0)
        return n;
    if ((n = try_digits(v, 16, true, digits, exp10)) != 0)
        return n;
    return try_digits(v, 17, false, digits, exp10);
}

void tl_json_write_double(struct tl_buf *out, double d)
{
    if (!isfinite(d)) {
        tl_buf_add(out, "null", 4);
        return;
    }
    if (d == 0) {
        if (signbit(d))
            tl_buf_add(out, "-0.0", 4);
        else
            tl_buf_add(out, "0.0", 3);
        return;
    }
    char digits[32];
    int e10;
    int n = shortest_digits(d < 0 ? -d : d, digits, &e10);
    int kk = e10 + 1; /* value = 0.digits x 10^kk */
    int k = kk - n;   /* value = digits x 10^k */
    /* Longest layout: "-0." + 4 zeros + 17 digits, or 16 digits + ".0". */
    char tmp[48];
    char *o = tmp;
    if (d < 0)
        *o++ = '-';
    if (k >= 0 && kk <= 16) {
        memcpy(o, digits, (size_t)n);
        o += n;
        memset(o, '0', (size_t)k);
        o += k;
        *o++ = '.';
        *o++ = '0';
    } else if (kk > 0 && kk <= 16) {
        memcpy(o, digits, (size_t)kk);
        o += kk;
        *o++ = '.';
        memcpy(o, digits + kk, (size_t)(n - kk));
        o += n - kk;
    } else if (kk > -5 && kk <= 0) {
        *o++ = '0';
        *o++ = '.';
        memset(o, '0', (size_t)-kk);
        o += -kk;
        memcpy(o, digits, (size_t)n);
        o += n;
    } else {
        *o++ = digits[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(n - 1));
            o += n - 1;
        }
        o += snprintf(o, (size_t)(tmp + sizeof(tmp) - o), "e%d", kk - 1);
    }
    tl_buf_add(out, tmp, (size_t)(o - tmp));
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

void tl_json_write_double_exact(struct tl_buf *out, double v)
{
    size_t at = out->len;
    tl_json_write_double(out, v);
    if (!isfinite(v) || reads_back(out->buf + at, out->len - at, v))
        return;
    char alt[48];
    if (serde_exact(alt, sizeof(alt), v)) {
        tl_buf_setlen(out, at);
        tl_buf_adds(out, alt);
    }
}

void tl_json_write_number(struct tl_buf *out, const struct tl_json *num)
{
    switch (num->u.num.kind) {
    case TL_JSON_UINT:
        tl_buf_addu(out, num->u.num.u);
        break;
    case TL_JSON_INT:
        tl_buf_addi(out, num->u.num.i);
        break;
    default:
        tl_json_write_double(out, num->u.num.d);
        break;
    }
}

/* ---- parsed values --------------------------------------------------------------------------- */

static int key_cmp(struct tl_str a, struct tl_str b)
{
    /* Most keys of an object differ in their first byte: no call then. */
    if (a.n && b.n && a.p[0] != b.p[0])
        return (unsigned char)a.p[0] < (unsigned char)b.p[0] ? -1 : 1;
    size_t n = a.n < b.n ? a.n : b.n;
    int c = n ? memcmp(a.p, b.p, n) : 0;
    if (c)
        return c;
    return a.n < b.n ? -1 : a.n > b.n;
}

/* Stable sort of idx[0..n) by key: insertion sort for short runs, merged bottom-up. */
static void sort_members(const struct tl_json_member *m, size_t *idx, size_t *tmp, size_t n)
{
    const size_t run = 8;
    for (size_t lo = 0; lo < n; lo += run) {
        size_t hi = lo + run < n ? lo + run : n;
        for (size_t i = lo + 1; i < hi; i++) {
            size_t x = idx[i];
            size_t j = i;
            while (j > lo && key_cmp(m[idx[j - 1]].key, m[x].key) > 0) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = x;
        }
    }
    size_t *src = idx;
    size_t *dst = tmp;
    for (size_t w = run; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo;
            size_t j = mid;
            size_t o = lo;
            while (i < mid && j < hi)
                dst[o++] = key_cmp(m[src[j]].key, m[src[i]].key) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        size_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != idx)
        memcpy(idx, src, n * sizeof(*idx));
}

/* The pretty layouts' line break: "," first when comma, then "\n" and the indent of level, in
 * one reservation with room for the last 8 spaces in full: they go in 8 at a time, since this
 * comes before every item. */
static inline void line_break(struct tl_buf *out, bool comma, int level)
{
    size_t n = level > 0 ? (size_t)level * 2 : 0;
    reserve(out, n + 2 + 8);
    char *d = out->buf + out->len;
    if (comma)
        *d++ = ',';
    *d++ = '\n';
    for (size_t i = 0; i < n; i += 8)
        memcpy(d + i, "        ", 8);
    tl_buf_setlen(out, (size_t)(d + n - out->buf));
}

static void write_value(struct tl_buf *out, const struct tl_json *v, bool pretty, int level);

/* A string value: its source's bytes when they are its escaped form (json.h), which spares
 * the cache keys' long strings (chromium events, artifacts) a second scan for escapes. */
static void write_string_value(struct tl_buf *out, const struct tl_json *v)
{
    struct tl_str src = v->u.src;
    if (!src.p) {
        tl_json_write_string(out, v->u.str.p, v->u.str.n);
        return;
    }
    reserve(out, src.n + 2);
    char *dst = out->buf + out->len;
    *dst++ = '"';
    memcpy(dst, src.p, src.n);
    dst[src.n] = '"';
    tl_buf_setlen(out, out->len + src.n + 2);
}

static void write_array(struct tl_buf *out, const struct tl_json *v, bool pretty, int level)
{
    size_t n = v->u.arr.n;
    if (n == 0) {
        tl_buf_add(out, "[]", 2);
        return;
    }
    tl_buf_addch(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (pretty)
            line_break(out, i > 0, level + 1);
        else if (i)
            tl_buf_addch(out, ',');
        write_value(out, &v->u.arr.items[i], pretty, level + 1);
    }
    if (pretty)
        line_break(out, false, level);
    tl_buf_addch(out, ']');
}

static void write_object(struct tl_buf *out, const struct tl_json *v, bool pretty, int level)
{
    size_t n = v->u.obj.n;
    const struct tl_json_member *m = v->u.obj.items;
    if (n == 0) {
        tl_buf_add(out, "{}", 2);
        return;
    }
    size_t local[64];
    size_t *idx = local;
    if (n > TL_ARRAY_LEN(local) / 2)
        idx = tl_xmalloc(2 * n * sizeof(*idx));
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_members(m, idx, idx + n, n);
    tl_buf_addch(out, '{');
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        const struct tl_json_member *mi = &m[idx[i]];
        /* The sort is stable, so the last duplicate is the last of its run. */
        if (i + 1 < n && tl_str_eq(mi->key, m[idx[i + 1]].key))
            continue;
        if (pretty)
            line_break(out, !first, level + 1);
        else if (!first)
            tl_buf_addch(out, ',');
        first = false;
        tl_json_write_string(out, mi->key.p, mi->key.n);
        if (pretty)
            tl_buf_add(out, ": ", 2);
        else
            tl_buf_addch(out, ':');
        write_value(out, &mi->value, pretty, level + 1);
    }
    if (idx != local)
        free(idx);
    if (pretty)
        line_break(out, false, level);
    tl_buf_addch(out, '}');
}

static void write_value(struct tl_buf *out, const struct tl_json *v, bool pretty, int level)
{
    switch (v->type) {
    case TL_JSON_NULL:
        tl_buf_add(out, "null", 4);
        break;
    case TL_JSON_BOOL:
        if (v->u.b)
            tl_buf_add(out, "true", 4);
        else
            tl_buf_add(out, "false", 5);
        break;
    case TL_JSON_NUMBER:
        tl_json_write_number(out, v);
        break;
    case TL_JSON_STRING:
        write_string_value(out, v);
        break;
    case TL_JSON_ARRAY:
        write_array(out, v, pretty, level);
        break;
    case TL_JSON_OBJECT:
        write_object(out, v, pretty, level);
        break;
    }
}

void tl_json_write_compact(struct tl_buf *out, const struct tl_json *v)
{
    write_value(out, v, false, 0);
}

void tl_json_write_pretty(struct tl_buf *out, const struct tl_json *v, int level)
{
    write_value(out, v, true, level);
}

/* ---- documents of our own -------------------------------------------------------------------- */

void tl_json_doc_init(struct tl_json_doc *w, struct tl_buf *out, unsigned flags)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->flags = flags;
}

void tl_json_doc_init_items(struct tl_json_doc *w, struct tl_buf *out, unsigned flags, int depth)
{
    tl_json_doc_init(w, out, flags);
    w->depth = depth > 0 && depth < TL_JSON_DOC_MAX_DEPTH ? depth : 1;
    w->has_items[w->depth] = true;
    w->after_key = true; /* the first item's separator is written elsewhere */
}

/* When pretty: a newline and the indent of depth (< TL_JSON_DOC_MAX_DEPTH), after a comma
 * when comma; else the comma alone. */
static void separate(struct tl_json_doc *w, int depth, bool comma)
{
    struct tl_buf *out = w->out;
    if (!(w->flags & TL_JSON_DOC_PRETTY)) {
        if (comma)
            tl_buf_addch(out, ',');
        return;
    }
    line_break(out, comma, depth);
}

static void newline(struct tl_json_doc *w, int depth)
{
    separate(w, depth, false);
}

/* Before a value or a key: the separator of the container it is in. */
static inline void item(struct tl_json_doc *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    int d = w->depth;
    if (d == 0)
        return;
    bool comma = w->has_items[d];
    w->has_items[d] = true;
    if (w->inline_[d]) {
        if (comma)
            tl_buf_add(w->out, ", ", 2);
        return;
    }
    separate(w, d, comma);
}

static void open_container(struct tl_json_doc *w, char c, bool inline_)
{
    item(w);
    tl_buf_addch(w->out, c);
    if (w->depth + 1 < TL_JSON_DOC_MAX_DEPTH)
        w->depth++;
    w->has_items[w->depth] = false;
    w->inline_[w->depth] = inline_;
}

void tl_json_doc_object(struct tl_json_doc *w)
{
    open_container(w, '{', false);
}

void tl_json_doc_array(struct tl_json_doc *w)
{
    open_container(w, '[', false);
}

void tl_json_doc_array_inline(struct tl_json_doc *w)
{
    open_container(w, '[', true);
}

void tl_json_doc_end(struct tl_json_doc *w, char close)
{
    if (w->depth == 0)
        return;
    bool any = w->has_items[w->depth] && !w->inline_[w->depth];
    w->depth--;
    if (any)
        newline(w, w->depth);
    tl_buf_addch(w->out, close);
}

void tl_json_doc_key(struct tl_json_doc *w, const char *key)
{
    item(w);
    bool pretty = w->flags & TL_JSON_DOC_PRETTY;
    add_quoted(w->out, key, strlen(key), ": ", pretty ? 2 : 1);
    w->after_key = true;
}

void tl_json_doc_strn(struct tl_json_doc *w, const char *p, size_t n)
{
    item(w);
    if (!p)
        tl_buf_add(w->out, "null", 4);
    else if (w->flags & TL_JSON_DOC_SCRIPT_STRINGS)
        tl_json_write_script(w->out, p, n);
    else if (w->flags & TL_JSON_DOC_SERDE_STRINGS)
        tl_json_write_string(w->out, p, n);
    else
        tl_json_write_text(w->out, p, n);
}

void tl_json_doc_str(struct tl_json_doc *w, const char *s)
{
    tl_json_doc_strn(w, s, s ? strlen(s) : 0);
}

void tl_json_doc_u64(struct tl_json_doc *w, uint64_t v)
{
    item(w);
    tl_buf_addu(w->out, v);
}

void tl_json_doc_i64(struct tl_json_doc *w, int64_t v)
{
    item(w);
    tl_buf_addi(w->out, v);
}

void tl_json_doc_f64(struct tl_json_doc *w, double v)
{
    item(w);
    tl_json_write_double(w->out, v);
}

void tl_json_doc_f64_exact(struct tl_json_doc *w, double v)
{
    item(w);
    tl_json_write_double_exact(w->out, v);
}

void tl_json_doc_bool(struct tl_json_doc *w, bool v)
{
    item(w);
    if (v)
        tl_buf_add(w->out, "true", 4);
    else
        tl_buf_add(w->out, "false", 5);
}

void tl_json_doc_null(struct tl_json_doc *w)
{
    item(w);
    tl_buf_add(w->out, "null", 4);
}

void tl_json_doc_value(struct tl_json_doc *w, const struct tl_json *v)
{
    item(w);
    write_value(w->out, v, (w->flags & TL_JSON_DOC_PRETTY) != 0, w->depth);
}

void tl_json_doc_raw(struct tl_json_doc *w, const char *text)
{
    item(w);
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n')
        n--;
    for (;;) {
        const char *nl = memchr(text, '\n', n);
        size_t k = nl ? (size_t)(nl - text) : n;
        tl_buf_add(w->out, text, k);
        if (!nl)
            break;
        newline(w, w->depth);
        text += k + 1;
        n -= k + 1;
    }
}

void tl_json_doc_next(struct tl_json_doc *w)
{
    item(w);
}
