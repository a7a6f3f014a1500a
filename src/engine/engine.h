/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine, as the modes use it: one log (a structured trace) through the sinks a mode
 * chose, into the model, with the run's messages, counters and --redact. The engine picks
 * no sink and no output of its own: the mode hands it both (sinks are added in the order
 * they see each record). It never includes a mode.
 */
#ifndef TL_ENGINE_ENGINE_H
#define TL_ENGINE_ENGINE_H

#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/arena.h"
#include "base/err.h"
#include "engine/messages.h"
#include "engine/sink.h"
#include "input/reader.h"
#include "model/diagnosis.h"
#include "model/ledger.h"
#include "model/runinfo.h"
#include "model/stats.h"
#include "output/outdir.h"

#include <stdbool.h>
#include <stdint.h>

#define TL_ENGINE_MAX_SINKS 10

/* The caller's cancel flag (tl_options.cancel) is set by a signal handler on the main thread
 * and read by the workers of others (the ranks' pool, a watch's rebuild): a volatile
 * sig_atomic_t is atomic only towards a handler of its own thread, so it is read and written
 * with the atomic builtins (relaxed: it orders nothing else), as the compiler and
 * ThreadSanitizer know them. NULL: nothing cancels the run. */
static inline bool tl_stop_asked(volatile sig_atomic_t *cancel)
{
    return cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED) != 0;
}

static inline void tl_stop_clear(volatile sig_atomic_t *cancel)
{
    if (cancel)
        __atomic_store_n(cancel, 0, __ATOMIC_RELAXED);
}

/* A sink as a mode adds it: its operations and its own parameters (borrowed for the run). */
struct tl_sink_use {
    const struct tl_sink_ops *ops;
    const void *params;
};

/* One log to run through the engine (tl_engine_run). */
struct tl_engine_job {
    const struct tl_options *opt;
    struct tl_reader *reader; /* the open log, taken over: freed by tl_engine_run */
    const char *path;         /* its file; NULL for opt->mem_input */
    const char *name;         /* its name in messages */
    struct tl_outdir *out;    /* NULL: no output (--summary, --json, tl_each_entry) */
    bool text;                /* the log is TORCH_LOGS text, not a structured trace */
    struct tl_sink_use sinks[TL_ENGINE_MAX_SINKS];
    size_t nsinks;
    /* When not NULL: called with the whole model after the sinks finished, before the engine
     * releases it (what a mode keeps of it: --summary's text, a rank's string table). */
    void (*done)(void *ctx, const struct tl_model *model, const struct tl_runinfo *info);
    void *done_ctx;
};

/* What tl_engine_run() tells its caller about the log. */
struct tl_engine_result {
    uint64_t bytes_in, lines;
    struct tl_stats stats;
    bool saw_unknown_cid;    /* an entry had no usable compile id (--strict-compile-id) */
    size_t compile_ids;      /* keys of the compile directory */
    struct tl_counts counts; /* the diagnosis, counted */
    bool no_entries;         /* a trace that had lines, and not one TORCH_TRACE entry in them */
    char nothing[96];        /* the log holds nothing to check: why ("it is empty"); "" when
                                it holds something */
    bool truncated;          /* a compressed log cut off: read up to there (--strict fails) */
    char *summary;           /* what the mode made of it (--summary's text; malloc'd) */
    /* where its time went (a view of many logs shows it, one line per log) */
    struct tl_ledger_lines ledger;
};

/** Whether a log that holds nothing to check is an error (opt->check_content, or --strict but
 * in export mode, where --strict checks nothing: spec core.md 8.3). */
static inline bool tl_engine_content_required(const struct tl_options *opt)
{
    return opt->check_content || (opt->strict && !opt->export_mode);
}

/** Add a sink (in the order it sees each record). */
void tl_engine_job_add(struct tl_engine_job *job, const struct tl_sink_ops *ops,
                       const void *params);

/* One log being run through its sinks (engine.c). */
struct tl_engine;

/**
 * The engine of job, for a log whose bytes come as they are written (job->reader is not
 * used): tl_engine_start, then tl_engine_feed as bytes arrive, then tl_engine_finish. Free
 * with tl_engine_free.
 */
struct tl_engine *tl_engine_new(const struct tl_engine_job *job);
/** Start the sinks (size: the log's size when known, for the progress bar; else 0). */
int tl_engine_start(struct tl_engine *eng, uint64_t size, struct tl_err *err);
/** Bytes of the log, as they arrive: each entry they complete goes to the sinks and the model
 * (an entry's payload is complete when a line that is not one of it comes). */
int tl_engine_feed(struct tl_engine *eng, const char *p, size_t n, struct tl_err *err);
/**
 * The log went quiet (a job writing it paused): the entry being read, when the bytes fed end
 * at a line's end, is handed on as complete, if its payload is the one it announced (its md5)
 * or is read by no one (its payload lines still to come are skipped, as a batch run skips
 * them); else it waits for its end. PyTorch writes an entry in one write, so a pause after a
 * whole line ends it; a payload line that comes after all makes tl_engine_diverged true.
 * TORCH_LOGS text: the messages being read are said as they are and kept open; a line that
 * goes on one makes tl_engine_diverged true (tl_diag_text_settle). For a live view (--watch).
 */
int tl_engine_settle(struct tl_engine *eng, struct tl_err *err);
/** Whether a line came that belonged to what tl_engine_settle took as complete: the records
 * given differ from a batch run's from there on. */
bool tl_engine_diverged(const struct tl_engine *eng);
/** Read the log's size and time again, for the footer (a log that grew while it was fed). */
void tl_engine_restat(struct tl_engine *eng);
/**
 * A live report's generation: the model as it is (the entry being read left out) finished,
 * and each sink's publish (struct tl_sink_ops) writing through out, the footer's size and time
 * read again. It changes the engine for good: it runs on a copy of the run that is thrown away
 * after it (a forked child of the process; see modes/watch.c), never on the engine fed on.
 */
int tl_engine_publish(struct tl_engine *eng, struct tl_outdir *out, struct tl_err *err);
/** The model as it is so far (the diagnosis's facts are in; tl_diag_finish() not done). */
const struct tl_model *tl_engine_model(const struct tl_engine *eng);
/**
 * The end of the log: its last entry, the diagnosis finished, the sinks finished, the Stats
 * line. truncated: the compressed format ("gzip", "zstd") whose data was cut off, else NULL.
 * rc: how feeding went (not 0: the sinks are not finished). *res is filled either way;
 * returns rc, or -1 when finishing failed.
 */
int tl_engine_finish(struct tl_engine *eng, const char *truncated, int rc,
                     struct tl_engine_result *res, struct tl_err *err);
void tl_engine_free(struct tl_engine *eng);

/**
 * Run the log of job through its sinks: every entry decoded into a typed record, handed to
 * each sink, then to the model; at the end the diagnosis finished, the sinks finished, and
 * the Stats line printed. The output is neither committed nor aborted: the caller does that.
 * *res is filled either way.
 */
int tl_engine_run(const struct tl_engine_job *job, struct tl_engine_result *res,
                  struct tl_err *err);

/** The public counts of a diagnosis (tl_diag_finish() done). */
void tl_counts_of(struct tl_counts *out, const struct tl_diag *d);
/** c added to sum (of several logs); a sum starts with zero counts and compile_time_s -1 (no
 * compile time known), which the first log that knows its compile time replaces. */
void tl_counts_add(struct tl_counts *sum, const struct tl_counts *c);

/** What made a report of the log at path (NULL: a buffer) named name: the version, the
 * revision, opt->command_line, and the file's size and modification time. */
void tl_runinfo_fill(struct tl_runinfo *ri, const struct tl_options *opt, const char *path,
                     const char *name);

#endif
