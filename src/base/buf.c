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
    char tmp[24];
    size_t i = sizeof(tmp);
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    tl_buf_add(b, tmp + i, sizeof(tmp) - i);
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

void tl_buf_add_printable(struct tl_buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0xC2 && i + 1 < n && (unsigned char)p[i + 1] >= 0x80 &&
            (unsigned char)p[i + 1] <= 0x9F) {
            tl_buf_addch(b, '?');
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            tl_buf_addch(b, '?');
        } else {
            tl_buf_addch(b, (char)c);
        }
    }
}
