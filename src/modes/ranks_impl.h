/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the multi-rank runs share inside modes/: a run's ranks (struct multi, struct rank) and
 * the steps of one rank and of the landing page, which the batch run (ranks.c) and the run fed
 * as the logs come (ranks_live.c, for --watch) both take. Not part of modes.h: no other folder
 * sees these.
 */
#ifndef TL_RANKS_IMPL_H
#define TL_RANKS_IMPL_H

#include "base/config.h"
#include "modes/modes.h"
#include "base/json_write.h"
#include "input/rankfiles.h"
#include "model/ranks.h"
#include "model/strtab.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct multi;

/* A rank's events for the combined chromium_events.json, spooled (an unnamed temporary file
 * beside the output) as the combined file will hold them (pid set), and appended there in
 * rank order at the end. */
#define EVENTS_SPOOL "chromium events (spooled)"

/* One rank of the run. */
struct rank {
    struct multi *m;
    size_t index;             /* in m->ranks */
    struct tl_rank_log log;   /* rank, file name, path (one-step runs) */
    struct tl_rank_summary s; /* what the landing page needs from it */
    struct tl_arena arena;    /* the summary's */
    struct tl_options opt;    /* the run's, with its messages captured */
    struct tl_buf msgs;       /* captured messages: kind byte, line, NUL */
    struct tl_strtab strtab;  /* its log's string table (in arena) */
    struct tl_outdir *sub;    /* its folder, while it is parsed (sub_out) */
    struct tl_outdir sub_out;
    struct tl_engine_job job;       /* its log's, through the sinks of a rank's report */
    struct tl_log_sinks params;     /* their parameters */
    struct tl_engine *eng;          /* fed as its log comes (--watch), else NULL */
    void *user;                     /* the caller's, for tl_ranks_live_hooks */
    struct tl_outfile events;       /* EVENTS_SPOOL, open from its first event, and kept (on the
                                       root's output) once the rank's folder is done */
    struct tl_json_doc events_doc;  /* its events, as items of the combined file's array */
    uint64_t nevents;               /* events in it */
    struct tl_json_member *members; /* scratch: an event's members and its pid */
    size_t nmembers;
    bool done;          /* parsed, messages may be printed */
    bool settled;       /* parsed or given up: its string table is final */
    bool strict_failed; /* --strict found problems in its log */
    bool nothing;       /* its log holds nothing to check, which --strict or --fail-on fail on */
    bool parsed;        /* parsed in this run: counts holds its diagnosis */
    struct tl_counts counts;
    char *diagnosis; /* --summary, --json: the rank's, as text or JSON (malloc'd) */
};

/* A multi-rank run: its ranks, the messages said in their order, the string tables carried. */
struct multi {
    const struct tl_options *opt;
    const char *out_name; /* the output folder as given */
    struct tl_messages msg;
    struct tl_outdir root;
    struct rank **ranks; /* each allocated on its own: sinks keep pointers into them */
    size_t n, alloc;
    bool direct;        /* one rank at a time: messages go out as they come */
    pthread_mutex_t mu; /* the rest: */
    size_t printed;     /* ranks whose messages were printed */
    pthread_cond_t cv;  /* a rank settled */
    size_t settled;     /* ranks [0, settled) settled, their string tables in carry */
    struct tl_arena carry_arena;
    struct tl_strtab carry; /* the string tables of the ranks settled, later ones on top */
    bool fatal;             /* an error that stops the run (err) */
    /* The landing page was made (its files, runtime estimations and collective schedules
     * among them): said once the folder is in place. */
    bool landed, landed_runtime, landed_schedules;
    struct tl_err err;
    /* Counts only (tl_ranks_counts): no summary text; the log at known_path is not read, its
     * counts are known_counts. */
    bool counts_only;
    const char *known_path;
    const struct tl_counts *known_counts;
};

/* ---- shared steps (ranks.c) ---- */

/** A rank's message, kept for the end (ctx: the struct rank). */
void tl_ranks_capture(void *ctx, enum tl_message_kind kind, const char *line);
/** A rank is done: its messages may be printed, in the ranks' order. */
void tl_ranks_rank_done(struct multi *m, struct rank *r);
/** A rank's string table is final: the ranks after it may carry it. */
void tl_ranks_settle(struct multi *m, struct rank *r);
/** Open a rank's folder and set up its engine job (reader NULL: it is fed, not read). */
int tl_ranks_rank_begin(struct multi *m, struct rank *r, struct tl_reader *reader);
/** A rank's engine finished with rc: its summary kept, its folder committed or aborted. */
void tl_ranks_rank_end(struct multi *m, struct rank *r, int rc, const struct tl_engine_result *sum,
                       struct tl_err *err);
/** The landing page and the combined files into out (live: a generation of --watch). */
int tl_ranks_landing(struct multi *m, struct tl_outdir *out, bool live, struct tl_err *err);
/** A new rank at the end of m->ranks. */
struct rank *tl_ranks_new_rank(struct multi *m);
void tl_ranks_multi_init(struct multi *m, const struct tl_options *opt);
void tl_ranks_multi_release(struct multi *m);
/* A rank's memory released, the struct too (not its log's name and path: their owner's). */
void tl_ranks_rank_release(struct rank *r);
void tl_ranks_rank_init(struct rank *r, const struct tl_rank_log *log);
/** The run's end: its root folder committed (rc 0) or aborted, res filled; returns rc. */
int tl_ranks_finish_run(struct multi *m, int rc, struct tl_err *err, struct tl_result *res);

#endif
