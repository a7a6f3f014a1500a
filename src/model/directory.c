/* SPDX-License-Identifier: BSD-3-Clause */
#include "base/config.h"
#include "model/directory.h"
#include "base/json_write.h"
#include "output/outdir.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

void tl_directory_init(struct tl_directory *d, struct tl_arena *arena)
{
    d->arena = arena;
    tl_map_init(&d->keys, arena);
}

void tl_directory_release(struct tl_directory *d)
{
    tl_map_release(&d->keys);
}

struct tl_dirkey *tl_directory_key(struct tl_directory *d, const struct tl_compile_id *id)
{
    char kb[TL_CID_KEY_LEN];
    struct tl_str key;
    if (id) {
        tl_cid_key(id, kb);
        key = tl_str_make(kb, sizeof(kb));
    } else {
        key = TL_STR_LIT("unknown");
    }
    int created;
    struct tl_map_entry *e = tl_map_upsert(&d->keys, key, &created);
    if (created) {
        struct tl_dirkey *k = tl_arena_calloc(d->arena, 1, sizeof(*k));
        struct tl_buf b = TL_BUF_INIT;
        if (id) {
            k->id = *id;
            tl_cid_display(&b, id);
            k->display = tl_arena_memdupz(d->arena, b.buf, b.len);
        } else {
            k->unknown = true;
            k->display = "(unknown)";
        }
        tl_buf_release(&b);
        e->value = k;
    }
    return e->value;
}

enum tl_cache_suffix tl_cache_suffix_of(const char *path)
{
    if (strstr(path, "cache_miss"))
        return TL_SUFFIX_MISS;
    if (strstr(path, "cache_hit"))
        return TL_SUFFIX_HIT;
    if (strstr(path, "cache_bypass"))
        return TL_SUFFIX_BYPASS;
    return TL_SUFFIX_NONE;
}

const char *tl_cache_suffix_text(uint8_t s)
{
    switch (s) {
    case TL_SUFFIX_MISS:
        return "\xE2\x9D\x8C";
    case TL_SUFFIX_HIT:
        return "\xE2\x9C\x85";
    case TL_SUFFIX_BYPASS:
        return "\xE2\x9D\x93";
    default:
        return "";
    }
}

struct tl_artifact *tl_directory_add(struct tl_directory *d, struct tl_dirkey *k, const char *url,
                                     const char *name, uint32_t number, bool is_link)
{
    struct tl_artifact *a = tl_arena_calloc(d->arena, 1, sizeof(*a));
    a->url = tl_arena_memdupz(d->arena, url, strlen(url));
    a->name =
        name == url || !strcmp(name, url) ? a->url : tl_arena_memdupz(d->arena, name, strlen(name));
    a->number = number;
    a->suffix = is_link ? TL_SUFFIX_NONE : (uint8_t)tl_cache_suffix_of(url);
    a->is_link = is_link;
    if (k->last)
        k->last->next = a;
    else
        k->first = a;
    k->last = a;
    k->n++;
    return a;
}

struct sorted {
    const char *name; /* display, or "unknown" */
    const struct tl_dirkey *key;
};

static int cmp_sorted(const void *a, const void *b)
{
    return strcmp(((const struct sorted *)a)->name, ((const struct sorted *)b)->name);
}

/* Write compile_directory.json, calling flush (when given) after each key so
 * that a caller streaming to a file keeps the buffer small. */
static int write_json(struct tl_buf *out, const struct tl_directory *d, int (*flush)(void *ctx),
                      void *ctx)
{
    size_t n = tl_map_len(&d->keys);
    if (!n) {
        tl_buf_adds(out, "{}");
        return 0;
    }
    struct sorted *v = tl_xcalloc(n, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        const struct tl_dirkey *k = tl_map_at(&d->keys, i)->value;
        v[i].key = k;
        v[i].name = k->unknown ? "unknown" : k->display;
    }
    qsort(v, n, sizeof(*v), cmp_sorted);
    tl_buf_adds(out, "{\n");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct tl_dirkey *k = v[i].key;
        tl_buf_adds(out, "  ");
        tl_json_write_string(out, v[i].name, strlen(v[i].name));
        if (!k->first) {
            tl_buf_adds(out, ": {\n    \"artifacts\": []\n  }");
        } else {
            tl_buf_adds(out, ": {\n    \"artifacts\": [\n");
            for (const struct tl_artifact *a = k->first; a; a = a->next) {
                const char *slash = strrchr(a->name, '/');
                const char *last = slash ? slash + 1 : a->name;
                tl_buf_adds(out, "      {\n        \"name\": ");
                tl_json_write_string(out, last, strlen(last));
                tl_buf_adds(out, ",\n        \"number\": ");
                tl_buf_addu(out, a->number);
                tl_buf_adds(out, ",\n        \"readable_url\": ");
                if (a->readable_url)
                    tl_json_write_string(out, a->readable_url, strlen(a->readable_url));
                else
                    tl_buf_adds(out, "null");
                tl_buf_adds(out, ",\n        \"suffix\": ");
                const char *suf = tl_cache_suffix_text(a->suffix);
                tl_json_write_string(out, suf, strlen(suf));
                tl_buf_adds(out, ",\n        \"url\": ");
                tl_json_write_string(out, a->url, strlen(a->url));
                tl_buf_adds(out, a->next ? "\n      },\n" : "\n      }\n");
            }
            tl_buf_adds(out, "    ]\n  }");
        }
        tl_buf_adds(out, i + 1 < n ? ",\n" : "\n");
        if (flush)
            rc = flush(ctx);
    }
    if (rc == 0)
        tl_buf_adds(out, "}");
    free(v);
    return rc;
}

void tl_directory_write_json(struct tl_buf *out, const struct tl_directory *d)
{
    write_json(out, d, NULL, NULL);
}

struct stream_ctx {
    struct tl_outfile *f;
    struct tl_err *err;
};

static int stream_flush(void *ctx)
{
    struct stream_ctx *s = ctx;
    return tl_outfile_maybe_flush(s->f, s->err);
}

int tl_directory_write_json_file(struct tl_outfile *f, const struct tl_directory *d,
                                 struct tl_err *err)
{
    struct stream_ctx s = {f, err};
    return write_json(&f->buf, d, stream_flush, &s);
}
