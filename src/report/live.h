/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live page of `tlparse --watch`: live.html, which sits in the report folder beside
 * index.html and shows the report under a status bar, and live.js, the status the watcher
 * rewrites every second or two and the page loads again every second (as a <script>, which
 * works over file://). Only the bytes: writing the files, the swap of the folder and the
 * clock are the watcher's. Depends on base and on the report layer's escapers, assets and page
 * head; knows no model and no file.
 */
#ifndef TL_LIVE_H
#define TL_LIVE_H

#include "base/config.h"
#include "base/buf.h"

#include <stddef.h>
#include <stdint.h>

/* What the watch is doing, as live.js says it ("writing", "idle", "finished", "stopped"). */
enum tl_live_state {
    TL_LIVE_WRITING,  /* the job is writing: new lines came in recently */
    TL_LIVE_IDLE,     /* no new lines for a while, but the job is alive */
    TL_LIVE_FINISHED, /* the job ended and the final report is in place */
    TL_LIVE_STOPPED,  /* the watcher was interrupted: the report is as it was left */
};

/* The headline counts of a report, or of one rank of it. */
struct tl_live_counts {
    uint64_t compile_ids;
    uint64_t graph_breaks;
    uint64_t recompiles;
    uint64_t failures;
};

struct tl_live_rank {
    uint32_t rank;
    struct tl_live_counts counts;
};

/*
 * One live.js. Times are Unix milliseconds of the watcher's clock; the page learns how far its
 * own clock is from it at the moments it sees the heartbeat advance, so that a skewed clock
 * does not make a live watcher look stopped. Strings may hold any bytes (they come from the
 * user and the log).
 */
struct tl_live_status {
    uint64_t generation;   /* the report now in the folder: 1, 2, ... (one per rebuild) */
    int64_t updated_ms;    /* when that report was built */
    int64_t heartbeat_ms;  /* when this live.js was written */
    int64_t last_input_ms; /* when the log last grew (0: unknown), for "no new lines for 3 min" */
    enum tl_live_state state;
    struct tl_live_counts total;
    const struct tl_live_rank *ranks; /* per rank when the job has several (else NULL, 0) */
    size_t nranks;
    bool final;          /* the report of the whole logs, the watch over: nothing more comes */
    const char *input;   /* what is watched, for the bar's tooltip (NULL: not said) */
    const char *message; /* a line for the user, e.g. why the watcher stopped (NULL: none) */
};

/**
 * Append live.html: a page with a slim status bar and the report (index.html of the same
 * folder) in two iframes, one shown and one loading the next generation, swapped once it has
 * loaded. Its script and style are inlined (assets livepage.js and livepage.css). title is
 * escaped (it may come from the log's name); NULL gives "tlparse". The page is the same for
 * every generation: all that changes is in live.js.
 */
void tl_live_page(struct tl_buf *out, const char *title);

/**
 * Append live.js: one call `tlLive({...})` with s as a JSON object (keys generation, updated,
 * heartbeat, last_input, state, final, compile_ids, graph_breaks, recompiles, failures, ranks:
 * an array of {rank, compile_ids, graph_breaks, recompiles, failures}, and input and message
 * when set). The output is ASCII; strings are JSON-escaped and safe in any script context: '<',
 * '>', '&' and every non-ASCII character are written as \u escapes, ill-formed UTF-8 as
 * U+FFFD.
 */
void tl_live_status(struct tl_buf *out, const struct tl_live_status *s);

/** The name of a state in live.js: "writing", "idle", "finished", "stopped". */
const char *tl_live_state_name(enum tl_live_state state);

#endif
