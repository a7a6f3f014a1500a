/* SPDX-License-Identifier: BSD-3-Clause */
/* The compile-time ledger (ledger.h): spans to phases, per compile id and for the run. */
#include "base/config.h"
#include "model/ledger.h"
#include "base/buf.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- phases -------------------------------------------------------------------------------- */

static const struct {
    const char *key, *name, *label;
} phases[TL_LP_COUNT] = {
    [TL_LP_DYNAMO] = {"dynamo", "Dynamo", "tracing the bytecode, building guards"},
    [TL_LP_AOT] = {"aot_autograd", "AOT autograd", "metadata, joint graph, partitioning"},
    [TL_LP_INDUCTOR] = {"inductor", "Inductor", "graph passes and lowering"},
    [TL_LP_CODEGEN] = {"codegen", "code generation", "the kernels' and the wrapper's code"},
    [TL_LP_COMPILE] = {"compile_code", "compiling the code", "C++ and Triton compiles, loading"},
    [TL_LP_AUTOTUNE] = {"autotune", "autotuning", "benchmarking kernel choices"},
    [TL_LP_CACHE] = {"cache", "cache", "cache keys, lookups and saves"},
    [TL_LP_REMOTE] = {"remote", "remote", "remote caches and state"},
    [TL_LP_GC] = {"gc", "GC", "garbage collection"},
    [TL_LP_BACKEND] = {"backend", "backend", "the backend, outside AOT autograd and Inductor"},
    [TL_LP_OTHER] = {"other", "other", "spans of no known phase"},
};

const char *tl_ledger_phase_name(enum tl_ledger_phase p)
{
    return p < TL_LP_COUNT ? phases[p].name : "?";
}

const char *tl_ledger_phase_key(enum tl_ledger_phase p)
{
    return p < TL_LP_COUNT ? phases[p].key : "?";
}

const char *tl_ledger_phase_label(enum tl_ledger_phase p)
{
    return p < TL_LP_COUNT ? phases[p].label : "?";
}

enum how { EXACT, PREFIX, CONTAINS };

/* The names PyTorch 2.6 to 2.13 give their dynamo_timed spans, first match wins: the
 * specific names before the words that would also match them ("fx_codegen_and_compile" is
 * Inductor's whole compile, not code generation; "PyCodeCache.load_by_key_path" waits for the
 * compiler, it is no cache lookup). A name none matches takes its parent span's phase. */
static const struct rule {
    enum how how;
    const char *s;
    enum tl_ledger_phase phase;
} rules[] = {
    {EXACT, "gc", TL_LP_GC},
    {CONTAINS, "autotune", TL_LP_AUTOTUNE},
    {CONTAINS, "Autotune", TL_LP_AUTOTUNE},
    {CONTAINS, "benchmark", TL_LP_AUTOTUNE},
    {CONTAINS, "remote", TL_LP_REMOTE},
    {EXACT, "compile_file", TL_LP_COMPILE},
    {PREFIX, "async_compile", TL_LP_COMPILE},
    {CONTAINS, "load_by_key_path", TL_LP_COMPILE},
    {CONTAINS, "precompile", TL_LP_COMPILE},
    {CONTAINS, "cache", TL_LP_CACHE},
    {CONTAINS, "triton_key", TL_LP_CACHE},
    {PREFIX, "TritonBundler", TL_LP_CACHE},
    {EXACT, "fx_codegen_and_compile", TL_LP_INDUCTOR},
    {EXACT, "inductor_compile", TL_LP_INDUCTOR},
    {PREFIX, "compile_fx", TL_LP_INDUCTOR},
    {PREFIX, "pass.", TL_LP_INDUCTOR},
    {CONTAINS, "_passes", TL_LP_INDUCTOR},
    {EXACT, "GraphLowering.run", TL_LP_INDUCTOR},
    {EXACT, "additional_fake_tensor_prop", TL_LP_INDUCTOR},
    {PREFIX, "Scheduler.", TL_LP_CODEGEN},
    {CONTAINS, "code_gen", TL_LP_CODEGEN},
    {CONTAINS, "codegen", TL_LP_CODEGEN},
    {CONTAINS, "Codegen", TL_LP_CODEGEN},
    {PREFIX, "GraphLowering.compile_to", TL_LP_CODEGEN},
    {PREFIX, "aot_", TL_LP_AOT},
    {CONTAINS, "aot_dispatcher", TL_LP_AOT},
    {CONTAINS, "partition", TL_LP_AOT},
    {EXACT, "entire_backward_compile", TL_LP_AOT},
    {EXACT, "backend_compile", TL_LP_BACKEND},
    {EXACT, "dynamo", TL_LP_DYNAMO},
    {EXACT, "entire_frame_compile", TL_LP_DYNAMO},
    {PREFIX, "compile_attempt", TL_LP_DYNAMO},
    {EXACT, "bytecode_tracing", TL_LP_DYNAMO},
    {EXACT, "build_guards", TL_LP_DYNAMO},
    {EXACT, "insert_deferred_runtime_asserts", TL_LP_DYNAMO},
    {PREFIX, "OutputGraph", TL_LP_DYNAMO},
};

enum tl_ledger_phase tl_ledger_phase_of(struct tl_str name)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        const struct rule *r = &rules[i];
        bool hit = r->how == EXACT    ? tl_str_eq_cstr(name, r->s)
                   : r->how == PREFIX ? tl_str_has_prefix(name, r->s)
                                      : tl_str_find(name, r->s) >= 0;
        if (hit)
            return r->phase;
    }
    return TL_LP_COUNT;
}

/* ---- intake -------------------------------------------------------------------------------- */

void tl_ledger_init(struct tl_ledger *l, struct tl_arena *arena)
{
    memset(l, 0, sizeof(*l));
    l->arena = arena;
    tl_map_init(&l->index, arena);
}

void tl_ledger_release(struct tl_ledger *l)
{
    tl_map_release(&l->index);
    free(l->cids);
    free(l->roots);
    memset(l, 0, sizeof(*l));
}

/* The entry of the compile id key ("[0/1]"), made on first sight. */
static struct tl_ledger_cid *entry(struct tl_ledger *l, struct tl_str key)
{
    int created;
    struct tl_map_entry *e = tl_map_upsert(&l->index, key, &created);
    if (!created)
        return e->value;
    struct tl_ledger_cid *x = tl_arena_calloc(l->arena, 1, sizeof(*x));
    x->cid = tl_arena_memdupz(l->arena, e->key.p, e->key.n);
    e->value = x;
    if (l->ncids == l->cids_alloc) {
        l->cids_alloc = l->cids_alloc ? 2 * l->cids_alloc : 16;
        l->cids = tl_xreallocarray(l->cids, l->cids_alloc, sizeof(*l->cids));
    }
    l->cids[l->ncids++] = x;
    return x;
}

/* The compile id's entry (its metrics form: attempts are one compile); NULL for no compile
 * id, or one of no frame (a backward pass or a lookup at run time). */
static struct tl_ledger_cid *cid_of(struct tl_ledger *l, const struct tl_compile_id *cid)
{
    if (!cid || !(cid->has & TL_CID_FRAME))
        return NULL;
    struct tl_compile_id c = *cid;
    c.has &= (uint8_t)~TL_CID_ATTEMPT;
    c.attempt = 0;
    if (l->last_entry && tl_cid_eq(&c, &l->last_cid))
        return l->last_entry;
    struct tl_buf b = TL_BUF_INIT;
    tl_cid_display(&b, &c);
    struct tl_ledger_cid *x = entry(l, tl_buf_str(&b));
    tl_buf_release(&b);
    l->last_cid = c;
    l->last_entry = x;
    return x;
}

static const int days_before[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

static int two(const char *s)
{
    return (s[0] - '0') * 10 + (s[1] - '0');
}

void tl_ledger_time(struct tl_ledger *l, const char month[2], const char day[2], const char hms[8],
                    const char micros[6])
{
    int mon = two(month), d = two(day);
    if (mon < 1 || mon > 12 || d < 1 || d > 31)
        return;
    double secs = (double)(days_before[mon - 1] + d - 1) * 86400.0 + two(hms) * 3600.0 +
                  two(hms + 3) * 60.0 + two(hms + 6);
    long u = 0; /* six digits, as the glog prefix's reader checked */
    for (int i = 0; i < 6; i++)
        u = u * 10 + (micros[i] - '0');
    double us = secs * 1e6 + (double)u;
    if (!l->has_time) {
        l->first_us = l->last_us = us;
        l->has_time = true;
        return;
    }
    if (us < l->first_us - 180 * 86400e6) /* the log went past New Year */
        us += 365 * 86400e6;
    if (us > l->last_us)
        l->last_us = us;
}

static struct tl_ledger_thread *thread_of(struct tl_ledger *l, int64_t pid, int64_t tid)
{
    for (uint32_t i = 0; i < l->nthreads; i++)
        if (l->threads[i].pid == pid && l->threads[i].tid == tid)
            return &l->threads[i];
    if (l->nthreads == TL_LEDGER_THREADS)
        return NULL;
    struct tl_ledger_thread *t = &l->threads[l->nthreads++];
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    t->tid = tid;
    return t;
}

static void add_root(struct tl_ledger *l, double start, double end)
{
    if (l->nroots == l->roots_alloc) {
        l->roots_alloc = l->roots_alloc ? 2 * l->roots_alloc : 64;
        l->roots = tl_xreallocarray(l->roots, l->roots_alloc, sizeof(*l->roots));
    }
    l->roots[l->nroots][0] = start;
    l->roots[l->nroots][1] = end;
    l->nroots++;
}

/* A span ends at end_us: its own time to its phase and compile id, its length to its
 * parent's children (or, outermost, to its compile id's total and the roots). */
static void close_span(struct tl_ledger *l, struct tl_ledger_thread *t, double end_us)
{
    struct tl_ledger_span *s = &t->stack[--t->depth];
    double len = end_us > s->start_us ? end_us - s->start_us : 0;
    double self = len > s->child_us ? len - s->child_us : 0;
    struct tl_ledger_cid *c = s->cid ? s->cid : &l->outside;
    c->us[s->phase] += self;
    c->has_events = true;
    l->events++;
    if (t->depth)
        t->stack[t->depth - 1].child_us += len;
    else {
        c->total_us += len;
        if (s->backward)
            c->backward_us += len;
        add_root(l, s->start_us, s->start_us + len);
    }
}

/* tl_ledger_phase_of(name), remembered by the name's hash h (a few dozen names recur). */
static enum tl_ledger_phase phase_cached(struct tl_ledger *l, struct tl_str name, uint64_t h)
{
    size_t n = sizeof(l->phase_cache) / sizeof(l->phase_cache[0]);
    size_t i = h % n;
    if (l->phase_cache[i].phase1 && l->phase_cache[i].hash == h)
        return (enum tl_ledger_phase)(l->phase_cache[i].phase1 - 1);
    enum tl_ledger_phase p = tl_ledger_phase_of(name);
    l->phase_cache[i].hash = h;
    l->phase_cache[i].phase1 = (uint8_t)(p + 1);
    return p;
}

static void open_span(struct tl_ledger *l, struct tl_ledger_thread *t, struct tl_str name,
                      struct tl_ledger_cid *c, double start_us)
{
    if (t->depth == TL_LEDGER_DEPTH) {
        t->dropped++;
        return;
    }
    const struct tl_ledger_span *parent = t->depth ? &t->stack[t->depth - 1] : NULL;
    uint64_t h = tl_hash(name.p, name.n);
    enum tl_ledger_phase p = phase_cached(l, name, h);
    if (p == TL_LP_COUNT)
        p = parent ? parent->phase : TL_LP_OTHER;
    t->stack[t->depth++] = (struct tl_ledger_span){
        .name = h,
        .phase = p,
        .cid = c        ? c
               : parent ? parent->cid
                        : NULL,
        .start_us = start_us,
        .backward = !parent && !tl_str_eq_cstr(name, "dynamo") &&
                    !tl_str_eq_cstr(name, "entire_frame_compile"),
    };
}

/* "E": the innermost open span of that name ends; spans opened inside it and never closed
 * end with it. An "E" that matches none (its "B" was dropped for depth) closes nothing. */
static void end_span(struct tl_ledger *l, struct tl_ledger_thread *t, struct tl_str name,
                     double end_us)
{
    uint64_t h = tl_hash(name.p, name.n);
    uint32_t k = t->depth;
    while (k > 0 && t->stack[k - 1].name != h)
        k--;
    if (k == 0) {
        if (t->dropped)
            t->dropped--;
        return;
    }
    while (t->depth >= k)
        close_span(l, t, end_us);
}

static void cache_state(struct tl_ledger_cid *c, struct tl_str st)
{
    if (!c || !st.p)
        return;
    if (tl_str_eq_cstr(st, "hit"))
        c->cache |= TL_LEDGER_HIT;
    else if (tl_str_eq_cstr(st, "miss"))
        c->cache |= TL_LEDGER_MISS;
    else if (tl_str_eq_cstr(st, "bypass"))
        c->cache |= TL_LEDGER_BYPASS;
}

/* A time in microseconds: finite, not negative, below 2^53 (epoch microseconds are 2^51). */
static bool micros_ok(double v)
{
    return isfinite(v) && v >= 0 && v <= 9e15;
}

void tl_ledger_event(struct tl_ledger *l, const struct tl_compile_id *cid,
                     const struct tl_chromium_peek *ev)
{
    if (!ev || !ev->name.p || !ev->has_ts || !micros_ok(ev->ts))
        return;
    char kind = ev->ph;
    if (kind != 'B' && kind != 'E' && kind != 'X')
        return;
    struct tl_ledger_thread *t = thread_of(l, ev->pid, ev->tid);
    if (!t)
        return;
    struct tl_ledger_cid *c = cid_of(l, cid);
    double ts = ev->ts;
    l->seen = true;
    l->last_ts = fmax(l->last_ts, ts);
    if (kind == 'B') {
        open_span(l, t, ev->name, c, ts);
        return;
    }
    if (kind == 'E') {
        struct tl_ledger_cid *owner = c;
        for (uint32_t k = t->depth; !owner && k > 0; k--)
            owner = t->stack[k - 1].cid;
        cache_state(owner, ev->cache_state);
        end_span(l, t, ev->name, ts);
        return;
    }
    /* "X": a whole span at once, a leaf of the innermost open one. */
    if (!ev->has_dur || !micros_ok(ev->dur))
        return;
    double dur = ev->dur;
    l->last_ts = fmax(l->last_ts, ts + dur);
    if (t->depth == TL_LEDGER_DEPTH)
        return;
    open_span(l, t, ev->name, c, ts);
    close_span(l, t, ts + dur);
}

void tl_ledger_metrics(struct tl_ledger *l, const struct tl_compile_id *cid, double entire_s,
                       double backend_s, double inductor_s, double codegen_s)
{
    struct tl_ledger_cid *c = cid_of(l, cid);
    if (!c || entire_s < 0)
        return;
    c->has_metrics = true;
    c->m_entire_s += entire_s;
    c->m_backend_s += backend_s > 0 ? backend_s : 0;
    c->m_inductor_s += inductor_s > 0 ? inductor_s : 0;
    c->m_codegen_s += codegen_s > 0 ? codegen_s : 0;
    l->seen = true;
}

void tl_ledger_runtime(struct tl_ledger *l, const struct tl_compile_id *cid, double us)
{
    struct tl_ledger_cid *c = cid_of(l, cid);
    if (us > 0)
        (c ? c : &l->outside)->runtime_us += us;
}

void tl_ledger_cache(struct tl_ledger *l, const struct tl_compile_id *cid, unsigned verdict)
{
    struct tl_ledger_cid *c = cid_of(l, cid);
    if (c)
        c->cache |= verdict;
}

/* ---- the run ------------------------------------------------------------------------------- */

double tl_ledger_cid_phase_s(const struct tl_ledger_cid *c, enum tl_ledger_phase p)
{
    if (c->has_events)
        return (c->us[p] + c->open_us[p]) / 1e6;
    if (!c->has_metrics)
        return 0;
    /* The metrics nest: entire frame > backend > inductor > code generation. */
    double codegen = fmin(c->m_codegen_s, c->m_inductor_s > 0 ? c->m_inductor_s : c->m_codegen_s);
    double inductor = c->m_inductor_s > codegen ? c->m_inductor_s - codegen : 0;
    double backend_all = fmax(c->m_backend_s, c->m_inductor_s);
    double backend = backend_all > c->m_inductor_s ? backend_all - c->m_inductor_s : 0;
    double dynamo = c->m_entire_s > backend_all ? c->m_entire_s - backend_all : 0;
    switch (p) {
    case TL_LP_DYNAMO:
        return dynamo;
    case TL_LP_BACKEND:
        return backend;
    case TL_LP_INDUCTOR:
        return inductor;
    case TL_LP_CODEGEN:
        return codegen;
    default:
        return 0;
    }
}

double tl_ledger_cid_seconds(const struct tl_ledger_cid *c)
{
    if (c->has_events)
        return (c->total_us + c->open_total_us) / 1e6;
    double s = 0;
    for (int p = 0; p < TL_LP_COUNT; p++)
        s += tl_ledger_cid_phase_s(c, (enum tl_ledger_phase)p);
    return s;
}

static int by_start(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Spans still open count as ending at end_us: their times go to the open_ fields, the
 * outermost ones to extra (one per thread at most); returns how many. */
static uint32_t close_open(struct tl_ledger *l, double end_us, double (*extra)[2])
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < l->nthreads; i++) {
        const struct tl_ledger_thread *t = &l->threads[i];
        double child = 0; /* the length of the span above it, closed first */
        for (uint32_t k = t->depth; k-- > 0;) {
            const struct tl_ledger_span *s = &t->stack[k];
            double len = end_us > s->start_us ? end_us - s->start_us : 0;
            double own = s->child_us + child;
            struct tl_ledger_cid *c = s->cid ? s->cid : &l->outside;
            c->open_us[s->phase] += len > own ? len - own : 0;
            c->has_events = true;
            child = len;
            if (k == 0) {
                c->open_total_us += len;
                extra[n][0] = s->start_us;
                extra[n][1] = s->start_us + len;
                n++;
            }
        }
    }
    return n;
}

/* The length of the union of n intervals (sorted here). */
static double union_len(double (*iv)[2], uint32_t n)
{
    if (n > 1)
        tl_sort(iv, n, sizeof(*iv), by_start);
    double covered = 0, s = 0, e = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || iv[i][0] > e) {
            covered += e - s;
            s = iv[i][0];
            e = iv[i][1];
        } else if (iv[i][1] > e)
            e = iv[i][1];
    }
    return covered + (e - s);
}

void tl_ledger_finish(struct tl_ledger *l)
{
    for (uint32_t i = 0; i <= l->ncids; i++) {
        struct tl_ledger_cid *c = i < l->ncids ? l->cids[i] : &l->outside;
        memset(c->open_us, 0, sizeof(c->open_us));
        c->open_total_us = 0;
    }
    double extra[TL_LEDGER_THREADS][2];
    uint32_t nextra = close_open(l, l->last_ts, extra);
    for (uint32_t i = 0; i < nextra; i++)
        add_root(l, extra[i][0], extra[i][1]);

    struct tl_ledger_run *r = &l->run;
    memset(r, 0, sizeof(*r));
    r->compiling_s = union_len(l->roots, l->nroots) / 1e6;
    /* The open spans' roots are no roots yet: sorted among the others, find and drop them. */
    for (uint32_t i = 0; i < nextra; i++)
        for (uint32_t j = l->nroots; j-- > 0;)
            if (l->roots[j][0] == extra[i][0] && l->roots[j][1] == extra[i][1]) {
                memmove(&l->roots[j], &l->roots[j + 1], (l->nroots - j - 1) * sizeof(*l->roots));
                l->nroots--;
                break;
            }

    for (uint32_t i = 0; i <= l->ncids; i++) {
        const struct tl_ledger_cid *c = i < l->ncids ? l->cids[i] : &l->outside;
        r->from_events |= c->has_events;
        double total = tl_ledger_cid_seconds(c);
        for (int p = 0; p < TL_LP_COUNT; p++)
            r->phases_s[p] += tl_ledger_cid_phase_s(c, (enum tl_ledger_phase)p);
        r->runtime_s += c->runtime_us / 1e6;
        r->metrics_s += c->m_entire_s;
        r->backward_s += c->backward_us / 1e6;
        if (!c->has_events) /* a compile known by its metrics only */
            r->compiling_s += total;
        if (i == l->ncids || total <= 0)
            continue;
        if (c->cache & TL_LEDGER_MISS)
            r->cold_n++, r->cold_s += total;
        else if (c->cache == TL_LEDGER_HIT)
            r->warm_n++, r->warm_s += total;
    }
    double sum = 0;
    for (int p = 0; p < TL_LP_COUNT; p++)
        sum += r->phases_s[p];
    r->overlap_s = sum > r->compiling_s ? sum - r->compiling_s : 0;
    r->span_s = l->has_time ? (l->last_us - l->first_us) / 1e6 : 0;
    /* Record times are written to the millisecond: a span shorter than what it holds is
     * that rounding. */
    if (r->span_s < r->compiling_s + r->runtime_s)
        r->span_s = r->compiling_s + r->runtime_s;
    r->unaccounted_s = fmax(0, r->span_s - r->compiling_s - r->runtime_s);
    l->present = l->seen && (sum > 0 || r->runtime_s > 0);
}

/* ---- the lines of many logs ---------------------------------------------------------------- */

/* Seconds to the microsecond, as summary.json writes them (never -0). */
static double micro(double s)
{
    double v = round(s * 1e6) / 1e6;
    return v == 0 ? 0.0 : v;
}

void tl_ledger_lines_of(struct tl_ledger_lines *out, const struct tl_ledger *l)
{
    memset(out, 0, sizeof(*out));
    if (!l->present)
        return;
    out->present = true;
    out->span_s = micro(l->run.span_s);
    out->compiling_s = micro(l->run.compiling_s);
    out->runtime_s = micro(l->run.runtime_s);
    out->unaccounted_s = micro(l->run.unaccounted_s);
}

long tl_ledger_straggler(const struct tl_ledger_lines *const *v, size_t n)
{
    long top = -1;
    size_t with = 0;
    double least = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v[i] || !v[i]->present)
            continue;
        double s = v[i]->compiling_s;
        if (!with++ || s < least)
            least = s;
        if (top < 0 || s > v[top]->compiling_s)
            top = (long)i;
    }
    return with >= 2 && v[top]->compiling_s > least ? top : -1;
}

/* ---- a summary's ledger -------------------------------------------------------------------- */

static double secs_of(const struct tl_json *obj, const char *key)
{
    double s;
    return tl_json_get_seconds(obj, key, &s) && s > 0 ? s : 0;
}

void tl_ledger_read(struct tl_ledger *l, const struct tl_json *v)
{
    if (!v || v->type != TL_JSON_OBJECT)
        return;
    struct tl_ledger_run *r = &l->run;
    const struct tl_json *src = tl_json_get_type(v, "source", TL_JSON_STRING);
    r->from_events = src && tl_str_eq_cstr(src->u.str, "chromium_events");
    r->span_s = secs_of(v, "span_s");
    r->compiling_s = secs_of(v, "compiling_s");
    r->runtime_s = secs_of(v, "runtime_s");
    r->unaccounted_s = secs_of(v, "unaccounted_s");
    r->overlap_s = secs_of(v, "overlap_s");
    r->metrics_s = secs_of(v, "metrics_s");
    r->backward_s = secs_of(v, "backward_s");
    const struct tl_json *ph = tl_json_get_type(v, "phases", TL_JSON_OBJECT);
    for (int p = 0; p < TL_LP_COUNT; p++)
        r->phases_s[p] = secs_of(ph, phases[p].key);
    const struct tl_json *cold = tl_json_get_type(v, "cold", TL_JSON_OBJECT);
    const struct tl_json *warm = tl_json_get_type(v, "warm", TL_JSON_OBJECT);
    r->cold_n = (uint32_t)tl_json_get_u64(cold, "compile_ids", 0);
    r->cold_s = secs_of(cold, "s");
    r->warm_n = (uint32_t)tl_json_get_u64(warm, "compile_ids", 0);
    r->warm_s = secs_of(warm, "s");
    const struct tl_json *cids = tl_json_get_type(v, "compile_ids", TL_JSON_ARRAY);
    for (size_t i = 0; cids && i < cids->u.arr.n; i++) {
        const struct tl_json *o = &cids->u.arr.items[i];
        const struct tl_json *id = tl_json_get_type(o, "compile_id", TL_JSON_STRING);
        if (!id)
            continue;
        struct tl_ledger_cid *c = entry(l, id->u.str);
        /* The phases as written: events' or the metrics' split, both read as times. */
        c->has_events = true;
        c->total_us = secs_of(o, "s") * 1e6;
        const struct tl_json *cph = tl_json_get_type(o, "phases", TL_JSON_OBJECT);
        for (int p = 0; p < TL_LP_COUNT; p++)
            c->us[p] = secs_of(cph, phases[p].key) * 1e6;
        c->has_metrics = tl_json_get_seconds(o, "metrics_s", &c->m_entire_s);
        c->backward_us = secs_of(o, "backward_s") * 1e6;
        c->runtime_us = secs_of(o, "runtime_s") * 1e6;
        const struct tl_json *cache = tl_json_get_type(o, "cache", TL_JSON_STRING);
        if (cache)
            c->cache = tl_str_eq_cstr(cache->u.str, "miss")     ? TL_LEDGER_MISS
                       : tl_str_eq_cstr(cache->u.str, "hit")    ? TL_LEDGER_HIT
                       : tl_str_eq_cstr(cache->u.str, "bypass") ? TL_LEDGER_BYPASS
                                                                : 0;
    }
    l->seen = l->present = true;
}
