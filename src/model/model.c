/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run's model (model.h): the compile-id table and how each record updates it, the stack
 * tries included (spec core.md §3.5, §4.6).
 */
#include "base/config.h"
#include "model/model.h"
#include "base/buf.h"
#include "base/xalloc.h"
#include "input/envelope.h"
#include "model/record.h"

#include <stdlib.h>
#include <string.h>

void tl_model_init(struct tl_model *m, struct tl_arena *arena)
{
    memset(m, 0, sizeof(*m));
    m->arena = arena;
    tl_strtab_init(&m->strtab, arena);
    tl_directory_init(&m->dir, arena);
    tl_trie_init(&m->trie, arena);
    tl_trie_init(&m->unknown_trie, arena);
    tl_map_init(&m->compiles, arena);
    tl_map_init(&m->strings, arena);
    tl_diag_init(&m->diag);
}

void tl_model_release(struct tl_model *m)
{
    for (size_t i = 0; i < tl_map_len(&m->compiles); i++) {
        struct tl_compile *c = tl_map_at(&m->compiles, i)->value;
        free(c->restart_reasons);
    }
    tl_map_release(&m->compiles);
    tl_map_release(&m->strings);
    tl_diag_release(&m->diag);
    tl_trie_release(&m->trie);
    tl_trie_release(&m->unknown_trie);
    tl_directory_release(&m->dir);
    tl_strtab_release(&m->strtab);
}

struct tl_compile *tl_model_compile(struct tl_model *m, const struct tl_compile_id *id)
{
    char key[TL_CID_KEY_LEN];
    tl_cid_key(id, key);
    int created;
    struct tl_map_entry *e = tl_map_upsert(&m->compiles, tl_str_make(key, sizeof(key)), &created);
    if (created) {
        struct tl_compile *c = tl_arena_calloc(m->arena, 1, sizeof(*c));
        c->id = *id;
        struct tl_buf b = TL_BUF_INIT;
        tl_cid_display(&b, id);
        c->display = tl_arena_memdupz(m->arena, b.buf, b.len);
        tl_buf_release(&b);
        e->value = c;
    }
    return e->value;
}

const struct tl_compile *tl_model_find(const struct tl_model *m, const struct tl_compile_id *id)
{
    char key[TL_CID_KEY_LEN];
    tl_cid_key(id, key);
    return tl_map_get(&m->compiles, tl_str_make(key, sizeof(key)));
}

size_t tl_model_ncompiles(const struct tl_model *m)
{
    return tl_map_len(&m->compiles);
}

const struct tl_compile *tl_model_compile_at(const struct tl_model *m, size_t i)
{
    return tl_map_at(&m->compiles, i)->value;
}

void tl_compile_folder(struct tl_buf *out, const struct tl_compile *c)
{
    tl_cid_folder(out, &c->id);
}

const char *tl_model_intern(struct tl_model *m, struct tl_str s)
{
    if (!s.p)
        return NULL;
    struct tl_buf fixed = TL_BUF_INIT;
    if (memchr(s.p, '\0', s.n)) {
        /* Interned strings are C strings: a NUL from the log must not cut them. */
        tl_buf_add_nonul(&fixed, s.p, s.n);
        s = tl_buf_str(&fixed);
    }
    const char *p = tl_map_upsert(&m->strings, s, NULL)->key.p;
    tl_buf_release(&fixed);
    return p;
}

bool tl_cache_event(struct tl_str name, enum tl_cache_kind *kind, enum tl_cache_result *result)
{
    /* The same order as the directory's suffixes (spec §3.1): miss, hit, bypass. */
    if (tl_str_find(name, "cache_miss") >= 0)
        *result = TL_CACHE_MISS;
    else if (tl_str_find(name, "cache_hit") >= 0)
        *result = TL_CACHE_HIT;
    else if (tl_str_find(name, "cache_bypass") >= 0)
        *result = TL_CACHE_BYPASS;
    else
        return false;
    if (tl_str_has_prefix(name, "fx_graph"))
        *kind = TL_CACHE_FX_GRAPH;
    else if (tl_str_has_prefix(name, "aotautograd"))
        *kind = TL_CACHE_AOTAUTOGRAD;
    else
        *kind = TL_CACHE_OTHER;
    return true;
}

/* ---- applying a record ------------------------------------------------------------------ */

static struct tl_iframe *frames_of(struct tl_model *m, const struct tl_json *stack, size_t *n,
                                   struct tl_arena *scratch)
{
    struct tl_frame *f = tl_envelope_frames(stack, scratch, n);
    return tl_trie_frames(&m->trie, f, *n);
}

static void keep_shape_rec(struct tl_model *m, struct tl_compile *c, bool guards,
                           const struct tl_json *rec, struct tl_arena *scratch)
{
    struct tl_shape_rec *s = tl_arena_calloc(m->arena, 1, sizeof(*s));
    s->symbol = tl_trie_intern(&m->trie, tl_env_str(rec, "symbol"));
    s->value = tl_trie_intern(&m->trie, tl_env_str(rec, "value"));
    s->expr = tl_trie_intern(&m->trie, tl_env_str(rec, "expr"));
    const struct tl_json *src = tl_env_get(rec, "sources");
    if (src && src->u.arr.n) {
        s->sources = tl_arena_alloc(m->arena, src->u.arr.n * sizeof(*s->sources));
        for (size_t i = 0; i < src->u.arr.n; i++)
            s->sources[i] = tl_trie_intern(&m->trie, src->u.arr.items[i].u.str);
        s->nsources = src->u.arr.n;
    }
    s->user_stack = frames_of(m, tl_env_get(rec, "user_stack"), &s->n_user_stack, scratch);
    s->stack = frames_of(m, tl_env_get(rec, "stack"), &s->n_stack, scratch);
    struct tl_shape_list *list = guards ? &c->guards : &c->specs;
    const struct tl_shape_rec **fresh = guards ? &c->guards_new : &c->specs_new;
    if (list->tail)
        list->tail->next = s;
    else
        list->head = s;
    list->tail = s;
    list->n++;
    if (!*fresh)
        *fresh = s;
}

static void add_restart_reason(struct tl_model *m, struct tl_compile *c, struct tl_str reason)
{
    const char *r = tl_model_intern(m, reason);
    for (uint32_t i = 0; i < c->nrestart_reasons; i++)
        if (c->restart_reasons[i] == r)
            return;
    TL_GROW(c->restart_reasons, c->nrestart_reasons + 1, c->restart_alloc);
    c->restart_reasons[c->nrestart_reasons++] = r;
}

/* compilation_metrics: the status bits of spec §4.6 and the facts of the compile id. */
static void apply_metrics(struct tl_model *m, const struct tl_record *r)
{
    const struct tl_metrics *x = r->metrics;
    struct tl_compile_id mid = tl_cid_metrics_key(r->cid);
    struct tl_compile *c = tl_model_compile(m, &mid);
    /* The reference shows a compile id's shape records on its first metrics page only. */
    c->specs_new = c->guards_new = NULL;
    uint8_t status = TL_CS_METRICS;
    if (x->fail.type.p)
        status |= TL_CS_FAIL;
    if (!x->graph_op_count.has || x->graph_op_count.v == 0)
        status |= TL_CS_EMPTY;
    if (!x->restart_reasons.present || x->restart_reasons.n > 0)
        status |= TL_CS_RESTART;
    c->status |= status;
    c->nmetrics++;
    if (x->entire_frame_compile_time_s.has)
        c->compile_time_s += x->entire_frame_compile_time_s.v;
    if (x->co_name.p)
        c->co_name = tl_model_intern(m, x->co_name);
    /* The overview counts the compile id as logged (attempts apart), as the index lists it. */
    if (r->cid_ok && r->key) {
        double secs = 0;
        bool timed = tl_metrics_seconds(x, &secs);
        tl_dirkey_add_metrics(m->arena, r->key, status, timed, secs,
                              x->co_name.p ? c->co_name : NULL);
    }
    if (x->co_filename.p)
        c->co_filename = tl_model_intern(m, x->co_filename);
    if (x->has_co_firstlineno) {
        c->has_co_firstlineno = true;
        c->co_firstlineno = x->co_firstlineno;
    }
    if (x->fail.type.p) {
        c->fail_type = tl_model_intern(m, x->fail.type);
        c->fail_reason = tl_model_intern(m, x->fail.reason.p ? x->fail.reason : TL_STR_LIT(""));
        c->fail_file = tl_model_intern(m, x->fail.file);
        c->fail_line = x->fail.line;
    }
    for (size_t i = 0; i < x->restart_reasons.n; i++)
        add_restart_reason(m, c, x->restart_reasons.s[i]);
    if (x->graph_op_count.has)
        c->graph_op_count = x->graph_op_count;
    if (x->graph_node_count.has)
        c->graph_node_count = x->graph_node_count;
}

/* Spec §4.6: drop the three convert_frame wrapper frames at the end. */
static size_t strip_convert_frame(const struct tl_model *m, const struct tl_frame *f, size_t n)
{
    if (n < 3)
        return n;
    static const char *const a[3] = {"catch_errors", "_convert_frame", "_convert_frame_assert"};
    static const char *const b[3] = {"__call__", "__call__", "__call__"};
    bool ma = true, mb = true;
    for (size_t i = 0; i < 3; i++) {
        const struct tl_frame *x = &f[n - 3 + i];
        struct tl_str file = tl_strtab_get(&m->strtab, x->filename);
        if (!file.p || !tl_str_eq_cstr(tl_frame_simplify(file), "torch/_dynamo/convert_frame.py"))
            return n;
        ma = ma && tl_str_eq_cstr(x->name, a[i]);
        mb = mb && tl_str_eq_cstr(x->name, b[i]);
    }
    return ma || mb ? n - 3 : n;
}

static void apply_stacks(struct tl_model *m, const struct tl_record *r, struct tl_arena *scratch)
{
    const struct tl_envelope *env = r->env;
    size_t n;
    if (env->key[TL_K_STACK]) {
        struct tl_frame *f = tl_envelope_frames(env->key[TL_K_STACK], scratch, &n);
        struct tl_terminal t = {NULL, 0};
        tl_trie_insert(&m->unknown_trie, f, n, &t);
    }
    const struct tl_json *ds = env->key[TL_K_DYNAMO_START];
    const struct tl_json *ds_stack = ds ? tl_env_get(ds, "stack") : NULL;
    if (ds_stack) {
        struct tl_frame *f = tl_envelope_frames(ds_stack, scratch, &n);
        n = strip_convert_frame(m, f, n);
        struct tl_compile *c = r->cid_ok ? tl_model_compile(m, &r->cid) : NULL;
        struct tl_terminal t = {c, 0};
        struct tl_trie_node *leaf = tl_trie_insert(&m->trie, f, n, &t);
        if (c)
            c->start = leaf;
    }
}

/* The payload of r as JSON in scratch, or NULL when it is not JSON. */
static const struct tl_json *payload_json(const struct tl_record *r, struct tl_arena *scratch)
{
    if (!r->has_payload || !r->payload.n)
        return NULL;
    struct tl_json *v = tl_arena_alloc(scratch, sizeof(*v));
    return tl_json_parse(scratch, r->payload.p, r->payload.n, v, NULL) == 0 ? v : NULL;
}

static bool is_torch_version(const struct tl_record *r)
{
    return r->artifact_name.p && tl_str_eq_cstr(r->artifact_name, "torch_version");
}

/* PyTorch 2.6 tells the AOT autograd cache's verdict only as a chromium instant event,
 * "autograd_cache_hit" / "autograd_cache_miss" / "autograd_cache_bypass" (2.13 writes an
 * aotautograd_cache_* artifact as well; the diagnosis counts the artifact there). */
static bool autograd_cache_event(const struct tl_json *ev, enum tl_cache_result *result)
{
    const struct tl_json *name = ev ? tl_json_get_type(ev, "name", TL_JSON_STRING) : NULL;
    if (!name)
        return false;
    if (tl_str_eq_cstr(name->u.str, "autograd_cache_hit"))
        *result = TL_CACHE_HIT;
    else if (tl_str_eq_cstr(name->u.str, "autograd_cache_miss"))
        *result = TL_CACHE_MISS;
    else if (tl_str_eq_cstr(name->u.str, "autograd_cache_bypass"))
        *result = TL_CACHE_BYPASS;
    else
        return false;
    return true;
}

void tl_model_finish(struct tl_model *m)
{
    struct tl_diag *d = &m->diag;
    bool artifacts = false;
    for (int k = 0; k < TL_CACHE_RESULTS; k++)
        artifacts = artifacts || d->cache[TL_CACHE_AOTAUTOGRAD][k];
    if (artifacts)
        return;
    for (int k = 0; k < TL_CACHE_RESULTS; k++)
        for (uint32_t i = 0; i < m->autograd_cache_events[k]; i++)
            tl_diag_cache(d, 1, k);
    size_t n = tl_map_len(&m->compiles);
    for (size_t i = 0; i < n; i++) {
        struct tl_compile *c = tl_map_at(&m->compiles, i)->value;
        for (int k = 0; k < TL_CACHE_RESULTS; k++)
            if (!c->cache[TL_CACHE_AOTAUTOGRAD][k])
                c->cache[TL_CACHE_AOTAUTOGRAD][k] = c->cache_events[k];
    }
}

bool tl_model_wants_payload(const struct tl_record *r)
{
    return is_torch_version(r) || tl_record_has(r, TL_K_CHROMIUM_EVENT) ||
           (r->artifact_name.p && tl_str_eq_cstr(r->artifact_name, "make_fx_fail_partial"));
}

static void add_u64(uint64_t *sum, const struct tl_json *rec, const char *field)
{
    uint64_t v = tl_json_get_u64(rec, field, 0);
    *sum = *sum + v < *sum ? UINT64_MAX : *sum + v;
}

/* compilation_metrics_runtime (forward) or bwd_compilation_metrics_runtime: the times of a
 * compiled graph's first runs, filed under its compile id as its metrics are. */
static void apply_runtime(struct tl_model *m, const struct tl_record *r, const struct tl_json *v,
                          int bwd)
{
    if (!r->cid_ok || v->type != TL_JSON_OBJECT)
        return;
    struct tl_compile_id mid = tl_cid_metrics_key(r->cid);
    struct tl_runtime *rt = &tl_model_compile(m, &mid)->runtime[bwd];
    rt->n++;
    add_u64(&rt->duration_us, v, "duration_us");
    add_u64(&rt->autotune_us, v, "runtime_triton_autotune_time_us");
    add_u64(&rt->cudagraphify_us, v, "runtime_cudagraphify_time_us");
    m->has_runtime = true;
}

static struct tl_str trim_str(struct tl_str s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t'))
        s.p++, s.n--;
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\r'))
        s.n--;
    return s;
}

/* "# File: PATH:LINE in FUNC, code: CODE" of a graph's node comment, into *loc. */
static bool node_comment(struct tl_str c, struct tl_diag_fact_loc *loc)
{
    c = trim_str(c);
    if (!tl_str_has_prefix(c, "# File: "))
        return false;
    c = tl_str_make(c.p + 8, c.n - 8);
    long at = tl_str_find(c, ", code: ");
    if (at < 0)
        return false;
    loc->code = tl_str_make(c.p + at + 8, c.n - (size_t)at - 8);
    struct tl_str head = tl_str_make(c.p, (size_t)at);
    long in = -1; /* the last " in ": a path may hold one */
    for (size_t i = 0; i + 4 <= head.n; i++)
        if (!memcmp(head.p + i, " in ", 4))
            in = (long)i;
    if (in < 0)
        return false;
    loc->function = tl_str_make(head.p + in + 4, head.n - (size_t)in - 4);
    head.n = (size_t)in;
    size_t colon = head.n;
    while (colon && head.p[colon - 1] != ':')
        colon--;
    if (!colon)
        return false;
    uint32_t line = 0;
    for (size_t i = colon; i < head.n; i++) {
        if (head.p[i] < '0' || head.p[i] > '9' || line > 100000000)
            return false;
        line = line * 10 + (uint32_t)(head.p[i] - '0');
    }
    loc->file = tl_str_make(head.p, colon - 1);
    loc->line = line;
    return true;
}

/* PyTorch 2.13's torch.export traces without dynamo (non-strict): when tracing raises, the log
 * holds no compilation metrics, only make_fx's partial graph (make_fx_fail_partial), whose
 * last node is where it stopped. A failure of its own, with no compile id; an `.item()` of a
 * tensor under an `if` is the data-dependent branch torch.cond is for. (Inside a compile,
 * the compile's metrics tell the failure.) */
static void partial_trace_failure(struct tl_model *m, const struct tl_record *r)
{
    struct tl_str p = r->payload, node = TL_STR_NULL;
    struct tl_diag_fact_loc at = {0}, cur = {0};
    bool have_cur = false, have_at = false;
    while (p.n) {
        const char *nl = memchr(p.p, '\n', p.n);
        size_t len = nl ? (size_t)(nl - p.p) : p.n;
        struct tl_str line = trim_str(tl_str_make(p.p, len));
        p = nl ? tl_str_make(nl + 1, p.n - len - 1) : tl_str_make(p.p + len, 0);
        struct tl_diag_fact_loc loc = {0};
        if (node_comment(line, &loc)) {
            cur = loc;
            have_cur = true;
        } else if (tl_str_find(line, " = torch.ops.") > 0) {
            node = line;
            at = cur;
            have_at = have_cur;
        }
    }
    struct tl_buf reason = TL_BUF_INIT;
    struct tl_str code = trim_str(at.code);
    bool value =
        tl_str_find(node, "aten.item.") >= 0 || tl_str_find(node, "aten._local_scalar_dense.") >= 0;
    bool branch = tl_str_has_prefix(code, "if ") || tl_str_has_prefix(code, "elif ") ||
                  tl_str_has_prefix(code, "while ") || tl_str_find(code, " if ") >= 0;
    if (have_at && value && branch)
        tl_buf_addf(&reason,
                    "Data-dependent control flow: `%.*s` branches on a tensor's value; tracing "
                    "stopped at ",
                    (int)code.n, code.p);
    else
        tl_buf_adds(&reason, "Tracing raised an error (make_fx_fail_partial); it stopped at ");
    if (node.p)
        tl_buf_addf(&reason, "`%.*s`", (int)node.n, node.p);
    else
        tl_buf_adds(&reason, "the start of the graph");
    struct tl_diag_fact_failure f = {0};
    f.type = TL_STR_LIT("make_fx_fail_partial");
    f.reason = tl_buf_str(&reason);
    if (have_at)
        f.where = at;
    tl_diag_failure(&m->diag, NULL, &f);
    tl_buf_release(&reason);
}

void tl_model_apply(struct tl_model *m, const struct tl_record *r, struct tl_arena *scratch)
{
    if (r->metrics)
        apply_metrics(m, r);
    const struct tl_json *v;
    if ((v = r->env->key[TL_K_COMPILATION_METRICS]))
        tl_diag_pytorch_version(&m->diag, tl_env_str(v, "pytorch_version"), false);
    if ((v = r->env->key[TL_K_COMPILATION_METRICS_RUNTIME]))
        apply_runtime(m, r, v, 0);
    if ((v = r->env->key[TL_K_BWD_COMPILATION_METRICS_RUNTIME]))
        apply_runtime(m, r, v, 1);
    if (is_torch_version(r) && (v = payload_json(r, scratch)) && v->type == TL_JSON_OBJECT) {
        const struct tl_json *ver = tl_json_get_type(v, "pytorch_version", TL_JSON_STRING);
        if (ver)
            tl_diag_pytorch_version(&m->diag, ver->u.str, true);
    }
    if (r->artifact_name.p && tl_str_eq_cstr(r->artifact_name, "make_fx_fail_partial") &&
        !(r->cid_ok && (r->cid.has & TL_CID_FRAME)))
        partial_trace_failure(m, r);
    enum tl_cache_result ev_result;
    /* Most events are timings: parse only those that may be a cache's. */
    if (tl_record_has(r, TL_K_CHROMIUM_EVENT) && tl_str_find(r->payload, "autograd_cache_") >= 0 &&
        autograd_cache_event(tl_record_payload_json(r, scratch), &ev_result)) {
        m->autograd_cache_events[ev_result]++;
        if (r->cid_ok) {
            struct tl_compile_id mid = tl_cid_metrics_key(r->cid);
            tl_model_compile(m, &mid)->cache_events[ev_result]++;
        }
    }
    apply_stacks(m, r, scratch);
    const struct tl_envelope *env = r->env;
    if (r->cid_ok) {
        const struct tl_json *spec = env->key[TL_K_SYMBOLIC_SHAPE_SPECIALIZATION];
        const struct tl_json *guard = env->key[TL_K_GUARD_ADDED_FAST];
        if (spec)
            keep_shape_rec(m, tl_model_compile(m, &r->cid), false, spec, scratch);
        if (guard)
            keep_shape_rec(m, tl_model_compile(m, &r->cid), true, guard, scratch);
        enum tl_cache_kind kind;
        enum tl_cache_result result;
        if (r->artifact_name.p && tl_cache_event(r->artifact_name, &kind, &result)) {
            struct tl_compile_id mid = tl_cid_metrics_key(r->cid);
            tl_model_compile(m, &mid)->cache[kind][result]++;
        }
    }
}
