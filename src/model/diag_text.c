/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis of TORCH_LOGS text, line by line (diag_text.h): every line goes to the text
 * reader (input/torchlogs.c), whose messages become facts of the model's diagnosis; the
 * compile ids of the lines are counted for the text log's index. Memory: the diagnosis and
 * one entry per compile id.
 */
#include "base/config.h"
#include "model/diag_text.h"
#include "base/xalloc.h"
#include "input/pytext.h"

#include <stdlib.h>
#include <string.h>

/* A warning block's graph break (the .item() warning), held until the next message shows
 * whether PyTorch's graph_breaks record of the same break follows: then it is dropped, so that
 * one break is not counted twice. Its strings are copied into arena. */
struct held_break {
    bool on;
    struct tl_tlog_msg m;
    struct tl_tlog_loc *frames;
    size_t frames_alloc;
    struct tl_buf key;
    struct tl_arena arena;
};

/* At most this many user code lines are remembered with their function (see site_of). */
#define SITES_MAX 4096

struct tl_diag_text {
    struct tl_diag *diag;       /* the model's */
    struct tl_text_facts *text; /* the model's */
    struct tl_tlog *reader;     /* lines into messages */
    struct tl_arena arena;
    struct tl_map cid_index; /* display -> index + 1 into text->text->cids */
    size_t cids_alloc;
    struct tl_buf scratch;
    struct held_break held;
    struct tl_buf last_break; /* the site key of the message before, when a graph break */
    struct tl_map sites;      /* "file:line" -> struct site *, in arena */
    /* PyTorch 2.6 says nothing when it skips a frame for a graph break inside a loop (at
     * level INFO): the break's compile id then prints no guards nor "produce_guards", which an
     * ordinary break's does (the graph before it is compiled). Compile ids with a break, with
     * guards, with "create_env" (the "dynamic" log of a compilation that started); and whether
     * the log prints guards at all (TORCH_LOGS "guards"). */
    struct tl_map broke, guarded, started;
    bool guards_on;
    /* The held warning, said at a pause (tl_diag_text_settle): its site key, until the next
     * message; diverged when that message was the same break's record, which replaces it. */
    struct tl_buf early_key;
    bool early_held, diverged;
};

/* A compile id (without its attempt) into a map: its display string, a copy of it (in the
 * map's arena) as the value. */
static void note_cid(struct tl_map *set, const struct tl_compile_id *cid)
{
    struct tl_compile_id c = *cid;
    c.has &= (uint8_t)~TL_CID_ATTEMPT;
    c.attempt = 0;
    struct tl_buf b = TL_BUF_INIT;
    tl_cid_display(&b, &c);
    int created;
    if (tl_map_len(set) < 100000) {
        struct tl_map_entry *e = tl_map_upsert(set, tl_buf_str(&b), &created);
        if (created) {
            struct tl_compile_id *copy = tl_arena_alloc(set->arena, sizeof(*copy));
            *copy = c;
            e->value = copy;
        }
    }
    tl_buf_release(&b);
}

/* The function and the line of code of a place in the user's code, as a graph break said. */
struct site {
    struct tl_str function, code;
};

/* ---- messages into facts ------------------------------------------------------------------ */

static struct tl_diag_fact_loc loc_of(const struct tl_tlog_loc *l, struct tl_str function, bool def)
{
    struct tl_diag_fact_loc f;
    memset(&f, 0, sizeof(f));
    f.file = l->file;
    f.line = l->line;
    f.function = l->function.p ? l->function : function;
    f.code = l->code;
    f.def = def;
    return f;
}

/*
 * A graph break "(details suppressed)" names its line but not its function or code: they are
 * the ones an earlier break at the same file and line gave (a line of a file is in one
 * function). Remembered here, in the run arena.
 */
static void site_of(struct tl_diag_text *t, struct tl_diag_fact_loc *w)
{
    if (!w->file.p || !w->file.n || !w->line)
        return;
    tl_buf_reset(&t->scratch);
    tl_buf_addf(&t->scratch, "%.*s:%u", (int)w->file.n, w->file.p, (unsigned)w->line);
    struct site *known = tl_map_get(&t->sites, tl_buf_str(&t->scratch));
    if (known) {
        if (!w->function.p || !w->function.n)
            w->function = known->function;
        if (!w->code.p || !w->code.n)
            w->code = known->code;
        return;
    }
    if (!w->function.p || !w->function.n || tl_map_len(&t->sites) >= SITES_MAX)
        return;
    struct site *n = tl_arena_calloc(&t->arena, 1, sizeof(*n));
    n->function = tl_arena_str(&t->arena, w->function);
    if (w->code.p && w->code.n)
        n->code = tl_arena_str(&t->arena, w->code);
    tl_map_put(&t->sites, tl_buf_str(&t->scratch), n);
}

static void graph_break(struct tl_diag_text *t, const struct tl_compile_id *cid,
                        const struct tl_tlog_msg *m)
{
    struct tl_diag *d = t->diag;
    /* "Graph break: skip: from user code at:" (2.6): Dynamo gave up on the whole frame after an
     * error it tolerates; the error is the failure it logs beside (WON'T CONVERT), or none */
    if (tl_str_eq_cstr(m->reason, "skip:") || tl_str_has_prefix(m->reason, "skip: ")) {
        tl_diag_frame_skipped(d, cid, false);
        return;
    }
    if (cid && !m->fallback)
        note_cid(&t->broke, cid);
    struct tl_diag_fact_break b;
    memset(&b, 0, sizeof(b));
    size_t ne1 = m->nexplanations - m->nexplanations2, nh1 = m->nhints - m->nhints2;
    b.reason = m->reason;
    b.type = m->type;
    b.explanation = ne1 ? m->explanations[0] : TL_STR_NULL;
    b.hints = m->hints;
    b.nhints = nh1;
    b.url = m->url;
    b.debug_context = m->debug_context;
    b.where = loc_of(&m->where, TL_STR_NULL, false);
    if (m->nframes) {
        const struct tl_tlog_loc *inner = &m->frames[m->nframes - 1];
        if (!b.where.function.p)
            b.where.function = inner->function;
        if (!b.where.code.p)
            b.where.code = inner->code;
        if (!b.where.file.p) {
            b.where.file = inner->file;
            b.where.line = inner->line;
        }
    }
    /* the user code traceback, for the model to find the user's line of a break inside
     * PyTorch; a break without one that names a line of PyTorch's is inside PyTorch too, from
     * a user's line the text does not say */
    struct tl_diag_fact_loc *stack = tl_xcalloc(m->nframes ? m->nframes : 1, sizeof(*stack));
    for (size_t i = 0; i < m->nframes; i++)
        stack[i] = loc_of(&m->frames[i], TL_STR_NULL, false);
    b.stack = stack;
    b.nstack = m->nframes;
    if (!m->nframes && b.where.file.p && tl_diag_framework_file(b.where.file)) {
        stack[0] = b.where;
        b.nstack = 1;
        memset(&b.where, 0, sizeof(b.where));
    }
    site_of(t, &b.where);
    b.fell_back = m->fallback;
    tl_diag_graph_break(d, cid, &b);
    if (m->nested && m->reason2.p) {
        b.reason = m->reason2;
        /* PyTorch 2.7 on: its reason is its type, when an explanation follows */
        b.type = m->nexplanations2 ? m->reason2 : TL_STR_NULL;
        b.explanation = m->nexplanations2 ? m->explanations[ne1] : TL_STR_NULL;
        b.hints = m->hints + nh1;
        b.nhints = m->nhints2;
        b.debug_context = TL_STR_NULL;
        b.url = m->url2;
        tl_diag_graph_break(d, cid, &b);
    }
    free(stack);
}

static bool is_integer(struct tl_str s)
{
    size_t i = s.n && s.p[0] == '-' ? 1 : 0;
    if (i >= s.n)
        return false;
    for (; i < s.n; i++)
        if (s.p[i] < '0' || s.p[i] > '9')
            return false;
    return true;
}

static void guard_added(struct tl_diag *d, const struct tl_compile_id *cid,
                        const struct tl_tlog_msg *m)
{
    struct tl_diag_fact_spec s;
    memset(&s, 0, sizeof(s));
    /* Eq(s77, 5): the size became the constant 5; anything else is a relation it must keep */
    s.kind = m->symbol.p && is_integer(m->value) ? TL_SPEC_SPECIALIZED : TL_SPEC_GUARD;
    s.symbol = m->symbol;
    s.value = m->value;
    s.expr = m->expr;
    s.source = m->source;
    s.where = loc_of(&m->where, TL_STR_NULL, false);
    tl_diag_spec(d, cid, &s);
}

static void recompile(struct tl_diag *d, const struct tl_compile_id *cid,
                      const struct tl_diag_fact_loc *fn, const struct tl_tlog_msg *m)
{
    struct tl_str *g = tl_xcalloc(m->nguards ? m->nguards : 1, sizeof(*g));
    for (size_t i = 0; i < m->nguards; i++)
        g[i] = m->guards[i].text;
    tl_diag_recompile(d, cid, fn, g, m->nguards);
    free(g);
}

static void create_symbol(struct tl_diag *d, const struct tl_compile_id *cid,
                          const struct tl_tlog_msg *m)
{
    tl_diag_symbol(d, m->symbol, m->source);
    struct tl_diag_fact_loc where = loc_of(&m->where, TL_STR_NULL, false);
    tl_diag_dynamic(d, cid, m->symbol, m->value, m->source, m->range, &where);
}

static void duck_sized(struct tl_diag *d, const struct tl_compile_id *cid,
                       const struct tl_tlog_msg *m)
{
    struct tl_diag_fact_spec s;
    memset(&s, 0, sizeof(s));
    s.kind = TL_SPEC_DUCK;
    s.symbol = m->symbol;
    s.source = m->source;
    /* "L['x'].size()[1] == L['x'].size()[0]": the size it was found equal to */
    const char *first = tl_diag_symbol_source(d, m->symbol);
    struct tl_buf expr = TL_BUF_INIT;
    if (first && m->source.p) {
        tl_buf_addf(&expr, "%.*s == %s", (int)m->source.n, m->source.p, first);
        s.expr = tl_buf_str(&expr);
    }
    s.where = loc_of(&m->where, TL_STR_NULL, false);
    tl_diag_spec(d, cid, &s);
    tl_buf_release(&expr);
}

/* The user's line an error names: the innermost of its frames that is not PyTorch's ("from
 * user code:", "Original traceback:"); false when it names none. */
static bool user_line(const struct tl_tlog_msg *m, struct tl_diag_fact_loc *out)
{
    for (size_t i = m->nframes; i > 0; i--)
        if (m->frames[i - 1].file.p && !tl_diag_framework_file(m->frames[i - 1].file)) {
            *out = loc_of(&m->frames[i - 1], TL_STR_NULL, false);
            return true;
        }
    return false;
}

/* A compilation that failed and ran in eager mode, at the user's line its error names, else at
 * the function it was compiling. */
static void fallback(struct tl_diag *d, const struct tl_compile_id *cid,
                     const struct tl_diag_fact_loc *fn, const struct tl_tlog_msg *m)
{
    struct tl_diag_fact_failure f;
    memset(&f, 0, sizeof(f));
    f.type = tl_pytext_exception_type(m->reason);
    f.reason = m->reason;
    f.where = *fn;
    f.where.def = false;
    user_line(m, &f.where);
    f.kernel = m->kernel;
    f.fell_back_to_eager = true;
    tl_diag_failure(d, cid, &f);
}

/* An exception of Dynamo's that reached the program (fullgraph=True and a graph break, a
 * backend's error without suppress_errors): the compilation failed, and nothing ran in eager
 * mode in its place. Other exceptions are the program's own. */
static void uncaught(struct tl_diag *d, const struct tl_compile_id *cid,
                     const struct tl_tlog_msg *m)
{
    if (!tl_str_has_prefix(m->reason, "torch._dynamo.exc.") &&
        !tl_str_has_prefix(m->reason, "torch._inductor.exc."))
        return;
    struct tl_diag_fact_failure f;
    memset(&f, 0, sizeof(f));
    f.type = tl_pytext_exception_type(m->reason);
    f.reason = m->reason;
    f.kernel = m->kernel;
    user_line(m, &f.where);
    tl_diag_failure(d, cid, &f);
}

/* A guard that could not be created: the error fails the compilation (it is raised, not
 * suppressed). */
static void guard_error(struct tl_diag *d, const struct tl_compile_id *cid,
                        const struct tl_tlog_msg *m)
{
    struct tl_diag_fact_failure f;
    memset(&f, 0, sizeof(f));
    f.type = tl_pytext_exception_type(m->reason);
    f.reason = m->reason;
    tl_diag_failure(d, cid, &f);
}

static void message(struct tl_diag_text *t, const struct tl_tlog_msg *m)
{
    struct tl_diag *d = t->diag;
    const struct tl_compile_id *cid = m->has_cid ? &m->cid : NULL;
    d->at_line = m->first_line;
    d->at_rank = m->rank;
    struct tl_diag_fact_loc fn = loc_of(&m->where, m->function, true);
    switch (m->kind) {
    case TL_TLOG_RECOMPILE:
        recompile(d, cid, &fn, m);
        break;
    case TL_TLOG_LIMIT:
        tl_diag_limit(d, cid, &fn, m->limit_name, m->limit,
                      m->nguards ? m->guards[0].text : TL_STR_NULL);
        break;
    case TL_TLOG_GRAPH_BREAK:
        graph_break(t, cid, m);
        break;
    case TL_TLOG_CREATE_SYMBOL:
        create_symbol(d, cid, m);
        break;
    case TL_TLOG_DUCK_SIZED:
        duck_sized(d, cid, m);
        break;
    case TL_TLOG_GUARD_ADDED:
        guard_added(d, cid, m);
        break;
    case TL_TLOG_START:
        if (cid)
            tl_diag_compile(d, cid, &fn);
        break;
    case TL_TLOG_FALLBACK:
        fallback(d, cid, &fn, m);
        break;
    case TL_TLOG_GUARD_ERROR:
        guard_error(d, cid, m);
        break;
    case TL_TLOG_UNCAUGHT:
        uncaught(d, cid, m);
        break;
    case TL_TLOG_GRAPH:
        tl_diag_graph(d, cid, m->graph_name, m->nodes);
        break;
    case TL_TLOG_RESTART:
        break;
    }
    d->at_line = 0;
    d->at_rank = -1;
}

/* Where a graph break happened, to tell one said twice: its rank, compile id and the file and
 * line of its innermost frame (else of "in user code at"). */
static void site_key(struct tl_buf *key, const struct tl_tlog_msg *m)
{
    const struct tl_tlog_loc *w = m->nframes ? &m->frames[m->nframes - 1] : &m->where;
    tl_buf_reset(key);
    tl_buf_addf(key, "%d ", m->rank);
    if (m->has_cid)
        tl_cid_display(key, &m->cid);
    tl_buf_addf(key, " %u ", (unsigned)w->line);
    if (w->file.p)
        tl_buf_add(key, w->file.p, w->file.n);
}

static struct tl_str held_str(struct held_break *h, struct tl_str s)
{
    return s.p ? tl_arena_str(&h->arena, s) : s;
}

static struct tl_tlog_loc held_loc(struct held_break *h, const struct tl_tlog_loc *l)
{
    struct tl_tlog_loc c = *l;
    c.file = held_str(h, l->file);
    c.function = held_str(h, l->function);
    c.code = held_str(h, l->code);
    return c;
}

/* Keep a copy of m (its reason, place and frames: what a warning block has). */
static void hold(struct held_break *h, const struct tl_tlog_msg *m)
{
    tl_arena_reset(&h->arena);
    h->on = true;
    h->m = *m;
    h->m.reason = held_str(h, m->reason);
    h->m.reason2 = h->m.url = h->m.url2 = h->m.type = h->m.debug_context = TL_STR_NULL;
    h->m.guards = NULL;
    h->m.nguards = h->m.nexplanations = h->m.nhints = 0;
    h->m.nexplanations2 = h->m.nhints2 = 0;
    h->m.nested = false;
    h->m.where = held_loc(h, &m->where);
    TL_GROW(h->frames, m->nframes ? m->nframes : 1, h->frames_alloc);
    for (size_t i = 0; i < m->nframes; i++)
        h->frames[i] = held_loc(h, &m->frames[i]);
    h->m.frames = h->frames;
    site_key(&h->key, m);
}

static void flush_held(struct tl_diag_text *t)
{
    if (!t->held.on)
        return;
    t->held.on = false;
    message(t, &t->held.m);
}

/*
 * One graph break, told twice: PyTorch prints a warning block for .item() and then, with
 * graph_breaks on, its own record of the same break. The warning is held until the next
 * message: a graph break at the same site replaces it; anything else lets it through (the
 * warning alone is all a log without graph_breaks has).
 */
static void on_message(void *ctx, const struct tl_tlog_msg *m)
{
    struct tl_diag_text *t = ctx;
    bool is_break = m->kind == TL_TLOG_GRAPH_BREAK;
    if (is_break)
        site_key(&t->scratch, m);
    if (t->early_held) {
        t->early_held = false;
        t->diverged |= is_break && !m->warning &&
                       tl_str_eq(tl_buf_str(&t->early_key), tl_buf_str(&t->scratch));
    }
    if (is_break) {
        if (m->warning) {
            bool said =
                t->last_break.len && tl_str_eq(tl_buf_str(&t->last_break), tl_buf_str(&t->scratch));
            flush_held(t);
            if (!said)
                hold(&t->held, m);
            return;
        }
        if (t->held.on && tl_str_eq(tl_buf_str(&t->held.key), tl_buf_str(&t->scratch)))
            t->held.on = false;
        tl_buf_reset(&t->last_break);
        tl_buf_addstr(&t->last_break, tl_buf_str(&t->scratch));
    } else {
        tl_buf_reset(&t->last_break);
    }
    flush_held(t);
    message(t, m);
}

/* ---- the lines ---------------------------------------------------------------------------- */

const char *tl_diag_text_cid(struct tl_diag_text *t, const struct tl_tlog_line *l, uint64_t lineno,
                             bool *first)
{
    *first = false;
    if (!l->has_cid)
        return NULL;
    tl_buf_reset(&t->scratch);
    tl_cid_display(&t->scratch, &l->cid);
    int created;
    struct tl_map_entry *e = tl_map_upsert(&t->cid_index, tl_buf_str(&t->scratch), &created);
    if (created) {
        TL_GROW(t->text->cids, t->text->ncids + 1, t->cids_alloc);
        t->text->cids[t->text->ncids].cid = e->key.p;
        t->text->cids[t->text->ncids].first_line = lineno;
        t->text->cids[t->text->ncids].lines = 0;
        e->value = (void *)(uintptr_t)++t->text->ncids;
        *first = true;
        tl_diag_compile_id(t->diag, &l->cid);
    }
    struct tl_textlog_cid *c = &t->text->cids[(uintptr_t)e->value - 1];
    c->lines++;
    return c->cid;
}

struct tl_diag_text *tl_diag_text_new(struct tl_model *model)
{
    struct tl_diag_text *t = tl_xcalloc(1, sizeof(*t));
    t->diag = &model->diag;
    t->text = &model->text;
    tl_buf_init(&t->scratch, 0);
    tl_buf_init(&t->last_break, 0);
    tl_buf_init(&t->held.key, 0);
    tl_buf_init(&t->early_key, 0);
    tl_arena_init(&t->arena, 16 * 1024);
    tl_arena_init(&t->held.arena, 4 * 1024);
    tl_map_init(&t->cid_index, &t->arena);
    tl_map_init(&t->sites, &t->arena);
    tl_map_init(&t->broke, &t->arena);
    tl_map_init(&t->guarded, &t->arena);
    tl_map_init(&t->started, &t->arena);
    t->reader = tl_tlog_new(on_message, t);
    return t;
}

/* A line of TORCH_LOGS "guards" ("[0/1] [__guards] | +- EQUALS_MATCH: L['k'] == 1"): the tree
 * of a cache entry's guards, for the recompile forecast; its blank line ends it. */
static void guard_tree_line(struct tl_diag_text *t, const struct tl_tlog_line *l)
{
    struct tl_str rest = l->body;
    while (rest.n && (rest.p[rest.n - 1] == ' ' || rest.p[rest.n - 1] == '\r'))
        rest.n--;
    if (tl_str_find(rest, "+- ") >= 0)
        tl_diag_guard_line(t->diag, &l->cid, rest);
    else if (!rest.n)
        tl_diag_guards_end(t->diag, &l->cid);
}

void tl_diag_text_feed(struct tl_diag_text *t, uint64_t lineno, struct tl_str line)
{
    /* "[0/0] create_env", "[0/0] produce_guards" end their line: a suffix, no search */
    struct tl_str end = line;
    while (end.n && (end.p[end.n - 1] == '\r' || end.p[end.n - 1] == ' '))
        end.n--;
    bool guards = tl_str_find(line, "[__guards]") >= 0;
    if (guards || tl_str_has_suffix(end, "] create_env") ||
        tl_str_has_suffix(end, "] produce_guards")) {
        struct tl_tlog_line l;
        tl_tlog_split(line, &l);
        if (l.has_cid && (guards || tl_str_has_prefix(l.body, "produce_guards"))) {
            t->guards_on = t->guards_on || guards;
            note_cid(&t->guarded, &l.cid);
            if (guards)
                guard_tree_line(t, &l);
        } else if (l.has_cid && tl_str_has_prefix(l.body, "create_env")) {
            note_cid(&t->started, &l.cid);
        }
    }
    tl_tlog_feed(t->reader, lineno, line);
}

/* The breaks of compile ids that printed no guards: their frames were skipped (see broke). */
static void loops_skipped(struct tl_diag_text *t)
{
    for (size_t i = 0; i < tl_map_len(&t->broke); i++) {
        const struct tl_map_entry *e = tl_map_at(&t->broke, i);
        if (e->value && (t->guards_on || tl_map_get(&t->started, e->key)) &&
            !tl_map_get(&t->guarded, e->key))
            tl_diag_frame_skipped(t->diag, e->value, true);
    }
}

bool tl_diag_text_settle(struct tl_diag_text *t)
{
    bool said = tl_tlog_settle(t->reader);
    if (t->held.on) {
        tl_buf_reset(&t->early_key);
        tl_buf_addstr(&t->early_key, tl_buf_str(&t->held.key));
        t->early_held = true;
        said = true;
    }
    flush_held(t);
    return said;
}

bool tl_diag_text_diverged(const struct tl_diag_text *t)
{
    return t->diverged || tl_tlog_diverged(t->reader);
}

void tl_diag_text_finish(struct tl_diag_text *t)
{
    tl_tlog_end(t->reader);
    flush_held(t);
    loops_skipped(t);
    tl_diag_finish(t->diag);
    const struct tl_tlog_stats *st = tl_tlog_stats(t->reader);
    t->text->lines = st->lines;
    t->text->messages = st->messages;
    t->text->unrecognized = st->unrecognized;
}

void tl_diag_text_free(struct tl_diag_text *t)
{
    if (!t)
        return;
    tl_tlog_free(t->reader);
    tl_map_release(&t->cid_index);
    tl_map_release(&t->sites);
    tl_map_release(&t->broke);
    tl_map_release(&t->guarded);
    tl_map_release(&t->started);
    tl_arena_release(&t->arena);
    tl_arena_release(&t->held.arena);
    tl_buf_release(&t->scratch);
    tl_buf_release(&t->last_break);
    tl_buf_release(&t->held.key);
    tl_buf_release(&t->early_key);
    free(t->held.frames);
    free(t->text->cids);
    t->text->cids = NULL;
    free(t);
}
