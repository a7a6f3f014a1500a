/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live view of a job's compiler (`tlparse --watch`) as text for a terminal or a CI log:
 * one entry per event (a recompile, a new graph break, a specialization, a failure, the
 * recompile limit hit, an export problem, a restart), led by what matters: what happened,
 * where in the user's code and the compile id; then what PyTorch said (its reason, the guard
 * that failed) and the fix of its advice. For a CI log an entry is one complete line; for a
 * terminal it is wrapped to the terminal's width under a hanging indent, so that the place and
 * the fix are always seen. A header line per log gives its counts. Log text is made printable;
 * colours only when asked. It formats; the watch mode decides what is new and where the lines go.
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

/* How an entry is written: about which log ("rank 3", or the file's name), painted or not, and
 * the width to wrap it to. */
struct tl_live_who {
    const char *label; /* "rank 3", "train.log"; NULL: the only log */
    bool color;
    unsigned width; /* 0: one line however long (a CI log); else wrapped to this many columns */
};

/** A recompile of r (its count and where it is defined; the guard that failed, may be NULL;
 * the compile id it made, may be NULL), and how far it is from the limit. */
void tl_live_recompile(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                       const struct tl_diag_recompile *r, const struct tl_diag_guard *g,
                       const char *cid);
/** A recompile said by its recompile_reasons, its compilation still going on. */
void tl_live_recompile_early(struct tl_buf *out, const struct tl_live_who *who,
                             const struct tl_diag *d, const struct tl_diag_early *e);
/** A finding seen for the first time (index into its kind's array of d). */
void tl_live_finding(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                     enum tl_diag_finding_kind kind, uint32_t index);
/** The counts of a log so far: compile ids, graph breaks, recompiles (with those said by their
 * recompile_reasons and still compiling), failures, compile time,
 * the function closest to the recompile limit, and the routine guards (routine: how many of
 * d's specializations are, counted by the caller; 0 leaves them out). One line, not wrapped. */
void tl_live_header(struct tl_buf *out, const struct tl_live_who *who, const struct tl_diag *d,
                    uint32_t routine);

/**
 * The first words of a graph break's reason that say what broke: PyTorch's preamble ("Graph
 * break in user code at F:L", "Graph Break Reason: Encountered graph break when attempting
 * to trace CALL: ...:", "Unsupported: ") left out, the first line that remains, at most max
 * bytes (cut at a character, with an ellipsis). Made printable.
 */
void tl_live_reason(struct tl_buf *out, const char *reason, size_t max);

/**
 * text (one line; its own SGR colour sequences are zero-width) wrapped at spaces to width
 * columns: the first line as it is, the next ones after indent spaces; a word longer than a
 * line is cut. Each line ends with "\n". Columns are counted in code points.
 */
void tl_live_wrap(struct tl_buf *out, const char *text, size_t n, unsigned width, unsigned indent);

#endif
