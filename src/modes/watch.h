/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --watch, inside: the state of one watch, shared by its two files. watch.c follows the logs,
 * feeds each to its engine, says what the diagnosis gained and runs the loop; watch_report.c
 * keeps the report folder current (the live log's generations, or batch runs of what several
 * logs hold) and makes the end report. Neither is used outside modes/watch*.c.
 */
#ifndef TL_MODES_WATCH_H
#define TL_MODES_WATCH_H

#include "base/config.h"
#include "modes/modes.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What has been said of the recompiles of one function: how many, how many of them early (by
 * their recompile_reasons), and its guards' counts. */
struct tl_watch_said {
    uint32_t count, early;
    uint32_t *guards;
    uint32_t nguards;
};

/* One followed log. Each is allocated on its own: its engine keeps a pointer to opt. */
struct tl_watch_log {
    char *path;
    size_t file; /* the follow's index */
    long rank;   /* -1: not a rank's log */
    char label[64];
    struct tl_options opt;
    struct tl_feed *feed;  /* its engine, and its report when it is the live one */
    struct tl_engine *eng; /* the feed's */
    struct tl_buf kept;    /* the messages of its report, said when the watch ends */
    struct tl_watch_run *wt;
    int code;             /* its report's exit code (tl_feed_finish), once finished */
    struct tl_result res; /* and its result */
    bool decided, text, refused, failed, settled, finished;
    bool ranked;        /* fed to wt->ranks (its engine is the ranks'), not to a feed of its own */
    bool fresh;         /* fed since the last look */
    struct tl_buf head; /* its first bytes, until they tell a trace from text */
    uint64_t bytes;
    /* what has been said: the lengths of the diagnosis's arrays, and the recompiles' counts */
    uint32_t nbreaks, nspecs, nfailures, nlimits, nexports, nrestarts, nearly;
    uint32_t routine; /* routine guards on sizes: counted, not said */
    struct tl_watch_said *rec;
    uint32_t nrec;
};

struct tl_watch_rebuild {
    pthread_t thread;
    bool running;
    atomic_bool done;
    struct tl_options opt;
    struct tl_extra_file extra[2];
    struct tl_open_log *open; /* descriptors of the logs, duplicated for the thread */
    size_t nopen;
    struct tl_buf page, status;
    struct tl_buf why;  /* its last error message */
    struct tl_buf said; /* the last failure said */
    struct tl_result res;
    int rc;
    uint64_t started, took;
};

/* A generation of the live report being made by a forked copy of the process. */
struct tl_watch_generation {
    pid_t pid;                     /* 0: none running */
    int pipe;                      /* its error message comes through it */
    uint64_t started;              /* when (ms) */
    uint64_t cpu_ms;               /* what the last one cost */
    uint64_t bytes;                /* the logs' bytes it shows */
    struct tl_buf said;            /* the last failure said */
    bool of_ranks;                 /* of the ranks' report, not the live log's */
    bool failed_said;              /* the live report's folder failed, and it was said */
    struct tl_buf page, status;    /* live.html and the first live.js, of the live report */
    struct tl_extra_file extra[2]; /* the two, as its options give them */
};

struct tl_watch_run {
    const struct tl_options *opt;
    const struct tl_watch *w;
    const char *title;
    const char *out_dir;
    struct tl_follow *follow;
    unsigned width; /* what an event line is wrapped to (0: one line) */
    struct tl_watch_log **logs;
    size_t nlogs, logs_alloc;
    int job_fd; /* the job's output (-1: none, or it ended) */
    uint64_t last_byte, last_byte_wall, started_ms;
    uint64_t generation, updated_wall, last_rebuild_bytes;
    bool job_ended, stopped;
    int job_status;
    /* the log whose report is made as it is fed (NULL: none, or the ranks') */
    struct tl_watch_log *live;
    /* the ranks' report, made as their logs are fed (NULL: none, or given up) */
    struct tl_ranks_live *ranks;
    struct tl_options ranks_opt; /* its options */
    struct tl_buf ranks_kept;    /* its messages, said at the end */
    bool ranks_tried;            /* it was made once (and may have been given up) */
    bool ranks_dropped;          /* given up: batch runs make the report */
    size_t ranks_n;              /* rank logs fed to it */
    bool ranks_finished;         /* it made the end report: ranks_code, ranks_res */
    int ranks_code;
    struct tl_result ranks_res;
    bool published; /* the live report went into place */
    struct tl_watch_generation gen;
    struct tl_watch_rebuild rb;
    struct tl_counts counts;
};

/* ---- watch.c ---- */

/** Milliseconds of the monotonic clock, and of the wall clock (Unix time). */
uint64_t tl_watch_now_ms(void);
uint64_t tl_watch_wall_ms(void);
/** "tlparse: A B" as a line of ours to the view (log text made printable; b may be NULL). */
void tl_watch_notice(struct tl_watch_run *wt, const char *a, const char *b);
/** What the log's diagnosis gained since the last look, said in the order it was seen. */
void tl_watch_look(struct tl_watch_run *wt, struct tl_watch_log *l);
/** wt->counts: the counts of every log so far (for --fail-on, the panel and live.js). */
void tl_watch_count_all(struct tl_watch_run *wt);

/* ---- watch_report.c ---- */

void tl_watch_report_init(struct tl_watch_run *wt);
/** Whether l becomes the log the report is of, fed to it as it comes: the log a batch run of
 * PATH reports on now (PATH, or the newest log of the folder), unless every rank is reported. */
bool tl_watch_report_wanted(const struct tl_watch_run *wt, const struct tl_watch_log *l);
/** Whether the live log is still the one a batch run of PATH reports on, and its report the
 * batch run's (not so for the newest log of a folder of rank logs). */
bool tl_watch_report_still_newest(const struct tl_watch_run *wt);
/** What a batch run of the folder PATH says of the log it chose ("parsing X, the newest log
 * in PATH ..."), when it would not be given the log itself. */
void tl_watch_report_say_chosen(struct tl_watch_run *wt);
/** l->opt for the live report of l: a batch run's of its log, into the watch's folder, with
 * live.html and a first live.js, its messages kept (l->kept) for the end. */
void tl_watch_report_options(struct tl_watch_run *wt, struct tl_watch_log *l);
/** The report is not of one log any more: batch runs make it from now on. */
void tl_watch_report_give_up(struct tl_watch_run *wt);
/** l, a rank log, fed to the ranks' live report (made with the first): whether it is (then
 * l->eng is the rank's engine and l->ranked is set). */
bool tl_watch_report_add_rank(struct tl_watch_run *wt, struct tl_watch_log *l);
/** The ranks' live report is given up (a rank log started over, or finishing would not make the
 * batch run's report): batch runs make it from now on; the ranks' engines are still fed. */
void tl_watch_report_drop_ranks(struct tl_watch_run *wt);
/** The end of the ranks' live report, when there is one and it makes the batch run's report:
 * the ranks finished (each said, tl_watch_look), the landing page, the report committed. */
void tl_watch_report_finish_ranks(struct tl_watch_run *wt);
/** The generation being made ended (wait: wait for it): put in place, or why not said. */
void tl_watch_report_reap(struct tl_watch_run *wt, bool wait);
/** Once a second: a generation or a batch run when one is due, and live.js's heartbeat. */
void tl_watch_report_tick(struct tl_watch_run *wt);
/** A log's engine finished (tl_feed_on_end): what waited is said; the live report's last
 * live.js is written before it is committed. ctx: the log. */
void tl_watch_report_log_ended(void *ctx, struct tl_feed *f, const struct tl_counts *counts);
/** The messages kept of the live report's run, said as a batch run says them. */
void tl_watch_report_say_kept(struct tl_watch_run *wt, const struct tl_buf *kept);
/** Wait for a batch run of the report that is still going. */
void tl_watch_report_wait(struct tl_watch_run *wt);
/** The end report by a batch run of the whole logs, with live.html and a last live.js. */
int tl_watch_report_final(struct tl_watch_run *wt, struct tl_result *res);
void tl_watch_report_release(struct tl_watch_run *wt);

#endif
