/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-rank (spec modes.md §1): what the landing page needs from each rank, and what it
 * makes of all of them. A rank's summary is small (compile ids, cache sequence, the runtime,
 * tensor-metadata and collective-schedule artifacts, the execution order, its diagnosis in
 * counts); it is computed where the rank's log is parsed and travels in rank_N/summary.json,
 * so the landing page can be made on another machine, from the summaries alone.
 *
 * The analyses are pure functions of the summaries, given in ascending rank order. Strings
 * are borrowed from the summaries (and from the arena given to tl_ranks_analyze()).
 * A rank whose `error` is set has no report: it is listed on the landing page but takes no
 * part in any analysis (its empty data would otherwise show as a divergence). NULL strings
 * in a summary read as "". Depends on base, on model/cachekey.h for the cache misses across
 * ranks and on model/ledger.h for the ranks' ledger lines.
 */
#ifndef TL_RANKS_H
#define TL_RANKS_H

#include "base/config.h"
#include "base/arena.h"
#include "model/ledger.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One op of an inductor_runtime_and_tensor_meta artifact (§1.8). */
struct tl_rank_op {
    const char *name;
    double estimated_runtime_ns;
};

/* A runtime record: the ops of one graph (compile folder) of a rank, in lookup order. */
struct tl_rank_runtime {
    const char *graph; /* the folder name, "-_0_1_0" */
    struct tl_rank_op *ops;
    size_t nops; /* never 0: files with empty ops are not records */
};

/* A tensor-metadata fingerprint of one graph (§1.12): the artifact re-serialized compactly
 * with sorted keys (every file counts, empty ops too). */
struct tl_rank_meta {
    const char *graph;
    const char *fingerprint;
};

/* A collective schedule (§1.10): the op names of one graph, never empty. */
struct tl_rank_schedule {
    const char *graph;
    const char **ops;
    size_t nops;
};

/* A folder of the rank and the compile key it belongs to (§1.11 step 1), and the cache status
 * of the folder (§1.13 step 4: "miss", "hit", "bypass" or NULL). */
struct tl_rank_folder {
    const char *folder;
    const char *key; /* NULL: no key lists a file of it */
    const char *cache_status;
};

/* The diagnosis of a rank, in counts, for the divergence across ranks (issue 11 item 4). */
struct tl_rank_diag {
    uint32_t recompiles;   /* recompile events */
    uint32_t graph_breaks; /* graph breaks */
    uint32_t failures;     /* failed compilations */
    uint32_t limits;       /* recompile limits hit */
    uint32_t compile_ids;  /* compilations, as the diagnosis counts them */
    bool has_time;
    double compile_s; /* compile time, summed (has_time) */
    /* Where its time went: its compile-time ledger's lines (summary.json's
     * compile_time.ledger); not present when the log timed no compiling. */
    struct tl_ledger_lines ledger;
    /* What the first of each count was, in a line (NULL: none): "step at ranks.py:9 [0/1]:
     * tensor 'L['x']' size mismatch at index 0", in the order of the counts above. */
    const char *detail[4];
};

struct tl_ck_digest;
struct tl_ck_across;

struct tl_rank_summary {
    uint32_t rank;
    const char *log;   /* the log's file name (no folder) */
    const char *error; /* NULL: parsed; else what went wrong (the rank has no report) */
    const char *notes; /* NULL, or the artifacts that could not be read ("a.json is not ...") */

    const char **compile_ids; /* compile_directory.json keys but unknown*, sorted */
    size_t ncompile_ids;
    const char *cache_sequence; /* the suffixes sorted by number (§1.6), "" when none */
    uint64_t chromium_events;   /* events of rank_N/chromium_events.json */

    struct tl_rank_runtime *runtime;
    size_t nruntime;
    struct tl_rank_meta *meta;
    size_t nmeta;
    struct tl_rank_schedule *schedules;
    size_t nschedules;

    bool has_exec_order;     /* a graph_execution artifact gave an order */
    const char **exec_order; /* compile keys, "[0/1]" */
    size_t nexec_order;

    struct tl_rank_folder *folders; /* sorted by folder */
    size_t nfolders;

    struct tl_rank_diag diag;
    /* The rank's cache hits and misses with their keys' components (model/cachekey.h; its
     * summary.json's "cache"."keys"); NULL: none */
    const struct tl_ck_digest *cache_keys;
};

/* ---- compile keys ---------------------------------------------------------------------------- */

/* The key of the entries that carry no compile id (spec modes.md §0.1): not a compile id. */
#define TL_RANKS_NO_CID "[-/-]"

/**
 * Order compile keys ("[0/1]", "[0/1_2]", "[!1/0/3]", "[-/-]") as numbers: by frame id, then
 * frame compile id, then attempt (missing: 0), then compiled-autograd id (none first); a
 * missing frame or frame compile id ('-') after every number; what is not a compile key
 * ("unknown_3") after every key, in byte order. [0/1] < [0/1_1] < [0/2] < [0/10] < [1/0] <
 * [-/-]. A total order (byte order breaks ties, "[0/01]" against "[0/1]"); NULL reads as "".
 */
int tl_ranks_cid_cmp(const char *a, const char *b);

/* ---- the analyses (§1.5-1.13) -------------------------------------------------------------- */

/* A group of ranks with the same value (a cache sequence, a collective sequence, a tensor
 * meta signature); ranks ascending, groups in order of their lowest rank. */
struct tl_rank_group {
    const char *value;
    const uint32_t *ranks;
    size_t nranks;
    const char *ranks_text; /* "0, 2" */
};

struct tl_rank_groups {
    struct tl_rank_group *groups;
    size_t n;
    bool diverge;     /* more than one group */
    size_t main;      /* the largest group (of two as large, the one with the lowest rank) */
    const size_t *of; /* per summary (as given): its group's index + 1; 0: takes no part */
};

/* Where a group of ranks first parts from the main group of its kind: the first graph, in the
 * order of tl_ranks_cid_cmp, where the two differ, and what each has there. Computed from a
 * rank of each group (the lowest), from its summary alone. */
struct tl_rank_first {
    const char *where;  /* the compile id ("[0/0]"), or the graph's folder when no compile id
                         * lists it; NULL: not found (the same graphs, in another order) */
    size_t op;          /* collectives: the op's number in the graph, from 1; else 0 */
    const char *theirs; /* what the group has there: the op's name without its namespace and
                         * overload ("all_gather_into_tensor"), the cache result ("hit",
                         * "miss", "bypass"), "compiled" (compile ids), "present" (tensor
                         * meta, which differs there when both have it); NULL: nothing */
    const char *mains;  /* what the main group has there, the same way */
};

/* What sets a rank apart from the main group of a kind (struct tl_ranks.apart). */
enum {
    TL_RANK_APART_CIDS = 1,        /* its compile ids ([-/-] left out) */
    TL_RANK_APART_CACHE = 2,       /* its cache hits and misses */
    TL_RANK_APART_COLLECTIVES = 4, /* its collective schedules */
    TL_RANK_APART_META = 8,        /* its tensor metadata */
};

/* A row of the graph runtime analysis (§1.9). */
struct tl_runtime_row {
    size_t graph_index;
    const char *graph_id; /* the lowest rank's graph name at this index */
    double delta_ms;
    uint32_t fastest_rank, slowest_rank;
    double fastest_ms, slowest_ms;
};

/* One index of the execution orders (§1.13 step 5; the library-level rows of §5.3). */
struct tl_exec_row {
    size_t index;
    bool order_differs;     /* the present ranks name more than one key here */
    bool schedule_mismatch; /* ScheduleMismatch */
    bool cache_mismatch;    /* CacheMismatch */
};

/* The execution-order summary (§1.13). Only the ranks with an order (has_exec_order) count.
 * The schedule of (rank, key) is the ops of the rank's schedule records whose folder maps to
 * key (or is named key when unmapped), concatenated; the cache status of (rank, key) is the
 * highest of its mapped folders' (miss > hit > bypass; other values are ignored). */
struct tl_exec_order {
    bool available; /* at least two ranks have an order */
    bool order_differs;
    const char *ranks_schedule; /* "Rank 0, Rank 1", "" when none */
    const char *ranks_cache;
    struct tl_exec_row *rows; /* one per index below the longest order; only when available */
    size_t nrows;
};

/* A divergence of the diagnosis across ranks: what some ranks did and the others did not. */
struct tl_rank_divergence {
    const char *what;   /* "recompiled", "broke graphs", "failed to compile",
                         * "hit the recompile limit" (in this order; static strings) */
    const char *ranks;  /* "Rank 1, Rank 3" */
    const char *others; /* "Rank 0, Rank 2" */
    /* what it was on each of ranks: "Rank 1: step at ranks.py:9 [0/1]: tensor ..." lines
     * joined by '\n', ranks with the same one together; NULL when the ranks did not say */
    const char *detail;
};

/* A compile id that some ranks compiled and others did not (§1.5, said in full). */
struct tl_rank_cid_gap {
    const char *cid;
    const char *missing; /* "Rank 0, Rank 2": the ranks without it */
};

struct tl_ranks {
    const struct tl_rank_summary *ranks; /* ascending rank */
    size_t nranks;

    bool compile_ids_diverge;     /* §1.5, as the reference: the keys, [-/-] included */
    struct tl_rank_groups cids;   /* the ranks by their compile ids, [-/-] left out */
    struct tl_rank_cid_gap *gaps; /* which compile ids, when cids diverge (the first 20, in
                                   * the order of tl_ranks_cid_cmp; never [-/-]) */
    size_t ngaps, ngaps_all;
    /* Entries without a compile id ([-/-]) on some ranks and not on others: "Rank 1" and
     * "Rank 0, Rank 2"; NULL when every rank or none has them. */
    const char *idless_ranks, *idless_others;
    struct tl_rank_groups cache; /* §1.6 */
    uint64_t chromium_events;    /* all ranks' */

    bool has_runtime;            /* §1.8: some rank has runtime records */
    bool runtime_mismatch;       /* §1.9: the ranks have different numbers of graphs */
    struct tl_runtime_row *rows; /* sorted by graph_id */
    size_t nrows;

    bool has_schedules;              /* §1.10 */
    struct tl_rank_groups schedules; /* only when has_schedules */

    struct tl_rank_groups meta; /* §1.12 (ranks with files only) */

    struct tl_exec_order exec; /* §1.13 */

    struct tl_rank_divergence *divergences; /* a counter of tl_rank_diag that is 0 on some */
    size_t ndivergences;                    /* ranks and not on others */

    /* Where each group first parts from its kind's main group, one per group (the main
     * group's all NULL): of cids, cache, schedules (when has_schedules) and meta. */
    struct tl_rank_first *cids_first, *cache_first, *schedules_first, *meta_first;
    uint8_t *apart; /* per summary: the TL_RANK_APART_* kinds where it is not in the main
                     * group (0 for a rank without a report) */

    /* The cache misses of a rank explained against another rank's entries
     * (tl_ranks_cache_across); never NULL. */
    const struct tl_ck_across *cache_across;
};

/**
 * Analyse the summaries (ascending rank). Everything out points to is borrowed from ranks or
 * allocated in arena (valid until it is reset); out->ranks is ranks itself. Never fails.
 * Groups, rows and strings are the spec's, with sorted order where the reference used hash or
 * listing order: groups by lowest rank, runtime rows by graph_id then index.
 */
void tl_ranks_analyze(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                      struct tl_arena *arena);

/**
 * The cache misses of the ranks with a report explained against each other's entries
 * (tl_cachekey_across, TL_CK_ACROSS_ANY, by rank number); in arena.
 */
const struct tl_ck_across *tl_ranks_cache_across(const struct tl_rank_summary *ranks, size_t n,
                                                 struct tl_arena *arena);

/** ms = round(ns / 1e6 * 1000) / 1000, half away from zero (§1.9). */
double tl_ranks_ms(double ns);

/** The reference's tid of a (rank, graph) in the runtime trace: FxHash, low 32 bits (§1.8). */
uint32_t tl_ranks_tid(uint32_t rank, const char *graph);

/** Normalise a collective op name (§1.11 step 3): "all_reduce", ... or NULL for others
 * (static strings, the names of the TL_COLL_* below). */
const char *tl_ranks_collective(const char *op, size_t n);

/* ---- collectives parity of one compile folder (§1.11) --------------------------------------- */

enum {
    TL_COLL_ALL_REDUCE,
    TL_COLL_REDUCE_SCATTER,
    TL_COLL_ALL_GATHER,
    TL_COLL_BROADCAST,
    TL_COLL_ALL_TO_ALL,
    TL_COLL_REDUCE,
    TL_COLL__COUNT,
};

struct tl_parity_counts {
    uint64_t n[TL_COLL__COUNT]; /* collectives by normalised name */
    uint64_t waits;             /* wait_tensor calls (code only) */
};

/* The counting functions add to *c: start from a zeroed struct. */

/** Count the schedule's ops (step 4): ops[0..n), each a string (NULL entries are skipped). */
void tl_parity_schedule(struct tl_parity_counts *c, const char *const *ops, size_t n);
/** Count the collective calls of an output code file (step 5: tags `<...>` removed, then
 * comments `#...`, `//...` (to the end of the line) and C block comments in one pass,
 * then `torch.ops._c10d_functional.NAME.default(` with ASCII whitespace allowed around the
 * dots and before `(`, the leading `_` optional). Linear time; any bytes. */
void tl_parity_code(struct tl_parity_counts *c, const char *text, size_t n);
/** Step 6: offset = sum over names of |schedule - code|; missing waits = max(0, code
 * collectives - waits). */
void tl_parity_compare(const struct tl_parity_counts *schedule, const struct tl_parity_counts *code,
                       uint64_t *offset, uint64_t *missing_waits);

#endif
