/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Diagnosis section at the top of an index page: the findings (what blocked torch.export,
 * failures, recompiles, graph breaks, specializations), most costly first, each with what
 * happened, why, how to fix it, where in the user's code, and links to its compile ids; then
 * compile time, caches and the largest graphs. Everything from the log is escaped.
 */
#include "base/config.h"
#include "report/summary.h"
#include "report/cache_miss.h"
#include "report/assets.h"
#include "report/html.h"

#include <stdio.h>
#include <string.h>

static void text(struct tl_buf *out, const char *s)
{
    if (s)
        tl_html_text_cstr(out, s);
}

static void cid_list(struct tl_buf *out, const char *href, const struct tl_diag_strs *l)
{
    if (!l->kept)
        return;
    tl_buf_adds(out, "<p class='cids'>Compile ids:");
    for (uint32_t i = 0; i < l->kept; i++) {
        tl_buf_addch(out, ' ');
        tl_html_cid_link(out, href, l->s[i]);
    }
    if (l->n > l->kept)
        tl_buf_addf(out, " &hellip; (%u in all)", l->n);
    tl_buf_adds(out, "</p>\n");
}

static void loc(struct tl_buf *out, const struct tl_diag_loc *l)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_summary_loc(&b, l);
    if (l->def && l->function) {
        tl_buf_adds(out, "in <code>");
        text(out, l->function);
        tl_buf_adds(out, "</code>");
        if (b.len) {
            tl_buf_adds(out, " (defined at <code>");
            tl_html_text(out, b.buf, b.len);
            tl_buf_adds(out, "</code>)");
        }
        tl_buf_release(&b);
        return;
    }
    if (b.len) {
        tl_buf_adds(out, "<code>");
        tl_html_text(out, b.buf, b.len);
        tl_buf_adds(out, "</code>");
    }
    if (l->function) {
        tl_buf_adds(out, b.len ? " in <code>" : "<code>");
        text(out, l->function);
        tl_buf_adds(out, "</code>");
    }
    tl_buf_release(&b);
}

static void advice(struct tl_buf *out, const struct tl_advice *a, const struct tl_advice_vars *v)
{
    struct tl_buf t = TL_BUF_INIT;
    tl_buf_adds(out, "<p class='why'><strong>");
    tl_advice_format(&t, a->title, v);
    tl_html_text(out, t.buf, t.len);
    tl_buf_adds(out, ".</strong> ");
    tl_buf_reset(&t);
    tl_advice_format(&t, a->explanation, v);
    tl_html_text(out, t.buf, t.len);
    tl_buf_adds(out, "</p>\n<p class='fix'><strong>Fix:</strong> ");
    tl_buf_reset(&t);
    tl_advice_format(&t, a->fix, v);
    tl_html_text(out, t.buf, t.len);
    tl_buf_adds(out, "</p>\n");
    tl_buf_release(&t);
}

/* lines: where findings link the log line that says them ("log.html#L"), NULL for none. */
static void open_finding(struct tl_buf *out, const char *cls, const char *label, uint64_t log_line,
                         const char *line_href)
{
    tl_buf_adds(out, "<li class='finding ");
    tl_buf_adds(out, cls);
    tl_buf_adds(out, "'><span class='label'>");
    tl_buf_adds(out, label);
    tl_buf_adds(out, "</span> ");
    if (line_href && log_line) {
        tl_buf_adds(out, "<a class='line' href=\"");
        tl_html_attr_cstr(out, line_href);
        tl_buf_addf(out, "%llu\">line %llu</a> ", (unsigned long long)log_line,
                    (unsigned long long)log_line);
    }
}

static void failure(struct tl_buf *out, const struct tl_diag_failure *x, const char *href,
                    const char *lines)
{
    open_finding(out, "sev-failure", x->fell_back_to_eager ? "Failed, ran in eager" : "Failed",
                 x->log_line, lines);
    tl_html_cid_link(out, href, x->cid);
    tl_buf_adds(out, " <code>");
    text(out, x->type);
    tl_buf_adds(out, "</code>");
    if (x->where.file) {
        tl_buf_adds(out, " at ");
        loc(out, &x->where);
    }
    tl_buf_adds(out, "\n<pre>");
    text(out, x->reason);
    tl_buf_adds(out, "</pre>\n");
    if (x->forward_node) {
        tl_buf_adds(out, "<p>It comes from the forward node <code>");
        text(out, x->forward_node);
        tl_buf_adds(out, "</code>");
        if (x->forward_where.file) {
            tl_buf_adds(out, " at ");
            loc(out, &x->forward_where);
        }
        tl_buf_adds(out, ".</p>\n");
    }
    struct tl_advice_vars v;
    tl_summary_failure_vars(&v, x);
    advice(out, x->advice, &v);
}

/* What blocked torch.export: the condition and what it was specialized to, or the operator and
 * why its fake kernel is wrong; where in the user's code, and where its unbacked symbols come
 * from. */
static void export_problem(struct tl_buf *out, const struct tl_diag_export *x, const char *href,
                           const char *lines)
{
    open_finding(out, "sev-failure", "Export blocked", x->log_line, lines);
    if (x->count > 1)
        tl_buf_addf(out, "%u &times; ", x->count);
    tl_buf_adds(out, "<strong>");
    tl_buf_adds(out, tl_summary_export_label(x->kind));
    tl_buf_adds(out, "</strong>: ");
    if (x->kind == TL_EXPORT_PROBLEM_MISSING_FAKE || x->kind == TL_EXPORT_PROBLEM_MISMATCHED_FAKE) {
        if (x->op) {
            tl_buf_adds(out, "<code>torch.ops.");
            text(out, x->op);
            tl_buf_adds(out, "</code>");
        } else {
            tl_buf_adds(out, "(operator not logged)");
        }
    } else {
        if (x->expr) {
            tl_buf_adds(out, "<code>");
            text(out, x->expr);
            tl_buf_adds(out, "</code>");
        } else {
            tl_buf_adds(out, "(expression not logged)");
        }
        if (x->readable) {
            tl_buf_adds(out, ", that is <code>");
            text(out, x->readable);
            tl_buf_adds(out, "</code>");
            if (x->result)
                tl_buf_addch(out, ',');
        }
        if (x->result) {
            tl_buf_adds(out, " was specialized to <code>");
            text(out, x->result);
            tl_buf_adds(out, "</code>");
        }
    }
    if (x->where.file || x->where.function) {
        tl_buf_adds(out, x->where.file ? " at " : " in ");
        loc(out, &x->where);
    }
    tl_buf_addch(out, '\n');
    if (x->where.code) {
        tl_buf_adds(out, "<pre>");
        text(out, x->where.code);
        tl_buf_adds(out, "</pre>\n");
    }
    for (uint32_t k = 0; k < x->nunbacked; k++) {
        const struct tl_diag_unbacked *u = &x->unbacked[k];
        tl_buf_adds(out, "<p><code>");
        text(out, u->symbol);
        tl_buf_adds(out, "</code> comes from ");
        if (u->where.code) {
            tl_buf_adds(out, "<code>");
            text(out, u->where.code);
            tl_buf_adds(out, "</code>");
        }
        if (u->where.file || u->where.function) {
            if (u->where.code)
                tl_buf_adds(out, u->where.file ? " at " : " in ");
            loc(out, &u->where);
        }
        tl_buf_adds(out, ".</p>\n");
    }
    if (x->reason) {
        tl_buf_adds(out, "<pre>");
        text(out, x->reason);
        tl_buf_adds(out, "</pre>\n");
    }
    cid_list(out, href, &x->cids);
    struct tl_buf qualname = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_export_vars(&v, x, &qualname);
    advice(out, x->advice, &v);
    tl_buf_release(&qualname);
}

static void limit(struct tl_buf *out, const struct tl_diag_limit *x, const char *href,
                  const char *lines)
{
    char num[32] = "";
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    if (x->limit) {
        snprintf(num, sizeof(num), "%llu", (unsigned long long)x->limit);
        v.limit = tl_str_cstr(num);
    }
    if (x->limit_name)
        v.limit_name = tl_str_cstr(x->limit_name);
    open_finding(out, "sev-failure", "Recompile limit hit", x->log_line, lines);
    loc(out, &x->where);
    if (x->limit_name) {
        tl_buf_adds(out, " (<code>");
        text(out, x->limit_name);
        tl_buf_addf(out, "</code>%s%s)", num[0] ? " = " : "", num);
    }
    tl_buf_adds(out, " ");
    tl_html_cid_link(out, href, x->cid);
    if (x->last_reason) {
        tl_buf_adds(out, "\n<p>Last reason: <code>");
        text(out, x->last_reason);
        tl_buf_adds(out, "</code></p>");
    }
    tl_buf_addch(out, '\n');
    advice(out, x->advice, &v);
    if (x->reason_advice && x->reason_listed) {
        /* its recompiles give the advice: said once */
        tl_buf_adds(out, "<p>Its last reason: ");
        text(out, x->reason_advice->title);
        tl_buf_adds(out, " (its recompiles say what to do).</p>\n");
    } else if (x->reason_advice) {
        struct tl_advice_vars rv;
        tl_advice_guard_vars(tl_str_cstr(x->last_reason ? x->last_reason : ""), &rv);
        tl_buf_adds(out, "<p>Its last reason:</p>\n");
        advice(out, x->reason_advice, &rv);
    }
}

static void recompile(struct tl_buf *out, const struct tl_diag_recompile *x, const char *href,
                      const char *lines)
{
    open_finding(out, "sev-warning", "Recompiles", x->log_line, lines);
    tl_buf_addf(out, "%u &times; ", x->count);
    loc(out, &x->where);
    if (x->resume_line)
        tl_buf_addf(out, ", the part after the graph break at line %u", x->resume_line);
    if (x->called_from.file) {
        tl_buf_adds(out, ", called from ");
        loc(out, &x->called_from);
    }
    tl_buf_adds(out, "\n<table class='guards'><tr><th>Failing guard</th><th>Times</th>"
                     "<th>Values</th></tr>\n");
    for (uint32_t k = 0; k < x->nguards; k++) {
        const struct tl_diag_guard *g = &x->guards[k];
        tl_buf_adds(out, "<tr><td><code>");
        text(out, g->guard);
        tl_buf_addf(out, "</code></td><td>%u</td><td>", g->count);
        for (uint32_t j = 0; j < g->values.kept; j++) {
            if (j)
                tl_buf_adds(out, "; ");
            text(out, g->values.s[j]);
        }
        if (g->values.n > g->values.kept) {
            tl_buf_addf(out, "; &hellip; %u distinct values in all", g->values.n);
            if (g->values.n > g->count)
                tl_buf_adds(out, tl_summary_values_why);
        }
        tl_buf_adds(out, "</td></tr>\n");
    }
    tl_buf_adds(out, "</table>\n");
    cid_list(out, href, &x->cids);
    struct tl_advice_vars v;
    tl_advice_guard_vars(tl_str_cstr(x->nguards ? x->guards[0].example : ""), &v);
    advice(out, x->advice, &v);
}

/* Text of several lines, each line break kept. */
static void text_lines(struct tl_buf *out, const char *s)
{
    for (const char *p = s; p && *p;) {
        const char *nl = strchr(p, '\n');
        tl_html_text(out, p, nl ? (size_t)(nl - p) : strlen(p));
        if (!nl)
            break;
        tl_buf_adds(out, "<br>\n");
        p = nl + 1;
    }
}

/* What PyTorch says of a graph break in its own words: its id in the graph-break site (a link
 * when the url is a web page) and what dynamo was tracing (2.7 on), its explanation, and its
 * hints, quoted before our advice. */
static void break_notes(struct tl_buf *out, const struct tl_diag_break *x)
{
    if (x->gb_id || x->context) {
        tl_buf_adds(out, "<p class='pytorch'>PyTorch ");
        bool web = x->url && (!strncmp(x->url, "https://", 8) || !strncmp(x->url, "http://", 7));
        if (x->gb_id && web) {
            tl_buf_adds(out, "<a href=\"");
            tl_html_attr_cstr(out, x->url);
            tl_buf_adds(out, "\" rel='noreferrer'>");
            text(out, x->gb_id);
            tl_buf_adds(out, "</a>");
        } else {
            text(out, x->gb_id);
        }
        if (x->context) {
            tl_buf_adds(out, x->gb_id ? ", while tracing <code>" : "while tracing <code>");
            text(out, x->context);
            tl_buf_adds(out, "</code>");
        }
        tl_buf_adds(out, "</p>\n");
    }
    if (x->explanation || (x->hint && !x->nhints)) {
        tl_buf_adds(out, "<p class='pytorch'>PyTorch says: ");
        text_lines(out, x->explanation);
        if (x->explanation && x->hint && !x->nhints)
            tl_buf_addch(out, ' ');
        if (!x->nhints)
            text(out, x->hint);
        tl_buf_adds(out, "</p>\n");
    }
    if (!x->nhints)
        return;
    tl_buf_adds(out, "<ul class='pytorch'>\n");
    for (uint32_t k = 0; k < x->nhints; k++) {
        const char *kind = tl_diag_hint_category(x->hints[k]);
        tl_buf_adds(out, "<li>PyTorch's hint");
        if (kind) {
            tl_buf_adds(out, " (");
            text(out, kind);
            tl_buf_adds(out, ")");
        }
        tl_buf_adds(out, ": ");
        text_lines(out, x->hints[k]);
        tl_buf_adds(out, "</li>\n");
    }
    tl_buf_adds(out, "</ul>\n");
}

static void graph_break(struct tl_buf *out, const struct tl_diag_break *x, const char *href,
                        const char *lines)
{
    open_finding(out, "sev-warning", "Graph break", x->log_line, lines);
    tl_buf_addf(out, "%u &times; <code>", x->count);
    text(out, x->reason);
    tl_buf_adds(out, "</code>\n");
    if (x->in_framework && (x->inside.file || x->inside.function)) {
        tl_buf_adds(out, "<p>Inside PyTorch at ");
        loc(out, &x->inside);
        tl_buf_adds(out, x->nlocs ? ", reached from your code:</p>\n" : "</p>\n");
    }
    tl_buf_adds(out, "<ul class='locs'>\n");
    for (uint32_t k = 0; k < x->nlocs; k++) {
        tl_buf_adds(out, "<li>");
        loc(out, &x->locs[k]);
        if (x->locs[k].code) {
            tl_buf_adds(out, ": <code>");
            text(out, x->locs[k].code);
            tl_buf_adds(out, "</code>");
        }
        tl_buf_adds(out, "</li>\n");
    }
    tl_buf_adds(out, "</ul>\n");
    if (x->fell_back)
        tl_buf_adds(out, "<p>Dynamo could not handle it: the function was skipped and runs in "
                         "eager mode.</p>\n");
    break_notes(out, x);
    cid_list(out, href, &x->cids);
    struct tl_buf inside = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_break_vars(&v, x, &inside);
    advice(out, x->advice, &v);
    tl_buf_release(&inside);
}

static void restart(struct tl_buf *out, const struct tl_diag_restart *x, const char *href,
                    const char *lines)
{
    open_finding(out, "sev-info", "Restart", x->log_line, lines);
    tl_buf_addf(out, "%u &times; <code>", x->count);
    text(out, x->kind);
    tl_buf_adds(out, "</code> ");
    loc(out, &x->where);
    if (x->called_from.file) {
        tl_buf_adds(out, ", called from ");
        loc(out, &x->called_from);
    }
    tl_buf_addch(out, '\n');
    cid_list(out, href, &x->cids);
    struct tl_buf what = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_restart_vars(&v, x, &what);
    advice(out, x->advice, &v);
    tl_buf_release(&what);
}

static void spec(struct tl_buf *out, const struct tl_diag_spec *x, const char *href,
                 const char *lines)
{
    open_finding(out, "sev-info",
                 x->kind == TL_SPEC_SPECIALIZED ? "Specialized"
                 : x->kind == TL_SPEC_DUCK      ? "Duck sized"
                                                : "Shape guard",
                 x->log_line, lines);
    const char *what = x->source ? x->source : x->symbol;
    if (what) {
        tl_buf_adds(out, "<code>");
        text(out, what);
        tl_buf_adds(out, "</code>");
    }
    if (x->symbol && x->source) {
        tl_buf_adds(out, " (<code>");
        text(out, x->symbol);
        tl_buf_adds(out, "</code>)");
    }
    if (x->expr) {
        tl_buf_adds(out, what ? ": <code>" : "<code>");
        text(out, x->expr);
        tl_buf_adds(out, "</code>");
        if (x->readable) {
            tl_buf_adds(out, ", that is <code>");
            text(out, x->readable);
            tl_buf_adds(out, "</code>");
        }
    } else if (x->value) {
        tl_buf_adds(out, " = <code>");
        text(out, x->value);
        tl_buf_adds(out, "</code>");
    }
    if (x->where.file) {
        tl_buf_adds(out, " at ");
        loc(out, &x->where);
    }
    tl_buf_addch(out, ' ');
    tl_html_cid_link(out, href, x->cid);
    if (x->where.code) {
        tl_buf_adds(out, "\n<pre>");
        text(out, x->where.code);
        tl_buf_adds(out, "</pre>");
    }
    tl_buf_addch(out, '\n');
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    if (x->expr)
        v.expr = tl_str_cstr(x->expr);
    if (x->value)
        v.value = tl_str_cstr(x->value);
    advice(out, x->advice, &v);
}

static void frame(struct tl_buf *out, const struct tl_diag_frame *x, const char *href,
                  const char *lines)
{
    open_finding(out, "sev-warning", "Compiled many times", 0, lines);
    tl_buf_addf(out, "%u &times; ", x->compiles);
    loc(out, &x->where);
    tl_buf_addch(out, '\n');
    cid_list(out, href, &x->cids);
    advice(out, tl_advice_match(TL_ADVICE_FRAME, tl_str_cstr("")), NULL);
}

static void totals(struct tl_buf *out, const struct tl_diag *d, const char *href)
{
    if (d->have_times) {
        tl_buf_addf(out, "<p>Compile time: <strong>%.2f s</strong> in all.", d->total_s);
        if (d->nslowest)
            tl_buf_adds(out, " Slowest:");
        for (uint32_t i = 0; i < d->nslowest && i < 5; i++) {
            tl_buf_adds(out, i ? ", " : " ");
            tl_html_cid_link(out, href, d->slowest[i].cid);
            if (d->slowest[i].function) {
                tl_buf_adds(out, " <code>");
                text(out, d->slowest[i].function);
                tl_buf_adds(out, "</code>");
            }
            tl_buf_addf(out, " %.2f s", d->slowest[i].seconds);
        }
        tl_buf_adds(out, "</p>\n");
    }
    if (d->have_cache)
        tl_buf_addf(out,
                    "<p>Caches: FX graph %u hit, %u miss, %u bypass; AOT autograd %u hit, "
                    "%u miss, %u bypass.</p>\n",
                    d->cache[0][0], d->cache[0][1], d->cache[0][2], d->cache[1][0], d->cache[1][1],
                    d->cache[1][2]);
    tl_cachemiss_html(out, d->cachekey, href); /* why they missed (cache_miss.c) */
    if (d->nlargest) {
        tl_buf_adds(out, "<p>Largest graphs:");
        for (uint32_t i = 0; i < d->nlargest && i < 5; i++) {
            tl_buf_adds(out, i ? ", " : " ");
            if (d->largest[i].cid)
                tl_html_cid_link(out, href, d->largest[i].cid);
            if (d->largest[i].name) {
                tl_buf_adds(out, d->largest[i].cid ? " <code>" : "<code>");
                text(out, d->largest[i].name);
                tl_buf_adds(out, "</code>");
            }
            tl_buf_addf(out, " %llu nodes", (unsigned long long)d->largest[i].nodes);
        }
        tl_buf_adds(out, "</p>\n");
    }
}

void tl_page_diagnosis(struct tl_buf *out, const struct tl_diag *d, const char *cid_href,
                       const char *lines)
{
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_diagnosis_css);
    tl_buf_adds(out, "</style>\n<div class='diagnosis'>\n<h2>Diagnosis</h2>\n");
    if (!d->nfindings)
        tl_buf_adds(out, "<p>No graph breaks, recompiles, specializations or failures were "
                         "found in this log.</p>\n");
    uint32_t nnormal = 0;
    for (uint32_t i = 0; i < d->nfindings; i++)
        nnormal += d->findings[i].normal;
    uint32_t nproblems = d->nfindings - nnormal;
    if (d->nfindings && !nproblems)
        tl_buf_adds(out, "<p>No problem was found: what is below is what torch.compile always "
                         "does.</p>\n<ol>\n");
    else if (d->nfindings)
        tl_buf_addf(out,
                    "<p>%u finding%s, the most costly first. Each says what happened, why, and "
                    "how to fix it%s.</p>\n<ol>\n",
                    nproblems, nproblems == 1 ? "" : "s",
                    cid_href ? "; compile ids link to their files below" : "");
    bool normal = false;
    for (uint32_t i = 0; i < d->nfindings; i++) {
        const struct tl_diag_finding *f = &d->findings[i];
        if (f->normal && !normal) {
            /* what torch.compile always does: after the problems, folded */
            normal = true;
            uint32_t rest = d->nfindings - i;
            tl_buf_addf(out,
                        "</ol>\n<details class='normal'><summary>%u finding%s %s normal: nothing "
                        "to do</summary>\n<ol start='%u'>\n",
                        rest, rest == 1 ? "" : "s", rest == 1 ? "is" : "are", i + 1);
        }
        switch (f->kind) {
        case TL_FIND_FAILURE:
            failure(out, &d->failures[f->index], cid_href, lines);
            break;
        case TL_FIND_LIMIT:
            limit(out, &d->limits[f->index], cid_href, lines);
            break;
        case TL_FIND_RECOMPILE:
            recompile(out, &d->recompiles[f->index], cid_href, lines);
            break;
        case TL_FIND_BREAK:
            graph_break(out, &d->breaks[f->index], cid_href, lines);
            break;
        case TL_FIND_SPEC:
            spec(out, &d->specs[f->index], cid_href, lines);
            break;
        case TL_FIND_FRAME:
            frame(out, &d->frames[f->index], cid_href, lines);
            break;
        case TL_FIND_EXPORT:
            export_problem(out, &d->exports[f->index], cid_href, lines);
            break;
        case TL_FIND_RESTART:
            restart(out, &d->restarts[f->index], cid_href, lines);
            break;
        }
        tl_buf_adds(out, "</li>\n");
    }
    if (d->nfindings)
        tl_buf_adds(out, normal ? "</ol>\n</details>\n" : "</ol>\n");
    tl_page_forecast(out, d, cid_href);
    totals(out, d, cid_href);
    tl_buf_adds(out, "<p class='more'>The same as JSON: <a href=\"summary.json\">summary.json</a>; "
                     "in a terminal: <code>tlparse --summary LOG</code>.</p>\n</div>\n");
}
