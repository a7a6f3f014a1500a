/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --watch, inside: the state of one watch, and its view (watch_view.c: the lines said, the
 * counts, the clocks). watch_report.c keeps the report folder current on it (watch_report.h);
 * watch.c follows the logs and runs the loop on both. Not used outside modes/watch*.c.
 */
#ifndef TL_MODES_WATCH_VIEW_H
#define TL_MODES_WATCH_VIEW_H

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
    const char *name; /* path's last component (in path) */
    size_t file;      /* the follow's index */
    long rank;        /* -1: not a rank's log */
    char label[64];
    struct tl_options opt;
    struct tl_feed *feed;  /* its engine, and its report when it is the live one */
    struct tl_engine *eng; /* the feed's */
    struct tl_buf kept;    /* the messages of its report, said when the watch ends */
    struct tl_watch_run *wt;
    int code;             /* its report's exit code (tl_feed_finish), once finished */
    struct tl_result res; /* and its result */
    bool decided, text, refused, failed, settled, finished;
    bool no_live;       /* its live report could not be made: not tried again */
    bool ranked;        /* fed to wt->ranks (its engine is the ranks'), not to a feed of its own */
    bool hold;          /* its job paused inside an entry once: a pause does not end one */
    bool fresh;         /* fed since the last look */
    struct tl_buf head; /* its first bytes, until they tell a trace from text */
    uint64_t bytes;
    uint64_t fed; /* of them, fed to its engine (fewer while it is fed again from the start) */
    bool cut;     /* the file ended before them: it starts over (the follow tells) */
    /* what has been said: the lengths of the diagnosis's arrays, and the recompiles' counts */
    uint32_t nbreaks, nspecs, nfailures, nlimits, nexports, nrestarts, nearly;
    uint32_t routine; /* routine guards on sizes: counted, not said */
    struct tl_watch_said *rec;
    uint32_t nrec;
};

/** Whether l's engine is behind what was read of l (fed again from its start, in pieces). */
static inline bool tl_watch_log_behind(const struct tl_watch_log *l)
{
    return l->decided && l->eng && !l->failed && !l->cut && l->fed < l->bytes;
}

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
    char *chunk; /* catch_up's buffer (watch.c) */
    int job_fd;  /* the job's output (-1: none, or it ended) */
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
    bool ranks_finished;         /* it made the end report: ranks_code, ranks_res */
    int ranks_code;
    struct tl_result ranks_res;
    bool published;       /* the live report went into place */
    uint64_t newest_at;   /* when (ms) the log a batch run reports on was last looked for */
    uint64_t newest_seen; /* the newest time (ns) of a followed log when it was */
    char *chosen; /* the log a batch run of PATH takes at the end (malloc'd), NULL: not known */
    long chosen_others; /* and the other files it skips (-1: PATH is that log) */
    struct tl_watch_generation gen;
    struct tl_watch_rebuild rb;
    struct tl_counts counts;
};

/* ---- watch_view.c ---- */

/** Milliseconds of the monotonic clock, and of the wall clock (Unix time). */
uint64_t tl_watch_now_ms(void);
uint64_t tl_watch_wall_ms(void);
/** "tlparse: A B" as a line of ours to the view (log text made printable; b may be NULL). */
void tl_watch_notice(struct tl_watch_run *wt, const char *a, const char *b);
/** What the log's diagnosis gained since the last look, said in the order it was seen. */
void tl_watch_look(struct tl_watch_run *wt, struct tl_watch_log *l);
/** wt->counts: the counts of every log so far (for --fail-on, the panel and live.js). */
void tl_watch_count_all(struct tl_watch_run *wt);

/** A line's who: its log named when the job has several, or it is a rank's. */
struct tl_live_who tl_watch_who_of(const struct tl_watch_run *wt, const struct tl_watch_log *l);
/** Lines to the caller's view. */
void tl_watch_show_lines(struct tl_watch_run *wt, const char *p, size_t n);
/** What was said of l, forgotten (its log starts over, or is freed). */
void tl_watch_said_release(struct tl_watch_log *l);

#endif
