/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --watch's view (watch_view.h): the lines it says (notices, and what each log's diagnosis gained
 * since the last look, once, in the order it was seen), the counts, the clocks.
 */
#include "base/config.h"
#include "modes/watch_view.h"
#include "base/xalloc.h"
#include "report/live_text.h"
#include "base/sort.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t tl_watch_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t tl_watch_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A line's log: named when the job has several, or it is a rank's. */
static const char *label_of(const struct tl_watch_run *wt, const struct tl_watch_log *l)
{
    return wt->nlogs > 1 || l->rank >= 0 ? l->label : NULL;
}

struct tl_live_who tl_watch_who_of(const struct tl_watch_run *wt, const struct tl_watch_log *l)
{
    return (struct tl_live_who){label_of(wt, l), wt->w->color, wt->width};
}

/* ---- the view ------------------------------------------------------------------------------- */

void tl_watch_show_lines(struct tl_watch_run *wt, const char *p, size_t n)
{
    if (wt->w->view.lines && n)
        wt->w->view.lines(wt->w->view.ctx, p, n);
}

/* "tlparse: A B" as a line of ours (log text made printable). */
void tl_watch_notice(struct tl_watch_run *wt, const char *a, const char *b)
{
    struct tl_buf line = TL_BUF_INIT;
    tl_buf_adds(&line, "tlparse: ");
    tl_buf_add_printable(&line, a, strlen(a));
    if (b)
        tl_buf_add_printable(&line, b, strlen(b));
    tl_buf_addch(&line, '\n');
    tl_watch_show_lines(wt, line.buf, line.len);
    tl_buf_release(&line);
}

/* ---- what the diagnosis gained -------------------------------------------------------------- */

void tl_watch_said_release(struct tl_watch_log *l)
{
    for (uint32_t i = 0; i < l->nrec; i++)
        free(l->rec[i].guards);
    free(l->rec);
    l->rec = NULL;
    l->nrec = 0;
    l->nbreaks = l->nspecs = l->nfailures = l->nlimits = l->nexports = l->nrestarts = 0;
    l->nearly = l->routine = 0;
}

/* A new finding, a recompile said early, or a recompile seen again: where in the diagnosis,
 * and when. */
struct fresh {
    enum tl_diag_finding_kind kind;
    bool early; /* an entry of d->early */
    uint32_t index;
    uint64_t seq;
};

static int cmp_fresh(const void *a, const void *b)
{
    uint64_t x = ((const struct fresh *)a)->seq, y = ((const struct fresh *)b)->seq;
    return x < y ? -1 : x > y;
}

struct fresh_list {
    struct fresh *v;
    size_t n, alloc;
};

static void add_fresh(struct fresh_list *f, enum tl_diag_finding_kind kind, bool early,
                      uint32_t index, uint64_t seq)
{
    TL_GROW(f->v, f->n + 1, f->alloc);
    f->v[f->n++] = (struct fresh){kind, early, index, seq};
}

/* The findings of a kind not said yet (their count now; *said: how many were said). */
#define FRESH_OF(list, kind, arr, now, said)                                                       \
    for (uint32_t i_ = (said); i_ < (now); i_++)                                                   \
        add_fresh(list, kind, false, i_, (arr)[i_].seq);                                           \
    (said) = (now)

/* Which guard of a recompile failed this time (its count grew), and the counts remembered. */
static const struct tl_diag_guard *guard_now(struct tl_watch_said *s,
                                             const struct tl_diag_recompile *r)
{
    const struct tl_diag_guard *g = NULL;
    if (r->nguards > s->nguards) {
        s->guards = tl_xrealloc(s->guards, r->nguards * sizeof(*s->guards));
        memset(s->guards + s->nguards, 0, (r->nguards - s->nguards) * sizeof(*s->guards));
        s->nguards = r->nguards;
    }
    for (uint32_t k = 0; k < r->nguards; k++) {
        if (r->guards[k].count != s->guards[k] && !g)
            g = &r->guards[k];
        s->guards[k] = r->guards[k].count;
    }
    return g;
}

/* The newest compile id of r that its recompile_reasons did not say already, when r keeps
 * them all (NULL: not known). */
static const char *newest_unsaid(const struct tl_diag *d, const struct tl_diag_recompile *r)
{
    if (!r->cids.kept || r->cids.kept != r->cids.n)
        return NULL;
    for (uint32_t i = r->cids.kept; i-- > 0;) {
        bool early = false;
        for (uint32_t k = 0; k < d->nearly && !early; k++)
            early = d->early[k].cid == r->cids.s[i]; /* interned: one pointer per text */
        if (!early)
            return r->cids.s[i];
    }
    return NULL;
}

static void say(struct tl_watch_run *wt, struct tl_watch_log *l, const struct tl_diag *d,
                const struct fresh *f, struct tl_buf *line)
{
    struct tl_live_who who = tl_watch_who_of(wt, l);
    tl_buf_reset(line);
    if (f->early) {
        tl_live_recompile_early(line, &who, d, &d->early[f->index]);
    } else if (f->kind != TL_FIND_RECOMPILE) {
        tl_live_finding(line, &who, d, f->kind, f->index);
    } else {
        const struct tl_diag_recompile *r = &d->recompiles[f->index];
        struct tl_watch_said *s = &l->rec[f->index];
        const struct tl_diag_guard *g = guard_now(s, r);
        s->count = r->count;
        s->early = r->early;
        tl_live_recompile(line, &who, d, r, g, newest_unsaid(d, r));
    }
    tl_watch_show_lines(wt, line->buf, line->len);
}

/* What the log's diagnosis gained since the last tl_watch_look, said in the order it was seen. */
void tl_watch_look(struct tl_watch_run *wt, struct tl_watch_log *l)
{
    l->fresh = false;
    if (!l->eng)
        return;
    const struct tl_diag *d = &tl_engine_model(l->eng)->diag;
    struct fresh_list f = {NULL, 0, 0};
    FRESH_OF(&f, TL_FIND_FAILURE, d->failures, d->nfailures, l->nfailures);
    FRESH_OF(&f, TL_FIND_LIMIT, d->limits, d->nlimits, l->nlimits);
    FRESH_OF(&f, TL_FIND_EXPORT, d->exports, d->nexports, l->nexports);
    FRESH_OF(&f, TL_FIND_BREAK, d->breaks, d->nbreaks, l->nbreaks);
    FRESH_OF(&f, TL_FIND_RESTART, d->restarts, d->nrestarts, l->nrestarts);
    for (; l->nspecs < d->nspecs; l->nspecs++) {
        if (tl_diag_spec_routine(&d->specs[l->nspecs]))
            l->routine++; /* what torch.compile always does: counted in the panel */
        else
            add_fresh(&f, TL_FIND_SPEC, false, l->nspecs, d->specs[l->nspecs].seq);
    }
    for (; l->nearly < d->nearly; l->nearly++)
        add_fresh(&f, TL_FIND_RECOMPILE, true, l->nearly, d->early[l->nearly].seq);
    if (d->nrecompiles > l->nrec) {
        l->rec = tl_xrealloc(l->rec, d->nrecompiles * sizeof(*l->rec));
        memset(l->rec + l->nrec, 0, (d->nrecompiles - l->nrec) * sizeof(*l->rec));
        l->nrec = d->nrecompiles;
    }
    for (uint32_t i = 0; i < d->nrecompiles; i++) {
        const struct tl_diag_recompile *r = &d->recompiles[i];
        struct tl_watch_said *s = &l->rec[i];
        if (r->count == s->count)
            continue;
        if (r->count - s->count > r->early - s->early) {
            add_fresh(&f, TL_FIND_RECOMPILE, false, i, r->seq);
        } else { /* every one of them was said by its recompile_reasons */
            guard_now(s, r);
            s->count = r->count;
            s->early = r->early;
        }
    }
    if (f.n)
        tl_sort(f.v, f.n, sizeof(*f.v), cmp_fresh);
    struct tl_buf line = TL_BUF_INIT;
    for (size_t i = 0; i < f.n; i++)
        say(wt, l, d, &f.v[i], &line);
    tl_buf_release(&line);
    free(f.v);
}

/* The counts of every log so far, for --fail-on, the panel and live.js: a recompile said by
 * its recompile_reasons counts from then. */
void tl_watch_count_all(struct tl_watch_run *wt)
{
    memset(&wt->counts, 0, sizeof(wt->counts));
    wt->counts.compile_time_s = -1;
    for (size_t i = 0; i < wt->nlogs; i++) {
        if (!wt->logs[i]->eng || wt->logs[i]->failed)
            continue;
        const struct tl_diag *d = &tl_engine_model(wt->logs[i]->eng)->diag;
        struct tl_counts c;
        tl_counts_of(&c, d);
        for (uint32_t k = 0; k < d->nearly; k++)
            c.recompiles += !d->early[k].counted;
        tl_counts_add(&wt->counts, &c);
    }
}
