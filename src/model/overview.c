/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run at a glance (overview.h): per compile id, its metrics' status and time, fed by
 * model.c; summed up at the end for the overview of index.html.
 */
#include "base/config.h"
#include "model/overview.h"
#include "base/xalloc.h"
#include "model/model.h"
#include "base/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(TL_CACHE_KINDS == 3 && TL_CACHE_RESULTS == 3, "tl_overview_summary.cache");

const struct tl_overview_cid *tl_overview_get(const struct tl_dirkey *key)
{
    return key->overview;
}

enum tl_overview_status tl_overview_status_of(uint8_t status)
{
    /* The precedence of spec §4.6; the stack trie's colours use it too. */
    if (!(status & TL_CS_METRICS))
        return TL_OV_MISSING;
    if (status & TL_CS_FAIL)
        return TL_OV_FAIL;
    if (status & TL_CS_EMPTY)
        return TL_OV_EMPTY;
    if (status & TL_CS_RESTART)
        return TL_OV_RESTART;
    return TL_OV_OK;
}

static double time_of(const struct tl_overview_bar *b)
{
    return b->c && b->c->has_time ? b->c->time_s : -1;
}

struct ranked {
    struct tl_overview_bar bar;
    size_t order; /* position in the directory */
};

/* Slowest first; of equal times (and of those without one), the earlier first. */
static int ranked_by_time(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    double ta = time_of(&a->bar), tb = time_of(&b->bar);
    if (ta != tb)
        return ta > tb ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

static int ranked_by_order(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    return (a->order > b->order) - (a->order < b->order);
}

/* k is a later attempt ([1/0_1]) of a compilation the index lists ([1/0] or [1/0_0]). */
static bool attempt_has_base(const struct tl_model *m, const struct tl_dirkey *k)
{
    struct tl_buf b = TL_BUF_INIT;
    bool alone = tl_dirkey_attempt_base(&b, &m->dir, k);
    tl_buf_release(&b);
    return !alone;
}

void tl_overview_summarize(const struct tl_model *m, size_t max_bars, struct tl_overview_summary *s)
{
    memset(s, 0, sizeof(*s));
    size_t nkeys = tl_map_len(&m->dir.keys);
    struct ranked *all = tl_xcalloc(nkeys ? nkeys : 1, sizeof(*all));
    s->loose = tl_xcalloc(nkeys ? nkeys : 1, sizeof(*s->loose));
    size_t n = 0;
    for (size_t i = 0; i < nkeys; i++) {
        const struct tl_dirkey *k = tl_map_at(&m->dir.keys, i)->value;
        if (k->unknown)
            continue;
        const struct tl_overview_cid *c = tl_overview_get(k);
        enum tl_overview_status st = tl_overview_status_of(c ? c->status : 0);
        if (!(k->id.has & TL_CID_FRAME)) {
            /* no compilation: the diagnosis does not count it as a compile id either */
            s->loose[s->nloose++] = (struct tl_overview_bar){k, c, st};
            if (c && c->has_time)
                s->total_s += c->time_s;
            continue;
        }
        s->count[st]++;
        if (!(k->id.has & TL_CID_ATTEMPT) || k->id.attempt == 0 || !attempt_has_base(m, k))
            s->ncompilations++;
        if (c && c->has_time) {
            s->ntimed++;
            s->total_s += c->time_s;
            if (c->time_s > s->max_s)
                s->max_s = c->time_s;
        }
        all[n++] = (struct ranked){{k, c, st}, i};
    }
    s->ncids = n;
    if (n > max_bars) {
        tl_sort(all, n, sizeof(*all), ranked_by_time);
        for (size_t i = max_bars; i < n; i++) {
            s->nomitted++;
            if (time_of(&all[i].bar) > 0)
                s->omitted_s += time_of(&all[i].bar);
        }
        n = max_bars;
        tl_sort(all, n, sizeof(*all), ranked_by_order);
    }
    s->bars = tl_xcalloc(n ? n : 1, sizeof(*s->bars));
    for (size_t i = 0; i < n; i++)
        s->bars[i] = all[i].bar;
    s->nbars = n;
    free(all);
    for (size_t i = 0; i < tl_model_ncompiles(m); i++) {
        const struct tl_compile *c = tl_model_compile_at(m, i);
        for (int k = 0; k < TL_CACHE_KINDS; k++)
            for (int r = 0; r < TL_CACHE_RESULTS; r++)
                s->cache[k][r] += c->cache[k][r];
    }
}

void tl_overview_summary_release(struct tl_overview_summary *s)
{
    free(s->bars);
    free(s->loose);
    s->bars = s->loose = NULL;
    s->nbars = s->nloose = 0;
}
