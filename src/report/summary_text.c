/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis as the plain text of `tlparse --summary` (summary.h): a header, the findings
 * most costly first, each with what it is and its fix (a normal finding on one line), then
 * the dynamic dimensions, the slowest compilations, the caches and the largest graphs.
 */
#include "base/config.h"
#include "report/summary.h"
#include "report/cache_miss.h"
#include "report/terminal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
    struct tl_summary_advice f;
    tl_summary_advice_fill(&f, a, v);
    if (t->brief) {
        tl_buf_adds(t->out, "     ");
        advice_part(t, &f.title);
        tl_buf_adds(t->out, ". ");
        advice_part(t, &f.fix);
        tl_buf_addch(t->out, '\n');
        tl_summary_advice_release(&f);
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
    tl_summary_advice_release(&f);
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
    tl_summary_guard_vars(&rv, x->last_reason);
    struct tl_summary_advice rf;
    tl_summary_advice_fill(&rf, x->reason_advice, &rv);
    tl_buf_adds(o, "     ");
    paint(t, "1", "Its last reason:");
    tl_buf_addch(o, ' ');
    advice_part(t, &rf.title);
    if (x->reason_listed) { /* its recompiles give the advice: said once */
        tl_buf_adds(o, " (its recompiles below say what to do).\n");
        tl_summary_advice_release(&rf);
        return;
    }
    tl_buf_adds(o, ". ");
    advice_part(t, &rf.explanation);
    tl_buf_adds(o, "\n     ");
    paint(t, "1;32", "Fix:");
    tl_buf_addch(o, ' ');
    advice_part(t, &rf.fix);
    tl_buf_addch(o, '\n');
    tl_summary_advice_release(&rf);
}

static void text_limit(struct text *t, const struct tl_diag_limit *x)
{
    struct tl_buf *o = t->out;
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    char num[32];
    tl_summary_limit_vars(&v, x, num, sizeof(num));
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
    tl_summary_guard_vars(&v, x->nguards ? x->guards[0].example : NULL);
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
    tl_summary_spec_vars(&v, x);
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

/* Seconds and the share of the whole: "22.37 s (76%)". */
static void text_share(struct tl_buf *out, double s, double whole)
{
    tl_buf_addf(out, "%.2f s", s);
    if (whole > 0)
        tl_buf_addf(out, " (%.0f%%)", 100 * s / whole);
}

/* "Where the time went": the ledger's run lines (model/ledger.h), its phases largest first. */
static void text_ledger(struct text *t, const struct tl_diag *d)
{
    const struct tl_ledger *l = &d->ledger;
    struct tl_buf *out = t->out;
    if (!l->present)
        return;
    const struct tl_ledger_run *r = &l->run;
    paint(t, "1", "Where the time went:");
    tl_buf_addf(out, " the log spans %.2f s (%s)\n", r->span_s,
                r->from_events ? "PyTorch's timed events" : "compilation metrics, no events");
    tl_buf_adds(out, "  compiling ");
    text_share(out, r->compiling_s, r->span_s);
    int order[TL_LP_COUNT], n = 0;
    for (int p = 0; p < TL_LP_COUNT; p++)
        if (r->phases_s[p] >= 0.005)
            order[n++] = p;
    for (int i = 1; i < n; i++) /* largest first; few items */
        for (int j = i; j > 0 && r->phases_s[order[j]] > r->phases_s[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    /* the phases after a colon, wrapped before 96 columns */
    size_t line = 0;
    for (size_t k = out->len; k > 0; k--)
        if (out->buf[k - 1] == '\n') {
            line = k;
            break;
        }
    for (int i = 0; i < n; i++) {
        char item[64];
        int len =
            snprintf(item, sizeof(item), "%s %.2f s",
                     tl_ledger_phase_name((enum tl_ledger_phase)order[i]), r->phases_s[order[i]]);
        tl_buf_adds(out, i ? "," : ":");
        if (out->len - line + 1 + (size_t)len > 96) {
            tl_buf_adds(out, "\n   ");
            line = out->len - 3;
        }
        tl_buf_addch(out, ' ');
        tl_buf_adds(out, item);
    }
    tl_buf_adds(out, "\n");
    if (r->runtime_s > 0) {
        tl_buf_adds(out, "  first runs of compiled code ");
        text_share(out, r->runtime_s, r->span_s);
        tl_buf_adds(out, "\n");
    }
    tl_buf_adds(out, "  unaccounted ");
    text_share(out, r->unaccounted_s, r->span_s);
    tl_buf_adds(out, ": in no compile event (the program running, or untimed work)\n");
    if (r->from_events && r->metrics_s > 0 &&
        fabs(r->compiling_s - r->metrics_s) > 0.05 * r->compiling_s) {
        tl_buf_addf(out, "  the compilation metrics say %.2f s", r->metrics_s);
        if (r->backward_s > 0)
            tl_buf_addf(out, ": they leave out %.2f s of later compiles (backward)", r->backward_s);
        tl_buf_adds(out, "\n");
    }
    if (r->cold_n && r->warm_n)
        tl_buf_addf(out,
                    "  cold (a cache missed): %u compile id%s, %.2f s; warm (every lookup "
                    "hit): %u, %.2f s\n",
                    r->cold_n, r->cold_n == 1 ? "" : "s", r->cold_s, r->warm_n, r->warm_s);
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
    tl_cachemiss_text(t->out, d->cachekey, t->color); /* why they missed (cache_miss.c) */
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
    tl_summary_forecast_text(out, d, color);
    text_dynamic(&t, d);
    text_slowest(&t, d);
    text_ledger(&t, d);
    text_caches(&t, d);
    text_largest(&t, d);
}
