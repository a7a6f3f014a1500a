/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Growable byte buffer with git's strbuf contract: `buf` is always
 * NUL-terminated, TL_BUF_INIT points at a shared empty byte (never write to
 * it), tl_buf_detach() is the only way to take ownership. For hot paths,
 * tl_buf_grow() then a direct write then tl_buf_setlen() is allowed.
 * Depends only on xalloc.
 */
#ifndef TL_BUF_H
#define TL_BUF_H

#include "base/config.h"
#include "base/str.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct tl_buf {
    char *buf;
    size_t len;
    size_t alloc;
};

extern char tl_buf_slopbuf[];
#define TL_BUF_INIT                                                                                \
    {                                                                                              \
        tl_buf_slopbuf, 0, 0                                                                       \
    }

/** Initialise with room for hint bytes. Release with tl_buf_release(). */
void tl_buf_init(struct tl_buf *b, size_t hint);
/** Free the memory and reset to TL_BUF_INIT. */
void tl_buf_release(struct tl_buf *b);
/** Take the bytes (NUL-terminated, caller frees); b is reset. *len may be NULL. */
char *tl_buf_detach(struct tl_buf *b, size_t *len);
/** Make room for extra more bytes (plus the NUL). */
void tl_buf_grow(struct tl_buf *b, size_t extra);

static inline void tl_buf_setlen(struct tl_buf *b, size_t len)
{
    b->len = len;
    b->buf[len] = '\0';
}

static inline void tl_buf_reset(struct tl_buf *b)
{
    if (b->alloc)
        tl_buf_setlen(b, 0);
}

static inline void tl_buf_add(struct tl_buf *b, const void *p, size_t n)
{
    if (TL_UNLIKELY(b->len + n + 1 > b->alloc))
        tl_buf_grow(b, n);
    if (n)
        memcpy(b->buf + b->len, p, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

static inline void tl_buf_addch(struct tl_buf *b, char c)
{
    if (TL_UNLIKELY(b->len + 2 > b->alloc))
        tl_buf_grow(b, 1);
    b->buf[b->len++] = c;
    b->buf[b->len] = '\0';
}

static inline void tl_buf_adds(struct tl_buf *b, const char *s)
{
    tl_buf_add(b, s, strlen(s));
}

/** Append what another buffer holds (b and from may not be the same buffer). */
static inline void tl_buf_addbuf(struct tl_buf *b, const struct tl_buf *from)
{
    tl_buf_add(b, from->buf, from->len);
}

static inline void tl_buf_addstr(struct tl_buf *b, struct tl_str s)
{
    tl_buf_add(b, s.p, s.n);
}

static inline struct tl_str tl_buf_str(const struct tl_buf *b)
{
    return tl_str_make(b->buf, b->len);
}

/**
 * Append p[0..n) with every NUL byte replaced by U+FFFD, for log text that
 * will be kept as a C string (a NUL would cut it short).
 */
void tl_buf_add_nonul(struct tl_buf *b, const char *p, size_t n);

/**
 * Append log text for a terminal: control characters (C0 with newline and tab,
 * DEL, the C1 range U+0080..U+009F, which some terminals obey) and every byte
 * that is not part of a well-formed UTF-8 character (a raw 0x9b is CSI to a
 * terminal that takes 8-bit controls) become '?'. The result holds no byte a
 * terminal acts on; characters, non-ASCII too, are kept.
 */
void tl_buf_add_printable(struct tl_buf *b, const char *p, size_t n);

/** printf-style append. */
void tl_buf_addf(struct tl_buf *b, const char *fmt, ...) TL_PRINTF(2, 3);
void tl_buf_vaddf(struct tl_buf *b, const char *fmt, va_list ap) TL_PRINTF(2, 0);
/** Append an unsigned decimal integer. */
void tl_buf_addu(struct tl_buf *b, unsigned long long v);
/** Append a signed decimal integer. */
void tl_buf_addi(struct tl_buf *b, long long v);

#endif
