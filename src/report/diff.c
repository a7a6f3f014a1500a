/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `tlparse diff` written out (report/diff.h): the JSON of schema tlparse-diff/1, the plain text
 * of --summary and the HTML page, from the diff model (model/diff.h) alone. Every string of a
 * side came from a log: the page escapes it for its context, the text strips its control
 * characters, the JSON writer escapes it as JSON.
 */
#include "base/config.h"
#include "report/diff.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "report/assets.h"
#include "report/cache_miss.h"
#include "report/html.h"
#include "report/terminal.h"
#include "report/pages.h"
#include "base/sort.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most frames the text and the page list with their compile time. */
#define TEXT_MAX_TIMES 10
#define PAGE_MAX_TIMES 30
/* How much of a finding's text the plain text shows: its first line, this many characters. */
#define TEXT_MAX_CHARS 200

static const char *const titles[TL_DIFF_NCATS] = {"Failures", "Recompiles", "Graph breaks",
                                                  "Specializations"};
static const char *const singular[TL_DIFF_NCATS] = {"failure", "recompile", "graph break",
                                                    "specialization"};
static const char *const plural[TL_DIFF_NCATS] = {"failures", "recompiles", "graph breaks",
                                                  "specializations"};
/* The JSON key of an item's text and of its detail (NULL: none), per category. */
static const char *const text_keys[TL_DIFF_NCATS] = {"reason", "guard", "reason", "expr"};
static const char *const detail_keys[TL_DIFF_NCATS] = {"type", NULL, NULL, "kind"};

/* The changes listed, in the order all three outputs list them. */
static const enum tl_diff_change listed[3] = {TL_DIFF_NEW, TL_DIFF_CHANGED, TL_DIFF_FIXED};

static const char *change_key(enum tl_diff_change c)
{
    return c == TL_DIFF_NEW ? "new" : c == TL_DIFF_CHANGED ? "changed" : "fixed";
}

static const char *change_label(enum tl_diff_change c)
{
    return c == TL_DIFF_NEW ? "NEW" : c == TL_DIFF_CHANGED ? "CHANGED" : "FIXED";
}

/* ---- what the three outputs share -------------------------------------------------------- */

static const struct tl_diff_item *pair_item(const struct tl_diff_pair *p)
{
    return p->after ? p->after : p->before;
}

static uint64_t count_before(const struct tl_diff_pair *p)
{
    return p->before ? p->before->count : 0;
}

static uint64_t count_after(const struct tl_diff_pair *p)
{
    return p->after ? p->after->count : 0;
}

/* "file:line", the file alone when the line is unknown, nothing when the file is. */
static void loc_string(struct tl_buf *b, const struct tl_diff_loc *l)
{
    if (!l->file)
        return;
    tl_buf_adds(b, l->file);
    if (l->line)
        tl_buf_addf(b, ":%u", l->line);
}

/* Where a finding is (its after item's place, else its before item's) into now, and where it
 * was into was when it moved (both sides have it, at places written differently). */
static void pair_where(const struct tl_diff_pair *p, struct tl_buf *now, struct tl_buf *was)
{
    loc_string(now, &pair_item(p)->loc);
    if (!p->before || !p->after)
        return;
    loc_string(was, &p->before->loc);
    if (now->len == was->len && !memcmp(now->buf, was->buf, now->len))
        tl_buf_reset(was);
}

static const struct tl_diff_frame *frame_of(const struct tl_diff_fpair *p)
{
    return p->after ? p->after : p->before;
}

static uint32_t compiles_of(const struct tl_diff_frame *f)
{
    return f ? f->compiles : 0;
}

/* A frame compiled more or fewer times, with its place in d->frames (for a stable order). */
struct fchange {
    const struct tl_diff_fpair *p;
    uint32_t index;
    uint32_t before, after;
};

static uint32_t fchange_size(const struct fchange *c)
{
    return c->after > c->before ? c->after - c->before : c->before - c->after;
}

static int cmp_fchange(const void *x, const void *y)
{
    const struct fchange *a = x, *b = y;
    uint32_t da = fchange_size(a), db = fchange_size(b);
    if (da != db)
        return da > db ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The frames compiled more times (more) or fewer times after than before, the largest
 * difference first, then in the order of d->frames. Caller frees *out. */
static uint32_t frame_changes(const struct tl_diff *d, bool more, struct fchange **out)
{
    struct fchange *v = tl_xcalloc(d->nframes + 1u, sizeof(*v));
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diff_fpair *p = &d->frames[i];
        uint32_t a = compiles_of(p->before), b = compiles_of(p->after);
        if (more ? b > a : b < a)
            v[n++] = (struct fchange){p, i, a, b};
    }
    if (n)
        tl_sort(v, n, sizeof(*v), cmp_fchange);
    *out = v;
    return n;
}

/* Frames on both sides, compiled as often. */
static uint32_t frames_unchanged(const struct tl_diff *d)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diff_fpair *p = &d->frames[i];
        n += p->before && p->after && p->before->compiles == p->after->compiles;
    }
    return n;
}

static bool has_time(const struct tl_diff_fpair *p)
{
    return tl_diff_frame_seconds(p->before) >= 0 || tl_diff_frame_seconds(p->after) >= 0;
}

/* The frames whose compile time the text and the page list: known on a side, and not the same
 * on both to the hundredth of a second (the JSON lists every frame with a time). */
static bool time_shown(const struct tl_diff_fpair *p)
{
    double a = tl_diff_frame_seconds(p->before), b = tl_diff_frame_seconds(p->after);
    if (a < 0 && b < 0)
        return false;
    return a < 0 || b < 0 || fabs(b - a) >= 0.005;
}

static uint32_t count_changes(const struct tl_diff *d, enum tl_diff_cat c, enum tl_diff_change ch)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->npairs[c]; i++)
        n += d->pairs[c][i].change == ch;
    return n;
}

/* The pairs of a category that differ (new, changed or fixed). */
static uint32_t count_listed(const struct tl_diff *d, enum tl_diff_cat c)
{
    uint32_t n = 0;
    for (int k = 0; k < 3; k++)
        n += count_changes(d, c, listed[k]);
    return n;
}

static bool findings_differ(const struct tl_diff *d)
{
    for (int c = 0; c < TL_DIFF_NCATS; c++)
        if (count_listed(d, (enum tl_diff_cat)c))
            return true;
    return false;
}

/* The caches differ (one side has numbers the other has not, or they are not the same). */
static bool cache_differs(const struct tl_diff *d)
{
    const struct tl_diff_side *a = d->before, *b = d->after;
    if (!a->has_cache && !b->has_cache)
        return false;
    if (a->has_cache != b->has_cache)
        return true;
    return memcmp(a->cache, b->cache, sizeof(a->cache)) != 0;
}

static const char *const cache_names[2] = {"fx_graph", "aotautograd"};
static const char *const cache_fields[3] = {"hit", "miss", "bypass"};

/* A signed number with decimals: "+0.86", "-70.6"; no sign when it rounds to zero. */
static void add_signed(struct tl_buf *b, double v, int decimals, const char *unit)
{
    char s[64];
    snprintf(s, sizeof(s), "%.*f", decimals, fabs(v));
    if (strspn(s, "0.") != strlen(s))
        tl_buf_addch(b, v < 0 ? '-' : '+');
    tl_buf_adds(b, s);
    tl_buf_adds(b, unit);
}

/* Seconds with 2 decimals ("41.20 s"), or "?" when unknown (negative). */
static void add_seconds(struct tl_buf *b, double s)
{
    if (s < 0)
        tl_buf_adds(b, "?");
    else
        tl_buf_addf(b, "%.2f s", s);
}

static double side_seconds(const struct tl_diff_side *s)
{
    return s->has_time ? s->total_s : -1;
}

/* ---- JSON --------------------------------------------------------------------------------- */

static void j_loc(struct tl_json_doc *w, const char *key, const struct tl_diff_loc *l)
{
    tl_json_doc_key(w, key);
    if (!l || !l->file) {
        tl_json_doc_null(w);
        return;
    }
    struct tl_buf b = TL_BUF_INIT;
    loc_string(&b, l);
    tl_json_doc_str(w, b.buf);
    tl_buf_release(&b);
}

static void j_strs(struct tl_json_doc *w, const char *key, const char *const *v, uint32_t n)
{
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < n; i++)
        tl_json_doc_str(w, v[i]);
    tl_json_doc_end(w, ']');
}

/* A number of seconds, null when unknown (negative). */
static void j_seconds(struct tl_json_doc *w, const char *key, double s)
{
    tl_json_doc_key(w, key);
    if (s < 0)
        tl_json_doc_null(w);
    else
        tl_json_doc_f64(w, s);
}

static void j_side(struct tl_json_doc *w, const char *key, const struct tl_diff_side *s)
{
    tl_json_doc_key(w, key);
    tl_json_doc_object(w);
    tl_json_doc_kstr(w, "path", s->path);
    tl_json_doc_kstr(w, "kind", s->kind);
    tl_json_doc_kstr(w, "source_kind", s->source_kind);
    tl_json_doc_kstr(w, "report", s->report);
    tl_json_doc_ku64(w, "compile_ids", s->compile_ids);
    j_seconds(w, "compile_time_s", side_seconds(s));
    tl_json_doc_end(w, '}');
}

static void j_pair(struct tl_json_doc *w, enum tl_diff_cat c, const struct tl_diff_pair *p)
{
    const struct tl_diff_item *it = pair_item(p);
    struct tl_buf now = TL_BUF_INIT, was = TL_BUF_INIT;
    pair_where(p, &now, &was);
    tl_json_doc_object(w);
    tl_json_doc_kstr(w, text_keys[c], it->text);
    if (detail_keys[c])
        tl_json_doc_kstr(w, detail_keys[c], it->detail);
    tl_json_doc_kstr(w, "function", it->loc.function);
    tl_json_doc_kstr(w, "location", now.len ? now.buf : NULL);
    tl_json_doc_kstr(w, "location_before", was.len ? was.buf : NULL);
    tl_json_doc_ku64(w, "count_before", count_before(p));
    tl_json_doc_ku64(w, "count_after", count_after(p));
    if (p->before)
        j_strs(w, "compile_ids_before", p->before->cids, p->before->ncids);
    else
        j_strs(w, "compile_ids_before", NULL, 0);
    if (p->after)
        j_strs(w, "compile_ids_after", p->after->cids, p->after->ncids);
    else
        j_strs(w, "compile_ids_after", NULL, 0);
    tl_json_doc_kstr(w, "category", it->category);
    tl_json_doc_end(w, '}');
    tl_buf_release(&now);
    tl_buf_release(&was);
}

static void j_category(struct tl_json_doc *w, const struct tl_diff *d, enum tl_diff_cat c)
{
    tl_json_doc_key(w, tl_diff_cat_name(c));
    tl_json_doc_object(w);
    for (int k = 0; k < 3; k++) {
        tl_json_doc_key(w, change_key(listed[k]));
        tl_json_doc_array(w);
        for (uint32_t i = 0; i < d->npairs[c]; i++)
            if (d->pairs[c][i].change == listed[k])
                j_pair(w, c, &d->pairs[c][i]);
        tl_json_doc_end(w, ']');
    }
    tl_json_doc_ku64(w, "unchanged", d->nsame[c]);
    tl_json_doc_end(w, '}');
}

static void j_frame_names(struct tl_json_doc *w, const struct tl_diff_frame *f)
{
    tl_json_doc_kstr(w, "function", f->function);
    tl_json_doc_kstr(w, "name", f->name);
    j_loc(w, "location", &f->loc);
}

static void j_frame_list(struct tl_json_doc *w, const char *key, const struct fchange *v,
                         uint32_t n)
{
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < n; i++) {
        const struct tl_diff_fpair *p = v[i].p;
        const struct tl_diff_frame *f = frame_of(p);
        tl_json_doc_object(w);
        j_frame_names(w, f);
        if (f->callers) {
            j_strs(w, "callers", f->callers, f->ncallers);
        } else {
            tl_json_doc_key(w, "callers");
            tl_json_doc_null(w);
        }
        tl_json_doc_ku64(w, "compiles_before", v[i].before);
        tl_json_doc_ku64(w, "compiles_after", v[i].after);
        j_strs(w, "compile_ids_before", p->before ? p->before->cids : NULL,
               p->before ? p->before->ncids : 0);
        j_strs(w, "compile_ids_after", p->after ? p->after->cids : NULL,
               p->after ? p->after->ncids : 0);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

static void j_frames(struct tl_json_doc *w, const struct tl_diff *d)
{
    struct fchange *more, *fewer;
    uint32_t nmore = frame_changes(d, true, &more), nfewer = frame_changes(d, false, &fewer);
    tl_json_doc_key(w, "frames");
    tl_json_doc_object(w);
    j_frame_list(w, "more", more, nmore);
    j_frame_list(w, "fewer", fewer, nfewer);
    tl_json_doc_ku64(w, "unchanged", frames_unchanged(d));
    tl_json_doc_end(w, '}');
    free(more);
    free(fewer);
}

/* A difference of two times, to the microsecond the logs record them in (not 0.8599999...). */
static double micro(double s)
{
    return round(s * 1e6) / 1e6;
}

/* The ledgers' lines, the run's and each phase's: before, after and the change. */
struct ledger_line {
    const char *key, *name;
    double a, b;
};

/* The lines both ledgers have: span, compiling, the phases, first runs, unaccounted. Returns
 * how many went into v (0 when a side has no ledger). */
static int ledger_lines(const struct tl_diff *d, struct ledger_line v[TL_LP_COUNT + 4])
{
    const struct tl_diff_ledger *a = &d->before->ledger, *b = &d->after->ledger;
    if (!a->has || !b->has)
        return 0;
    int n = 0;
    v[n++] = (struct ledger_line){"span", "the log's span", a->span_s, b->span_s};
    v[n++] = (struct ledger_line){"compiling", "compiling", a->compiling_s, b->compiling_s};
    for (int p = 0; p < TL_LP_COUNT; p++)
        v[n++] = (struct ledger_line){tl_ledger_phase_key((enum tl_ledger_phase)p),
                                      tl_ledger_phase_name((enum tl_ledger_phase)p), a->phases_s[p],
                                      b->phases_s[p]};
    v[n++] = (struct ledger_line){"runtime", "first runs", a->runtime_s, b->runtime_s};
    v[n++] = (struct ledger_line){"unaccounted", "unaccounted", a->unaccounted_s, b->unaccounted_s};
    return n;
}

static void j_ledger(struct tl_json_doc *w, const struct tl_diff *d)
{
    struct ledger_line v[TL_LP_COUNT + 4];
    int n = ledger_lines(d, v);
    tl_json_doc_key(w, "ledger");
    if (!n) {
        tl_json_doc_null(w);
        return;
    }
    tl_json_doc_object(w);
    for (int i = 0; i < n; i++) {
        tl_json_doc_key(w, v[i].key);
        tl_json_doc_object(w);
        j_seconds(w, "before_s", v[i].a);
        j_seconds(w, "after_s", v[i].b);
        tl_json_doc_key(w, "change_s");
        tl_json_doc_f64(w, micro(v[i].b - v[i].a));
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, '}');
}

static void j_compile_time(struct tl_json_doc *w, const struct tl_diff *d)
{
    double a = side_seconds(d->before), b = side_seconds(d->after);
    tl_json_doc_key(w, "compile_time");
    tl_json_doc_object(w);
    j_seconds(w, "before_s", a);
    j_seconds(w, "after_s", b);
    tl_json_doc_key(w, "change_s");
    if (a >= 0 && b >= 0)
        tl_json_doc_f64(w, micro(b - a));
    else
        tl_json_doc_null(w);
    tl_json_doc_key(w, "change_pct");
    if (a > 0 && b >= 0)
        tl_json_doc_f64(w, round(1e4 * 100 * (b - a) / a) / 1e4);
    else
        tl_json_doc_null(w);
    tl_json_doc_key(w, "frames");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diff_fpair *p = &d->frames[i];
        if (!has_time(p))
            continue;
        double fa = tl_diff_frame_seconds(p->before), fb = tl_diff_frame_seconds(p->after);
        tl_json_doc_object(w);
        j_frame_names(w, frame_of(p));
        j_seconds(w, "before_s", fa);
        j_seconds(w, "after_s", fb);
        tl_json_doc_key(w, "change_s");
        if (fa >= 0 && fb >= 0)
            tl_json_doc_f64(w, micro(fb - fa));
        else
            tl_json_doc_null(w);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    j_ledger(w, d);
    tl_json_doc_end(w, '}');
}

static void j_cache(struct tl_json_doc *w, const char *key, const struct tl_diff_side *s)
{
    tl_json_doc_key(w, key);
    if (!s->has_cache) {
        tl_json_doc_null(w);
        return;
    }
    tl_json_doc_object(w);
    for (int c = 0; c < 2; c++) {
        tl_json_doc_key(w, cache_names[c]);
        tl_json_doc_object(w);
        for (int k = 0; k < 3; k++)
            tl_json_doc_ku64(w, cache_fields[k], s->cache[c][k]);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, '}');
}

static void j_graph(struct tl_json_doc *w, const char *key, const struct tl_diff_graph *g)
{
    tl_json_doc_key(w, key);
    if (!g) {
        tl_json_doc_null(w);
        return;
    }
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

static void j_graphs(struct tl_json_doc *w, const struct tl_diff *d)
{
    tl_json_doc_key(w, "graphs");
    tl_json_doc_object(w);
    tl_json_doc_ku64(w, "matched", d->graphs_matched);
    tl_json_doc_ku64(w, "same", d->graphs_same);
    tl_json_doc_ku64(w, "by_hash", d->graphs_by_hash);
    tl_json_doc_key(w, "changed");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < d->ngraphs; i++) {
        const struct tl_diff_gpair *g = &d->graphs[i];
        const struct tl_diff_frame *f = g->frame ? frame_of(g->frame) : NULL;
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "function", f ? f->function : NULL);
        j_loc(w, "location", f ? &f->loc : NULL);
        j_graph(w, "before", g->before);
        j_graph(w, "after", g->after);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_end(w, '}');
}

void tl_diff_json(struct tl_buf *out, const struct tl_diff *d)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY);
    tl_json_doc_object(&w);
    tl_json_doc_kstr(&w, "schema", "tlparse-diff/1");
    j_side(&w, "before", d->before);
    j_side(&w, "after", d->after);
    /* "changes" comes before the lists it counts: count them first */
    struct fchange *v;
    uint32_t changes = frame_changes(d, true, &v);
    free(v);
    changes += frame_changes(d, false, &v);
    free(v);
    for (int c = 0; c < TL_DIFF_NCATS; c++)
        changes += count_listed(d, (enum tl_diff_cat)c);
    changes += d->ngraphs;
    tl_json_doc_ku64(&w, "changes", changes);
    for (int c = 0; c < TL_DIFF_NCATS; c++)
        j_category(&w, d, (enum tl_diff_cat)c);
    j_frames(&w, d);
    j_compile_time(&w, d);
    tl_json_doc_key(&w, "cache");
    tl_json_doc_object(&w);
    j_cache(&w, "before", d->before);
    j_cache(&w, "after", d->after);
    if (d->cache_misses.nmisses) {
        /* why the after side missed, against the before side's entries */
        tl_json_doc_key(&w, "after_misses");
        tl_json_doc_array(&w);
        tl_cachemiss_across_json(&w, &d->cache_misses, false);
        tl_json_doc_end(&w, ']');
    }
    tl_json_doc_end(&w, '}');
    j_graphs(&w, d);
    tl_json_doc_end(&w, '}');
    tl_buf_addch(out, '\n');
}

/* ---- text --------------------------------------------------------------------------------- */

struct text {
    struct tl_buf *out;
    bool color;
    const char *arrow; /* "->" on a terminal, "→" on the page */
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

/* A finding's text on one line: its first line, at most TEXT_MAX_CHARS characters, "…" when
 * there is more. */
static void short_text(struct text *t, const char *s)
{
    size_t n = strcspn(s, "\r\n");
    bool cut = s[n + strspn(s + n, " \t\r\n")] != '\0';
    size_t i = 0;
    uint32_t chars = 0;
    for (; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) == 0x80)
            continue; /* a continuation byte: part of the character before */
        if (chars == TEXT_MAX_CHARS) {
            cut = true;
            break;
        }
        chars++;
    }
    tl_buf_add_printable(t->out, s, i);
    if (cut)
        tl_buf_adds(t->out, "…");
}

static const char *change_color(enum tl_diff_change c)
{
    return c == TL_DIFF_NEW ? "1;31" : c == TL_DIFF_CHANGED ? "1;33" : "1;32";
}

/* "1 new failure", "2 graph breaks changed", "1 recompile fixed" for each category, worst
 * first; or that nothing changed. Then (with_time) the compile time, when a side knows it. */
static void headline(struct text *t, const struct tl_diff *d, bool with_time)
{
    struct tl_buf *o = t->out;
    bool any = false;
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < TL_DIFF_NCATS; c++) {
            uint32_t n = count_changes(d, (enum tl_diff_cat)c, listed[k]);
            if (!n)
                continue;
            struct tl_buf part = TL_BUF_INIT;
            const char *what = n == 1 ? singular[c] : plural[c];
            if (listed[k] == TL_DIFF_NEW)
                tl_buf_addf(&part, "%u new %s", n, what);
            else
                tl_buf_addf(&part, "%u %s %s", n, what,
                            listed[k] == TL_DIFF_CHANGED ? "changed" : "fixed");
            if (any)
                tl_buf_adds(o, ", ");
            paint(t, change_color(listed[k]), part.buf);
            tl_buf_release(&part);
            any = true;
        }
    if (!any)
        tl_buf_adds(o, "no change in graph breaks, recompiles, specializations or failures");
    double a = side_seconds(d->before), b = side_seconds(d->after);
    if (with_time && (a >= 0 || b >= 0)) {
        tl_buf_adds(o, "; compile time ");
        add_seconds(o, a);
        tl_buf_addf(o, " %s ", t->arrow);
        add_seconds(o, b);
        if (a > 0 && b >= 0) {
            tl_buf_adds(o, " (");
            add_signed(o, 100 * (b - a) / a, 1, "%");
            tl_buf_addch(o, ')');
        }
    }
}

static void text_pair(struct text *t, const struct tl_diff_pair *p)
{
    struct tl_buf *o = t->out;
    const struct tl_diff_item *it = pair_item(p);
    struct tl_buf now = TL_BUF_INIT, was = TL_BUF_INIT;
    pair_where(p, &now, &was);
    tl_buf_adds(o, "  ");
    const char *label = change_label(p->change);
    paint(t, change_color(p->change), label);
    tl_buf_addf(o, "%*s", (int)(9 - strlen(label)), "");
    bool where = false;
    if (it->loc.function) {
        safe(t, it->loc.function);
        where = true;
    }
    if (now.len || was.len) {
        tl_buf_adds(o, where ? " at " : "at ");
        if (now.len)
            safe(t, now.buf);
        else
            tl_buf_addch(o, '?');
        if (was.len) {
            tl_buf_adds(o, " (was ");
            safe(t, was.buf);
            tl_buf_addch(o, ')');
        }
        where = true;
    }
    if (where)
        tl_buf_adds(o, ": ");
    if (it->detail) {
        short_text(t, it->detail);
        tl_buf_adds(o, ": ");
    }
    short_text(t, it->text ? it->text : "(no text)");
    tl_buf_addf(o, " (%llu -> %llu)\n", (unsigned long long)count_before(p),
                (unsigned long long)count_after(p));
    tl_buf_release(&now);
    tl_buf_release(&was);
}

/* "forward (torch_dynamo_resume_in_forward_at_20) at /m.py:20" */
static void text_frame(struct text *t, const struct tl_diff_frame *f)
{
    struct tl_buf *o = t->out;
    const char *fn = f->function ? f->function : f->name;
    if (fn)
        safe(t, fn);
    else
        tl_buf_adds(o, "(unknown frame)");
    if (f->function && f->name && strcmp(f->function, f->name)) {
        tl_buf_adds(o, " (");
        safe(t, f->name);
        tl_buf_addch(o, ')');
    }
    if (f->loc.file) {
        struct tl_buf l = TL_BUF_INIT;
        loc_string(&l, &f->loc);
        tl_buf_adds(o, " at ");
        safe(t, l.buf);
        tl_buf_release(&l);
    }
}

static void text_heading(struct text *t, const char *s)
{
    tl_buf_addch(t->out, '\n');
    paint(t, "1", s);
}

static void text_frames(struct text *t, const struct tl_diff *d)
{
    struct fchange *v[2];
    uint32_t n[2] = {frame_changes(d, true, &v[0]), frame_changes(d, false, &v[1])};
    if (n[0] || n[1]) {
        text_heading(t, "Frames compiled more or fewer times:");
        tl_buf_addch(t->out, '\n');
    }
    for (int s = 0; s < 2; s++)
        for (uint32_t i = 0; i < n[s]; i++) {
            tl_buf_adds(t->out, "  ");
            text_frame(t, frame_of(v[s][i].p));
            tl_buf_addf(t->out, ": %u -> %u compiles\n", v[s][i].before, v[s][i].after);
        }
    free(v[0]);
    free(v[1]);
}

/* A frame's compile time on a side: "not compiled" when the frame is not on it. */
static void text_frame_seconds(struct text *t, const struct tl_diff_frame *f)
{
    if (!f)
        tl_buf_adds(t->out, "not compiled");
    else
        add_seconds(t->out, tl_diff_frame_seconds(f));
}

/* The ledgers' lines that changed by 0.01 s or more, largest change first. */
static int ledger_changes(const struct tl_diff *d, struct ledger_line v[TL_LP_COUNT + 4])
{
    int n = ledger_lines(d, v), k = 0;
    for (int i = 0; i < n; i++)
        if (fabs(v[i].b - v[i].a) >= 0.005)
            v[k++] = v[i];
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && fabs(v[j].b - v[j].a) > fabs(v[j - 1].b - v[j - 1].a); j--) {
            struct ledger_line x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return k;
}

static void text_ledger(struct text *t, const struct tl_diff *d)
{
    struct ledger_line v[TL_LP_COUNT + 4];
    int n = ledger_changes(d, v);
    if (!n)
        return;
    text_heading(t, "Where the time went (largest changes):");
    tl_buf_addch(t->out, '\n');
    for (int i = 0; i < n; i++) {
        tl_buf_addf(t->out, "  %s: %.2f s -> %.2f s (", v[i].name, v[i].a, v[i].b);
        add_signed(t->out, v[i].b - v[i].a, 2, " s");
        tl_buf_adds(t->out, ")\n");
    }
}

static void text_times(struct text *t, const struct tl_diff *d)
{
    uint32_t shown = 0, more = 0;
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diff_fpair *p = &d->frames[i];
        if (!time_shown(p))
            continue;
        if (shown == TEXT_MAX_TIMES) {
            more++;
            continue;
        }
        if (!shown++) {
            text_heading(t, "Compile time per frame (largest changes):");
            tl_buf_addch(t->out, '\n');
        }
        double a = tl_diff_frame_seconds(p->before), b = tl_diff_frame_seconds(p->after);
        tl_buf_adds(t->out, "  ");
        text_frame(t, frame_of(p));
        tl_buf_adds(t->out, ": ");
        text_frame_seconds(t, p->before);
        tl_buf_adds(t->out, " -> ");
        text_frame_seconds(t, p->after);
        if (a >= 0 && b >= 0) {
            tl_buf_adds(t->out, " (");
            add_signed(t->out, b - a, 2, " s");
            tl_buf_addch(t->out, ')');
        }
        tl_buf_addch(t->out, '\n');
    }
    if (more)
        tl_buf_addf(t->out, "  ... %u more\n", more);
    text_ledger(t, d);
}

/* A cache count of a side, "?" when the side has none. */
static void text_cache_value(struct text *t, const struct tl_diff_side *s, int c, int k)
{
    if (s->has_cache)
        tl_buf_addf(t->out, "%llu", (unsigned long long)s->cache[c][k]);
    else
        tl_buf_addch(t->out, '?');
}

/* "Cache: fx_graph hit 0 -> 3, miss 3 -> 0; aotautograd ...": the counts that differ. */
static void text_cache(struct text *t, const struct tl_diff *d)
{
    if (!cache_differs(d))
        return;
    const struct tl_diff_side *a = d->before, *b = d->after;
    bool both = a->has_cache && b->has_cache;
    text_heading(t, "Cache:");
    bool first_cache = true;
    for (int c = 0; c < 2; c++) {
        bool first = true;
        for (int k = 0; k < 3; k++) {
            if (both && a->cache[c][k] == b->cache[c][k])
                continue;
            if (first) {
                tl_buf_addf(t->out, "%s%s", first_cache ? " " : "; ", cache_names[c]);
                first_cache = false;
            }
            tl_buf_addf(t->out, "%s%s ", first ? " " : ", ", cache_fields[k]);
            first = false;
            text_cache_value(t, a, c, k);
            tl_buf_adds(t->out, " -> ");
            text_cache_value(t, b, c, k);
        }
    }
    tl_buf_addch(t->out, '\n');
}

static void text_nodes(struct text *t, const struct tl_diff_graph *g)
{
    if (g && g->has_nodes)
        tl_buf_addf(t->out, "%llu", (unsigned long long)g->nodes);
    else
        tl_buf_addch(t->out, '?');
}

static bool code_changed(const struct tl_diff_gpair *g)
{
    return g->before && g->after && g->before->hash && g->after->hash &&
           strcmp(g->before->hash, g->after->hash) != 0;
}

static void text_graphs(struct text *t, const struct tl_diff *d)
{
    if (!d->ngraphs)
        return;
    struct tl_buf *o = t->out;
    text_heading(t, "Graphs:");
    tl_buf_addf(o, " %u matched (%u by hash), %u changed:\n", d->graphs_matched, d->graphs_by_hash,
                d->ngraphs);
    for (uint32_t i = 0; i < d->ngraphs; i++) {
        const struct tl_diff_gpair *g = &d->graphs[i];
        const struct tl_diff_frame *f = g->frame ? frame_of(g->frame) : NULL;
        tl_buf_adds(o, "  ");
        safe(t, f && f->function ? f->function : "(unknown frame)");
        tl_buf_addch(o, ' ');
        safe(t, g->before && g->before->cid ? g->before->cid : "?");
        tl_buf_adds(o, " -> ");
        safe(t, g->after && g->after->cid ? g->after->cid : "?");
        tl_buf_adds(o, ": ");
        text_nodes(t, g->before);
        tl_buf_adds(o, " -> ");
        text_nodes(t, g->after);
        tl_buf_adds(o, " nodes");
        if (code_changed(g))
            tl_buf_adds(o, ", code changed");
        tl_buf_addch(o, '\n');
    }
}

void tl_diff_text(struct tl_buf *out, const struct tl_diff *d, bool color)
{
    struct text t = {out, color, "->"};
    paint(&t, "1", "tlparse diff:");
    tl_buf_addch(out, ' ');
    safe(&t, d->before->path);
    tl_buf_adds(out, " (");
    safe(&t, d->before->kind);
    tl_buf_adds(out, ") -> ");
    safe(&t, d->after->path);
    tl_buf_adds(out, " (");
    safe(&t, d->after->kind);
    tl_buf_adds(out, ")\n");
    headline(&t, d, true);
    tl_buf_addch(out, '\n');
    for (int c = 0; c < TL_DIFF_NCATS; c++) {
        if (!count_listed(d, (enum tl_diff_cat)c))
            continue;
        char heading[32];
        snprintf(heading, sizeof(heading), "%s:", titles[c]);
        text_heading(&t, heading);
        tl_buf_addch(out, '\n');
        for (int k = 0; k < 3; k++)
            for (uint32_t i = 0; i < d->npairs[c]; i++)
                if (d->pairs[c][i].change == listed[k])
                    text_pair(&t, &d->pairs[c][i]);
    }
    text_frames(&t, d);
    text_times(&t, d);
    text_cache(&t, d);
    if (d->cache_misses.nmisses) {
        text_heading(&t, "Cache misses after, against the before side:");
        tl_buf_addch(out, '\n');
        tl_cachemiss_across_text(out, &d->cache_misses, false, color);
    }
    text_graphs(&t, d);
}

/* ---- HTML --------------------------------------------------------------------------------- */

struct page {
    struct tl_buf *out;
    const struct tl_diff *d;
    const char *link[2]; /* href of each side's report folder, ending in '/'; NULL: none */
};

static const struct tl_diff_side *side_of(const struct page *pg, int s)
{
    return s ? pg->d->after : pg->d->before;
}

static void h_text(struct tl_buf *out, const char *s)
{
    if (s)
        tl_html_text_cstr(out, s);
}

static void h_code(struct tl_buf *out, const char *s)
{
    tl_buf_adds(out, "<code>");
    h_text(out, s);
    tl_buf_adds(out, "</code>");
}

/* The page of a side's report where its compile ids have anchors: the log of a TORCH_LOGS
 * side, else the index. */
static const char *cid_page(const struct tl_diff_side *s)
{
    return s->source_kind && !strcmp(s->source_kind, "torch_logs") ? "log.html#" : "index.html#";
}

/* A compile id of a side, linked into the side's report when it has one. */
static void h_cid(const struct page *pg, int s, const char *cid)
{
    struct tl_buf *out = pg->out;
    if (!cid)
        return;
    if (!pg->link[s]) {
        h_code(out, cid);
        return;
    }
    tl_buf_adds(out, "<a class='cid' href=\"");
    tl_html_url(out, pg->link[s], strlen(pg->link[s]));
    tl_buf_adds(out, cid_page(side_of(pg, s)));
    tl_html_attr_cstr(out, cid);
    tl_buf_adds(out, "\">");
    tl_html_text_cstr(out, cid);
    tl_buf_adds(out, "</a>");
}

/* "Before: [0/0] [0/1] · after: [1/0]", the sides that have compile ids. */
static void h_cids(const struct page *pg, const char *const *cids[2], const uint32_t n[2])
{
    if (!n[0] && !n[1])
        return;
    struct tl_buf *out = pg->out;
    tl_buf_adds(out, "<p class='cids'>Compile ids ");
    bool first = true;
    for (int s = 0; s < 2; s++) {
        if (!n[s])
            continue;
        tl_buf_adds(out, first ? "" : " · ");
        tl_buf_adds(out, s ? "after:" : "before:");
        for (uint32_t i = 0; i < n[s]; i++) {
            tl_buf_addch(out, ' ');
            h_cid(pg, s, cids[s][i]);
        }
        first = false;
    }
    tl_buf_adds(out, "</p>\n");
}

static void h_side(const struct page *pg, int s)
{
    struct tl_buf *out = pg->out;
    const struct tl_diff_side *side = side_of(pg, s);
    tl_buf_adds(out, s ? "<div class='side after'>\n<h2>After</h2>\n"
                       : "<div class='side before'>\n<h2>Before</h2>\n");
    tl_buf_adds(out, "<p class='path'>");
    h_code(out, side->path);
    tl_buf_adds(out, "</p>\n<p>");
    h_text(out, side->kind);
    if (side->source_kind && (!side->kind || strcmp(side->kind, side->source_kind))) {
        tl_buf_adds(out, " of a ");
        h_text(out, side->source_kind);
    }
    tl_buf_addf(out, " · %llu compile id%s", (unsigned long long)side->compile_ids,
                side->compile_ids == 1 ? "" : "s");
    if (side->has_time) {
        tl_buf_adds(out, " · ");
        add_seconds(out, side->total_s);
        tl_buf_adds(out, " compiling");
    }
    tl_buf_adds(out, "</p>\n");
    if (pg->link[s]) {
        tl_buf_adds(out, "<p><a href=\"");
        tl_html_url(out, pg->link[s], strlen(pg->link[s]));
        tl_buf_adds(out, "index.html\">Its report</a></p>\n");
    }
    tl_buf_adds(out, "</div>\n");
}

/* The change at the top: the sentence of the text, the counts per category, and the compile
 * time. */
static void h_headline(const struct page *pg)
{
    struct tl_buf *out = pg->out;
    const struct tl_diff *d = pg->d;
    struct tl_buf line = TL_BUF_INIT;
    struct text t = {&line, false, "→"};
    headline(&t, d, false); /* the time follows, coloured */
    tl_buf_adds(out, "<section class='headline'>\n<p class='summary'>");
    tl_html_text(out, line.buf, line.len); /* our words and numbers only */
    tl_buf_adds(out, "</p>\n");
    tl_buf_release(&line);
    tl_buf_adds(out, "<div class='scroll'><table class='counts'>\n<thead><tr><th></th>"
                     "<th class='num'>New</th><th class='num'>Changed</th>"
                     "<th class='num'>Fixed</th><th class='num'>Same</th></tr></thead>\n"
                     "<tbody>\n");
    for (int c = 0; c < TL_DIFF_NCATS; c++) {
        /* a link only to a section that is there (one with entries) */
        if (count_listed(d, (enum tl_diff_cat)c))
            tl_buf_addf(out, "<tr><th><a href='#%s'>%s</a></th>",
                        tl_diff_cat_name((enum tl_diff_cat)c), titles[c]);
        else
            tl_buf_addf(out, "<tr><th>%s</th>", titles[c]);
        uint32_t v[4] = {count_changes(d, (enum tl_diff_cat)c, TL_DIFF_NEW),
                         count_changes(d, (enum tl_diff_cat)c, TL_DIFF_CHANGED),
                         count_changes(d, (enum tl_diff_cat)c, TL_DIFF_FIXED), d->nsame[c]};
        static const char *const cls[4] = {"worse", "worse", "better", "zero"};
        for (int k = 0; k < 4; k++)
            tl_buf_addf(out, "<td class='num %s'>%u</td>", v[k] ? cls[k] : "zero", v[k]);
        tl_buf_adds(out, "</tr>\n");
    }
    tl_buf_adds(out, "</tbody>\n</table></div>\n");
    double a = side_seconds(d->before), b = side_seconds(d->after);
    if (a >= 0 || b >= 0) {
        tl_buf_adds(out, "<p class='time'>Compile time: ");
        add_seconds(out, a);
        tl_buf_adds(out, " → ");
        add_seconds(out, b);
        if (a > 0 && b >= 0) {
            double pct = 100 * (b - a) / a;
            tl_buf_addf(out, " <span class='%s'>(",
                        pct >= 0.05    ? "worse"
                        : pct <= -0.05 ? "better"
                                       : "muted");
            add_signed(out, pct, 1, "%");
            tl_buf_adds(out, ")</span>");
        }
        tl_buf_adds(out, "</p>\n");
    }
    tl_buf_adds(out, "</section>\n");
}

static void h_badge(struct tl_buf *out, const char *cls, const char *label)
{
    tl_buf_addf(out, "<span class='badge %s'>%s</span>", cls, label);
}

static void h_pair(const struct page *pg, const struct tl_diff_pair *p)
{
    struct tl_buf *out = pg->out;
    const struct tl_diff_item *it = pair_item(p);
    const char *cls = change_key(p->change);
    struct tl_buf now = TL_BUF_INIT, was = TL_BUF_INIT;
    pair_where(p, &now, &was);
    tl_buf_addf(out, "<li class='entry %s'>", cls);
    h_badge(out, cls, change_label(p->change));
    if (it->detail) {
        tl_buf_adds(out, " <span class='detail'>");
        h_text(out, it->detail);
        tl_buf_adds(out, "</span>");
    }
    if (it->category) {
        tl_buf_adds(out, " <span class='muted'>");
        h_text(out, it->category);
        tl_buf_adds(out, "</span>");
    }
    tl_buf_adds(out, "\n<pre class='text'>");
    h_text(out, it->text);
    tl_buf_adds(out, "</pre>\n<p class='where'>");
    if (it->loc.function) {
        tl_buf_adds(out, "in ");
        h_code(out, it->loc.function);
    }
    if (now.len || was.len) {
        tl_buf_adds(out, it->loc.function ? " at " : "at ");
        h_code(out, now.len ? now.buf : "?");
        if (was.len) {
            tl_buf_adds(out, " (was ");
            h_code(out, was.buf);
            tl_buf_addch(out, ')');
        }
    }
    tl_buf_adds(out, it->loc.function || now.len || was.len ? " · " : "");
    tl_buf_addf(out, "seen %llu → %llu times</p>\n", (unsigned long long)count_before(p),
                (unsigned long long)count_after(p));
    const char *const *cids[2] = {p->before ? p->before->cids : NULL,
                                  p->after ? p->after->cids : NULL};
    const uint32_t n[2] = {p->before ? p->before->ncids : 0, p->after ? p->after->ncids : 0};
    h_cids(pg, cids, n);
    tl_buf_adds(out, "</li>\n");
    tl_buf_release(&now);
    tl_buf_release(&was);
}

static void h_category(const struct page *pg, enum tl_diff_cat c)
{
    const struct tl_diff *d = pg->d;
    if (!count_listed(d, c))
        return;
    struct tl_buf *out = pg->out;
    tl_buf_addf(out, "<section id='%s'>\n<h2>%s</h2>\n<ul class='entries'>\n", tl_diff_cat_name(c),
                titles[c]);
    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; i < d->npairs[c]; i++)
            if (d->pairs[c][i].change == listed[k])
                h_pair(pg, &d->pairs[c][i]);
    tl_buf_adds(out, "</ul>\n");
    if (d->nsame[c])
        tl_buf_addf(out, "<p class='muted'>%u more on both sides, as often.</p>\n", d->nsame[c]);
    tl_buf_adds(out, "</section>\n");
}

/* A frame: its function (and code name when another), where it is. */
static void h_frame(struct tl_buf *out, const struct tl_diff_frame *f)
{
    const char *fn = f->function ? f->function : f->name;
    h_code(out, fn ? fn : "(unknown frame)");
    if (f->function && f->name && strcmp(f->function, f->name)) {
        tl_buf_adds(out, " <span class='muted'>(");
        h_text(out, f->name);
        tl_buf_adds(out, ")</span>");
    }
    if (f->loc.file) {
        struct tl_buf l = TL_BUF_INIT;
        loc_string(&l, &f->loc);
        tl_buf_adds(out, " at ");
        h_code(out, l.buf);
        tl_buf_release(&l);
    }
}

static void h_frames(const struct page *pg)
{
    struct tl_buf *out = pg->out;
    struct fchange *v[2];
    uint32_t n[2] = {frame_changes(pg->d, true, &v[0]), frame_changes(pg->d, false, &v[1])};
    if (n[0] || n[1]) {
        tl_buf_adds(out, "<section id='frames'>\n<h2>Frames compiled more or fewer times</h2>\n"
                         "<ul class='entries'>\n");
        for (int s = 0; s < 2; s++)
            for (uint32_t i = 0; i < n[s]; i++) {
                const struct tl_diff_fpair *p = v[s][i].p;
                tl_buf_addf(out, "<li class='entry %s'>", s ? "fewer" : "more");
                h_badge(out, s ? "fewer" : "more", s ? "FEWER" : "MORE");
                tl_buf_addch(out, ' ');
                h_frame(out, frame_of(p));
                tl_buf_addf(out, ": %u → %u compiles\n", v[s][i].before, v[s][i].after);
                const struct tl_diff_frame *f = frame_of(p);
                if (f->callers && f->ncallers) {
                    tl_buf_adds(out, "<p class='muted'>called from ");
                    for (uint32_t k = 0; k < f->ncallers; k++) {
                        tl_buf_adds(out, k ? " → " : "");
                        h_code(out, f->callers[k]);
                    }
                    tl_buf_adds(out, "</p>\n");
                }
                const char *const *cids[2] = {p->before ? p->before->cids : NULL,
                                              p->after ? p->after->cids : NULL};
                const uint32_t nc[2] = {p->before ? p->before->ncids : 0,
                                        p->after ? p->after->ncids : 0};
                h_cids(pg, cids, nc);
                tl_buf_adds(out, "</li>\n");
            }
        tl_buf_adds(out, "</ul>\n</section>\n");
    }
    free(v[0]);
    free(v[1]);
}

static void h_frame_seconds(struct tl_buf *out, const struct tl_diff_frame *f)
{
    if (!f)
        tl_buf_adds(out, "<span class='muted'>not compiled</span>");
    else
        add_seconds(out, tl_diff_frame_seconds(f));
}

static void h_ledger(const struct page *pg)
{
    struct tl_buf *out = pg->out;
    struct ledger_line v[TL_LP_COUNT + 4];
    int n = ledger_changes(pg->d, v);
    if (!n)
        return;
    tl_buf_adds(out, "<section id='compile_ledger'>\n<h2>Where the time went</h2>\n<table>\n"
                     "<tr><th>What</th><th>Before</th><th>After</th><th>Change</th></tr>\n");
    for (int i = 0; i < n; i++) {
        tl_buf_adds(out, "<tr><td>");
        h_text(out, v[i].name);
        tl_buf_addf(out, "</td><td>%.2f s</td><td>%.2f s</td><td class='%s'>", v[i].a, v[i].b,
                    v[i].b > v[i].a ? "worse" : "better");
        add_signed(out, v[i].b - v[i].a, 2, " s");
        tl_buf_adds(out, "</td></tr>\n");
    }
    tl_buf_adds(out, "</table>\n</section>\n");
}

static void h_times(const struct page *pg)
{
    struct tl_buf *out = pg->out;
    const struct tl_diff *d = pg->d;
    uint32_t shown = 0, more = 0;
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diff_fpair *p = &d->frames[i];
        if (!time_shown(p))
            continue;
        if (shown == PAGE_MAX_TIMES) {
            more++;
            continue;
        }
        if (!shown++)
            tl_buf_adds(out, "<section id='compile_time'>\n<h2>Compile time per frame</h2>\n"
                             "<ul class='times'>\n");
        double a = tl_diff_frame_seconds(p->before), b = tl_diff_frame_seconds(p->after);
        tl_buf_adds(out, "<li>");
        h_frame(out, frame_of(p));
        tl_buf_adds(out, ": ");
        h_frame_seconds(out, p->before);
        tl_buf_adds(out, " → ");
        h_frame_seconds(out, p->after);
        if (a >= 0 && b >= 0) {
            tl_buf_addf(out, " <span class='%s'>(", b > a ? "worse" : "better");
            add_signed(out, b - a, 2, " s");
            tl_buf_adds(out, ")</span>");
        }
        tl_buf_adds(out, "</li>\n");
    }
    if (shown) {
        if (more)
            tl_buf_addf(out,
                        "<li class='muted'>%u more frame%s with a change in compile time</li>\n",
                        more, more == 1 ? "" : "s");
        tl_buf_adds(out, "</ul>\n</section>\n");
    }
    h_ledger(pg);
}

static void h_cache_value(struct tl_buf *out, const struct tl_diff_side *s, int c, int k)
{
    if (s->has_cache)
        tl_buf_addf(out, "%llu", (unsigned long long)s->cache[c][k]);
    else
        tl_buf_adds(out, "?");
}

static void h_cache(const struct page *pg)
{
    const struct tl_diff *d = pg->d;
    if (!cache_differs(d))
        return;
    struct tl_buf *out = pg->out;
    tl_buf_adds(out, "<section id='cache'>\n<h2>Caches</h2>\n<div class='scroll'><table "
                     "class='cache'>\n<thead><tr><th>Cache</th><th class='num'>Before</th>"
                     "<th class='num'>After</th></tr></thead>\n<tbody>\n");
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 3; k++) {
            bool same = d->before->has_cache && d->after->has_cache &&
                        d->before->cache[c][k] == d->after->cache[c][k];
            tl_buf_addf(out, "<tr%s><td>%s %s</td><td class='num'>", same ? " class='muted'" : "",
                        cache_names[c], cache_fields[k]);
            h_cache_value(out, d->before, c, k);
            tl_buf_adds(out, "</td><td class='num'>");
            h_cache_value(out, d->after, c, k);
            tl_buf_adds(out, "</td></tr>\n");
        }
    tl_buf_adds(out, "</tbody>\n</table></div>\n</section>\n");
}

static void h_nodes(struct tl_buf *out, const struct tl_diff_graph *g)
{
    if (g && g->has_nodes)
        tl_buf_addf(out, "%llu", (unsigned long long)g->nodes);
    else
        tl_buf_addch(out, '?');
}

static void h_graphs(const struct page *pg)
{
    const struct tl_diff *d = pg->d;
    if (!d->ngraphs)
        return;
    struct tl_buf *out = pg->out;
    tl_buf_addf(out,
                "<section id='graphs'>\n<h2>Graphs</h2>\n<p>%u matched (%u by hash), %u "
                "changed:</p>\n<ul class='entries'>\n",
                d->graphs_matched, d->graphs_by_hash, d->ngraphs);
    for (uint32_t i = 0; i < d->ngraphs; i++) {
        const struct tl_diff_gpair *g = &d->graphs[i];
        const struct tl_diff_frame *f = g->frame ? frame_of(g->frame) : NULL;
        tl_buf_adds(out, "<li class='entry changed'>");
        if (f)
            h_frame(out, f);
        else
            h_code(out, "(unknown frame)");
        tl_buf_adds(out, ": ");
        if (g->before)
            h_cid(pg, 0, g->before->cid);
        tl_buf_adds(out, " → ");
        if (g->after)
            h_cid(pg, 1, g->after->cid);
        tl_buf_adds(out, ": ");
        h_nodes(out, g->before);
        tl_buf_adds(out, " → ");
        h_nodes(out, g->after);
        tl_buf_adds(out, " nodes");
        if (code_changed(g))
            tl_buf_adds(out, ", code changed");
        tl_buf_adds(out, "</li>\n");
    }
    tl_buf_adds(out, "</ul>\n</section>\n");
}

void tl_diff_page(struct tl_buf *out, const struct tl_diff *d, const struct tl_diff_links *links,
                  const struct tl_runinfo *info)
{
    struct page pg = {out, d, {links ? links->before : NULL, links ? links->after : NULL}};
    tl_page_head(out, "tlparse diff");
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_diff_css);
    tl_buf_adds(out, "</style>\n</head>\n<body>\n<div class='tldiff'>\n<h1>tlparse diff</h1>\n"
                     "<div class='sides'>\n");
    h_side(&pg, 0);
    h_side(&pg, 1);
    tl_buf_adds(out, "</div>\n");
    h_headline(&pg);
    if (!findings_differ(d))
        tl_buf_adds(out, "<p class='nodiff'>No differences in failures, recompiles, graph breaks "
                         "or specializations.</p>\n");
    for (int c = 0; c < TL_DIFF_NCATS; c++)
        h_category(&pg, (enum tl_diff_cat)c);
    h_frames(&pg);
    h_times(&pg);
    h_cache(&pg);
    if (d->cache_misses.nmisses) {
        tl_buf_adds(out, "<section id='cache-misses'>\n<h2>Cache misses after, against the before "
                         "side</h2>\n");
        tl_cachemiss_across_html(out, &d->cache_misses, false);
        tl_buf_adds(out, "</section>\n");
    }
    h_graphs(&pg);
    tl_buf_adds(out, "</div>\n");
    tl_page_footer(out, info);
    tl_buf_adds(out, "</body>\n</html>\n");
}
