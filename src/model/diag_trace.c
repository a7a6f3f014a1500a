/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis of a structured trace, fed record by record by the engine: compilation metrics give
 * the compilations (function, time, graph size), their failures and restarts (graph breaks); the
 * recompile_reasons artifacts and the metrics' recompile_reason give the failing guards of a
 * recompile; symbolic_shape_specialization and guard_added_fast records give the
 * specializations with the user's line; cache artifacts their hits and misses; a backward
 * failure that names an autograd seq_nr is traced to the forward node with the same seq_nr;
 * a graph break's line comes from the name of the frame that resumes after it; guard_added
 * (evaluated), propagate_real_tensors(_provenance), missing_fake_kernel and
 * mismatched_fake_kernel records give what blocked torch.export.
 * The findings go to the model's diagnosis, which the engine finishes at the end of the log,
 * for every sink and mode to read.
 */
#include "base/config.h"
#include "model/diag_trace.h"
#include "base/json.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "input/envelope.h"
#include "input/pytext.h"
#include "model/cachekey.h"

#include <md5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A graph break's hints go to the diagnosis as PyTorch's text gave them. */
_Static_assert(TL_PYTEXT_GB_HINTS <= TL_DIAG_MAX_HINTS, "a graph break's hints fit the diagnosis");

/* At most this many floats made dynamic are remembered per compile id. */
#define MAX_FLOATS 4

/* What a compile id (metrics form) collected before its compilation_metrics arrived. */
struct pending {
    struct tl_compile_id cid;
    struct tl_str *guards; /* recompile_reasons, in the sink's arena */
    size_t nguards;
    bool metrics_seen;                /* its first metrics record came: it was counted */
    bool break_artifacts;             /* graph breaks came as artifacts with their locations */
    bool wont_convert;                /* a "WON'T CONVERT" artifact said its failure */
    struct tl_diag_fact_loc *callers; /* its dynamo_start's user frames, in the arena */
    size_t ncallers;
    bool started; /* a dynamo_start was seen (the first attempt's counts) */
    /* The sources of the float symbols created while compiling it (zf0 for L['lr']): what a
     * TensorifyScalarRestartAnalysis restart turned into tensor inputs. */
    struct tl_str floats[MAX_FLOATS];
    size_t nfloats;
    struct pending *next; /* in the order compile ids came */
};

/* A graph break known from a restart reason, waiting for the frame that resumes after it:
 * "torch_dynamo_resume_in_fn_at_61" names the line where fn broke. */
struct deferred_break {
    struct tl_compile_id cid;
    struct tl_str reason;
    struct tl_diag_fact_loc fn;
    struct tl_diag_fact_loc caller; /* fn is PyTorch's: the user's frame that called it */
    bool has_caller;
};

/* A forward node carrying an autograd seq_nr, and where the user wrote it. */
struct seq_node {
    const char *node;
    struct tl_diag_fact_loc where;
};

/* What a record's facts are read against: the model (its string table; the diagnosis they
 * go into) and the entry's scratch memory. */
struct in {
    struct tl_model *model;
    struct tl_arena *scratch;
};

struct tl_diag_trace {
    struct tl_arena arena;
    struct tl_map pending; /* metrics key -> struct pending */
    struct pending *first, *last;
    struct tl_map seq; /* "frame/fcid seq_nr" -> struct seq_node */
    struct deferred_break *breaks;
    size_t nbreaks, breaks_alloc;
    /* The recompile limit the log's dynamo_config gives (0: none seen), and its name. */
    uint64_t limit;
    const char *limit_name;
};

static struct tl_str keep(struct tl_diag_trace *c, struct tl_str s)
{
    return s.p ? tl_arena_str(&c->arena, s) : s;
}

static struct pending *pending_of(struct tl_diag_trace *c, const struct tl_compile_id *cid)
{
    struct tl_compile_id m = tl_cid_metrics_key(*cid);
    char key[TL_CID_KEY_LEN];
    tl_cid_key(&m, key);
    struct tl_map_entry *e = tl_map_upsert(&c->pending, tl_str_make(key, sizeof(key)), NULL);
    if (!e->value) {
        struct pending *p = tl_arena_calloc(&c->arena, 1, sizeof(struct pending));
        p->cid = m;
        if (c->last)
            c->last->next = p;
        else
            c->first = p;
        c->last = p;
        e->value = p;
    }
    return e->value;
}

/*
 * One frame of a stack (file from the string table). Types are checked here rather than
 * trusted: the older `propagate_real_tensors` record is not one the envelope decoder knows, so
 * nothing validated its stack.
 */
static struct tl_diag_fact_loc frame_at(struct in *in, const struct tl_json *f)
{
    struct tl_diag_fact_loc l;
    memset(&l, 0, sizeof(l));
    if (!f || f->type != TL_JSON_OBJECT)
        return l;
    const struct tl_json *v;
    l.file = tl_env_str(f, "uninterned_filename");
    if (!l.file.p && (v = tl_env_get(f, "filename")) && v->type == TL_JSON_NUMBER &&
        v->u.num.kind == TL_JSON_UINT && v->u.num.u <= UINT32_MAX)
        l.file = tl_strtab_get(&in->model->strtab, (uint32_t)v->u.num.u);
    if ((v = tl_env_get(f, "line")) && v->type == TL_JSON_NUMBER && v->u.num.kind == TL_JSON_UINT &&
        v->u.num.u <= INT32_MAX)
        l.line = (uint32_t)v->u.num.u;
    l.function = tl_env_str(f, "name");
    l.code = tl_env_str(f, "loc");
    return l;
}

/* The innermost frame of a stack: the user's line, for a user_stack. */
static struct tl_diag_fact_loc frame_loc(struct in *in, const struct tl_json *stack)
{
    if (!stack || stack->type != TL_JSON_ARRAY || !stack->u.arr.n) {
        struct tl_diag_fact_loc none;
        memset(&none, 0, sizeof(none));
        return none;
    }
    return frame_at(in, &stack->u.arr.items[stack->u.arr.n - 1]);
}

/* The user's line of a record: the last frame of its user_stack; without one (older records
 * log only the whole stack, framework frames innermost), the innermost frame that is not
 * PyTorch's or Python's, from the record's stack or else the envelope's. */
static struct tl_diag_fact_loc user_loc(struct in *in, const struct tl_record *r,
                                        const struct tl_json *rec)
{
    const struct tl_json *us = tl_env_get(rec, "user_stack");
    if (us && us->type == TL_JSON_ARRAY && us->u.arr.n)
        return frame_loc(in, us);
    const struct tl_json *st = tl_env_get(rec, "stack");
    if (!st || st->type != TL_JSON_ARRAY)
        st = r->env->key[TL_K_STACK];
    struct tl_diag_fact_loc l;
    memset(&l, 0, sizeof(l));
    for (size_t i = st && st->type == TL_JSON_ARRAY ? st->u.arr.n : 0; i > 0; i--) {
        l = frame_at(in, &st->u.arr.items[i - 1]);
        if (l.file.p && l.file.n && !tl_diag_framework_file(l.file))
            return l;
    }
    memset(&l, 0, sizeof(l));
    return l;
}

static struct tl_diag_fact_loc function_loc(const struct tl_metrics *m)
{
    struct tl_diag_fact_loc l;
    memset(&l, 0, sizeof(l));
    l.file = m->co_filename;
    l.function = m->co_name;
    l.line = m->has_co_firstlineno && m->co_firstlineno > 0 ? (uint32_t)m->co_firstlineno : 0;
    l.def = true;
    return l;
}

/* The user's innermost frame among the callers of p's compilation (its dynamo_start), or NULL:
 * where a function of PyTorch's own was called from. */
static const struct tl_diag_fact_loc *user_caller(const struct pending *p)
{
    return p && p->ncallers ? &p->callers[p->ncallers - 1] : NULL;
}

/* A frame PyTorch printed, as a fact's place. */
static struct tl_diag_fact_loc fact_loc(const struct tl_pytext_frame *f)
{
    struct tl_diag_fact_loc l;
    memset(&l, 0, sizeof(l));
    l.file = f->file;
    l.line = f->line;
    l.function = f->function;
    l.code = f->code;
    return l;
}

/*
 * A dynamo_graph_break_reason artifact that is a frame's failure, "WON'T CONVERT ..." (PyTorch
 * 2.6 logs one so when the backend fails on a fake tensor, a data-dependent output, and Dynamo
 * falls back to eager; tl_pytext_wont_convert reads it). Its error (the last exception line)
 * and the user's line (the innermost of the user's frames that is not PyTorch's) say what the
 * compilation metrics' "Unsupported: Backend compiler failed ..." does not; the frame ran in
 * eager mode.
 */
static void wont_convert(struct tl_diag_trace *c, struct in *in, const struct tl_record *r,
                         struct pending *p)
{
    struct tl_pytext_failure x;
    tl_pytext_wont_convert(r->payload, in->scratch, &x);
    struct tl_diag_fact_failure f;
    memset(&f, 0, sizeof(f));
    for (size_t i = x.nframes; i > 0; i--)
        if (!tl_diag_framework_file(x.frames[i - 1].file)) {
            f.where = fact_loc(&x.frames[i - 1]);
            break;
        }
    p->wont_convert = true;
    f.fell_back_to_eager = true;
    f.type = keep(c, x.type);
    f.reason = keep(c, x.reason);
    tl_diag_failure(&in->model->diag, &r->cid, &f);
    tl_diag_frame_skipped(&in->model->diag, &r->cid, false);
}

/*
 * A dynamo_graph_break_reason artifact (PyTorch 2.6 on logs one for every graph break, the
 * ones that restart the frame and the ones that do not, such as a data-dependent jump), read
 * by input/pytext.c as the TORCH_LOGS text reader reads the same wording: its reason, PyTorch's
 * notes (2.7 on), a break while handling it, and the user code traceback. The traceback's
 * innermost frame is where it broke; the model attributes a break inside PyTorch to the user's
 * frame that led there (else to the compiled frame's caller).
 */
static void break_artifact(struct tl_diag_trace *c, struct in *in, const struct tl_record *r)
{
    if (!r->cid_ok)
        return;
    struct pending *p = pending_of(c, &r->cid);
    if (tl_str_has_prefix(r->payload, "WON'T CONVERT ")) {
        wont_convert(c, in, r, p);
        return;
    }
    if (tl_str_has_prefix(r->payload, "Graph break: skip:")) {
        /* the whole frame fell back to eager; its error is its metrics' failure */
        tl_diag_frame_skipped(&in->model->diag, &r->cid, false);
        return;
    }
    p->break_artifacts = true;
    struct tl_pytext_gb gb;
    tl_pytext_graph_break(r->payload, in->scratch, &gb);
    struct tl_diag_fact_loc *tb =
        tl_arena_alloc(in->scratch, (gb.nframes ? gb.nframes : 1) * sizeof(*tb));
    for (size_t i = 0; i < gb.nframes; i++)
        tb[i] = fact_loc(&gb.frames[i]);
    struct tl_diag_fact_break f;
    memset(&f, 0, sizeof(f));
    const struct tl_diag_fact_loc *caller = user_caller(p);
    if (caller)
        f.where = *caller;
    f.stack = tb;
    f.nstack = gb.nframes;
    for (size_t i = 0; i < gb.nnotes; i++) {
        const struct tl_pytext_gb_note *n = &gb.notes[i];
        f.reason = n->reason;
        f.type = n->type;
        f.explanation = n->explanation;
        f.hints = n->hints;
        f.nhints = n->nhints;
        f.debug_context = n->context;
        f.url = n->url;
        tl_diag_graph_break(&in->model->diag, &r->cid, &f);
    }
}

/* A symbol created while compiling (s0 for L['x'].size()[0], zf0 = 0.05 for
 * L['self'].param_groups[0]['lr']): a dynamic dimension, with the user's line that made it;
 * a float one is also what a restart of the frame's analysis was for. */
static void create_symbol(struct tl_diag_trace *c, struct in *in, const struct tl_record *r,
                          const struct tl_json *v)
{
    struct tl_str sym = tl_env_str(v, "symbol"), src = tl_env_str(v, "source");
    if (sym.p && src.p) {
        struct tl_diag_fact_loc where = user_loc(in, r, v);
        tl_diag_symbol(&in->model->diag, sym, src);
        tl_diag_dynamic(&in->model->diag, r->cid_ok ? &r->cid : NULL, sym, tl_env_str(v, "val"),
                        src, tl_env_str(v, "vr"), &where);
    }
    if (!r->cid_ok || !src.p || !tl_str_has_prefix(sym, "zf"))
        return;
    struct pending *p = pending_of(c, &r->cid);
    for (size_t i = 0; i < p->nfloats; i++)
        if (tl_str_eq(p->floats[i], src))
            return;
    if (p->nfloats < MAX_FLOATS)
        p->floats[p->nfloats++] = keep(c, src);
}

#define RESUME "torch_dynamo_resume_in_"

/* Emit the graph breaks waiting for their line, given the compilation that comes next (NULL
 * at the end of the log): a resume function of the same function gives the line; another
 * attempt of the same frame leaves them waiting; anything else, the function's own line. */
static void flush_breaks(struct tl_diag_trace *c, struct tl_diag *d, const struct tl_metrics *next,
                         const struct tl_compile_id *next_cid)
{
    size_t kept = 0;
    for (size_t i = 0; i < c->nbreaks; i++) {
        struct deferred_break *b = &c->breaks[i];
        struct tl_diag_fact_break f;
        memset(&f, 0, sizeof(f));
        f.reason = b->reason;
        f.where = b->fn;
        struct tl_str orig = tl_diag_function_name(b->fn.function);
        if (next && next->co_name.p && tl_str_has_prefix(next->co_name, RESUME) &&
            tl_str_eq(tl_diag_function_name(next->co_name), orig) && next->co_filename.p &&
            tl_str_eq(next->co_filename, b->fn.file)) {
            f.where.line = tl_pytext_resume_line(next->co_name);
            f.where.function = orig;
            f.where.def = false;
        } else if (next && next_cid && next_cid->frame == b->cid.frame &&
                   next_cid->ca == b->cid.ca && next_cid->has == b->cid.has) {
            c->breaks[kept++] = *b;
            continue;
        }
        /* A function of PyTorch's own broke (an optimizer's step): it is the traceback, and the
         * user's frame that called it is where. */
        if (tl_diag_framework_file(b->fn.file)) {
            f.stack = &b->fn;
            f.nstack = 1;
            if (b->has_caller)
                f.where = b->caller;
        }
        tl_diag_graph_break(d, &b->cid, &f);
    }
    c->nbreaks = kept;
}

static void failure(struct tl_diag_trace *c, struct tl_diag *d, const struct tl_compile_id *cid,
                    const struct tl_metrics *m)
{
    struct tl_diag_fact_failure f;
    memset(&f, 0, sizeof(f));
    f.type = keep(c, m->fail.type);
    f.reason = keep(c, m->fail.reason);
    f.where.file = keep(c, m->fail.file);
    f.where.line = m->fail.line.has ? (uint32_t)m->fail.line.v : 0;
    f.where.function = keep(c, tl_diag_function_name(m->co_name));
    if (!f.where.file.p) {
        /* No user frame given: the function whose compilation failed. */
        f.where.file = keep(c, m->co_filename);
        f.where.line =
            m->has_co_firstlineno && m->co_firstlineno > 0 ? (uint32_t)m->co_firstlineno : 0;
    }
    /* Only the log can say: with suppress_errors the failed frame runs in eager mode; without
     * it the exception reached the program (which may have caught it). */
    f.fell_back_to_eager = m->config_suppress_errors.has && m->config_suppress_errors.v;
    tl_diag_failure(d, cid, &f);
}

/* The recompile limit in a metrics record's dynamo_config (a JSON text in a string):
 * "recompile_limit": 8 (or, before PyTorch 2.7, "cache_size_limit": 8); whether it turns
 * automatic dynamic shapes off. */
static void note_limit(struct tl_diag_trace *c, struct tl_diag *d, const struct tl_record *r)
{
    const struct tl_json *m = r->env->key[TL_K_COMPILATION_METRICS];
    struct tl_str cfg = tl_env_str(m, "dynamo_config");
    static const char ads[] = "\"automatic_dynamic_shapes\": ";
    long ad = cfg.p ? tl_str_find(cfg, ads) : -1;
    if (ad >= 0) {
        struct tl_str v = tl_str_make(cfg.p + ad + strlen(ads), cfg.n - (size_t)ad - strlen(ads));
        d->automatic_dynamic = tl_str_has_prefix(v, "false") ? 0 : 1;
    }
    static const char *const names[] = {"recompile_limit", "cache_size_limit"};
    for (size_t i = 0; cfg.p && i < TL_ARRAY_LEN(names); i++) {
        char key[40];
        snprintf(key, sizeof(key), "\"%s\": ", names[i]);
        long at = tl_str_find(cfg, key);
        if (at < 0)
            continue;
        c->limit = strtoull(cfg.p + at + strlen(key), NULL, 10);
        c->limit_name = names[i];
        d->recompile_limit = c->limit;
        d->recompile_limit_name = names[i];
        return;
    }
}

#define LIMIT_GB "Dynamo recompile limit exceeded"

/* The failure of a compilation stopped by the recompile limit: 2.6 names its own exception;
 * 2.13 logs it as the graph break "Dynamo recompile limit exceeded" (fail type Unsupported),
 * after which the frame runs in eager mode. */
static bool limit_failure(struct tl_str type, struct tl_str reason)
{
    return tl_str_eq_cstr(type, "RecompileLimitExceeded") ||
           tl_str_eq_cstr(type, "CacheLimitExceeded") ||
           (tl_str_eq_cstr(type, "Unsupported") && tl_str_has_prefix(reason, LIMIT_GB));
}

/*
 * cid was not compiled because its function hit the recompile limit ("cache_size_limit
 * reached"). It is a recompile all the same (its recompile_reasons say which guards failed,
 * as the TORCH_LOGS text does) and the limit's finding, not a failure of its own. The last
 * reason is the one PyTorch's warning gives: the metrics' recompile_reason (2.13: the first
 * guard listed), else the last guard listed (2.6). 2.13's reason names the limit ("Limit type:
 * recompile_limit") and its value ("currently set to 2").
 */
static void limit_hit(struct tl_diag_trace *c, struct tl_diag *d, const struct tl_compile_id *cid,
                      struct tl_str fail_reason, struct tl_str said)
{
    struct pending *p = pending_of(c, cid);
    struct tl_str last = said.n ? said : tl_diag_last_reason(d, p->guards, p->nguards);
    if (!p->metrics_seen && (cid->has & TL_CID_FCID) && cid->fcid > 0) {
        p->metrics_seen = true;
        tl_diag_recompile(d, cid, NULL, p->guards, p->nguards);
        p->guards = NULL;
        p->nguards = 0;
    }
    struct tl_str name = tl_str_cstr(c->limit_name ? c->limit_name : "");
    uint64_t limit = c->limit;
    tl_pytext_limit_reason(fail_reason, &name, &limit);
    tl_diag_limit(d, cid, NULL, name, limit, last);
}

/* A function compiled as many times as the limit allows hit it (the trace has no message
 * for it): the frames the diagnosis counted, against the limit the config gave. */
static void limits_hit(struct tl_diag_trace *c, struct tl_diag *d)
{
    if (!c->limit)
        return;
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diag_frame *f = &d->frames[i];
        if (f->compiles < c->limit)
            continue;
        struct tl_diag_fact_loc where;
        memset(&where, 0, sizeof(where));
        where.file = f->where.file ? tl_str_cstr(f->where.file) : TL_STR_NULL;
        where.line = f->where.line;
        where.function = f->where.function ? tl_str_cstr(f->where.function) : TL_STR_NULL;
        where.def = true;
        /* its last reason: the one of its latest recompile, else its most frequent guard */
        struct tl_str last = TL_STR_NULL;
        for (uint32_t k = 0; k < d->nrecompiles; k++)
            if (d->recompiles[k].function == f->function && d->recompiles[k].nguards)
                last =
                    tl_str_cstr(d->recompiles[k].last_reason ? d->recompiles[k].last_reason
                                                             : d->recompiles[k].guards[0].example);
        tl_diag_limit(d, NULL, &where, tl_str_cstr(c->limit_name), c->limit, last);
    }
}

/* A dynamo_start: the user's frames that called the frame being compiled. Older PyTorch logs
 * its own frames around them (convert_frame, nn.Module's __call__): those and Python's are
 * left out, so that the same call gives the same callers whatever the version. */
static void dynamo_start(struct tl_diag_trace *c, struct in *in, const struct tl_record *r,
                         const struct tl_json *v)
{
    if (!r->cid_ok)
        return;
    struct pending *p = pending_of(c, &r->cid);
    if (p->started)
        return;
    p->started = true;
    const struct tl_json *st = tl_env_get(v, "stack");
    if (!st || st->type != TL_JSON_ARRAY)
        return;
    p->callers = tl_arena_alloc(&c->arena, (st->u.arr.n ? st->u.arr.n : 1) * sizeof(*p->callers));
    for (size_t i = 0; i < st->u.arr.n; i++) {
        struct tl_diag_fact_loc l = frame_at(in, &st->u.arr.items[i]);
        if (!l.file.p || !l.file.n || tl_diag_framework_file(l.file) || !l.function.p)
            continue;
        l.file = keep(c, l.file);
        l.function = keep(c, l.function);
        l.code = TL_STR_NULL;
        p->callers[p->ncallers++] = l;
    }
}

/* The callers of a compilation, given its function: a stack that ends in the function itself
 * (PyTorch logs it so from 2.5 on) is cut before it. */
static void frame_callers(struct tl_diag *d, const struct tl_compile_id *cid, struct pending *p,
                          const struct tl_diag_fact_loc *fn)
{
    if (!p->started)
        return;
    size_t n = p->ncallers;
    if (n && fn->function.p && tl_str_eq(p->callers[n - 1].function, fn->function) && fn->file.p &&
        tl_str_eq(p->callers[n - 1].file, fn->file))
        n--;
    tl_diag_frame_stack(d, cid, p->callers, n);
}

/*
 * The hash of a graph's code for matching it across runs: its lines without the comments
 * ("# File: model.py:25 in forward, code: ...", whose line numbers move when any line above
 * does), blank lines or trailing spaces; 16 hex digits of their MD5 (libmd).
 */
static void graph_hash(struct tl_diag *d, const struct tl_record *r)
{
    if (!r->cid_ok || !r->payload.n)
        return;
    MD5_CTX ctx;
    MD5Init(&ctx);
    const char *p = r->payload.p, *end = p + r->payload.n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *q = p;
        while (q < e && (*q == ' ' || *q == '\t'))
            q++;
        const char *t = e;
        while (t > q && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
            t--;
        if (t > q && *q != '#') {
            MD5Update(&ctx, (const uint8_t *)p, (size_t)(t - p));
            MD5Update(&ctx, (const uint8_t *)"\n", 1);
        }
        p = nl ? nl + 1 : end;
    }
    uint8_t digest[MD5_DIGEST_LENGTH];
    MD5Final(digest, &ctx);
    char hex[17];
    for (int i = 0; i < 8; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    tl_diag_graph_hash(d, &r->cid, tl_str_make(hex, 16));
}

/* A compilation_metrics record: the compilation, its time and graph, its recompile, its
 * restarts (graph breaks) and its failure. */
/* A time of the metrics, -1 when absent. */
static double opt_s(struct tl_opt_f64 v)
{
    return v.has ? v.v : -1;
}

/* What the ledger takes of a record: its time, a chromium event's span, a first run's time
 * (compilation_metrics_runtime), a cache's verdict. */
static void ledger_record(struct tl_ledger *l, const struct tl_record *r)
{
    if (r->glog)
        tl_ledger_time(l, r->glog->month, r->glog->day, r->glog->time, r->glog->micros);
    const struct tl_compile_id *cid = r->cid_ok ? &r->cid : NULL;
    struct tl_chromium_peek ev;
    if (tl_record_has(r, TL_K_CHROMIUM_EVENT) && r->has_payload &&
        tl_chromium_peek(r->payload, &ev))
        tl_ledger_event(l, cid, &ev);
    const struct tl_json *v = r->env->key[TL_K_COMPILATION_METRICS_RUNTIME];
    if (!v)
        v = r->env->key[TL_K_BWD_COMPILATION_METRICS_RUNTIME];
    if (v && v->type == TL_JSON_OBJECT)
        tl_ledger_runtime(l, cid, (double)tl_json_get_u64(v, "duration_us", 0));
}

static void metrics(struct tl_diag_trace *c, struct in *in, const struct tl_record *r)
{
    struct tl_diag *d = &in->model->diag;
    const struct tl_metrics *m = r->metrics;
    struct tl_diag_fact_loc fn = function_loc(m);
    flush_breaks(c, d, m, r->cid_ok ? &r->cid : NULL);
    note_limit(c, d, r);
    if (!r->cid_ok) {
        if (m->fail.type.p)
            failure(c, d, NULL, m);
        return;
    }
    const struct tl_compile_id *cid = &r->cid;
    tl_diag_compile(d, cid, &fn);
    double secs;
    if (tl_metrics_seconds(m, &secs)) {
        tl_diag_compile_time(d, cid, secs);
        tl_ledger_metrics(&d->ledger, cid, secs, opt_s(m->backend_compile_time_s),
                          opt_s(m->inductor_compile_time_s), opt_s(m->code_gen_time_s));
    }
    if (m->graph_node_count.has)
        tl_diag_graph(d, cid, TL_STR_NULL, m->graph_node_count.v);
    struct pending *p = pending_of(c, cid);
    frame_callers(d, cid, p, &fn);
    /* A function of PyTorch's own (an optimizer's step): the user's line that called it. */
    const struct tl_diag_fact_loc *caller = tl_diag_framework_file(fn.file) ? user_caller(p) : NULL;
    bool first = !p->metrics_seen;
    p->metrics_seen = true;
    if (first && (cid->has & TL_CID_FCID) && cid->fcid > 0) {
        if (p->nguards)
            tl_diag_recompile(d, cid, &fn, p->guards, p->nguards);
        else
            tl_diag_recompile(d, cid, &fn, &m->recompile_reason, m->recompile_reason.p ? 1 : 0);
        if (caller)
            tl_diag_recompile_caller(d, cid, &fn, caller);
        p->guards = NULL;
        p->nguards = 0;
    }
    for (size_t i = 0; i < m->restart_reasons.n; i++) {
        /* A restart that is no graph break: dynamo analysing the frame again on purpose. */
        struct tl_str reason = m->restart_reasons.s[i];
        if (!tl_diag_restart_kind(reason).n)
            continue;
        tl_diag_restart(d, cid, &fn, caller, reason, p->floats, p->nfloats);
    }
    if (!p->break_artifacts) {
        for (size_t i = 0; i < m->restart_reasons.n; i++) {
            if (tl_diag_restart_kind(m->restart_reasons.s[i]).n)
                continue;
            TL_GROW(c->breaks, c->nbreaks + 1, c->breaks_alloc);
            struct deferred_break *b = &c->breaks[c->nbreaks++];
            b->cid = *cid;
            b->reason = keep(c, m->restart_reasons.s[i]);
            b->fn = fn;
            b->fn.file = keep(c, fn.file);
            b->fn.function = keep(c, fn.function);
            b->has_caller = caller != NULL;
            if (caller)
                b->caller = *caller;
        }
    }
    if (m->fail.type.p && limit_failure(m->fail.type, m->fail.reason))
        limit_hit(c, d, cid, m->fail.reason, m->recompile_reason);
    else if (m->fail.type.p && !p->wont_convert)
        failure(c, d, cid, m);
    /* PyTorch 2.6 skips a frame whose graph break is inside a loop and says so only at level
     * INFO: the break was logged, and the frame has no compiled code, no failure and no
     * restart. */
    if (p->break_artifacts && !p->wont_convert && !m->fail.type.p && m->has_guarded_code.has &&
        !m->has_guarded_code.v && !m->restart_reasons.n)
        tl_diag_frame_skipped(d, cid, true);
}

/* recompile_reasons: a JSON list of "0/0: guard" strings; or, as PyTorch 2.13 logs a single
 * reason (its encoding says json all the same), that one reason as plain text. */
static void recompile_reasons(struct tl_diag_trace *c, struct in *in, const struct tl_record *r)
{
    struct tl_json v;
    if (!r->cid_ok)
        return;
    bool list = tl_json_parse(in->scratch, r->payload.p, r->payload.n, &v, NULL) == 0 &&
                v.type == TL_JSON_ARRAY;
    struct tl_str text = r->payload;
    while (text.n && (text.p[text.n - 1] == '\n' || text.p[text.n - 1] == ' '))
        text.n--;
    if (!list && (!text.n || text.p[0] == '[' || text.p[0] == '{'))
        return; /* a list or an object cut short: nothing to go by */
    struct pending *p = pending_of(c, &r->cid);
    size_t n = list ? v.u.arr.n : 1;
    for (size_t i = 0; !list && i < text.n; i++)
        n += text.p[i] == '\n';
    p->guards = tl_arena_alloc(&c->arena, (n ? n : 1) * sizeof(*p->guards));
    p->nguards = 0;
    /* The plain text: a guard per line, each may be followed by "User stack trace:" and the
     * user's frames, indented, which are no guards. */
    for (const char *q = text.p, *end = text.p + text.n; !list && q < end;) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        struct tl_str l = tl_str_make(q, (size_t)((nl ? nl : end) - q));
        q = nl ? nl + 1 : end;
        if (l.n && l.p[0] != ' ' && l.p[0] != '\t' && !tl_str_has_prefix(l, "User stack trace:"))
            p->guards[p->nguards++] = keep(c, l);
    }
    for (size_t i = 0; list && i < n; i++)
        if (v.u.arr.items[i].type == TL_JSON_STRING)
            p->guards[p->nguards++] = keep(c, v.u.arr.items[i].u.str);
    /* Said now for a live view: its compilation may take minutes (it is counted at its end). */
    if (!p->metrics_seen && (p->cid.has & TL_CID_FCID) && p->cid.fcid > 0)
        tl_diag_recompile_early(&in->model->diag, &p->cid, p->guards, p->nguards);
}

static void shape_rec(struct in *in, const struct tl_record *r, const struct tl_json *rec,
                      bool specialization)
{
    struct tl_diag_fact_spec s;
    memset(&s, 0, sizeof(s));
    s.kind = specialization ? TL_SPEC_SPECIALIZED : TL_SPEC_GUARD;
    s.symbol = tl_env_str(rec, "symbol");
    s.value = tl_env_str(rec, "value");
    s.expr = tl_env_str(rec, "expr");
    const struct tl_json *src = tl_env_get(rec, "sources");
    if (src && src->u.arr.n)
        s.source = src->u.arr.items[0].u.str;
    s.where = frame_loc(in, tl_env_get(rec, "user_stack"));
    struct tl_str sym, val;
    if (!specialization && tl_pytext_eq_constant(s.expr, &sym, &val)) {
        /* a guard Eq(s0, 8): the size became the constant 8 */
        s.kind = TL_SPEC_SPECIALIZED;
        s.symbol = sym;
        s.value = val;
    }
    if (s.symbol.p && s.source.p)
        tl_diag_symbol(&in->model->diag, s.symbol, s.source);
    struct tl_buf expr = TL_BUF_INIT;
    if (specialization && !s.expr.p && s.symbol.p && s.value.p) {
        tl_buf_addf(&expr, "Eq(%.*s, %.*s)", (int)s.symbol.n, s.symbol.p, (int)s.value.n,
                    s.value.p);
        s.expr = tl_buf_str(&expr);
    }
    tl_diag_spec(&in->model->diag, r->cid_ok ? &r->cid : NULL, &s);
    tl_buf_release(&expr);
}

/* ---- export ------------------------------------------------------------------------------- */

/*
 * A record of what stopped torch.export (spec modes.md §2.2): a data-dependent expression
 * specialized to its example value, a guard export evaluated, an operator without a fake
 * kernel or with a wrong one. Any field may be missing: the finding keeps what is there.
 */
static void export_rec(struct in *in, const struct tl_record *r, const struct tl_json *rec,
                       enum tl_export_problem_kind kind)
{
    struct tl_diag_fact_export e;
    memset(&e, 0, sizeof(e));
    e.kind = kind;
    e.expr = tl_env_str(rec, "expr");
    e.result = tl_env_str(rec, "result");
    e.op = tl_env_str(rec, "op");
    e.reason = tl_env_str(rec, "reason");
    if (kind == TL_EXPORT_PROBLEM_DATA || kind == TL_EXPORT_PROBLEM_GUARD)
        e.where = user_loc(in, r, rec);
    /* "s0": "L['args'][0][0].size()[0]": which input dimension the guard is about */
    const struct tl_json *src = tl_env_get(rec, "symbol_to_sources");
    for (size_t i = 0; src && src->type == TL_JSON_OBJECT && i < src->u.obj.n; i++)
        if (src->u.obj.items[i].value.type == TL_JSON_STRING)
            tl_diag_symbol(&in->model->diag, src->u.obj.items[i].key,
                           src->u.obj.items[i].value.u.str);
    tl_diag_export(&in->model->diag, r->cid_ok ? &r->cid : NULL, &e);
}

/* The export records of an entry. guard_added without prefix "eval" is export's ordinary
 * bookkeeping (an export log holds many), not a problem. */
static void export_recs(struct in *in, const struct tl_record *r)
{
    const struct tl_json *v;
    if ((v = r->env->key[TL_K_CREATE_UNBACKED_SYMBOL])) {
        struct tl_diag_fact_loc where = frame_loc(in, tl_env_get(v, "user_stack"));
        tl_diag_unbacked(&in->model->diag, tl_env_str(v, "symbol"), &where);
    }
    if ((v = r->env->key[TL_K_GUARD_ADDED]) && tl_str_eq_cstr(tl_env_str(v, "prefix"), "eval"))
        export_rec(in, r, v, TL_EXPORT_PROBLEM_GUARD);
    if ((v = r->env->key[TL_K_PROPAGATE_REAL_TENSORS_PROVENANCE]))
        export_rec(in, r, v, TL_EXPORT_PROBLEM_DATA);
    /* Its older name, which the envelope decoder leaves unknown (as the reference does). */
    if ((v = tl_env_get(r->root, "propagate_real_tensors")) && v->type == TL_JSON_OBJECT)
        export_rec(in, r, v, TL_EXPORT_PROBLEM_DATA);
    if ((v = r->env->key[TL_K_MISSING_FAKE_KERNEL]))
        export_rec(in, r, v, TL_EXPORT_PROBLEM_MISSING_FAKE);
    if ((v = r->env->key[TL_K_MISMATCHED_FAKE_KERNEL]))
        export_rec(in, r, v, TL_EXPORT_PROBLEM_MISMATCHED_FAKE);
}

/* "seq_nr" and the number after it (": 12", "=12", "': 12"), or -1. */
static long seq_nr_in(struct tl_str s)
{
    long at = tl_str_find(s, "seq_nr");
    if (at < 0)
        return -1;
    const char *p = s.p + at + 6, *end = s.p + s.n;
    while (p < end && (*p == ':' || *p == '=' || *p == ' ' || *p == '\'' || *p == '"'))
        p++;
    if (p >= end || *p < '0' || *p > '9')
        return -1;
    long v = 0;
    while (p < end && *p >= '0' && *p <= '9' && v < 100000000)
        v = v * 10 + (*p++ - '0');
    return v;
}

static void seq_key(struct tl_buf *b, const struct tl_compile_id *cid, long seq)
{
    struct tl_compile_id m = tl_cid_metrics_key(*cid);
    tl_cid_display(b, &m);
    tl_buf_addf(b, " %ld", seq);
}

/*
 * A forward (or joint) graph: remember which node carries which seq_nr, with the "# File:
 * F:L in fn, code: C" comment above it (print_readable's form).
 */
static void forward_graph(struct tl_diag_trace *c, const struct tl_record *r)
{
    if (!r->cid_ok || tl_str_find(r->payload, "seq_nr") < 0)
        return;
    struct tl_str file = TL_STR_NULL, fn = TL_STR_NULL, code = TL_STR_NULL;
    uint32_t line = 0;
    long seq = -1;
    const char *p = r->payload.p, *end = p + r->payload.n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        struct tl_str l = tl_str_make(p, (size_t)((nl ? nl : end) - p));
        p = nl ? nl + 1 : end;
        long at = tl_str_find(l, "# File: ");
        long s = seq_nr_in(l);
        if (at >= 0) {
            struct tl_str rest = tl_str_make(l.p + at + 8, l.n - (size_t)at - 8);
            long in = tl_str_find(rest, " in "), cd = tl_str_find(rest, ", code: ");
            struct tl_str where = tl_str_make(rest.p, in >= 0 ? (size_t)in : rest.n);
            const char *colon = NULL;
            for (size_t i = where.n; i > 0 && !colon; i--)
                if (where.p[i - 1] == ':')
                    colon = where.p + i - 1;
            file = colon ? tl_str_make(where.p, (size_t)(colon - where.p)) : where;
            line = colon ? (uint32_t)strtoul(colon + 1, NULL, 10) : 0;
            fn = in >= 0 ? tl_str_make(rest.p + in + 4,
                                       (size_t)((cd > in ? cd : (long)rest.n) - in - 4))
                         : TL_STR_NULL;
            code = cd >= 0 ? tl_str_make(rest.p + cd + 8, rest.n - (size_t)cd - 8) : TL_STR_NULL;
        }
        if (s >= 0 && at < 0 && tl_str_find(l, " = ") < 0) {
            seq = s; /* an annotation line: the node follows */
            continue;
        }
        long eq = tl_str_find(l, " = ");
        if (eq < 0 || (s < 0 && seq < 0))
            continue;
        /* the node's name: the assignment's target, without its ": type" */
        const char *q = l.p;
        while (q < l.p + eq && (*q == ' ' || *q == '\t'))
            q++;
        const char *e = q;
        while (e < l.p + eq && *e != ':' && *e != ' ')
            e++;
        if (tl_map_len(&c->seq) < 100000 && e > q) {
            struct tl_buf k = TL_BUF_INIT;
            seq_key(&k, &r->cid, s >= 0 ? s : seq);
            struct seq_node *n = tl_arena_calloc(&c->arena, 1, sizeof(*n));
            n->node = tl_arena_memdupz(&c->arena, q, (size_t)(e - q));
            n->where.file = keep(c, file);
            n->where.line = line;
            n->where.function = keep(c, fn);
            n->where.code = keep(c, code);
            tl_map_put(&c->seq, tl_buf_str(&k), n);
            tl_buf_release(&k);
        }
        seq = -1;
    }
}

static void backward_failure(struct tl_diag_trace *c, struct in *in, const struct tl_record *r)
{
    const struct tl_bwd_metrics *m = r->bwd_metrics;
    if (!m->fail.type.p)
        return;
    /* PyTorch 2.6 logs a frame stopped by the recompile limit under this name. */
    if (limit_failure(m->fail.type, m->fail.reason) && r->cid_ok) {
        limit_hit(c, &in->model->diag, &r->cid, m->fail.reason, TL_STR_NULL);
        return;
    }
    struct tl_diag_fact_failure f;
    memset(&f, 0, sizeof(f));
    f.type = m->fail.type;
    f.reason = m->fail.reason;
    f.backward = true;
    long seq = seq_nr_in(m->fail.reason);
    if (seq >= 0 && r->cid_ok) {
        struct tl_buf k = TL_BUF_INIT;
        seq_key(&k, &r->cid, seq);
        const struct seq_node *n = tl_map_get(&c->seq, tl_buf_str(&k));
        tl_buf_release(&k);
        if (n) {
            f.forward_node = tl_str_cstr(n->node);
            f.forward_where = n->where;
        }
    }
    tl_diag_failure(&in->model->diag, r->cid_ok ? &r->cid : NULL, &f);
}

/* The older form of a cache entry's guards (dynamo_guards): a JSON list of objects whose
 * "code" is a guard; made into the lines of a tree for the recompile forecast. */
static void guard_list(struct in *in, const struct tl_record *r)
{
    struct tl_json v;
    if (tl_json_parse(in->scratch, r->payload.p, r->payload.n, &v, NULL) != 0 ||
        v.type != TL_JSON_ARRAY)
        return;
    struct tl_buf tree = TL_BUF_INIT;
    for (size_t i = 0; i < v.u.arr.n; i++) {
        struct tl_str code = tl_env_str(&v.u.arr.items[i], "code");
        if (!code.p) /* no "code" string: no guard */
            continue;
        for (const char *p = code.p, *end = code.p + code.n; p < end;) {
            /* a guard's code of several lines: each its own */
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            tl_buf_adds(&tree, "+- ");
            tl_buf_add(&tree, p, (size_t)((nl ? nl : end) - p));
            tl_buf_addch(&tree, '\n');
            p = nl ? nl + 1 : end;
        }
    }
    tl_diag_guards(&in->model->diag, &r->cid, tl_buf_str(&tree));
    tl_buf_release(&tree);
}

/* ---- the record stream ------------------------------------------------------------------- */

struct tl_diag_trace *tl_diag_trace_new(void)
{
    struct tl_diag_trace *c = tl_xcalloc(1, sizeof(*c));
    tl_arena_init(&c->arena, 64 * 1024);
    tl_map_init(&c->pending, &c->arena);
    tl_map_init(&c->seq, &c->arena);
    return c;
}

bool tl_diag_trace_wants_payload(const struct tl_record *r)
{
    if (tl_record_has(r, TL_K_AOT_FORWARD_GRAPH) || tl_record_has(r, TL_K_AOT_JOINT_GRAPH) ||
        tl_record_has(r, TL_K_DYNAMO_OUTPUT_GRAPH))
        return true;
    int cache, state;
    if (tl_record_has(r, TL_K_CHROMIUM_EVENT) ||
        (r->artifact_name.p && tl_cachekey_artifact(r->artifact_name, &cache, &state)))
        return true; /* cache lookups (cachekey.h) */
    if (tl_record_has(r, TL_K_DYNAMO_CPP_GUARDS_STR) || tl_record_has(r, TL_K_DYNAMO_GUARDS))
        return true; /* the guards of a cache entry: the recompile forecast */
    return r->artifact_name.p && (tl_str_eq_cstr(r->artifact_name, "recompile_reasons") ||
                                  tl_str_eq_cstr(r->artifact_name, "dynamo_graph_break_reason"));
}

/* A cache lookup with its key's components, for the misses' explanations (cachekey.h): a
 * cache artifact, or a chromium event with an AOT autograd verdict (PyTorch 2.6). */
static bool is_cache_lookup(const struct tl_record *r)
{
    int cache, state;
    if (r->artifact_name.p)
        return tl_cachekey_artifact(r->artifact_name, &cache, &state);
    return tl_record_has(r, TL_K_CHROMIUM_EVENT) && r->has_payload &&
           tl_str_find(r->payload, "\"autograd_cache_") >= 0;
}

static void cache_lookup(struct in *in, const struct tl_record *r)
{
    /* the model reads an autograd_cache_* event too: one parse for both (record.h) */
    const struct tl_json *v = tl_record_payload_json(r, in->scratch);
    if (!v)
        return;
    struct tl_diag *d = &in->model->diag;
    if (!d->cachekey) {
        d->cachekey = tl_xmalloc(sizeof(*d->cachekey));
        tl_cachekey_init(d->cachekey);
    }
    struct tl_buf cid = TL_BUF_INIT;
    if (r->cid_ok)
        tl_cid_display(&cid, &r->cid);
    const char *id = r->cid_ok ? cid.buf : NULL;
    const struct tl_json *name = tl_json_get_type(v, "name", TL_JSON_STRING);
    if (!r->artifact_name.p) {
        if (name)
            tl_cachekey_add_event(d->cachekey, name->u.str, id, tl_json_get(v, "args"));
    } else {
        tl_cachekey_add(d->cachekey, r->artifact_name, id, v);
    }
    tl_buf_release(&cid);
}

void tl_diag_trace_record(struct tl_diag_trace *c, struct tl_model *model,
                          const struct tl_record *r, int64_t rank, struct tl_arena *scratch)
{
    struct in in_ = {model, scratch}, *in = &in_;
    struct tl_diag *d = &model->diag;
    /* A log is one process's: once its rank is known, every finding is that rank's. */
    if (rank >= 0 && rank <= INT32_MAX)
        d->at_rank = (int32_t)rank;
    if (r->cid_ok)
        tl_diag_compile_id(d, &r->cid);
    if (r->metrics)
        metrics(c, in, r);
    if (r->bwd_metrics)
        backward_failure(c, in, r);
    if (r->artifact_name.p) {
        enum tl_cache_kind kind;
        enum tl_cache_result result;
        if (tl_str_eq_cstr(r->artifact_name, "recompile_reasons"))
            recompile_reasons(c, in, r);
        else if (tl_str_eq_cstr(r->artifact_name, "dynamo_graph_break_reason"))
            break_artifact(c, in, r);
        else if (tl_cache_event(r->artifact_name, &kind, &result) && kind != TL_CACHE_OTHER) {
            tl_diag_cache(d, kind == TL_CACHE_FX_GRAPH ? 0 : 1,
                          result == TL_CACHE_HIT    ? 0
                          : result == TL_CACHE_MISS ? 1
                                                    : 2);
            tl_ledger_cache(&d->ledger, r->cid_ok ? &r->cid : NULL,
                            result == TL_CACHE_HIT    ? TL_LEDGER_HIT
                            : result == TL_CACHE_MISS ? TL_LEDGER_MISS
                                                      : TL_LEDGER_BYPASS);
        }
    }
    ledger_record(&d->ledger, r);
    if (is_cache_lookup(r))
        cache_lookup(in, r);
    const struct tl_json *v;
    if ((v = r->env->key[TL_K_SYMBOLIC_SHAPE_SPECIALIZATION]))
        shape_rec(in, r, v, true);
    if ((v = r->env->key[TL_K_GUARD_ADDED_FAST]))
        shape_rec(in, r, v, false);
    export_recs(in, r);
    if ((v = r->env->key[TL_K_DYNAMO_START]))
        dynamo_start(c, in, r, v);
    if ((v = r->env->key[TL_K_CREATE_SYMBOL]))
        create_symbol(c, in, r, v);
    if (tl_record_has(r, TL_K_DYNAMO_OUTPUT_GRAPH))
        graph_hash(d, r);
    if (tl_record_has(r, TL_K_DYNAMO_CPP_GUARDS_STR) && r->cid_ok)
        tl_diag_guards(d, &r->cid, r->payload);
    if (tl_record_has(r, TL_K_DYNAMO_GUARDS) && r->cid_ok)
        guard_list(in, r);
    if (tl_record_has(r, TL_K_AOT_FORWARD_GRAPH) || tl_record_has(r, TL_K_AOT_JOINT_GRAPH))
        forward_graph(c, r);
}

void tl_diag_trace_finish(struct tl_diag_trace *c, struct tl_model *model)
{
    struct tl_diag *d = &model->diag;
    flush_breaks(c, d, NULL, NULL);
    /* Recompiles whose compilation never logged its metrics (the log ends, or the process
     * died): their guards failed all the same. */
    for (struct pending *p = c->first; p; p = p->next)
        if (p->nguards && !p->metrics_seen && (p->cid.has & TL_CID_FCID) && p->cid.fcid > 0)
            tl_diag_recompile(d, &p->cid, NULL, p->guards, p->nguards);
    limits_hit(c, d);
    tl_ledger_finish(&d->ledger);
    if (d->cachekey)
        tl_cachekey_finish(d->cachekey);
    tl_diag_finish(d);
}

void tl_diag_trace_free(struct tl_diag_trace *c)
{
    if (!c)
        return;
    free(c->breaks);
    tl_map_release(&c->pending);
    tl_map_release(&c->seq);
    tl_arena_release(&c->arena);
    free(c);
}
