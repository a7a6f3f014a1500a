/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The recompile forecast (diagnosis.h): for every frame compiled more than once, the guards
 * that differ between each of its cache entries and the one before (guard_diff.h), the
 * recompile limit the log gives (the limit's message, the dynamo config of the metrics, else
 * PyTorch's default), the recompiles left before it, and whether the frame ran in eager mode
 * because the limit was hit, Dynamo skipped it, or its compilation failed with suppress_errors.
 * Memory: per frame the guards of its last two entries and the differences kept, bounded.
 * Reads the diagnosis's own findings; calls nothing of diagnosis.c or diag_findings.c.
 */
#include "base/config.h"
#include "model/diagnosis.h"
#include "base/json.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/*
 * A guard text kept: the last entry of one or more frames, as logged (normalized only once a
 * later entry comes to be compared, since most frames are compiled once). Frames whose entries
 * logged the same text share it (a per-layer loop compiles the same guards for every layer's
 * frame), and all texts kept together stay under a budget: past it, the frames whose last
 * entry is oldest lose their text, and a later entry of theirs is counted, not compared.
 */
struct kept {
    uint64_t hash; /* tl_map_hash of text */
    uint32_t refs;
    size_t len;
    char text[];
};

/* A frame's guards as they come. */
struct fguards {
    const char *key;
    struct kept *prev; /* the last entry closed (prev_cid); NULL when none, or dropped */
    uint64_t prev_seq; /* when prev was kept (the order of drops) */
    const char *prev_cid;
    struct tl_buf cur_raw; /* the entry being given (a text log's lines still coming) */
    const char *cur_cid;
    bool open;
    uint32_t entries; /* entries closed */
    struct tl_diag_entry_diff *diffs;
    uint32_t ndiffs, ndiffs_all, diffs_alloc;
};

/* The guard texts kept, by hash (open addressing, linear probing, backward-shift deletion),
 * and the order they were kept in, oldest first, for dropping. */
struct kept_set {
    struct kept **slot;
    size_t nslots, n, bytes, budget;
    struct {
        struct fguards *g;
        uint64_t seq;
    } * order;
    size_t head, len, alloc;
    uint64_t seq;
};

struct tl_diag_forecast {
    struct tl_arena arena;   /* keys, compile ids, the differences closed */
    struct tl_arena scratch; /* the differences of open entries: reset by every finish */
    struct tl_map frames;    /* key -> struct fguards * */
    struct tl_map keys;      /* the frames' keys d->fframes names, kept for the diagnosis */
    struct kept_set kept;
    struct tl_diag_fframe *out;
    uint32_t nout, out_alloc;
    struct tl_diag_entry_diff *outdiffs; /* the tentative differences appended, per finish */
};

static struct tl_diag_forecast *forecast_of(struct tl_diag *d)
{
    if (!d->forecast) {
        struct tl_diag_forecast *f = tl_xcalloc(1, sizeof(*f));
        tl_arena_init(&f->arena, 16 * 1024);
        tl_arena_init(&f->scratch, 4 * 1024);
        tl_map_init(&f->frames, &f->arena);
        tl_map_init(&f->keys, &f->arena);
        f->kept.budget = d->guards_budget ? d->guards_budget : TL_DIAG_GUARDS_BUDGET;
        d->forecast = f;
    }
    return d->forecast;
}

void tl_diag_forecast_free(struct tl_diag *d)
{
    struct tl_diag_forecast *f = d->forecast;
    if (!f)
        return;
    for (size_t i = 0; i < tl_map_len(&f->frames); i++) {
        struct fguards *g = tl_map_at(&f->frames, i)->value;
        tl_buf_release(&g->cur_raw);
        free(g->diffs);
    }
    for (size_t i = 0; i < f->kept.nslots; i++)
        free(f->kept.slot[i]);
    free(f->kept.slot);
    free(f->kept.order);
    free(f->out);
    free(f->outdiffs);
    tl_map_release(&f->frames);
    tl_map_release(&f->keys);
    tl_arena_release(&f->scratch);
    tl_arena_release(&f->arena);
    free(f);
    d->forecast = NULL;
    d->fframes = NULL;
    d->nfframes = 0;
}

/* ---- the guard texts kept ----------------------------------------------------------------- */

static void kept_grow(struct kept_set *k)
{
    size_t n = k->nslots ? k->nslots * 2 : 64;
    struct kept **slot = tl_xcalloc(n, sizeof(*slot));
    for (size_t i = 0; i < k->nslots; i++) {
        struct kept *e = k->slot[i];
        if (!e)
            continue;
        size_t j = (size_t)e->hash & (n - 1);
        while (slot[j])
            j = (j + 1) & (n - 1);
        slot[j] = e;
    }
    free(k->slot);
    k->slot = slot;
    k->nslots = n;
}

/* The text kept for s, shared with those that logged the same (one more reference). */
static struct kept *kept_ref(struct kept_set *k, struct tl_str s)
{
    if ((k->n + 1) * 4 > k->nslots * 3)
        kept_grow(k);
    uint64_t h = tl_map_hash(s.p, s.n);
    size_t j = (size_t)h & (k->nslots - 1);
    for (struct kept *e; (e = k->slot[j]); j = (j + 1) & (k->nslots - 1))
        if (e->hash == h && e->len == s.n && !memcmp(e->text, s.p, s.n)) {
            e->refs++;
            return e;
        }
    struct kept *e = tl_xmalloc(sizeof(*e) + s.n + 1);
    e->hash = h;
    e->refs = 1;
    e->len = s.n;
    if (s.n)
        memcpy(e->text, s.p, s.n);
    e->text[s.n] = '\0';
    k->slot[j] = e;
    k->n++;
    k->bytes += s.n;
    return e;
}

/* One reference less; the text goes with the last. */
static void kept_unref(struct kept_set *k, struct kept *e)
{
    if (!e || --e->refs)
        return;
    size_t mask = k->nslots - 1, i = (size_t)e->hash & mask;
    while (k->slot[i] != e)
        i = (i + 1) & mask;
    /* backward shift: move up every later entry of the run that may take the hole */
    for (size_t j = (i + 1) & mask; k->slot[j]; j = (j + 1) & mask) {
        size_t home = (size_t)k->slot[j]->hash & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            k->slot[i] = k->slot[j];
            i = j;
        }
    }
    k->slot[i] = NULL;
    k->n--;
    k->bytes -= e->len;
    free(e);
}

/* g's last entry is text s from now on; texts of the frames kept longest are dropped while
 * the texts kept are over the budget (g's own is kept, whatever its size). */
static void keep_prev(struct kept_set *k, struct fguards *g, struct tl_str s)
{
    struct kept *e = kept_ref(k, s);
    kept_unref(k, g->prev);
    g->prev = e;
    g->prev_seq = ++k->seq;
    if (k->head > 64 && k->head * 2 > k->len) {
        memmove(k->order, k->order + k->head, (k->len - k->head) * sizeof(*k->order));
        k->len -= k->head;
        k->head = 0;
    }
    TL_GROW(k->order, k->len + 1, k->alloc);
    k->order[k->len].g = g;
    k->order[k->len].seq = g->prev_seq;
    k->len++;
    while (k->bytes > k->budget && k->head < k->len) {
        struct fguards *old = k->order[k->head].g;
        uint64_t seq = k->order[k->head].seq;
        if (old == g && seq == g->prev_seq)
            break; /* the newest: everything older has been dropped */
        k->head++;
        if (old->prev && old->prev_seq == seq) {
            kept_unref(k, old->prev);
            old->prev = NULL;
        }
    }
}

/* ---- compile ids --------------------------------------------------------------------------- */

/* "[0/2]" of cid (its attempt left out) and its frame "0" ("!1/0" under compiled autograd);
 * false without a frame. */
static bool cid_parts(const struct tl_compile_id *cid, struct tl_buf *display, struct tl_buf *frame)
{
    if (!cid || !(cid->has & TL_CID_FRAME))
        return false;
    struct tl_compile_id c = *cid;
    c.has &= (uint8_t)~TL_CID_ATTEMPT;
    c.attempt = 0;
    tl_cid_display(display, &c);
    if (c.has & TL_CID_CA)
        tl_buf_addf(frame, "!%u/", c.ca);
    tl_buf_addu(frame, c.frame);
    return true;
}

/* The frame ("0", "!1/0") and frame compile id of a compile id as displayed ("[0/2]",
 * "[!1/0/2_1]"); false for one without a frame ("[-/-]"). */
static bool display_parts(const char *s, struct tl_buf *frame, unsigned long *fcid)
{
    if (!s || s[0] != '[')
        return false;
    const char *p = s + 1;
    const char *close = strchr(p, ']');
    if (!close)
        return false;
    const char *last = NULL; /* the last '/' before ']' */
    for (const char *q = p; q < close; q++)
        if (*q == '/')
            last = q;
    if (!last || last == p || last[-1] == '-')
        return false;
    tl_buf_reset(frame);
    tl_buf_add(frame, p, (size_t)(last - p));
    char *end;
    *fcid = strtoul(last + 1, &end, 10);
    return end != last + 1;
}

static struct fguards *fguards_of(struct tl_diag_forecast *f, struct tl_str key)
{
    int created;
    struct tl_map_entry *e = tl_map_upsert(&f->frames, key, &created);
    if (created) {
        struct fguards *g = tl_arena_calloc(&f->arena, 1, sizeof(*g));
        g->key = e->key.p;
        tl_buf_init(&g->cur_raw, 0);
        e->value = g;
    }
    return e->value;
}

/* ---- entries ------------------------------------------------------------------------------- */

static void diff_into(struct tl_arena *arena, struct tl_diag_entry_diff *x,
                      const struct tl_guard_set *a, const struct tl_guard_set *b,
                      const char *against, const char *cid)
{
    struct tl_guard_change *c = tl_arena_calloc(arena, TL_DIAG_GUARD_CHANGES, sizeof(*c));
    size_t total = tl_guard_diff(a, b, c, TL_DIAG_GUARD_CHANGES, arena);
    x->cid = cid;
    x->against = against;
    x->changes = c;
    x->total = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
    x->n = x->total < TL_DIAG_GUARD_CHANGES ? x->total : TL_DIAG_GUARD_CHANGES;
}

/* The differences of entry cur (text) from g's entry before, into x; false when that entry's
 * text was dropped (the entry is counted, not compared). */
static bool diff_prev(struct tl_arena *arena, struct tl_diag_entry_diff *x, const struct fguards *g,
                      struct tl_str cur)
{
    if (!g->prev)
        return false;
    struct tl_guard_set a, b;
    tl_guard_set_init(&a);
    tl_guard_set_init(&b);
    tl_guard_set_add_tree(&a, (struct tl_str){g->prev->text, g->prev->len});
    tl_guard_set_add_tree(&b, cur);
    diff_into(arena, x, &a, &b, g->prev_cid, g->cur_cid);
    tl_guard_set_release(&a);
    tl_guard_set_release(&b);
    return true;
}

/* The open entry (text cur) is complete: compared with the one before, it becomes the one
 * before. A later attempt of the same compile id replaces that entry's guards. */
static void close_entry(struct tl_diag_forecast *f, struct fguards *g, struct tl_str cur)
{
    if (!g->open)
        return;
    g->open = false;
    bool again = g->prev_cid && !strcmp(g->prev_cid, g->cur_cid);
    if (!again) {
        if (g->prev_cid) {
            g->ndiffs_all++;
            if (g->ndiffs < TL_DIAG_MAX_ENTRIES) {
                TL_GROW(g->diffs, g->ndiffs + 1, g->diffs_alloc);
                if (diff_prev(&f->arena, &g->diffs[g->ndiffs], g, cur))
                    g->ndiffs++;
            }
        }
        g->entries++;
        g->prev_cid = g->cur_cid;
    }
    keep_prev(&f->kept, g, cur);
    tl_buf_release(&g->cur_raw);
}

/* The entry of cid, open for its guards (the frame's open entry of another compile id is
 * closed first). */
static struct fguards *open_entry(struct tl_diag *d, const struct tl_compile_id *cid)
{
    struct tl_buf display = TL_BUF_INIT, frame = TL_BUF_INIT;
    struct fguards *g = NULL;
    if (cid_parts(cid, &display, &frame)) {
        struct tl_diag_forecast *f = forecast_of(d);
        g = fguards_of(f, tl_buf_str(&frame));
        if (g->open && strcmp(g->cur_cid, display.buf))
            close_entry(f, g, tl_buf_str(&g->cur_raw));
        if (!g->open) {
            g->open = true;
            g->cur_cid = tl_arena_memdupz(&f->arena, display.buf, display.len);
            tl_buf_reset(&g->cur_raw);
        }
    }
    tl_buf_release(&display);
    tl_buf_release(&frame);
    return g;
}

void tl_diag_guards(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str tree)
{
    struct fguards *g = open_entry(d, cid);
    if (!g)
        return;
    if (g->cur_raw.len) { /* lines of a text log came first */
        tl_buf_addstr(&g->cur_raw, tree);
        close_entry(d->forecast, g, tl_buf_str(&g->cur_raw));
    } else {
        close_entry(d->forecast, g, tree);
    }
}

void tl_diag_guard_line(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str line)
{
    struct fguards *g = open_entry(d, cid);
    if (g) {
        tl_buf_addstr(&g->cur_raw, line);
        tl_buf_addch(&g->cur_raw, '\n');
    }
}

void tl_diag_guards_end(struct tl_diag *d, const struct tl_compile_id *cid)
{
    struct tl_buf display = TL_BUF_INIT, frame = TL_BUF_INIT;
    if (d->forecast && cid_parts(cid, &display, &frame)) {
        struct fguards *g = tl_map_get(&d->forecast->frames, tl_buf_str(&frame));
        if (g && g->open && !strcmp(g->cur_cid, display.buf))
            close_entry(d->forecast, g, tl_buf_str(&g->cur_raw));
    }
    tl_buf_release(&display);
    tl_buf_release(&frame);
}

/* ---- the frames ---------------------------------------------------------------------------- */

/* What the finish gathers of one frame before it is written out. */
struct gather {
    const char *key;
    unsigned long attempts; /* highest frame compile id + 1 */
    uint32_t noentry;       /* compile ids that made no cache entry */
    const struct tl_diag_frame *frame;
    const struct tl_diag_limit *limit;
    enum tl_diag_eager eager;
    const char *eager_cid, *eager_why;
    struct tl_diag_loc where; /* when d->frames does not know the frame */
    const char *function;
};

struct finish {
    struct tl_diag *d;
    struct tl_map index; /* frame key -> index + 1 into g */
    struct gather *g;
    uint32_t n, alloc;
    struct tl_buf frame;
    struct tl_map counted; /* compile ids counted in noentry */
    struct tl_arena arena;
};

static struct gather *gather_of(struct finish *fin, struct tl_str key)
{
    int created;
    struct tl_map_entry *e = tl_map_upsert(&fin->index, key, &created);
    if (created) {
        TL_GROW(fin->g, fin->n + 1, fin->alloc);
        memset(&fin->g[fin->n], 0, sizeof(fin->g[fin->n]));
        fin->g[fin->n].key = e->key.p;
        fin->n++;
        e->value = (void *)(uintptr_t)fin->n;
    }
    return &fin->g[(uintptr_t)e->value - 1];
}

/* The frame of a compile id as displayed, or NULL. */
static struct gather *gather_cid(struct finish *fin, const char *cid)
{
    unsigned long fcid;
    if (!display_parts(cid, &fin->frame, &fcid))
        return NULL;
    return gather_of(fin, tl_buf_str(&fin->frame));
}

/* cid made no cache entry (counted once). */
static void no_entry(struct finish *fin, struct gather *g, const char *cid)
{
    int created;
    if (!g || !cid)
        return;
    tl_map_upsert(&fin->counted, tl_str_cstr(cid), &created);
    if (created)
        g->noentry++;
}

static void set_eager(struct gather *g, enum tl_diag_eager why, const char *cid, const char *what)
{
    if (!g || (g->eager != TL_EAGER_NO && g->eager <= why))
        return;
    g->eager = why;
    g->eager_cid = cid;
    g->eager_why = what;
}

/* The frame a limit without a compile id (counted against the config) is of: the one of its
 * function and place. */
static struct gather *gather_limit(struct finish *fin, const struct tl_diag_limit *l)
{
    if (l->cid)
        return gather_cid(fin, l->cid);
    const struct tl_diag *d = fin->d;
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diag_frame *f = &d->frames[i];
        if (f->function == l->function && f->where.file == l->where.file &&
            f->where.line == l->where.line)
            return gather_of(fin, tl_str_cstr(f->key));
    }
    return NULL;
}

static void gather_all(struct finish *fin)
{
    struct tl_diag *d = fin->d;
    for (uint32_t i = 0; i < d->nframes; i++)
        gather_of(fin, tl_str_cstr(d->frames[i].key))->frame = &d->frames[i];
    if (d->forecast)
        for (size_t i = 0; i < tl_map_len(&d->forecast->frames); i++)
            gather_of(fin, tl_map_at(&d->forecast->frames, i)->key);
    /* how many times each frame was compiled: its highest frame compile id */
    for (size_t i = 0; i < tl_map_len(&d->cids); i++) {
        unsigned long fcid;
        const struct tl_map_entry *e = tl_map_at(&d->cids, i);
        if (!display_parts(e->key.p, &fin->frame, &fcid))
            continue;
        struct gather *g = gather_of(fin, tl_buf_str(&fin->frame));
        if (fcid + 1 > g->attempts)
            g->attempts = fcid + 1;
    }
    for (uint32_t i = 0; i < d->nlimits; i++) {
        const struct tl_diag_limit *l = &d->limits[i];
        struct gather *g = gather_limit(fin, l);
        if (!g)
            continue;
        g->limit = l;
        no_entry(fin, g, l->cid);
        set_eager(g, TL_EAGER_LIMIT, l->cid, NULL);
        if (!g->function) {
            g->function = l->function;
            g->where = l->where;
        }
    }
    for (size_t i = 0; i < tl_map_len(&d->skipped); i++) {
        const struct tl_map_entry *e = tl_map_at(&d->skipped, i);
        struct gather *g = gather_cid(fin, e->key.p);
        unsigned flags = (unsigned)(uintptr_t)e->value;
        no_entry(fin, g, e->key.p);
        set_eager(g, TL_EAGER_SKIPPED, e->key.p,
                  flags & TL_DIAG_SKIPPED_LOOP ? "a graph break inside a loop"
                                               : "an error Dynamo skips the frame for");
    }
    for (uint32_t i = 0; i < d->nfailures; i++) {
        const struct tl_diag_failure *x = &d->failures[i];
        if (x->backward)
            continue;
        struct gather *g = gather_cid(fin, x->cid);
        no_entry(fin, g, x->cid);
        if (x->fell_back_to_eager)
            set_eager(g, TL_EAGER_FAILED, x->cid, x->type);
        if (g && !g->function && x->where.file) {
            g->function = x->where.function;
            g->where = x->where;
        }
    }
    for (uint32_t i = 0; i < d->nbreaks; i++) {
        const struct tl_diag_break *b = &d->breaks[i];
        if (!b->fell_back)
            continue;
        for (uint32_t k = 0; k < b->cids.kept; k++) {
            struct gather *g = gather_cid(fin, b->cids.s[k]);
            no_entry(fin, g, b->cids.s[k]);
            set_eager(g, TL_EAGER_SKIPPED, b->cids.s[k], b->reason);
        }
    }
}

/* The guard the recompile reasons of cid ("[0/1]") name first, as logged. */
static const char *failed_guard(const struct tl_diag *d, const char *cid)
{
    for (uint32_t i = 0; cid && i < d->nearly; i++)
        if (d->early[i].cid && !strcmp(d->early[i].cid, cid))
            return d->early[i].example;
    return NULL;
}

void tl_diag_forecast_finish(struct tl_diag *d, const char *limit_name)
{
    struct finish fin;
    memset(&fin, 0, sizeof(fin));
    fin.d = d;
    tl_arena_init(&fin.arena, 4096);
    tl_map_init(&fin.index, &fin.arena);
    tl_map_init(&fin.counted, &fin.arena);
    gather_all(&fin);
    struct tl_diag_forecast *f = forecast_of(d);
    tl_arena_reset(&f->scratch);
    f->nout = 0;
    free(f->outdiffs);
    f->outdiffs = NULL;
    /* the open entries' differences, as they stand */
    size_t nd = 0;
    for (size_t i = 0; i < tl_map_len(&f->frames); i++) {
        struct fguards *g = tl_map_at(&f->frames, i)->value;
        nd += g->ndiffs + (g->open && g->prev_cid && strcmp(g->prev_cid, g->cur_cid) ? 1 : 0);
    }
    f->outdiffs = tl_xcalloc(nd ? nd : 1, sizeof(*f->outdiffs));
    size_t used = 0;
    for (uint32_t i = 0; i < fin.n; i++) {
        struct gather *x = &fin.g[i];
        struct fguards *g = tl_map_get(&f->frames, tl_str_cstr(x->key));
        struct tl_diag_fframe o;
        memset(&o, 0, sizeof(o));
        o.frame = tl_map_upsert(&f->keys, tl_str_cstr(x->key), NULL)->key.p;
        const struct tl_diag_frame *fr = x->frame;
        o.function = fr && fr->function ? fr->function : x->function;
        o.name = fr ? fr->name : NULL;
        o.where = fr && fr->function ? fr->where : x->where;
        o.compiles = (uint32_t)(x->attempts > (fr ? fr->compiles : 0) ? x->attempts
                                                                      : (fr ? fr->compiles : 0));
        uint32_t guarded =
            g ? g->entries + (g->open && !(g->prev_cid && !strcmp(g->prev_cid, g->cur_cid))) : 0;
        /* the guards logged say the entries; else the compilations that did not fail */
        o.entries = guarded ? guarded : o.compiles > x->noentry ? o.compiles - x->noentry : 0;
        if (x->limit && x->limit->limit) {
            o.limit = x->limit->limit;
            o.limit_name = x->limit->limit_name ? x->limit->limit_name : limit_name;
            o.limit_from = d->recompile_limit ? TL_LIMIT_CONFIG : TL_LIMIT_MESSAGE;
        } else if (d->recompile_limit) {
            o.limit = d->recompile_limit;
            o.limit_name = d->recompile_limit_name ? d->recompile_limit_name : limit_name;
            o.limit_from = TL_LIMIT_CONFIG;
        } else {
            o.limit = TL_DIAG_DEFAULT_LIMIT;
            o.limit_name = limit_name;
            o.limit_from = TL_LIMIT_DEFAULT;
        }
        o.eager = x->eager;
        o.eager_cid = x->eager_cid;
        o.eager_why = x->eager_why;
        o.left = x->eager == TL_EAGER_LIMIT || o.entries >= o.limit ? 0 : o.limit - o.entries;
        if (o.compiles < 2 && o.entries < 2 && o.eager == TL_EAGER_NO)
            continue;
        if (g) {
            o.diffs = &f->outdiffs[used];
            if (g->ndiffs)
                memcpy(&f->outdiffs[used], g->diffs, g->ndiffs * sizeof(*g->diffs));
            used += g->ndiffs;
            o.ndiffs = g->ndiffs;
            o.ndiffs_all = g->ndiffs_all;
            if (g->open && g->prev_cid && strcmp(g->prev_cid, g->cur_cid)) {
                o.ndiffs_all++;
                if (o.ndiffs < TL_DIAG_MAX_ENTRIES &&
                    diff_prev(&f->scratch, &f->outdiffs[used], g, tl_buf_str(&g->cur_raw))) {
                    used++;
                    o.ndiffs++;
                }
            }
        }
        for (uint32_t k = 0; k < o.ndiffs; k++)
            f->outdiffs[o.diffs - f->outdiffs + k].failed = failed_guard(d, o.diffs[k].cid);
        TL_GROW(f->out, f->nout + 1, f->out_alloc);
        f->out[f->nout++] = o;
    }
    /* stable: eager frames first, each group in the order the frames came */
    struct tl_diag_fframe *sorted = tl_xcalloc(f->nout ? f->nout : 1, sizeof(*sorted));
    uint32_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < f->nout; i++)
            if ((f->out[i].eager != TL_EAGER_NO) == (pass == 0))
                sorted[k++] = f->out[i];
    if (f->nout)
        memcpy(f->out, sorted, f->nout * sizeof(*sorted));
    free(sorted);
    d->fframes = f->out;
    d->nfframes = f->nout;
    free(fin.g);
    tl_buf_release(&fin.frame);
    tl_map_release(&fin.index);
    tl_map_release(&fin.counted);
    tl_arena_release(&fin.arena);
}

/* ---- read back from a summary -------------------------------------------------------------- */

static const char *rstr(struct tl_diag *d, const struct tl_json *o, const char *key)
{
    const struct tl_json *v = tl_json_get(o, key);
    if (!v || v->type != TL_JSON_STRING)
        return NULL;
    return tl_arena_memdupz(&d->arena, v->u.str.p, v->u.str.n);
}

static uint32_t ru32(const struct tl_json *o, const char *key)
{
    uint64_t v = tl_json_get_u64(o, key, 0);
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static const struct tl_json *rarr(const struct tl_json *o, const char *key)
{
    const struct tl_json *v = o ? tl_json_get(o, key) : NULL;
    return v && v->type == TL_JSON_ARRAY ? v : NULL;
}

static void read_diffs(struct tl_diag *d, struct tl_diag_fframe *o, const struct tl_json *a)
{
    size_t n = a ? a->u.arr.n : 0;
    if (n > TL_DIAG_MAX_ENTRIES)
        n = TL_DIAG_MAX_ENTRIES;
    struct tl_diag_entry_diff *x = tl_arena_calloc(&d->arena, n ? n : 1, sizeof(*x));
    for (size_t i = 0; i < n; i++) {
        const struct tl_json *e = &a->u.arr.items[i];
        if (e->type != TL_JSON_OBJECT)
            continue;
        x[i].cid = rstr(d, e, "compile_id");
        x[i].against = rstr(d, e, "against");
        const struct tl_json *c = rarr(e, "changes");
        size_t nc = c ? c->u.arr.n : 0;
        if (nc > TL_DIAG_GUARD_CHANGES)
            nc = TL_DIAG_GUARD_CHANGES;
        struct tl_guard_change *ch = tl_arena_calloc(&d->arena, nc ? nc : 1, sizeof(*ch));
        uint32_t kept = 0;
        for (size_t k = 0; k < nc; k++) {
            const struct tl_json *g = &c->u.arr.items[k];
            const char *kind = g->type == TL_JSON_OBJECT ? rstr(d, g, "change") : NULL;
            if (!kind)
                continue;
            ch[kept].kind = !strcmp(kind, "changed") ? TL_GUARD_CHANGED
                            : !strcmp(kind, "added") ? TL_GUARD_ADDED
                                                     : TL_GUARD_REMOVED;
            ch[kept].guard = rstr(d, g, "guard");
            ch[kept].before = rstr(d, g, "before");
            ch[kept].after = rstr(d, g, "after");
            if (!ch[kept].guard)
                ch[kept].guard = "";
            if (ch[kept].kind == TL_GUARD_CHANGED && (!ch[kept].before || !ch[kept].after))
                continue;
            kept++;
        }
        x[i].changes = ch;
        x[i].n = kept;
        x[i].failed = rstr(d, e, "failed_guard");
        uint64_t total = kept + tl_json_get_u64(e, "more", 0);
        x[i].total = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
    }
    o->diffs = x;
    o->ndiffs = (uint32_t)n;
}

void tl_diag_forecast_read(struct tl_diag *d, const struct tl_json *frames)
{
    size_t n = frames && frames->type == TL_JSON_ARRAY ? frames->u.arr.n : 0;
    struct tl_diag_fframe *out = tl_arena_calloc(&d->arena, n ? n : 1, sizeof(*out));
    uint32_t k = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const struct tl_json *o = &frames->u.arr.items[i];
            if (o->type != TL_JSON_OBJECT || !tl_json_get(o, "entries"))
                continue;
            const struct tl_json *e = tl_json_get(o, "ran_in_eager");
            bool eager = e && e->type == TL_JSON_BOOL && e->u.b;
            if (eager != (pass == 0))
                continue;
            struct tl_diag_fframe *f = &out[k++];
            f->frame = rstr(d, o, "frame");
            if (!f->frame)
                f->frame = "?";
            if (i < d->nframes) {
                f->function = d->frames[i].function;
                f->name = d->frames[i].name;
                f->where = d->frames[i].where;
            }
            f->compiles = ru32(o, "compiles");
            f->entries = ru32(o, "entries");
            f->limit = tl_json_get_u64(o, "limit", 0);
            f->left = tl_json_get_u64(o, "left", 0);
            f->limit_name = rstr(d, o, "limit_name");
            const char *from = rstr(d, o, "limit_from");
            f->limit_from = !from                            ? TL_LIMIT_DEFAULT
                            : !strcmp(from, "config")        ? TL_LIMIT_CONFIG
                            : !strcmp(from, "limit_message") ? TL_LIMIT_MESSAGE
                                                             : TL_LIMIT_DEFAULT;
            const struct tl_json *why = tl_json_get(o, "eager");
            if (eager && why && why->type == TL_JSON_OBJECT) {
                const char *cause = rstr(d, why, "cause");
                f->eager = cause && !strcmp(cause, "recompile_limit") ? TL_EAGER_LIMIT
                           : cause && !strcmp(cause, "failed")        ? TL_EAGER_FAILED
                                                                      : TL_EAGER_SKIPPED;
                f->eager_cid = rstr(d, why, "compile_id");
                f->eager_why = rstr(d, why, "why");
            } else if (eager) {
                f->eager = TL_EAGER_SKIPPED;
            }
            read_diffs(d, f, rarr(o, "guards_differ"));
            uint64_t more = tl_json_get_u64(o, "guards_differ_more", 0);
            f->ndiffs_all = f->ndiffs + (more > UINT32_MAX - f->ndiffs ? 0 : (uint32_t)more);
        }
    }
    d->fframes = out;
    d->nfframes = k;
}
