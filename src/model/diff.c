/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two summaries compared: read each into a side (findings split into comparable items, frames
 * merged by identity), then match items and frames in tiers, from exact to a moved line, and
 * graphs of matched frames by hash, then by order. Pure: no I/O, no knowledge of how the
 * summaries were made.
 */
#include "base/config.h"
#include "model/diff.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading a summary -------------------------------------------------------------------- */

/* Growable arrays of the reader (freed at the end of tl_diff_side_read; the side keeps copies
 * in its arena). */
struct items {
    struct tl_diff_item *v;
    size_t n, alloc;
};

/* The compile ids and graphs of a frame being read: frames with the same identity add theirs
 * (a grown log has thousands of frames of the same code), so they grow here, amortized, and
 * go into the side's arena at the end. */
struct frame_lists {
    const char **cids;
    size_t ncids, cids_alloc;
    struct tl_diff_graph *graphs;
    size_t ngraphs, graphs_alloc;
};

struct reader {
    struct tl_diff_side *side;
    struct tl_map merge; /* "cat\0key\0file\0line\0function" -> item index + 1 */
    struct items items[TL_DIFF_NCATS];
    struct tl_diff_frame *frames;
    struct frame_lists *lists; /* of frames[i] */
    size_t nframes, frames_alloc, lists_alloc;
    struct tl_map frame_ids; /* frame identity -> index + 1 */
};

static const char *jstr(struct tl_diff_side *s, const struct tl_json *obj, const char *key)
{
    const struct tl_json *v = tl_json_get(obj, key);
    if (!v || v->type != TL_JSON_STRING || !v->u.str.n)
        return NULL;
    return tl_arena_memdupz(&s->arena, v->u.str.p, v->u.str.n);
}

static uint64_t ju64(const struct tl_json *obj, const char *key, uint64_t dflt)
{
    return tl_json_get_u64(obj, key, dflt);
}

static const struct tl_json *jarr(const struct tl_json *obj, const char *key)
{
    return tl_json_get_type(obj, key, TL_JSON_ARRAY);
}

/* The strings of an array member (others skipped). */
static const char **jstrs(struct tl_diff_side *s, const struct tl_json *obj, const char *key,
                          uint32_t *n)
{
    const struct tl_json *a = jarr(obj, key);
    *n = 0;
    if (!a || !a->u.arr.n)
        return NULL;
    const char **v = tl_arena_alloc(&s->arena, a->u.arr.n * sizeof(*v));
    for (size_t i = 0; i < a->u.arr.n; i++)
        if (a->u.arr.items[i].type == TL_JSON_STRING)
            v[(*n)++] =
                tl_arena_memdupz(&s->arena, a->u.arr.items[i].u.str.p, a->u.arr.items[i].u.str.n);
    return v;
}

/* A "file:line" member (or "file" alone) into a place. */
static struct tl_diff_loc loc_of(struct tl_diff_side *s, const struct tl_json *obj, const char *key,
                                 const char *function)
{
    struct tl_diff_loc l = {NULL, 0, function};
    const struct tl_json *v = tl_json_get(obj, key);
    if (!v || v->type != TL_JSON_STRING || !v->u.str.n)
        return l;
    struct tl_str t = v->u.str;
    size_t colon = t.n;
    while (colon > 0 && t.p[colon - 1] >= '0' && t.p[colon - 1] <= '9')
        colon--;
    size_t digits = t.n - colon;
    if (digits && digits < 10 && colon > 1 && t.p[colon - 1] == ':') {
        l.line = (uint32_t)strtoul(t.p + colon, NULL, 10);
        t.n = colon - 1;
    }
    l.file = tl_arena_memdupz(&s->arena, t.p, t.n);
    return l;
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/*
 * Text made comparable across runs: what changes from run to run for the same finding is
 * taken out (object addresses "0x7f3a..."; with symbols, the numbers of size symbols, s0 in
 * one run being s3 in the next), runs of spaces are one, and only the first line counts (a
 * failure's traceback follows it, with line numbers that move).
 */
static const char *comparable(struct tl_diff_side *s, const char *text, bool symbols)
{
    if (!text)
        return "";
    struct tl_buf b = TL_BUF_INIT;
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != '\n') {
        bool start = p == text || !word_char(p[-1]);
        if (start && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && p[2] &&
            strchr("0123456789abcdefABCDEF", p[2])) {
            tl_buf_adds(&b, "0x?");
            p += 2;
            while (*p && strchr("0123456789abcdefABCDEF", *p))
                p++;
            continue;
        }
        if (symbols && start && (*p == 's' || *p == 'u') && p[1] >= '0' && p[1] <= '9') {
            const char *q = p + 1;
            while (*q >= '0' && *q <= '9')
                q++;
            if (!word_char(*q)) {
                tl_buf_addch(&b, *p);
                tl_buf_addch(&b, '?');
                p = q;
                continue;
            }
        }
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            while (*p == ' ' || *p == '\t' || *p == '\r')
                p++;
            if (*p && *p != '\n')
                tl_buf_addch(&b, ' ');
            continue;
        }
        tl_buf_addch(&b, *p++);
    }
    const char *k = tl_arena_memdupz(&s->arena, b.buf, b.len);
    tl_buf_release(&b);
    return k;
}

static void key_loc(struct tl_buf *b, const struct tl_diff_loc *l, bool line)
{
    tl_buf_addch(b, '\0');
    tl_buf_adds(b, l->file ? l->file : "");
    tl_buf_addch(b, '\0');
    if (line)
        tl_buf_addu(b, l->line);
    tl_buf_addch(b, '\0');
    tl_buf_adds(b, l->function ? l->function : "");
}

/* Add an item, or count it into the one with the same key at the same place. */
static void add_item(struct reader *r, enum tl_diff_cat cat, const struct tl_diff_item *it)
{
    struct tl_buf k = TL_BUF_INIT;
    tl_buf_addch(&k, (char)('0' + cat));
    tl_buf_addch(&k, '\0');
    tl_buf_adds(&k, it->detail ? it->detail : "");
    tl_buf_addch(&k, '\0');
    tl_buf_adds(&k, it->key);
    key_loc(&k, &it->loc, true);
    int created;
    struct tl_map_entry *e = tl_map_upsert(&r->merge, tl_buf_str(&k), &created);
    tl_buf_release(&k);
    struct items *v = &r->items[cat];
    if (!created) {
        struct tl_diff_item *m = &v->v[(uintptr_t)e->value - 1];
        m->count += it->count;
        /* the compile ids of both, without repeats */
        const char **ids =
            tl_arena_alloc(&r->side->arena, ((size_t)m->ncids + it->ncids + 1) * sizeof(*ids));
        uint32_t n = 0;
        for (uint32_t i = 0; i < m->ncids; i++)
            ids[n++] = m->cids[i];
        for (uint32_t i = 0; i < it->ncids; i++) {
            bool dup = false;
            for (uint32_t j = 0; j < m->ncids && !dup; j++)
                dup = !strcmp(m->cids[j], it->cids[i]);
            if (!dup)
                ids[n++] = it->cids[i];
        }
        m->cids = ids;
        m->ncids = n;
        return;
    }
    TL_GROW(v->v, v->n + 1, v->alloc);
    v->v[v->n++] = *it;
    e->value = (void *)(uintptr_t)v->n;
}

static const char *advice_category(struct tl_diff_side *s, const struct tl_json *obj)
{
    return jstr(s, tl_json_get(obj, "advice"), "category");
}

static void read_breaks(struct reader *r, const struct tl_json *root)
{
    struct tl_diff_side *s = r->side;
    const struct tl_json *a = jarr(root, "graph_breaks");
    for (size_t i = 0; a && i < a->u.arr.n; i++) {
        const struct tl_json *b = &a->u.arr.items[i];
        struct tl_diff_item it;
        memset(&it, 0, sizeof(it));
        it.text = jstr(s, b, "reason");
        it.key = comparable(s, it.text, false);
        it.category = advice_category(s, b);
        it.cids = jstrs(s, b, "compile_ids", &it.ncids);
        uint64_t count = ju64(b, "count", 1);
        const struct tl_json *where = jarr(b, "where");
        if (!where || !where->u.arr.n) {
            it.count = count;
            add_item(r, TL_DIFF_BREAKS, &it);
            continue;
        }
        for (size_t k = 0; k < where->u.arr.n; k++) {
            const struct tl_json *w = &where->u.arr.items[k];
            it.loc.file = jstr(s, w, "file");
            it.loc.line = (uint32_t)ju64(w, "line", 0);
            it.loc.function = jstr(s, w, "function");
            /* Summaries before per-place counts: the whole count at its only place. */
            it.count = ju64(w, "count", where->u.arr.n == 1 ? count : 1);
            add_item(r, TL_DIFF_BREAKS, &it);
        }
    }
}

static void read_recompiles(struct reader *r, const struct tl_json *root)
{
    struct tl_diff_side *s = r->side;
    const struct tl_json *a = jarr(root, "recompiles");
    for (size_t i = 0; a && i < a->u.arr.n; i++) {
        const struct tl_json *rc = &a->u.arr.items[i];
        struct tl_diff_item it;
        memset(&it, 0, sizeof(it));
        it.loc = loc_of(s, rc, "location", jstr(s, rc, "function"));
        it.cids = jstrs(s, rc, "compile_ids", &it.ncids);
        const struct tl_json *reasons = jarr(rc, "reasons");
        if (!reasons || !reasons->u.arr.n) {
            it.text = NULL;
            it.key = "";
            it.count = ju64(rc, "count", 1);
            it.category = advice_category(s, rc);
            add_item(r, TL_DIFF_RECOMPILES, &it);
            continue;
        }
        for (size_t k = 0; k < reasons->u.arr.n; k++) {
            const struct tl_json *g = &reasons->u.arr.items[k];
            it.text = jstr(s, g, "guard");
            it.key = comparable(s, it.text, true);
            it.count = ju64(g, "count", 1);
            it.category = advice_category(s, g);
            add_item(r, TL_DIFF_RECOMPILES, &it);
        }
    }
}

/* expr with each symbol its "symbols" list gives a source for replaced by that source
 * ("Eq(s0, 5)" -> "Eq(L['x'].size()[0], 5)"), or NULL when none has one: a specialization
 * is compared across runs by what it specialized, whatever its symbol's number there. */
static const char *with_sources(struct tl_diff_side *s, const char *expr,
                                const struct tl_json *syms)
{
    if (!expr || !syms || syms->type != TL_JSON_ARRAY)
        return NULL;
    struct tl_buf b = TL_BUF_INIT;
    bool changed = false;
    for (const char *p = expr; *p;) {
        bool start = p == expr || !word_char(p[-1]);
        const char *q = p;
        while (start && word_char(*q))
            q++;
        const char *src = NULL;
        for (size_t i = 0; q > p && !src && i < syms->u.arr.n; i++) {
            const struct tl_json *y = &syms->u.arr.items[i];
            const struct tl_json *name = tl_json_get(y, "symbol"), *v = tl_json_get(y, "source");
            if (name && name->type == TL_JSON_STRING && v && v->type == TL_JSON_STRING &&
                v->u.str.n && name->u.str.n == (size_t)(q - p) &&
                !memcmp(name->u.str.p, p, name->u.str.n))
                src = tl_arena_memdupz(&s->arena, v->u.str.p, v->u.str.n);
        }
        if (src) {
            tl_buf_adds(&b, src);
            changed = true;
            p = q;
        } else if (q > p) {
            tl_buf_add(&b, p, (size_t)(q - p));
            p = q;
        } else {
            tl_buf_addch(&b, *p++);
        }
    }
    const char *out = changed ? tl_arena_memdupz(&s->arena, b.buf, b.len) : NULL;
    tl_buf_release(&b);
    return out;
}

static void read_specs(struct reader *r, const struct tl_json *root)
{
    struct tl_diff_side *s = r->side;
    const struct tl_json *a = jarr(root, "specializations");
    for (size_t i = 0; a && i < a->u.arr.n; i++) {
        const struct tl_json *sp = &a->u.arr.items[i];
        struct tl_diff_item it;
        memset(&it, 0, sizeof(it));
        it.detail = jstr(s, sp, "kind");
        const char *readable = jstr(s, sp, "readable"), *expr = jstr(s, sp, "expr");
        const char *source = jstr(s, sp, "source"), *value = jstr(s, sp, "value");
        if (!readable)
            readable = with_sources(s, expr, jarr(sp, "symbols"));
        it.text = readable ? readable : expr;
        if (!it.text && source)
            it.text = tl_arena_printf(&s->arena, "%s == %s", source, value ? value : "?");
        /* The same specialization in another run may have another symbol number: match on
         * its readable form, and on the source and value it names. */
        struct tl_buf k = TL_BUF_INIT;
        tl_buf_adds(&k, comparable(s, it.text, true));
        tl_buf_addch(&k, '\x1f');
        tl_buf_adds(&k, source ? source : "");
        tl_buf_addch(&k, '\x1f');
        tl_buf_adds(&k, value ? value : "");
        it.key = tl_arena_memdupz(&s->arena, k.buf, k.len);
        tl_buf_release(&k);
        it.loc = loc_of(s, sp, "location", jstr(s, sp, "function"));
        it.count = ju64(sp, "count", 1);
        it.category = advice_category(s, sp);
        const char *cid = jstr(s, sp, "compile_id");
        if (cid) {
            it.cids = tl_arena_alloc(&s->arena, sizeof(*it.cids));
            it.cids[0] = cid;
            it.ncids = 1;
        }
        add_item(r, TL_DIFF_SPECS, &it);
    }
}

static void read_failures(struct reader *r, const struct tl_json *root)
{
    struct tl_diff_side *s = r->side;
    const struct tl_json *a = jarr(root, "failures");
    for (size_t i = 0; a && i < a->u.arr.n; i++) {
        const struct tl_json *f = &a->u.arr.items[i];
        struct tl_diff_item it;
        memset(&it, 0, sizeof(it));
        it.detail = jstr(s, f, "type");
        it.text = jstr(s, f, "reason");
        it.key = comparable(s, it.text, true);
        it.loc = loc_of(s, f, "location", jstr(s, f, "function"));
        it.count = 1;
        it.category = advice_category(s, f);
        const char *cid = jstr(s, f, "compile_id");
        if (cid) {
            it.cids = tl_arena_alloc(&s->arena, sizeof(*it.cids));
            it.cids[0] = cid;
            it.ncids = 1;
        }
        add_item(r, TL_DIFF_FAILURES, &it);
    }
    a = jarr(root, "limits_hit");
    for (size_t i = 0; a && i < a->u.arr.n; i++) {
        const struct tl_json *l = &a->u.arr.items[i];
        struct tl_diff_item it;
        memset(&it, 0, sizeof(it));
        it.detail = "limit hit";
        const char *name = jstr(s, l, "limit_name");
        uint64_t limit = ju64(l, "limit", 0);
        name = name ? name : "recompile_limit";
        it.text =
            limit ? tl_arena_printf(&s->arena, "%s (%llu)", name, (unsigned long long)limit) : name;
        /* the same limit hit, whatever it was set to */
        it.key = name;
        it.loc = loc_of(s, l, "location", jstr(s, l, "function"));
        it.count = 1;
        it.category = advice_category(s, l);
        const char *cid = jstr(s, l, "compile_id");
        if (cid) {
            it.cids = tl_arena_alloc(&s->arena, sizeof(*it.cids));
            it.cids[0] = cid;
            it.ncids = 1;
        }
        add_item(r, TL_DIFF_FAILURES, &it);
    }
}

/* A frame's identity in a run: its code and its callers. */
static void frame_identity(struct tl_buf *b, const struct tl_diff_frame *f, int tier);

/* The "graphs" of a frame of summary.json: each with its compile id, hash and node count. */
static void read_frame_graphs(struct tl_diff_side *s, const struct tl_json *j,
                              struct tl_diff_frame *f)
{
    const struct tl_json *g = jarr(j, "graphs");
    if (!g || !g->u.arr.n)
        return;
    f->graphs = tl_arena_calloc(&s->arena, g->u.arr.n, sizeof(*f->graphs));
    for (size_t k = 0; k < g->u.arr.n; k++) {
        const struct tl_json *x = &g->u.arr.items[k];
        struct tl_diff_graph *gr = &f->graphs[f->ngraphs++];
        gr->cid = jstr(s, x, "compile_id");
        gr->hash = jstr(s, x, "hash");
        const struct tl_json *nodes = tl_json_get(x, "nodes");
        gr->has_nodes = nodes && nodes->type == TL_JSON_NUMBER && nodes->u.num.kind == TL_JSON_UINT;
        gr->nodes = gr->has_nodes ? nodes->u.num.u : 0;
    }
}

/* A frame of summary.json's "frames". */
static void read_frame(struct tl_diff_side *s, const struct tl_json *j, struct tl_diff_frame *f)
{
    memset(f, 0, sizeof(*f));
    f->function = jstr(s, j, "function");
    f->name = jstr(s, j, "name");
    if (f->name && f->function && !strcmp(f->name, f->function))
        f->name = NULL;
    f->loc.file = jstr(s, j, "file");
    f->loc.line = (uint32_t)ju64(j, "line", 0);
    f->loc.function = f->function;
    if (jarr(j, "callers")) {
        f->callers = jstrs(s, j, "callers", &f->ncallers);
        if (!f->callers) /* known and empty */
            f->callers = tl_arena_alloc(&s->arena, sizeof(*f->callers));
    }
    f->compiles = (uint32_t)ju64(j, "compiles", 0);
    f->cids = jstrs(s, j, "compile_ids", &f->ncids);
    f->has_time = tl_json_get_seconds(j, "compile_time_s", &f->seconds);
    read_frame_graphs(s, j, f);
}

/* Frames with the same code and callers (dynamo reset, a function compiled again under another
 * frame id) are one frame here: f is added, or merged into the one with its identity. */
static void merge_frame(struct reader *r, const struct tl_diff_frame *f)
{
    struct tl_buf id = TL_BUF_INIT;
    frame_identity(&id, f, 1);
    int created;
    struct tl_map_entry *e = tl_map_upsert(&r->frame_ids, tl_buf_str(&id), &created);
    tl_buf_release(&id);
    if (created) {
        TL_GROW(r->frames, r->nframes + 1, r->frames_alloc);
        TL_GROW(r->lists, r->nframes + 1, r->lists_alloc);
        memset(&r->lists[r->nframes], 0, sizeof(r->lists[0]));
        r->frames[r->nframes++] = *f;
        e->value = (void *)(uintptr_t)r->nframes;
    } else {
        struct tl_diff_frame *m = &r->frames[(uintptr_t)e->value - 1];
        m->compiles += f->compiles;
        if (f->has_time) {
            m->seconds += f->seconds;
            m->has_time = true;
        }
    }
    struct frame_lists *l = &r->lists[(uintptr_t)e->value - 1];
    TL_GROW(l->cids, l->ncids + f->ncids, l->cids_alloc);
    for (uint32_t k = 0; k < f->ncids; k++)
        l->cids[l->ncids++] = f->cids[k];
    TL_GROW(l->graphs, l->ngraphs + f->ngraphs, l->graphs_alloc);
    for (uint32_t k = 0; k < f->ngraphs; k++)
        l->graphs[l->ngraphs++] = f->graphs[k];
}

/* Each merged frame gets the compile ids and graphs of all its parts, in the side's arena. */
static void finish_frames(struct reader *r)
{
    struct tl_diff_side *s = r->side;
    for (size_t i = 0; i < r->nframes; i++) {
        struct tl_diff_frame *m = &r->frames[i];
        struct frame_lists *l = &r->lists[i];
        m->ncids = (uint32_t)l->ncids;
        m->cids = tl_arena_alloc(&s->arena, (l->ncids + 1) * sizeof(*m->cids));
        if (l->ncids)
            memcpy(m->cids, l->cids, l->ncids * sizeof(*m->cids));
        m->ngraphs = (uint32_t)l->ngraphs;
        m->graphs = tl_arena_alloc(&s->arena, (l->ngraphs + 1) * sizeof(*m->graphs));
        if (l->ngraphs)
            memcpy(m->graphs, l->graphs, l->ngraphs * sizeof(*m->graphs));
        free(l->cids);
        free(l->graphs);
    }
    free(r->lists);
}

static void read_frames(struct reader *r, const struct tl_json *root)
{
    const struct tl_json *a = jarr(root, "frames");
    for (size_t i = 0; a && i < a->u.arr.n; i++) {
        struct tl_diff_frame f;
        read_frame(r->side, &a->u.arr.items[i], &f);
        merge_frame(r, &f);
    }
    finish_frames(r);
}

/* compile_time.ledger of a summary (null, or absent before the ledger was written). */
static void read_ledger(struct tl_diff_ledger *l, const struct tl_json *v)
{
    memset(l, 0, sizeof(*l));
    if (!v || v->type != TL_JSON_OBJECT || !tl_json_get_seconds(v, "span_s", &l->span_s) ||
        !tl_json_get_seconds(v, "compiling_s", &l->compiling_s))
        return;
    tl_json_get_seconds(v, "runtime_s", &l->runtime_s);
    tl_json_get_seconds(v, "unaccounted_s", &l->unaccounted_s);
    const struct tl_json *ph = tl_json_get(v, "phases");
    for (int p = 0; p < TL_LP_COUNT; p++)
        tl_json_get_seconds(ph, tl_ledger_phase_key((enum tl_ledger_phase)p), &l->phases_s[p]);
    l->has = true;
}

int tl_diff_side_read(struct tl_diff_side *side, const char *path, const char *kind,
                      const char *report, const char *text, size_t n, struct tl_err *err)
{
    memset(side, 0, sizeof(*side));
    tl_arena_init(&side->arena, 64 * 1024);
    side->path = path ? tl_arena_printf(&side->arena, "%s", path) : NULL;
    side->kind = kind ? tl_arena_printf(&side->arena, "%s", kind) : NULL;
    side->report = report ? tl_arena_printf(&side->arena, "%s", report) : NULL;
    struct tl_json root;
    struct tl_json_error jerr;
    if (tl_json_parse(&side->arena, text, n, &root, &jerr) != 0)
        return tl_error_code(err, TL_ERR_INPUT, "%s: not a summary (JSON error at byte %zu: %s)",
                             path ? path : "-", jerr.offset, jerr.msg);
    const struct tl_json *schema = tl_json_get(&root, "schema");
    if (root.type != TL_JSON_OBJECT || !schema || schema->type != TL_JSON_STRING ||
        !tl_str_eq_cstr(schema->u.str, "tlparse-summary/1")) {
        const char *what = schema && schema->type == TL_JSON_STRING &&
                                   tl_str_eq_cstr(schema->u.str, "tlparse-ranks/1")
                               ? "a multi-rank summary (compare one rank's: rank_N/summary.json)"
                               : "not a tlparse summary (no \"schema\": \"tlparse-summary/1\")";
        return tl_error_code(err, TL_ERR_INPUT, "%s: %s", path ? path : "-", what);
    }
    side->source_kind = jstr(side, tl_json_get(&root, "source"), "kind");
    side->compile_ids = ju64(&root, "compile_ids", 0);
    side->has_time =
        tl_json_get_seconds(tl_json_get(&root, "compile_time"), "total_s", &side->total_s);
    read_ledger(&side->ledger, tl_json_get(tl_json_get(&root, "compile_time"), "ledger"));
    const struct tl_json *cache = tl_json_get(&root, "cache");
    static const char *const caches[2] = {"fx_graph", "aotautograd"};
    static const char *const results[3] = {"hit", "miss", "bypass"};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
            side->cache[i][k] = ju64(tl_json_get(cache, caches[i]), results[k], 0);
            side->has_cache = side->has_cache || side->cache[i][k];
        }
    if (cache && cache->type == TL_JSON_OBJECT)
        side->cache_keys = tl_cachekey_digest_read(tl_json_get(cache, "keys"), &side->arena);

    struct reader r;
    memset(&r, 0, sizeof(r));
    r.side = side;
    tl_map_init(&r.merge, &side->arena);
    tl_map_init(&r.frame_ids, &side->arena);
    read_failures(&r, &root);
    read_recompiles(&r, &root);
    read_breaks(&r, &root);
    read_specs(&r, &root);
    read_frames(&r, &root);
    for (int c = 0; c < TL_DIFF_NCATS; c++) {
        side->nitems[c] = (uint32_t)r.items[c].n;
        side->items[c] =
            tl_arena_alloc(&side->arena, (r.items[c].n + 1) * sizeof(struct tl_diff_item));
        if (r.items[c].n)
            memcpy(side->items[c], r.items[c].v, r.items[c].n * sizeof(struct tl_diff_item));
        free(r.items[c].v);
    }
    side->nframes = (uint32_t)r.nframes;
    side->frames = tl_arena_alloc(&side->arena, (r.nframes + 1) * sizeof(*side->frames));
    if (r.nframes)
        memcpy(side->frames, r.frames, r.nframes * sizeof(*side->frames));
    free(r.frames);
    tl_map_release(&r.merge);
    tl_map_release(&r.frame_ids);
    return 0;
}

void tl_diff_side_release(struct tl_diff_side *side)
{
    tl_arena_release(&side->arena);
    memset(side, 0, sizeof(*side));
}

/* ---- matching ----------------------------------------------------------------------------- */

/*
 * Tiered matching of two lists: at each tier, an element of a is paired with the first
 * element of b not yet paired that has the same key. Tiers go from exact to loose, so the
 * loose keys only pair what the exact ones left.
 */
typedef void (*key_fn)(struct tl_buf *b, const void *list, uint32_t i, int tier);

static void match(const void *a, uint32_t na, const void *b, uint32_t nb, int ntiers, key_fn key,
                  uint32_t *a_to_b /* out: index + 1 into b, 0 none */, bool *b_taken)
{
    for (int tier = 1; tier <= ntiers; tier++) {
        struct tl_arena arena;
        tl_arena_init(&arena, 16 * 1024);
        struct tl_map heads;
        tl_map_init(&heads, &arena);
        /* b's untaken elements chained by key, in order */
        uint32_t *next = tl_xcalloc(nb ? nb : 1, sizeof(*next));
        uint32_t *tail = tl_xcalloc(nb ? nb : 1, sizeof(*tail));
        struct tl_buf k = TL_BUF_INIT;
        for (uint32_t i = 0; i < nb; i++) {
            if (b_taken[i])
                continue;
            tl_buf_reset(&k);
            key(&k, b, i, tier);
            int created;
            struct tl_map_entry *e = tl_map_upsert(&heads, tl_buf_str(&k), &created);
            if (created) {
                e->value = (void *)(uintptr_t)(i + 1);
                tail[i] = i + 1;
            } else {
                uint32_t head = (uint32_t)(uintptr_t)e->value - 1;
                next[tail[head] - 1] = i + 1;
                tail[head] = i + 1;
            }
        }
        for (uint32_t i = 0; i < na; i++) {
            if (a_to_b[i])
                continue;
            tl_buf_reset(&k);
            key(&k, a, i, tier);
            uint32_t at = (uint32_t)(uintptr_t)tl_map_get(&heads, tl_buf_str(&k));
            if (!at)
                continue;
            uint32_t j = at - 1;
            a_to_b[i] = j + 1;
            b_taken[j] = true;
            /* the next one of the chain becomes its head */
            uint32_t nx = next[j];
            tl_map_put(&heads, tl_buf_str(&k), (void *)(uintptr_t)nx);
        }
        tl_buf_release(&k);
        free(next);
        free(tail);
        tl_map_release(&heads);
        tl_arena_release(&arena);
    }
}

static void item_key(struct tl_buf *b, const void *list, uint32_t i, int tier)
{
    const struct tl_diff_item *it = &((const struct tl_diff_item *)list)[i];
    tl_buf_adds(b, it->detail ? it->detail : "");
    tl_buf_addch(b, '\0');
    tl_buf_adds(b, it->key ? it->key : "");
    /* tier 1: the same place; tier 2: the same function in the same file, the line moved */
    key_loc(b, &it->loc, tier == 1);
}

/* A resume function's name without its line ("torch_dynamo_resume_in_f_at_"), which moves. */
static void add_name_no_line(struct tl_buf *b, const char *name)
{
    if (!name)
        return;
    size_t n = strlen(name);
    size_t d = n;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d < n && d >= 4 && !memcmp(name + d - 4, "_at_", 4))
        n = d;
    tl_buf_add(b, name, n);
}

static void frame_identity(struct tl_buf *b, const struct tl_diff_frame *f, int tier)
{
    tl_buf_adds(b, f->function ? f->function : "");
    tl_buf_addch(b, '\0');
    if (tier == 1)
        tl_buf_adds(b, f->name ? f->name : "");
    else
        add_name_no_line(b, f->name);
    tl_buf_addch(b, '\0');
    tl_buf_adds(b, f->loc.file ? f->loc.file : "");
    tl_buf_addch(b, '\0');
    if (tier == 1)
        tl_buf_addu(b, f->loc.line);
    if (tier == 3)
        return;
    tl_buf_addch(b, '\0');
    if (!f->callers) {
        tl_buf_addch(b, '?');
        return;
    }
    for (uint32_t i = 0; i < f->ncallers; i++) {
        const char *c = f->callers[i];
        if (tier == 1) {
            tl_buf_adds(b, c);
        } else {
            /* "file:line in fn" without its line */
            const char *in = strstr(c, " in ");
            const char *colon = in ? in : c + strlen(c);
            while (colon > c && *colon != ':')
                colon--;
            tl_buf_add(b, c, colon > c ? (size_t)(colon - c) : strlen(c));
            if (in)
                tl_buf_adds(b, in);
        }
        tl_buf_addch(b, '\n');
    }
}

static void frame_key(struct tl_buf *b, const void *list, uint32_t i, int tier)
{
    frame_identity(b, &((const struct tl_diff_frame *)list)[i], tier);
}

/* ---- the diff ----------------------------------------------------------------------------- */

static uint64_t pair_count(const struct tl_diff_pair *p)
{
    uint64_t a = p->before ? p->before->count : 0, b = p->after ? p->after->count : 0;
    return a > b ? a : b;
}

static int change_rank(enum tl_diff_change c)
{
    return c == TL_DIFF_NEW ? 0 : c == TL_DIFF_CHANGED ? 1 : 2;
}

/* new, changed, fixed; the most frequent first; then in the order found. */
static int cmp_pair(const void *x, const void *y)
{
    const struct tl_diff_pair *a = x, *b = y;
    int ra = change_rank(a->change), rb = change_rank(b->change);
    if (ra != rb)
        return ra - rb;
    uint64_t ca = pair_count(a), cb = pair_count(b);
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

double tl_diff_frame_seconds(const struct tl_diff_frame *f)
{
    return f && f->has_time ? f->seconds : -1;
}

static double time_change(const struct tl_diff_fpair *p)
{
    double a = p->before && p->before->has_time ? p->before->seconds : 0;
    double b = p->after && p->after->has_time ? p->after->seconds : 0;
    return fabs(b - a);
}

static long compile_change(const struct tl_diff_fpair *p)
{
    long a = p->before ? p->before->compiles : 0, b = p->after ? p->after->compiles : 0;
    return labs(b - a);
}

static int cmp_fpair(const void *x, const void *y)
{
    const struct tl_diff_fpair *a = x, *b = y;
    double ta = time_change(a), tb = time_change(b);
    if (ta != tb)
        return ta > tb ? -1 : 1;
    long ca = compile_change(a), cb = compile_change(b);
    if (ca != cb)
        return ca > cb ? -1 : 1;
    /* in the order of the before side, then the after side's new ones */
    int sa = a->before ? 0 : 1, sb = b->before ? 0 : 1;
    if (sa != sb)
        return sa - sb;
    const struct tl_diff_frame *fa = a->before ? a->before : a->after;
    const struct tl_diff_frame *fb = b->before ? b->before : b->after;
    return fa < fb ? -1 : fa > fb;
}

static bool graph_same(const struct tl_diff_graph *a, const struct tl_diff_graph *b)
{
    if (a->hash && b->hash && strcmp(a->hash, b->hash))
        return false;
    if (a->has_nodes && b->has_nodes && a->nodes != b->nodes)
        return false;
    return true;
}

/* A frame's graphs, for match(): a graph is known by its hash; one without a hash matches
 * nothing (its key names its side and place). */
struct graph_list {
    const struct tl_diff_graph *g;
    char side;
};

static void graph_key(struct tl_buf *b, const void *list, uint32_t i, int tier)
{
    (void)tier;
    const struct graph_list *l = list;
    if (l->g[i].hash)
        tl_buf_addf(b, "h%s", l->g[i].hash);
    else
        tl_buf_addf(b, "%c%u", l->side, i);
}

static void diff_graphs(struct tl_diff *d, const struct tl_diff_fpair *fp, size_t *alloc)
{
    const struct tl_diff_frame *a = fp->before, *b = fp->after;
    bool *taken = tl_xcalloc(b->ngraphs + 1u, sizeof(*taken));
    uint32_t *to = tl_xcalloc(a->ngraphs + 1u, sizeof(*to));
    bool *hashed = tl_xcalloc(a->ngraphs + 1u, sizeof(*hashed));
    /* the same code first, wherever it is among the frame's compilations */
    struct graph_list la = {a->graphs, 'a'}, lb = {b->graphs, 'b'};
    match(&la, a->ngraphs, &lb, b->ngraphs, 1, graph_key, to, taken);
    for (uint32_t i = 0; i < a->ngraphs; i++)
        hashed[i] = to[i] != 0;
    /* then the rest in compile order */
    uint32_t j = 0;
    for (uint32_t i = 0; i < a->ngraphs; i++) {
        if (to[i])
            continue;
        while (j < b->ngraphs && taken[j])
            j++;
        if (j == b->ngraphs)
            break;
        to[i] = j + 1;
        taken[j] = true;
    }
    for (uint32_t i = 0; i < a->ngraphs; i++) {
        if (!to[i])
            continue;
        const struct tl_diff_graph *ga = &a->graphs[i], *gb = &b->graphs[to[i] - 1];
        d->graphs_matched++;
        d->graphs_by_hash += hashed[i];
        if (graph_same(ga, gb)) {
            d->graphs_same++;
            continue;
        }
        TL_GROW(d->graphs, d->ngraphs + 1, *alloc);
        struct tl_diff_gpair *g = &d->graphs[d->ngraphs++];
        g->frame = fp;
        g->before = ga;
        g->after = gb;
        g->by_hash = hashed[i];
    }
    free(taken);
    free(to);
    free(hashed);
}

void tl_diff_compute(struct tl_diff *d, const struct tl_diff_side *before,
                     const struct tl_diff_side *after)
{
    memset(d, 0, sizeof(*d));
    d->before = before;
    d->after = after;
    tl_arena_init(&d->cache_arena, 16 * 1024);
    const struct tl_ck_digest *digests[2] = {before->cache_keys, after->cache_keys};
    static const uint32_t sides[2] = {0, 1};
    tl_cachekey_across(&d->cache_misses, digests, sides, 2, TL_CK_ACROSS_FIRST, &d->cache_arena);
    for (int c = 0; c < TL_DIFF_NCATS; c++) {
        uint32_t na = before->nitems[c], nb = after->nitems[c];
        uint32_t *to = tl_xcalloc(na + 1u, sizeof(*to));
        bool *taken = tl_xcalloc(nb + 1u, sizeof(*taken));
        match(before->items[c], na, after->items[c], nb, 2, item_key, to, taken);
        d->pairs[c] = tl_xcalloc((size_t)na + nb + 1, sizeof(*d->pairs[c]));
        uint32_t n = 0;
        for (uint32_t i = 0; i < na; i++) {
            struct tl_diff_pair p = {TL_DIFF_FIXED, &before->items[c][i], NULL, i};
            if (to[i]) {
                p.after = &after->items[c][to[i] - 1];
                p.change = p.after->count == p.before->count ? TL_DIFF_SAME : TL_DIFF_CHANGED;
            }
            d->nchange[c][p.change]++;
            if (p.change == TL_DIFF_SAME)
                d->nsame[c]++;
            else
                d->pairs[c][n++] = p;
        }
        for (uint32_t j = 0; j < nb; j++)
            if (!taken[j]) {
                d->pairs[c][n++] =
                    (struct tl_diff_pair){TL_DIFF_NEW, NULL, &after->items[c][j], na + j};
                d->nchange[c][TL_DIFF_NEW]++;
            }
        d->npairs[c] = n;
        if (n)
            tl_sort(d->pairs[c], n, sizeof(*d->pairs[c]), cmp_pair);
        free(to);
        free(taken);
    }

    uint32_t na = before->nframes, nb = after->nframes;
    uint32_t *to = tl_xcalloc(na + 1u, sizeof(*to));
    bool *taken = tl_xcalloc(nb + 1u, sizeof(*taken));
    match(before->frames, na, after->frames, nb, 3, frame_key, to, taken);
    d->frames = tl_xcalloc((size_t)na + nb + 1, sizeof(*d->frames));
    for (uint32_t i = 0; i < na; i++)
        d->frames[d->nframes++] =
            (struct tl_diff_fpair){&before->frames[i], to[i] ? &after->frames[to[i] - 1] : NULL};
    for (uint32_t j = 0; j < nb; j++)
        if (!taken[j])
            d->frames[d->nframes++] = (struct tl_diff_fpair){NULL, &after->frames[j]};
    free(to);
    free(taken);
    if (d->nframes)
        tl_sort(d->frames, d->nframes, sizeof(*d->frames), cmp_fpair);
    /* the graphs of the frames on both sides, the frames with the largest changes first */
    size_t galloc = 0;
    for (uint32_t i = 0; i < d->nframes; i++)
        if (d->frames[i].before && d->frames[i].after)
            diff_graphs(d, &d->frames[i], &galloc);
}

void tl_diff_release(struct tl_diff *d)
{
    for (int c = 0; c < TL_DIFF_NCATS; c++)
        free(d->pairs[c]);
    free(d->frames);
    free(d->graphs);
    tl_arena_release(&d->cache_arena);
    memset(d, 0, sizeof(*d));
}

void tl_diff_counts(const struct tl_diff *d, struct tl_diff_counts *c)
{
    memset(c, 0, sizeof(*c));
    for (int k = 0; k < TL_DIFF_NCATS; k++)
        for (uint32_t i = 0; i < d->npairs[k]; i++) {
            const struct tl_diff_pair *p = &d->pairs[k][i];
            if (p->change == TL_DIFF_FIXED)
                c->fixed[k]++;
            else if (p->change == TL_DIFF_NEW)
                c->added[k]++;
            else if (p->change == TL_DIFF_CHANGED) {
                c->changed[k]++;
                if (p->after->count > p->before->count)
                    c->more[k]++;
            }
        }
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diff_fpair *p = &d->frames[i];
        uint32_t a = p->before ? p->before->compiles : 0, b = p->after ? p->after->compiles : 0;
        c->frames_more += b > a;
        c->frames_fewer += b < a;
    }
    c->slower_pct = NAN;
    if (d->before->has_time && d->after->has_time && d->before->total_s > 0)
        c->slower_pct = 100 * (d->after->total_s - d->before->total_s) / d->before->total_s;
}

const char *tl_diff_cat_name(enum tl_diff_cat c)
{
    static const char *const names[TL_DIFF_NCATS] = {"failures", "recompiles", "graph_breaks",
                                                     "specializations"};
    return c < TL_DIFF_NCATS ? names[c] : "";
}
