/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The export model (export.h): expression nodes by id, the problems in log order, the guards
 * export added. The envelope decoder has type-checked the fields of the records it knows; the
 * older propagate_real_tensors record it does not know is read with the readers that check
 * types (tl_env_str, tl_envelope_frames), and its node id and locals are not used.
 */
#include "base/config.h"
#include "model/export.h"
#include "base/xalloc.h"
#include "input/envelope.h"
#include "model/record.h"

#include <stdlib.h>
#include <string.h>

void tl_export_init(struct tl_export *x, struct tl_trie *pool)
{
    memset(x, 0, sizeof(*x));
    x->pool = pool;
    tl_arena_init(&x->arena, 16 * 1024);
    tl_map_init(&x->nodes, &x->arena);
}

void tl_export_release(struct tl_export *x)
{
    tl_map_release(&x->nodes);
    free(x->problems);
    free(x->guards);
    tl_arena_release(&x->arena);
    memset(x, 0, sizeof(*x));
}

static const struct tl_iframe *frames(struct tl_export *x, const struct tl_json *stack, size_t *n,
                                      struct tl_arena *scratch)
{
    struct tl_frame *f = tl_envelope_frames(stack, scratch, n);
    return tl_trie_frames(x->pool, f, *n);
}

static const char *intern(struct tl_export *x, struct tl_str s)
{
    return tl_trie_intern(x->pool, s);
}

/* ---- expressions ---------------------------------------------------------------------- */

static struct tl_export_node *node_slot(struct tl_export *x, uint64_t id)
{
    struct tl_map_entry *e =
        tl_map_upsert(&x->nodes, tl_str_make((const char *)&id, sizeof(id)), NULL);
    /* A later record of the same id replaces the earlier one (spec §2.2 step 5). */
    struct tl_export_node *n = e->value;
    if (!n)
        e->value = n = tl_arena_alloc(&x->arena, sizeof(*n));
    memset(n, 0, sizeof(*n));
    n->id = id;
    return n;
}

static void expression_created(struct tl_export *x, const struct tl_json *rec,
                               struct tl_arena *scratch)
{
    const struct tl_json *id = tl_env_get(rec, "result_id");
    if (!id)
        return; /* nothing can point at it */
    struct tl_export_node *n = node_slot(x, id->u.num.u);
    n->result = intern(x, tl_env_str(rec, "result"));
    n->method = intern(x, tl_env_str(rec, "method"));
    if (!n->method)
        n->method = "";
    const struct tl_json *args = tl_env_get(rec, "arguments");
    if (args && args->u.arr.n) {
        n->arguments = tl_arena_alloc(&x->arena, args->u.arr.n * sizeof(*n->arguments));
        for (size_t i = 0; i < args->u.arr.n; i++)
            n->arguments[i] = intern(x, args->u.arr.items[i].u.str);
        n->narguments = args->u.arr.n;
    }
    const struct tl_json *ids = tl_env_get(rec, "argument_ids");
    if (ids && ids->u.arr.n) {
        n->argument_ids = tl_arena_alloc(&x->arena, ids->u.arr.n * sizeof(*n->argument_ids));
        for (size_t i = 0; i < ids->u.arr.n; i++)
            n->argument_ids[i] = ids->u.arr.items[i].u.num.u;
        n->nargument_ids = ids->u.arr.n;
    }
    n->user_stack = frames(x, tl_env_get(rec, "user_stack"), &n->n_user_stack, scratch);
    n->stack = frames(x, tl_env_get(rec, "stack"), &n->n_stack, scratch);
}

static void unbacked_symbol(struct tl_export *x, const struct tl_json *rec,
                            struct tl_arena *scratch)
{
    const struct tl_json *id = tl_env_get(rec, "node_id");
    if (!id)
        return;
    struct tl_export_node *n = node_slot(x, id->u.num.u);
    n->result = intern(x, tl_env_str(rec, "symbol"));
    n->user_stack = frames(x, tl_env_get(rec, "user_stack"), &n->n_user_stack, scratch);
    n->stack = frames(x, tl_env_get(rec, "stack"), &n->n_stack, scratch);
}

const struct tl_export_node *tl_export_node(const struct tl_export *x, uint64_t id)
{
    return tl_map_get(&x->nodes, tl_str_make((const char *)&id, sizeof(id)));
}

/* ---- guards and problems --------------------------------------------------------------- */

static void add_guard(struct tl_export *x, const char *kind, const struct tl_json *rec,
                      struct tl_str expr, const struct tl_iframe *user, size_t nuser,
                      uint64_t lineno)
{
    x->guards_total++;
    if (x->nguards >= TL_EXPORT_MAX_GUARDS)
        return;
    TL_GROW(x->guards, x->nguards + 1, x->guards_alloc);
    struct tl_export_guard *g = &x->guards[x->nguards++];
    g->kind = kind;
    g->expr = intern(x, expr);
    g->where = nuser ? &user[nuser - 1] : NULL;
    g->code = nuser ? NULL : intern(x, tl_env_str(tl_env_get(rec, "frame_locals"), "loc"));
    g->lineno = lineno;
}

void tl_export_add_problem(struct tl_export *x, const struct tl_export_problem *p)
{
    TL_GROW(x->problems, x->nproblems + 1, x->problems_alloc);
    struct tl_export_problem *q = &x->problems[x->nproblems++];
    *q = *p;
    q->page = p->page ? tl_arena_memdupz(&x->arena, p->page, strlen(p->page)) : NULL;
}

/* The view of a guard-like record (guard_added, propagate_real_tensors_provenance, and the
 * older propagate_real_tensors: not checked by the decoder, so its node id and locals are
 * left out). */
static void guard_view(struct tl_export *x, const struct tl_json *rec, bool checked,
                       struct tl_export_view *v, struct tl_arena *scratch)
{
    v->problem.expr = intern(x, tl_env_str(rec, "expr"));
    v->problem.result = intern(x, tl_env_str(rec, "result"));
    v->user_stack = frames(x, tl_env_get(rec, "user_stack"), &v->n_user_stack, scratch);
    v->stack = frames(x, tl_env_get(rec, "stack"), &v->n_stack, scratch);
    const struct tl_json *id = checked ? tl_env_get(rec, "expr_node_id") : NULL;
    if (id) {
        v->has_node = true;
        v->node_id = id->u.num.u;
    }
    const struct tl_json *fl = tl_env_get(rec, "frame_locals");
    v->frame_locals = checked && fl && fl->type == TL_JSON_OBJECT ? fl : NULL;
}

bool tl_export_take(struct tl_export *x, const struct tl_record *r, struct tl_export_view *v,
                    struct tl_arena *scratch)
{
    memset(v, 0, sizeof(*v));
    v->problem.lineno = r->lineno;
    const struct tl_json *const *key = r->env->key;
    const struct tl_json *rec;
    size_t n;
    /* In the reference's order within an envelope (spec §2.2). */
    if ((rec = key[TL_K_GUARD_ADDED])) {
        struct tl_str prefix = tl_env_str(rec, "prefix");
        if (tl_str_eq_cstr(prefix, "eval")) {
            guard_view(x, rec, true, v, scratch);
            v->has_problem = true;
            v->problem.kind = TL_EXPORT_PROBLEM_GUARD;
        } else {
            const struct tl_iframe *u = frames(x, tl_env_get(rec, "user_stack"), &n, scratch);
            add_guard(x, "guard", rec, tl_env_str(rec, "expr"), u, n, r->lineno);
        }
    }
    if (!v->has_problem && (rec = key[TL_K_PROPAGATE_REAL_TENSORS_PROVENANCE])) {
        guard_view(x, rec, true, v, scratch);
        v->has_problem = true;
        v->problem.kind = TL_EXPORT_PROBLEM_DATA;
    }
    /* The name before PyTorch 2.7 (not a key the reference knows). */
    if (!v->has_problem && (rec = tl_env_get(r->root, "propagate_real_tensors")) &&
        rec->type == TL_JSON_OBJECT) {
        guard_view(x, rec, false, v, scratch);
        v->has_problem = true;
        v->problem.kind = TL_EXPORT_PROBLEM_DATA;
    }
    if (!v->has_problem &&
        ((rec = key[TL_K_MISSING_FAKE_KERNEL]) || (rec = key[TL_K_MISMATCHED_FAKE_KERNEL]))) {
        v->has_problem = true;
        v->problem.kind = rec == key[TL_K_MISSING_FAKE_KERNEL] ? TL_EXPORT_PROBLEM_MISSING_FAKE
                                                               : TL_EXPORT_PROBLEM_MISMATCHED_FAKE;
        v->problem.op = intern(x, tl_env_str(rec, "op"));
        v->problem.reason = intern(x, tl_env_str(rec, "reason"));
    }
    if ((rec = key[TL_K_EXPRESSION_CREATED]))
        expression_created(x, rec, scratch);
    if ((rec = key[TL_K_CREATE_UNBACKED_SYMBOL]))
        unbacked_symbol(x, rec, scratch);
    if ((rec = key[TL_K_GUARD_ADDED_FAST])) {
        const struct tl_iframe *u = frames(x, tl_env_get(rec, "user_stack"), &n, scratch);
        add_guard(x, "guard (fast path)", rec, tl_env_str(rec, "expr"), u, n, r->lineno);
    }
    if ((rec = key[TL_K_SYMBOLIC_SHAPE_SPECIALIZATION])) {
        const struct tl_iframe *u = frames(x, tl_env_get(rec, "user_stack"), &n, scratch);
        struct tl_buf b = TL_BUF_INIT;
        struct tl_str sym = tl_env_str(rec, "symbol"), val = tl_env_str(rec, "value");
        tl_buf_add(&b, sym.p ? sym.p : "?", sym.p ? sym.n : 1);
        tl_buf_adds(&b, " = ");
        tl_buf_add(&b, val.p ? val.p : "?", val.p ? val.n : 1);
        add_guard(x, "specialization", rec, tl_buf_str(&b), u, n, r->lineno);
        tl_buf_release(&b);
    }
    return v->has_problem;
}
