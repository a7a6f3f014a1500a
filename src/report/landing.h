/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files a multi-rank run writes beside the rank_N/ folders (spec modes.md §1.7-1.14): the
 * landing page index.html, runtime_estimations.json, chromium_trace_with_runtime.json,
 * collective_schedules.json, and each rank's collectives_parity.json. They read the analyses
 * of model/ranks.h only. JSON in serde_json's pretty layout (fields in the spec's order for
 * records, keys sorted for trace events), no trailing newline.
 */
#ifndef TL_LANDING_H
#define TL_LANDING_H

#include "base/config.h"
#include "base/buf.h"
#include "model/ranks.h"
#include "model/runinfo.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_landing {
    const char *custom_header_html; /* raw, by design */
    const struct tl_ranks *ranks;
    bool has_chromium;             /* the combined chromium_events.json was written */
    const char *redacted;          /* NULL, or how the ranks' reports were redacted ("--redact") */
    const struct tl_runinfo *info; /* the footer: what made the report; NULL: none */
};

/**
 * index.html of a multi-rank run (§1.14), appended to out. It leads with the heading, a verdict
 * (the ranks without a report, "Rank N: no report (why)"; for each kind that diverges, where
 * each group of ranks first parts from the main group: the graph, and for collectives the op;
 * or that the ranks agree) and the table of ranks (status, counts, a link to each report).
 * Below them, the spec's sections: the divergence details (its warning box, compile ids in
 * numeric order, [-/-] said as entries without a compile id), the combined traces, the
 * runtime, execution-order and tensor-metadata analyses, then (our addition) "Diagnosis across
 * ranks" when there are p->ranks->divergences, and the footer. Red marks only what can hang a
 * job. Everything from a log is escaped; p->custom_header_html is inserted raw.
 */
void tl_page_landing(struct tl_buf *out, const struct tl_landing *p);

/* The JSON files are appended to out in serde_json's pretty layout without a final newline;
 * records with no ops and ranks without a report are left out ("[]" when nothing is left). */

/** runtime_estimations.json (§1.8): every runtime record of every rank, in rank order. */
void tl_ranks_runtime_json(struct tl_buf *out, const struct tl_ranks *r);
/** chromium_trace_with_runtime.json (§1.8): the ops' events, then per rank its process
 * events, then per rank its threads (graphs) in the order of the reference's hash map. */
void tl_ranks_runtime_trace_json(struct tl_buf *out, const struct tl_ranks *r);
/** collective_schedules.json (§1.10). */
void tl_ranks_schedules_json(struct tl_buf *out, const struct tl_ranks *r);

/* One finding of collectives_parity.json (§1.11 step 7). */
struct tl_parity_entry {
    const char *graph;      /* folder name */
    const char *compile_id; /* its key, or "unknown" */
    uint64_t offset, missing_waits;
};

/** rank_N/collectives_parity.json (§1.11 step 8); a NULL compile_id is written "unknown". */
void tl_parity_json(struct tl_buf *out, const struct tl_parity_entry *e, size_t n);

#endif
