/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live view's entries (live_text.h). Each is built in three parts, the head (who, what
 * happened, where, the compile id), what PyTorch said, and the fix, then written as one line
 * (a CI log read later says all of it) or wrapped to a terminal's width.
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

/* The three parts of an entry. */
struct entry {
    struct tl_buf head, what, fix;
};

static void entry_init(struct entry *e)
{
    tl_buf_init(&e->head, 0);
    tl_buf_init(&e->what, 0);
    tl_buf_init(&e->fix, 0);
}

/* " · " between two parts of the same line. */
static void sep(struct tl_buf *b)
{
    if (b->len)
        tl_buf_adds(b, " \xc2\xb7 ");
}

/* The entry into out, as who wants it; the entry is released. */
static void emit(struct tl_buf *out, const struct tl_live_who *who, struct entry *e)
{
    if (!who->width) {
        tl_buf_addbuf(out, &e->head);
        if (e->what.len) {
            sep(out);
            tl_buf_addbuf(out, &e->what);
        }
        if (e->fix.len) {
            sep(out);
            tl_term_paint(out, who->color, "32", "fix:");
            tl_buf_addch(out, ' ');
            tl_buf_addbuf(out, &e->fix);
        }
        tl_buf_addch(out, '\n');
    } else {
        struct tl_buf line = TL_BUF_INIT;
        tl_live_wrap(out, e->head.buf, e->head.len, who->width, 4);
        if (e->what.len) {
            tl_buf_adds(&line, "    ");
            tl_buf_addbuf(&line, &e->what);
            tl_live_wrap(out, line.buf, line.len, who->width, 4);
        }
        if (e->fix.len) {
            tl_buf_reset(&line);
            tl_buf_adds(&line, "    ");
            tl_term_paint(&line, who->color, "32", "fix:");
            tl_buf_addch(&line, ' ');
            tl_buf_addbuf(&line, &e->fix);
            tl_live_wrap(out, line.buf, line.len, who->width, 9);
        }
        tl_buf_release(&line);
    }
    tl_buf_release(&e->head);
    tl_buf_release(&e->what);
    tl_buf_release(&e->fix);
}

/* "who kind: " at the start of a head. */
static void start(struct entry *e, const struct tl_live_who *who, const char *code,
                  const char *kind)
{
    if (who->label) {
        struct tl_buf l = TL_BUF_INIT;
        text(&l, who->label);
        tl_term_paint(&e->head, who->color, "1", l.buf);
        tl_buf_addch(&e->head, ' ');
        tl_buf_release(&l);
    }
    tl_term_paint(&e->head, who->color, code, kind);
    tl_buf_addch(&e->head, ':');
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
        tl_buf_addch(out, ' ');
        text(out, cid);
    }
}

/* The fix of an advice, its placeholders filled from v. */
static void fix(struct entry *e, const struct tl_advice *a, const struct tl_advice_vars *v)
{
    if (!a || !a->fix)
        return;
    struct tl_buf f = TL_BUF_INIT;
    tl_advice_format(&f, a->fix, v);
    text(&e->fix, f.buf);
    tl_buf_release(&f);
}

/* s, at most max bytes of it (cut before a UTF-8 character), then an ellipsis. */
static void add_cut(struct tl_buf *out, const char *s, size_t n, size_t max)
{
    if (n <= max) {
        tl_buf_add(out, s, n);
        return;
    }
    while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
        max--;
    tl_buf_add(out, s, max);
    tl_buf_adds(out, "\xe2\x80\xa6");
}

static uint64_t limit_of(const struct tl_diag *d, const char **name)
{
    *name = d->recompile_limit_name ? d->recompile_limit_name : "recompile_limit";
    return d->recompile_limit ? d->recompile_limit : TL_LIVE_DEFAULT_LIMIT;
}

/* "compiled N times" in the head; "K away from the limit" in what. */
static void compiled(struct entry *e, const struct tl_diag *d, uint64_t compiles)
{
    tl_buf_addf(&e->head, " compiled %llu times", (unsigned long long)compiles);
    const char *name;
    uint64_t limit = limit_of(d, &name);
    sep(&e->what);
    if (compiles < limit)
        tl_buf_addf(&e->what, "%llu away from the %s (%llu)",
                    (unsigned long long)(limit - compiles), name, (unsigned long long)limit);
    else
        tl_buf_addf(&e->what, "at the %s (%llu)", name, (unsigned long long)limit);
}

/* The guard that failed, with its value this time when it was kept. */
static void guard(struct entry *e, const char *g, const char *value, const char *example)
{
    if (g && value) {
        text(&e->what, g);
        tl_buf_adds(&e->what, " (");
        text(&e->what, value);
        tl_buf_adds(&e->what, ")");
    } else if (example || g) {
        text(&e->what, example ? example : g);
    }
}

void tl_live_recompile(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                       const struct tl_diag_recompile *r, const struct tl_diag_guard *g,
                       const char *cid)
{
    struct entry e;
    entry_init(&e);
    start(&e, who, "1;33", "recompile");
    where(&e.head, r->function, &r->where);
    cid_of(&e.head, cid);
    if (g)
        guard(&e, g->guard, g->last_value, g->example);
    compiled(&e, d, (uint64_t)r->count + 1);
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    if (g)
        tl_advice_guard_vars(tl_str_cstr(g->example ? g->example : g->guard), &v);
    fix(&e, g ? g->advice : r->advice, &v);
    emit(out, who, &e);
}

void tl_live_recompile_early(struct tl_buf *out, const struct tl_live_who *who,
                             const struct tl_diag *d, const struct tl_diag_early *x)
{
    struct entry e;
    entry_init(&e);
    start(&e, who, "1;33", "recompile");
    where(&e.head, x->function, &x->where);
    cid_of(&e.head, x->cid);
    guard(&e, x->guard, x->value, x->example);
    compiled(&e, d, x->compiles);
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    if (x->guard)
        tl_advice_guard_vars(tl_str_cstr(x->example ? x->example : x->guard), &v);
    fix(&e, x->advice, &v);
    emit(out, who, &e);
}

/* Lines of PyTorch's preamble to a graph break's reason: they say nothing of what broke. */
static bool preamble(struct tl_str l)
{
    static const char *const starts[] = {"Graph break in user code at ",
                                         "Encountered graph break when attempting to trace",
                                         "Graph break: skip: from user code at "};
    if (!l.n)
        return true;
    for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
        if (tl_str_has_prefix(l, starts[i]))
            return true;
    return false;
}

void tl_live_reason(struct tl_buf *out, const char *reason, size_t max)
{
    if (!reason)
        return;
    struct tl_str rest = tl_str_cstr(reason), line = TL_STR_NULL;
    while (rest.n) {
        const char *nl = memchr(rest.p, '\n', rest.n);
        struct tl_str l = tl_str_make(rest.p, nl ? (size_t)(nl - rest.p) : rest.n);
        rest = nl ? tl_str_make(nl + 1, rest.n - l.n - 1) : tl_str_make(rest.p + rest.n, 0);
        while (l.n && (l.p[0] == ' ' || l.p[0] == '\t'))
            l = tl_str_make(l.p + 1, l.n - 1);
        while (l.n && (l.p[l.n - 1] == ' ' || l.p[l.n - 1] == '\r'))
            l.n--;
        static const char *const labels[] = {"Graph Break Reason: ", "Reason: "};
        for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
            if (tl_str_has_prefix(l, labels[i]))
                l = tl_str_make(l.p + strlen(labels[i]), l.n - strlen(labels[i]));
        if (!preamble(l)) {
            line = l;
            break;
        }
    }
    struct tl_buf clean = TL_BUF_INIT;
    if (line.p) /* one line: made printable is all it needs */
        tl_buf_add_printable(&clean, line.p, line.n);
    else /* all preamble: said as it is, on one line */
        text(&clean, reason);
    add_cut(out, clean.buf, clean.len, max);
    tl_buf_release(&clean);
}

static void finding_break(struct entry *e, const struct tl_live_who *who,
                          const struct tl_diag_break *b)
{
    start(e, who, "1;35", "graph break");
    if (b->nlocs)
        where(&e->head, b->locs[0].function, &b->locs[0]);
    if (b->cids.kept)
        cid_of(&e->head, b->cids.s[0]);
    tl_live_reason(&e->what, b->reason, 240);
    struct tl_buf inside = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_break_vars(&v, b, &inside);
    fix(e, b->advice, &v);
    tl_buf_release(&inside);
}

static void finding_spec(struct entry *e, const struct tl_live_who *who,
                         const struct tl_diag_spec *x)
{
    static const char *const kinds[] = {"specialized", "guard on sizes", "duck sizing"};
    start(e, who, "1;36", kinds[x->kind]);
    tl_buf_addch(&e->head, ' ');
    text(&e->head, x->readable ? x->readable : x->expr ? x->expr : x->symbol);
    if (x->source && x->kind == TL_SPEC_SPECIALIZED) {
        tl_buf_adds(&e->head, " (");
        text(&e->head, x->source);
        tl_buf_adds(&e->head, ")");
    }
    if (x->value) {
        tl_buf_adds(&e->head, " = ");
        text(&e->head, x->value);
    }
    where(&e->head, x->where.function, &x->where);
    cid_of(&e->head, x->cid);
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    v.expr = tl_str_cstr(x->expr ? x->expr : "");
    v.value = x->value ? tl_str_cstr(x->value) : TL_STR_NULL;
    fix(e, x->advice, &v);
}

static void finding_failure(struct entry *e, const struct tl_live_who *who,
                            const struct tl_diag_failure *f)
{
    start(e, who, "1;31", f->fell_back_to_eager ? "failure (fell back to eager)" : "failure");
    tl_buf_addch(&e->head, ' ');
    text(&e->head, f->type);
    where(&e->head, f->where.function, &f->where);
    cid_of(&e->head, f->cid);
    if (f->reason) {
        struct tl_buf r = TL_BUF_INIT;
        text(&r, f->reason);
        add_cut(&e->what, r.buf, r.len, 300);
        tl_buf_release(&r);
    }
    struct tl_advice_vars v;
    tl_summary_failure_vars(&v, f);
    fix(e, f->advice, &v);
}

static void finding_limit(struct entry *e, const struct tl_live_who *who,
                          const struct tl_diag_limit *l)
{
    start(e, who, "1;31", "recompile limit hit");
    tl_buf_addf(&e->head, " %s (%llu):", l->limit_name ? l->limit_name : "recompile_limit",
                (unsigned long long)l->limit);
    where(&e->head, l->function, &l->where);
    cid_of(&e->head, l->cid);
    if (l->last_reason) {
        tl_buf_adds(&e->what, "last: ");
        text(&e->what, l->last_reason);
    }
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    char lim[24];
    snprintf(lim, sizeof(lim), "%llu", (unsigned long long)l->limit);
    v.limit = tl_str_cstr(lim);
    v.limit_name = tl_str_cstr(l->limit_name ? l->limit_name : "recompile_limit");
    fix(e, l->advice, &v);
}

static void finding_export(struct entry *e, const struct tl_live_who *who,
                           const struct tl_diag_export *x)
{
    start(e, who, "1;31", tl_summary_export_label(x->kind));
    tl_buf_addch(&e->head, ' ');
    text(&e->head, x->readable ? x->readable : x->expr ? x->expr : x->op);
    where(&e->head, x->where.function, &x->where);
    struct tl_buf qualname = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_export_vars(&v, x, &qualname);
    fix(e, x->advice, &v);
    tl_buf_release(&qualname);
}

static void finding_restart(struct entry *e, const struct tl_live_who *who,
                            const struct tl_diag_restart *r)
{
    start(e, who, "1;34", "restart");
    tl_buf_addch(&e->head, ' ');
    text(&e->head, r->kind);
    where(&e->head, r->function, &r->where);
    if (r->cids.kept)
        cid_of(&e->head, r->cids.s[0]);
    struct tl_buf what = TL_BUF_INIT;
    struct tl_advice_vars v;
    tl_summary_restart_vars(&v, r, &what);
    fix(e, r->advice, &v);
    tl_buf_release(&what);
}

void tl_live_finding(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                     enum tl_diag_finding_kind kind, uint32_t index)
{
    struct entry e;
    entry_init(&e);
    switch (kind) {
    case TL_FIND_BREAK:
        finding_break(&e, who, &d->breaks[index]);
        break;
    case TL_FIND_SPEC:
        finding_spec(&e, who, &d->specs[index]);
        break;
    case TL_FIND_FAILURE:
        finding_failure(&e, who, &d->failures[index]);
        break;
    case TL_FIND_LIMIT:
        finding_limit(&e, who, &d->limits[index]);
        break;
    case TL_FIND_EXPORT:
        finding_export(&e, who, &d->exports[index]);
        break;
    case TL_FIND_RESTART:
        finding_restart(&e, who, &d->restarts[index]);
        break;
    case TL_FIND_RECOMPILE:
    case TL_FIND_FRAME:
        /* recompiles are events (tl_live_recompile); frames are counts */
        tl_buf_release(&e.head);
        tl_buf_release(&e.what);
        tl_buf_release(&e.fix);
        return;
    }
    emit(out, who, &e);
}

void tl_live_header(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                    uint32_t routine)
{
    uint64_t breaks = 0, recompiles = 0;
    for (uint32_t i = 0; i < d->nbreaks; i++)
        breaks += d->breaks[i].count;
    for (uint32_t i = 0; i < d->nrecompiles; i++)
        recompiles += d->recompiles[i].count;
    for (uint32_t i = 0; i < d->nearly; i++) /* said by its recompile_reasons, still compiling */
        recompiles += !d->early[i].counted;
    if (who->label) {
        struct tl_buf l = TL_BUF_INIT;
        text(&l, who->label);
        tl_term_paint(out, who->color, "1", l.buf);
        tl_buf_addch(out, ' ');
        tl_buf_release(&l);
    }
    tl_buf_addf(out, "%llu compile id%s \xc2\xb7 %llu graph break%s \xc2\xb7 %llu recompile%s",
                (unsigned long long)d->compile_ids, d->compile_ids == 1 ? "" : "s",
                (unsigned long long)breaks, breaks == 1 ? "" : "s", (unsigned long long)recompiles,
                recompiles == 1 ? "" : "s");
    tl_buf_addf(out, " \xc2\xb7 %u failure%s", d->nfailures, d->nfailures == 1 ? "" : "s");
    if (routine)
        tl_buf_addf(out, " \xc2\xb7 %u routine guard%s", routine, routine == 1 ? "" : "s");
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

/* ---- wrapping -------------------------------------------------------------------------------- */

/* The length of the SGR sequence at s (ESC [ digits/; m), 0 when none starts there. */
static size_t sgr_len(const char *s, size_t n)
{
    if (n < 3 || s[0] != '\033' || s[1] != '[')
        return 0;
    size_t i = 2;
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';'))
        i++;
    return i < n && s[i] == 'm' ? i + 1 : 0;
}

/* The columns of s[0..n): code points, SGR sequences left out. */
static unsigned columns(const char *s, size_t n)
{
    unsigned c = 0;
    for (size_t i = 0; i < n;) {
        size_t k = sgr_len(s + i, n - i);
        if (k) {
            i += k;
            continue;
        }
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            c++;
        i++;
    }
    return c;
}

/* A line break, then indent spaces. */
static void newline(struct tl_buf *out, unsigned indent, unsigned *col)
{
    tl_buf_addch(out, '\n');
    for (unsigned k = 0; k < indent; k++)
        tl_buf_addch(out, ' ');
    *col = indent;
}

void tl_live_wrap(struct tl_buf *out, const char *s, size_t n, unsigned width, unsigned indent)
{
    if (width <= indent + 8) /* too narrow to wrap usefully: one line */
        width = 0;
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        n--;
    unsigned col = 0;
    size_t i = 0;
    for (; i < n && s[i] == ' '; i++, col++) /* the text's own indent is kept */
        tl_buf_addch(out, ' ');
    bool any = false; /* a word is on this line */
    while (i < n) {
        if (s[i] == ' ') { /* between words: one space is written before the next */
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && s[j] != ' ')
            j++;
        if (any) {
            if (width && col + 1 + columns(s + i, j - i) > width) {
                newline(out, indent, &col);
            } else {
                tl_buf_addch(out, ' ');
                col++;
            }
        }
        /* a word longer than what is left of a line is cut where the line ends */
        size_t p = i;
        while (width && col + columns(s + p, j - p) > width) {
            size_t q = p;
            for (unsigned c = col; q < j;) {
                size_t k = sgr_len(s + q, j - q);
                if (k) {
                    q += k;
                    continue;
                }
                if (((unsigned char)s[q] & 0xc0) != 0x80 && c++ == width)
                    break;
                q++;
            }
            tl_buf_add(out, s + p, q - p);
            newline(out, indent, &col);
            p = q;
        }
        tl_buf_add(out, s + p, j - p);
        col += columns(s + p, j - p);
        any = true;
        i = j;
    }
    tl_buf_addch(out, '\n');
}
