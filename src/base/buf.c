/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The strbuf-style growable buffer (buf.h): growth, appends, formatted appends, and the
 * appends that make log text safe for a C string or a terminal.
 */
#include "base/config.h"
#include "base/buf.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>

char tl_buf_slopbuf[1];

void tl_buf_init(struct tl_buf *b, size_t hint)
{
    b->buf = tl_buf_slopbuf;
    b->len = 0;
    b->alloc = 0;
    if (hint)
        tl_buf_grow(b, hint);
}

void tl_buf_release(struct tl_buf *b)
{
    if (b->alloc)
        free(b->buf);
    b->buf = tl_buf_slopbuf;
    b->len = 0;
    b->alloc = 0;
}

char *tl_buf_detach(struct tl_buf *b, size_t *len)
{
    char *r;
    if (len)
        *len = b->len;
    if (!b->alloc)
        r = tl_xmalloc(1), r[0] = '\0';
    else
        r = b->buf;
    b->buf = tl_buf_slopbuf;
    b->len = 0;
    b->alloc = 0;
    return r;
}

void tl_buf_grow(struct tl_buf *b, size_t extra)
{
    if (extra > (size_t)-1 / 2 - b->len)
        tl_die_oom();
    size_t need = b->len + extra + 1;
    if (need <= b->alloc)
        return;
    size_t n = b->alloc ? b->alloc : 64;
    while (n < need)
        n = n + n / 2 + 64;
    if (!b->alloc || !b->len) {
        /* Empty: nothing to carry over (realloc would copy the old block whole). */
        if (b->alloc)
            free(b->buf);
        b->buf = tl_xmalloc(n);
        b->buf[0] = '\0';
    } else {
        b->buf = tl_xrealloc(b->buf, n);
    }
    b->alloc = n;
}

void tl_buf_vaddf(struct tl_buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    tl_buf_grow(b, 64);
    int n = vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    if ((size_t)n >= b->alloc - b->len) {
        tl_buf_grow(b, (size_t)n);
        n = vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, ap);
    }
    b->len += (size_t)n;
}

void tl_buf_addf(struct tl_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_buf_vaddf(b, fmt, ap);
    va_end(ap);
}

void tl_buf_addu(struct tl_buf *b, unsigned long long v)
{
    /* Written in place, two digits a step (numbers fill much of the JSON we write, most of
     * them short: a memcpy call per number cost more than the digits). */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    size_t digits = 1;
    for (unsigned long long t = 10; digits < 20 && v >= t; t *= 10)
        digits++;
    if (TL_UNLIKELY(b->len + 21 > b->alloc))
        tl_buf_grow(b, 20);
    char *end = b->buf + b->len + digits;
    *end = '\0';
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        end -= 2;
        memcpy(end, pairs + 2 * r, 2);
    }
    if (v >= 10) {
        end -= 2;
        memcpy(end, pairs + 2 * v, 2);
    } else {
        *--end = (char)('0' + v);
    }
    b->len += digits;
}

void tl_buf_addi(struct tl_buf *b, long long v)
{
    if (v < 0) {
        tl_buf_addch(b, '-');
        tl_buf_addu(b, 0ULL - (unsigned long long)v);
    } else {
        tl_buf_addu(b, (unsigned long long)v);
    }
}

void tl_buf_add_nonul(struct tl_buf *b, const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        const char *z = memchr(p, '\0', (size_t)(end - p));
        if (!z) {
            tl_buf_add(b, p, (size_t)(end - p));
            break;
        }
        tl_buf_add(b, p, (size_t)(z - p));
        tl_buf_add(b, "\xEF\xBF\xBD", 3);
        p = z + 1;
    }
}

/* The length of the well-formed UTF-8 character at p[0..n) (p[0] >= 0x80), else 0: no
 * overlong, surrogate or code point above U+10FFFF (utf8.c's table, which needs buf). */
static size_t utf8_char(const unsigned char *p, size_t n)
{
    size_t len = p[0] >= 0xC2 && p[0] <= 0xDF   ? 2
                 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
                 : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4
                                                : 0;
    unsigned lo = p[0] == 0xE0 ? 0xA0 : p[0] == 0xF0 ? 0x90 : 0x80;
    unsigned hi = p[0] == 0xED ? 0x9F : p[0] == 0xF4 ? 0x8F : 0xBF;
    if (!len || len > n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if ((p[k] & 0xC0) != 0x80)
            return 0;
    return len;
}

void tl_buf_add_printable(struct tl_buf *b, const char *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && s[run] >= 0x20 && s[run] < 0x7f)
            run++;
        tl_buf_add(b, p + i, run - i);
        if (run == n)
            break;
        i = run;
        size_t len = s[i] >= 0x80 ? utf8_char(s + i, n - i) : 0;
        if (len && !(s[i] == 0xC2 && s[i + 1] <= 0x9F)) {
            tl_buf_add(b, p + i, len); /* a character, not a C1 control */
            i += len;
        } else {
            /* a control (C0, DEL, C1) or a byte of no character: a C1 control to a terminal
             * that takes 8-bit controls */
            tl_buf_addch(b, '?');
            i += len ? len : 1;
        }
    }
}
