/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The overview at the top of a trace's index.html: the compile ids by status (the colours of
 * the stack trie), the total compile time, the cache hits and misses, and an inline SVG
 * chart of the compile time of each compile id, each bar a link to the compile id's listing.
 * No script and nothing fetched: it works from file://. Reads the model's overview only.
 */
#include "base/config.h"
#include "report/pages.h"
#include "base/json_write.h"
#include "report/html.h"

#include <math.h>
#include <string.h>

/* The chart's geometry, in CSS pixels: a row per compile id; text is 12px monospace. */
#define ROW_H 20
#define BAR_H 12
#define CHAR_W 7.3
#define BAR_MAX_PCT 58 /* of the chart's width: what is left of a 390px screen after the labels */

static const char *const status_words[TL_OV__COUNT] = {
    [TL_OV_OK] = "ok",
    [TL_OV_RESTART] = "restarted (graph break)",
    [TL_OV_EMPTY] = "empty graph",
    [TL_OV_FAIL] = "failed",
    [TL_OV_MISSING] = "no metrics",
};

/* Seconds with three decimals ("1.641 s"), whatever the locale. */
static void seconds(struct tl_buf *out, double s)
{
    if (!(s >= 0) || !isfinite(s))
        s = 0;
    if (s >= 1e15) {
        tl_json_write_double(out, s);
    } else {
        unsigned long long ms = (unsigned long long)llround(s * 1000);
        tl_buf_addf(out, "%llu.%03llu", ms / 1000, ms % 1000);
    }
    tl_buf_adds(out, " s");
}

static void plural(struct tl_buf *out, uint64_t n, const char *one, const char *many)
{
    tl_buf_addu(out, n);
    tl_buf_addch(out, ' ');
    tl_buf_adds(out, n == 1 ? one : many);
}

static bool loose_timed(const struct tl_overview_summary *s)
{
    for (size_t i = 0; i < s->nloose; i++)
        if (s->loose[i].c && s->loose[i].c->has_time)
            return true;
    return false;
}

/* The keys that are no compile id ([-/-]), when they hold files or compile time: named and
 * linked, apart from the compile ids. */
static void loose(struct tl_buf *out, const struct tl_overview_summary *s)
{
    bool any = false;
    for (size_t i = 0; i < s->nloose; i++) {
        const struct tl_overview_bar *b = &s->loose[i];
        size_t files = 0, links = 0;
        for (const struct tl_artifact *a = b->key->first; a; a = a->next) {
            if (a->is_link)
                links++;
            else
                files++;
        }
        bool timed = b->c && b->c->has_time;
        if (!files && !links && !timed)
            continue;
        tl_buf_adds(out, any ? "; " : "<p class='loose'>Outside any compilation (no compile id): ");
        any = true;
        tl_buf_adds(out, "<a href=\"#");
        tl_html_attr_cstr(out, b->key->display);
        tl_buf_adds(out, "\">");
        tl_html_text_cstr(out, b->key->display);
        tl_buf_adds(out, "</a>");
        const char *sep = " with ";
        if (files) {
            tl_buf_adds(out, sep);
            plural(out, files, "file", "files");
            sep = ", ";
        }
        if (links) {
            tl_buf_adds(out, sep);
            plural(out, links, "link", "links");
            sep = ", ";
        }
        if (timed) {
            tl_buf_adds(out, sep);
            seconds(out, b->c->time_s);
            tl_buf_adds(out, " of compile time");
        }
    }
    if (any)
        tl_buf_adds(out, "</p>\n");
}

static void counts(struct tl_buf *out, const struct tl_overview_summary *s, uint64_t nfailures)
{
    tl_buf_adds(out, "<p class='counts'><strong>");
    plural(out, s->ncompilations, "compile id", "compile ids");
    tl_buf_adds(out, "</strong>");
    /* A restart analyses a compilation again under an attempt id ([1/0_1]): the chips count
     * the analyses, so say how many there were. */
    if (s->ncids != s->ncompilations) {
        tl_buf_adds(out, ", analysed ");
        tl_buf_addu(out, s->ncids);
        tl_buf_adds(out, " times");
    }
    if (s->ncids) {
        tl_buf_addch(out, ':');
        for (int i = 0; i < TL_OV__COUNT; i++) {
            if (!s->count[i])
                continue;
            tl_buf_adds(out, " <span class='chip ");
            tl_buf_adds(out, tl_page_status_classes[i]);
            tl_buf_adds(out, "'>");
            tl_buf_addu(out, s->count[i]);
            tl_buf_addch(out, ' ');
            tl_buf_adds(out, status_words[i]);
            tl_buf_adds(out, "</span>");
        }
    }
    tl_buf_adds(out, "</p>\n");
    loose(out, s);
    tl_buf_adds(out, "<p class='total'>Total compile time: <strong>");
    if (s->ntimed || loose_timed(s))
        seconds(out, s->total_s);
    else
        tl_buf_adds(out, "not recorded");
    tl_buf_adds(out, "</strong>");
    if (s->ntimed && s->ntimed < s->ncids) {
        /* the times are per analysis: count those, as the chips do */
        tl_buf_adds(out, " (");
        tl_buf_addu(out, s->ncids - s->ntimed);
        if (s->ncids != s->ncompilations) {
            tl_buf_adds(out, " of the ");
            tl_buf_addu(out, s->ncids);
            tl_buf_adds(out, " analyses");
        } else {
            tl_buf_adds(out, s->ncids - s->ntimed == 1 ? " compile id" : " compile ids");
        }
        tl_buf_adds(out, s->ncids - s->ntimed == 1 ? " has" : " have");
        tl_buf_adds(out, " no time)");
    }
    tl_buf_adds(out, "</p>\n");
    static const char *const names[3] = {"FX graph cache", "AOT autograd cache", "other caches"};
    bool any = false;
    for (int k = 0; k < 3; k++) {
        const uint64_t *c = s->cache[k];
        if (!c[0] && !c[1] && !c[2])
            continue;
        tl_buf_adds(out, any ? "; " : "<p class='cache'>");
        any = true;
        tl_buf_adds(out, names[k]);
        tl_buf_adds(out, ": ");
        plural(out, c[0], "hit", "hits");
        tl_buf_adds(out, ", ");
        plural(out, c[1], "miss", "misses");
        if (c[2]) {
            tl_buf_adds(out, ", ");
            plural(out, c[2], "bypass", "bypasses");
        }
    }
    if (any)
        tl_buf_adds(out, "</p>\n");
    if (nfailures) {
        tl_buf_adds(out, "<p class='failures'><a href=\"failures_and_restarts.html\">");
        plural(out, nfailures, "restart or failure", "restarts and failures");
        tl_buf_adds(out, "</a></p>\n");
    }
}

/* Longest text of a column, in characters. */
static size_t label_chars(const struct tl_overview_summary *s)
{
    size_t n = 5;
    for (size_t i = 0; i < s->nbars; i++) {
        size_t k = strlen(s->bars[i].key->display);
        if (k > n)
            n = k;
    }
    return n;
}

static size_t time_chars(const struct tl_overview_summary *s)
{
    struct tl_buf b = TL_BUF_INIT;
    size_t n = 7;
    for (size_t i = 0; i < s->nbars; i++) {
        const struct tl_overview_cid *c = s->bars[i].c;
        if (!c || !c->has_time)
            continue;
        tl_buf_reset(&b);
        seconds(&b, c->time_s);
        if (b.len > n)
            n = b.len;
    }
    tl_buf_release(&b);
    return n;
}

static void bar(struct tl_buf *out, const struct tl_overview_bar *b, size_t row, unsigned col_w,
                unsigned label_x_end, double max_s)
{
    const struct tl_overview_cid *c = b->c;
    unsigned y = (unsigned)(row * ROW_H);
    tl_buf_adds(out, "<a href=\"#");
    tl_html_attr_cstr(out, b->key->display);
    tl_buf_adds(out, "\"><title>");
    tl_html_text_cstr(out, b->key->display);
    if (c && c->function) {
        tl_buf_addch(out, ' ');
        tl_html_text_cstr(out, c->function);
    }
    tl_buf_adds(out, ": ");
    if (c && c->has_time) {
        tl_json_write_double(out, c->time_s);
        tl_buf_adds(out, " s");
    } else {
        tl_buf_adds(out, "no compile time recorded");
    }
    tl_buf_adds(out, ", ");
    tl_buf_adds(out, status_words[b->status]);
    tl_buf_adds(out, "</title>");
    tl_buf_addf(out, "<rect class='row' x='0' y='%u' width='100%%' height='%u'/>", y, ROW_H);
    tl_buf_addf(out, "<text class='cid' x='4' y='%u'>", y + 14);
    tl_html_text_cstr(out, b->key->display);
    tl_buf_adds(out, "</text>");
    if (c && c->has_time) {
        tl_buf_addf(out, "<text x='%u' y='%u' text-anchor='end'>", label_x_end, y + 14);
        seconds(out, c->time_s);
        tl_buf_adds(out, "</text>");
        /* Basis points of the chart's width; a zero time still shows a sliver. */
        double frac = max_s > 0 ? c->time_s / max_s : 0;
        unsigned bp = (unsigned)llround(frac * BAR_MAX_PCT * 100);
        tl_buf_addf(out, "<rect class='%s' x='%u' y='%u' height='%u' rx='2' ",
                    tl_page_status_classes[b->status], col_w, y + (ROW_H - BAR_H) / 2, BAR_H);
        if (bp)
            tl_buf_addf(out, "width='%u.%02u%%'/>", bp / 100, bp % 100);
        else
            tl_buf_adds(out, "width='2'/>");
    } else {
        tl_buf_addf(out, "<text class='none' x='%u' y='%u' text-anchor='end'>&#8212;</text>",
                    label_x_end, y + 14);
        tl_buf_addf(out, "<text class='none' x='%u' y='%u'>no time</text>", col_w, y + 14);
    }
    tl_buf_adds(out, "</a>\n");
}

static void chart(struct tl_buf *out, const struct tl_overview_summary *s)
{
    size_t lc = label_chars(s), tc = time_chars(s);
    unsigned label_x_end = (unsigned)((double)(lc + 1 + tc) * CHAR_W + 6);
    unsigned col_w = label_x_end + 8;
    tl_buf_adds(out, "<figure>\n");
    tl_buf_addf(out,
                "<svg class='chart' role='group' aria-label='Compile time per compile id' "
                "height='%u' xmlns='http://www.w3.org/2000/svg'>\n",
                (unsigned)(s->nbars * ROW_H));
    for (size_t i = 0; i < s->nbars; i++)
        bar(out, &s->bars[i], i, col_w, label_x_end, s->max_s);
    tl_buf_adds(out, "</svg>\n<figcaption>Compile time per compile id (the entire frame, "
                     "summed over its compilation_metrics records), in the order they were "
                     "compiled, coloured as in the stack trie. ");
    if (s->nomitted) {
        tl_buf_adds(out, "<strong>The ");
        tl_buf_addu(out, s->nbars);
        tl_buf_adds(out, " slowest of ");
        tl_buf_addu(out, s->ncids);
        tl_buf_adds(out, " compile ids are drawn</strong>; the other ");
        tl_buf_addu(out, s->nomitted);
        tl_buf_adds(out, " took ");
        seconds(out, s->omitted_s);
        tl_buf_adds(out, " in all. ");
    }
    tl_buf_adds(out, "Point at a bar for its exact time; click it for the compile id's "
                     "files.</figcaption>\n</figure>\n");
}

void tl_page_overview(struct tl_buf *out, const struct tl_model *m, uint64_t nfailures,
                      size_t max_bars)
{
    struct tl_overview_summary s;
    tl_overview_summarize(m, max_bars, &s);
    tl_buf_adds(out, "<section class='overview' id='overview'>\n<h2>Overview</h2>\n");
    counts(out, &s, nfailures);
    if (s.nbars)
        chart(out, &s);
    tl_buf_adds(out, "</section>\n");
    tl_overview_summary_release(&s);
}
