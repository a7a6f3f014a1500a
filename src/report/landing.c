/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a multi-rank run writes beside the rank_N/ folders (spec modes.md §1.7-1.14): the
 * landing page index.html from the analyses of model/ranks.h, and the JSON files
 * runtime_estimations.json, chromium_trace_with_runtime.json, collective_schedules.json and
 * each rank's collectives_parity.json. Reads no file and knows no path: the driver writes
 * the bytes. Every value from a log is escaped; the custom header is the one raw field.
 */
#include "base/config.h"
#include "report/landing.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "report/assets.h"
#include "report/cache_miss.h"
#include "report/html.h"
#include "report/pages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *nz(const char *s)
{
    return s ? s : "";
}

static bool usable(const struct tl_rank_summary *s)
{
    return s->error == NULL;
}

/* ---- the landing page (§1.14) ------------------------------------------------------------ */

static void text(struct tl_buf *out, const char *s)
{
    tl_html_text_cstr(out, nz(s));
}

/* <ul> of "Ranks: 0, 2" items, one per group; with what, the group's value after it (a cache
 * sequence "❌❌✅", shortened when long). */
static void group_list_of(struct tl_buf *out, const struct tl_rank_groups *g, const char *what)
{
    tl_buf_adds(out, "<ul>\n");
    for (size_t i = 0; i < g->n; i++) {
        tl_buf_adds(out, "<li>Ranks: ");
        text(out, g->groups[i].ranks_text);
        const char *v = g->groups[i].value;
        if (what && v) {
            size_t n = strlen(v), cut = n > 240 ? 240 : n;
            while (cut < n && ((unsigned char)v[cut] & 0xC0) == 0x80)
                cut++; /* not inside a character */
            tl_buf_addf(out, " &mdash; %s: <code>", what);
            tl_html_text(out, v, cut);
            tl_buf_adds(out, cut < n ? "&hellip;</code>" : "</code>");
            if (!n)
                tl_buf_adds(out, " (none)");
        }
        tl_buf_adds(out, "</li>\n");
    }
    tl_buf_adds(out, "</ul>\n");
}

static void group_list(struct tl_buf *out, const struct tl_rank_groups *g)
{
    group_list_of(out, g, NULL);
}

/* "Rank 3", "Ranks 0-2, 5": the ranks of a group, runs of consecutive numbers as ranges. */
static void ranks_span(struct tl_buf *out, const struct tl_rank_group *g)
{
    tl_buf_adds(out, g->nranks == 1 ? "Rank " : "Ranks ");
    for (size_t i = 0; i < g->nranks;) {
        size_t j = i;
        while (j + 1 < g->nranks && g->ranks[j + 1] == g->ranks[j] + 1)
            j++;
        if (i)
            tl_buf_adds(out, ", ");
        tl_buf_addu(out, g->ranks[i]);
        if (j > i) {
            tl_buf_adds(out, j == i + 1 ? ", " : "-");
            tl_buf_addu(out, g->ranks[j]);
        }
        i = j + 1;
    }
}

static void code(struct tl_buf *out, const char *s)
{
    tl_buf_adds(out, "<code>");
    text(out, s);
    tl_buf_adds(out, "</code>");
}

/* At most this many groups of a kind (and ranks without a report) are said in the summary;
 * the details list them all. */
#define SUMMARY_GROUPS 2

/* The groups of a kind that are not its main one, each said by say(); "... N more". */
static void apart_items(struct tl_buf *out, const struct tl_rank_groups *g,
                        const struct tl_rank_first *first, const char *cls, const char *label,
                        void (*say)(struct tl_buf *, const struct tl_rank_group *,
                                    const struct tl_rank_group *, const struct tl_rank_first *))
{
    if (!g->diverge || !first)
        return;
    /* first the groups that have something else where the main group has something (another
     * op, a hit for a miss), then those that lack or add a graph */
    size_t said = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < g->n; k++) {
            bool swapped = first[k].theirs && first[k].mains;
            if (k == g->main || swapped != (pass == 0))
                continue;
            if (said++ == SUMMARY_GROUPS) {
                size_t more = g->n - 1 - SUMMARY_GROUPS;
                tl_buf_addf(out, "<li class='%s'>... and %zu more group%s of ranks (below)</li>\n",
                            cls, more, more == 1 ? "" : "s");
                return;
            }
            tl_buf_addf(out, "<li class='%s'><strong>%s:</strong> ", cls, label);
            say(out, &g->groups[g->main], &g->groups[k], &first[k]);
            tl_buf_adds(out, "</li>\n");
        }
}

/* "Ranks 0-2 call all_reduce_ where Rank 3 calls all_gather_into_tensor, first in graph [0/0],
 * op #1." */
static void say_collectives(struct tl_buf *out, const struct tl_rank_group *main,
                            const struct tl_rank_group *g, const struct tl_rank_first *f)
{
    if (!f->where) {
        ranks_span(out, g);
        tl_buf_adds(out, " and ");
        ranks_span(out, main);
        tl_buf_adds(out, " issue the same collectives, their graphs in another order.");
        return;
    }
    ranks_span(out, main);
    tl_buf_adds(out, main->nranks == 1 ? " calls " : " call ");
    if (f->mains)
        code(out, f->mains);
    else
        tl_buf_adds(out, "nothing");
    tl_buf_adds(out, " where ");
    ranks_span(out, g);
    tl_buf_adds(out, g->nranks == 1 ? " calls " : " call ");
    if (f->theirs)
        code(out, f->theirs);
    else
        tl_buf_adds(out, "nothing");
    tl_buf_adds(out, ", first in graph ");
    code(out, f->where);
    tl_buf_addf(out, ", op #%zu.", f->op);
}

/* "Rank 1 did not compile [0/1], which Ranks 0, 2, 3 did." */
static void say_cids(struct tl_buf *out, const struct tl_rank_group *main,
                     const struct tl_rank_group *g, const struct tl_rank_first *f)
{
    ranks_span(out, g);
    tl_buf_adds(out, f->theirs ? " compiled " : " did not compile ");
    code(out, f->where);
    tl_buf_adds(out, ", which ");
    ranks_span(out, main);
    tl_buf_adds(out, f->theirs ? " did not" : " did");
    tl_buf_adds(out, " (the first compile id where they differ).");
}

static const char *cache_verb(const char *result)
{
    if (!result)
        return "had no cache result";
    if (!strcmp(result, "hit"))
        return "hit the cache";
    if (!strcmp(result, "miss"))
        return "missed the cache";
    return "bypassed the cache";
}

/* "Rank 7 hit the cache where Ranks 0-6 missed the cache, first in [0/0]." */
static void say_cache(struct tl_buf *out, const struct tl_rank_group *main,
                      const struct tl_rank_group *g, const struct tl_rank_first *f)
{
    ranks_span(out, g);
    if (!f->where) {
        tl_buf_adds(out, " and ");
        ranks_span(out, main);
        tl_buf_adds(out, " hit and miss the cache in another order.");
        return;
    }
    tl_buf_addf(out, " %s where ", cache_verb(f->theirs));
    ranks_span(out, main);
    tl_buf_addf(out, " %s, first in ", cache_verb(f->mains));
    code(out, f->where);
    tl_buf_adds(out, ".");
}

/* "Rank 1 from Ranks 0, 2, first in graph [0/0]." */
static void say_meta(struct tl_buf *out, const struct tl_rank_group *main,
                     const struct tl_rank_group *g, const struct tl_rank_first *f)
{
    ranks_span(out, g);
    tl_buf_adds(out, " from ");
    ranks_span(out, main);
    if (f->where) {
        tl_buf_adds(out, f->theirs && f->mains ? ", first in graph " : ", first for graph ");
        code(out, f->where);
        if (!f->theirs || !f->mains)
            tl_buf_adds(out, f->theirs ? " (only they have it)" : " (they have none)");
    }
    tl_buf_adds(out, ".");
}

/* The verdict at the top: the ranks without a report, then for each kind that diverges where
 * the ranks part (red for what can hang a job, amber for the rest), or that they agree. */
static void summary_box(struct tl_buf *out, const struct tl_ranks *r)
{
    bool collectives = r->has_schedules && r->schedules.diverge;
    size_t broken = 0;
    for (size_t i = 0; i < r->nranks; i++)
        broken += !usable(&r->ranks[i]);
    bool bad = broken || collectives || r->cids.diverge;
    bool any = bad || r->cache.diverge || r->meta.diverge || r->ndivergences;
    if (!any) {
        tl_buf_adds(out, "<div class='verdict ok' id='summary'>\n<p>");
        if (r->nranks == 1)
            tl_buf_adds(out, "One rank: nothing to compare.");
        else
            tl_buf_addf(out,
                        "The %zu ranks agree: the same compile ids, cache hits and misses, "
                        "%stensor metadata and diagnosis.",
                        r->nranks, r->has_schedules ? "collectives, " : "");
        tl_buf_adds(out, "</p>\n</div>\n");
        return;
    }
    tl_buf_addf(out, "<div class='verdict %s' id='summary'>\n<ul>\n", bad ? "bad" : "note");
    size_t said = 0;
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        if (usable(s))
            continue;
        if (said++ == SUMMARY_GROUPS) {
            tl_buf_addf(out, "<li class='bad'>... and %zu more rank%s without a report</li>\n",
                        broken - SUMMARY_GROUPS, broken - SUMMARY_GROUPS == 1 ? "" : "s");
            break;
        }
        tl_buf_addf(out, "<li class='bad'><strong>Missing:</strong> Rank %u: no report (", s->rank);
        text(out, s->error);
        tl_buf_adds(out, ")</li>\n");
    }
    if (collectives)
        apart_items(out, &r->schedules, r->schedules_first, "bad", "Collectives differ",
                    say_collectives);
    apart_items(out, &r->cids, r->cids_first, "bad", "Compile ids differ", say_cids);
    apart_items(out, &r->cache, r->cache_first, "note", "Cache hits and misses differ", say_cache);
    apart_items(out, &r->meta, r->meta_first, "note", "Tensor metadata differs", say_meta);
    for (size_t i = 0; i < r->ndivergences; i++) {
        /* the shorter list said: "Rank 1 recompiled; the others did not", or "All ranks but
         * Rank 5 recompiled" (ranks without a report are in neither list) */
        const struct tl_rank_divergence *d = &r->divergences[i];
        bool few = strlen(nz(d->ranks)) <= strlen(nz(d->others));
        tl_buf_adds(out, "<li class='note'><strong>Diagnosis differs:</strong> ");
        if (!few)
            tl_buf_adds(out, broken ? "All ranks read but " : "All ranks but ");
        text(out, few ? d->ranks : d->others);
        tl_buf_addch(out, ' ');
        text(out, d->what);
        tl_buf_adds(out, few ? "; the others did not.</li>\n" : ".</li>\n");
    }
    tl_buf_adds(out, "</ul>\n");
    if (collectives || r->cids.diverge || r->cache.diverge || r->meta.diverge)
        tl_buf_adds(out, "<p class='more'><a href='#details'>The details</a> are below the "
                         "table.</p>\n");
    else if (r->ndivergences)
        tl_buf_adds(out, "<p class='more'><a href='#diagnosis'>The diagnoses</a> are below the "
                         "table.</p>\n");
    tl_buf_adds(out, "</div>\n");
}

/* The compile ids not every rank compiled, those lacking the same ranks in one line. */
static void gap_list(struct tl_buf *out, const struct tl_ranks *r)
{
    if (!r->ngaps && !r->idless_ranks)
        return;
    tl_buf_adds(out, "<ul>\n");
    for (size_t i = 0; i < r->ngaps;) {
        size_t j = i;
        tl_buf_adds(out, "<li>");
        for (; j < r->ngaps && !strcmp(r->gaps[j].missing, r->gaps[i].missing); j++) {
            if (j > i)
                tl_buf_adds(out, ", ");
            code(out, r->gaps[j].cid);
        }
        tl_buf_adds(out, ": not on ");
        text(out, r->gaps[i].missing);
        tl_buf_adds(out, "</li>\n");
        i = j;
    }
    if (r->ngaps_all > r->ngaps)
        tl_buf_addf(out, "<li>... %zu in all</li>\n", r->ngaps_all);
    if (r->idless_ranks) {
        tl_buf_adds(out, "<li>Entries without a compile id (logged outside any compilation): on ");
        text(out, r->idless_ranks);
        tl_buf_adds(out, ", not on ");
        text(out, r->idless_others);
        tl_buf_adds(out, "</li>\n");
    }
    tl_buf_adds(out, "</ul>\n");
}

/* The details of what diverges (spec §1.14 item 2), below the table. */
static void warning_box(struct tl_buf *out, const struct tl_ranks *r)
{
    bool collectives = r->has_schedules && r->schedules.diverge;
    if (!r->cids.diverge && !r->cache.diverge && !collectives && !r->meta.diverge) {
        if (r->idless_ranks) {
            tl_buf_adds(out, "<p id='details'>The ranks compiled the same compile ids.</p>\n");
            gap_list(out, r);
        }
        return;
    }
    tl_buf_adds(out, "<h3 id='details'>Divergence details</h3>\n<div class=\"warning-box\">\n");
    if (r->cids.diverge) {
        tl_buf_adds(out, "<p><strong>Warning:</strong> Diverging Compilation IDs detected across "
                         "ranks. Ranks that compile different graphs can hang or time out in "
                         "their collectives.</p>\n");
        tl_buf_adds(out, "<p>Compile ids that not every rank compiled:</p>\n");
        gap_list(out, r);
    }
    if (r->cache.diverge) {
        tl_buf_adds(out, "<p><strong>Warning:</strong> Diverging Cache hit/miss patterns "
                         "detected across ranks. Ranks that hit the cache where others compile "
                         "fall out of step, which can cause hangs or timeouts.</p>\n");
        group_list_of(out, &r->cache, "cache results in compile order (✅ hit, ❌ miss)");
    }
    if (collectives) {
        tl_buf_adds(out, "<p><strong>Warning:</strong> Diverging collective operation sequences "
                         "detected across ranks. Ranks that issue different collectives can "
                         "hang or time out.</p>\n"
                         "<p>Ranks grouped by collective operation sequence:</p>\n");
        group_list(out, &r->schedules);
    }
    tl_buf_adds(out, "</div>\n");
}

/* A rank's status: what sets it apart (red: what can hang a job), "ok", or no report. */
static void status_cell(struct tl_buf *out, const struct tl_ranks *r, size_t i)
{
    static const struct {
        int bit;
        const char *what;
    } kinds[] = {
        {TL_RANK_APART_COLLECTIVES, "collectives"},
        {TL_RANK_APART_CIDS, "compile ids"},
        {TL_RANK_APART_CACHE, "cache"},
        {TL_RANK_APART_META, "tensor meta"},
    };
    const struct tl_rank_summary *s = &r->ranks[i];
    int apart = r->apart ? r->apart[i] : 0;
    if (!usable(s)) {
        tl_buf_adds(out, "<td class='status bad' data-value='3'>no report</td>");
        return;
    }
    if (!apart) {
        tl_buf_adds(out, "<td class='status ok' data-value='0'>ok</td>");
        return;
    }
    bool bad = apart & (TL_RANK_APART_COLLECTIVES | TL_RANK_APART_CIDS);
    tl_buf_addf(out, "<td class='status %s' data-value='%d'>differs: ", bad ? "bad" : "note",
                bad ? 2 : 1);
    bool first = true;
    for (size_t k = 0; k < TL_ARRAY_LEN(kinds); k++)
        if (apart & kinds[k].bit) {
            tl_buf_adds(out, first ? "" : ", ");
            tl_buf_adds(out, kinds[k].what);
            first = false;
        }
    tl_buf_adds(out, "</td>");
}

static void count_cell(struct tl_buf *out, uint32_t n)
{
    tl_buf_addf(out, "<td class='num%s'>%u</td>", n ? " some" : "", n);
}

/* One row per rank: its status, its counts, its compile time and a link to its report;
 * sortable. */
static void rank_table(struct tl_buf *out, const struct tl_ranks *r)
{
    tl_buf_adds(out, "<table class='ranks sortable'>\n<thead><tr><th>Rank</th><th>Status</th>"
                     "<th>Compile ids</th><th>Graph breaks</th><th>Recompiles</th>"
                     "<th>Failures</th><th title='recompile limits hit'>Limits hit</th>"
                     "<th title='compile time, summed'>Time (s)</th>"
                     "<th>Log</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        tl_buf_addf(out, "<tr><td data-value='%u'>", s->rank);
        if (usable(s)) {
            tl_buf_addf(out, "<a href=\"rank_%u/index.html\">Rank %u</a></td>", s->rank, s->rank);
            status_cell(out, r, i);
            count_cell(out, s->diag.compile_ids);
            count_cell(out, s->diag.graph_breaks);
            count_cell(out, s->diag.recompiles);
            count_cell(out, s->diag.failures);
            count_cell(out, s->diag.limits);
            if (s->diag.has_time)
                tl_buf_addf(out, "<td class='num'>%.2f</td>", s->diag.compile_s);
            else
                tl_buf_adds(out, "<td class='num'>-</td>");
        } else {
            tl_buf_addf(out, "Rank %u</td>", s->rank);
            status_cell(out, r, i);
            tl_buf_adds(out, "<td colspan='6' class='why'>");
            text(out, s->error);
            tl_buf_adds(out, "</td>");
        }
        tl_buf_adds(out, "<td><code>");
        text(out, s->log);
        tl_buf_adds(out, "</code></td></tr>\n");
    }
    tl_buf_adds(out, "</tbody>\n</table>\n");
}

/* The artifacts of ranks that could not be read (the reference stops at the first). */
static void notes_section(struct tl_buf *out, const struct tl_ranks *r)
{
    bool any = false;
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        if (!usable(s) || !s->notes)
            continue;
        if (!any)
            tl_buf_adds(out, "<p>\nSome artifacts could not be read; the analyses below leave "
                             "them out:\n</p>\n<ul>\n");
        any = true;
        tl_buf_adds(out, "<li>Rank ");
        tl_buf_addu(out, s->rank);
        tl_buf_adds(out, ": ");
        text(out, s->notes);
        tl_buf_adds(out, "</li>\n");
    }
    if (any)
        tl_buf_adds(out, "</ul>\n");
}

static void runtime_section(struct tl_buf *out, const struct tl_ranks *r)
{
    if (!r->has_runtime)
        return;
    tl_buf_adds(out, "<h3>Graph Runtime Analysis</h3>\n");
    if (r->runtime_mismatch) {
        tl_buf_adds(out, "<p><strong>Runtime analysis not available:</strong> the ranks "
                         "compiled different numbers of graphs, so their graphs cannot be "
                         "compared one by one.</p>\n");
        return;
    }
    tl_buf_adds(out, "<p>\nThe estimated runtime of each graph (the sum of its ops' estimates) "
                     "compared across <strong>");
    tl_buf_addu(out, r->nranks);
    tl_buf_adds(out, r->nranks == 1 ? "</strong> rank" : "</strong> ranks");
    tl_buf_adds(out, ": the difference between the fastest and the slowest rank.\n</p>\n");
    for (size_t i = 0; i < r->nrows; i++) {
        const struct tl_runtime_row *row = &r->rows[i];
        tl_buf_adds(out, "<p><strong>Graph ");
        text(out, row->graph_id);
        tl_buf_adds(out, ":</strong> ");
        tl_json_write_double(out, row->delta_ms);
        tl_buf_adds(out, " ms delta (Fastest: Rank ");
        tl_buf_addu(out, row->fastest_rank);
        tl_buf_adds(out, " - ");
        tl_json_write_double(out, row->fastest_ms);
        tl_buf_adds(out, " ms, Slowest: Rank ");
        tl_buf_addu(out, row->slowest_rank);
        tl_buf_adds(out, " - ");
        tl_json_write_double(out, row->slowest_ms);
        tl_buf_adds(out, " ms)</p>\n");
    }
}

static void exec_section(struct tl_buf *out, const struct tl_exec_order *ex)
{
    tl_buf_adds(out, "<h3>Graph Execution-Order Diagnostics</h3>\n"
                     "<p>\nThis analysis needs the order in which each rank ran its graphs, "
                     "which is logged when the code is wrapped with "
                     "<code>torch._inductor.debug.record_and_log_graph_execution_order()</code>."
                     "\n</p>\n");
    if (!ex->available) {
        tl_buf_adds(out, "<p>Execution-order analysis unavailable: fewer than two ranks logged "
                         "a graph execution order.</p>\n");
        return;
    }
    if (ex->order_differs)
        tl_buf_adds(out, "<p>Graph execution order differs across ranks.</p>\n");
    else
        tl_buf_adds(out, "<p>Graph execution order: Consistent across ranks.</p>\n");
    if (ex->ranks_schedule && ex->ranks_schedule[0]) {
        tl_buf_adds(out, "<p><strong>Warning:</strong> Schedule mismatch across ranks: ");
        text(out, ex->ranks_schedule);
        tl_buf_adds(out, "</p>\n");
    } else {
        tl_buf_adds(out, "<p>Collective schedule: Consistent across ranks.</p>\n");
    }
    if (ex->ranks_cache && ex->ranks_cache[0]) {
        tl_buf_adds(out, "<p><strong>Warning:</strong> Cache hit/miss mismatch across ranks: ");
        text(out, ex->ranks_cache);
        tl_buf_adds(out, "</p>\n");
    } else {
        tl_buf_adds(out, "<p>Cache hit/miss sequence: Consistent across ranks.</p>\n");
    }
}

static void meta_section(struct tl_buf *out, const struct tl_ranks *r)
{
    tl_buf_adds(out, "<h3>Tensor Metadata Analysis</h3>\n"
                     "<p>\nThis compares the inductor tensor metadata (shapes, dtypes, strides) "
                     "of every graph across ranks.\n</p>\n");
    if (!r->meta.diverge) {
        tl_buf_adds(out, "<p>All ranks have matching tensor meta signatures.</p>\n");
        return;
    }
    tl_buf_adds(out, "<p>Ranks exhibit divergent inductor tensor metadata across graphs.</p>\n"
                     "<p>Ranks grouped by tensor metadata signature:</p>\n");
    group_list(out, &r->meta);
}

static void divergence_section(struct tl_buf *out, const struct tl_ranks *r)
{
    if (!r->ndivergences)
        return;
    tl_buf_adds(out, "<h3 id='diagnosis'>Diagnosis across ranks</h3>\n"
                     "<p>\nSome ranks compiled differently from the others. A rank that "
                     "recompiles, breaks a graph or fails where the others do not can issue "
                     "different collectives and hang; the Diagnosis of each rank's report says "
                     "why.\n</p>\n<ul>\n");
    for (size_t i = 0; i < r->ndivergences; i++) {
        const struct tl_rank_divergence *d = &r->divergences[i];
        tl_buf_adds(out, "<li><strong>");
        text(out, d->ranks);
        tl_buf_adds(out, "</strong> ");
        text(out, d->what);
        tl_buf_adds(out, "; ");
        text(out, d->others);
        tl_buf_adds(out, " did not.");
        if (d->detail) {
            tl_buf_adds(out, "<ul class='detail'>\n");
            for (const char *p = d->detail; *p;) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t)(nl - p) : strlen(p);
                tl_buf_adds(out, "<li>");
                tl_html_text(out, p, len);
                tl_buf_adds(out, "</li>\n");
                p += len + (nl ? 1 : 0);
            }
            tl_buf_adds(out, "</ul>");
        }
        tl_buf_adds(out, "</li>\n");
    }
    tl_buf_adds(out, "</ul>\n");
}

/* The cache misses of a rank that another rank's entries explain (model/cachekey.h). */
static void cache_miss_section(struct tl_buf *out, const struct tl_ranks *r)
{
    const struct tl_ck_across *a = r->cache_across;
    if (!a || !a->nmisses)
        return;
    tl_buf_adds(out, "<h3 id='cache-misses'>Cache misses across ranks</h3>\n"
                     "<p>\nThe keys some ranks missed the cache with, against the nearest "
                     "entry another rank hit or stored: the components of the key that "
                     "differ.\n</p>\n");
    tl_cachemiss_across_html(out, a, true);
    if (a->uncompared)
        tl_buf_addf(out, "<p>%u more keys missed: not compared (over %u).</p>\n", a->uncompared,
                    (unsigned)TL_CK_ACROSS_MAX);
    if (a->dropped)
        tl_buf_addf(out,
                    "<p>The ranks' summaries left out %u cache lookups (over %u a "
                    "rank): not compared.</p>\n",
                    a->dropped, (unsigned)TL_CK_DIGEST_MAX);
}

/* ---- where each rank's time went (model/ledger.h) ----------------------------------------- */

/* A segment of a rank's bar: s of whole, as a share of the bar's width. */
static void ledger_segment(struct tl_buf *out, const char *colour, double s, double whole,
                           const char *what)
{
    if (s <= 0 || whole <= 0)
        return;
    tl_buf_addf(out,
                "<span style='display:block;width:%.3f%%;background:%s' title='%s: %.3f s'>"
                "</span>",
                100 * s / whole, colour, what, s);
}

static void ledger_cell(struct tl_buf *out, double s)
{
    tl_buf_adds(out, "<td style='text-align:right' data-value='");
    tl_json_write_double(out, s);
    tl_buf_addf(out, "'>%.2f</td>", s);
}

/* "Where the time went": per rank with a compile-time ledger, its log's span, the compiling,
 * the first runs of compiled code and the unaccounted time (the numbers of its own
 * compile_time.html), a bar of them scaled to the longest log, and the rank that compiled
 * longest called out. Nothing when no rank timed a compile. */
static void ledger_section(struct tl_buf *out, const struct tl_ranks *r)
{
    const struct tl_ledger_lines **v = tl_xcalloc(r->nranks ? r->nranks : 1, sizeof(*v));
    double longest = 0;
    size_t with = 0;
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        if (!usable(s) || !s->diag.ledger.present)
            continue;
        v[i] = &s->diag.ledger;
        longest = fmax(longest, v[i]->span_s);
        with++;
    }
    if (!with) {
        free(v);
        return;
    }
    tl_buf_adds(out, "<h3 id='compile_time'>Where the time went</h3>\n<p>\nEach rank's log "
                     "from its first record to its last: the time PyTorch spent compiling, the "
                     "first runs of compiled code, and what no event accounts for (the program "
                     "running, or work PyTorch does not time). Each rank's "
                     "<em>compile_time.html</em> breaks its compiling down.");
    long top = tl_ledger_straggler(v, r->nranks);
    if (top >= 0) {
        size_t least = (size_t)top;
        for (size_t i = 0; i < r->nranks; i++)
            if (v[i] && v[i]->compiling_s < v[least]->compiling_s)
                least = i;
        tl_buf_addf(out,
                    "\n<strong>Rank %u compiled longest</strong>: %.2f s, %.2f s more than "
                    "Rank %u; the ranks that finish sooner wait for it at their next collective.",
                    r->ranks[top].rank, v[top]->compiling_s,
                    v[top]->compiling_s - v[least]->compiling_s, r->ranks[least].rank);
    }
    /* (a table of its own class: table.ranks is the table of ranks, the page's scripts and
     * tests find it so) */
    tl_buf_adds(out, "\n</p>\n<table class='ledger sortable' id='ledger'>\n<thead><tr>"
                     "<th>Rank</th><th title='its first record to its last'>Span (s)</th>"
                     "<th>Compiling (s)</th><th title='first runs of compiled code'>First runs "
                     "(s)</th><th>Unaccounted (s)</th><th>Scaled to the longest log</th>"
                     "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_ledger_lines *l = v[i];
        if (!l)
            continue;
        unsigned rank = r->ranks[i].rank;
        tl_buf_addf(out,
                    "<tr><td data-value='%u'><a href=\"rank_%u/compile_time.html\">Rank %u</a>",
                    rank, rank, rank);
        if ((long)i == top)
            tl_buf_adds(out, " <strong>(longest)</strong>");
        tl_buf_adds(out, "</td>");
        ledger_cell(out, l->span_s);
        ledger_cell(out, l->compiling_s);
        ledger_cell(out, l->runtime_s);
        ledger_cell(out, l->unaccounted_s);
        tl_buf_addf(out,
                    "<td style='width:40%%'><div style='display:flex;height:1em;"
                    "border:1px solid #888;width:%.3f%%'>",
                    longest > 0 ? 100 * l->span_s / longest : 0);
        ledger_segment(out, "#4e79a7", l->compiling_s, l->span_s, "compiling");
        ledger_segment(out, "#2f4b7c", l->runtime_s, l->span_s, "first runs");
        ledger_segment(out, "#d3d3d3", l->unaccounted_s, l->span_s, "unaccounted");
        tl_buf_adds(out, "</div></td></tr>\n");
    }
    tl_buf_adds(out, "</tbody>\n</table>\n");
    free(v);
}

void tl_page_landing(struct tl_buf *out, const struct tl_landing *p)
{
    const struct tl_ranks *r = p->ranks;
    tl_page_head(out, "tlparse: all ranks");
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_style_css);
    tl_buf_adds(out, tl_asset_landing_css);
    tl_buf_adds(out, "</style>\n<script>\n");
    tl_buf_adds(out, tl_asset_sort_js);
    tl_buf_adds(out, "</script>\n</head>\n<body>\n<div>\n");
    if (p->custom_header_html)
        tl_buf_adds(out, p->custom_header_html); /* raw by design: the user's own HTML */
    if (p->redacted) {
        struct tl_runinfo info = {.redacted = p->redacted};
        tl_page_redacted(out, &info);
    }
    tl_buf_adds(out, "<h2>Multi-Rank TLParse Report</h2>\n<p>\nThis run covers <strong>");
    tl_buf_addu(out, r->nranks);
    tl_buf_adds(out, r->nranks == 1 ? "</strong> rank" : "</strong> ranks");
    tl_buf_adds(out, ". Click on a rank to see its detailed report, as a single-rank run would "
                     "write it.\n</p>\n");
    summary_box(out, r);
    rank_table(out, r);
    warning_box(out, r);
    ledger_section(out, r);
    if (p->has_chromium)
        tl_buf_adds(out, "<h3>Chromium Events</h3>\n<p>\nA combined trace of all ranks, one "
                         "process per rank: <a href='chromium_events.json'>chromium_events.json"
                         "</a>. Open it in <a href='https://ui.perfetto.dev/'>Perfetto</a>.\n"
                         "</p>\n");
    if (r->has_runtime)
        tl_buf_adds(out, "<h3>Runtime Trace Visualization</h3>\n<p>\nThe estimated runtime of "
                         "every op: <a href='chromium_trace_with_runtime.json'>"
                         "chromium_trace_with_runtime.json</a>. One process per rank, one "
                         "thread per graph, the ops of a graph laid end to end by their "
                         "estimated duration. Open it in "
                         "<a href='https://ui.perfetto.dev/'>Perfetto</a>. The estimates of each "
                         "rank's graphs: <a href='runtime_estimations.json'>"
                         "runtime_estimations.json</a>.\n</p>\n");
    if (r->has_schedules)
        tl_buf_adds(out, "<p>\nThe collectives each rank's graphs issue, in order: "
                         "<a href='collective_schedules.json'>collective_schedules.json</a>."
                         "\n</p>\n");
    notes_section(out, r);
    runtime_section(out, r);
    exec_section(out, &r->exec);
    meta_section(out, r);
    divergence_section(out, r);
    cache_miss_section(out, r);
    tl_page_footer(out, p->info);
    tl_buf_adds(out, "</div>\n");
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

/* ---- the JSON files (§1.8, §1.10, §1.11) --------------------------------------------------- */

void tl_ranks_runtime_json(struct tl_buf *out, const struct tl_ranks *r)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY);
    tl_json_doc_array(&w);
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        for (size_t j = 0; usable(s) && j < s->nruntime; j++) {
            const struct tl_rank_runtime *rec = &s->runtime[j];
            if (!rec->nops)
                continue;
            tl_json_doc_object(&w);
            tl_json_doc_ku64(&w, "rank", s->rank);
            tl_json_doc_kstr(&w, "graph", nz(rec->graph));
            tl_json_doc_key(&w, "ops");
            tl_json_doc_array(&w);
            for (size_t o = 0; o < rec->nops; o++) {
                tl_json_doc_object(&w);
                tl_json_doc_kstr(&w, "name", nz(rec->ops[o].name));
                tl_json_doc_key(&w, "estimated_runtime_ns");
                tl_json_doc_f64(&w, rec->ops[o].estimated_runtime_ns);
                tl_json_doc_end(&w, '}');
            }
            tl_json_doc_end(&w, ']');
            tl_json_doc_end(&w, '}');
        }
    }
    tl_json_doc_end(&w, ']');
}

/* Rust's `f as u64`: truncation, saturating, NaN and negatives 0. */
static uint64_t to_u64(double d)
{
    if (!(d > 0))
        return 0;
    if (d >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)d;
}

/* max(1, ceil(ns / 1000)) microseconds (f64::max ignores a NaN). */
static uint64_t dur_us(double ns)
{
    double d = ceil(ns / 1000.0);
    return to_u64(d >= 1.0 ? d : 1.0);
}

static bool has_records(const struct tl_rank_summary *s)
{
    for (size_t j = 0; usable(s) && j < s->nruntime; j++)
        if (s->runtime[j].nops)
            return true;
    return false;
}

/* A thread of the runtime trace: a (rank, graph) pair, by its tid. */
struct thread {
    uint32_t rank, tid;
    const char *graph; /* the first graph seen with this tid */
};

/* The distinct threads of the records, in first-appearance order (ranks ascending). */
static struct thread *threads_of(const struct tl_ranks *r, size_t *n)
{
    struct thread *t = NULL;
    size_t len = 0, alloc = 0;
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        for (size_t j = 0; usable(s) && j < s->nruntime; j++) {
            if (!s->runtime[j].nops)
                continue;
            uint32_t tid = tl_ranks_tid(s->rank, s->runtime[j].graph);
            bool seen = false;
            for (size_t k = len; k-- > 0 && t[k].rank == s->rank && !seen;)
                seen = t[k].tid == tid;
            if (seen)
                continue;
            TL_GROW(t, len + 1, alloc);
            t[len++] = (struct thread){s->rank, tid, nz(s->runtime[j].graph)};
        }
    }
    *n = len;
    return t;
}

/*
 * The order in which the reference writes the thread events (the spec leaves it open; the
 * reference's files fix it). It keeps the (rank, tid) pairs in a Rust hash map (hashbrown,
 * FxHash of the u32 rank and the u64 tid) and walks the map's buckets in order. This replays
 * the insertions into a table of the same geometry: power-of-two buckets (4, 8, then 8/7 of
 * the capacity rounded up), 7/8 full at most, probed from hash & mask in groups of 16 with
 * triangular steps (a table smaller than a group takes its first free bucket from the
 * start), grown by re-inserting in bucket order. Checked against the reference's files for
 * the corpus (multi_rank_runtime: 7 ranks, 21 threads; collectives_parity). Writes the
 * permutation of the threads into order.
 */
#define GROUP 16

static uint64_t fx_mix(uint64_t h, uint64_t w)
{
    return (((h << 5) | (h >> 59)) ^ w) * 0x517cc1b727220a95ull;
}

static size_t free_slot(const size_t *slot, size_t buckets, uint64_t hash)
{
    size_t mask = buckets - 1, pos = hash & mask, stride = 0;
    for (;;) {
        for (size_t k = 0; k < GROUP; k++) {
            if (buckets < GROUP && pos + k >= buckets)
                break;
            if (!slot[(pos + k) & mask])
                return (pos + k) & mask;
        }
        if (buckets < GROUP) {
            for (size_t k = 0; k < buckets; k++)
                if (!slot[k])
                    return k;
        }
        stride += GROUP;
        pos = (pos + stride) & mask;
    }
}

static size_t capacity_of(size_t buckets)
{
    return buckets < 8 ? buckets - 1 : buckets / 8 * 7;
}

static size_t buckets_for(size_t cap)
{
    if (cap < 8)
        return cap < 4 ? 4 : 8;
    size_t want = cap * 8 / 7, b = 1;
    while (b < want)
        b *= 2;
    return b;
}

static void hash_map_order(const struct thread *t, size_t n, size_t *order)
{
    uint64_t *hash = tl_xcalloc(n ? n : 1, sizeof(*hash));
    for (size_t i = 0; i < n; i++)
        hash[i] = fx_mix(fx_mix(0, t[i].rank), t[i].tid);
    size_t *slot = NULL, buckets = 0, items = 0; /* slot: thread index + 1, 0 when free */
    for (size_t i = 0; i < n; i++) {
        if (!buckets || items == capacity_of(buckets)) {
            size_t nb = buckets_for(items + 1); /* the table is full: items == capacity */
            size_t *ns = tl_xcalloc(nb, sizeof(*ns));
            for (size_t k = 0; k < buckets; k++)
                if (slot[k])
                    ns[free_slot(ns, nb, hash[slot[k] - 1])] = slot[k];
            free(slot);
            slot = ns;
            buckets = nb;
        }
        slot[free_slot(slot, buckets, hash[i])] = i + 1;
        items++;
    }
    size_t k = 0;
    for (size_t b = 0; b < buckets; b++)
        if (slot[b])
            order[k++] = slot[b] - 1;
    free(slot);
    free(hash);
}

/* The thread metadata (§1.8 step 3): per rank ascending, its threads with their sort index. */
static void thread_events(struct tl_json_doc *w, const struct tl_ranks *r)
{
    size_t n;
    struct thread *t = threads_of(r, &n);
    size_t *order = tl_xcalloc(n ? n : 1, sizeof(*order));
    hash_map_order(t, n, order);
    for (size_t first = 0; first < n;) {
        uint32_t rank = t[first].rank;
        uint64_t index = 0;
        for (size_t k = 0; k < n; k++) {
            const struct thread *th = &t[order[k]];
            if (th->rank != rank)
                continue;
            tl_json_doc_object(w);
            tl_json_doc_key(w, "args");
            tl_json_doc_object(w);
            tl_json_doc_key(w, "name");
            struct tl_buf name = TL_BUF_INIT;
            tl_buf_adds(&name, "graph ");
            tl_buf_adds(&name, th->graph);
            tl_json_doc_strn(w, name.buf, name.len);
            tl_buf_release(&name);
            tl_json_doc_end(w, '}');
            tl_json_doc_kstr(w, "name", "thread_name");
            tl_json_doc_kstr(w, "ph", "M");
            tl_json_doc_ku64(w, "pid", rank);
            tl_json_doc_ku64(w, "tid", th->tid);
            tl_json_doc_end(w, '}');

            tl_json_doc_object(w);
            tl_json_doc_key(w, "args");
            tl_json_doc_object(w);
            tl_json_doc_ku64(w, "sort_index", index++);
            tl_json_doc_end(w, '}');
            tl_json_doc_kstr(w, "name", "thread_sort_index");
            tl_json_doc_kstr(w, "ph", "M");
            tl_json_doc_ku64(w, "pid", rank);
            tl_json_doc_ku64(w, "tid", th->tid);
            tl_json_doc_end(w, '}');
        }
        while (first < n && t[first].rank == rank)
            first++;
    }
    free(order);
    free(t);
}

void tl_ranks_runtime_trace_json(struct tl_buf *out, const struct tl_ranks *r)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY);
    tl_json_doc_array(&w);
    /* 1. one complete event per op, keys sorted */
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        for (size_t j = 0; usable(s) && j < s->nruntime; j++) {
            const struct tl_rank_runtime *rec = &s->runtime[j];
            uint32_t tid = tl_ranks_tid(s->rank, rec->graph);
            uint64_t ts = 0;
            for (size_t o = 0; o < rec->nops; o++) {
                double ns = rec->ops[o].estimated_runtime_ns;
                uint64_t dur = dur_us(ns);
                tl_json_doc_object(&w);
                tl_json_doc_key(&w, "args");
                tl_json_doc_object(&w);
                tl_json_doc_kstr(&w, "graph", nz(rec->graph));
                tl_json_doc_ku64(&w, "rank", s->rank);
                tl_json_doc_ku64(&w, "runtime_ns", to_u64(ns));
                tl_json_doc_end(&w, '}');
                tl_json_doc_kstr(&w, "cat", "runtime");
                tl_json_doc_ku64(&w, "dur", dur);
                tl_json_doc_kstr(&w, "name", nz(rec->ops[o].name));
                tl_json_doc_kstr(&w, "ph", "X");
                tl_json_doc_ku64(&w, "pid", s->rank);
                tl_json_doc_ku64(&w, "tid", tid);
                tl_json_doc_ku64(&w, "ts", ts);
                tl_json_doc_end(&w, '}');
                ts = ts > UINT64_MAX - dur ? UINT64_MAX : ts + dur;
            }
        }
    }
    /* 2. per rank with records, its process name and sort index */
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        if (!has_records(s))
            continue;
        bool done = false; /* an earlier summary of the same rank number wrote them */
        for (size_t k = i; k-- > 0 && r->ranks[k].rank == s->rank;)
            done = done || has_records(&r->ranks[k]);
        if (done)
            continue;
        struct tl_buf name = TL_BUF_INIT;
        tl_buf_adds(&name, "Rank ");
        tl_buf_addu(&name, s->rank);
        tl_json_doc_object(&w);
        tl_json_doc_key(&w, "args");
        tl_json_doc_object(&w);
        tl_json_doc_key(&w, "name");
        tl_json_doc_strn(&w, name.buf, name.len);
        tl_json_doc_end(&w, '}');
        tl_json_doc_kstr(&w, "name", "process_name");
        tl_json_doc_kstr(&w, "ph", "M");
        tl_json_doc_ku64(&w, "pid", s->rank);
        tl_json_doc_end(&w, '}');
        tl_buf_release(&name);

        tl_json_doc_object(&w);
        tl_json_doc_key(&w, "args");
        tl_json_doc_object(&w);
        tl_json_doc_ku64(&w, "sort_index", s->rank);
        tl_json_doc_end(&w, '}');
        tl_json_doc_kstr(&w, "name", "process_sort_index");
        tl_json_doc_kstr(&w, "ph", "M");
        tl_json_doc_ku64(&w, "pid", s->rank);
        tl_json_doc_end(&w, '}');
    }
    /* 3. per rank, its threads (graphs) in the reference's order */
    thread_events(&w, r);
    tl_json_doc_end(&w, ']');
}

void tl_ranks_schedules_json(struct tl_buf *out, const struct tl_ranks *r)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY);
    tl_json_doc_array(&w);
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        for (size_t j = 0; usable(s) && j < s->nschedules; j++) {
            const struct tl_rank_schedule *rec = &s->schedules[j];
            if (!rec->nops)
                continue;
            tl_json_doc_object(&w);
            tl_json_doc_ku64(&w, "rank", s->rank);
            tl_json_doc_kstr(&w, "graph", nz(rec->graph));
            tl_json_doc_key(&w, "ops");
            tl_json_doc_array(&w);
            for (size_t o = 0; o < rec->nops; o++)
                tl_json_doc_str(&w, nz(rec->ops[o]));
            tl_json_doc_end(&w, ']');
            tl_json_doc_end(&w, '}');
        }
    }
    tl_json_doc_end(&w, ']');
}

void tl_parity_json(struct tl_buf *out, const struct tl_parity_entry *e, size_t n)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY);
    tl_json_doc_object(&w);
    tl_json_doc_kstr(&w, "description",
                     "Difference of # of collectives in scheduler and inductor "
                     "output code and missing wait collectives");
    tl_json_doc_key(&w, "graphs");
    tl_json_doc_array(&w);
    for (size_t i = 0; e && i < n; i++) {
        tl_json_doc_object(&w);
        tl_json_doc_kstr(&w, "graph", nz(e[i].graph));
        tl_json_doc_kstr(&w, "compile_id", e[i].compile_id ? e[i].compile_id : "unknown");
        tl_json_doc_ku64(&w, "offset", e[i].offset);
        tl_json_doc_ku64(&w, "missing_waits", e[i].missing_waits);
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, ']');
    tl_json_doc_end(&w, '}');
}
