/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the renderings of the diagnosis share (summary.h): a finding's advice with its
 * placeholders filled from the log, and the placeholders of each kind of finding.
 */
#include "base/config.h"
#include "report/summary.h"

#include <stdio.h>
#include <string.h>

void tl_summary_loc(struct tl_buf *out, const struct tl_diag_loc *l)
{
    if (!l->file)
        return;
    tl_buf_adds(out, l->file);
    if (l->line)
        tl_buf_addf(out, ":%u", l->line);
}

void tl_summary_advice_fill(struct tl_summary_advice *f, const struct tl_advice *a,
                            const struct tl_advice_vars *v)
{
    tl_buf_init(&f->title, 0);
    tl_buf_init(&f->explanation, 0);
    tl_buf_init(&f->fix, 0);
    tl_advice_format(&f->title, a->title, v);
    tl_advice_format(&f->explanation, a->explanation, v);
    tl_advice_format(&f->fix, a->fix, v);
}

void tl_summary_advice_release(struct tl_summary_advice *f)
{
    tl_buf_release(&f->title);
    tl_buf_release(&f->explanation);
    tl_buf_release(&f->fix);
}

void tl_summary_guard_vars(struct tl_advice_vars *v, const char *example)
{
    tl_advice_guard_vars(tl_str_cstr(example ? example : ""), v);
}

void tl_summary_spec_vars(struct tl_advice_vars *v, const struct tl_diag_spec *s)
{
    memset(v, 0, sizeof(*v));
    if (s->expr)
        v->expr = tl_str_cstr(s->expr);
    if (s->value)
        v->value = tl_str_cstr(s->value);
}

const char *tl_summary_export_label(enum tl_export_problem_kind k)
{
    switch (k) {
    case TL_EXPORT_PROBLEM_DATA:
        return "Data dependent error";
    case TL_EXPORT_PROBLEM_GUARD:
        return "Guard evaluated";
    case TL_EXPORT_PROBLEM_MISSING_FAKE:
        return "Missing fake kernel";
    case TL_EXPORT_PROBLEM_MISMATCHED_FAKE:
        return "Mismatched fake kernel";
    }
    return "Export problem";
}

void tl_summary_export_vars(struct tl_advice_vars *v, const struct tl_diag_export *x,
                            struct tl_buf *held)
{
    memset(v, 0, sizeof(*v));
    if (x->expr)
        v->expr = tl_str_cstr(x->expr);
    if (x->result)
        v->value = tl_str_cstr(x->result);
    if (x->op)
        v->op = tl_str_cstr(x->op);
    /* the qualified name, the check and the dimension, one after the other in held: their
     * views are taken once it is written (it may move while it grows) */
    size_t at = held->len;
    if (x->op)
        tl_advice_op_qualname(held, v->op);
    size_t qualname_len = held->len - at;
    struct tl_advice_unbacked syms[TL_DIAG_MAX_UNBACKED];
    for (uint32_t k = 0; k < x->nunbacked; k++) {
        syms[k].symbol = x->unbacked[k].symbol ? tl_str_cstr(x->unbacked[k].symbol) : TL_STR_NULL;
        syms[k].code =
            x->unbacked[k].where.code ? tl_str_cstr(x->unbacked[k].where.code) : TL_STR_NULL;
    }
    if (x->kind == TL_EXPORT_PROBLEM_DATA && x->expr && x->result)
        tl_advice_export_check(held, v->expr, v->value, syms, x->nunbacked);
    size_t check_len = held->len - at - qualname_len;
    if (x->kind == TL_EXPORT_PROBLEM_GUARD && (x->readable || x->expr))
        tl_advice_dim(held, tl_str_cstr(x->readable ? x->readable : x->expr));
    size_t dim_len = held->len - at - qualname_len - check_len;
    if (qualname_len)
        v->qualname = tl_str_make(held->buf + at, qualname_len);
    if (check_len)
        v->check = tl_str_make(held->buf + at + qualname_len, check_len);
    if (dim_len)
        v->dim = tl_str_make(held->buf + at + qualname_len + check_len, dim_len);
}

void tl_summary_limit_vars(struct tl_advice_vars *v, const struct tl_diag_limit *l, char *num,
                           size_t n)
{
    memset(v, 0, sizeof(*v));
    if (l->limit) {
        snprintf(num, n, "%llu", (unsigned long long)l->limit);
        v->limit = tl_str_cstr(num);
    }
    if (l->limit_name)
        v->limit_name = tl_str_cstr(l->limit_name);
}

void tl_summary_failure_vars(struct tl_advice_vars *v, const struct tl_diag_failure *f)
{
    memset(v, 0, sizeof(*v));
    if (f->reason)
        v->backend = tl_advice_backend(tl_str_cstr(f->reason));
    if (!v->backend.n)
        v->backend.p = NULL;
}

/* The function a reason names as "<function NAME at 0x...>" (a disabled function's), else
 * empty. */
static struct tl_str named_function(const char *s)
{
    struct tl_str t = tl_str_cstr(s ? s : "");
    long at = tl_str_find(t, "<function ");
    if (at < 0)
        return TL_STR_NULL;
    struct tl_str rest = tl_str_make(t.p + at + 10, t.n - (size_t)at - 10);
    long end = tl_str_find(rest, " at ");
    if (end <= 0 || end > 200)
        return TL_STR_NULL;
    return tl_str_make(rest.p, (size_t)end);
}

void tl_summary_break_vars(struct tl_advice_vars *v, const struct tl_diag_break *b,
                           struct tl_buf *inside)
{
    memset(v, 0, sizeof(*v));
    v->callee = named_function(b->reason);
    if (!v->callee.n)
        v->callee = named_function(b->explanation);
    if (!b->in_framework)
        return;
    tl_summary_loc(inside, &b->inside);
    if (b->inside.function)
        tl_buf_addf(inside, "%sin %s", inside->len ? " " : "", b->inside.function);
    if (inside->len)
        v->inside = tl_buf_str(inside);
}

void tl_summary_restart_vars(struct tl_advice_vars *v, const struct tl_diag_restart *r,
                             struct tl_buf *what)
{
    memset(v, 0, sizeof(*v));
    for (uint32_t i = 0; i < r->what.kept; i++) {
        if (i)
            tl_buf_adds(what, ", ");
        tl_buf_adds(what, r->what.s[i]);
    }
    if (what->len)
        v->what = tl_buf_str(what);
}

const char tl_summary_values_why[] =
    ": a recompile gives one for each earlier compilation that failed this guard";
