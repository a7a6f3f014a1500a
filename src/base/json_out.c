/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The streaming JSON writer (json_out.h): a comma and, when pretty, a newline and indent
 * before each item; the container's closing bracket on its own line unless it is empty.
 */
#include "base/config.h"
#include "base/json_out.h"
#include "base/json_write.h"

#include <inttypes.h>
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
        tl_json_write_string(w->out, p, n);
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

void tl_jw_i64(struct tl_jw *w, int64_t v)
{
    item(w);
    tl_buf_addf(w->out, "%" PRId64, v);
}

void tl_jw_f64(struct tl_jw *w, double v)
{
    item(w);
    tl_json_write_double(w->out, v);
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
