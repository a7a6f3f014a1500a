/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live view's lines (live_text.h). Every line is complete: who, what, where, and the fix
 * of its advice, so that a CI log read later says all of it.
 */
#include "base/config.h"
#include "report/live_text.h"
#include "report/summary.h"
#include "report/terminal.h"

#include <stdio.h>
#include <string.h>

/* Log text, printable, on one line (a line break becomes a space). */
static void text(struct tl_buf *out, const char *s)
{
    if (!s)
        return;
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        n--;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t k = nl ? (size_t)(nl - s) - i : n - i;
        tl_buf_add_printable(out, s + i, k);
        i += k;
        if (nl) {
            tl_buf_addch(out, ' ');
            i++;
        }
    }
}

static void who_of(struct tl_buf *out, const struct tl_live_who *who)
{
    if (who->label) {
        struct tl_buf l = TL_BUF_INIT;
        text(&l, who->label);
        tl_term_paint(out, who->color, "1", l.buf ? l.buf : "");
        tl_buf_adds(out, " ");
        tl_buf_release(&l);
    }
}

static void kind_of(struct tl_buf *out, const struct tl_live_who *who, const char *code,
                    const char *kind)
{
    tl_term_paint(out, who->color, code, kind);
    tl_buf_adds(out, ": ");
}

/* " fn (file:line)" of a place in the user's code. */
static void where(struct tl_buf *out, const char *function, const struct tl_diag_loc *l)
{
    if (function) {
        tl_buf_addch(out, ' ');
        text(out, function);
    }
    if (l && l->file) {
        struct tl_buf loc = TL_BUF_INIT;
        tl_summary_loc(&loc, l);
        tl_buf_adds(out, function ? " (" : " ");
        text(out, loc.buf);
        if (function)
            tl_buf_addch(out, ')');
        tl_buf_release(&loc);
    }
}

static void cid_of(struct tl_buf *out, const char *cid)
{
    if (cid) {
        tl_buf_adds(out, " ");
        text(out, cid);
    }
}

/* " · fix: ..." of an advice, its placeholders filled from v. */
static void fix(struct tl_buf *out, const struct tl_live_who *who, const struct tl_advice *a,
                const struct tl_advice_vars *v)
{
    if (!a || !a->fix)
        return;
    struct tl_buf f = TL_BUF_INIT;
    tl_advice_format(&f, a->fix, v);
    tl_buf_adds(out, " \xc2\xb7 ");
    tl_term_paint(out, who->color, "32", "fix:");
    tl_buf_addch(out, ' ');
    text(out, f.buf);
    tl_buf_release(&f);
}

static uint64_t limit_of(const struct tl_diag *d, const char **name)
{
    *name = d->recompile_limit_name ? d->recompile_limit_name : "recompile_limit";
    return d->recompile_limit ? d->recompile_limit : TL_LIVE_DEFAULT_LIMIT;
}

void tl_live_recompile(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                       const struct tl_diag_recompile *r, const struct tl_diag_guard *g,
                       const char *cid)
{
    who_of(out, who);
    kind_of(out, who, "1;33", "recompile");
    uint64_t compiles = (uint64_t)r->count + 1;
    tl_buf_addf(out, "compiled %llu times:", (unsigned long long)compiles);
    where(out, r->function, &r->where);
    cid_of(out, cid);
    if (g) {
        /* the guard, with the values of its latest failure when they were kept */
        tl_buf_adds(out, " \xc2\xb7 ");
        if (g->guard && g->last_value) {
            text(out, g->guard);
            tl_buf_adds(out, " (");
            text(out, g->last_value);
            tl_buf_adds(out, ")");
        } else {
            text(out, g->example ? g->example : g->guard);
        }
    }
    const char *name;
    uint64_t limit = limit_of(d, &name);
    if (compiles < limit)
        tl_buf_addf(out, " \xc2\xb7 %llu away from the %s (%llu)",
                    (unsigned long long)(limit - compiles), name, (unsigned long long)limit);
    else
        tl_buf_addf(out, " \xc2\xb7 at the %s (%llu)", name, (unsigned long long)limit);
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    if (g)
        tl_advice_guard_vars(tl_str_cstr(g->example ? g->example : g->guard), &v);
    fix(out, who, g ? g->advice : r->advice, &v);
    tl_buf_addch(out, '\n');
}

static void finding_break(struct tl_buf *out, const struct tl_live_who *who,
                          const struct tl_diag_break *b)
{
    kind_of(out, who, "1;35", "graph break");
    text(out, b->reason);
    if (b->nlocs)
        where(out, b->locs[0].function, &b->locs[0]);
    if (b->cids.kept)
        cid_of(out, b->cids.s[0]);
    struct tl_buf inside = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_break_vars(&v, b, &inside);
    fix(out, who, b->advice, &v);
    tl_buf_release(&inside);
}

static void finding_spec(struct tl_buf *out, const struct tl_live_who *who,
                         const struct tl_diag_spec *x)
{
    static const char *const kinds[] = {"specialized", "guard on sizes", "duck sizing"};
    kind_of(out, who, "1;36", kinds[x->kind]);
    text(out, x->readable ? x->readable : x->expr ? x->expr : x->symbol);
    if (x->source && x->kind == TL_SPEC_SPECIALIZED) {
        tl_buf_adds(out, " (");
        text(out, x->source);
        tl_buf_adds(out, ")");
    }
    if (x->value) {
        tl_buf_adds(out, " = ");
        text(out, x->value);
    }
    where(out, x->where.function, &x->where);
    cid_of(out, x->cid);
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    v.expr = tl_str_cstr(x->expr ? x->expr : "");
    v.value = x->value ? tl_str_cstr(x->value) : TL_STR_NULL;
    fix(out, who, x->advice, &v);
}

static void finding_failure(struct tl_buf *out, const struct tl_live_who *who,
                            const struct tl_diag_failure *f)
{
    kind_of(out, who, "1;31", f->fell_back_to_eager ? "failure (fell back to eager)" : "failure");
    text(out, f->type);
    if (f->reason) {
        tl_buf_adds(out, ": ");
        struct tl_buf r = TL_BUF_INIT;
        text(&r, f->reason);
        tl_buf_add(out, r.buf, r.len > 300 ? 300 : r.len);
        if (r.len > 300)
            tl_buf_adds(out, "\xe2\x80\xa6");
        tl_buf_release(&r);
    }
    where(out, f->where.function, &f->where);
    cid_of(out, f->cid);
    struct tl_advice_vars v;
    tl_summary_failure_vars(&v, f);
    fix(out, who, f->advice, &v);
}

static void finding_limit(struct tl_buf *out, const struct tl_live_who *who,
                          const struct tl_diag_limit *l)
{
    kind_of(out, who, "1;31", "recompile limit hit");
    tl_buf_addf(out, "%s (%llu):", l->limit_name ? l->limit_name : "recompile_limit",
                (unsigned long long)l->limit);
    where(out, l->function, &l->where);
    cid_of(out, l->cid);
    if (l->last_reason) {
        tl_buf_adds(out, " \xc2\xb7 last: ");
        text(out, l->last_reason);
    }
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    char lim[24];
    snprintf(lim, sizeof(lim), "%llu", (unsigned long long)l->limit);
    v.limit = tl_str_cstr(lim);
    v.limit_name = tl_str_cstr(l->limit_name ? l->limit_name : "recompile_limit");
    fix(out, who, l->advice, &v);
}

static void finding_export(struct tl_buf *out, const struct tl_live_who *who,
                           const struct tl_diag_export *x)
{
    kind_of(out, who, "1;31", tl_summary_export_label(x->kind));
    text(out, x->readable ? x->readable : x->expr ? x->expr : x->op);
    where(out, x->where.function, &x->where);
    struct tl_buf qualname = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_export_vars(&v, x, &qualname);
    fix(out, who, x->advice, &v);
    tl_buf_release(&qualname);
}

static void finding_restart(struct tl_buf *out, const struct tl_live_who *who,
                            const struct tl_diag_restart *r)
{
    kind_of(out, who, "1;34", "restart");
    text(out, r->kind);
    where(out, r->function, &r->where);
    if (r->cids.kept)
        cid_of(out, r->cids.s[0]);
    struct tl_buf what = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_restart_vars(&v, r, &what);
    fix(out, who, r->advice, &v);
    tl_buf_release(&what);
}

void tl_live_finding(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                     enum tl_diag_finding_kind kind, uint32_t index)
{
    who_of(out, who);
    switch (kind) {
    case TL_FIND_BREAK:
        finding_break(out, who, &d->breaks[index]);
        break;
    case TL_FIND_SPEC:
        finding_spec(out, who, &d->specs[index]);
        break;
    case TL_FIND_FAILURE:
        finding_failure(out, who, &d->failures[index]);
        break;
    case TL_FIND_LIMIT:
        finding_limit(out, who, &d->limits[index]);
        break;
    case TL_FIND_EXPORT:
        finding_export(out, who, &d->exports[index]);
        break;
    case TL_FIND_RESTART:
        finding_restart(out, who, &d->restarts[index]);
        break;
    case TL_FIND_RECOMPILE:
    case TL_FIND_FRAME:
        break; /* recompiles are events (tl_live_recompile); frames are counts */
    }
    tl_buf_addch(out, '\n');
}

void tl_live_header(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d)
{
    uint64_t breaks = 0, recompiles = 0;
    for (uint32_t i = 0; i < d->nbreaks; i++)
        breaks += d->breaks[i].count;
    for (uint32_t i = 0; i < d->nrecompiles; i++)
        recompiles += d->recompiles[i].count;
    who_of(out, who);
    tl_buf_addf(out, "%llu compile id%s \xc2\xb7 %llu graph break%s \xc2\xb7 %llu recompile%s",
                (unsigned long long)d->compile_ids, d->compile_ids == 1 ? "" : "s",
                (unsigned long long)breaks, breaks == 1 ? "" : "s", (unsigned long long)recompiles,
                recompiles == 1 ? "" : "s");
    tl_buf_addf(out, " \xc2\xb7 %u failure%s", d->nfailures, d->nfailures == 1 ? "" : "s");
    if (d->have_times)
        tl_buf_addf(out, " \xc2\xb7 compile %.1f s", d->total_s);
    const struct tl_diag_frame *most = NULL;
    for (uint32_t i = 0; i < d->nframes; i++)
        if (!most || d->frames[i].compiles > most->compiles)
            most = &d->frames[i];
    const char *name;
    uint64_t limit = limit_of(d, &name);
    if (d->nlimits) {
        tl_buf_adds(out, " \xc2\xb7 ");
        tl_term_paint(out, who->color, "1;31", "recompile limit hit");
    } else if (most && most->compiles > 1) {
        tl_buf_addf(out, " \xc2\xb7 %s:", name);
        where(out, most->function, NULL);
        tl_buf_addf(out, " %u/%llu", most->compiles, (unsigned long long)limit);
    }
    tl_buf_addch(out, '\n');
}
