/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis as summary.json and `tlparse --json` (schema tlparse-summary/1, summary.h):
 * every finding with the advice of its rule, in the order of its kind's array, and the
 * ordered list of findings that points into them.
 */
#include "base/config.h"
#include "report/summary.h"
#include "report/cache_miss.h"
#include "base/json_write.h"
#include "report/pages.h"

#include <math.h>
#include <string.h>

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
    struct tl_summary_advice f;
    tl_summary_advice_fill(&f, a, v);
    tl_json_doc_object(w);
    tl_json_doc_kstr(w, "category", a->category);
    tl_json_doc_kstr(w, "title", f.title.buf);
    tl_json_doc_kstr(w, "explanation", f.explanation.buf);
    tl_json_doc_kstr(w, "fix", f.fix.buf);
    tl_json_doc_end(w, '}');
    tl_summary_advice_release(&f);
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
            tl_summary_guard_vars(&v, g->example);
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
        tl_summary_guard_vars(&v, r->nguards ? r->guards[0].example : NULL);
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
        tl_summary_spec_vars(&v, s);
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
        tl_summary_limit_vars(&v, l, num, sizeof(num));
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
        tl_summary_guard_vars(&rv, l->last_reason);
        tl_json_doc_key(w, "last_reason_advice");
        if (l->reason_advice) {
            struct tl_json_doc *ww = w;
            /* j_advice writes its own key: write the object by hand */
            struct tl_summary_advice f;
            tl_summary_advice_fill(&f, l->reason_advice, &rv);
            tl_json_doc_object(ww);
            tl_json_doc_kstr(ww, "category", l->reason_advice->category);
            tl_json_doc_kstr(ww, "title", f.title.buf);
            tl_json_doc_kstr(ww, "explanation", f.explanation.buf);
            tl_json_doc_kstr(ww, "fix", f.fix.buf);
            tl_json_doc_end(ww, '}');
            tl_summary_advice_release(&f);
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
        tl_summary_forecast_json(w, d, f->key); /* compiled more than once, or run in eager */
        tl_json_doc_end(w, '}');
    }
    tl_summary_forecast_json_frames(w, d);
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

/* Seconds to the microsecond the events give. */
static void j_secs(struct tl_json_doc *w, const char *key, double s)
{
    double v = round(s * 1e6) / 1e6;
    tl_json_doc_key(w, key);
    tl_json_doc_f64(w, v == 0 ? 0.0 : v); /* no -0.0 */
}

static const char *cache_word(unsigned cache)
{
    return cache & TL_LEDGER_MISS     ? "miss"
           : cache == TL_LEDGER_HIT   ? "hit"
           : cache & TL_LEDGER_BYPASS ? "bypass"
                                      : NULL;
}

/* compile_time.ledger (model/ledger.h): the run's lines, then each compile id's phases (those
 * not zero). null when the log times no compilation. */
static void j_ledger(struct tl_json_doc *w, const struct tl_ledger *l)
{
    tl_json_doc_key(w, "ledger");
    if (!l->present) {
        tl_json_doc_null(w);
        return;
    }
    const struct tl_ledger_run *r = &l->run;
    tl_json_doc_object(w);
    tl_json_doc_kstr(w, "source", r->from_events ? "chromium_events" : "compilation_metrics");
    j_secs(w, "span_s", r->span_s);
    j_secs(w, "compiling_s", r->compiling_s);
    j_secs(w, "runtime_s", r->runtime_s);
    j_secs(w, "unaccounted_s", r->unaccounted_s);
    j_secs(w, "overlap_s", r->overlap_s);
    j_secs(w, "metrics_s", r->metrics_s);
    j_secs(w, "backward_s", r->backward_s);
    tl_json_doc_key(w, "phases");
    tl_json_doc_object(w);
    for (int p = 0; p < TL_LP_COUNT; p++)
        j_secs(w, tl_ledger_phase_key((enum tl_ledger_phase)p), r->phases_s[p]);
    tl_json_doc_end(w, '}');
    for (int k = 0; k < 2; k++) {
        tl_json_doc_key(w, k ? "warm" : "cold");
        tl_json_doc_object(w);
        tl_json_doc_key(w, "compile_ids");
        tl_json_doc_u64(w, k ? r->warm_n : r->cold_n);
        j_secs(w, "s", k ? r->warm_s : r->cold_s);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_key(w, "compile_ids");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < l->ncids; i++) {
        const struct tl_ledger_cid *c = l->cids[i];
        double total = tl_ledger_cid_seconds(c);
        if (total <= 0 && c->runtime_us <= 0)
            continue;
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "compile_id", c->cid);
        j_secs(w, "s", total);
        tl_json_doc_key(w, "phases");
        tl_json_doc_object(w);
        for (int p = 0; p < TL_LP_COUNT; p++) {
            double x = tl_ledger_cid_phase_s(c, (enum tl_ledger_phase)p);
            if (x > 0)
                j_secs(w, tl_ledger_phase_key((enum tl_ledger_phase)p), x);
        }
        tl_json_doc_end(w, '}');
        tl_json_doc_key(w, "metrics_s");
        if (c->has_metrics)
            tl_json_doc_f64(w, round(c->m_entire_s * 1e6) / 1e6);
        else
            tl_json_doc_null(w);
        j_secs(w, "backward_s", c->backward_us / 1e6);
        j_secs(w, "runtime_s", c->runtime_us / 1e6);
        tl_json_doc_kstr(w, "cache", cache_word(c->cache));
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_end(w, '}');
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
    j_ledger(w, &d->ledger);
    tl_json_doc_end(w, '}');
}

static void j_caches(struct tl_json_doc *w, const struct tl_diag *d)
{
    tl_json_doc_key(w, "cache");
    tl_json_doc_object(w);
    j_cache(w, "fx_graph", d->cache[0]);
    j_cache(w, "aotautograd", d->cache[1]);
    tl_cachemiss_json(w, d->cachekey); /* why they missed (cache_miss.c) */
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
        tl_summary_json_rank(&w, src->rank);
    tl_json_doc_end(&w, '}');
    tl_buf_addch(out, '\n');
}
