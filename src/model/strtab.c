/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The log's string table: ids from `str` entries to file names, grown on demand up to a limit.
 */
#include "base/config.h"
#include "model/strtab.h"
#include "base/json_write.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

void tl_strtab_init(struct tl_strtab *t, struct tl_arena *arena)
{
    memset(t, 0, sizeof(*t));
    t->arena = arena;
}

void tl_strtab_release(struct tl_strtab *t)
{
    free(t->s);
    t->s = NULL;
    t->len = t->alloc = 0;
}

bool tl_strtab_set(struct tl_strtab *t, uint32_t id, struct tl_str s)
{
    if (id > TL_STRTAB_MAX_ID)
        return false;
    if (id >= t->alloc) {
        size_t old = t->alloc;
        TL_GROW(t->s, (size_t)id + 1, t->alloc);
        memset(t->s + old, 0, (t->alloc - old) * sizeof(*t->s));
    }
    if (id >= t->len)
        t->len = (size_t)id + 1;
    t->s[id] = tl_arena_str(t->arena, s);
    return true;
}

struct tl_str tl_strtab_get(const struct tl_strtab *t, uint32_t id)
{
    if (id >= t->len)
        return TL_STR_NULL;
    return t->s[id];
}

void tl_strtab_json(struct tl_buf *out, const struct tl_strtab *st)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_SERDE_STRINGS);
    tl_json_doc_object(&w);
    tl_json_doc_key(&w, "string_table");
    tl_json_doc_array(&w);
    if (!st->len)
        tl_json_doc_null(&w);
    for (size_t i = 0; i < st->len; i++)
        tl_json_doc_strn(&w, st->s[i].p, st->s[i].n); /* NULL (a gap): null */
    tl_json_doc_end(&w, ']');
    tl_json_doc_end(&w, '}');
    tl_buf_addch(out, '\n');
}
