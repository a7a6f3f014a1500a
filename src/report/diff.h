/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `tlparse diff` in its three forms: JSON (schema tlparse-diff/1, see README), the plain-text
 * summary (colour optional) and the HTML page (tl_diff/index.html). All three say the same
 * things in the same order: what got worse first (new failures, recompiles, graph breaks,
 * specializations), then what changed and what was fixed, then frames compiled more or fewer
 * times, compile time per frame and in total, the caches, and the graphs whose size changed.
 * They read the diff model only.
 */
#ifndef TL_REPORT_DIFF_H
#define TL_REPORT_DIFF_H

#include "base/config.h"
#include "base/buf.h"
#include "model/diff.h"
#include "model/runinfo.h"

#include <stdbool.h>

/** The diff as JSON (tlparse-diff/1), pretty, ending with a newline. */
void tl_diff_json(struct tl_buf *out, const struct tl_diff *d);

/**
 * The diff as plain text; with color, ANSI colours (new in red, changed in amber, fixed in
 * green). The sides' paths and kinds; a headline ("1 new recompile, 1 graph break fixed;
 * compile time 41.20 s -> 12.10 s (-70.6%)"); per category a line per finding
 * ("  NEW      forward at /m.py:15: TEXT (0 -> 2)"; a moved one "at a.py:9 (was a.py:7)"; its
 * text's first line, at most 200 characters); the frames compiled more or fewer times; the
 * compile time of at most 10 frames whose time changed; the cache counts that differ; the
 * graphs that changed. Sections with nothing are left out. Log text has its control characters
 * replaced ('?').
 */
void tl_diff_text(struct tl_buf *out, const struct tl_diff *d, bool color);

/* Where each side's report is, seen from the diff page. */
struct tl_diff_links {
    /* href of the side's report folder, ending in '/' ("before/", "../../runs/a/tl_out/");
     * NULL when the side has none. A compile id of a side links to its report's index
     * ("before/index.html#[0/1]"), or, for a TORCH_LOGS side, its log
     * ("before/log.html#[0/1]"). */
    const char *before, *after;
};

/**
 * The diff page (index.html of the diff folder); info (may be NULL) goes in its footer, links
 * (may be NULL) says where the sides' reports are. Self-contained (no script, no network),
 * the text's order and content, with at most 30 frames' compile times; every string of a side
 * escaped.
 */
void tl_diff_page(struct tl_buf *out, const struct tl_diff *d, const struct tl_diff_links *links,
                  const struct tl_runinfo *info);

#endif
