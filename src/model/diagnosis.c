/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis's fact intake (diagnosis.h): facts grouped as they come (graph breaks by
 * reason, recompiles by function and then by failing guard, specializations by symbol and
 * expression, frames by their id, export problems by kind, expression and place), the slowest
 * compilations and largest graphs kept in small sorted arrays. The findings made of them at
 * the end are diag_findings.c's.
 */
#include "base/config.h"
#include "model/diagnosis.h"
#include "input/symexpr.h"
#include "input/pytext.h"
#include "base/buf.h"
#include "base/xalloc.h"
#include "model/cachekey.h"

#include <stdlib.h>
#include <string.h>

void tl_diag_init(struct tl_diag *d)
{
    memset(d, 0, sizeof(*d));
    tl_arena_init(&d->arena, 64 * 1024);
    tl_map_init(&d->strings, &d->arena);
    tl_map_init(&d->index, &d->arena);
    tl_map_init(&d->dropped, &d->arena);
    tl_map_init(&d->cids, &d->arena);
    tl_map_init(&d->symbols, &d->arena);
    tl_map_init(&d->unbacked, &d->arena);
    tl_map_init(&d->shape_cids, &d->arena);
    tl_map_init(&d->skipped, &d->arena);
    tl_ledger_init(&d->ledger, &d->arena);
    d->at_rank = -1;
    d->automatic_dynamic = -1;
}

void tl_diag_release(struct tl_diag *d)
{
    for (uint32_t i = 0; i < d->nrecompiles; i++)
        free(d->recompiles[i].guards);
    free(d->breaks);
    free(d->recompiles);
    free(d->specs);
    free(d->failures);
    free(d->limits);
    free(d->frames);
    free(d->exports);
    free(d->restarts);
    free(d->early);
    free(d->findings);
    tl_ledger_release(&d->ledger);
    tl_map_release(&d->strings);
    tl_map_release(&d->index);
    tl_map_release(&d->dropped);
    tl_map_release(&d->cids);
    tl_map_release(&d->symbols);
    tl_map_release(&d->unbacked);
    tl_map_release(&d->shape_cids);
    tl_map_release(&d->skipped);
    tl_diag_forecast_free(d);
    tl_arena_release(&d->arena);
    if (d->cachekey)
        tl_cachekey_release(d->cachekey);
    free(d->cachekey);
}

/* ---- strings ------------------------------------------------------------------------------ */

static const char *intern(struct tl_diag *d, struct tl_str s)
{
    if (!s.p || !s.n)
        return NULL;
    struct tl_buf fixed = TL_BUF_INIT;
    if (memchr(s.p, '\0', s.n)) {
        tl_buf_add_nonul(&fixed, s.p, s.n);
        s = tl_buf_str(&fixed);
    }
    const char *p = tl_map_upsert(&d->strings, s, NULL)->key.p;
    tl_buf_release(&fixed);
    return p;
}

static struct tl_str trim(struct tl_str s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t' || s.p[0] == '\r' || s.p[0] == '\n')) {
        s.p++;
        s.n--;
    }
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r' ||
                   s.p[s.n - 1] == '\n'))
        s.n--;
    return s;
}

/* A compile id as findings name it: [frame/compile], without the attempt. Attempts are dynamo
 * restarting the analysis of one compilation ([0/0_1] is [0/0] analysed again); the
 * TORCH_LOGS text of a run names most records by [0/0], so trace and text agree. */
static const char *cid_text(struct tl_diag *d, const struct tl_compile_id *cid)
{
    if (!cid)
        return NULL;
    struct tl_compile_id c = *cid;
    c.has &= (uint8_t)~TL_CID_ATTEMPT;
    c.attempt = 0;
    if (d->last_cid_text && tl_cid_eq(&c, &d->last_cid))
        return d->last_cid_text;
    struct tl_buf b = TL_BUF_INIT;
    tl_cid_display(&b, &c);
    const char *s = intern(d, tl_buf_str(&b));
    tl_buf_release(&b);
    d->last_cid = c;
    d->last_cid_text = s;
    return s;
}

static void strs_add(struct tl_diag *d, struct tl_diag_strs *l, const char *s, uint32_t cap)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < l->kept; i++)
        if (l->s[i] == s) /* interned: one pointer per text */
            return;
    if (l->kept >= cap) {
        /* past the cap: counted once each all the same (a guard's values: "105 distinct").
         * The list is known by its kept array, which stays put in the arena (the list itself
         * moves when the array of guards it is in grows). */
        const void *pair[2] = {(const void *)l->s, s};
        int created;
        tl_map_upsert(&d->dropped, tl_str_make((const char *)pair, sizeof(pair)), &created);
        l->n += created != 0;
        return;
    }
    l->n++;
    if (!l->s)
        l->s = tl_arena_alloc(&d->arena, cap * sizeof(*l->s));
    l->s[l->kept++] = s;
}

/* Rank r into a sorted list (the lowest TL_DIAG_MAX_CIDS kept; n counts them all). */
static void ranks_put(struct tl_diag *d, struct tl_diag_ranks *l, int32_t r)
{
    uint32_t i = 0;
    while (i < l->kept && l->r[i] < r)
        i++;
    if (i < l->kept && l->r[i] == r)
        return;
    if (l->kept >= TL_DIAG_MAX_CIDS && i >= l->kept)
        return; /* above every kept one: counted already or not, n cannot tell; keep it low */
    l->n++;
    if (!l->r)
        l->r = tl_arena_alloc(&d->arena, TL_DIAG_MAX_CIDS * sizeof(*l->r));
    if (l->kept >= TL_DIAG_MAX_CIDS)
        l->kept--; /* the highest goes */
    memmove(l->r + i + 1, l->r + i, (l->kept - i) * sizeof(*l->r));
    l->r[i] = r;
    l->kept++;
}

/* The rank the facts come from (d->at_rank), into a finding's list and the diagnosis's. */
static void ranks_add(struct tl_diag *d, struct tl_diag_ranks *l)
{
    if (d->at_rank < 0)
        return;
    ranks_put(d, l, d->at_rank);
    ranks_put(d, &d->ranks, d->at_rank);
}

/* One more symbol or shape guard of cid, for tl_diag_shapes_of(). */
static void shapes_add(struct tl_diag *d, const char *cid)
{
    if (!cid)
        return;
    struct tl_map_entry *e = tl_map_upsert(&d->shape_cids, tl_str_cstr(cid), NULL);
    e->value = (void *)((uintptr_t)e->value + 1);
}

uint32_t tl_diag_shapes_of(const struct tl_diag *d, const char *cid)
{
    return cid ? (uint32_t)(uintptr_t)tl_map_get(&d->shape_cids, tl_str_cstr(cid)) : 0;
}

struct tl_str tl_diag_function_name(struct tl_str name)
{
    return tl_pytext_resume_function(name);
}

static struct tl_diag_loc loc_of(struct tl_diag *d, const struct tl_diag_fact_loc *f)
{
    struct tl_diag_loc l = {NULL, 0, NULL, NULL, false};
    if (!f)
        return l;
    l.file = intern(d, trim(f->file));
    l.line = f->line;
    l.function = intern(d, tl_diag_function_name(trim(f->function)));
    l.code = intern(d, trim(f->code));
    l.def = f->def;
    return l;
}

static bool loc_eq(const struct tl_diag_loc *a, const struct tl_diag_loc *b)
{
    return a->file == b->file && a->line == b->line && a->function == b->function &&
           a->def == b->def;
}

/* The index + 1 stored under "kind\0key", or 0; with add, store next + 1 when new. */
static uint32_t slot(struct tl_diag *d, char kind, struct tl_str key, uint32_t next, bool add)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_addch(&b, kind);
    tl_buf_addch(&b, '\0');
    tl_buf_addstr(&b, key);
    uint32_t got;
    if (add) {
        int created;
        struct tl_map_entry *e = tl_map_upsert(&d->index, tl_buf_str(&b), &created);
        if (created)
            e->value = (void *)(uintptr_t)(next + 1);
        got = (uint32_t)(uintptr_t)e->value;
    } else {
        got = (uint32_t)(uintptr_t)tl_map_get(&d->index, tl_buf_str(&b));
    }
    tl_buf_release(&b);
    return got;
}

/* ---- frames and compile ids --------------------------------------------------------------- */

void tl_diag_compile_id(struct tl_diag *d, const struct tl_compile_id *cid)
{
    /* Records outside any frame's compilation ([-/-]: a backward pass, a cache lookup at run
     * time) are not a compilation. */
    if (!cid || !(cid->has & TL_CID_FRAME))
        return;
    const char *s = cid_text(d, cid);
    int created;
    tl_map_upsert(&d->cids, tl_str_cstr(s), &created);
    if (created)
        d->compile_ids++;
}

/* The frame of a compile id: "frame" or "!ca/frame". */
static void frame_key(struct tl_buf *b, const struct tl_compile_id *cid)
{
    if (cid->has & TL_CID_CA)
        tl_buf_addf(b, "!%u/", cid->ca);
    if (cid->has & TL_CID_FRAME)
        tl_buf_addu(b, cid->frame);
    else
        tl_buf_addch(b, '-');
}

static struct tl_diag_frame *frame_of(struct tl_diag *d, const struct tl_compile_id *cid)
{
    struct tl_buf key = TL_BUF_INIT;
    frame_key(&key, cid);
    uint32_t i = slot(d, 'F', tl_buf_str(&key), d->nframes, true) - 1;
    if (i == d->nframes) {
        TL_GROW(d->frames, d->nframes + 1, d->frames_alloc);
        memset(&d->frames[i], 0, sizeof(d->frames[i]));
        d->frames[i].key = intern(d, tl_buf_str(&key));
        d->nframes++;
    }
    tl_buf_release(&key);
    return &d->frames[i];
}

void tl_diag_compile(struct tl_diag *d, const struct tl_compile_id *cid,
                     const struct tl_diag_fact_loc *function)
{
    tl_diag_compile_id(d, cid);
    if (!(cid->has & TL_CID_FRAME))
        return;
    struct tl_diag_frame *f = frame_of(d, cid);
    /* A compile id's attempts are one compilation; count distinct frame compile ids. */
    struct tl_compile_id c = *cid;
    c.has &= (uint8_t)~TL_CID_ATTEMPT;
    c.attempt = 0;
    const char *id = cid_text(d, &c);
    uint32_t before = f->cids.n;
    strs_add(d, &f->cids, id, TL_DIAG_MAX_CIDS);
    if (f->cids.n != before)
        f->compiles++;
    if (function && function->function.n && !f->function) {
        f->where = loc_of(d, function);
        f->function = f->where.function;
        f->name = intern(d, trim(function->function));
    }
}

/* The graph of cid in its frame's list; NULL when the list is full. */
static struct tl_diag_fgraph *fgraph_of(struct tl_diag *d, const struct tl_compile_id *cid)
{
    if (!cid || !(cid->has & TL_CID_FRAME))
        return NULL;
    struct tl_diag_frame *f = frame_of(d, cid);
    /* Attempts of a compile id are one compilation: the last attempt's graph is its graph. */
    struct tl_compile_id c = *cid;
    c.has &= (uint8_t)~TL_CID_ATTEMPT;
    c.attempt = 0;
    const char *id = cid_text(d, &c);
    for (uint32_t i = 0; i < f->ngraphs; i++)
        if (f->graphs[i].cid == id)
            return &f->graphs[i];
    if (f->ngraphs == TL_DIAG_MAX_CIDS)
        return NULL;
    if (!f->graphs)
        f->graphs = tl_arena_calloc(&d->arena, TL_DIAG_MAX_CIDS, sizeof(*f->graphs));
    struct tl_diag_fgraph *g = &f->graphs[f->ngraphs++];
    g->cid = id;
    return g;
}

void tl_diag_graph_hash(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str hash)
{
    struct tl_diag_fgraph *g = fgraph_of(d, cid);
    if (g)
        g->hash = intern(d, trim(hash));
}

void tl_diag_frame_stack(struct tl_diag *d, const struct tl_compile_id *cid,
                         const struct tl_diag_fact_loc *callers, size_t n)
{
    if (!cid || !(cid->has & TL_CID_FRAME))
        return;
    struct tl_diag_frame *f = frame_of(d, cid);
    if (f->stack)
        return;
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = n > TL_DIAG_MAX_CALLERS ? n - TL_DIAG_MAX_CALLERS : 0; i < n; i++) {
        const struct tl_diag_fact_loc *l = &callers[i];
        if (b.len)
            tl_buf_addch(&b, '\n');
        tl_buf_add(&b, l->file.p ? l->file.p : "?", l->file.p ? l->file.n : 1);
        tl_buf_addf(&b, ":%u in ", l->line);
        tl_buf_add(&b, l->function.p ? l->function.p : "?", l->function.p ? l->function.n : 1);
    }
    /* An empty stack is known too: the frame was called from outside Python code. */
    f->stack = b.len ? intern(d, tl_buf_str(&b)) : "";
    tl_buf_release(&b);
}

void tl_diag_compile_time(struct tl_diag *d, const struct tl_compile_id *cid, double seconds)
{
    if (!(seconds >= 0)) /* NaN too */
        return;
    d->have_times = true;
    d->total_s += seconds;
    struct tl_diag_time t = {cid_text(d, cid), NULL, seconds};
    if (cid && (cid->has & TL_CID_FRAME)) {
        struct tl_diag_frame *f = frame_of(d, cid);
        t.function = f->function;
        f->seconds += seconds;
        f->have_time = true;
    }
    /* One compilation timed in parts (its attempts, [1/0_1] after [1/0]) is one entry, their
     * sum: taken out here and put back in its place below. */
    for (uint32_t i = 0; t.cid && i < d->nslowest; i++)
        if (d->slowest[i].cid == t.cid) {
            t.seconds += d->slowest[i].seconds;
            if (!t.function)
                t.function = d->slowest[i].function;
            memmove(&d->slowest[i], &d->slowest[i + 1],
                    (d->nslowest - i - 1) * sizeof(d->slowest[0]));
            d->nslowest--;
            break;
        }
    seconds = t.seconds;
    /* Keep the TL_DIAG_TOP slowest, slowest first. */
    uint32_t n = d->nslowest;
    if (n == TL_DIAG_TOP && seconds <= d->slowest[n - 1].seconds)
        return;
    uint32_t at = n < TL_DIAG_TOP ? n : n - 1;
    while (at > 0 && d->slowest[at - 1].seconds < seconds) {
        d->slowest[at] = d->slowest[at - 1];
        at--;
    }
    d->slowest[at] = t;
    if (n < TL_DIAG_TOP)
        d->nslowest++;
}

void tl_diag_graph(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str name,
                   uint64_t nodes)
{
    struct tl_diag_graph g = {cid_text(d, cid), intern(d, trim(name)), nodes};
    struct tl_diag_fgraph *fg = fgraph_of(d, cid);
    if (fg) {
        fg->nodes = nodes;
        fg->has_nodes = true;
    }
    /* A compile id logged again (another attempt, another process) is the same graph. */
    for (uint32_t i = 0; i < d->nlargest; i++) {
        if (d->largest[i].cid == g.cid && d->largest[i].name == g.name) {
            if (nodes <= d->largest[i].nodes)
                return;
            memmove(&d->largest[i], &d->largest[i + 1],
                    (d->nlargest - i - 1) * sizeof(d->largest[0]));
            d->nlargest--;
            d->ngraphs--;
            break;
        }
    }
    d->ngraphs++;
    uint32_t n = d->nlargest;
    if (n == TL_DIAG_TOP && nodes <= d->largest[n - 1].nodes)
        return;
    uint32_t at = n < TL_DIAG_TOP ? n : n - 1;
    while (at > 0 && d->largest[at - 1].nodes < nodes) {
        d->largest[at] = d->largest[at - 1];
        at--;
    }
    d->largest[at] = g;
    if (n < TL_DIAG_TOP)
        d->nlargest++;
}

/* "2.13.0+cpu", "2.6.0a0+git1234": its major and minor, 0 when they cannot be read */
static void version_numbers(struct tl_diag *d, struct tl_str version)
{
    uint32_t part[2] = {0, 0};
    size_t i = 0;
    for (int k = 0; k < 2; k++) {
        size_t start = i;
        while (i < version.n && version.p[i] >= '0' && version.p[i] <= '9' && part[k] < 100000)
            part[k] = part[k] * 10 + (uint32_t)(version.p[i++] - '0');
        if (i == start || (k == 0 && (i >= version.n || version.p[i++] != '.')))
            return;
    }
    d->torch_major = part[0];
    d->torch_minor = part[1];
}

void tl_diag_pytorch_version(struct tl_diag *d, struct tl_str version, bool firm)
{
    if (!version.p || !version.n || d->pytorch_version_firm)
        return;
    if (version.n > 100) /* a version, not a text: keep the page's line short */
        version.n = 100;
    if (d->pytorch_version && !firm)
        return;
    d->pytorch_version = intern(d, version);
    d->pytorch_version_firm = firm;
    d->torch_major = d->torch_minor = 0;
    version_numbers(d, trim(version));
}

void tl_diag_cache(struct tl_diag *d, int kind, int result)
{
    if (kind < 0 || kind > 1 || result < 0 || result > 2)
        return;
    d->cache[kind][result]++;
    d->have_cache = true;
}

/* ---- recompiles ----------------------------------------------------------------------------- */

static void straight_quotes(struct tl_buf *out, struct tl_str s)
{
    for (size_t i = 0; i < s.n; i++) {
        /* U+2018 and U+2019 (E2 80 98 / 99): an old forum paste's ‘L[‘x’]’ */
        if (i + 2 < s.n && (unsigned char)s.p[i] == 0xE2 && (unsigned char)s.p[i + 1] == 0x80 &&
            ((unsigned char)s.p[i + 2] == 0x98 || (unsigned char)s.p[i + 2] == 0x99)) {
            tl_buf_addch(out, '\'');
            i += 2;
        } else {
            tl_buf_addch(out, s.p[i]);
        }
    }
}

/* "0/3: ..." -> "..." */
static struct tl_str drop_cid(struct tl_str s)
{
    size_t i = 0;
    if (i < s.n && s.p[i] == '!')
        i++;
    bool digits = false, slash = false;
    for (; i < s.n; i++) {
        char c = s.p[i];
        if (c >= '0' && c <= '9')
            digits = true;
        else if (c == '/' || c == '_')
            slash = slash || c == '/';
        else
            break;
    }
    if (digits && slash && i + 1 < s.n && s.p[i] == ':' && s.p[i + 1] == ' ')
        return tl_str_make(s.p + i + 2, s.n - i - 2);
    return s;
}

/*
 * A failing guard as PyTorch printed it, without what it appends: its first line only (2.13
 * follows it with "User stack trace:" and the user's frames), and neither the padding to 60
 * columns nor "# CODE  # FILE:LINE in FN" after it (guards.py's verbose code part), whose
 * "  # " starts outside a quoted string (a guard's own strings may hold one).
 */
static struct tl_str guard_text(struct tl_str g)
{
    g = trim(g);
    const char *nl = g.n ? memchr(g.p, '\n', g.n) : NULL;
    if (nl)
        g.n = (size_t)(nl - g.p);
    return trim(tl_pytext_guard_code(g));
}

void tl_diag_guard_key(struct tl_str guard, struct tl_buf *key, struct tl_buf *value)
{
    struct tl_buf norm = TL_BUF_INIT;
    straight_quotes(&norm, trim(drop_cid(guard_text(guard))));
    struct tl_str g = tl_buf_str(&norm);
    /* A source comment after the guard ("== 200 # elif is") is not part of it. */
    long hash = tl_str_find(g, " #");
    if (hash > 0)
        g = trim(tl_str_make(g.p, (size_t)hash));
    long at;
    struct tl_advice_vars v;
    tl_advice_guard_vars(g, &v);
    if ((at = tl_str_find(g, ". expected ")) >= 0 && tl_str_find(g, "mismatch") >= 0) {
        tl_buf_add(key, g.p, (size_t)at);
        /* both sides: what the compiled code expected and what the call had */
        tl_buf_add(value, g.p + at + 2, g.n - (size_t)at - 2);
    } else if (v.value.p) {
        size_t pre = (size_t)(v.value.p - g.p);
        tl_buf_add(key, g.p, pre);
        tl_buf_adds(key, "<value>");
        tl_buf_add(key, v.value.p + v.value.n, g.n - pre - v.value.n);
        tl_buf_addstr(value, v.value);
    } else if ((at = tl_str_find(g, "___check_obj_id(")) >= 0 ||
               (at = tl_str_find(g, "___check_type_id(")) >= 0) {
        /* the last argument is an address */
        const char *comma = NULL;
        for (const char *p = g.p + at; p < g.p + g.n && *p != ')'; p++)
            if (*p == ',')
                comma = p;
        const char *close = comma ? memchr(comma, ')', (size_t)(g.p + g.n - comma)) : NULL;
        if (comma && close) {
            tl_buf_add(key, g.p, (size_t)(comma + 2 - g.p));
            tl_buf_adds(key, "<id>");
            tl_buf_add(key, close, (size_t)(g.p + g.n - close));
            tl_buf_addstr(value, trim(tl_str_make(comma + 1, (size_t)(close - comma - 1))));
        } else {
            tl_buf_addstr(key, g);
        }
    } else {
        tl_buf_addstr(key, g);
    }
    tl_buf_release(&norm);
}

static struct tl_diag_recompile *recompile_of(struct tl_diag *d, const struct tl_diag_loc *where,
                                              const char *function)
{
    struct tl_buf key = TL_BUF_INIT;
    tl_buf_addf(&key, "%s\n%s\n%u", function ? function : "", where->file ? where->file : "",
                where->line);
    uint32_t i = slot(d, 'R', tl_buf_str(&key), d->nrecompiles, true) - 1;
    tl_buf_release(&key);
    if (i == d->nrecompiles) {
        TL_GROW(d->recompiles, d->nrecompiles + 1, d->recompiles_alloc);
        memset(&d->recompiles[i], 0, sizeof(d->recompiles[i]));
        d->recompiles[i].function = function;
        d->recompiles[i].where = *where;
        d->recompiles[i].log_line = d->at_line;
        d->nrecompiles++;
    }
    d->recompiles[i].seq = ++d->seq;
    return &d->recompiles[i];
}

/* Count a failing guard (once per recompile) and record its value. */
static void add_guard(struct tl_diag *d, struct tl_diag_recompile *r, struct tl_str text,
                      bool count)
{
    struct tl_buf key = TL_BUF_INIT, value = TL_BUF_INIT;
    tl_diag_guard_key(text, &key, &value);
    if (!key.len) {
        tl_buf_release(&key);
        tl_buf_release(&value);
        return;
    }
    const char *k = intern(d, tl_buf_str(&key));
    struct tl_diag_guard *g = NULL;
    for (uint32_t i = 0; i < r->nguards && !g; i++)
        if (r->guards[i].guard == k)
            g = &r->guards[i];
    if (!g) {
        TL_GROW(r->guards, r->nguards + 1, r->guards_alloc);
        g = &r->guards[r->nguards++];
        memset(g, 0, sizeof(*g));
        g->guard = k;
        struct tl_buf ex = TL_BUF_INIT;
        straight_quotes(&ex, trim(drop_cid(guard_text(text))));
        g->example = intern(d, tl_buf_str(&ex));
        tl_buf_release(&ex);
        g->advice = tl_advice_match(TL_ADVICE_GUARD, tl_str_cstr(g->example));
    }
    if (count)
        g->count++;
    const char *v = intern(d, tl_buf_str(&value));
    strs_add(d, &g->values, v, TL_DIAG_MAX_VALUES);
    if (v)
        g->last_value = v;
    tl_buf_release(&key);
    tl_buf_release(&value);
}

void tl_diag_recompile(struct tl_diag *d, const struct tl_compile_id *cid,
                       const struct tl_diag_fact_loc *function, const struct tl_str *guards,
                       size_t nguards)
{
    struct tl_diag_loc where = loc_of(d, function);
    if (cid && (cid->has & TL_CID_FRAME)) {
        tl_diag_compile(d, cid, function);
        struct tl_diag_frame *f = frame_of(d, cid);
        if (!where.function && f->function)
            where = f->where;
    }
    struct tl_diag_recompile *r = recompile_of(d, &where, where.function);
    r->count++;
    uint32_t e = cid ? slot(d, 'E', tl_str_cstr(cid_text(d, cid)), 0, false) : 0;
    if (e && !d->early[e - 1].counted) {
        d->early[e - 1].counted = true;
        r->early++;
    }
    ranks_add(d, &r->ranks);
    if (function && !r->resume_line)
        r->resume_line = tl_pytext_resume_line(trim(function->function));
    strs_add(d, &r->cids, cid_text(d, cid), TL_DIAG_MAX_CIDS);
    /* The guards of one recompile name each earlier compile id whose check failed, often with
     * the same guard against another value: one reason of this recompile, with all its values
     * (for `c == 1.5`, the value each earlier compilation was made for). */
    const char **seen = tl_xcalloc(nguards ? nguards : 1, sizeof(*seen));
    size_t nseen = 0;
    for (size_t i = 0; i < nguards; i++) {
        struct tl_buf key = TL_BUF_INIT, value = TL_BUF_INIT;
        tl_diag_guard_key(guards[i], &key, &value);
        const char *k = intern(d, tl_buf_str(&key));
        bool dup = false;
        for (size_t j = 0; j < nseen && !dup; j++)
            dup = seen[j] == k;
        if (k && !dup)
            seen[nseen++] = k;
        if (k)
            add_guard(d, r, guards[i], !dup);
        tl_buf_release(&key);
        tl_buf_release(&value);
    }
    free(seen);
    struct tl_str last = tl_diag_last_reason(d, guards, nguards);
    if (last.p) {
        struct tl_buf b = TL_BUF_INIT;
        straight_quotes(&b, trim(drop_cid(guard_text(last))));
        r->last_reason = intern(d, tl_buf_str(&b));
        tl_buf_release(&b);
    }
}

/* The log is known to come from PyTorch 2.7 or later (2.13 logs differ from 2.6 in what the
 * callers check; a log that does not say its version is taken as the older). */
static bool torch_2_7_on(const struct tl_diag *d)
{
    return d->torch_major > 2 || (d->torch_major == 2 && d->torch_minor >= 7);
}

struct tl_str tl_diag_last_reason(const struct tl_diag *d, const struct tl_str *guards, size_t n)
{
    if (!n)
        return TL_STR_NULL;
    return torch_2_7_on(d) ? guards[0] : guards[n - 1];
}

void tl_diag_recompile_early(struct tl_diag *d, const struct tl_compile_id *cid,
                             const struct tl_str *guards, size_t nguards)
{
    if (!cid || !(cid->has & TL_CID_FRAME))
        return;
    const char *id = cid_text(d, cid);
    uint32_t i = slot(d, 'E', tl_str_cstr(id), d->nearly, true) - 1;
    if (i != d->nearly)
        return; /* said already (another attempt of the same compilation) */
    TL_GROW(d->early, d->nearly + 1, d->early_alloc);
    struct tl_diag_early *e = &d->early[d->nearly++];
    memset(e, 0, sizeof(*e));
    e->seq = ++d->seq;
    e->cid = id;
    /* The function of the frame's earlier compilation; the recompile is counted under the
     * same one when its metrics give it. */
    struct tl_buf fk = TL_BUF_INIT;
    frame_key(&fk, cid);
    uint32_t fi = slot(d, 'F', tl_buf_str(&fk), 0, false); /* looked up, not made */
    tl_buf_release(&fk);
    const struct tl_diag_frame *f = fi ? &d->frames[fi - 1] : NULL;
    if (f && f->function) {
        e->function = f->function;
        e->where = f->where;
    }
    struct tl_buf key = TL_BUF_INIT;
    tl_buf_addf(&key, "%s\n%s\n%u", e->function ? e->function : "",
                e->where.file ? e->where.file : "", e->where.line);
    uint32_t r = e->function ? slot(d, 'R', tl_buf_str(&key), 0, false) : 0;
    tl_buf_release(&key);
    e->compiles = (r ? d->recompiles[r - 1].count : 0) + 2;
    /* Its first guard, grouped as a recompile's guards are. */
    struct tl_diag_recompile tmp;
    memset(&tmp, 0, sizeof(tmp));
    for (size_t k = 0; k < nguards && !tmp.nguards; k++)
        add_guard(d, &tmp, guards[k], true);
    if (tmp.nguards) {
        e->guard = tmp.guards[0].guard;
        e->example = tmp.guards[0].example;
        e->value = tmp.guards[0].last_value;
        e->advice = tmp.guards[0].advice;
    }
    free(tmp.guards);
}

void tl_diag_recompile_caller(struct tl_diag *d, const struct tl_compile_id *cid,
                              const struct tl_diag_fact_loc *function,
                              const struct tl_diag_fact_loc *called_from)
{
    struct tl_diag_loc where = loc_of(d, function);
    if (!where.function && cid && (cid->has & TL_CID_FRAME) && frame_of(d, cid)->function)
        where = frame_of(d, cid)->where;
    uint32_t i = 0;
    struct tl_buf key = TL_BUF_INIT;
    tl_buf_addf(&key, "%s\n%s\n%u", where.function ? where.function : "",
                where.file ? where.file : "", where.line);
    i = slot(d, 'R', tl_buf_str(&key), 0, false);
    tl_buf_release(&key);
    if (i && !d->recompiles[i - 1].called_from.file)
        d->recompiles[i - 1].called_from = loc_of(d, called_from);
}

/* ---- restarts ------------------------------------------------------------------------------- */

struct tl_str tl_diag_restart_kind(struct tl_str reason)
{
    return tl_pytext_restart_kind(reason);
}

void tl_diag_restart(struct tl_diag *d, const struct tl_compile_id *cid,
                     const struct tl_diag_fact_loc *function,
                     const struct tl_diag_fact_loc *called_from, struct tl_str reason,
                     const struct tl_str *what, size_t nwhat)
{
    if (cid)
        tl_diag_compile_id(d, cid);
    struct tl_str k = tl_diag_restart_kind(reason);
    const char *kind = intern(d, k.n ? k : trim(reason));
    struct tl_diag_loc where = loc_of(d, function);
    struct tl_buf key = TL_BUF_INIT;
    tl_buf_addf(&key, "%s\n%s\n%s\n%u", kind ? kind : "", where.function ? where.function : "",
                where.file ? where.file : "", where.line);
    uint32_t i = slot(d, 'T', tl_buf_str(&key), d->nrestarts, true) - 1;
    tl_buf_release(&key);
    if (i == d->nrestarts) {
        TL_GROW(d->restarts, d->nrestarts + 1, d->restarts_alloc);
        struct tl_diag_restart *n = &d->restarts[i];
        memset(n, 0, sizeof(*n));
        n->seq = ++d->seq;
        n->kind = kind;
        n->reason = intern(d, trim(reason));
        n->function = where.function;
        n->where = where;
        n->log_line = d->at_line;
        n->advice = tl_advice_match(TL_ADVICE_RESTART, tl_str_cstr(kind ? kind : ""));
        d->nrestarts++;
    }
    struct tl_diag_restart *r = &d->restarts[i];
    r->count++;
    ranks_add(d, &r->ranks);
    if (called_from && !r->called_from.file)
        r->called_from = loc_of(d, called_from);
    strs_add(d, &r->cids, cid_text(d, cid), TL_DIAG_MAX_CIDS);
    for (size_t j = 0; j < nwhat; j++)
        strs_add(d, &r->what, intern(d, trim(what[j])), TL_DIAG_MAX_VALUES);
}

/* ---- graph breaks, failures, limits, specializations ------------------------------------- */

/* The reason of a graph break as it is grouped: its first line, addresses taken out, without
 * the exception's name that the TORCH_LOGS text and the break artifacts put before it
 * ("Unsupported: Tensor.item") nor the quotes a restart reason keeps ("'skip function ...'"). */
static const char *break_key(struct tl_diag *d, struct tl_str reason)
{
    reason = trim(reason);
    const char *nl = reason.n ? memchr(reason.p, '\n', reason.n) : NULL; /* p may be NULL */
    if (nl)
        reason.n = (size_t)(nl - reason.p);
    if (tl_str_has_prefix(reason, "Unsupported: "))
        reason = trim(tl_str_make(reason.p + 13, reason.n - 13));
    if (reason.n >= 2 && reason.p[0] == '\'' && reason.p[reason.n - 1] == '\'' &&
        !memchr(reason.p + 1, '\'', reason.n - 2))
        reason = tl_str_make(reason.p + 1, reason.n - 2);
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = 0; i < reason.n; i++) {
        if (i + 2 < reason.n && reason.p[i] == '0' && reason.p[i + 1] == 'x') {
            size_t j = i + 2;
            while (j < reason.n && ((reason.p[j] >= '0' && reason.p[j] <= '9') ||
                                    (reason.p[j] >= 'a' && reason.p[j] <= 'f')))
                j++;
            if (j > i + 2) {
                tl_buf_adds(&b, "0x...");
                i = j - 1;
                continue;
            }
        }
        tl_buf_addch(&b, reason.p[i]);
    }
    struct tl_buf q = TL_BUF_INIT;
    straight_quotes(&q, trim(tl_buf_str(&b)));
    const char *s = intern(d, tl_buf_str(&q));
    tl_buf_release(&b);
    tl_buf_release(&q);
    return s;
}

bool tl_diag_framework_file(struct tl_str f)
{
    if (!f.p || !f.n) /* unknown: nobody's */
        return false;
    if (f.p[0] == '<') /* <frozen runpy>, <string> */
        return true;
    if (tl_str_find(f, "/torch/") >= 0 || tl_str_find(f, "\\torch\\") >= 0)
        return true;
    return tl_str_find(f, "/lib/python") >= 0 && tl_str_find(f, "-packages/") < 0;
}

#define TRACING "Encountered graph break when attempting to trace "

/* "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html" -> "GB0124" */
static const char *gb_id_of(struct tl_diag *d, struct tl_str url)
{
    char id[16];
    size_t n = tl_pytext_gb_id(url, id);
    return n ? intern(d, tl_str_make(id, n)) : NULL;
}

const char *tl_diag_hint_category(const char *hint)
{
    /* the start of each of graph_break_hints.py's lists */
    static const struct {
        const char *start, *category;
    } kinds[] = {
        {"This graph break is fundamental", "fundamental"},
        {"It may be possible to write Dynamo tracing rules", "supportable"},
        {"Your code may result in an error when running in eager", "user_error"},
        {"This is likely to be a Dynamo bug", "dynamo_bug"},
        {"This graph break may be difficult to debug", "difficult"},
        {"This graph break may have been caused by an earlier graph break",
         "caused_by_earlier_graph_break"},
    };
    for (size_t i = 0; hint && i < TL_ARRAY_LEN(kinds); i++)
        if (!strncmp(hint, kinds[i].start, strlen(kinds[i].start)))
            return kinds[i].category;
    return NULL;
}

void tl_diag_graph_break(struct tl_diag *d, const struct tl_compile_id *cid,
                         const struct tl_diag_fact_break *fact)
{
    /* Where it broke: the traceback's innermost frame; inside PyTorch, the user's line that
     * led there. */
    struct tl_diag_fact_break bb = *fact;
    const struct tl_diag_fact_break *b = &bb;
    bool in_framework = false;
    struct tl_diag_fact_loc inside;
    memset(&inside, 0, sizeof(inside));
    if (fact->nstack) {
        const struct tl_diag_fact_loc *inner = &fact->stack[fact->nstack - 1];
        if (tl_diag_framework_file(inner->file)) {
            in_framework = true;
            inside = *inner;
            for (size_t i = fact->nstack; i > 0; i--)
                if (!tl_diag_framework_file(fact->stack[i - 1].file)) {
                    bb.where = fact->stack[i - 1];
                    break;
                }
        } else {
            bb.where = *inner;
        }
    }
    /* PyTorch 2.7 on names it by its type (and the graph-break site by an id): "Encountered
     * graph break when attempting to trace CALL: ..." is only what dynamo was doing. */
    const char *type = break_key(d, b->type);
    const char *gb_id = type ? gb_id_of(d, trim(b->url)) : NULL;
    const char *reason = type ? type : break_key(d, b->reason);
    if (reason && !strcmp(reason, "graph break in loop")) {
        /* PyTorch 2.13's second break of a break inside a loop: not a break of its own, but
         * why the frame was skipped */
        tl_diag_frame_skipped(d, cid, true);
        return;
    }
    if (!reason)
        reason = "(no reason given)";
    if (cid)
        tl_diag_compile_id(d, cid);
    /* A break inside PyTorch is its own finding: its advice differs from the user's own. */
    struct tl_buf bkey = TL_BUF_INIT;
    tl_buf_addf(&bkey, "%c%s\n%s", in_framework ? 'P' : 'U', gb_id ? gb_id : "", reason);
    uint32_t i = slot(d, 'B', tl_buf_str(&bkey), d->nbreaks, true) - 1;
    tl_buf_release(&bkey);
    if (i == d->nbreaks) {
        TL_GROW(d->breaks, d->nbreaks + 1, d->breaks_alloc);
        struct tl_diag_break *n = &d->breaks[i];
        memset(n, 0, sizeof(*n));
        n->seq = ++d->seq;
        n->reason = reason;
        n->type = type;
        n->gb_id = gb_id;
        struct tl_str r = trim(b->reason);
        if (type && tl_str_has_prefix(r, TRACING)) {
            const char *nl = memchr(r.p, '\n', r.n);
            r = trim(tl_str_make(r.p + strlen(TRACING),
                                 (size_t)((nl ? nl : r.p + r.n) - r.p) - strlen(TRACING)));
            if (tl_str_has_suffix(r, ":"))
                r.n--;
            n->context = intern(d, r);
        }
        /* Match on what PyTorch said it is: the reason (its type) and explanation; only when
         * they match no rule of their own, on its hints too (a hint names what to change,
         * which may be another thing than what broke: "move it out of the context manager"). */
        enum tl_advice_table table =
            in_framework ? TL_ADVICE_FRAMEWORK_BREAK : TL_ADVICE_GRAPH_BREAK;
        struct tl_buf all = TL_BUF_INIT;
        tl_buf_addf(&all, "%s\n%.*s", reason, (int)b->explanation.n,
                    b->explanation.p ? b->explanation.p : "");
        n->advice = tl_advice_match(table, tl_buf_str(&all));
        bool generic = n->advice == tl_advice_match(table, tl_str_cstr(""));
        for (size_t k = 0; k < b->nhints; k++)
            tl_buf_addf(&all, "\n%.*s", (int)b->hints[k].n, b->hints[k].p ? b->hints[k].p : "");
        const struct tl_advice *hinted = tl_advice_match(table, tl_buf_str(&all));
        /* the hints may also name the setting of the version that wrote the log: a rule of
         * the same kind that says it (ignore_logging_functions, not ignore_logger_methods) */
        if (generic || !strcmp(hinted->category, n->advice->category))
            n->advice = hinted;
        n->in_framework = in_framework;
        if (in_framework)
            n->inside = loc_of(d, &inside);
        n->log_line = d->at_line;
        tl_buf_release(&all);
        d->nbreaks++;
    }
    struct tl_diag_break *g = &d->breaks[i];
    g->count++;
    ranks_add(d, &g->ranks);
    if (!g->explanation)
        g->explanation = intern(d, trim(b->explanation));
    if (!g->nhints) {
        for (size_t k = 0; k < b->nhints && g->nhints < TL_DIAG_MAX_HINTS; k++) {
            const char *h = intern(d, trim(b->hints[k]));
            if (h)
                g->hints[g->nhints++] = h;
        }
        g->hint = g->nhints ? g->hints[0] : NULL;
    }
    if (!g->url)
        g->url = intern(d, trim(b->url));
    if (!g->debug_context)
        g->debug_context = intern(d, trim(b->debug_context));
    g->fell_back = g->fell_back || b->fell_back;
    strs_add(d, &g->cids, cid_text(d, cid), TL_DIAG_MAX_CIDS);
    struct tl_diag_loc l = loc_of(d, &b->where);
    if (!l.file && !l.function)
        return;
    for (uint32_t k = 0; k < g->nlocs; k++)
        if (loc_eq(&g->locs[k], &l)) {
            g->loc_counts[k]++;
            return;
        }
    if (g->nlocs < TL_DIAG_MAX_LOCS) {
        g->loc_counts[g->nlocs] = 1;
        g->locs[g->nlocs++] = l;
    }
}

/* A failure's reason without what PyTorch appends to every one ("Set TORCH_LOGS=\"+dynamo\"
 * and TORCHDYNAMO_VERBOSE=1 for more information", "You can suppress this exception and fall
 * back to eager by setting: ..."): the same lines in every finding tell nothing; the advice says
 * what to do. */
static struct tl_str without_boilerplate(struct tl_str r)
{
    static const char *const tails[] = {"Set TORCH_LOGS=", "You can suppress this exception"};
    if (!r.p)
        return r;
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        for (long from = 0;;) {
            long at = tl_str_find(tl_str_make(r.p + from, r.n - (size_t)from), tails[i]);
            if (at < 0)
                break;
            at += from;
            if (at > 0 && r.p[at - 1] == '\n') { /* at the start of a line, after the message */
                r = trim(tl_str_make(r.p, (size_t)at));
                break;
            }
            from = at + 1;
        }
    }
    return r;
}

void tl_diag_failure(struct tl_diag *d, const struct tl_compile_id *cid,
                     const struct tl_diag_fact_failure *f)
{
    if (cid)
        tl_diag_compile_id(d, cid);
    /* PyTorch 2.13 records a frame skipped for a graph break in a loop as a failed compilation
     * (Unsupported "graph break in loop"): the frame ran in eager mode, nothing failed. */
    if (tl_str_find(f->reason, "graph break in loop") >= 0 ||
        tl_str_find(f->reason, "graph breaks in loops are not supported") >= 0) {
        tl_diag_frame_skipped(d, cid, true);
        return;
    }
    const char *id = cid_text(d, cid);
    const char *type = intern(d, trim(f->type));
    const char *reason = intern(d, without_boilerplate(trim(f->reason)));
    /* The same failure reported twice (a trace's metrics and its error artifact) is one. */
    for (uint32_t i = 0; i < d->nfailures; i++) {
        struct tl_diag_failure *x = &d->failures[i];
        if (x->cid == id && x->backward == f->backward && (x->type == type || !type)) {
            x->fell_back_to_eager = x->fell_back_to_eager || f->fell_back_to_eager;
            if (!x->reason)
                x->reason = reason;
            ranks_add(d, &x->ranks);
            return;
        }
    }
    TL_GROW(d->failures, d->nfailures + 1, d->failures_alloc);
    struct tl_diag_failure *x = &d->failures[d->nfailures++];
    memset(x, 0, sizeof(*x));
    x->seq = ++d->seq;
    x->cid = id;
    x->type = type;
    x->reason = reason;
    x->where = loc_of(d, &f->where);
    x->fell_back_to_eager = f->fell_back_to_eager;
    x->backward = f->backward;
    x->forward_node = intern(d, trim(f->forward_node));
    x->forward_where = loc_of(d, &f->forward_where);
    x->log_line = d->at_line;
    ranks_add(d, &x->ranks);
    struct tl_buf all = TL_BUF_INIT;
    tl_buf_addf(&all, "%s\n%s\n%.*s", type ? type : "", reason ? reason : "", (int)f->kernel.n,
                f->kernel.p ? f->kernel.p : "");
    x->advice = tl_advice_match(TL_ADVICE_FAILURE, tl_buf_str(&all));
    tl_buf_release(&all);
}

void tl_diag_frame_skipped(struct tl_diag *d, const struct tl_compile_id *cid, bool loop)
{
    const char *id = cid_text(d, cid);
    if (!id)
        return;
    tl_diag_compile_id(d, cid);
    struct tl_map_entry *e = tl_map_upsert(&d->skipped, tl_str_cstr(id), NULL);
    e->value = (void *)((uintptr_t)e->value | TL_DIAG_SKIPPED | (loop ? TL_DIAG_SKIPPED_LOOP : 0));
}

void tl_diag_limit(struct tl_diag *d, const struct tl_compile_id *cid,
                   const struct tl_diag_fact_loc *function, struct tl_str limit_name,
                   uint64_t limit, struct tl_str last_reason)
{
    if (cid)
        tl_diag_compile_id(d, cid);
    struct tl_diag_loc where = loc_of(d, function);
    /* Without a function given, the function of cid's frame. */
    if (!where.function && !where.file && cid && (cid->has & TL_CID_FRAME)) {
        where = frame_of(d, cid)->where;
        where.def = true;
    }
    for (uint32_t i = 0; i < d->nlimits; i++)
        if (d->limits[i].where.function == where.function &&
            d->limits[i].where.file == where.file) {
            ranks_add(d, &d->limits[i].ranks);
            return; /* said once is enough */
        }
    TL_GROW(d->limits, d->nlimits + 1, d->limits_alloc);
    struct tl_diag_limit *x = &d->limits[d->nlimits++];
    memset(x, 0, sizeof(*x));
    x->seq = ++d->seq;
    x->function = where.function;
    x->where = where;
    x->limit_name = intern(d, trim(limit_name));
    if (!d->recompile_limit_name && x->limit_name &&
        (!strcmp(x->limit_name, "recompile_limit") || !strcmp(x->limit_name, "cache_size_limit")))
        d->recompile_limit_name =
            !strcmp(x->limit_name, "recompile_limit") ? "recompile_limit" : "cache_size_limit";
    x->limit = limit;
    struct tl_buf reason = TL_BUF_INIT;
    straight_quotes(&reason, trim(drop_cid(guard_text(last_reason))));
    x->last_reason = intern(d, tl_buf_str(&reason));
    tl_buf_release(&reason);
    x->cid = cid_text(d, cid);
    x->log_line = d->at_line;
    ranks_add(d, &x->ranks);
    x->advice = tl_advice_match(TL_ADVICE_LIMIT, tl_str_cstr(x->limit_name ? x->limit_name : ""));
    if (x->last_reason)
        x->reason_advice = tl_advice_match(TL_ADVICE_GUARD, tl_str_cstr(x->last_reason));
}

/* ---- the PyTorch that wrote the log ------------------------------------------------------- */

const char *tl_diag_limit_setting(const struct tl_diag *d)
{
    if (d->recompile_limit_name)
        return d->recompile_limit_name;
    /* renamed in PyTorch 2.7 */
    if (d->torch_major && (d->torch_major < 2 || (d->torch_major == 2 && d->torch_minor < 7)))
        return "cache_size_limit";
    return "recompile_limit";
}

void tl_diag_symbol(struct tl_diag *d, struct tl_str symbol, struct tl_str source)
{
    symbol = trim(symbol);
    if (!symbol.n)
        return;
    tl_map_put(&d->symbols, symbol, (void *)intern(d, trim(source)));
}

void tl_diag_dynamic(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str symbol,
                     struct tl_str value, struct tl_str source, struct tl_str range,
                     const struct tl_diag_fact_loc *where)
{
    if (cid)
        tl_diag_compile_id(d, cid);
    struct tl_diag_dynamic x = {intern(d, trim(symbol)), intern(d, trim(value)),
                                intern(d, trim(source)), intern(d, trim(range)),
                                loc_of(d, where),        cid_text(d, cid)};
    for (uint32_t i = 0; i < d->ndynamic; i++)
        if (d->dynamic[i].symbol == x.symbol && d->dynamic[i].source == x.source &&
            d->dynamic[i].cid == x.cid)
            return;
    d->ndynamic_all++;
    shapes_add(d, x.cid);
    if (d->ndynamic < TL_DIAG_MAX_CIDS)
        d->dynamic[d->ndynamic++] = x;
}

const char *tl_diag_symbol_source(const struct tl_diag *d, struct tl_str symbol)
{
    return tl_map_get(&d->symbols, trim(symbol));
}

/* expr with every symbol whose source is known replaced by it, or NULL when none is; and the
 * distinct symbols it names, with their sources, into syms (at most TL_DIAG_MAX_SYMS). */
static const char *readable(struct tl_diag *d, const char *expr, struct tl_diag_sym *syms,
                            uint32_t *nsyms)
{
    if (!expr)
        return NULL;
    struct tl_buf b = TL_BUF_INIT;
    bool changed = false;
    for (const char *p = expr; *p;) {
        size_t n = tl_symexpr_symbol_at(expr, p);
        if (n) {
            struct tl_str sym = tl_str_make(p, n);
            const char *src = tl_map_get(&d->symbols, sym);
            const char *name = intern(d, sym);
            bool seen = false;
            for (uint32_t i = 0; syms && i < *nsyms && !seen; i++)
                seen = syms[i].symbol == name;
            if (syms && !seen && *nsyms < TL_DIAG_MAX_SYMS)
                syms[(*nsyms)++] = (struct tl_diag_sym){name, src};
            if (src) {
                tl_buf_adds(&b, src);
                changed = true;
            } else {
                tl_buf_add(&b, p, n);
            }
            p += n;
            continue;
        }
        tl_buf_addch(&b, *p++);
    }
    const char *r = changed ? intern(d, tl_buf_str(&b)) : NULL;
    tl_buf_release(&b);
    return r;
}

void tl_diag_spec(struct tl_diag *d, const struct tl_compile_id *cid,
                  const struct tl_diag_fact_spec *s)
{
    if (cid)
        tl_diag_compile_id(d, cid);
    struct tl_diag_spec x;
    memset(&x, 0, sizeof(x));
    x.kind = s->kind;
    x.symbol = intern(d, trim(s->symbol));
    x.expr = intern(d, trim(s->expr));
    x.source = intern(d, trim(s->source));
    if (!x.source && x.symbol)
        x.source = tl_diag_symbol_source(d, s->symbol);
    x.value = intern(d, trim(s->value));
    x.range = intern(d, trim(s->range));
    if (x.kind == TL_SPEC_GUARD)
        x.readable = readable(d, x.expr, x.syms, &x.nsyms);
    else
        (void)readable(d, x.expr, x.syms, &x.nsyms);
    if (!x.nsyms && x.symbol) /* a specialization logged without its expression */
        x.syms[x.nsyms++] = (struct tl_diag_sym){x.symbol, x.source};
    x.where = loc_of(d, &s->where);
    x.cid = cid_text(d, cid);
    /* A Python float made a symbol (zf0) and then specialized to its value (PyTorch 2.13
     * guards Eq(zf8, 0.05) when inductor cannot make it a tensor input): no dimension, and
     * its restart and its recompiles tell it with the right advice. A guard that holds for
     * every size constrains nothing: no finding either. */
    bool floats = x.nsyms > 0;
    for (uint32_t k = 0; k < x.nsyms; k++)
        floats = floats && tl_symexpr_float_symbol(x.syms[k].symbol);
    if (floats || (x.kind == TL_SPEC_GUARD && tl_symexpr_always_holds(x.expr))) {
        shapes_add(d, x.cid);
        return;
    }
    /* One row per kind, symbol, expression and place; another compile id counts. */
    struct tl_buf key = TL_BUF_INIT;
    tl_buf_addf(&key, "%d\n%s\n%s\n%s\n%s\n%u", (int)x.kind, x.symbol ? x.symbol : "",
                x.expr ? x.expr : "", x.value ? x.value : "", x.where.file ? x.where.file : "",
                x.where.line);
    uint32_t i = slot(d, 'S', tl_buf_str(&key), d->nspecs, true) - 1;
    tl_buf_release(&key);
    shapes_add(d, x.cid);
    if (i < d->nspecs) {
        d->specs[i].count++;
        ranks_add(d, &d->specs[i].ranks);
        return;
    }
    struct tl_buf text = TL_BUF_INIT;
    tl_buf_addf(&text, "%s%s", x.kind == TL_SPEC_DUCK ? "duck sized " : "", x.expr ? x.expr : "");
    if (x.kind == TL_SPEC_SPECIALIZED && !x.expr)
        tl_buf_adds(&text, "Eq(");
    x.advice = tl_advice_match(TL_ADVICE_SHAPE, tl_buf_str(&text));
    tl_buf_release(&text);
    x.count = 1;
    x.log_line = d->at_line;
    ranks_add(d, &x.ranks);
    x.seq = ++d->seq;
    TL_GROW(d->specs, d->nspecs + 1, d->specs_alloc);
    d->specs[d->nspecs++] = x;
}

/* ---- export ------------------------------------------------------------------------------- */

void tl_diag_unbacked(struct tl_diag *d, struct tl_str symbol, const struct tl_diag_fact_loc *where)
{
    symbol = trim(symbol);
    if (!symbol.n)
        return;
    struct tl_diag_loc *l = tl_map_get(&d->unbacked, symbol);
    if (l && (l->file || l->function || l->code))
        return;
    if (!l) {
        l = tl_arena_alloc(&d->arena, sizeof(*l));
        tl_map_put(&d->unbacked, symbol, l);
    }
    *l = loc_of(d, where);
}

/* The unbacked symbols (u0, u12) of expr whose origin is known, each once. */
static void find_unbacked(struct tl_diag *d, struct tl_diag_export *x)
{
    if (!x->expr || !tl_map_len(&d->unbacked))
        return;
    for (const char *p = x->expr; *p && x->nunbacked < TL_DIAG_MAX_UNBACKED; p++) {
        if (*p != 'u' || (p > x->expr && tl_symexpr_ident_char(p[-1])) ||
            !(p[1] >= '0' && p[1] <= '9'))
            continue;
        const char *e = p + 1;
        while (*e >= '0' && *e <= '9')
            e++;
        if (tl_symexpr_ident_char(*e))
            continue;
        struct tl_str sym = tl_str_make(p, (size_t)(e - p));
        p = e - 1;
        const struct tl_diag_loc *where = tl_map_get(&d->unbacked, sym);
        if (!where || (!where->file && !where->function && !where->code))
            continue;
        const char *name = intern(d, sym);
        bool seen = false;
        for (uint32_t i = 0; i < x->nunbacked && !seen; i++)
            seen = x->unbacked[i].symbol == name;
        if (!seen) {
            x->unbacked[x->nunbacked].symbol = name;
            x->unbacked[x->nunbacked].where = *where;
            x->nunbacked++;
        }
    }
}

const char *tl_diag_export_kind_name(enum tl_export_problem_kind k)
{
    switch (k) {
    case TL_EXPORT_PROBLEM_DATA:
        return "data_dependent";
    case TL_EXPORT_PROBLEM_GUARD:
        return "guard_evaluated";
    case TL_EXPORT_PROBLEM_MISSING_FAKE:
        return "missing_fake_kernel";
    case TL_EXPORT_PROBLEM_MISMATCHED_FAKE:
        return "mismatched_fake_kernel";
    }
    return "export";
}

void tl_diag_export(struct tl_diag *d, const struct tl_compile_id *cid,
                    const struct tl_diag_fact_export *e)
{
    if (cid)
        tl_diag_compile_id(d, cid);
    struct tl_diag_export x;
    memset(&x, 0, sizeof(x));
    x.kind = e->kind;
    x.expr = intern(d, trim(e->expr));
    x.result = intern(d, trim(e->result));
    x.op = intern(d, trim(e->op));
    x.where = loc_of(d, &e->where);
    /* One row per kind, condition (or operator) and place: export evaluates the same guard
     * again for every use of the size, and draft export meets an operator on every call. A
     * mismatched kernel's reason names the sizes of one call, so it does not split the row. */
    struct tl_buf key = TL_BUF_INIT;
    tl_buf_addf(&key, "%d\n%s\n%s\n%s\n%s\n%u", (int)x.kind, x.expr ? x.expr : "",
                x.result ? x.result : "", x.op ? x.op : "", x.where.file ? x.where.file : "",
                x.where.line);
    uint32_t i = slot(d, 'E', tl_buf_str(&key), d->nexports, true) - 1;
    tl_buf_release(&key);
    if (i == d->nexports) {
        x.readable = readable(d, x.expr, NULL, NULL);
        find_unbacked(d, &x);
        x.log_line = d->at_line;
        x.advice = tl_advice_match(TL_ADVICE_EXPORT, tl_str_cstr(tl_diag_export_kind_name(x.kind)));
        x.seq = ++d->seq;
        TL_GROW(d->exports, d->nexports + 1, d->exports_alloc);
        d->exports[d->nexports++] = x;
    }
    struct tl_diag_export *g = &d->exports[i];
    g->count++;
    ranks_add(d, &g->ranks);
    if (!g->reason)
        g->reason = intern(d, trim(e->reason));
    /* An export outside torch.compile logs a compile id without parts: it names nothing. */
    if (cid && cid->has)
        strs_add(d, &g->cids, cid_text(d, cid), TL_DIAG_MAX_CIDS);
}
