/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compile_time.html: where the compile time went (model/ledger.h). The run's lines first, as a
 * stacked bar of the log's span (the phases, the first runs of compiled code, what nothing
 * accounts for) and a table; then a stacked bar per compile id, slowest first, scaled to the
 * slowest. The bars are plain HTML boxes whose widths are percentages: no script.
 */
#include "base/config.h"
#include "report/pages.h"
#include "report/html.h"
#include "base/sort.h"

#include <math.h>
#include <stdlib.h>

/* At most this many compile ids get a bar; summary.json lists them all. */
#define MAX_ROWS 300

/* One colour per phase (enum tl_ledger_phase order), then the first runs and unaccounted. */
static const char *const colours[TL_LP_COUNT + 2] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#8cd17d", "#79706e", "#2f4b7c", "#d3d3d3",
};
#define RUNTIME TL_LP_COUNT
#define UNACCOUNTED (TL_LP_COUNT + 1)

static const char style[] =
    "<style>\n"
    ".bar{display:flex;height:1.2em;min-width:1px;border:1px solid #888}\n"
    ".bar span{display:block;height:100%}\n"
    ".legend span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;"
    "vertical-align:middle}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.b{width:60%}\n"
    "</style>\n";

static void segment(struct tl_buf *out, int colour, double s, double whole, const char *what)
{
    if (s <= 0 || whole <= 0)
        return;
    tl_buf_addf(out, "<span style=\"width:%.3f%%;background:%s\" title=\"", 100 * s / whole,
                colours[colour]);
    tl_html_attr_cstr(out, what);
    tl_buf_addf(out, ": %.3f s\"></span>", s);
}

static void seconds_cell(struct tl_buf *out, double s)
{
    tl_buf_addf(out, "<td class=\"n\">%.3f</td>", s);
}

static void run_section(struct tl_buf *out, const struct tl_ledger *l)
{
    const struct tl_ledger_run *r = &l->run;
    tl_buf_addf(out,
                "<p>The log spans <strong>%.2f s</strong>, from its first record to its "
                "last; PyTorch timed <strong>%.2f s</strong> of it compiling (%s). The log "
                "begins with the first compile: what the program did before (importing, "
                "loading data and weights) is not in it.</p>\n",
                r->span_s, r->compiling_s,
                r->from_events ? "its timed events" : "its compilation metrics: no events");
    tl_buf_adds(out, "<div class=\"bar\">");
    for (int p = 0; p < TL_LP_COUNT; p++)
        segment(out, p,
                r->phases_s[p] * (r->compiling_s / fmax(r->compiling_s + r->overlap_s, 1e-9)),
                r->span_s, tl_ledger_phase_name((enum tl_ledger_phase)p));
    segment(out, RUNTIME, r->runtime_s, r->span_s, "first runs of compiled code");
    segment(out, UNACCOUNTED, r->unaccounted_s, r->span_s, "unaccounted");
    tl_buf_adds(out, "</div>\n<p class=\"legend\">");
    for (int p = 0; p < TL_LP_COUNT; p++)
        if (r->phases_s[p] > 0) {
            tl_buf_addf(out, "<span style=\"background:%s\"></span>", colours[p]);
            tl_html_text_cstr(out, tl_ledger_phase_name((enum tl_ledger_phase)p));
        }
    if (r->runtime_s > 0)
        tl_buf_addf(out, "<span style=\"background:%s\"></span>first runs", colours[RUNTIME]);
    tl_buf_addf(out, "<span style=\"background:%s\"></span>unaccounted</p>\n",
                colours[UNACCOUNTED]);

    tl_buf_adds(out, "<table>\n<tr><th>Where</th><th>What it is</th><th>Seconds</th>"
                     "<th>Share of the span</th></tr>\n");
    for (int p = 0; p < TL_LP_COUNT; p++) {
        if (r->phases_s[p] <= 0)
            continue;
        tl_buf_adds(out, "<tr><td>");
        tl_html_text_cstr(out, tl_ledger_phase_name((enum tl_ledger_phase)p));
        tl_buf_adds(out, "</td><td>");
        tl_html_text_cstr(out, tl_ledger_phase_label((enum tl_ledger_phase)p));
        tl_buf_adds(out, "</td>");
        seconds_cell(out, r->phases_s[p]);
        tl_buf_addf(out, "<td class=\"n\">%.1f%%</td></tr>\n",
                    r->span_s > 0 ? 100 * r->phases_s[p] / r->span_s : 0);
    }
    if (r->overlap_s > 0) {
        tl_buf_adds(out, "<tr><td>at once</td><td>spans that ran at the same time, counted "
                         "twice above</td>");
        seconds_cell(out, -r->overlap_s);
        tl_buf_adds(out, "<td></td></tr>\n");
    }
    if (r->runtime_s > 0) {
        tl_buf_adds(out, "<tr><td>first runs</td><td>the first runs of compiled code "
                         "(runtime metrics)</td>");
        seconds_cell(out, r->runtime_s);
        tl_buf_addf(out, "<td class=\"n\">%.1f%%</td></tr>\n",
                    r->span_s > 0 ? 100 * r->runtime_s / r->span_s : 0);
    }
    tl_buf_adds(out, "<tr><td><strong>unaccounted</strong></td><td>no compile event covers it: "
                     "the program running, or work PyTorch does not time</td>");
    seconds_cell(out, r->unaccounted_s);
    tl_buf_addf(out, "<td class=\"n\">%.1f%%</td></tr>\n",
                r->span_s > 0 ? 100 * r->unaccounted_s / r->span_s : 0);
    tl_buf_adds(out, "<tr><td><strong>the log's span</strong></td><td></td>");
    seconds_cell(out, r->span_s);
    tl_buf_adds(out, "<td class=\"n\">100%</td></tr>\n</table>\n");

    if (r->from_events && r->metrics_s > 0) {
        tl_buf_addf(out, "<p>The compilation metrics say %.2f s of compiling.", r->metrics_s);
        if (r->backward_s > 0)
            tl_buf_addf(out,
                        " They leave out the compiles after the frame's own, %.2f s: "
                        "a backward pass is compiled on its first call of "
                        "<code>backward()</code>.",
                        r->backward_s);
        tl_buf_adds(out, "</p>\n");
    }
    if (r->cold_n || r->warm_n)
        tl_buf_addf(out,
                    "<p>Cold compiles (a cache missed): %u, %.2f s. Warm compiles (every "
                    "lookup hit): %u, %.2f s.</p>\n",
                    r->cold_n, r->cold_s, r->warm_n, r->warm_s);
}

static int slower_first(const void *a, const void *b)
{
    const struct tl_ledger_cid *x = *(const struct tl_ledger_cid *const *)a;
    const struct tl_ledger_cid *y = *(const struct tl_ledger_cid *const *)b;
    double s = tl_ledger_cid_seconds(x), t = tl_ledger_cid_seconds(y);
    return s > t ? -1 : s < t;
}

static void cid_rows(struct tl_buf *out, const struct tl_ledger *l)
{
    const struct tl_ledger_cid **rows = malloc((l->ncids ? l->ncids : 1) * sizeof(*rows));
    if (!rows)
        return;
    uint32_t n = 0;
    for (uint32_t i = 0; i < l->ncids; i++)
        if (tl_ledger_cid_seconds(l->cids[i]) > 0)
            rows[n++] = l->cids[i];
    tl_sort(rows, n, sizeof(*rows), slower_first);
    double top = n ? tl_ledger_cid_seconds(rows[0]) : 0;
    tl_buf_addf(out,
                "<h2>Per compile id</h2>\n<p>%u compile id%s, slowest first; each bar is "
                "scaled to the slowest.",
                n, n == 1 ? "" : "s");
    if (n > MAX_ROWS)
        tl_buf_addf(out, " The %d slowest are shown; <code>tlparse --json</code> lists all.",
                    MAX_ROWS);
    tl_buf_adds(out, "</p>\n<table>\n<tr><th>Compile id</th><th>Seconds</th><th>Phases</th>"
                     "<th>Cache</th><th>Metrics say</th><th>After the frame</th></tr>\n");
    for (uint32_t i = 0; i < n && i < MAX_ROWS; i++) {
        const struct tl_ledger_cid *c = rows[i];
        double total = tl_ledger_cid_seconds(c);
        tl_buf_adds(out, "<tr><td>");
        tl_html_text_cstr(out, c->cid);
        tl_buf_adds(out, "</td>");
        seconds_cell(out, total);
        tl_buf_addf(out, "<td class=\"b\"><div class=\"bar\" style=\"width:%.3f%%\">",
                    top > 0 ? 100 * total / top : 0);
        for (int p = 0; p < TL_LP_COUNT; p++)
            segment(out, p, tl_ledger_cid_phase_s(c, (enum tl_ledger_phase)p), total,
                    tl_ledger_phase_name((enum tl_ledger_phase)p));
        tl_buf_adds(out, "</div></td><td>");
        tl_buf_adds(out, c->cache & TL_LEDGER_MISS     ? "cold (missed)"
                         : c->cache == TL_LEDGER_HIT   ? "warm (hit)"
                         : c->cache & TL_LEDGER_BYPASS ? "bypassed"
                                                       : "");
        tl_buf_adds(out, "</td>");
        if (c->has_metrics)
            seconds_cell(out, c->m_entire_s);
        else
            tl_buf_adds(out, "<td></td>");
        if (c->backward_us > 0)
            seconds_cell(out, c->backward_us / 1e6);
        else
            tl_buf_adds(out, "<td></td>");
        tl_buf_adds(out, "</tr>\n");
    }
    tl_buf_adds(out, "</table>\n");
    free(rows);
}

int tl_page_ledger(const struct tl_page_sink *sink, const struct tl_ledger *l)
{
    struct tl_buf *out = sink->buf;
    tl_page_head(out, "Compile time");
    tl_buf_adds(out, style);
    tl_buf_adds(out, "</head>\n<body>\n<h1>Where the compile time went</h1>\n"
                     "<p><a href=\"index.html\">Back to the index</a></p>\n");
    run_section(out, l);
    if (tl_page_flush(sink))
        return -1;
    cid_rows(out, l);
    tl_buf_adds(out, "</body>\n</html>\n");
    return tl_page_flush(sink) ? -1 : 0;
}
