/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why a cache missed (cachekey.h): the lookups of a log with the components of their keys,
 * and each miss compared with its nearest earlier entry, component by component. Knows base
 * only (and the JSON values of a payload).
 */
#include "base/config.h"
#include "model/cachekey.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A value longer than this is cut (PyTorch cuts bytes at 1024 too). */
#define MAX_VALUE 1024
/* Component lines remembered whole (tl_cachekey_component), so that the memory they take is of
 * the order of their interned parts'. */
#define MAX_LINE (MAX_VALUE + 256)
/* A value shown in words is at most this long; a longer one is named by its hash. */
#define MAX_SHOWN 160
/* Hashes are shown by their first characters. */
#define SHORT_HASH 10

void tl_cachekey_init(struct tl_cachekey *ck)
{
    memset(ck, 0, sizeof(*ck));
    tl_arena_init(&ck->arena, 64 * 1024);
    tl_map_init(&ck->strings, &ck->arena);
    tl_map_init(&ck->by_key, &ck->arena);
    tl_map_init(&ck->lines, &ck->arena);
}

void tl_cachekey_release(struct tl_cachekey *ck)
{
    for (uint32_t i = 0; i < ck->nentries; i++)
        if (!ck->entries[i].comps_shared)
            free(ck->entries[i].comps);
    free(ck->entries);
    for (uint32_t i = 0; i < ck->nmisses; i++)
        free(ck->misses[i].diffs);
    free(ck->misses);
    free(ck->bypasses);
    tl_map_release(&ck->by_key);
    tl_map_release(&ck->strings);
    tl_map_release(&ck->lines);
    tl_arena_release(&ck->arena);
    memset(ck, 0, sizeof(*ck));
}

static const char *intern(struct tl_cachekey *ck, struct tl_str s)
{
    if (!s.p)
        return NULL;
    struct tl_buf fixed = TL_BUF_INIT;
    if (memchr(s.p, '\0', s.n)) {
        tl_buf_add_nonul(&fixed, s.p, s.n);
        s = tl_buf_str(&fixed);
    }
    const char *p = tl_map_upsert(&ck->strings, s, NULL)->key.p;
    tl_buf_release(&fixed);
    return p;
}

const char *tl_cachekey_cache_name(int cache)
{
    return cache == TL_CK_FX_GRAPH ? "fx_graph" : "aotautograd";
}

bool tl_cachekey_artifact(struct tl_str name, int *cache, int *state)
{
    if (tl_str_has_prefix(name, "fx_graph_cache_"))
        *cache = TL_CK_FX_GRAPH;
    else if (tl_str_has_prefix(name, "aotautograd_cache_"))
        *cache = TL_CK_AOTAUTOGRAD;
    else
        return false;
    if (tl_str_has_suffix(name, "_cache_hit"))
        *state = TL_CK_HIT;
    else if (tl_str_has_suffix(name, "_cache_miss"))
        *state = TL_CK_MISS;
    else if (tl_str_has_suffix(name, "_cache_bypass"))
        *state = TL_CK_BYPASS;
    else if (*cache == TL_CK_AOTAUTOGRAD && tl_str_eq_cstr(name, "aotautograd_cache_hash"))
        *state = -1; /* PyTorch 2.6: the payload's cache_state says */
    else
        return false;
    return true;
}

struct tl_ck_entry *tl_cachekey_entry(struct tl_cachekey *ck, int cache, int state, const char *cid,
                                      const char *key)
{
    TL_GROW(ck->entries, ck->nentries + 1, ck->entries_alloc);
    struct tl_ck_entry *e = &ck->entries[ck->nentries++];
    memset(e, 0, sizeof(*e));
    e->cache = (uint8_t)cache;
    e->state = (uint8_t)state;
    e->cid = cid ? intern(ck, tl_str_cstr(cid)) : NULL;
    e->key = key ? intern(ck, tl_str_cstr(key)) : NULL;
    ck->finished = false;
    return e;
}

void tl_cachekey_component(struct tl_cachekey *ck, struct tl_ck_entry *e, struct tl_str line)
{
    /* Grown one at a time: entries hold a few hundred components, added once. */
    TL_GROW(e->comps, e->ncomps + 1, e->comps_alloc);
    struct tl_ck_comp *c = &e->comps[e->ncomps++];
    ck->finished = false;
    /* Lookups mostly list the components of the lookups before them: a line seen before is
     * one look-up of the line for its three parts, instead of finding and interning each. */
    struct tl_map_entry *seen = NULL;
    if (line.n <= MAX_LINE) {
        int created;
        seen = tl_map_upsert(&ck->lines, line, &created);
        if (!created) {
            *c = *(const struct tl_ck_comp *)seen->value;
            return;
        }
    }
    struct tl_str hash = line, name = line, value = {"", 0};
    if (line.n > 2 && line.p[0] == '[') {
        const char *close = memchr(line.p, ']', line.n);
        if (close) {
            hash = tl_str_make(line.p + 1, (size_t)(close - line.p - 1));
            const char *rest = close + 1;
            const char *end = line.p + line.n;
            if (rest < end && *rest == ' ')
                rest++;
            name = tl_str_make(rest, (size_t)(end - rest));
            long colon = tl_str_find(name, ": ");
            if (colon >= 0) {
                value = tl_str_make(name.p + colon + 2, name.n - (size_t)colon - 2);
                name.n = (size_t)colon;
            } else if (name.n && name.p[name.n - 1] == ':') {
                name.n--;
            }
        }
    }
    if (value.n > MAX_VALUE)
        value.n = MAX_VALUE;
    c->name = intern(ck, name);
    c->hash = intern(ck, hash);
    c->value = intern(ck, value);
    if (seen) {
        struct tl_ck_comp *parts = tl_arena_alloc(&ck->arena, sizeof(*parts));
        *parts = *c;
        seen->value = parts;
    }
}

/* Names are interned: comparing them is comparing pointers, in the order of their addresses
 * (any order serves the merges; the differences are sorted by name for reading). */
static inline bool name_before(const struct tl_ck_comp *a, const struct tl_ck_comp *b)
{
    return (uintptr_t)a->name < (uintptr_t)b->name;
}

/*
 * Sort c[0..n) by name, stable (equal names keep their order, as tl_sort keeps them):
 * insertion sort of runs of eight, merged bottom-up through tmp. tl_sort's call of a comparison
 * per step was a fifth of what the cache keys cost.
 */
static void sort_by_name(struct tl_ck_comp *c, size_t n)
{
    const size_t run = 8;
    for (size_t lo = 0; lo < n; lo += run) {
        size_t hi = lo + run < n ? lo + run : n;
        for (size_t i = lo + 1; i < hi; i++) {
            struct tl_ck_comp x = c[i];
            size_t j = i;
            for (; j > lo && name_before(&x, &c[j - 1]); j--)
                c[j] = c[j - 1];
            c[j] = x;
        }
    }
    if (n <= run)
        return;
    struct tl_ck_comp *tmp = tl_xmalloc(n * sizeof(*tmp)), *src = c, *dst = tmp;
    for (size_t w = run; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = name_before(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        struct tl_ck_comp *t = src;
        src = dst;
        dst = t;
    }
    if (src != c)
        memcpy(c, src, n * sizeof(*c));
    free(tmp);
}

static int name_cmp(const char *x, const char *y)
{
    return x < y ? -1 : x > y;
}

static int diff_by_name(const void *a, const void *b)
{
    return strcmp(((const struct tl_ck_diff *)a)->component,
                  ((const struct tl_ck_diff *)b)->component);
}

static const char *jstr(struct tl_cachekey *ck, const struct tl_json *o, const char *k)
{
    const struct tl_json *v = tl_json_get_type(o, k, TL_JSON_STRING);
    return v ? intern(ck, v->u.str) : NULL;
}

/* e's components, when the latest earlier entry with its key, cache and source logged the
 * very same list (a graph compiled again, a cache hit after its miss): that entry's, shared
 * rather than copied, so that a long run's memory grows with its distinct keys only. */
static void share_comps(struct tl_cachekey *ck, struct tl_ck_entry *e)
{
    if (!e->key || !e->ncomps)
        return;
    struct {
        const char *key;
        uint8_t cache, from_event;
    } id;
    memset(&id, 0, sizeof(id));
    id.key = e->key;
    id.cache = e->cache;
    id.from_event = e->from_event;
    struct tl_map_entry *x =
        tl_map_upsert(&ck->by_key, tl_str_make((const char *)&id, sizeof(id)), NULL);
    if (x->value) {
        const struct tl_ck_entry *o = &ck->entries[(uintptr_t)x->value - 1];
        if (o->ncomps == e->ncomps && !memcmp(o->comps, e->comps, e->ncomps * sizeof(*e->comps))) {
            free(e->comps);
            e->comps = o->comps;
            e->comps_alloc = 0;
            e->comps_shared = true;
            return;
        }
    }
    x->value = (void *)(uintptr_t)(e - ck->entries + 1);
}

static int add(struct tl_cachekey *ck, struct tl_str name, const char *cid,
               const struct tl_json *payload, bool from_event)
{
    int cache, state;
    if (!tl_cachekey_artifact(name, &cache, &state) || !payload || payload->type != TL_JSON_OBJECT)
        return -1;
    if (state < 0) {
        const struct tl_json *s = tl_json_get_type(payload, "cache_state", TL_JSON_STRING);
        if (!s)
            return -1;
        if (tl_str_eq_cstr(s->u.str, "hit"))
            state = TL_CK_HIT;
        else if (tl_str_eq_cstr(s->u.str, "miss"))
            state = TL_CK_MISS;
        else if (tl_str_eq_cstr(s->u.str, "bypass"))
            state = TL_CK_BYPASS;
        else
            return -1;
    }
    struct tl_ck_entry *e = tl_cachekey_entry(ck, cache, state, cid, NULL);
    e->from_event = from_event;
    e->key = jstr(ck, payload, "key");
    e->detail = jstr(ck, payload, "cache_status_detailed");
    e->guard_expr = jstr(ck, payload, "cache_status_guard_expr");
    e->reason = jstr(ck, payload, "cache_bypass_reason");
    const struct tl_json *comps = tl_json_get_type(payload, "components", TL_JSON_ARRAY);
    for (size_t i = 0; comps && i < comps->u.arr.n; i++)
        if (comps->u.arr.items[i].type == TL_JSON_STRING)
            tl_cachekey_component(ck, e, comps->u.arr.items[i].u.str);
    share_comps(ck, e);
    return state;
}

int tl_cachekey_add(struct tl_cachekey *ck, struct tl_str name, const char *cid,
                    const struct tl_json *payload)
{
    return add(ck, name, cid, payload, false);
}

void tl_cachekey_add_event(struct tl_cachekey *ck, struct tl_str event_name, const char *cid,
                           const struct tl_json *args)
{
    static const char *const names[3][2] = {
        {"autograd_cache_hit", "aotautograd_cache_hit"},
        {"autograd_cache_miss", "aotautograd_cache_miss"},
        {"autograd_cache_bypass", "aotautograd_cache_bypass"},
    };
    static const struct tl_json empty = {.type = TL_JSON_OBJECT};
    for (size_t i = 0; i < 3; i++)
        if (tl_str_eq_cstr(event_name, names[i][0]))
            add(ck, tl_str_cstr(names[i][1]), cid,
                args && args->type == TL_JSON_OBJECT ? args : &empty, true);
}

/* ---- tensor metadata ------------------------------------------------------------------------ */

#define MAX_FIELDS 24

struct field {
    struct tl_str name, value;
};

/* The fields of "TensorMetadata(dtype=torch.float32, shape=torch.Size([4, 4]), ...)"; 0 when
 * the value is not tensor metadata. */
static size_t tensor_fields(const char *value, struct field *f)
{
    static const char prefix[] = "TensorMetadata(";
    if (!value || strncmp(value, prefix, sizeof(prefix) - 1))
        return 0;
    const char *p = value + sizeof(prefix) - 1;
    size_t n = 0;
    while (*p && n < MAX_FIELDS) {
        const char *start = p;
        int depth = 0;
        for (; *p; p++) {
            if (*p == '(' || *p == '[' || *p == '{')
                depth++;
            else if (*p == ')' || *p == ']' || *p == '}') {
                if (depth == 0)
                    break;
                depth--;
            } else if (*p == ',' && depth == 0)
                break;
        }
        struct tl_str item = tl_str_make(start, (size_t)(p - start));
        long eq = tl_str_find(item, "=");
        if (eq > 0) {
            f[n].name = tl_str_make(item.p, (size_t)eq);
            f[n].value = tl_str_make(item.p + eq + 1, item.n - (size_t)eq - 1);
            n++;
        }
        if (*p != ',')
            break;
        p++;
        while (*p == ' ')
            p++;
    }
    return n;
}

static const struct field *field_of(const struct field *f, size_t n, struct tl_str name)
{
    for (size_t i = 0; i < n; i++)
        if (tl_str_eq(f[i].name, name))
            return &f[i];
    return NULL;
}

/* How many fields of two tensor metadata differ; 0 when either is not tensor metadata. */
static uint32_t tensor_cost(const char *a, const char *b)
{
    struct field fa[MAX_FIELDS], fb[MAX_FIELDS];
    size_t na = tensor_fields(a, fa), nb = tensor_fields(b, fb);
    if (!na || !nb)
        return 0;
    uint32_t cost = 0;
    for (size_t i = 0; i < na; i++) {
        const struct field *o = field_of(fb, nb, fa[i].name);
        cost += !o || !tl_str_eq(o->value, fa[i].value);
    }
    for (size_t i = 0; i < nb; i++)
        cost += !field_of(fa, na, fb[i].name);
    return cost;
}

void tl_cachekey_distance(const struct tl_ck_entry *miss, const struct tl_ck_entry *other,
                          uint32_t *shared, uint32_t *cost)
{
    uint32_t i = 0, j = 0, s = 0, c = 0;
    while (i < miss->ncomps || j < other->ncomps) {
        int cmp = i == miss->ncomps    ? 1
                  : j == other->ncomps ? -1
                                       : name_cmp(miss->comps[i].name, other->comps[j].name);
        if (cmp == 0) {
            if (miss->comps[i].hash == other->comps[j].hash) {
                s++;
            } else {
                uint32_t t = tensor_cost(other->comps[j].value, miss->comps[i].value);
                c += t ? t : 1;
            }
            i++;
            j++;
        } else {
            c++;
            if (cmp < 0)
                i++;
            else
                j++;
        }
    }
    *shared = s;
    *cost = c;
}

/* ---- words ---------------------------------------------------------------------------------- */

/* Whether a value says something to a reader: short, one line, printable, not "<bytes>". */
static bool shown(const char *v)
{
    if (!v || !*v || !strcmp(v, "<bytes>"))
        return false;
    size_t n = strlen(v);
    if (n > MAX_SHOWN)
        return false;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            return false;
        /* U+FFFD: bytes PyTorch decoded with errors="replace" (torch_version's) */
        if (p[0] == 0xef && p[1] == 0xbf && p[2] == 0xbd)
            return false;
    }
    return true;
}

/* "a -> b" of two sides, either absent */
static void change(struct tl_buf *out, const char *before, const char *after)
{
    tl_buf_adds(out, " (");
    tl_buf_adds(out, before ? before : "absent");
    tl_buf_adds(out, " -> ");
    tl_buf_adds(out, after ? after : "absent");
    tl_buf_addch(out, ')');
}

/* The bracketed part of "inductor_config[max_autotune]" when name starts with prefix "[". */
static bool bracketed(const char *name, const char *prefix, struct tl_str *inner)
{
    size_t n = strlen(prefix), len = strlen(name);
    if (strncmp(name, prefix, n) || len < n + 2 || name[n] != '[' || name[len - 1] != ']')
        return false;
    *inner = tl_str_make(name + n + 1, len - n - 2);
    return true;
}

static void tensor_words(struct tl_buf *out, struct tl_str index, const char *before,
                         const char *after)
{
    struct field fa[MAX_FIELDS], fb[MAX_FIELDS];
    size_t na = tensor_fields(before, fa), nb = tensor_fields(after, fb);
    tl_buf_addf(out, "input %.*s", (int)index.n, index.p);
    if (!before || !after) {
        tl_buf_adds(out, before ? " removed" : " added");
        return;
    }
    if (!na || !nb) {
        tl_buf_adds(out, " changed");
        if (shown(before) && shown(after))
            change(out, before, after);
        return;
    }
    const struct field *d[MAX_FIELDS];
    size_t nd = 0;
    for (size_t i = 0; i < na; i++) {
        const struct field *o = field_of(fb, nb, fa[i].name);
        if (o && !tl_str_eq(o->value, fa[i].value))
            d[nd++] = &fa[i];
    }
    if (!nd) {
        tl_buf_adds(out, "'s metadata changed");
        return;
    }
    tl_buf_adds(out, "'s ");
    for (size_t i = 0; i < nd; i++)
        tl_buf_addf(out, "%s%.*s",
                    i == 0        ? ""
                    : i + 1 == nd ? " and "
                                  : ", ",
                    (int)d[i]->name.n, d[i]->name.p);
    tl_buf_adds(out, " changed (");
    for (size_t i = 0; i < nd; i++) {
        const struct field *o = field_of(fb, nb, d[i]->name);
        if (nd > 1)
            tl_buf_addf(out, "%s%.*s ", i ? "; " : "", (int)d[i]->name.n, d[i]->name.p);
        tl_buf_addf(out, "%.*s -> %.*s", (int)d[i]->value.n, d[i]->value.p, (int)o->value.n,
                    o->value.p);
    }
    tl_buf_addch(out, ')');
}

void tl_cachekey_words(struct tl_buf *out, const char *component, const char *before,
                       const char *after)
{
    struct tl_str inner;
    bool values = shown(before) && shown(after);
    const char *verb = !before ? "added" : !after ? "removed" : "changed";
    if (!strcmp(component, "gm")) {
        tl_buf_addf(out, "the graph (gm) %s", verb);
        return;
    }
    if (bracketed(component, "example_inputs", &inner)) {
        tensor_words(out, inner, before, after);
        return;
    }
    if (!strcmp(component, "torch_version")) {
        tl_buf_adds(out, "PyTorch version differs");
        return;
    }
    if (!strcmp(component, "system_info[version]") && before && after && strstr(before, "triton") &&
        strstr(after, "triton")) {
        tl_buf_adds(out, "Triton version differs");
        return;
    }
    if (!strcmp(component, "system_info[device]")) {
        tl_buf_adds(out, "the device differs");
        if (values)
            change(out, before, after);
        return;
    }
    if (!strcmp(component, "system_info[hash]")) {
        tl_buf_adds(out, "the system (device, CUDA and Triton versions) differs");
        return;
    }
    if (!strcmp(component, "inductor_code_hash")) {
        tl_buf_adds(out, "Inductor's source code differs");
        return;
    }
    static const struct {
        const char *prefix, *what;
    } configs[] = {
        {"inductor_config", "inductor config"},
        {"inductor_config_comms", "inductor comms config"},
        {"functorch_config", "functorch config"},
        {"fx_kwargs", "compile argument"},
        {"system_info", "system info"},
    };
    bool done = false;
    for (size_t i = 0; !done && i < sizeof(configs) / sizeof(configs[0]); i++)
        if (bracketed(component, configs[i].prefix, &inner)) {
            tl_buf_addf(out, "%s `%.*s` %s", configs[i].what, (int)inner.n, inner.p, verb);
            done = true;
        }
    if (!done)
        tl_buf_addf(out, "`%s` %s", component, verb);
    if (values)
        change(out, before, after);
}

/* ---- the misses ----------------------------------------------------------------------------- */

static const char *short_hash(struct tl_cachekey *ck, const struct tl_ck_comp *c)
{
    char h[SHORT_HASH + 1];
    snprintf(h, sizeof(h), "%s", c->hash);
    return intern(ck, tl_str_cstr(h));
}

/* A side of a difference: its value when that says something, else its hash shortened (the
 * graph's code; bytes; a long value; a value that prints as the other side's does). */
static const char *side(struct tl_cachekey *ck, const struct tl_ck_comp *c,
                        const struct tl_ck_comp *other)
{
    if (!c)
        return NULL;
    if (other && other->value == c->value)
        return short_hash(ck, c);
    struct field f[MAX_FIELDS];
    /* The graph's code is long, and its hash says whether it changed. */
    bool code = !strcmp(c->name, "gm");
    if (!code && (shown(c->value) || tensor_fields(c->value, f)))
        return c->value;
    return short_hash(ck, c);
}

static void add_diff(struct tl_cachekey *ck, struct tl_ck_miss *m, const struct tl_ck_comp *a,
                     const struct tl_ck_comp *b, uint32_t *alloc)
{
    TL_GROW(m->diffs, m->ndiffs + 1, *alloc);
    struct tl_ck_diff *d = &m->diffs[m->ndiffs++];
    d->component = a ? a->name : b->name;
    d->before = side(ck, a, b);
    d->after = side(ck, b, a);
    if (!strcmp(d->component, "gm"))
        m->new_graph = true;
    struct tl_buf w = TL_BUF_INIT;
    bool alike = a && b && a->value == b->value;
    tl_cachekey_words(&w, d->component, a ? (alike ? "" : a->value) : NULL,
                      b ? (alike ? "" : b->value) : NULL);
    /* A value only its hash names: its words say "changed", with the two hashes. */
    if (a && b && (d->before != a->value || d->after != b->value))
        tl_buf_addf(&w, " (%s -> %s)", d->before, d->after);
    d->words = intern(ck, tl_buf_str(&w));
    tl_buf_release(&w);
}

static void diff_entries(struct tl_cachekey *ck, struct tl_ck_miss *m)
{
    const struct tl_ck_entry *a = m->nearest, *b = m->e;
    uint32_t i = 0, j = 0, alloc = 0;
    while (i < a->ncomps || j < b->ncomps) {
        int cmp = i == a->ncomps   ? 1
                  : j == b->ncomps ? -1
                                   : name_cmp(a->comps[i].name, b->comps[j].name);
        if (cmp == 0) {
            if (a->comps[i].hash != b->comps[j].hash)
                add_diff(ck, m, &a->comps[i], &b->comps[j], &alloc);
            i++;
            j++;
        } else if (cmp < 0) {
            add_diff(ck, m, &a->comps[i++], NULL, &alloc);
        } else {
            add_diff(ck, m, NULL, &b->comps[j++], &alloc);
        }
    }
}

static const struct tl_ck_entry *same_key(const struct tl_cachekey *ck, uint32_t i)
{
    const struct tl_ck_entry *e = &ck->entries[i];
    for (uint32_t j = i; e->key && j-- > 0;) {
        const struct tl_ck_entry *o = &ck->entries[j];
        if (o->cache == e->cache && o->state != TL_CK_BYPASS && o->key == e->key)
            return o;
    }
    return NULL;
}

/* The miss's own facts, and its nearest entry's, copied out. */
static void copy_facts(struct tl_ck_miss *m)
{
    const struct tl_ck_entry *e = m->e;
    m->cid = e->cid;
    m->role = e->role;
    m->key = e->key;
    m->cache = e->cache;
    m->listed = e->ncomps > 0;
    m->has_nearest = m->nearest != NULL;
    m->nearest_cid = m->nearest ? m->nearest->cid : NULL;
    m->nearest_key = m->nearest ? m->nearest->key : NULL;
}

/* next[j]: the index of the next entry with entry j's key (UINT32_MAX: none). Entries with
 * one key have one list of components, so only the latest of them before a miss is compared
 * with it: a log that compiles the same graphs again costs no more than once. */
static uint32_t *next_of_key(const struct tl_cachekey *ck)
{
    uint32_t *next = tl_xmalloc((ck->nentries ? ck->nentries : 1) * sizeof(*next));
    struct tl_arena a;
    struct tl_map last;
    tl_arena_init(&a, 4096);
    tl_map_init(&last, &a);
    for (uint32_t i = ck->nentries; i-- > 0;) {
        next[i] = UINT32_MAX;
        const char *key = ck->entries[i].key;
        if (!key)
            continue;
        struct tl_map_entry *x =
            tl_map_upsert(&last, tl_str_make((const char *)&key, sizeof(key)), NULL);
        if (x->value)
            next[i] = (uint32_t)((uintptr_t)x->value - 1);
        x->value = (void *)(uintptr_t)(i + 1);
    }
    tl_map_release(&last);
    tl_arena_release(&a);
    return next;
}

static void explain(struct tl_cachekey *ck, uint32_t i, struct tl_ck_miss *m, const uint32_t *next)
{
    const struct tl_ck_entry *e = &ck->entries[i];
    m->e = e;
    bool guard = (e->detail && !strcmp(e->detail, "guard_miss")) || e->guard_expr;
    if (guard || !e->ncomps) {
        /* The key's components are not what missed (its guards failed), or are not logged:
         * the entry with the same key, when the log has one. */
        m->nearest = same_key(ck, i);
        if (guard)
            m->note =
                tl_arena_printf(&ck->arena,
                                "an entry with the same key is stored, but its shape "
                                "guards failed%s%s",
                                e->guard_expr ? ": " : "", e->guard_expr ? e->guard_expr : "");
        else
            m->note = e->cache == TL_CK_AOTAUTOGRAD
                          ? "the log lists no components of this key (PyTorch lists the AOT "
                            "autograd key's components only with DEBUG logging on)"
                          : "the log lists no components of this key";
        return;
    }
    uint32_t best_shared = 0, best_cost = UINT32_MAX;
    /* From the latest back: among equals, the latest stays. */
    for (uint32_t j = i; j-- > 0;) {
        const struct tl_ck_entry *o = &ck->entries[j];
        if (next[j] < i || o->cache != e->cache || o->state == TL_CK_BYPASS || !o->ncomps ||
            (o->role && e->role && strcmp(o->role, e->role)))
            continue;
        uint32_t shared, cost;
        tl_cachekey_distance(e, o, &shared, &cost);
        if (!m->nearest || shared > best_shared || (shared == best_shared && cost < best_cost)) {
            m->nearest = o;
            best_shared = shared;
            best_cost = cost;
        }
    }
    if (!m->nearest)
        return;
    diff_entries(ck, m);
    if (m->ndiffs > 1)
        tl_sort(m->diffs, m->ndiffs, sizeof(*m->diffs), diff_by_name);
    if (!m->ndiffs)
        m->note = e->detail && !strcmp(e->detail, "full_miss")
                      ? "the key equals the nearest entry's, yet no entry was found: it was not "
                        "stored, or is gone from the cache"
                      : "the key equals the nearest entry's: it was not stored, is gone from the "
                        "cache, or its shape guards failed";
}

void tl_cachekey_finish(struct tl_cachekey *ck)
{
    if (ck->finished)
        return;
    /* The chromium events say again what the artifacts say, when the log has both. */
    bool artifacts = false;
    for (uint32_t i = 0; i < ck->nentries; i++)
        artifacts =
            artifacts || (ck->entries[i].cache == TL_CK_AOTAUTOGRAD && !ck->entries[i].from_event);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < ck->nentries; i++) {
        if (!(artifacts && ck->entries[i].from_event))
            ck->entries[kept++] = ck->entries[i];
        else if (!ck->entries[i].comps_shared) /* shared with events only, gone too */
            free(ck->entries[i].comps);
    }
    if (kept < ck->nentries) { /* the owners' indices moved: no sharing with what went before */
        tl_map_release(&ck->by_key);
        tl_map_init(&ck->by_key, &ck->arena);
    }
    ck->nentries = kept;
    for (uint32_t i = 0; i < ck->nentries; i++) {
        if (!ck->entries[i].comps_shared)
            sort_by_name(ck->entries[i].comps, ck->entries[i].ncomps);
        ck->entries[i].role = tl_cachekey_role(&ck->entries[i]);
    }
    for (uint32_t i = 0; i < ck->nmisses; i++)
        free(ck->misses[i].diffs);
    free(ck->misses);
    free(ck->bypasses);
    ck->misses = NULL;
    ck->bypasses = NULL;
    ck->nmisses = ck->nbypasses = ck->misses_alloc = ck->bypasses_alloc = 0;
    uint32_t *next = next_of_key(ck);
    for (uint32_t i = 0; i < ck->nentries; i++) {
        const struct tl_ck_entry *e = &ck->entries[i];
        if (e->state == TL_CK_MISS) {
            TL_GROW(ck->misses, ck->nmisses + 1, ck->misses_alloc);
            struct tl_ck_miss *m = &ck->misses[ck->nmisses++];
            memset(m, 0, sizeof(*m));
            explain(ck, i, m, next);
            copy_facts(m);
        } else if (e->state == TL_CK_BYPASS) {
            TL_GROW(ck->bypasses, ck->nbypasses + 1, ck->bypasses_alloc);
            ck->bypasses[ck->nbypasses++] = (struct tl_ck_bypass){e->cid, e->reason, e->cache};
        }
    }
    free(next);
    ck->finished = true;
}

const char *tl_cachekey_role(const struct tl_ck_entry *e)
{
    const char *backward = NULL, *inference = NULL;
    for (uint32_t i = 0; i < e->ncomps; i++) {
        if (!strcmp(e->comps[i].name, "fx_kwargs[is_backward]"))
            backward = e->comps[i].value;
        else if (!strcmp(e->comps[i].name, "fx_kwargs[is_inference]"))
            inference = e->comps[i].value;
    }
    if (backward && !strcmp(backward, "True"))
        return "backward";
    if (inference && !strcmp(inference, "True"))
        return "inference";
    if (backward || inference)
        return "forward";
    return NULL;
}

/* ---- a summary read back -------------------------------------------------------------------- */

static int cache_of(struct tl_cachekey *ck, const struct tl_json *o)
{
    const char *c = jstr(ck, o, "cache");
    return c && !strcmp(c, "fx_graph") ? TL_CK_FX_GRAPH : TL_CK_AOTAUTOGRAD;
}

static bool jbool(const struct tl_json *o, const char *k)
{
    const struct tl_json *v = tl_json_get_type(o, k, TL_JSON_BOOL);
    return v && v->u.b;
}

void tl_cachekey_read(struct tl_cachekey *ck, const struct tl_json *cache)
{
    const struct tl_json *misses = tl_json_get_type(cache, "misses", TL_JSON_ARRAY);
    const struct tl_json *bypasses = tl_json_get_type(cache, "bypasses", TL_JSON_ARRAY);
    for (size_t i = 0; misses && i < misses->u.arr.n; i++) {
        const struct tl_json *o = &misses->u.arr.items[i];
        if (o->type != TL_JSON_OBJECT)
            continue;
        TL_GROW(ck->misses, ck->nmisses + 1, ck->misses_alloc);
        struct tl_ck_miss *m = &ck->misses[ck->nmisses++];
        memset(m, 0, sizeof(*m));
        m->cid = jstr(ck, o, "compile_id");
        m->cache = (uint8_t)cache_of(ck, o);
        m->role = jstr(ck, o, "graph");
        m->key = jstr(ck, o, "key");
        const struct tl_json *n = tl_json_get(o, "nearest");
        m->has_nearest = n && n->type == TL_JSON_STRING;
        m->nearest_cid = m->has_nearest && n->u.str.n ? intern(ck, n->u.str) : NULL;
        m->nearest_key = jstr(ck, o, "nearest_key");
        m->listed = jbool(o, "components_listed");
        m->new_graph = jbool(o, "new_graph");
        m->note = jstr(ck, o, "note");
        const struct tl_json *d = tl_json_get_type(o, "differs", TL_JSON_ARRAY);
        uint32_t alloc = 0;
        for (size_t j = 0; d && j < d->u.arr.n; j++) {
            const struct tl_json *x = &d->u.arr.items[j];
            const char *component = jstr(ck, x, "component");
            const char *words = jstr(ck, x, "words");
            if (x->type != TL_JSON_OBJECT || !component || !words)
                continue;
            TL_GROW(m->diffs, m->ndiffs + 1, alloc);
            m->diffs[m->ndiffs++] =
                (struct tl_ck_diff){component, jstr(ck, x, "before"), jstr(ck, x, "after"), words};
        }
    }
    for (size_t i = 0; bypasses && i < bypasses->u.arr.n; i++) {
        const struct tl_json *o = &bypasses->u.arr.items[i];
        if (o->type != TL_JSON_OBJECT)
            continue;
        TL_GROW(ck->bypasses, ck->nbypasses + 1, ck->bypasses_alloc);
        ck->bypasses[ck->nbypasses++] = (struct tl_ck_bypass){
            jstr(ck, o, "compile_id"), jstr(ck, o, "reason"), (uint8_t)cache_of(ck, o)};
    }
    ck->digest = tl_cachekey_digest_read(tl_json_get(cache, "keys"), &ck->arena);
    ck->finished = true;
}

/* ---- digests: a log's lookups in brief, to compare across logs ---------------------------- */

/* A component's value as a digest keeps it: only what a reader is shown ("" for the rest). */
static const char *digest_value(const char *v)
{
    struct field f[MAX_FIELDS];
    return v && (shown(v) || tensor_fields(v, f)) ? v : "";
}

static int by_name_text(const void *a, const void *b)
{
    return strcmp(((const struct tl_ck_comp *)a)->name, ((const struct tl_ck_comp *)b)->name);
}

static bool digest_takes(const struct tl_ck_entry *e)
{
    return e->state != TL_CK_BYPASS && e->ncomps;
}

static char *adup(struct tl_arena *a, const char *s)
{
    return s ? tl_arena_memdupz(a, s, strlen(s)) : NULL;
}

const struct tl_ck_digest *tl_cachekey_digest(const struct tl_cachekey *ck, struct tl_arena *arena)
{
    if (ck->digest)
        return ck->digest;
    uint32_t want = 0;
    for (uint32_t i = 0; i < ck->nentries; i++)
        want += digest_takes(&ck->entries[i]);
    if (!want)
        return NULL;
    struct tl_ck_digest *dg = tl_arena_calloc(arena, 1, sizeof(*dg));
    uint32_t cap = want < TL_CK_DIGEST_MAX ? want : TL_CK_DIGEST_MAX;
    dg->entries = tl_arena_calloc(arena, cap, sizeof(*dg->entries));
    /* the distinct components: (name, hash, value) interned, so their pointers say it */
    struct tl_arena own;
    struct tl_map seen;
    tl_arena_init(&own, 16 * 1024);
    tl_map_init(&seen, &own);
    uint32_t comps_alloc = 0;
    for (uint32_t i = 0; i < ck->nentries; i++) {
        const struct tl_ck_entry *e = &ck->entries[i];
        if (!digest_takes(e))
            continue;
        bool again = false; /* the same key and state as a lookup kept: its components too */
        for (uint32_t k = 0; e->key && k < dg->nentries && !again; k++)
            again = dg->entries[k].key && !strcmp(dg->entries[k].key, e->key) &&
                    dg->entries[k].state == e->state && dg->entries[k].cache == e->cache;
        if (again)
            continue;
        if (dg->nentries == cap) {
            dg->dropped++;
            continue;
        }
        struct tl_ck_digest_entry *d = &dg->entries[dg->nentries++];
        d->cid = adup(arena, e->cid);
        d->key = adup(arena, e->key);
        d->role = e->role;
        d->cache = e->cache;
        d->state = e->state;
        d->ncomps = e->ncomps < TL_CK_DIGEST_MAX_COMPS ? e->ncomps : TL_CK_DIGEST_MAX_COMPS;
        uint32_t *idx = tl_arena_calloc(arena, d->ncomps, sizeof(*idx));
        /* in the order of their names' text (the entry's is that of addresses) */
        struct tl_ck_comp *sorted = tl_xmalloc(e->ncomps * sizeof(*sorted));
        memcpy(sorted, e->comps, e->ncomps * sizeof(*sorted));
        tl_sort(sorted, e->ncomps, sizeof(*sorted), by_name_text);
        for (uint32_t j = 0; j < d->ncomps; j++) {
            const struct tl_ck_comp *c = &sorted[j];
            const char *v = digest_value(c->value);
            const char *triple[3] = {c->name, c->hash, v};
            struct tl_map_entry *x =
                tl_map_upsert(&seen, tl_str_make((const char *)triple, sizeof(triple)), NULL);
            if (!x->value) {
                TL_GROW(dg->comps, dg->ncomps + 1, comps_alloc);
                dg->comps[dg->ncomps] = (struct tl_ck_comp){c->name, c->hash, v};
                x->value = (void *)(uintptr_t)(++dg->ncomps);
            }
            idx[j] = (uint32_t)((uintptr_t)x->value - 1);
        }
        free(sorted);
        d->comps = idx;
    }
    tl_map_release(&seen);
    tl_arena_release(&own);
    /* the table into the arena, its strings copied */
    struct tl_ck_comp *table = tl_arena_calloc(arena, dg->ncomps ? dg->ncomps : 1, sizeof(*table));
    for (uint32_t i = 0; i < dg->ncomps; i++)
        table[i] =
            (struct tl_ck_comp){adup(arena, dg->comps[i].name), adup(arena, dg->comps[i].hash),
                                adup(arena, dg->comps[i].value)};
    free(dg->comps);
    dg->comps = table;
    for (uint32_t i = 0; i < dg->nentries; i++)
        dg->entries[i].role = adup(arena, dg->entries[i].role);
    return dg;
}

static const char *jdup(struct tl_arena *a, const struct tl_json *o, const char *k)
{
    const struct tl_json *v = tl_json_get_type(o, k, TL_JSON_STRING);
    return v ? tl_arena_memdupz(a, v->u.str.p, v->u.str.n) : NULL;
}

static const char *json_item_str(struct tl_arena *a, const struct tl_json *arr, size_t i)
{
    if (i >= arr->u.arr.n || arr->u.arr.items[i].type != TL_JSON_STRING)
        return NULL;
    return tl_arena_memdupz(a, arr->u.arr.items[i].u.str.p, arr->u.arr.items[i].u.str.n);
}

const struct tl_ck_digest *tl_cachekey_digest_read(const struct tl_json *keys,
                                                   struct tl_arena *arena)
{
    if (!keys || keys->type != TL_JSON_OBJECT)
        return NULL;
    const struct tl_json *comps = tl_json_get_type(keys, "components", TL_JSON_ARRAY);
    const struct tl_json *lookups = tl_json_get_type(keys, "lookups", TL_JSON_ARRAY);
    if (!comps || !lookups)
        return NULL;
    struct tl_ck_digest *dg = tl_arena_calloc(arena, 1, sizeof(*dg));
    dg->comps = tl_arena_calloc(arena, comps->u.arr.n ? comps->u.arr.n : 1, sizeof(*dg->comps));
    /* a component that is not [name, hash, value] keeps its place (the indexes count it) and
     * is left out of the lookups that name it */
    bool *bad = tl_arena_calloc(arena, comps->u.arr.n ? comps->u.arr.n : 1, sizeof(*bad));
    for (size_t i = 0; i < comps->u.arr.n && i < UINT32_MAX; i++) {
        const struct tl_json *c = &comps->u.arr.items[i];
        struct tl_ck_comp *t = &dg->comps[dg->ncomps++];
        if (c->type == TL_JSON_ARRAY && c->u.arr.n == 3) {
            t->name = json_item_str(arena, c, 0);
            t->hash = json_item_str(arena, c, 1);
            t->value = json_item_str(arena, c, 2);
        }
        bad[i] = !t->name || !t->hash || !t->value;
    }
    dg->entries =
        tl_arena_calloc(arena, lookups->u.arr.n ? lookups->u.arr.n : 1, sizeof(*dg->entries));
    for (size_t i = 0; i < lookups->u.arr.n && dg->nentries < TL_CK_DIGEST_MAX; i++) {
        const struct tl_json *o = &lookups->u.arr.items[i];
        const struct tl_json *idx = tl_json_get_type(o, "components", TL_JSON_ARRAY);
        const char *state = jdup(arena, o, "state");
        const char *cache = jdup(arena, o, "cache");
        if (o->type != TL_JSON_OBJECT || !idx || !state || !cache)
            continue;
        struct tl_ck_digest_entry *d = &dg->entries[dg->nentries];
        if (!strcmp(state, "hit"))
            d->state = TL_CK_HIT;
        else if (!strcmp(state, "miss"))
            d->state = TL_CK_MISS;
        else
            continue;
        if (!strcmp(cache, "fx_graph"))
            d->cache = TL_CK_FX_GRAPH;
        else if (!strcmp(cache, "aotautograd"))
            d->cache = TL_CK_AOTAUTOGRAD;
        else
            continue;
        d->cid = jdup(arena, o, "compile_id");
        d->key = jdup(arena, o, "key");
        d->role = jdup(arena, o, "graph");
        uint32_t *v = tl_arena_calloc(arena, idx->u.arr.n ? idx->u.arr.n : 1, sizeof(*v));
        for (size_t j = 0; j < idx->u.arr.n && d->ncomps < TL_CK_DIGEST_MAX_COMPS; j++) {
            const struct tl_json *x = &idx->u.arr.items[j];
            if (x->type == TL_JSON_NUMBER && x->u.num.kind == TL_JSON_UINT &&
                x->u.num.u < dg->ncomps && !bad[x->u.num.u])
                v[d->ncomps++] = (uint32_t)x->u.num.u;
        }
        d->comps = v;
        dg->nentries++;
    }
    const struct tl_json *dropped = tl_json_get_type(keys, "lookups_dropped", TL_JSON_NUMBER);
    if (dropped && dropped->u.num.kind == TL_JSON_UINT)
        dg->dropped = dropped->u.num.u > UINT32_MAX ? UINT32_MAX : (uint32_t)dropped->u.num.u;
    return dg;
}

/* ---- across logs ---------------------------------------------------------------------------- */

/* A key that missed, with the logs it missed in. */
struct group {
    const struct tl_ck_entry *first; /* the first miss */
    uint32_t *logs;                  /* digest indexes, ascending */
    const char **cids;
    uint32_t nlogs, alloc;
    bool hit; /* the key hit in some log */
};

static void group_add(struct group *g, uint32_t log, const char *cid)
{
    if (g->nlogs && g->logs[g->nlogs - 1] == log)
        return;
    if (g->nlogs == g->alloc) {
        g->alloc = g->alloc ? 2 * g->alloc : 4;
        g->logs = tl_xrealloc(g->logs, g->alloc * sizeof(*g->logs));
        g->cids = tl_xrealloc(g->cids, g->alloc * sizeof(*g->cids));
    }
    g->logs[g->nlogs] = log;
    g->cids[g->nlogs++] = cid;
}

/* Whether log is one of the group's. */
static bool group_has(const struct group *g, uint32_t log)
{
    for (uint32_t i = 0; i < g->nlogs; i++)
        if (g->logs[i] == log)
            return true;
    return false;
}

static void load_digest(struct tl_cachekey *ck, const struct tl_ck_digest *dg, uint32_t origin)
{
    const char **names = tl_xcalloc(dg->ncomps ? dg->ncomps : 1, 3 * sizeof(*names));
    /* a component read back wrong has NULL members, and no lookup names it */
    for (uint32_t i = 0; i < dg->ncomps; i++) {
        const struct tl_ck_comp *c = &dg->comps[i];
        if (!c->name || !c->hash || !c->value)
            continue;
        names[3 * i] = intern(ck, tl_str_cstr(c->name));
        names[3 * i + 1] = intern(ck, tl_str_cstr(c->hash));
        names[3 * i + 2] = intern(ck, tl_str_cstr(c->value));
    }
    for (uint32_t i = 0; i < dg->nentries; i++) {
        const struct tl_ck_digest_entry *d = &dg->entries[i];
        struct tl_ck_entry *e = tl_cachekey_entry(ck, d->cache, d->state, d->cid, d->key);
        e->origin = origin;
        e->role = d->role ? intern(ck, tl_str_cstr(d->role)) : NULL;
        e->comps = tl_xcalloc(d->ncomps ? d->ncomps : 1, sizeof(*e->comps));
        e->ncomps = e->comps_alloc = d->ncomps;
        for (uint32_t j = 0; j < d->ncomps; j++) {
            const char **t = &names[3 * d->comps[j]];
            e->comps[j] = (struct tl_ck_comp){t[0], t[1], t[2]};
        }
        /* one name once: a digest read back may say one twice */
        sort_by_name(e->comps, e->ncomps);
        uint32_t kept = 0;
        for (uint32_t j = 0; j < e->ncomps; j++)
            if (!kept || e->comps[kept - 1].name != e->comps[j].name)
                e->comps[kept++] = e->comps[j];
        e->ncomps = kept;
    }
    free(names);
}

/* The group's nearest entry of another key in a log it may be compared with. */
static const struct tl_ck_entry *nearest_elsewhere(const struct tl_cachekey *ck,
                                                   const struct group *g, int how)
{
    const struct tl_ck_entry *e = g->first, *best = NULL;
    uint32_t best_shared = 0, best_cost = UINT32_MAX;
    for (uint32_t j = 0; j < ck->nentries; j++) {
        const struct tl_ck_entry *o = &ck->entries[j];
        if (how == TL_CK_ACROSS_FIRST ? o->origin != 0 : group_has(g, o->origin))
            continue;
        if (o->cache != e->cache || o->key == e->key || !o->ncomps ||
            (o->role && e->role && strcmp(o->role, e->role)))
            continue;
        uint32_t shared, cost;
        tl_cachekey_distance(e, o, &shared, &cost);
        if (!best || shared > best_shared || (shared == best_shared && cost < best_cost)) {
            best = o;
            best_shared = shared;
            best_cost = cost;
        }
    }
    return best;
}

/* The hash of e's graph (its "gm" component), or NULL. */
static const char *graph_hash(const struct tl_ck_entry *e)
{
    for (uint32_t i = 0; i < e->ncomps; i++)
        if (!strcmp(e->comps[i].name, "gm"))
            return e->comps[i].hash;
    return NULL;
}

/* Whether a log's own earlier entries of the same graph explain its miss e at least as well as
 * o of another log does (as many components alike, no more tensor fields apart): a recompile
 * of its own, such as a new shape. */
static bool own_as_near(const struct tl_cachekey *ck, const struct tl_ck_entry *e,
                        const struct tl_ck_entry *o)
{
    uint32_t o_shared, o_cost;
    tl_cachekey_distance(e, o, &o_shared, &o_cost);
    const char *graph = graph_hash(e);
    for (const struct tl_ck_entry *x = ck->entries; x < e; x++) {
        if (x->origin != e->origin || x->cache != e->cache || x->state == TL_CK_BYPASS ||
            !x->ncomps || x->key == e->key || (x->role && e->role && strcmp(x->role, e->role)) ||
            graph_hash(x) != graph)
            continue;
        uint32_t shared, cost;
        tl_cachekey_distance(e, x, &shared, &cost);
        if (shared > o_shared || (shared == o_shared && cost <= o_cost))
            return true;
    }
    return false;
}

void tl_cachekey_across(struct tl_ck_across *out, const struct tl_ck_digest *const *digests,
                        const uint32_t *origins, size_t n, int how, struct tl_arena *arena)
{
    memset(out, 0, sizeof(*out));
    struct tl_cachekey ck;
    tl_cachekey_init(&ck);
    for (size_t i = 0; i < n && i < UINT32_MAX; i++)
        if (digests[i]) {
            load_digest(&ck, digests[i], (uint32_t)i);
            out->dropped += digests[i]->dropped;
        }
    /* the misses, key by key (a key is interned: its pointer says it) */
    struct group *groups = NULL;
    uint32_t ngroups = 0, groups_alloc = 0;
    struct tl_arena own;
    struct tl_map by_key;
    tl_arena_init(&own, 4096);
    tl_map_init(&by_key, &own);
    for (uint32_t i = 0; i < ck.nentries; i++) {
        const struct tl_ck_entry *e = &ck.entries[i];
        if (!e->key || !e->ncomps || (how == TL_CK_ACROSS_FIRST && e->origin == 0))
            continue;
        const void *id[2] = {e->key, (const void *)(uintptr_t)e->cache};
        struct tl_map_entry *x =
            tl_map_upsert(&by_key, tl_str_make((const char *)id, sizeof(id)), NULL);
        if (e->state != TL_CK_MISS)
            continue; /* hits are marked below */
        if (!x->value) {
            TL_GROW(groups, ngroups + 1, groups_alloc);
            memset(&groups[ngroups], 0, sizeof(*groups));
            groups[ngroups].first = e;
            x->value = (void *)(uintptr_t)(++ngroups);
        }
        group_add(&groups[(uintptr_t)x->value - 1], e->origin, e->cid);
    }
    /* a key that hit in some log: its misses were a cold cache */
    for (uint32_t i = 0; how == TL_CK_ACROSS_ANY && i < ck.nentries; i++) {
        const struct tl_ck_entry *e = &ck.entries[i];
        if (!e->key || e->state != TL_CK_HIT)
            continue;
        const void *id[2] = {e->key, (const void *)(uintptr_t)e->cache};
        void *v = tl_map_get(&by_key, tl_str_make((const char *)id, sizeof(id)));
        if (v)
            groups[(uintptr_t)v - 1].hit = true;
    }
    /* at most one result per group: the array in the arena at once */
    out->misses = tl_arena_calloc(arena, ngroups ? ngroups : 1, sizeof(*out->misses));
    uint32_t compared = 0;
    for (uint32_t i = 0; i < ngroups; i++) {
        struct group *g = &groups[i];
        bool on_first = false; /* FIRST: the key is on the first log's side too */
        for (uint32_t j = 0; how == TL_CK_ACROSS_FIRST && j < ck.nentries && !on_first; j++)
            on_first = ck.entries[j].origin == 0 && ck.entries[j].key == g->first->key &&
                       ck.entries[j].cache == g->first->cache;
        if ((how == TL_CK_ACROSS_ANY && g->hit) || on_first)
            continue;
        if (compared == TL_CK_ACROSS_MAX) {
            out->uncompared++;
            continue;
        }
        compared++;
        const struct tl_ck_entry *o = nearest_elsewhere(&ck, g, how);
        if (o && how == TL_CK_ACROSS_ANY && own_as_near(&ck, g->first, o))
            continue;
        struct tl_ck_miss m = {.e = g->first, .nearest = o};
        if (o)
            diff_entries(&ck, &m);
        if (!o || m.new_graph || !m.ndiffs) {
            out->unexplained += !o || m.new_graph;
            free(m.diffs);
            continue;
        }
        tl_sort(m.diffs, m.ndiffs, sizeof(*m.diffs), diff_by_name);
        struct tl_ck_across_miss *r = &out->misses[out->nmisses++];
        uint32_t *logs = tl_arena_calloc(arena, g->nlogs, sizeof(*logs));
        const char **cids = tl_arena_calloc(arena, g->nlogs, sizeof(*cids));
        for (uint32_t k = 0; k < g->nlogs; k++) {
            logs[k] = origins[g->logs[k]];
            cids[k] = adup(arena, g->cids[k]);
        }
        r->origins = logs;
        r->cids = cids;
        r->nlogs = g->nlogs;
        r->role = adup(arena, g->first->role);
        r->key = adup(arena, g->first->key);
        r->cache = g->first->cache;
        r->against = origins[o->origin];
        r->against_state = o->state;
        r->against_cid = adup(arena, o->cid);
        r->against_key = adup(arena, o->key);
        r->diffs = tl_arena_calloc(arena, m.ndiffs, sizeof(*r->diffs));
        for (uint32_t k = 0; k < m.ndiffs; k++)
            r->diffs[k] = (struct tl_ck_diff){
                adup(arena, m.diffs[k].component), adup(arena, m.diffs[k].before),
                adup(arena, m.diffs[k].after), adup(arena, m.diffs[k].words)};
        r->ndiffs = m.ndiffs;
        free(m.diffs);
    }
    for (uint32_t i = 0; i < ngroups; i++) {
        free(groups[i].logs);
        free(groups[i].cids);
    }
    free(groups);
    tl_map_release(&by_key);
    tl_arena_release(&own);
    tl_cachekey_release(&ck);
}
