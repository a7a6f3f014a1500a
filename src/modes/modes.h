/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the modes share (not public): each mode (one log, the ranks, diff, bundle, entries)
 * picks its sinks and its output and hands them to the engine; these are the steps they
 * have in common: open the log, tell what it is, choose the sinks of a trace's report, run
 * a log (trace or TORCH_LOGS text) into an output, apply --strict.
 */
#ifndef TL_MODES_MODES_H
#define TL_MODES_MODES_H

#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/err.h"
#include "engine/engine.h"
#include "engine/messages.h"
#include "input/reader.h"
#include "input/sniff.h"
#include "model/ranks.h"
#include "output/outdir.h"
#include "sinks/sinks.h"

#include <stdbool.h>

/* ---- what the modes share (common.c) ----------------------------------------------------------
 */

/** The log to read, opened: opt->path (a folder gives its newest log, and msg says which;
 * "-" is standard input) or opt->mem_input. *path: the file read (malloc'd), NULL for a
 * buffer. */
int tl_open_log(const struct tl_options *opt, struct tl_messages *msg, char **path,
                struct tl_reader **reader, struct tl_err *err);
/** The log of opt->open_logs whose path is path (compared with repeated and trailing slashes
 * taken out), or NULL. */
const struct tl_open_log *tl_open_log_find(const struct tl_options *opt, const char *path);
/** Whether log (of opt->open_logs) is a file of folder. */
bool tl_open_log_in(const struct tl_open_log *log, const char *folder);
/** Open the log file at path (opt->complete_lines: up to its last newline as of now; held in
 * opt->open_logs: read from its descriptor). */
int tl_log_open_file(const struct tl_options *opt, const char *path, struct tl_reader **reader,
                     struct tl_err *err);
/** Whether the log is TORCH_LOGS text rather than a trace, told by its first 256 KiB. */
int tl_log_is_text(struct tl_reader *reader, bool *text, struct tl_err *err);
/**
 * What the log is, told by its first 256 KiB (input/sniff.h): a trace, TORCH_LOGS text or an
 * empty file; anything else is an error (TL_ERR_INPUT, "NAME is not a TORCH_TRACE log or
 * TORCH_LOGS text: WHY"). Call it before reading lines.
 */
int tl_log_sniff(struct tl_reader *reader, const char *name, enum tl_sniff_kind *kind,
                 struct tl_err *err);
/** The same error, after the engine ran, for a trace none of whose lines was an entry. */
int tl_log_check_entries(const char *name, const struct tl_engine_result *res, struct tl_err *err);

/* What a log's report is made of, for the sinks' parameters (they must outlive the run). */
struct tl_log_sinks {
    struct tl_report_params report;
    struct tl_rawjsonl_params rawjsonl;
    struct tl_rawlog_params rawlog;
    struct tl_rank_params rank;
    char held_path[32]; /* "/proc/self/fd/N" of a log held open (raw.log's copy) */
};
/**
 * The sinks of a log's report into job->out. TORCH_LOGS text (job->text): its pages, raw.log
 * and summary.json. A trace, in the order they see each record: the report
 * (or export's), the custom parsers right after it (their files are numbered in its
 * sequence), the payloads after the writers of files (it writes what none of them did),
 * raw.jsonl and raw.log (not when redacting), provenance, and summary.json, or a rank's
 * summary when rank is not NULL. p holds their parameters. Nothing with no output.
 */
void tl_log_sinks(struct tl_engine_job *job, struct tl_log_sinks *p,
                  const struct tl_rank_params *rank);

/* ---- one log (single.c) -----------------------------------------------------------------------
 */

/** One log into its report or its --summary (opt->path; ranks: the rank logs its folder
 * holds, when it is one, for a message): the exit code. log_read (may be NULL): with
 * opt->all_ranks_counts, the log of that folder whose report was written without error
 * (malloc'd), for tl_ranks_counts. */
int tl_single_run(const struct tl_options *opt, size_t ranks, struct tl_result *res,
                  char **log_read);

/* A log's run through the engine, set up: its job, its sinks' parameters, and what it
 * keeps of the finished model (--summary's text, malloc'd). It must outlive the run. */
struct tl_log_run {
    struct tl_engine_job job;
    struct tl_log_sinks params;
    char *summary;
};
/** The run of a log told to be TORCH_LOGS text or a trace: the sinks of its report into out
 * (NULL: none, its diagnosis kept as opt->summary says). A text log cannot be redacted. */
int tl_log_run_init(struct tl_log_run *lr, const struct tl_options *opt, struct tl_reader *reader,
                    const char *path, const char *name, struct tl_outdir *out, bool text,
                    struct tl_err *err);

/**
 * One log into out (NULL: no output, the diagnosis in res->summary as opt->summary says): a
 * structured trace or TORCH_LOGS text, told apart by its first 256 KiB. Takes the reader (it
 * is freed). The output is neither committed nor aborted.
 */
int tl_run_log(const struct tl_options *opt, struct tl_reader *reader, const char *path,
               struct tl_outdir *out, struct tl_engine_result *res, struct tl_err *err);

/* ---- the ranks of a folder fed as their logs come (ranks.c, for --watch) ---- */

/* A multi-rank report (--all-ranks-html) whose rank logs are fed as they are written. */
struct tl_ranks_live;
/** Its report folder opened (opt->out_dir, hidden until tl_ranks_live_go_live) with the extra
 * files; opt->path: the folder of rank logs. opt is copied. NULL with err when it cannot be. */
struct tl_ranks_live *tl_ranks_live_new(const struct tl_options *opt, struct tl_err *err);
/**
 * A rank log of the folder, fed from now on to the engine returned (owned by rl; its sinks are
 * a rank's, into rank_N/). user is given back by the hooks. NULL (err says why) for a second
 * log of a rank already fed, or when the rank's folder cannot be made.
 */
struct tl_engine *tl_ranks_live_add(struct tl_ranks_live *rl, uint32_t rank, const char *path,
                                    void *user, struct tl_err *err);
/** The rank fed by user's log forgotten, as if it was never added: its engine freed, its
 * folder removed (the log started over: tl_ranks_live_add feeds it again from its start). 0,
 * or -1 (err) when its folder cannot be removed. Not while a generation is being made. */
int tl_ranks_live_forget(struct tl_ranks_live *rl, void *user, struct tl_err *err);
/** Whether finishing now makes the batch run's report: the logs fed are the ones it would read,
 * and no engine diverged (tl_engine_diverged). */
bool tl_ranks_live_matches(struct tl_ranks_live *rl);
/** A generation: every rank's pages and the landing page (without the combined events) put in
 * place, each at once. It spends the engines: call it in a forked copy of the process. */
int tl_ranks_live_snapshot(struct tl_ranks_live *rl, struct tl_err *err);
/** The report folder in place before it is finished (tl_outdir_publish). */
int tl_ranks_live_go_live(struct tl_ranks_live *rl, struct tl_err *err);
/** Replace the file name at the top of the report at once (live.js). */
int tl_ranks_live_replace(struct tl_ranks_live *rl, const char *name, const void *p, size_t n,
                          struct tl_err *err);
/** Give the report up (tl_outdir_detach); the engines may still be fed and finished. */
void tl_ranks_live_drop(struct tl_ranks_live *rl);
/* What tl_ranks_live_finish tells its caller as it goes. */
struct tl_ranks_live_hooks {
    void (*rank_ended)(void *user);   /* a rank's engine finished (its model is whole) */
    void (*before_commit)(void *ctx); /* the last files the caller adds go in now */
    void *ctx;
};
/** The end: the ranks finished in the order a batch run takes them, the landing page, the
 * report committed; the exit code, with *res filled as tl_run() fills it. */
int tl_ranks_live_finish(struct tl_ranks_live *rl, const struct tl_ranks_live_hooks *h,
                         struct tl_result *res);
/** Free rl and its engines (a report not finished is aborted; a published one stays). */
void tl_ranks_live_free(struct tl_ranks_live *rl);

/* ---- a log followed live (feed.c, for --watch) ---- */

/**
 * A feed (struct tl_feed, tl_feed_bytes, tl_feed_finish) of the log at path as the job writes
 * it, told already to be TORCH_LOGS text or a trace: with report, its report into opt->out_dir
 * (opened now, the extra files in it; the footer's size and time read at the end), else the
 * diagnosis only. opt (taken, as the plan made it) must outlive the feed; a failure is said
 * through opt->message and leaves tl_feed_engine() NULL.
 */
struct tl_feed *tl_feed_live(const struct tl_options *opt, const char *path, bool text,
                             bool report);
/** Its engine (the model, tl_engine_settle), NULL once it failed; after tl_feed_finish the
 * finished engine stays, until tl_feed_free. */
struct tl_engine *tl_feed_engine(struct tl_feed *f);
/** Whether it writes a report (and has not failed nor dropped it). */
bool tl_feed_has_report(const struct tl_feed *f);
/** Whether its report could not be written any more (err: why): the log is still read, and
 * tl_feed_finish fails with it. */
bool tl_feed_report_failed(const struct tl_feed *f, struct tl_err *err);
/** The report in place before it is finished (tl_outdir_publish); 0 when it is already. */
int tl_feed_go_live(struct tl_feed *f, struct tl_err *err);
/** Replace the file name of the report at once (live.js). */
int tl_feed_replace(struct tl_feed *f, const char *name, const void *p, size_t n,
                    struct tl_err *err);
/**
 * A generation of the live report: the pages that show the log so far (tl_engine_publish)
 * made in memory and put in place of the report's, each at once. It spends the engine: call
 * it in a forked copy of the process, which then ends.
 */
int tl_feed_snapshot(struct tl_feed *f, struct tl_err *err);
/** Give the report up (its log is still read, for the diagnosis): tl_outdir_detach. */
void tl_feed_drop_report(struct tl_feed *f);
/** fn is called by tl_feed_finish once the engine finished, before the report is committed
 * (counts: the diagnosis's; NULL when finishing failed): the last files the caller adds. */
void tl_feed_on_end(struct tl_feed *f,
                    void (*fn)(void *ctx, struct tl_feed *f, const struct tl_counts *counts),
                    void *ctx);

/**
 * A live report's generation of the engine eng writing into out: its pages (tl_engine_publish)
 * rendered into memory, with out's own files read back, then put in place in out, each at once.
 * It spends the engine (a forked copy's).
 */
int tl_live_pages(struct tl_outdir *out, struct tl_engine *eng, struct tl_err *err);
/** The files of the memory output mem put in place in out, each at once (replaced), when rc is
 * 0; mem is released either way. Returns rc, or -1 when a file could not be put. */
int tl_live_put(struct tl_outdir *out, struct tl_outdir *mem, int rc, struct tl_err *err);

/** folder's "index.html", as the result names it (malloc'd). */
char *tl_index_path(const char *folder);
/** The output of a log's report: opt->bundle (straight into it) or the folder opt->out_dir
 * (set), as a hidden temporary folder committed by tl_output_end. */
int tl_output_open(const struct tl_options *opt, struct tl_outdir *out, struct tl_err *err);
/** The warning that unfinished report folders of killed runs were removed, when they were. */
void tl_output_say_leftovers(const struct tl_outdir *out, struct tl_messages *msg,
                             const char *folder);
/** opt->extra_files into a report folder just opened (the report's own files come after them
 * and win a name they share). */
int tl_output_extras(const struct tl_options *opt, struct tl_outdir *out, struct tl_err *err);
/**
 * The end of every mode's output, the one path: with rc 0 (and no Ctrl-C since) the output
 * is committed into place, else removed, and nothing else has changed. Returns 0, or -1 with
 * err filled (the run's error, an interruption, or the commit's).
 */
int tl_output_end(struct tl_outdir *out, int rc, volatile sig_atomic_t *cancel, struct tl_err *err);

/** Whether --strict or --strict-compile-id fail on the log (the report is written anyway). */
bool tl_strict_failed(const struct tl_options *opt, const struct tl_engine_result *res);
/**
 * The log holds nothing to check and opt wants it to (--strict, --fail-on): say so, naming
 * msg->input ("tlparse: error: --fail-on: empty.log holds nothing to check: it is empty"),
 * and return true. The report or diagnosis is written all the same.
 */
bool tl_nothing_to_check(const struct tl_options *opt, struct tl_messages *msg,
                         const struct tl_engine_result *res);
/** Say when they do, and when the log holds nothing to check: the exit code (TL_EXIT_ERROR or
 * TL_EXIT_OK). */
int tl_strict_exit(const struct tl_options *opt, struct tl_messages *msg,
                   const struct tl_engine_result *res);

/** The diagnosis as --summary or --json print it (malloc'd). */
char *tl_summary_of(const struct tl_options *opt, const struct tl_diag *d, const char *input,
                    const char *kind, const struct tl_runinfo *info);

/** --summary and --json of a report folder (stored.c): the diagnosis its summary.json holds,
 * in result.summary; the exit code. */
int tl_stored_run(const struct tl_options *opt, struct tl_result *res);

/* ---- multi-rank runs (ranks.c) ----------------------------------------------------------------
 */

/** --all-ranks-html (with or without --from-summaries), and --summary or --json of a folder of
 * rank logs (every rank's diagnosis, and across them, in result.summary): the exit code. */
int tl_ranks_run(const struct tl_options *opt, struct tl_result *res);
/**
 * options.all_ranks_counts: every rank of the folder opt->path diagnosed for a gate (errors
 * said, nothing else), its counts and exit code in res's folder_* fields; the log at known
 * (the report's) is not read again: its counts are known_counts. Returns that exit code.
 */
int tl_ranks_counts(const struct tl_options *opt, const char *known,
                    const struct tl_counts *known_counts, struct tl_result *res);
/** --rank-only: one rank's report and its summary.json; the exit code. */
int tl_rank_only_run(const struct tl_options *opt, struct tl_result *res);

/* ---- --bundle (bundle.c) ----------------------------------------------------------------------
 */

enum { TL_BUNDLE_ZIP = 1, TL_BUNDLE_HTML = 2 };
/** What kind of bundle path names, by its extension (.zip, .html), or -1 (a usage error). */
int tl_bundle_kind(const char *path, struct tl_err *err);
/** Whether path may be written: a known kind, and not there yet unless overwrite (and then a
 * file, not a folder). */
int tl_bundle_check(const char *path, bool overwrite, struct tl_err *err);
/** The report folder as one file at path, written beside it and renamed into place; a .zip
 * holds it in one folder named after the file (r.zip: r/...). */
/**
 * Open out as the bundle path itself (.zip or .html, by its extension): the report's files go
 * straight into it, with no folder on disk; written beside path and renamed into place by
 * tl_outdir_commit. path must not exist unless overwrite.
 */
int tl_bundle_open(struct tl_outdir *out, const char *path, bool overwrite, struct tl_err *err);
int tl_bundle_write(const char *folder, const char *path, bool overwrite,
                    volatile sig_atomic_t *cancel, struct tl_err *err);

#endif
