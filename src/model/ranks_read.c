/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank's summary from its summary.json (ranks_read.h): the JSON tree walked member by
 * member, each checked for its type, with the path of the first wrong one as the message.
 */
#include "base/config.h"
#include "model/ranks_read.h"
#include "base/json.h"
#include "model/cachekey.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct reader {
    struct tl_arena *arena; /* the summary's */
    char *why;
    size_t whylen;
    bool failed;
};

static int fail(struct reader *r, const char *fmt, ...) TL_PRINTF(2, 3);
static int fail(struct reader *r, const char *fmt, ...)
{
    if (!r->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, r->whylen, fmt, ap);
        va_end(ap);
        r->failed = true;
    }
    return -1;
}

/* A member of obj of the given type (NULL allowed as null when nullable). */
static const struct tl_json *member(struct reader *r, const struct tl_json *obj, const char *path,
                                    const char *key, enum tl_json_type type, bool nullable)
{
    static const char *const names[] = {"null",     "a boolean", "a number",
                                        "a string", "a list",    "an object"};
    const struct tl_json *v = tl_json_get(obj, key);
    if (!v) {
        fail(r, "%s has no \"%s\"", path, key);
        return NULL;
    }
    if (nullable && v->type == TL_JSON_NULL)
        return v;
    if (v->type != type) {
        fail(r, "%s.%s is not %s", path, key, names[type]);
        return NULL;
    }
    return v;
}

static const char *str_of(struct reader *r, const struct tl_json *v)
{
    if (v->type == TL_JSON_NULL)
        return NULL;
    return tl_arena_memdupz(r->arena, v->u.str.p, v->u.str.n);
}

/* A string member (NULL for null when nullable, or when it is wrong). */
static const char *str(struct reader *r, const struct tl_json *obj, const char *path,
                       const char *key, bool nullable)
{
    const struct tl_json *v = member(r, obj, path, key, TL_JSON_STRING, nullable);
    return v ? str_of(r, v) : NULL;
}

static uint64_t u64(struct reader *r, const struct tl_json *obj, const char *path, const char *key)
{
    const struct tl_json *v = member(r, obj, path, key, TL_JSON_NUMBER, false);
    if (v && v->u.num.kind != TL_JSON_UINT) {
        fail(r, "%s.%s is not a whole number", path, key);
        return 0;
    }
    return v ? v->u.num.u : 0;
}

static uint32_t u32(struct reader *r, const struct tl_json *obj, const char *path, const char *key)
{
    uint64_t v = u64(r, obj, path, key);
    if (v > UINT32_MAX) {
        fail(r, "%s.%s is too large", path, key);
        return 0;
    }
    return (uint32_t)v;
}

/* The items of a list member, each checked to be of type; NULL when wrong or null. */
static const struct tl_json *list(struct reader *r, const struct tl_json *obj, const char *path,
                                  const char *key, enum tl_json_type type, bool nullable)
{
    const struct tl_json *v = member(r, obj, path, key, TL_JSON_ARRAY, nullable);
    if (!v || v->type == TL_JSON_NULL)
        return NULL;
    for (size_t i = 0; i < v->u.arr.n; i++) {
        if (v->u.arr.items[i].type != type) {
            fail(r, "%s.%s[%zu] is not %s", path, key, i,
                 type == TL_JSON_STRING ? "a string" : "an object");
            return NULL;
        }
    }
    return v;
}

static size_t count(const struct tl_json *l)
{
    return l ? l->u.arr.n : 0;
}

/* A list of strings member. */
static const char **strings(struct reader *r, const struct tl_json *obj, const char *path,
                            const char *key, size_t *n)
{
    const struct tl_json *l = list(r, obj, path, key, TL_JSON_STRING, false);
    *n = count(l);
    const char **v = tl_arena_calloc(r->arena, *n ? *n : 1, sizeof(*v));
    for (size_t i = 0; i < *n; i++)
        v[i] = str_of(r, &l->u.arr.items[i]);
    return v;
}

static void runtime(struct reader *r, const struct tl_json *rank, struct tl_rank_summary *s)
{
    const struct tl_json *l = list(r, rank, "rank", "runtime", TL_JSON_OBJECT, false);
    s->nruntime = count(l);
    s->runtime = tl_arena_calloc(r->arena, s->nruntime ? s->nruntime : 1, sizeof(*s->runtime));
    for (size_t i = 0; i < s->nruntime && !r->failed; i++) {
        char path[64];
        snprintf(path, sizeof(path), "rank.runtime[%zu]", i);
        const struct tl_json *g = &l->u.arr.items[i];
        struct tl_rank_runtime *rt = &s->runtime[i];
        rt->graph = str(r, g, path, "graph", false);
        const struct tl_json *ops = list(r, g, path, "ops", TL_JSON_OBJECT, false);
        rt->nops = count(ops);
        if (!r->failed && !rt->nops)
            fail(r, "%s.ops is empty", path);
        rt->ops = tl_arena_calloc(r->arena, rt->nops ? rt->nops : 1, sizeof(*rt->ops));
        for (size_t j = 0; j < rt->nops && !r->failed; j++) {
            char opath[96];
            snprintf(opath, sizeof(opath), "%s.ops[%zu]", path, j);
            const struct tl_json *op = &ops->u.arr.items[j];
            rt->ops[j].name = str(r, op, opath, "name", false);
            const struct tl_json *ns =
                member(r, op, opath, "estimated_runtime_ns", TL_JSON_NUMBER, false);
            rt->ops[j].estimated_runtime_ns = ns ? ns->u.num.d : 0;
        }
    }
}

static void meta(struct reader *r, const struct tl_json *rank, struct tl_rank_summary *s)
{
    const struct tl_json *l = list(r, rank, "rank", "tensor_meta", TL_JSON_OBJECT, false);
    s->nmeta = count(l);
    s->meta = tl_arena_calloc(r->arena, s->nmeta ? s->nmeta : 1, sizeof(*s->meta));
    for (size_t i = 0; i < s->nmeta && !r->failed; i++) {
        char path[64];
        snprintf(path, sizeof(path), "rank.tensor_meta[%zu]", i);
        s->meta[i].graph = str(r, &l->u.arr.items[i], path, "graph", false);
        s->meta[i].fingerprint = str(r, &l->u.arr.items[i], path, "fingerprint", false);
    }
}

static void schedules(struct reader *r, const struct tl_json *rank, struct tl_rank_summary *s)
{
    const struct tl_json *l = list(r, rank, "rank", "collective_schedules", TL_JSON_OBJECT, false);
    s->nschedules = count(l);
    s->schedules =
        tl_arena_calloc(r->arena, s->nschedules ? s->nschedules : 1, sizeof(*s->schedules));
    for (size_t i = 0; i < s->nschedules && !r->failed; i++) {
        char path[64];
        snprintf(path, sizeof(path), "rank.collective_schedules[%zu]", i);
        struct tl_rank_schedule *sc = &s->schedules[i];
        sc->graph = str(r, &l->u.arr.items[i], path, "graph", false);
        sc->ops = strings(r, &l->u.arr.items[i], path, "ops", &sc->nops);
        if (!r->failed && !sc->nops)
            fail(r, "%s.ops is empty", path);
    }
}

static void folders(struct reader *r, const struct tl_json *rank, struct tl_rank_summary *s)
{
    const struct tl_json *l = list(r, rank, "rank", "folders", TL_JSON_OBJECT, false);
    s->nfolders = count(l);
    s->folders = tl_arena_calloc(r->arena, s->nfolders ? s->nfolders : 1, sizeof(*s->folders));
    for (size_t i = 0; i < s->nfolders && !r->failed; i++) {
        char path[64];
        snprintf(path, sizeof(path), "rank.folders[%zu]", i);
        const struct tl_json *f = &l->u.arr.items[i];
        s->folders[i].folder = str(r, f, path, "folder", false);
        s->folders[i].key = str(r, f, path, "compile_id", true);
        s->folders[i].cache_status = str(r, f, path, "cache_status", true);
    }
}

static void diagnosis(struct reader *r, const struct tl_json *rank, struct tl_rank_summary *s)
{
    const struct tl_json *d = member(r, rank, "rank", "diagnosis", TL_JSON_OBJECT, false);
    if (!d)
        return;
    s->diag.recompiles = u32(r, d, "rank.diagnosis", "recompiles");
    s->diag.graph_breaks = u32(r, d, "rank.diagnosis", "graph_breaks");
    s->diag.failures = u32(r, d, "rank.diagnosis", "failures");
    s->diag.limits = u32(r, d, "rank.diagnosis", "limits");
    /* Later additions, read when there: a summary of an older tlparse lacks them. */
    const struct tl_json *v = tl_json_get(d, "compile_ids");
    if (v && v->type == TL_JSON_NUMBER && v->u.num.kind == TL_JSON_UINT && v->u.num.u <= UINT32_MAX)
        s->diag.compile_ids = (uint32_t)v->u.num.u;
    v = tl_json_get(d, "compile_time_s");
    if (v && v->type == TL_JSON_NUMBER) {
        s->diag.has_time = true;
        s->diag.compile_s = v->u.num.d;
    }
    static const char *const details[4] = {"recompiled", "broke_graphs", "failed", "limit_hit"};
    for (int k = 0; k < 4; k++) {
        v = tl_json_get(d, details[k]);
        if (v && v->type == TL_JSON_STRING)
            s->diag.detail[k] = str_of(r, v);
    }
}

/* The lines of the rank's compile-time ledger, from the summary's compile_time.ledger (as
 * report/summary_json.c writes it; absent or null: none). A line that is not a number of
 * seconds reads as 0. */
static void ledger(const struct tl_json *root, struct tl_rank_summary *s)
{
    const struct tl_json *l = tl_json_get_type(
        tl_json_get_type(root, "compile_time", TL_JSON_OBJECT), "ledger", TL_JSON_OBJECT);
    if (!l)
        return;
    struct tl_ledger_lines *x = &s->diag.ledger;
    x->present = true;
    const struct {
        const char *key;
        double *v;
    } lines[] = {{"span_s", &x->span_s},
                 {"compiling_s", &x->compiling_s},
                 {"runtime_s", &x->runtime_s},
                 {"unaccounted_s", &x->unaccounted_s}};
    for (size_t i = 0; i < TL_ARRAY_LEN(lines); i++)
        if (!tl_json_get_seconds(l, lines[i].key, lines[i].v) || !(*lines[i].v >= 0))
            *lines[i].v = 0;
}

int tl_rank_summary_parse(const char *text, size_t n, struct tl_rank_summary *out,
                          struct tl_arena *arena, char *why, size_t whylen)
{
    struct reader r = {arena, why, whylen, false};
    struct tl_arena scratch;
    tl_arena_init(&scratch, 64 * 1024);
    memset(out, 0, sizeof(*out));
    struct tl_json root;
    struct tl_json_error je;
    const struct tl_json *rank = NULL;
    if (tl_json_parse(&scratch, text, n, &root, &je) < 0)
        fail(&r, "not JSON: %s at byte %zu", je.msg, je.offset + 1);
    else if (root.type != TL_JSON_OBJECT)
        fail(&r, "not a JSON object");
    else if (!(rank = tl_json_get(&root, "rank")))
        fail(&r, "it has no \"rank\" member: it was not written for a rank of a multi-rank run");
    else if (rank->type != TL_JSON_OBJECT)
        fail(&r, "rank is not an object");
    if (!r.failed) {
        out->rank = u32(&r, rank, "rank", "number");
        out->log = str(&r, rank, "rank", "log", false);
        out->error = str(&r, rank, "rank", "error", true);
        out->notes = str(&r, rank, "rank", "notes", true);
        out->compile_ids = strings(&r, rank, "rank", "compile_ids", &out->ncompile_ids);
        out->cache_sequence = str(&r, rank, "rank", "cache_sequence", false);
        out->chromium_events = u64(&r, rank, "rank", "chromium_events");
        runtime(&r, rank, out);
        meta(&r, rank, out);
        schedules(&r, rank, out);
        const struct tl_json *order = tl_json_get(rank, "execution_order");
        if (order && order->type == TL_JSON_NULL) {
            out->has_exec_order = false;
        } else {
            out->has_exec_order = true;
            out->exec_order = strings(&r, rank, "rank", "execution_order", &out->nexec_order);
        }
        folders(&r, rank, out);
        diagnosis(&r, rank, out);
        /* the keys of the rank's cache lookups: the summary's own "cache" member holds them
         * once (a summary without them, of an older tlparse, has none) */
        const struct tl_json *cache = tl_json_get(&root, "cache");
        if (!r.failed && cache && cache->type == TL_JSON_OBJECT)
            out->cache_keys = tl_cachekey_digest_read(tl_json_get(cache, "keys"), arena);
        ledger(&root, out);
    }
    tl_arena_release(&scratch);
    return r.failed ? -1 : 0;
}
