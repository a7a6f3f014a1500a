/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run at a glance, for the overview at the top of index.html: per compile id as the index
 * lists it (its compile-directory key, attempts apart), the status and the compile time of its
 * own compilation_metrics records; at the end, the counts by status, the total time, the
 * cache hits and misses, and which compile ids a chart of bounded size draws. A key without
 * a frame id ([-/-]: entries outside any compilation) is no compile id, as the diagnosis
 * counts them: it is counted apart. A few numbers per compile id, kept on its directory key;
 * nothing per artifact. Depends on base and the directory; model.c feeds it.
 */
#ifndef TL_OVERVIEW_H
#define TL_OVERVIEW_H

#include "base/config.h"
#include "base/arena.h"
#include "model/directory.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_model;

/** What the records of the compile id listed under key said, or NULL (no metrics). */
const struct tl_overview_cid *tl_overview_get(const struct tl_dirkey *key);

/* How the index colours a compile id (spec core.md §4.6), in the order its legend gives. */
enum tl_overview_status {
    TL_OV_OK,      /* status-ok */
    TL_OV_RESTART, /* status-break: restarted (a graph break) */
    TL_OV_EMPTY,   /* status-empty: no graph ops */
    TL_OV_FAIL,    /* status-error */
    TL_OV_MISSING, /* status-missing: no compilation_metrics */
    TL_OV__COUNT,
};

/** The colour of a compile id with these TL_CS_* bits (0: no metrics). */
enum tl_overview_status tl_overview_status_of(uint8_t status);

/* A compile id the chart draws. */
struct tl_overview_bar {
    const struct tl_dirkey *key;     /* its display and anchor */
    const struct tl_overview_cid *c; /* NULL: no metrics (no time) */
    enum tl_overview_status status;
};

/* The overview of a run. */
struct tl_overview_summary {
    size_t ncids;               /* compile ids of the index: its keys with a frame id */
    size_t ncompilations;       /* of them, compilations: a restart's attempt ([1/0_1] after [1/0])
                                   counts with its compilation, as the diagnosis counts them */
    size_t count[TL_OV__COUNT]; /* of them, by colour */
    size_t ntimed;              /* of them, with a compile time */
    double total_s, max_s;      /* their times: the sum, the largest */
    uint64_t cache[3][3];       /* [fx_graph, aotautograd, other][hit, miss, bypass] */
    struct tl_overview_bar *bars; /* in log order; malloc'd */
    size_t nbars;
    size_t nomitted;  /* compile ids not drawn (more than the chart's bars) */
    double omitted_s; /* their time */
    /* The keys without a frame id ([-/-], [!1/-/-]: records outside any compilation, such as a
     * backward pass or a cache lookup at run time), in log order; their times are in total_s
     * (as the diagnosis sums them). malloc'd. */
    struct tl_overview_bar *loose;
    size_t nloose;
};

/**
 * Sum up the run: every compile id of the model's directory, and the chart's bars: all of
 * them when there are at most max_bars, else the max_bars slowest (those without a time
 * last), in log order either way; the keys that are no compile id apart. Caller releases s
 * with tl_overview_summary_release.
 */
void tl_overview_summarize(const struct tl_model *m, size_t max_bars,
                           struct tl_overview_summary *s);
void tl_overview_summary_release(struct tl_overview_summary *s);

#endif
