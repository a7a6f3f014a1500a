/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compile directory: keys in first-appearance order, each with its list of artifacts,
 * and the cache suffix of a file name.
 */
#include "base/config.h"
#include "model/directory.h"

#include <math.h>
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

void tl_dirkey_folder(struct tl_buf *out, const struct tl_dirkey *k)
{
    if (k->unknown)
        tl_buf_adds(out, "(unknown)");
    else
        tl_cid_folder(out, &k->id);
}

bool tl_dirkey_attempt_base(struct tl_buf *out, const struct tl_directory *d,
                            const struct tl_dirkey *k)
{
    if (k->unknown || !(k->id.has & TL_CID_ATTEMPT) || !k->id.attempt)
        return false;
    struct tl_compile_id base = k->id;
    base.attempt = 0;
    char key[TL_CID_KEY_LEN];
    tl_cid_key(&base, key);
    if (tl_map_get(&d->keys, tl_str_make(key, sizeof(key))))
        return false;
    base.has &= (uint8_t)~TL_CID_ATTEMPT;
    tl_cid_display(out, &base);
    return true;
}

void tl_dirkey_add_metrics(struct tl_arena *arena, struct tl_dirkey *key, uint8_t status,
                           bool has_time, double seconds, const char *function)
{
    if (!key->overview)
        key->overview = tl_arena_calloc(arena, 1, sizeof(struct tl_overview_cid));
    struct tl_overview_cid *c = key->overview;
    c->status |= status;
    c->nmetrics++;
    if (has_time && isfinite(seconds) && seconds >= 0) {
        c->has_time = true;
        c->time_s += seconds;
    }
    if (function)
        c->function = function;
}
