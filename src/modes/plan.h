/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A run's plan: the caller's options resolved once into what the run does (its mode, its
 * input, where its output goes), checked against the table of what goes together. tl_run()
 * makes the plan and hands it to the mode; a run made for another one (the folder a bundle is
 * made of, one side of a diff, the report a watch keeps current) derives its plan from the
 * caller's with a named step here, never by patching a copy of the options in place.
 */
#ifndef TL_MODES_PLAN_H
#define TL_MODES_PLAN_H

#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>

/* What a run does. */
enum tl_plan_mode {
    TL_PLAN_LOG,           /* one log (a folder's newest) into its report */
    TL_PLAN_LOG_SUMMARY,   /* one log's diagnosis (--summary, --json): no report */
    TL_PLAN_STORED,        /* the diagnosis a report folder holds (its summary.json) */
    TL_PLAN_RANKS,         /* every rank's report and the landing page across them */
    TL_PLAN_RANKS_SUMMARY, /* every rank's diagnosis and what differs across them */
    TL_PLAN_LANDING,       /* the landing page of rank_N/ reports made already */
    TL_PLAN_RANK_ONLY,     /* one rank's report and its summary, for a later landing page */
};

/* Where its output goes. */
enum tl_plan_output {
    TL_PLAN_OUT_NONE,          /* nothing written: the diagnosis in the result */
    TL_PLAN_OUT_FOLDER,        /* the report folder */
    TL_PLAN_OUT_BUNDLE,        /* straight into the bundle file, no folder */
    TL_PLAN_OUT_FOLDER_BUNDLE, /* the folder, then the bundle made of it */
};

/* --serve's part of a run's options, taken out of them: the runs it makes serve nothing. */
struct tl_plan_serve {
    const char *root; /* what is served: the report folder, or the single-page bundle; NULL:
                         nothing (no --serve) */
    const char *bind; /* as tl_options.serve_bind, has_port, port, serving, serving_ctx */
    bool has_port;
    uint16_t port;
    void (*serving)(void *ctx, const char *url, const char *root, const struct tl_result *res);
    void *ctx;
};

struct tl_plan {
    enum tl_plan_mode mode;
    enum tl_plan_output output;
    /* The options the mode reads: the caller's, with PATH and OUT without trailing slashes
     * and out_dir given its default where a folder is written. */
    struct tl_options opt;
    const char *folder;         /* the report folder written (out_dir, "tl_out", or PATH for the
                                   landing page); NULL when none is */
    size_t folder_ranks;        /* PATH is a folder of that many rank logs (0: not one) */
    struct tl_plan_serve serve; /* --serve, taken out of opt */
    char *own[2];               /* what the plan allocated */
};

/**
 * The caller's options as this library's struct (opt->size bytes of them, the rest zero), or
 * -1 with err filled when they are larger than it knows (a program built against a newer
 * header); *dst's message callback is then none (stderr).
 */
int tl_options_take(struct tl_options *dst, const struct tl_options *opt, struct tl_err *err);

/**
 * The plan of a run of opt, or -1 with err filled (TL_ERR_USAGE: options that do not go
 * together, named as the caller names them: its flags for a command line, the fields of
 * struct tl_options for a library call). Release with tl_plan_release.
 */
int tl_plan_make(struct tl_plan *p, const struct tl_options *opt, struct tl_err *err);
/** opt's serve options into s (root: what is served, when opt->serve), and out of opt. */
void tl_plan_take_serve(struct tl_plan_serve *s, struct tl_options *opt, const char *root);
/** Whether opt's options go together (the table tl_plan_make reads), for a run that makes no
 * plan of its own (a watch): 0, or -1 with err filled as tl_plan_make says it. */
int tl_plan_check(const struct tl_options *opt, struct tl_err *err);
/** The plan of one log given as bytes (tl_feed_new): a report (folder or bundle, not both) or
 * a diagnosis; out_dir set to the folder written. */
int tl_plan_make_stream(struct tl_plan *p, const struct tl_options *opt, struct tl_err *err);
void tl_plan_release(struct tl_plan *p);

/** The plan of the folder a bundle is made of (TL_PLAN_OUT_FOLDER_BUNDLE): the same run, with
 * no bundle. */
void tl_plan_unbundled(struct tl_plan *sub, const struct tl_plan *p);

/* Where a derived run's messages go. */
struct tl_plan_messages {
    void (*fn)(void *ctx, enum tl_message_kind kind, const char *line);
    void *ctx;
};

/** The options of one rank of a multi-rank run: the run's, with no progress and its messages
 * to msg (captured, printed in rank order) when ranks are read side by side. */
void tl_plan_rank_options(struct tl_options *o, const struct tl_options *opt, bool side_by_side,
                          struct tl_plan_messages msg);

/** The options of a watch's engine of one followed log: no output, no threads, no progress,
 * messages to msg (the final report says what is wrong with a log). */
void tl_plan_live_options(struct tl_options *o, const struct tl_options *opt,
                          struct tl_plan_messages msg);

/** The options of one side of a diff: its log (path), read into a report (report) or into
 * its diagnosis as JSON, with the diff's command line, threads and cancel flag. */
void tl_plan_diff_side_options(struct tl_options *o, const struct tl_diff_options *d,
                               const char *path, bool report, struct tl_plan_messages msg);

/** The options of a run that only diagnoses what opt's run reads (no report, no progress bar,
 * messages to message): what a gate on the findings needs. */
void tl_plan_diagnosis_options(struct tl_options *o, const struct tl_options *opt,
                               enum tl_summary_mode summary);

#endif
