/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The line splitter (lines.h): memchr over each chunk fed; only a line cut by a chunk's end
 * is copied (into part), so a file fed in large chunks is split in place.
 */
#include "base/config.h"
#include "input/lines.h"
#include "base/utf8.h"

#include <string.h>

void tl_lines_init(struct tl_lines *l, size_t max_line)
{
    memset(l, 0, sizeof(*l));
    l->max_line = max_line;
    tl_buf_init(&l->part, 0);
}

void tl_lines_release(struct tl_lines *l)
{
    tl_buf_release(&l->part);
}

bool tl_lines_pending(const struct tl_lines *l)
{
    return l->skipping || l->part.len > 0;
}

/* A line of len bytes at p (its "\n" not included; terminated: one came); utf8: known to be
 * well-formed. */
static int give(struct tl_lines *l, const char *p, size_t len, bool terminated, bool utf8,
                tl_line_fn fn, void *ctx, struct tl_err *err)
{
    struct tl_line line = {.lineno = ++l->lineno, .len = len, .utf8 = utf8};
    l->last_unterminated = !terminated;
    if (len > l->max_line) {
        line.long_line = true;
        line.first = p[0];
        line.text = tl_str_make(NULL, len);
        return fn(ctx, &line, err);
    }
    if (terminated && len && p[len - 1] == '\r')
        len--; /* a "\r" ends a line only before its "\n" */
    line.len = len;
    line.text = tl_str_make(p, len);
    line.first = len ? p[0] : '\0';
    return fn(ctx, &line, err);
}

/* The end of a line that was over the limit. */
static int give_skipped(struct tl_lines *l, bool terminated, tl_line_fn fn, void *ctx,
                        struct tl_err *err)
{
    struct tl_line line = {.lineno = ++l->lineno,
                           .len = l->skip_len,
                           .long_line = true,
                           .first = l->skip_first,
                           .text = tl_str_make(NULL, l->skip_len)};
    l->skipping = false;
    l->last_unterminated = !terminated;
    return fn(ctx, &line, err);
}

/* Bytes of a line whose end has not come: held, or counted once over the limit. */
static void carry(struct tl_lines *l, const char *p, size_t n)
{
    if (!l->skipping && l->part.len + n > l->max_line) {
        l->skipping = true;
        l->skip_first = l->part.len ? l->part.buf[0] : p[0];
        l->skip_len = l->part.len;
        tl_buf_reset(&l->part);
    }
    if (l->skipping) {
        l->skip_len += n;
        return;
    }
    /* A long line grows the buffer many times: doubling keeps the copies (and what the
     * allocator holds on to) to about the line's size. */
    if (l->part.len + n + 1 > l->part.alloc)
        tl_buf_grow(&l->part, l->part.alloc > n ? l->part.alloc : n);
    tl_buf_add(&l->part, p, n);
}

/*
 * Whether the line p[0..len) of the chunk that ends at end is well-formed UTF-8. The chunk is
 * checked ahead from a line's start to its first ill-formed byte, once: a line that ends before
 * that byte is well-formed ("\n" is no part of any sequence, so none crosses it), and the next
 * check starts at the line after the one that holds it. Linear in the chunk, whatever it holds.
 */
static bool chunk_valid(struct tl_lines *l, const char *p, size_t len, const char *end)
{
    if (p + len <= l->valid_end)
        return true;
    if (p < l->valid_end)
        return false; /* the ill-formed byte is in this line */
    l->valid_end = p + tl_utf8_valid_prefix(p, (size_t)(end - p));
    return p + len <= l->valid_end;
}

int tl_lines_feed(struct tl_lines *l, const char *p, size_t n, tl_line_fn fn, void *ctx,
                  struct tl_err *err)
{
    l->bytes += n;
    const char *end = p + n;
    l->valid_end = p;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            carry(l, p, (size_t)(end - p));
            return 0;
        }
        size_t len = (size_t)(nl - p);
        int rc;
        if (l->skipping) {
            l->skip_len += len;
            rc = give_skipped(l, true, fn, ctx, err);
        } else if (l->part.len) {
            carry(l, p, len);
            if (l->skipping) {
                rc = give_skipped(l, true, fn, ctx, err);
            } else {
                rc = give(l, l->part.buf, l->part.len, true, false, fn, ctx, err);
                tl_buf_reset(&l->part);
            }
        } else {
            rc = give(l, p, len, true, len <= l->max_line && chunk_valid(l, p, len, end), fn, ctx,
                      err);
        }
        if (rc < 0)
            return -1;
        p = nl + 1;
    }
    return 0;
}

int tl_lines_finish(struct tl_lines *l, tl_line_fn fn, void *ctx, struct tl_err *err)
{
    if (l->skipping)
        return give_skipped(l, false, fn, ctx, err);
    if (!l->part.len)
        return 0;
    int rc = give(l, l->part.buf, l->part.len, false, false, fn, ctx, err);
    tl_buf_reset(&l->part);
    return rc;
}
