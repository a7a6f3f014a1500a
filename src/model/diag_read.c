/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A diagnosis read back from a summary (diag_read.h): each member of tlparse-summary/1 into
 * the arrays of struct tl_diag, strings into its arena, the advice as the summary wrote it.
 */
#include "base/config.h"
#include "model/diag_read.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "model/advice.h"
#include "model/cachekey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- members ------------------------------------------------------------------------------ */

static const char *str_of(struct tl_diag *d, const struct tl_json *v)
{
    if (!v || v->type != TL_JSON_STRING || !v->u.str.n)
        return NULL;
    return tl_arena_memdupz(&d->arena, v->u.str.p, v->u.str.n);
}

static const char *jstr(struct tl_diag *d, const struct tl_json *obj, const char *key)
{
    return str_of(d, tl_json_get(obj, key));
}

static uint64_t ju64(const struct tl_json *obj, const char *key)
{
    return tl_json_get_u64(obj, key, 0);
}

static uint32_t ju32(const struct tl_json *obj, const char *key)
{
    uint64_t v = ju64(obj, key);
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static bool jbool(const struct tl_json *obj, const char *key)
{
    const struct tl_json *v = tl_json_get_type(obj, key, TL_JSON_BOOL);
    return v && v->u.b;
}

static const struct tl_json *jarr(const struct tl_json *obj, const char *key)
{
    return tl_json_get_type(obj, key, TL_JSON_ARRAY);
}

static size_t jlen(const struct tl_json *a)
{
    return a ? a->u.arr.n : 0;
}

/* The i-th item of a, when it is an object. */
static const struct tl_json *jobj_at(const struct tl_json *a, size_t i)
{
    return a->u.arr.items[i].type == TL_JSON_OBJECT ? &a->u.arr.items[i] : NULL;
}

/* A list of strings as the summary kept it: n is what it kept. */
static struct tl_diag_strs strs_of(struct tl_diag *d, const struct tl_json *obj, const char *key)
{
    struct tl_diag_strs l = {NULL, 0, 0};
    const struct tl_json *a = jarr(obj, key);
    if (!jlen(a))
        return l;
    l.s = tl_arena_alloc(&d->arena, a->u.arr.n * sizeof(*l.s));
    for (size_t i = 0; i < a->u.arr.n; i++) {
        const char *s = str_of(d, &a->u.arr.items[i]);
        if (s)
            l.s[l.kept++] = s;
    }
    l.n = l.kept;
    return l;
}

/* A finding's ranks; each also into every rank a finding was seen on (d->ranks). */
static struct tl_diag_ranks ranks_of(struct tl_diag *d, const struct tl_json *obj)
{
    struct tl_diag_ranks l = {NULL, 0, 0};
    const struct tl_json *a = jarr(obj, "ranks");
    for (size_t i = 0; i < jlen(a); i++) {
        const struct tl_json *v = &a->u.arr.items[i];
        if (v->type != TL_JSON_NUMBER || v->u.num.kind != TL_JSON_UINT || v->u.num.u > INT32_MAX)
            continue;
        int32_t r = (int32_t)v->u.num.u;
        if (!l.r)
            l.r = tl_arena_alloc(&d->arena, a->u.arr.n * sizeof(*l.r));
        l.r[l.kept++] = r;
        bool seen = false;
        for (uint32_t k = 0; k < d->ranks.kept && !seen; k++)
            seen = d->ranks.r[k] == r;
        if (!seen && d->ranks.kept < TL_DIAG_MAX_CIDS) {
            if (!d->ranks.r)
                d->ranks.r = tl_arena_alloc(&d->arena, TL_DIAG_MAX_CIDS * sizeof(*d->ranks.r));
            d->ranks.r[d->ranks.kept++] = r;
            d->ranks.n++;
        }
    }
    l.n = l.kept;
    return l;
}

/* A place: "file:line" (or "file") at key, the function and the line of code at their keys
 * (NULL: none); def: file:line is where the function starts. */
static struct tl_diag_loc loc_of(struct tl_diag *d, const struct tl_json *obj, const char *key,
                                 const char *function_key, const char *code_key, bool def)
{
    struct tl_diag_loc l;
    memset(&l, 0, sizeof(l));
    const struct tl_json *v = tl_json_get(obj, key);
    if (v && v->type == TL_JSON_STRING && v->u.str.n) {
        struct tl_str s = v->u.str;
        size_t colon = s.n;
        while (colon > 0 && s.p[colon - 1] >= '0' && s.p[colon - 1] <= '9')
            colon--;
        if (colon > 1 && colon < s.n && s.p[colon - 1] == ':' && s.n - colon <= 9) {
            l.file = tl_arena_memdupz(&d->arena, s.p, colon - 1);
            l.line = (uint32_t)strtoul(s.p + colon, NULL, 10);
        } else {
            l.file = tl_arena_memdupz(&d->arena, s.p, s.n);
        }
    }
    if (function_key)
        l.function = jstr(d, obj, function_key);
    if (code_key)
        l.code = jstr(d, obj, code_key);
    l.def = def && l.function;
    return l;
}

/* The advice as the summary wrote it: its texts are final (no placeholder is left in them).
 * Without one, the catch-all rule of table (a finding has advice); table < 0: none. */
static const struct tl_advice *advice_of(struct tl_diag *d, const struct tl_json *obj,
                                         const char *key, int table)
{
    const struct tl_json *v = tl_json_get(obj, key);
    if (!v || v->type != TL_JSON_OBJECT)
        return table < 0 ? NULL : tl_advice_match((enum tl_advice_table)table, tl_str_cstr(""));
    struct tl_advice *a = tl_arena_calloc(&d->arena, 1, sizeof(*a));
    const char *category = jstr(d, v, "category");
    const char *title = jstr(d, v, "title");
    const char *explanation = jstr(d, v, "explanation");
    const char *fix = jstr(d, v, "fix");
    a->category = category ? category : "";
    a->title = title ? title : "";
    a->explanation = explanation ? explanation : "";
    a->fix = fix ? fix : "";
    return a;
}

/* An array member as an array of n items of size each (malloc'd, zeroed; NULL when empty). */
static void *items(const struct tl_json *root, const char *key, size_t size, uint32_t *n)
{
    const struct tl_json *a = jarr(root, key);
    *n = (uint32_t)jlen(a);
    return *n ? tl_xcalloc(*n, size) : NULL;
}

/* ---- the arrays ---------------------------------------------------------------------------- */

static void read_breaks(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "graph_breaks");
    d->breaks = items(root, "graph_breaks", sizeof(*d->breaks), &d->nbreaks);
    for (uint32_t i = 0; i < d->nbreaks; i++) {
        const struct tl_json *o = jobj_at(a, i);
        struct tl_diag_break *b = &d->breaks[i];
        if (!o)
            continue;
        b->reason = jstr(d, o, "reason");
        b->explanation = jstr(d, o, "explanation");
        b->hint = jstr(d, o, "hint");
        b->url = jstr(d, o, "url");
        b->type = jstr(d, o, "type");
        b->gb_id = jstr(d, o, "gb_id");
        b->context = jstr(d, o, "context");
        b->debug_context = jstr(d, o, "debug_context");
        const struct tl_json *hints = jarr(o, "hints");
        for (size_t k = 0; k < jlen(hints) && b->nhints < TL_DIAG_MAX_HINTS; k++) {
            const char *h = str_of(d, &hints->u.arr.items[k]);
            if (h)
                b->hints[b->nhints++] = h;
        }
        b->count = ju32(o, "count");
        const struct tl_json *where = jarr(o, "where");
        for (size_t k = 0; k < jlen(where) && b->nlocs < TL_DIAG_MAX_LOCS; k++) {
            const struct tl_json *w = jobj_at(where, k);
            if (!w)
                continue;
            struct tl_diag_loc *l = &b->locs[b->nlocs];
            memset(l, 0, sizeof(*l));
            l->file = jstr(d, w, "file");
            l->line = ju32(w, "line");
            l->function = jstr(d, w, "function");
            l->code = jstr(d, w, "code");
            l->def = jbool(w, "function_start");
            b->loc_counts[b->nlocs++] = ju32(w, "count");
        }
        b->cids = strs_of(d, o, "compile_ids");
        b->fell_back = jbool(o, "fell_back_to_eager");
        b->in_framework = jbool(o, "in_pytorch");
        b->inside = loc_of(d, o, "pytorch_location", "pytorch_function", NULL, false);
        b->log_line = ju64(o, "log_line");
        b->ranks = ranks_of(d, o);
        b->advice = advice_of(d, o, "advice", TL_ADVICE_GRAPH_BREAK);
    }
}

static void read_recompiles(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "recompiles");
    d->recompiles = items(root, "recompiles", sizeof(*d->recompiles), &d->nrecompiles);
    for (uint32_t i = 0; i < d->nrecompiles; i++) {
        const struct tl_json *o = jobj_at(a, i);
        struct tl_diag_recompile *r = &d->recompiles[i];
        if (!o)
            continue;
        r->function = jstr(d, o, "function");
        r->where = loc_of(d, o, "location", "function", NULL, true);
        r->count = ju32(o, "count");
        const struct tl_json *reasons = jarr(o, "reasons");
        r->guards = jlen(reasons) ? tl_xcalloc(jlen(reasons), sizeof(*r->guards)) : NULL;
        r->guards_alloc = (uint32_t)jlen(reasons);
        for (size_t k = 0; k < jlen(reasons); k++) {
            const struct tl_json *g = jobj_at(reasons, k);
            if (!g)
                continue;
            struct tl_diag_guard *x = &r->guards[r->nguards++];
            x->guard = jstr(d, g, "guard");
            x->example = jstr(d, g, "example");
            x->count = ju32(g, "count");
            x->values = strs_of(d, g, "values");
            uint32_t distinct = ju32(g, "distinct_values");
            if (distinct > x->values.n)
                x->values.n = distinct;
            x->last_value = x->values.kept ? x->values.s[x->values.kept - 1] : NULL;
            x->advice = advice_of(d, g, "advice", TL_ADVICE_GUARD);
        }
        r->cids = strs_of(d, o, "compile_ids");
        r->resume_line = ju32(o, "resumes_after_line");
        r->called_from = loc_of(d, o, "called_from", "called_from_function", NULL, false);
        r->log_line = ju64(o, "log_line");
        r->ranks = ranks_of(d, o);
        r->advice = advice_of(d, o, "advice", TL_ADVICE_GUARD);
    }
}

static void read_specs(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "specializations");
    d->specs = items(root, "specializations", sizeof(*d->specs), &d->nspecs);
    for (uint32_t i = 0; i < d->nspecs; i++) {
        const struct tl_json *o = jobj_at(a, i);
        struct tl_diag_spec *s = &d->specs[i];
        if (!o)
            continue;
        const char *kind = jstr(d, o, "kind");
        s->kind = kind && !strcmp(kind, "specialized")  ? TL_SPEC_SPECIALIZED
                  : kind && !strcmp(kind, "duck_sized") ? TL_SPEC_DUCK
                                                        : TL_SPEC_GUARD;
        s->symbol = jstr(d, o, "symbol");
        s->expr = jstr(d, o, "expr");
        s->readable = jstr(d, o, "readable");
        s->source = jstr(d, o, "source");
        s->value = jstr(d, o, "value");
        s->range = jstr(d, o, "range");
        s->where = loc_of(d, o, "location", "function", "code", false);
        s->cid = jstr(d, o, "compile_id");
        const struct tl_json *syms = jarr(o, "symbols");
        for (size_t k = 0; k < jlen(syms) && s->nsyms < TL_DIAG_MAX_SYMS; k++) {
            const struct tl_json *y = jobj_at(syms, k);
            if (y)
                s->syms[s->nsyms++] =
                    (struct tl_diag_sym){jstr(d, y, "symbol"), jstr(d, y, "source")};
        }
        s->count = ju32(o, "count");
        s->log_line = ju64(o, "log_line");
        s->ranks = ranks_of(d, o);
        s->advice = advice_of(d, o, "advice", TL_ADVICE_SHAPE);
    }
}

static void read_failures(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "failures");
    d->failures = items(root, "failures", sizeof(*d->failures), &d->nfailures);
    for (uint32_t i = 0; i < d->nfailures; i++) {
        const struct tl_json *o = jobj_at(a, i);
        struct tl_diag_failure *f = &d->failures[i];
        if (!o)
            continue;
        f->cid = jstr(d, o, "compile_id");
        f->type = jstr(d, o, "type");
        f->reason = jstr(d, o, "reason");
        f->where = loc_of(d, o, "location", "function", NULL, false);
        f->fell_back_to_eager = jbool(o, "fell_back_to_eager");
        f->backward = jbool(o, "backward");
        f->forward_node = jstr(d, o, "forward_node");
        f->forward_where = loc_of(d, o, "forward_location", NULL, NULL, false);
        f->log_line = ju64(o, "log_line");
        f->ranks = ranks_of(d, o);
        f->advice = advice_of(d, o, "advice", TL_ADVICE_FAILURE);
    }
}

static void read_limits(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "limits_hit");
    d->limits = items(root, "limits_hit", sizeof(*d->limits), &d->nlimits);
    for (uint32_t i = 0; i < d->nlimits; i++) {
        const struct tl_json *o = jobj_at(a, i);
        struct tl_diag_limit *l = &d->limits[i];
        if (!o)
            continue;
        l->function = jstr(d, o, "function");
        l->where = loc_of(d, o, "location", "function", NULL, true);
        l->limit = ju64(o, "limit");
        l->limit_name = jstr(d, o, "limit_name");
        l->last_reason = jstr(d, o, "last_reason");
        l->cid = jstr(d, o, "compile_id");
        l->log_line = ju64(o, "log_line");
        l->ranks = ranks_of(d, o);
        l->advice = advice_of(d, o, "advice", TL_ADVICE_LIMIT);
        l->reason_advice = advice_of(d, o, "last_reason_advice", -1);
        l->reason_listed = tl_diag_limit_listed(d, l); /* its recompiles are read */
    }
}

/* Every frame ("frames"), in the diagnosis's order: a finding of kind many_compiles indexes
 * them. */
static void read_frames(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "frames");
    d->frames = items(root, "frames", sizeof(*d->frames), &d->nframes);
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_json *o = jobj_at(a, i);
        struct tl_diag_frame *f = &d->frames[i];
        if (!o)
            continue;
        f->key = jstr(d, o, "frame");
        f->function = jstr(d, o, "function");
        f->name = jstr(d, o, "name");
        f->where.file = jstr(d, o, "file");
        f->where.line = ju32(o, "line");
        f->where.function = f->function;
        f->where.def = f->function != NULL;
        f->compiles = ju32(o, "compiles");
        f->cids = strs_of(d, o, "compile_ids");
        f->have_time = tl_json_get_seconds(o, "compile_time_s", &f->seconds);
    }
    tl_diag_forecast_read(d, a);
}

static const struct {
    const char *name;
    enum tl_export_problem_kind kind;
} export_kinds[] = {
    {"data_dependent", TL_EXPORT_PROBLEM_DATA},
    {"guard_evaluated", TL_EXPORT_PROBLEM_GUARD},
    {"missing_fake_kernel", TL_EXPORT_PROBLEM_MISSING_FAKE},
    {"mismatched_fake_kernel", TL_EXPORT_PROBLEM_MISMATCHED_FAKE},
};

static void read_exports(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "export");
    d->exports = items(root, "export", sizeof(*d->exports), &d->nexports);
    for (uint32_t i = 0; i < d->nexports; i++) {
        const struct tl_json *o = jobj_at(a, i);
        struct tl_diag_export *x = &d->exports[i];
        if (!o)
            continue;
        const char *kind = jstr(d, o, "kind");
        x->kind = TL_EXPORT_PROBLEM_DATA;
        for (size_t k = 0; kind && k < TL_ARRAY_LEN(export_kinds); k++)
            if (!strcmp(kind, export_kinds[k].name))
                x->kind = export_kinds[k].kind;
        x->expr = jstr(d, o, "expr");
        x->readable = jstr(d, o, "readable");
        x->result = jstr(d, o, "result");
        x->op = jstr(d, o, "op");
        x->reason = jstr(d, o, "reason");
        x->where = loc_of(d, o, "location", "function", "code", false);
        const struct tl_json *unbacked = jarr(o, "unbacked");
        for (size_t k = 0; k < jlen(unbacked) && x->nunbacked < TL_DIAG_MAX_UNBACKED; k++) {
            const struct tl_json *u = jobj_at(unbacked, k);
            if (!u || !jstr(d, u, "symbol"))
                continue;
            x->unbacked[x->nunbacked].symbol = jstr(d, u, "symbol");
            x->unbacked[x->nunbacked].where = loc_of(d, u, "location", "function", "code", false);
            x->nunbacked++;
        }
        x->cids = strs_of(d, o, "compile_ids");
        x->count = ju32(o, "count");
        x->log_line = ju64(o, "log_line");
        x->ranks = ranks_of(d, o);
        x->advice = advice_of(d, o, "advice", TL_ADVICE_EXPORT);
    }
}

static void read_restarts(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "restarts");
    d->restarts = items(root, "restarts", sizeof(*d->restarts), &d->nrestarts);
    for (uint32_t i = 0; i < d->nrestarts; i++) {
        const struct tl_json *o = jobj_at(a, i);
        struct tl_diag_restart *r = &d->restarts[i];
        if (!o)
            continue;
        r->kind = jstr(d, o, "kind");
        r->reason = jstr(d, o, "reason");
        r->function = jstr(d, o, "function");
        r->where = loc_of(d, o, "location", "function", NULL, true);
        r->called_from = loc_of(d, o, "called_from", "called_from_function", NULL, false);
        r->what = strs_of(d, o, "what");
        r->count = ju32(o, "count");
        r->cids = strs_of(d, o, "compile_ids");
        r->log_line = ju64(o, "log_line");
        r->ranks = ranks_of(d, o);
        r->advice = advice_of(d, o, "advice", TL_ADVICE_RESTART);
    }
}

/* ---- the rest ------------------------------------------------------------------------------ */

static const char *const finding_kinds[] = {
    [TL_FIND_FAILURE] = "failure",     [TL_FIND_LIMIT] = "limit",
    [TL_FIND_RECOMPILE] = "recompile", [TL_FIND_BREAK] = "graph_break",
    [TL_FIND_SPEC] = "specialization", [TL_FIND_FRAME] = "many_compiles",
    [TL_FIND_EXPORT] = "export",       [TL_FIND_RESTART] = "restart",
};

/* How many findings of kind d holds (what an index must be below). */
static uint32_t count_of(const struct tl_diag *d, enum tl_diag_finding_kind k)
{
    switch (k) {
    case TL_FIND_FAILURE:
        return d->nfailures;
    case TL_FIND_LIMIT:
        return d->nlimits;
    case TL_FIND_RECOMPILE:
        return d->nrecompiles;
    case TL_FIND_BREAK:
        return d->nbreaks;
    case TL_FIND_SPEC:
        return d->nspecs;
    case TL_FIND_FRAME:
        return d->nframes;
    case TL_FIND_EXPORT:
        return d->nexports;
    case TL_FIND_RESTART:
        return d->nrestarts;
    }
    return 0;
}

/* The findings in the summary's order; one that points at nothing is left out. */
static void read_findings(struct tl_diag *d, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "findings");
    d->findings = jlen(a) ? tl_xcalloc(jlen(a), sizeof(*d->findings)) : NULL;
    for (size_t i = 0; i < jlen(a); i++) {
        const struct tl_json *o = jobj_at(a, i);
        const struct tl_json *kind = o ? tl_json_get(o, "kind") : NULL;
        if (!kind || kind->type != TL_JSON_STRING)
            continue;
        for (size_t k = 0; k < TL_ARRAY_LEN(finding_kinds); k++) {
            if (!tl_str_eq_cstr(kind->u.str, finding_kinds[k]))
                continue;
            uint64_t index = ju64(o, "index");
            if (index < count_of(d, (enum tl_diag_finding_kind)k))
                d->findings[d->nfindings++] =
                    (struct tl_diag_finding){(enum tl_diag_finding_kind)k, (uint32_t)index,
                                             (double)(jlen(a) - i), jbool(o, "normal")};
            break;
        }
    }
}

static void read_rest(struct tl_diag *d, const struct tl_json *root)
{
    d->compile_ids = ju64(root, "compile_ids");
    d->pytorch_version = jstr(d, root, "pytorch_version");
    const struct tl_json *t = tl_json_get(root, "compile_time");
    d->have_times =
        t && t->type == TL_JSON_OBJECT && tl_json_get_seconds(t, "total_s", &d->total_s);
    tl_ledger_read(&d->ledger, t && t->type == TL_JSON_OBJECT ? tl_json_get(t, "ledger") : NULL);
    const struct tl_json *slowest = t && t->type == TL_JSON_OBJECT ? jarr(t, "slowest") : NULL;
    for (size_t i = 0; i < jlen(slowest) && d->nslowest < TL_DIAG_TOP; i++) {
        const struct tl_json *o = jobj_at(slowest, i);
        struct tl_diag_time x = {NULL, NULL, 0};
        if (!o || !tl_json_get_seconds(o, "seconds", &x.seconds))
            continue;
        x.cid = jstr(d, o, "compile_id");
        x.function = jstr(d, o, "function");
        d->slowest[d->nslowest++] = x;
    }
    const struct tl_json *cache = tl_json_get(root, "cache");
    static const char *const caches[2] = {"fx_graph", "aotautograd"};
    static const char *const results[3] = {"hit", "miss", "bypass"};
    for (int i = 0; cache && cache->type == TL_JSON_OBJECT && i < 2; i++) {
        const struct tl_json *c = tl_json_get(cache, caches[i]);
        for (int k = 0; c && c->type == TL_JSON_OBJECT && k < 3; k++) {
            d->cache[i][k] = ju32(c, results[k]);
            d->have_cache = d->have_cache || d->cache[i][k];
        }
    }
    /* Why they missed (cachekey.h), when the summary says it. */
    if (tl_json_get(cache, "misses") || tl_json_get(cache, "bypasses") ||
        tl_json_get(cache, "keys")) {
        d->cachekey = tl_xmalloc(sizeof(*d->cachekey));
        tl_cachekey_init(d->cachekey);
        tl_cachekey_read(d->cachekey, cache);
    }
    const struct tl_json *dyn = jarr(root, "dynamic_dimensions");
    for (size_t i = 0; i < jlen(dyn) && d->ndynamic < TL_DIAG_MAX_CIDS; i++) {
        const struct tl_json *o = jobj_at(dyn, i);
        if (!o)
            continue;
        struct tl_diag_dynamic *x = &d->dynamic[d->ndynamic++];
        x->symbol = jstr(d, o, "symbol");
        x->source = jstr(d, o, "source");
        x->value = jstr(d, o, "value");
        x->range = jstr(d, o, "range");
        x->where = loc_of(d, o, "location", "function", NULL, false);
        x->cid = jstr(d, o, "compile_id");
    }
    d->ndynamic_all = d->ndynamic;
    d->ngraphs = ju64(root, "graph_count");
    const struct tl_json *graphs = jarr(root, "graphs");
    for (size_t i = 0; i < jlen(graphs) && d->nlargest < TL_DIAG_TOP; i++) {
        const struct tl_json *o = jobj_at(graphs, i);
        if (o)
            d->largest[d->nlargest++] = (struct tl_diag_graph){
                jstr(d, o, "compile_id"), jstr(d, o, "name"), ju64(o, "nodes")};
    }
}

int tl_diag_read(struct tl_diag *d, const char *text, size_t n, struct tl_diag_source *src,
                 struct tl_err *err)
{
    src->path = "";
    src->kind = "torch_trace";
    struct tl_json root;
    struct tl_json_error jerr;
    if (tl_json_parse(&d->arena, text, n, &root, &jerr) != 0)
        return tl_error_code(err, TL_ERR_INPUT, "not a summary (JSON error at byte %zu: %s)",
                             jerr.offset, jerr.msg);
    const struct tl_json *schema =
        root.type == TL_JSON_OBJECT ? tl_json_get(&root, "schema") : NULL;
    if (!schema || schema->type != TL_JSON_STRING ||
        !tl_str_eq_cstr(schema->u.str, "tlparse-summary/1"))
        return tl_error_code(err, TL_ERR_INPUT,
                             "not a tlparse summary (no \"schema\": \"tlparse-summary/1\")");
    const struct tl_json *source = tl_json_get(&root, "source");
    const char *path = source ? jstr(d, source, "path") : NULL;
    const char *kind = source ? jstr(d, source, "kind") : NULL;
    if (path)
        src->path = path;
    if (kind)
        src->kind = kind;
    read_breaks(d, &root);
    read_recompiles(d, &root);
    read_specs(d, &root);
    read_failures(d, &root);
    read_limits(d, &root);
    read_frames(d, &root);
    read_exports(d, &root);
    read_restarts(d, &root);
    read_findings(d, &root);
    read_rest(d, &root);
    return 0;
}
