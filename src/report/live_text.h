/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live view of a job's compiler (`tlparse --watch`) as text for a terminal or a CI log:
 * one complete line per event (a recompile, a new graph break, a specialization, a failure,
 * the recompile limit hit, an export problem, a restart), with where it happened and its
 * advice, and a header line per log with its counts. Log text is made printable; colours only
 * when asked. It formats; the watch mode decides what is new and where the lines go.
 */
#ifndef TL_REPORT_LIVE_TEXT_H
#define TL_REPORT_LIVE_TEXT_H

#include "base/config.h"
#include "base/buf.h"
#include "model/diagnosis.h"

#include <stdbool.h>
#include <stdint.h>

/* The recompile limit of PyTorch when the log does not say (torch._dynamo.config). */
#define TL_LIVE_DEFAULT_LIMIT 8

/* What a line is about: a log of the job ("rank 3", or the file's name) and whether to paint. */
struct tl_live_who {
    const char *label; /* "rank 3", "train.log"; NULL: the only log */
    bool color;
};

/** A recompile of r: its nth compilation, the guard that failed (may be NULL), the compile id
 * it made (may be NULL), and how far it is from the limit. */
void tl_live_recompile(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                       const struct tl_diag_recompile *r, const struct tl_diag_guard *g,
                       const char *cid);
/** A finding seen for the first time (index into its kind's array of d). */
void tl_live_finding(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                     enum tl_diag_finding_kind kind, uint32_t index);
/** The counts of a log so far: compile ids, graph breaks, recompiles, failures, compile time,
 * and the function closest to the recompile limit. */
void tl_live_header(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d);

#endif
