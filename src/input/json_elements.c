/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A JSON array read element by element (json_elements.h). The scan of an element that a
 * chunk ends inside goes on where it stopped once more bytes are read, so that an element of
 * any size is scanned once.
 */
#include "base/config.h"
#include "input/json_elements.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void tl_json_elements_init(struct tl_json_elements *e, tl_json_elements_read read, void *ctx)
{
    memset(e, 0, sizeof(*e));
    e->read = read;
    e->ctx = ctx;
    e->chunk = (size_t)1 << 20;
    tl_buf_init(&e->buf, 0);
}

void tl_json_elements_release(struct tl_json_elements *e)
{
    tl_buf_release(&e->buf);
}

/* Read a chunk after the bytes not taken (moved to the front). */
static int fill(struct tl_json_elements *e)
{
    if (e->pos > 0) {
        memmove(e->buf.buf, e->buf.buf + e->pos, e->buf.len - e->pos);
        tl_buf_setlen(&e->buf, e->buf.len - e->pos);
        e->pos = 0;
    }
    size_t chunk = e->chunk ? e->chunk : 1;
    tl_buf_grow(&e->buf, chunk);
    long got = e->read ? e->read(e->ctx, e->buf.buf + e->buf.len, chunk) : -1;
    if (got <= 0) {
        e->eof = true;
        return got < 0 ? -1 : 0;
    }
    tl_buf_setlen(&e->buf, e->buf.len + (size_t)got);
    return 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Where the element at pos ends (its length), or 0 when it does not end in the bytes read:
 * the scan then stops with its state in e, to go on from there. */
static size_t element_end(struct tl_json_elements *e)
{
    const char *p = e->buf.buf + e->pos;
    size_t n = e->buf.len - e->pos;
    size_t i = e->scanned;
    if (p[0] != '"' && p[0] != '[' && p[0] != '{') {
        for (; i < n; i++)
            if (p[i] == ',' || p[i] == ']' || is_space(p[i]))
                return i;
        e->scanned = n;
        return 0;
    }
    for (; i < n; i++) {
        char c = p[i];
        if (e->in_str) {
            if (e->escaped) {
                e->escaped = false;
            } else if (c == '\\') {
                e->escaped = true;
            } else if (c == '"') {
                e->in_str = false;
                if (e->depth == 0)
                    return i + 1;
            }
        } else if (c == '"') {
            e->in_str = true;
        } else if (c == '[' || c == '{') {
            e->depth++;
        } else if ((c == ']' || c == '}') && --e->depth == 0) {
            return i + 1;
        }
    }
    e->scanned = n;
    return 0;
}

int tl_json_elements_next(struct tl_json_elements *e, struct tl_str *v)
{
    for (;;) {
        while (e->pos < e->buf.len && is_space(e->buf.buf[e->pos]))
            e->pos++;
        if (e->pos == e->buf.len) {
            if (e->eof)
                return e->ended ? 0 : -1;
            if (fill(e) < 0)
                return -1;
            continue;
        }
        char c = e->buf.buf[e->pos];
        if (e->ended)
            return -1; /* bytes after the array */
        if (!e->started) {
            if (c != '[')
                return -1;
            e->started = true;
            e->pos++;
            continue;
        }
        if (c == ']' || c == ',') {
            if ((c == ',' && !e->need_sep) || (c == ']' && e->after_sep))
                return -1; /* "[,", "[1,,2]", "[1,]" */
            e->ended = c == ']';
            e->need_sep = false;
            e->after_sep = c == ',';
            e->pos++;
            continue;
        }
        if (e->need_sep)
            return -1; /* "[1 2]" */
        size_t end = element_end(e);
        if (!end) {
            if (e->eof || fill(e) < 0)
                return -1;
            continue;
        }
        *v = tl_str_make(e->buf.buf + e->pos, end);
        e->pos += end;
        e->scanned = 0;
        e->depth = 0;
        e->in_str = false;
        e->escaped = false;
        e->need_sep = true;
        e->after_sep = false;
        return 1;
    }
}
