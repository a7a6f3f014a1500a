/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The watch's output (screen.h): lines above, a panel below that is redrawn in place.
 */
#include "base/config.h"
#include "cli/screen.h"

#include <errno.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A growable byte buffer: the CLI keeps to the public header and base/config.h, so the screen
 * has its own (a few lines: append, format, release). Allocation failure aborts, as the
 * library's does. */
#define SB_INIT                                                                                    \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

static void sb_grow(struct sbuf *b, size_t more)
{
    if (b->len + more + 1 <= b->alloc)
        return;
    size_t want = b->alloc ? b->alloc : 256;
    while (want < b->len + more + 1)
        want *= 2;
    char *p = realloc(b->buf, want);
    if (!p)
        abort();
    b->buf = p;
    b->alloc = want;
}

static void sb_add(struct sbuf *b, const char *p, size_t n)
{
    sb_grow(b, n);
    memcpy(b->buf + b->len, p, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

static void sb_addch(struct sbuf *b, char c)
{
    sb_add(b, &c, 1);
}

static void sb_adds(struct sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static void sb_addf(struct sbuf *b, const char *fmt, ...) TL_PRINTF(2, 3);
static void sb_addf(struct sbuf *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void sb_reset(struct sbuf *b)
{
    b->len = 0;
}

static void sb_release(struct sbuf *b)
{
    free(b->buf);
    *b = (struct sbuf)SB_INIT;
}

void tl_screen_init(struct tl_screen *s, int fd, bool tty, unsigned rows, unsigned columns)
{
    memset(s, 0, sizeof(*s));
    s->fd = fd;
    s->tty = tty;
    s->rows = rows ? rows : 24;
    s->columns = columns ? columns : 80;
    s->panel = (struct sbuf)SB_INIT;
}

void tl_screen_release(struct tl_screen *s)
{
    sb_release(&s->panel);
}

void tl_screen_resize(struct tl_screen *s, unsigned rows, unsigned columns)
{
    if (rows)
        s->rows = rows;
    if (columns)
        s->columns = columns;
    s->dirty = true;
}

static void put(struct tl_screen *s, const char *p, size_t n)
{
    while (n && !s->failed) {
        ssize_t k = write(s->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            s->failed = k < 0 ? errno : EIO;
            return;
        }
        p += k;
        n -= (size_t)k;
    }
}

/* Up to the panel's first line, and erase from there to the end of the screen. */
static void erase(struct tl_screen *s, struct sbuf *b)
{
    if (!s->shown)
        return;
    sb_addch(b, '\r');
    if (s->shown > 1)
        sb_addf(b, "\033[%uA", s->shown - 1);
    sb_adds(b, "\033[J");
    s->shown = 0;
}

/* The length of the escape sequence at p (ESC [ ... final byte), 0 when none starts there. */
static size_t csi_len(const char *p, size_t n)
{
    if (n < 2 || p[0] != '\033' || p[1] != '[')
        return 0;
    size_t i = 2;
    while (i < n && !((unsigned char)p[i] >= 0x40 && (unsigned char)p[i] <= 0x7e))
        i++;
    return i < n ? i + 1 : n;
}

/* A panel line cut to the width less one (a full line would leave the cursor waiting to wrap,
 * which terminals treat differently), its colours closed; no newline. */
static void clipped(struct sbuf *b, const char *p, size_t n, unsigned width)
{
    unsigned seen = 0;
    for (size_t i = 0; i < n;) {
        size_t k = csi_len(p + i, n - i);
        if (k) {
            sb_add(b, p + i, k);
            i += k;
            continue;
        }
        if (((unsigned char)p[i] & 0xc0) != 0x80) {
            if (seen + 1 >= width)
                break;
            seen++;
        }
        sb_addch(b, p[i]);
        i++;
    }
    sb_adds(b, "\033[0m\033[K");
}

/* The panel, at the cursor (which is at the start of an empty line); the cursor stays at the
 * start of its last line, so that what the terminal itself echoes there (the "^C" of Ctrl-C)
 * writes over the panel rather than making its last line wrap onto one more. */
static void panel(struct tl_screen *s, struct sbuf *b)
{
    unsigned max = s->rows > 2 ? s->rows - 1 : 1;
    const char *p = s->panel.buf, *end = p + s->panel.len;
    unsigned n = 0;
    while (p < end && n < max) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n)
            sb_addch(b, '\n');
        clipped(b, p, len, s->columns);
        n++;
        p = nl ? nl + 1 : end;
    }
    if (n)
        sb_addch(b, '\r');
    s->shown = n;
    s->dirty = false;
}

/* p[0..n) above the panel: lines of ours (a job's line in the middle is ended first), or the
 * job's bytes as they are (the panel then waits for the end of its line). */
static void above(struct tl_screen *s, const char *p, size_t n, bool ours)
{
    if (!n)
        return;
    if (!s->tty) {
        put(s, p, n);
        return;
    }
    struct sbuf b = SB_INIT;
    erase(s, &b);
    if (ours && s->mid_line) { /* the job's line is left as it is; ours start below it */
        sb_addch(&b, '\n');
        s->mid_line = false;
    }
    sb_add(&b, p, n);
    if (ours && p[n - 1] != '\n')
        sb_addch(&b, '\n');
    if (!ours)
        s->mid_line = p[n - 1] != '\n';
    if (!s->mid_line)
        panel(s, &b);
    put(s, b.buf, b.len);
    sb_release(&b);
}

void tl_screen_lines(struct tl_screen *s, const char *p, size_t n)
{
    above(s, p, n, true);
}

void tl_screen_job(struct tl_screen *s, const char *p, size_t n)
{
    above(s, p, n, false);
}

void tl_screen_set_panel(struct tl_screen *s, const char *p, size_t n)
{
    if (!s->tty || (s->panel.len == n && !memcmp(s->panel.buf, p, n)))
        return;
    sb_reset(&s->panel);
    sb_add(&s->panel, p, n);
    s->dirty = true;
}

void tl_screen_draw(struct tl_screen *s)
{
    if (!s->tty || !s->dirty || s->mid_line)
        return;
    struct sbuf b = SB_INIT;
    erase(s, &b);
    panel(s, &b);
    put(s, b.buf, b.len);
    sb_release(&b);
}

void tl_screen_end(struct tl_screen *s)
{
    if (!s->tty)
        return;
    struct sbuf b = SB_INIT;
    erase(s, &b);
    if (s->mid_line) {
        sb_addch(&b, '\n');
        s->mid_line = false;
    }
    panel(s, &b);
    if (s->shown)
        sb_addch(&b, '\n');
    s->shown = 0; /* it is part of the scrollback now */
    put(s, b.buf, b.len);
    sb_release(&b);
}
