/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Before and after: two diagnoses compared (`tlparse diff`). Each side is read from a summary
 * (summary.json, schema tlparse-summary/1: what a report folder holds and `tlparse --json`
 * prints), whatever it was made from, so that a trace, a TORCH_LOGS text and a stored summary
 * compare the same way. Compile ids are no help across runs (a frame gets another number
 * when anything before it changes): frames are matched by their code location and callers,
 * findings by their text and place, graphs by the hash of their code, each in tiers from
 * exact to looser (a line moved) so that an edit above a function does not make its findings
 * look fixed and new.
 *
 * Memory is that of the two summaries. Depends on base (the JSON DOM of a summary) and on
 * model/cachekey.h for the cache misses of the after side against the before side.
 */
#ifndef TL_DIFF_H
#define TL_DIFF_H

#include "base/config.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/json.h"
#include "model/cachekey.h"
#include "model/ledger.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A place in the code; file NULL and line 0 when unknown. */
struct tl_diff_loc {
    const char *file;
    uint32_t line;
    const char *function;
};

/* What the findings compared are, in the order the outputs list them. */
enum tl_diff_cat {
    TL_DIFF_FAILURES,   /* failed compilations and recompile limits hit */
    TL_DIFF_RECOMPILES, /* a function's recompiles for one failing guard */
    TL_DIFF_BREAKS,     /* graph breaks with one reason at one place */
    TL_DIFF_SPECS,      /* specializations, guards on sizes, duck sizing */
    TL_DIFF_NCATS
};

/* One finding of a side, as compared: equal keys at equal places are the same finding. */
struct tl_diff_item {
    const char *text;     /* for people: the reason, the guard, the expression */
    const char *key;      /* text made comparable across runs (addresses, symbol numbers) */
    const char *detail;   /* failures: the type; specializations: the kind; else NULL */
    const char *category; /* its advice's category, or NULL */
    struct tl_diff_loc loc;
    uint64_t count;
    const char **cids; /* compile ids (the ones the summary kept) */
    uint32_t ncids;
};

/* A graph of a frame: its compile id, code hash (NULL: unknown) and node count. */
struct tl_diff_graph {
    const char *cid;
    const char *hash;
    uint64_t nodes;
    bool has_nodes;
};

/* A compiled frame (frames with the same code and callers taken together). */
struct tl_diff_frame {
    const char *function; /* the user's function ("forward" for its resume functions too) */
    const char *name;     /* the code object's name; NULL: same as function */
    struct tl_diff_loc loc;
    const char **callers; /* "file:line in fn", outermost first; NULL: unknown */
    uint32_t ncallers;
    uint32_t compiles;
    const char **cids;
    uint32_t ncids;
    double seconds; /* compile time */
    bool has_time;
    struct tl_diff_graph *graphs;
    uint32_t ngraphs;
};

/* One side of the diff: a summary as read. Strings live in the side's arena. */
/* A side's compile-time ledger (summary.json's compile_time.ledger): the run's lines. */
struct tl_diff_ledger {
    bool has;
    double span_s, compiling_s, runtime_s, unaccounted_s;
    double phases_s[TL_LP_COUNT];
};

struct tl_diff_side {
    struct tl_arena arena;
    const char *path;        /* as the user gave it */
    const char *kind;        /* what path is: "torch_trace", "torch_logs" or "summary" */
    const char *source_kind; /* what the summary was made from: "torch_trace", "torch_logs" */
    const char *report;      /* the side's report folder, where one exists; else NULL */
    uint64_t compile_ids;
    double total_s;
    bool has_time;
    uint64_t cache[2][3]; /* [fx_graph, aotautograd][hit, miss, bypass] */
    bool has_cache;
    const struct tl_ck_digest *cache_keys; /* the lookups' keys (cache.keys); NULL: none */
    struct tl_diff_ledger ledger;
    struct tl_diff_item *items[TL_DIFF_NCATS];
    uint32_t nitems[TL_DIFF_NCATS];
    struct tl_diff_frame *frames;
    uint32_t nframes;
};

/**
 * Read a summary (tlparse-summary/1) into side. path, kind and report are copied; text is
 * the summary's JSON and need not outlive the side. Items with the same key at the same place
 * are merged. Returns -1 with err filled when text is not such a summary (side is then
 * empty, still to be released).
 */
int tl_diff_side_read(struct tl_diff_side *side, const char *path, const char *kind,
                      const char *report, const char *text, size_t n, struct tl_err *err);
void tl_diff_side_release(struct tl_diff_side *side);

enum tl_diff_change {
    TL_DIFF_SAME,    /* on both sides, as often */
    TL_DIFF_FIXED,   /* only before */
    TL_DIFF_NEW,     /* only after */
    TL_DIFF_CHANGED, /* on both sides, not as often */
};

/* A finding on one or both sides. */
struct tl_diff_pair {
    enum tl_diff_change change;
    const struct tl_diff_item *before, *after; /* NULL on the side it is not on */
    uint32_t order; /* where it was found: the before side's items in order, then the after's */
};

/* A frame on one or both sides. */
struct tl_diff_fpair {
    const struct tl_diff_frame *before, *after; /* NULL on the side it is not on */
};

/* A graph of a matched frame (or with the same hash) on both sides. */
struct tl_diff_gpair {
    const struct tl_diff_fpair *frame;
    const struct tl_diff_graph *before, *after;
    bool by_hash; /* matched on its hash, not on its place among its frame's graphs */
};

struct tl_diff {
    const struct tl_diff_side *before, *after;
    /* Per category, the pairs that differ: new first, then changed, then fixed; within
     * each, the most frequent first. */
    struct tl_diff_pair *pairs[TL_DIFF_NCATS];
    uint32_t npairs[TL_DIFF_NCATS];
    uint32_t nsame[TL_DIFF_NCATS];
    uint32_t nchange[TL_DIFF_NCATS][4]; /* indexed by enum tl_diff_change */
    /* Every frame of either side, the largest change in compile time first (then in compiles) */
    struct tl_diff_fpair *frames;
    uint32_t nframes;
    /* The graphs whose node count or hash differ, and how many matched in all. */
    struct tl_diff_gpair *graphs;
    uint32_t ngraphs;
    uint32_t graphs_matched, graphs_same, graphs_by_hash;
    /* The after side's cache misses against the before side's entries (TL_CK_ACROSS_FIRST),
     * in cache_arena. */
    struct tl_ck_across cache_misses;
    struct tl_arena cache_arena;
};

/** Compare two sides (borrowed: they must outlive d). Release d with tl_diff_release(). */
void tl_diff_compute(struct tl_diff *d, const struct tl_diff_side *before,
                     const struct tl_diff_side *after);
void tl_diff_release(struct tl_diff *d);

/** A frame pair's compile time on a side: -1 when unknown. */
double tl_diff_frame_seconds(const struct tl_diff_frame *f);

/* What the diff found, counted (for the headline and --fail-on). */
struct tl_diff_counts {
    uint32_t fixed[TL_DIFF_NCATS], added[TL_DIFF_NCATS], changed[TL_DIFF_NCATS];
    uint32_t more[TL_DIFF_NCATS];       /* changed ones that are more frequent after */
    uint32_t frames_more, frames_fewer; /* frames compiled more or fewer times (new: more) */
    double slower_pct; /* total compile time after against before, in %; NAN when unknown */
};
void tl_diff_counts(const struct tl_diff *d, struct tl_diff_counts *c);

/** The name of a category in the outputs: "failures", "recompiles", "graph_breaks",
 * "specializations". */
const char *tl_diff_cat_name(enum tl_diff_cat c);

#endif
