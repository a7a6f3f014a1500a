/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis in its three forms: summary.json (and `tlparse --json`), the plain-text
 * summary of `tlparse --summary` (colour optional), and the Diagnosis section at the top of
 * index.html. All three list the same findings in the same order, most costly first, each
 * with its explanation and fix. They read the diagnosis model only.
 *
 * One header for the files that make them: summary_json.c (summary.json), summary_ranks.c
 * (what multi-rank runs add), summary_text.c (--summary), page_diagnosis.c and page_shapes.c
 * (the pages), and summary.c (what they share: advice and its placeholders).
 */
#ifndef TL_SUMMARY_H
#define TL_SUMMARY_H

#include "base/config.h"
#include "base/buf.h"
#include "base/json_write.h"
#include "model/diagnosis.h"
#include "model/ranks.h"
#include "model/runinfo.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the diagnosis was made from. */
struct tl_summary_source {
    const char *path; /* the input as given */
    const char *kind; /* "torch_trace" or "torch_logs" */
    /* A rank of a multi-rank run: what the landing page needs from it, written as the
     * "rank" member (read back by tl_rank_summary_parse); NULL for other runs. */
    const struct tl_rank_summary *rank;
    const struct tl_runinfo *info; /* "generated_by": what made it; NULL: not written */
};

/* ---- summary.json (summary_json.c, summary_ranks.c) ---- */

/** summary.json: schema "tlparse-summary/1" (see README), pretty, ends with a newline. */
void tl_summary_json(struct tl_buf *out, const struct tl_diag *d,
                     const struct tl_summary_source *src, bool pretty);

/**
 * summary.json of a multi-rank run: schema "tlparse-ranks/1" (see README): each rank with its
 * counts and report, the divergences across ranks (a finding each, with the ranks), and the
 * groups of the landing page. It names no folder: the same ranks give the same file, made on
 * one machine or from the summaries of many.
 */
void tl_summary_json_ranks(struct tl_buf *out, const struct tl_ranks *r);

/** The "rank" member of a rank's summary.json: everything the landing page reads of it. */
void tl_summary_json_rank(struct tl_json_doc *w, const struct tl_rank_summary *r);

/* ---- --summary and --json of a folder of rank logs (summary_ranks.c) ---- */

/* What a diagnosis counted (those of the public struct tl_counts that these say). */
struct tl_summary_counts {
    uint64_t compile_ids;
    uint64_t graph_breaks;
    uint64_t recompiles;
    uint64_t specializations;
    uint64_t failures;
    uint64_t recompile_limits;
    uint64_t export_problems;
};

/* A rank of the folder. Strings borrowed. */
struct tl_summary_rank_diag {
    uint32_t rank;
    const char *log;       /* its log's file name */
    const char *error;     /* why its log could not be read, or NULL */
    const char *diagnosis; /* its own --summary text or --json document, or NULL */
    bool read;             /* its log was read: counts holds its diagnosis */
    struct tl_summary_counts counts;
    struct tl_ledger_lines ledger; /* where its time went */
};

/* The folder: its path as given, its ranks in rank order and their counts summed. */
struct tl_ck_across;

struct tl_summary_rank_folder {
    const char *path;
    const struct tl_summary_rank_diag *ranks;
    size_t n;
    struct tl_summary_counts total;
    const struct tl_ck_across *cache_across; /* the misses across ranks; NULL: none */
};

/** --json of the folder: schema "tlparse-ranks-diagnosis/1" (see README), each rank's own
 * --json inside; pretty, ends with a newline. */
void tl_summary_json_rank_folder(struct tl_buf *out, const struct tl_summary_rank_folder *f);

/** --summary of the folder: the ranks together (counts, what some did and others did not, the
 * ranks not read), then each rank's own --summary. */
void tl_summary_text_rank_folder(struct tl_buf *out, const struct tl_summary_rank_folder *f);

/* ---- --summary (summary_text.c) ---- */

/** The text summary; with color, ANSI colours for headings and severities. */
void tl_summary_text(struct tl_buf *out, const struct tl_diag *d,
                     const struct tl_summary_source *src, bool color);

/* ---- pages (page_diagnosis.c, page_shapes.c) ---- */

/**
 * The Diagnosis section of an index page. A compile id links to cid_href followed by the
 * compile id ("#" for the anchors of a trace's index, "log.html#" for a text log's; NULL: not
 * linked, on a page that lists none); with
 * line_href ("log.html#L"), a finding also links the log line that says it.
 */
void tl_page_diagnosis(struct tl_buf *out, const struct tl_diag *d, const char *cid_href,
                       const char *line_href);

/**
 * dynamic_shapes.html: per compile id, the symbols made for dynamic sizes and the guards and
 * specializations on them, with their symbols and user lines. Compile ids link to cid_href
 * followed by the id (NULL: not linked). Whether a report has one: tl_page_shapes_wanted().
 */
void tl_page_shapes(struct tl_buf *out, const struct tl_diag *d, const char *cid_href);
static inline bool tl_page_shapes_wanted(const struct tl_diag *d)
{
    return d->ndynamic || d->nspecs;
}
/** The paragraph of an index that links dynamic_shapes.html (nothing when there is none). */
void tl_page_shapes_link(struct tl_buf *out, const struct tl_diag *d);

/* ---- the recompile forecast (forecast.c): d->fframes in each form ---- */

/** The forecast fields of frame key's entry of summary JSON's "frames" (nothing when the frame
 * was neither compiled more than once nor run in eager mode). */
void tl_summary_forecast_json(struct tl_json_doc *w, const struct tl_diag *d, const char *key);
/** The entries of "frames" for the frames d->fframes has and d->frames not (a TORCH_LOGS text
 * says a frame ran in eager mode, not that it was compiled). */
void tl_summary_forecast_json_frames(struct tl_json_doc *w, const struct tl_diag *d);
/** --summary's section on the frames compiled more than once or run in eager mode. */
void tl_summary_forecast_text(struct tl_buf *out, const struct tl_diag *d, bool color);
/** The Diagnosis section's part on them: per frame, its guard differences as a table. */
void tl_page_forecast(struct tl_buf *out, const struct tl_diag *d, const char *cid_href);

/* ---- what they share (summary.c) ---- */

/** The advice of a rule with its placeholders filled. */
struct tl_summary_advice {
    struct tl_buf title;
    struct tl_buf explanation;
    struct tl_buf fix;
};

/** Fill f (caller releases it with tl_summary_advice_release) from a and the values v. */
void tl_summary_advice_fill(struct tl_summary_advice *f, const struct tl_advice *a,
                            const struct tl_advice_vars *v);
void tl_summary_advice_release(struct tl_summary_advice *f);

/** The placeholders of a guard's advice, from an example of it (NULL: none). */
void tl_summary_guard_vars(struct tl_advice_vars *v, const char *example);
/** The placeholders of a specialization's advice. */
void tl_summary_spec_vars(struct tl_advice_vars *v, const struct tl_diag_spec *s);
/** The placeholders of a recompile limit's advice; the limit is written into num (n bytes),
 * which v borrows. */
void tl_summary_limit_vars(struct tl_advice_vars *v, const struct tl_diag_limit *l, char *num,
                           size_t n);

/**
 * Why a recompile's guard has more distinct values than recompiles ("... 105 distinct values in
 * all" after 14): PyTorch lists, for each recompile, the failure of every earlier compilation.
 */
extern const char tl_summary_values_why[];

/** "file:line" of a location (file alone without a line; "" when unknown). */
void tl_summary_loc(struct tl_buf *out, const struct tl_diag_loc *l);

/** An export problem's kind for people: "Data dependent error", "Guard evaluated", ... */
const char *tl_summary_export_label(enum tl_export_problem_kind k);

/**
 * The placeholder values of an export problem's advice. What is made for them (the qualified
 * operator name, the torch._check() of a data-dependent condition, the dimension of an
 * evaluated guard) is written into held (caller releases it), which v then borrows.
 */
void tl_summary_export_vars(struct tl_advice_vars *v, const struct tl_diag_export *x,
                            struct tl_buf *held);

/** The placeholders of a failure's advice (the backend its reason names). */
void tl_summary_failure_vars(struct tl_advice_vars *v, const struct tl_diag_failure *f);

/** The placeholders of a graph break's advice: where in PyTorch it broke, written into inside
 * (caller releases it), which v borrows. */
void tl_summary_break_vars(struct tl_advice_vars *v, const struct tl_diag_break *b,
                           struct tl_buf *inside);

/** The placeholders of a restart's advice: what it was for, written into what (caller
 * releases it), which v borrows. */
void tl_summary_restart_vars(struct tl_advice_vars *v, const struct tl_diag_restart *r,
                             struct tl_buf *what);

#endif
