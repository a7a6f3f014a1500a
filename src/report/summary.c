/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis as summary.json and as the plain text of `tlparse --summary` (summary.h):
 * every finding with the advice of its rule, placeholders filled from the log.
 */
#include "base/config.h"
#include "report/summary.h"
#include "base/json_write.h"
#include "report/pages.h"
#include "report/terminal.h"

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

/* The advice of a rule with its placeholders filled. */
struct filled {
    struct tl_buf title, explanation, fix;
};

static void fill(struct filled *f, const struct tl_advice *a, const struct tl_advice_vars *v)
{
    tl_buf_init(&f->title, 0);
    tl_buf_init(&f->explanation, 0);
    tl_buf_init(&f->fix, 0);
    tl_advice_format(&f->title, a->title, v);
    tl_advice_format(&f->explanation, a->explanation, v);
    tl_advice_format(&f->fix, a->fix, v);
}

static void unfill(struct filled *f)
{
    tl_buf_release(&f->title);
    tl_buf_release(&f->explanation);
    tl_buf_release(&f->fix);
}

static void vars_of_guard(struct tl_advice_vars *v, const char *example)
{
    tl_advice_guard_vars(tl_str_cstr(example ? example : ""), v);
}

static void vars_of_spec(struct tl_advice_vars *v, const struct tl_diag_spec *s)
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

static void vars_of_limit(struct tl_advice_vars *v, const struct tl_diag_limit *l, char *num,
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

/* ---- JSON --------------------------------------------------------------------------------- */

static void j_loc_string(struct tl_json_doc *w, const char *key, const struct tl_diag_loc *l)
{
    tl_json_doc_key(w, key);
    if (!l->file) {
        tl_json_doc_null(w);
        return;
    }
    struct tl_buf b = TL_BUF_INIT;
    tl_summary_loc(&b, l);
    tl_json_doc_str(w, b.buf);
    tl_buf_release(&b);
}

static void j_where_fields(struct tl_json_doc *w, const struct tl_diag_loc *l)
{
    tl_json_doc_kstr(w, "file", l->file);
    tl_json_doc_key(w, "line");
    if (l->line)
        tl_json_doc_u64(w, l->line);
    else
        tl_json_doc_null(w);
    tl_json_doc_kstr(w, "function", l->function);
    tl_json_doc_kstr(w, "code", l->code);
    tl_json_doc_kbool(w, "function_start", l->def);
}

/* A graph break's place, with how often it broke there. */
static void j_where_count(struct tl_json_doc *w, const struct tl_diag_loc *l, uint32_t count)
{
    tl_json_doc_object(w);
    j_where_fields(w, l);
    tl_json_doc_ku64(w, "count", count);
    tl_json_doc_end(w, '}');
}

static void j_advice(struct tl_json_doc *w, const struct tl_advice *a,
                     const struct tl_advice_vars *v)
{
    tl_json_doc_key(w, "advice");
    if (!a) {
        tl_json_doc_null(w);
        return;
    }
    struct filled f;
    fill(&f, a, v);
    tl_json_doc_object(w);
    tl_json_doc_kstr(w, "category", a->category);
    tl_json_doc_kstr(w, "title", f.title.buf);
    tl_json_doc_kstr(w, "explanation", f.explanation.buf);
    tl_json_doc_kstr(w, "fix", f.fix.buf);
    tl_json_doc_end(w, '}');
    unfill(&f);
}

static void j_line(struct tl_json_doc *w, uint64_t line)
{
    tl_json_doc_key(w, "log_line");
    if (line)
        tl_json_doc_u64(w, line);
    else
        tl_json_doc_null(w);
}

/* "ranks": the ranks a finding was seen on, [] when the log does not say. */
static void j_ranks(struct tl_json_doc *w, const struct tl_diag_ranks *l)
{
    tl_json_doc_key(w, "ranks");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < l->kept; i++)
        tl_json_doc_u64(w, (uint64_t)l->r[i]);
    tl_json_doc_end(w, ']');
}

static void j_strs(struct tl_json_doc *w, const char *key, const struct tl_diag_strs *l)
{
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < l->kept; i++)
        tl_json_doc_str(w, l->s[i]);
    tl_json_doc_end(w, ']');
}

static void j_breaks(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "graph_breaks");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nbreaks; i++) {
        const struct tl_diag_break *b = &d->breaks[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "reason", b->reason);
        tl_json_doc_ku64(w, "count", b->count);
        tl_json_doc_key(w, "locations");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < b->nlocs; k++) {
            struct tl_buf s = TL_BUF_INIT;
            tl_summary_loc(&s, &b->locs[k]);
            tl_json_doc_str(w, s.len ? s.buf : b->locs[k].function);
            tl_buf_release(&s);
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_key(w, "where");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < b->nlocs; k++)
            j_where_count(w, &b->locs[k], b->loc_counts[k]);
        tl_json_doc_end(w, ']');
        j_strs(w, "compile_ids", &b->cids);
        tl_json_doc_kstr(w, "explanation", b->explanation);
        tl_json_doc_kstr(w, "hint", b->hint);
        tl_json_doc_kstr(w, "url", b->url);
        tl_json_doc_kstr(w, "type", b->type);
        tl_json_doc_kstr(w, "gb_id", b->gb_id);
        tl_json_doc_kstr(w, "context", b->context);
        tl_json_doc_key(w, "hints");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < b->nhints; k++)
            tl_json_doc_str(w, b->hints[k]);
        tl_json_doc_end(w, ']');
        tl_json_doc_key(w, "hint_categories");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < b->nhints; k++) {
            const char *c = tl_diag_hint_category(b->hints[k]);
            bool again = false;
            for (uint32_t j = 0; c && j < k; j++)
                again = again || tl_diag_hint_category(b->hints[j]) == c;
            if (c && !again)
                tl_json_doc_str(w, c);
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_kstr(w, "debug_context", b->debug_context);
        tl_json_doc_kbool(w, "fell_back_to_eager", b->fell_back);
        tl_json_doc_kbool(w, "in_pytorch", b->in_framework);
        j_loc_string(w, "pytorch_location", &b->inside);
        tl_json_doc_kstr(w, "pytorch_function", b->inside.function);
        j_line(w, b->log_line);
        j_ranks(w, &b->ranks);
        struct tl_buf inside = TL_BUF_INIT;
        struct tl_advice_vars v;
        tl_summary_break_vars(&v, b, &inside);
        j_advice(w, b->advice, &v);
        tl_buf_release(&inside);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static void j_recompiles(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "recompiles");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nrecompiles; i++) {
        const struct tl_diag_recompile *r = &d->recompiles[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "function", r->function);
        j_loc_string(w, "location", &r->where);
        tl_json_doc_ku64(w, "count", r->count);
        tl_json_doc_key(w, "reasons");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < r->nguards; k++) {
            const struct tl_diag_guard *g = &r->guards[k];
            struct tl_advice_vars v;
            vars_of_guard(&v, g->example);
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "guard", g->guard);
            tl_json_doc_ku64(w, "count", g->count);
            tl_json_doc_kstr(w, "example", g->example);
            j_strs(w, "values", &g->values);
            tl_json_doc_ku64(w, "distinct_values", g->values.n);
            j_advice(w, g->advice, &v);
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        j_strs(w, "compile_ids", &r->cids);
        tl_json_doc_key(w, "resumes_after_line");
        if (r->resume_line)
            tl_json_doc_u64(w, r->resume_line);
        else
            tl_json_doc_null(w);
        j_loc_string(w, "called_from", &r->called_from);
        tl_json_doc_kstr(w, "called_from_function", r->called_from.function);
        j_line(w, r->log_line);
        j_ranks(w, &r->ranks);
        struct tl_advice_vars v;
        vars_of_guard(&v, r->nguards ? r->guards[0].example : NULL);
        j_advice(w, r->advice, &v);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static const char *spec_kind(enum tl_diag_spec_kind k)
{
    return k == TL_SPEC_SPECIALIZED ? "specialized" : k == TL_SPEC_DUCK ? "duck_sized" : "guard";
}

static void j_specs(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "specializations");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nspecs; i++) {
        const struct tl_diag_spec *s = &d->specs[i];
        struct tl_advice_vars v;
        vars_of_spec(&v, s);
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "kind", spec_kind(s->kind));
        tl_json_doc_kstr(w, "symbol", s->symbol);
        tl_json_doc_kstr(w, "expr", s->expr);
        tl_json_doc_kstr(w, "readable", s->readable);
        tl_json_doc_kstr(w, "source", s->source);
        tl_json_doc_kstr(w, "value", s->value);
        tl_json_doc_kstr(w, "range", s->range);
        j_loc_string(w, "location", &s->where);
        tl_json_doc_kstr(w, "function", s->where.function);
        tl_json_doc_kstr(w, "code", s->where.code);
        tl_json_doc_kstr(w, "compile_id", s->cid);
        tl_json_doc_key(w, "symbols");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < s->nsyms; k++) {
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "symbol", s->syms[k].symbol);
            tl_json_doc_kstr(w, "source", s->syms[k].source);
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_ku64(w, "count", s->count);
        j_line(w, s->log_line);
        j_ranks(w, &s->ranks);
        j_advice(w, s->advice, &v);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static void j_failures(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "failures");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nfailures; i++) {
        const struct tl_diag_failure *f = &d->failures[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "compile_id", f->cid);
        tl_json_doc_kstr(w, "type", f->type);
        tl_json_doc_kstr(w, "reason", f->reason);
        j_loc_string(w, "location", &f->where);
        tl_json_doc_kstr(w, "function", f->where.function);
        tl_json_doc_kbool(w, "fell_back_to_eager", f->fell_back_to_eager);
        tl_json_doc_kbool(w, "backward", f->backward);
        tl_json_doc_kstr(w, "forward_node", f->forward_node);
        j_loc_string(w, "forward_location", &f->forward_where);
        j_line(w, f->log_line);
        j_ranks(w, &f->ranks);
        struct tl_advice_vars fv;
        tl_summary_failure_vars(&fv, f);
        j_advice(w, f->advice, &fv);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static void j_limits(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "limits_hit");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nlimits; i++) {
        const struct tl_diag_limit *l = &d->limits[i];
        char num[32];
        struct tl_advice_vars v;
        vars_of_limit(&v, l, num, sizeof(num));
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "function", l->function);
        j_loc_string(w, "location", &l->where);
        tl_json_doc_key(w, "limit");
        if (l->limit)
            tl_json_doc_u64(w, l->limit);
        else
            tl_json_doc_null(w);
        tl_json_doc_kstr(w, "limit_name", l->limit_name);
        tl_json_doc_kstr(w, "last_reason", l->last_reason);
        tl_json_doc_kstr(w, "compile_id", l->cid);
        j_line(w, l->log_line);
        j_ranks(w, &l->ranks);
        j_advice(w, l->advice, &v);
        struct tl_advice_vars rv;
        vars_of_guard(&rv, l->last_reason);
        tl_json_doc_key(w, "last_reason_advice");
        if (l->reason_advice) {
            struct tl_json_doc *ww = w;
            /* j_advice writes its own key: write the object by hand */
            struct filled f;
            fill(&f, l->reason_advice, &rv);
            tl_json_doc_object(ww);
            tl_json_doc_kstr(ww, "category", l->reason_advice->category);
            tl_json_doc_kstr(ww, "title", f.title.buf);
            tl_json_doc_kstr(ww, "explanation", f.explanation.buf);
            tl_json_doc_kstr(ww, "fix", f.fix.buf);
            tl_json_doc_end(ww, '}');
            unfill(&f);
        } else {
            tl_json_doc_null(w);
        }
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static void j_frames(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "frames_compiled_many_times");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diag_frame *f = &d->frames[i];
        if (f->compiles < TL_DIAG_MANY_COMPILES)
            continue;
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "function", f->function);
        j_loc_string(w, "location", &f->where);
        tl_json_doc_ku64(w, "compiles", f->compiles);
        j_strs(w, "compile_ids", &f->cids);
        j_advice(w, tl_advice_match(TL_ADVICE_FRAME, tl_str_cstr("")), NULL);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

/* Every frame, with what `tlparse diff` matches it on and compares. */
static void j_all_frames(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "frames");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diag_frame *f = &d->frames[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "frame", f->key);
        tl_json_doc_kstr(w, "function", f->function);
        tl_json_doc_kstr(w, "name", f->name);
        tl_json_doc_kstr(w, "file", f->where.file);
        tl_json_doc_key(w, "line");
        if (f->where.line)
            tl_json_doc_u64(w, f->where.line);
        else
            tl_json_doc_null(w);
        tl_json_doc_key(w, "callers");
        if (f->stack) {
            tl_json_doc_array(w);
            for (const char *p = f->stack; *p;) {
                const char *nl = strchr(p, '\n');
                size_t n = nl ? (size_t)(nl - p) : strlen(p);
                tl_json_doc_strn(w, p, n);
                p += n + (nl ? 1 : 0);
            }
            tl_json_doc_end(w, ']');
        } else {
            tl_json_doc_null(w);
        }
        tl_json_doc_ku64(w, "compiles", f->compiles);
        j_strs(w, "compile_ids", &f->cids);
        tl_json_doc_key(w, "compile_time_s");
        if (f->have_time)
            tl_json_doc_f64(w, f->seconds);
        else
            tl_json_doc_null(w);
        tl_json_doc_key(w, "graphs");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < f->ngraphs; k++) {
            const struct tl_diag_fgraph *g = &f->graphs[k];
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "compile_id", g->cid);
            tl_json_doc_kstr(w, "hash", g->hash);
            tl_json_doc_key(w, "nodes");
            if (g->has_nodes)
                tl_json_doc_u64(w, g->nodes);
            else
                tl_json_doc_null(w);
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static void j_exports(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "export");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nexports; i++) {
        const struct tl_diag_export *x = &d->exports[i];
        struct tl_buf qualname = TL_BUF_INIT;
        struct tl_advice_vars v;
        tl_summary_export_vars(&v, x, &qualname);
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "kind", tl_diag_export_kind_name(x->kind));
        tl_json_doc_kstr(w, "expr", x->expr);
        tl_json_doc_kstr(w, "readable", x->readable);
        tl_json_doc_kstr(w, "result", x->result);
        tl_json_doc_kstr(w, "op", x->op);
        tl_json_doc_kstr(w, "reason", x->reason);
        j_loc_string(w, "location", &x->where);
        tl_json_doc_kstr(w, "function", x->where.function);
        tl_json_doc_kstr(w, "code", x->where.code);
        tl_json_doc_key(w, "unbacked");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < x->nunbacked; k++) {
            const struct tl_diag_unbacked *u = &x->unbacked[k];
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "symbol", u->symbol);
            j_loc_string(w, "location", &u->where);
            tl_json_doc_kstr(w, "function", u->where.function);
            tl_json_doc_kstr(w, "code", u->where.code);
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        j_strs(w, "compile_ids", &x->cids);
        tl_json_doc_ku64(w, "count", x->count);
        j_line(w, x->log_line);
        j_ranks(w, &x->ranks);
        j_advice(w, x->advice, &v);
        tl_json_doc_end(w, '}');
        tl_buf_release(&qualname);
    }
    tl_json_doc_end(w, ']');
}

static void j_restarts(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "restarts");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nrestarts; i++) {
        const struct tl_diag_restart *r = &d->restarts[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "kind", r->kind);
        tl_json_doc_kstr(w, "reason", r->reason);
        tl_json_doc_kstr(w, "function", r->function);
        j_loc_string(w, "location", &r->where);
        j_loc_string(w, "called_from", &r->called_from);
        tl_json_doc_kstr(w, "called_from_function", r->called_from.function);
        j_strs(w, "what", &r->what);
        tl_json_doc_ku64(w, "count", r->count);
        j_strs(w, "compile_ids", &r->cids);
        j_line(w, r->log_line);
        j_ranks(w, &r->ranks);
        struct tl_buf what = TL_BUF_INIT;
        struct tl_advice_vars v;
        tl_summary_restart_vars(&v, r, &what);
        j_advice(w, r->advice, &v);
        tl_buf_release(&what);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static void j_cache(struct tl_json_doc *w, const char *key, const uint32_t c[3])
{
    tl_json_doc_key(w, key);
    tl_json_doc_object(w);
    tl_json_doc_ku64(w, "hit", c[0]);
    tl_json_doc_ku64(w, "miss", c[1]);
    tl_json_doc_ku64(w, "bypass", c[2]);
    tl_json_doc_end(w, '}');
}

static const char *const finding_kinds[] = {
    [TL_FIND_FAILURE] = "failure",     [TL_FIND_LIMIT] = "limit",
    [TL_FIND_RECOMPILE] = "recompile", [TL_FIND_BREAK] = "graph_break",
    [TL_FIND_SPEC] = "specialization", [TL_FIND_FRAME] = "many_compiles",
    [TL_FIND_EXPORT] = "export",       [TL_FIND_RESTART] = "restart",
};

/* The advice of a finding, for the ordered list. */
static const struct tl_advice *finding_advice(const struct tl_diag *d,
                                              const struct tl_diag_finding *f)
{
    switch (f->kind) {
    case TL_FIND_FAILURE:
        return d->failures[f->index].advice;
    case TL_FIND_LIMIT:
        return d->limits[f->index].advice;
    case TL_FIND_RECOMPILE:
        return d->recompiles[f->index].advice;
    case TL_FIND_BREAK:
        return d->breaks[f->index].advice;
    case TL_FIND_SPEC:
        return d->specs[f->index].advice;
    case TL_FIND_EXPORT:
        return d->exports[f->index].advice;
    case TL_FIND_RESTART:
        return d->restarts[f->index].advice;
    default:
        return tl_advice_match(TL_ADVICE_FRAME, tl_str_cstr(""));
    }
}

/* ---- a rank of a multi-rank run ------------------------------------------------------------ */

static void j_names(struct tl_json_doc *w, const char *key, const char *const *v, size_t n)
{
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (size_t i = 0; i < n; i++)
        tl_json_doc_str(w, v[i]);
    tl_json_doc_end(w, ']');
}

/* The "rank" member: everything the landing page reads (model/ranks.h), so that it can be
 * made from the summaries alone (`--all-ranks-html --from-summaries`). */
static void j_rank(struct tl_json_doc *w, const struct tl_rank_summary *r)
{
    tl_json_doc_key(w, "rank");
    tl_json_doc_object(w);
    tl_json_doc_ku64(w, "number", r->rank);
    tl_json_doc_kstr(w, "log", r->log ? r->log : "");
    tl_json_doc_kstr(w, "error", r->error);
    tl_json_doc_kstr(w, "notes", r->notes);
    j_names(w, "compile_ids", r->compile_ids, r->ncompile_ids);
    tl_json_doc_kstr(w, "cache_sequence", r->cache_sequence ? r->cache_sequence : "");
    tl_json_doc_ku64(w, "chromium_events", r->chromium_events);
    tl_json_doc_key(w, "runtime");
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nruntime; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "graph", r->runtime[i].graph);
        tl_json_doc_key(w, "ops");
        tl_json_doc_array(w);
        for (size_t j = 0; j < r->runtime[i].nops; j++) {
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "name", r->runtime[i].ops[j].name);
            tl_json_doc_key(w, "estimated_runtime_ns");
            tl_json_doc_f64_exact(w, r->runtime[i].ops[j].estimated_runtime_ns);
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_key(w, "tensor_meta");
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nmeta; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "graph", r->meta[i].graph);
        tl_json_doc_kstr(w, "fingerprint", r->meta[i].fingerprint);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_key(w, "collective_schedules");
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nschedules; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "graph", r->schedules[i].graph);
        j_names(w, "ops", r->schedules[i].ops, r->schedules[i].nops);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    if (r->has_exec_order) {
        j_names(w, "execution_order", r->exec_order, r->nexec_order);
    } else {
        tl_json_doc_key(w, "execution_order");
        tl_json_doc_null(w);
    }
    tl_json_doc_key(w, "folders");
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nfolders; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "folder", r->folders[i].folder);
        tl_json_doc_kstr(w, "compile_id", r->folders[i].key);
        tl_json_doc_kstr(w, "cache_status", r->folders[i].cache_status);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_key(w, "diagnosis");
    tl_json_doc_object(w);
    tl_json_doc_ku64(w, "recompiles", r->diag.recompiles);
    tl_json_doc_ku64(w, "graph_breaks", r->diag.graph_breaks);
    tl_json_doc_ku64(w, "failures", r->diag.failures);
    tl_json_doc_ku64(w, "limits", r->diag.limits);
    tl_json_doc_ku64(w, "compile_ids", r->diag.compile_ids);
    tl_json_doc_key(w, "compile_time_s");
    if (r->diag.has_time)
        tl_json_doc_f64(w, r->diag.compile_s);
    else
        tl_json_doc_null(w);
    static const char *const details[4] = {"recompiled", "broke_graphs", "failed", "limit_hit"};
    for (int k = 0; k < 4; k++)
        tl_json_doc_kstr(w, details[k], r->diag.detail[k]);
    tl_json_doc_end(w, '}');
    tl_json_doc_end(w, '}');
}

/* The diagnosis counts of a rank, by index (the order of the divergences of ranks.h). */
static const struct {
    const char *kind, *what;
} rank_counts[] = {
    {"recompiles", "recompiled"},
    {"graph_breaks", "broke graphs"},
    {"failures", "failed to compile"},
    {"recompile_limits", "hit the recompile limit"},
};

static uint32_t rank_count(const struct tl_rank_summary *s, size_t k)
{
    const uint32_t v[] = {s->diag.recompiles, s->diag.graph_breaks, s->diag.failures,
                          s->diag.limits};
    return v[k];
}

/* The ranks (with a report) whose count k is non-zero (on) or zero. */
static size_t j_ranks_with(struct tl_json_doc *w, const char *key, const struct tl_ranks *r,
                           size_t k, bool on)
{
    size_t n = 0;
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nranks; i++) {
        if (r->ranks[i].error || (rank_count(&r->ranks[i], k) > 0) != on)
            continue;
        tl_json_doc_u64(w, r->ranks[i].rank);
        n++;
    }
    tl_json_doc_end(w, ']');
    return n;
}

static void j_groups(struct tl_json_doc *w, const char *key, const char *value_key,
                     const struct tl_rank_groups *g)
{
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (size_t i = 0; i < g->n; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, value_key, g->groups[i].value);
        tl_json_doc_key(w, "ranks");
        tl_json_doc_array(w);
        for (size_t k = 0; k < g->groups[i].nranks; k++)
            tl_json_doc_u64(w, g->groups[i].ranks[k]);
        tl_json_doc_end(w, ']');
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

void tl_summary_json_ranks(struct tl_buf *out, const struct tl_ranks *r)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY);
    tl_json_doc_object(&w);
    tl_json_doc_kstr(&w, "schema", "tlparse-ranks/1");
    tl_json_doc_key(&w, "ranks");
    tl_json_doc_array(&w);
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        char report[48];
        snprintf(report, sizeof(report), "rank_%u/index.html", s->rank);
        tl_json_doc_object(&w);
        tl_json_doc_ku64(&w, "rank", s->rank);
        tl_json_doc_kstr(&w, "log", s->log);
        tl_json_doc_kstr(&w, "report", s->error ? NULL : report);
        tl_json_doc_kstr(&w, "error", s->error);
        tl_json_doc_kstr(&w, "notes", s->notes);
        /* as the rank's own summary counts them: [-/-] is no compile id */
        tl_json_doc_ku64(&w, "compile_ids", s->diag.compile_ids);
        for (size_t k = 0; k < TL_ARRAY_LEN(rank_counts); k++)
            tl_json_doc_ku64(&w, rank_counts[k].kind, rank_count(s, k));
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, ']');
    /* A finding per count that some ranks have and others do not. */
    tl_json_doc_key(&w, "divergences");
    tl_json_doc_array(&w);
    for (size_t k = 0; k < TL_ARRAY_LEN(rank_counts); k++) {
        size_t on = 0, off = 0;
        for (size_t i = 0; i < r->nranks; i++) {
            if (r->ranks[i].error)
                continue;
            if (rank_count(&r->ranks[i], k))
                on++;
            else
                off++;
        }
        if (!on || !off)
            continue;
        tl_json_doc_object(&w);
        tl_json_doc_kstr(&w, "kind", rank_counts[k].kind);
        tl_json_doc_kstr(&w, "what", rank_counts[k].what);
        j_ranks_with(&w, "ranks", r, k, true);
        j_ranks_with(&w, "others", r, k, false);
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, ']');
    tl_json_doc_kbool(&w, "compile_ids_diverge", r->compile_ids_diverge);
    j_groups(&w, "cache_groups", "sequence", &r->cache);
    j_groups(&w, "collective_groups", "ops", &r->schedules);
    j_groups(&w, "tensor_meta_groups", "signature", &r->meta);
    tl_json_doc_key(&w, "execution_order");
    if (r->exec.available) {
        tl_json_doc_object(&w);
        tl_json_doc_kbool(&w, "order_differs", r->exec.order_differs);
        tl_json_doc_kstr(&w, "schedule_mismatch", r->exec.ranks_schedule);
        tl_json_doc_kstr(&w, "cache_mismatch", r->exec.ranks_cache);
        tl_json_doc_end(&w, '}');
    } else {
        tl_json_doc_null(&w);
    }
    tl_json_doc_end(&w, '}');
    tl_buf_addch(out, '\n');
}

/* "generated_by": what made the report (runinfo.h); unknown values are null. */
static void j_generated_by(struct tl_json_doc *w, const struct tl_runinfo *info)
{
    tl_json_doc_key(w, "generated_by");
    tl_json_doc_object(w);
    tl_json_doc_kstr(w, "tool", "tlparse");
    tl_json_doc_kstr(w, "version", info->version);
    tl_json_doc_kstr(w, "revision", info->revision && info->revision[0] ? info->revision : NULL);
    tl_json_doc_kstr(w, "command_line", info->command_line);
    tl_json_doc_kstr(w, "redacted", info->redacted);
    tl_json_doc_key(w, "input");
    tl_json_doc_object(w);
    tl_json_doc_kstr(w, "path", info->input);
    tl_json_doc_key(w, "size");
    if (info->has_stat)
        tl_json_doc_u64(w, info->input_size);
    else
        tl_json_doc_null(w);
    tl_json_doc_key(w, "mtime");
    struct tl_buf when = TL_BUF_INIT;
    if (info->has_stat && tl_page_utc(&when, info->input_mtime, true))
        tl_json_doc_str(w, when.buf);
    else
        tl_json_doc_null(w);
    tl_buf_release(&when);
    tl_json_doc_end(w, '}');
    tl_json_doc_end(w, '}');
}

static void j_source(struct tl_json_doc *w, const struct tl_summary_source *src)
{
    tl_json_doc_key(w, "source");
    tl_json_doc_object(w);
    tl_json_doc_kstr(w, "path", src->path);
    tl_json_doc_kstr(w, "kind", src->kind);
    tl_json_doc_end(w, '}');
}

/* "findings": the ordered list, each pointing into its kind's array by index. */
static void j_findings(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "findings");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nfindings; i++) {
        const struct tl_diag_finding *f = &d->findings[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "kind", finding_kinds[f->kind]);
        tl_json_doc_ku64(w, "index", f->index);
        tl_json_doc_kstr(w, "category", finding_advice(d, f)->category);
        tl_json_doc_kbool(w, "normal", f->normal);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static void j_compile_time(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "compile_time");
    tl_json_doc_object(w);
    tl_json_doc_key(w, "total_s");
    if (d->have_times)
        tl_json_doc_f64(w, d->total_s);
    else
        tl_json_doc_null(w);
    tl_json_doc_key(w, "slowest");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nslowest; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "compile_id", d->slowest[i].cid);
        tl_json_doc_kstr(w, "function", d->slowest[i].function);
        tl_json_doc_key(w, "seconds");
        tl_json_doc_f64(w, d->slowest[i].seconds);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_end(w, '}');
}

static void j_caches(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "cache");
    tl_json_doc_object(w);
    j_cache(w, "fx_graph", d->cache[0]);
    j_cache(w, "aotautograd", d->cache[1]);
    tl_json_doc_end(w, '}');
}

static void j_dynamic(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "dynamic_dimensions");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->ndynamic; i++) {
        const struct tl_diag_dynamic *x = &d->dynamic[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "symbol", x->symbol);
        tl_json_doc_kstr(w, "source", x->source);
        tl_json_doc_kstr(w, "value", x->value);
        tl_json_doc_kstr(w, "range", x->range);
        j_loc_string(w, "location", &x->where);
        tl_json_doc_kstr(w, "function", x->where.function);
        tl_json_doc_kstr(w, "compile_id", x->cid);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

/* "graph_count" and "graphs": how many graphs, and the largest of them. */
static void j_graphs(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_ku64(w, "graph_count", d->ngraphs);
    tl_json_doc_key(w, "graphs");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nlargest; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "compile_id", d->largest[i].cid);
        tl_json_doc_kstr(w, "name", d->largest[i].name);
        tl_json_doc_ku64(w, "nodes", d->largest[i].nodes);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

void tl_summary_json(struct tl_buf *out, const struct tl_diag *d,
                     const struct tl_summary_source *src, bool pretty)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, pretty ? TL_JSON_DOC_PRETTY : 0);
    tl_json_doc_object(&w);
    tl_json_doc_kstr(&w, "schema", "tlparse-summary/1");
    j_source(&w, src);
    if (src->info)
        j_generated_by(&w, src->info);
    /* null for the logs that do not say it (PyTorch before 2.7, TORCH_LOGS text) */
    tl_json_doc_kstr(&w, "pytorch_version", d->pytorch_version);
    tl_json_doc_ku64(&w, "compile_ids", d->compile_ids);
    j_findings(&w, d);
    j_breaks(&w, d);
    j_recompiles(&w, d);
    j_specs(&w, d);
    j_failures(&w, d);
    j_limits(&w, d);
    j_frames(&w, d);
    j_exports(&w, d);
    j_restarts(&w, d);
    j_compile_time(&w, d);
    j_caches(&w, d);
    j_dynamic(&w, d);
    j_graphs(&w, d);
    j_all_frames(&w, d);
    if (src->rank)
        j_rank(&w, src->rank);
    tl_json_doc_end(&w, '}');
    tl_buf_addch(out, '\n');
}

/* ---- text --------------------------------------------------------------------------------- */

struct text {
    struct tl_buf *out;
    bool color;
    bool brief; /* a normal finding: its title and fix on one line */
};

static void paint(struct text *t, const char *code, const char *s)
{
    tl_term_paint(t->out, t->color, code, s);
}

/* Log text on a terminal: no control characters. */
static void safe(struct text *t, const char *s)
{
    tl_term_safe(t->out, s);
}

/* Text of several lines, each indented (the first too), at most max lines. */
static void safe_lines(struct text *t, const char *s, const char *indent, int max)
{
    int n = 0;
    for (const char *p = s; p && *p && n < max; n++) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        tl_buf_adds(t->out, indent);
        tl_buf_add_printable(t->out, p, len);
        tl_buf_addch(t->out, '\n');
        p = nl ? nl + 1 : NULL;
        if (p && n + 1 == max && *p)
            tl_buf_addf(t->out, "%s...\n", indent);
    }
}

/* A part of an advice: our text with the log's values filled in, so printable. */
static void advice_part(struct text *t, const struct tl_buf *part)
{
    tl_buf_add_printable(t->out, part->buf, part->len);
}

static void why_fix(struct text *t, const struct tl_advice *a, const struct tl_advice_vars *v)
{
    struct filled f;
    fill(&f, a, v);
    if (t->brief) {
        tl_buf_adds(t->out, "     ");
        advice_part(t, &f.title);
        tl_buf_adds(t->out, ". ");
        advice_part(t, &f.fix);
        tl_buf_addch(t->out, '\n');
        unfill(&f);
        return;
    }
    tl_buf_adds(t->out, "     ");
    paint(t, "1", "What:");
    tl_buf_addch(t->out, ' ');
    advice_part(t, &f.title);
    tl_buf_adds(t->out, ". ");
    advice_part(t, &f.explanation);
    tl_buf_adds(t->out, "\n     ");
    paint(t, "1;32", "Fix:");
    tl_buf_addch(t->out, ' ');
    advice_part(t, &f.fix);
    tl_buf_adds(t->out, "\n");
    unfill(&f);
}

static void text_loc(struct text *t, const struct tl_diag_loc *l)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_summary_loc(&b, l);
    if (l->def && l->function) {
        /* only the function is known: name it, and where it starts */
        tl_buf_adds(t->out, "in ");
        safe(t, l->function);
        if (b.len) {
            tl_buf_adds(t->out, " (defined at ");
            safe(t, b.buf);
            tl_buf_addch(t->out, ')');
        }
    } else {
        safe(t, b.buf);
        if (l->function) {
            tl_buf_adds(t->out, b.len ? " in " : "in ");
            safe(t, l->function);
        }
    }
    tl_buf_release(&b);
}

static void text_cids(struct text *t, const struct tl_diag_strs *l)
{
    if (!l->kept)
        return;
    tl_buf_adds(t->out, "     compile ids:");
    for (uint32_t i = 0; i < l->kept && i < 12; i++) {
        tl_buf_addch(t->out, ' ');
        safe(t, l->s[i]);
    }
    if (l->n > 12)
        tl_buf_addf(t->out, " ... (%u in all)", l->n);
    tl_buf_addch(t->out, '\n');
}

/* "EXPORT BLOCKED: Data dependent error: EXPR was specialized to RESULT at FILE:LINE in FN",
 * then the line of code, where its unbacked symbols come from, and the kernel's reason. */
static void text_export(struct text *t, const struct tl_diag_export *x)
{
    struct tl_buf *o = t->out;
    paint(t, "1;31", "EXPORT BLOCKED");
    if (x->count > 1)
        tl_buf_addf(o, " x%u", x->count);
    tl_buf_adds(o, ": ");
    tl_buf_adds(o, tl_summary_export_label(x->kind));
    tl_buf_adds(o, ": ");
    if (x->kind == TL_EXPORT_PROBLEM_MISSING_FAKE || x->kind == TL_EXPORT_PROBLEM_MISMATCHED_FAKE) {
        if (x->op) {
            tl_buf_adds(o, "torch.ops.");
            safe(t, x->op);
        } else {
            tl_buf_adds(o, "(operator not logged)");
        }
    } else {
        if (x->expr)
            safe(t, x->expr);
        else
            tl_buf_adds(o, "(expression not logged)");
        if (x->readable) {
            tl_buf_adds(o, ", that is ");
            safe(t, x->readable);
            if (x->result || x->where.file || x->where.function)
                tl_buf_addch(o, ',');
        }
        if (x->result) {
            tl_buf_adds(o, " was specialized to ");
            safe(t, x->result);
        }
    }
    if (x->where.file || x->where.function) {
        tl_buf_adds(o, x->where.file ? " at " : " "); /* text_loc says "in fn" alone */
        text_loc(t, &x->where);
    }
    tl_buf_addch(o, '\n');
    if (x->where.code) {
        tl_buf_adds(o, "     ");
        safe(t, x->where.code);
        tl_buf_addch(o, '\n');
    }
    for (uint32_t k = 0; k < x->nunbacked; k++) {
        const struct tl_diag_unbacked *u = &x->unbacked[k];
        tl_buf_adds(o, "     ");
        safe(t, u->symbol);
        tl_buf_adds(o, " comes from ");
        safe(t, u->where.code);
        if (!u->where.code && !u->where.file) {
            safe(t, u->where.function);
        } else if (u->where.file || u->where.function) {
            if (u->where.code)
                tl_buf_adds(o, u->where.file ? " at " : " ");
            text_loc(t, &u->where);
        }
        tl_buf_addch(o, '\n');
    }
    safe_lines(t, x->reason, "     | ", 12);
    text_cids(t, &x->cids);
}

/* "[rank 1] ", "[ranks 0, 2, 3] ": on which ranks of a log of several a finding was seen. */
static void text_ranks(struct text *t, const struct tl_diag *d, const struct tl_diag_finding *f)
{
    struct tl_buf *o = t->out;
    const struct tl_diag_ranks *rk = tl_diag_finding_ranks(d, f);
    if (d->ranks.n > 1 && rk && rk->n) {
        tl_buf_adds(o, rk->n == 1 ? "[rank " : "[ranks ");
        for (uint32_t i = 0; i < rk->kept && i < 8; i++)
            tl_buf_addf(o, "%s%d", i ? ", " : "", (int)rk->r[i]);
        if (rk->n > 8)
            tl_buf_addf(o, ", ... %u in all", rk->n);
        tl_buf_adds(o, "] ");
    }
}

static void text_export_finding(struct text *t, const struct tl_diag_export *x)
{
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    struct tl_buf qualname = TL_BUF_INIT;
    tl_summary_export_vars(&v, x, &qualname);
    text_export(t, x);
    why_fix(t, x->advice, &v);
    tl_buf_release(&qualname);
}

static void text_failure(struct text *t, const struct tl_diag_failure *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    tl_summary_failure_vars(&v, x);
    paint(t, "1;31", x->fell_back_to_eager ? "FAILED, RAN IN EAGER" : "FAILED");
    tl_buf_addch(o, ' ');
    safe(t, x->cid);
    tl_buf_addch(o, ' ');
    safe(t, x->type);
    if (x->where.file) {
        tl_buf_adds(o, " at ");
        text_loc(t, &x->where);
    }
    tl_buf_addch(o, '\n');
    safe_lines(t, x->reason, "     | ", 12);
    if (x->forward_node) {
        tl_buf_adds(o, "     from the forward node ");
        safe(t, x->forward_node);
        if (x->forward_where.file) {
            tl_buf_adds(o, " at ");
            text_loc(t, &x->forward_where);
        }
        tl_buf_addch(o, '\n');
    }
    why_fix(t, x->advice, &v);
}

/* The last reason's own advice, labelled as such rather than a second "What:". */
static void text_last_reason_advice(struct text *t, const struct tl_diag_limit *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars rv;
    vars_of_guard(&rv, x->last_reason);
    struct filled rf;
    fill(&rf, x->reason_advice, &rv);
    tl_buf_adds(o, "     ");
    paint(t, "1", "Its last reason:");
    tl_buf_addch(o, ' ');
    advice_part(t, &rf.title);
    if (x->reason_listed) { /* its recompiles give the advice: said once */
        tl_buf_adds(o, " (its recompiles below say what to do).\n");
        unfill(&rf);
        return;
    }
    tl_buf_adds(o, ". ");
    advice_part(t, &rf.explanation);
    tl_buf_adds(o, "\n     ");
    paint(t, "1;32", "Fix:");
    tl_buf_addch(o, ' ');
    advice_part(t, &rf.fix);
    tl_buf_addch(o, '\n');
    unfill(&rf);
}

static void text_limit(struct text *t, const struct tl_diag_limit *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    char num[32];
    vars_of_limit(&v, x, num, sizeof(num));
    paint(t, "1;31", "RECOMPILE LIMIT");
    tl_buf_addch(o, ' ');
    safe(t, x->limit_name);
    if (x->limit)
        tl_buf_addf(o, " (%llu)", (unsigned long long)x->limit);
    tl_buf_adds(o, " hit ");
    text_loc(t, &x->where);
    tl_buf_addch(o, '\n');
    if (x->last_reason) {
        tl_buf_adds(o, "     last reason: ");
        safe(t, x->last_reason);
        tl_buf_addch(o, '\n');
    }
    why_fix(t, x->advice, &v);
    if (x->reason_advice && x->last_reason)
        text_last_reason_advice(t, x);
}

/* "- GUARD  (Nx: v1; v2; ...)": a reason of a recompile with the values it saw. */
static void text_guard(struct text *t, const struct tl_diag_guard *g)
{
    struct tl_buf *o = t->out;
    tl_buf_adds(o, "     - ");
    safe(t, g->guard);
    tl_buf_addf(o, "  (%ux", g->count);
    for (uint32_t j = 0; j < g->values.kept && j < 4; j++) {
        tl_buf_adds(o, j ? "; " : ": ");
        safe(t, g->values.s[j]);
    }
    if (g->values.n > 4) {
        tl_buf_addf(o, "; ... %u distinct values in all", g->values.n);
        if (g->values.n > g->count)
            tl_buf_adds(o, tl_summary_values_why);
    }
    tl_buf_adds(o, ")\n");
}

static void text_recompile(struct text *t, const struct tl_diag_recompile *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    paint(t, "1;33", "RECOMPILES");
    tl_buf_addf(o, " x%u ", x->count);
    text_loc(t, &x->where);
    if (x->resume_line)
        tl_buf_addf(o, ", the part after the graph break at line %u", x->resume_line);
    tl_buf_addch(o, '\n');
    if (x->called_from.file) {
        tl_buf_adds(o, "     called from ");
        text_loc(t, &x->called_from);
        tl_buf_addch(o, '\n');
    }
    for (uint32_t k = 0; k < x->nguards; k++)
        text_guard(t, &x->guards[k]);
    text_cids(t, &x->cids);
    vars_of_guard(&v, x->nguards ? x->guards[0].example : NULL);
    why_fix(t, x->advice, &v);
}

/* A note of PyTorch's after its label: its first line, then at most 8 more, indented. */
static void note_lines(struct text *t, const char *s)
{
    const char *nl = strchr(s, '\n');
    tl_buf_add_printable(t->out, s, nl ? (size_t)(nl - s) : strlen(s));
    tl_buf_addch(t->out, '\n');
    if (nl)
        safe_lines(t, nl + 1, "       ", 8);
}

/* What PyTorch says of a graph break in its own words (2.7 on): its id in the graph-break site
 * and what dynamo was tracing, its explanation, and its hints, quoted before our advice. */
static void text_break_notes(struct text *t, const struct tl_diag_break *x)
{
    struct tl_buf *o = t->out;
    if (x->gb_id || x->context) {
        tl_buf_adds(o, "     PyTorch");
        if (x->gb_id) {
            tl_buf_addch(o, ' ');
            safe(t, x->gb_id);
        }
        if (x->url) {
            tl_buf_adds(o, " (");
            safe(t, x->url);
            tl_buf_addch(o, ')');
        }
        if (x->context) {
            tl_buf_adds(o, x->gb_id || x->url ? ", while tracing " : " while tracing ");
            safe(t, x->context);
        }
        tl_buf_addch(o, '\n');
    }
    if (t->brief)
        return;
    if (x->explanation) {
        tl_buf_adds(o, "     PyTorch says: ");
        note_lines(t, x->explanation);
    }
    for (uint32_t k = 0; k < x->nhints; k++) {
        const char *kind = tl_diag_hint_category(x->hints[k]);
        tl_buf_adds(o, "     PyTorch's hint");
        if (kind)
            tl_buf_addf(o, " (%s)", kind);
        tl_buf_adds(o, ": ");
        note_lines(t, x->hints[k]);
    }
}

static void text_break(struct text *t, const struct tl_diag_break *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    paint(t, "1;33", "GRAPH BREAK");
    tl_buf_addf(o, " x%u: ", x->count);
    safe(t, x->reason);
    tl_buf_addch(o, '\n');
    if (x->fell_back)
        tl_buf_adds(o, "     dynamo could not handle it: the function was skipped and runs in "
                       "eager mode\n");
    if (x->in_framework && (x->inside.file || x->inside.function)) {
        tl_buf_adds(o, "     inside PyTorch at ");
        text_loc(t, &x->inside);
        tl_buf_adds(o, x->nlocs ? ", reached from your code:\n" : "\n");
    }
    for (uint32_t k = 0; k < x->nlocs; k++) {
        tl_buf_adds(o, x->locs[k].def ? "     " : "     at ");
        text_loc(t, &x->locs[k]);
        if (x->locs[k].code) {
            tl_buf_adds(o, ": ");
            safe(t, x->locs[k].code);
        }
        tl_buf_addch(o, '\n');
    }
    text_cids(t, &x->cids);
    text_break_notes(t, x);
    struct tl_buf inside = TL_BUF_INIT;
    tl_summary_break_vars(&v, x, &inside);
    why_fix(t, x->advice, &v);
    tl_buf_release(&inside);
}

static void text_restart(struct text *t, const struct tl_diag_restart *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    paint(t, "1", "RESTART");
    tl_buf_addf(o, " x%u: ", x->count);
    safe(t, x->kind);
    tl_buf_addch(o, ' ');
    text_loc(t, &x->where);
    tl_buf_addch(o, '\n');
    if (x->called_from.file) {
        tl_buf_adds(o, "     called from ");
        text_loc(t, &x->called_from);
        tl_buf_addch(o, '\n');
    }
    text_cids(t, &x->cids);
    struct tl_buf what = TL_BUF_INIT;
    tl_summary_restart_vars(&v, x, &what);
    why_fix(t, x->advice, &v);
    tl_buf_release(&what);
}

static void text_spec(struct text *t, const struct tl_diag_spec *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars v;
    vars_of_spec(&v, x);
    paint(t, "1;36",
          x->kind == TL_SPEC_SPECIALIZED ? "SPECIALIZED"
          : x->kind == TL_SPEC_DUCK      ? "DUCK SIZED"
                                         : "SHAPE GUARD");
    const char *what = x->source ? x->source : x->symbol;
    if (what) {
        tl_buf_addch(o, ' ');
        safe(t, what);
    }
    if (x->expr) {
        tl_buf_adds(o, what ? ": " : " ");
        safe(t, x->expr);
        if (x->readable) {
            tl_buf_adds(o, ", that is ");
            safe(t, x->readable);
        }
    } else if (x->value) {
        tl_buf_adds(o, " = ");
        safe(t, x->value);
    }
    if (x->where.file) {
        tl_buf_adds(o, " at ");
        text_loc(t, &x->where);
    }
    if (x->cid) {
        tl_buf_addch(o, ' ');
        safe(t, x->cid);
    }
    tl_buf_addch(o, '\n');
    if (x->where.code) {
        tl_buf_adds(o, "     ");
        safe(t, x->where.code);
        tl_buf_addch(o, '\n');
    }
    why_fix(t, x->advice, &v);
}

static void text_frame(struct text *t, const struct tl_diag_frame *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    paint(t, "1;33", "COMPILED MANY TIMES");
    tl_buf_addf(o, " x%u ", x->compiles);
    text_loc(t, &x->where);
    if (!x->where.file && !x->where.function) {
        tl_buf_adds(o, "frame ");
        safe(t, x->key);
    }
    tl_buf_addch(o, '\n');
    text_cids(t, &x->cids);
    why_fix(t, tl_advice_match(TL_ADVICE_FRAME, tl_str_cstr("")), &v);
}

static void text_finding(struct text *t, const struct tl_diag *d, const struct tl_diag_finding *f,
                         uint32_t n)
{
    tl_buf_addf(t->out, "%3u. ", n);
    text_ranks(t, d, f);
    switch (f->kind) {
    case TL_FIND_EXPORT:
        text_export_finding(t, &d->exports[f->index]);
        break;
    case TL_FIND_FAILURE:
        text_failure(t, &d->failures[f->index]);
        break;
    case TL_FIND_LIMIT:
        text_limit(t, &d->limits[f->index]);
        break;
    case TL_FIND_RECOMPILE:
        text_recompile(t, &d->recompiles[f->index]);
        break;
    case TL_FIND_BREAK:
        text_break(t, &d->breaks[f->index]);
        break;
    case TL_FIND_RESTART:
        text_restart(t, &d->restarts[f->index]);
        break;
    case TL_FIND_SPEC:
        text_spec(t, &d->specs[f->index]);
        break;
    default:
        text_frame(t, &d->frames[f->index]);
        break;
    }
}

/* "tlparse diagnosis of PATH (KIND): N compile ids, S s compiling" */
static void text_header(struct text *t, const struct tl_diag *d,
                        const struct tl_summary_source *src)
{
    struct tl_buf *out = t->out;
    paint(t, "1", "tlparse diagnosis");
    tl_buf_adds(out, " of ");
    safe(t, src->path);
    tl_buf_addf(out, " (%s", src->kind);
    if (d->pytorch_version) {
        tl_buf_adds(out, ", PyTorch ");
        safe(t, d->pytorch_version);
    }
    tl_buf_addf(out, "): %llu compile id%s", (unsigned long long)d->compile_ids,
                d->compile_ids == 1 ? "" : "s");
    if (d->have_times)
        tl_buf_addf(out, ", %.2f s compiling", d->total_s);
    tl_buf_adds(out, "\n\n");
}

/* The findings in order; the normal ones (last) under a heading of their own, brief. */
static void text_findings(struct text *t, const struct tl_diag *d)
{
    struct tl_buf *out = t->out;
    if (!d->nfindings)
        tl_buf_adds(out, "No graph breaks, recompiles, specializations or failures found.\n");
    for (uint32_t i = 0; i < d->nfindings; i++) {
        if (d->findings[i].normal && !t->brief) {
            t->brief = true;
            paint(t, "1", i ? "Normal, nothing to do:" : "Only what is normal, nothing to do:");
            tl_buf_adds(out, "\n\n");
        }
        text_finding(t, d, &d->findings[i], i + 1);
        tl_buf_addch(out, '\n');
    }
    t->brief = false;
}

static void text_dynamic(struct text *t, const struct tl_diag *d)
{
    struct tl_buf *out = t->out;
    if (!d->ndynamic)
        return;
    paint(t, "1", "Dynamic dimensions:");
    tl_buf_addch(out, '\n');
    for (uint32_t i = 0; i < d->ndynamic && i < 8; i++) {
        const struct tl_diag_dynamic *x = &d->dynamic[i];
        tl_buf_adds(out, "     ");
        safe(t, x->source ? x->source : x->symbol);
        tl_buf_adds(out, " (");
        safe(t, x->symbol);
        if (x->value) {
            tl_buf_adds(out, " = ");
            safe(t, x->value);
        }
        if (x->range) {
            tl_buf_adds(out, ", range ");
            safe(t, x->range);
        }
        tl_buf_addch(out, ')');
        if (x->where.file) {
            tl_buf_adds(out, " at ");
            text_loc(t, &x->where);
        }
        tl_buf_addch(out, '\n');
    }
    if (d->ndynamic_all > 8)
        tl_buf_addf(out, "     ... %u in all\n", d->ndynamic_all);
}

static void text_slowest(struct text *t, const struct tl_diag *d)
{
    struct tl_buf *out = t->out;
    if (!d->nslowest)
        return;
    paint(t, "1", "Slowest compilations:");
    for (uint32_t i = 0; i < d->nslowest && i < 5; i++) {
        tl_buf_adds(out, i ? ", " : " ");
        safe(t, d->slowest[i].cid);
        if (d->slowest[i].function) {
            tl_buf_addch(out, ' ');
            safe(t, d->slowest[i].function);
        }
        tl_buf_addf(out, " %.2f s", d->slowest[i].seconds);
    }
    tl_buf_addch(out, '\n');
}

static void text_caches(struct text *t, const struct tl_diag *d)
{
    if (!d->have_cache)
        return;
    paint(t, "1", "Caches:");
    tl_buf_addf(t->out,
                " fx_graph %u hit, %u miss, %u bypass; aotautograd %u hit, %u miss, %u "
                "bypass\n",
                d->cache[0][0], d->cache[0][1], d->cache[0][2], d->cache[1][0], d->cache[1][1],
                d->cache[1][2]);
}

static void text_largest(struct text *t, const struct tl_diag *d)
{
    struct tl_buf *out = t->out;
    if (!d->nlargest)
        return;
    paint(t, "1", "Largest graphs:");
    for (uint32_t i = 0; i < d->nlargest && i < 5; i++) {
        tl_buf_adds(out, i ? ", " : " ");
        safe(t, d->largest[i].cid ? d->largest[i].cid : d->largest[i].name);
        if (d->largest[i].cid && d->largest[i].name) {
            tl_buf_addch(out, ' ');
            safe(t, d->largest[i].name);
        }
        tl_buf_addf(out, " %llu nodes", (unsigned long long)d->largest[i].nodes);
    }
    tl_buf_addch(out, '\n');
}

void tl_summary_text(struct tl_buf *out, const struct tl_diag *d,
                     const struct tl_summary_source *src, bool color)
{
    struct text t = {out, color, false};
    text_header(&t, d, src);
    text_findings(&t, d);
    text_dynamic(&t, d);
    text_slowest(&t, d);
    text_caches(&t, d);
    text_largest(&t, d);
}
