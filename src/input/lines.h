/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lines out of bytes fed as they arrive (a file read in chunks, a log still being written):
 * each complete line goes to a callback, without its "\n" and one "\r" before it; a line cut
 * by a chunk's end is carried to the next feed; a line longer than the limit is skipped
 * without being held (its length and first byte are given). Each chunk is checked for UTF-8 in
 * one pass, so that its lines need no check of their own (the engine's was 8% of a run).
 * Knows nothing of the log format.
 */
#ifndef TL_INPUT_LINES_H
#define TL_INPUT_LINES_H

#include "base/config.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/str.h"

#include <stdbool.h>
#include <stdint.h>

/* What the callback is given. */
struct tl_line {
    struct tl_str text; /* the line (a view, valid during the call); NULL p for a long one */
    uint64_t lineno;    /* 1-based */
    uint64_t len;       /* text's length (for a long line, the bytes skipped) */
    bool long_line;     /* over the limit: skipped */
    char first;         /* its first byte ('\0' for an empty line) */
    bool utf8;          /* text is known to be well-formed UTF-8; false: not checked */
};

/** Called with each line; 0, or -1 with err filled to stop. */
typedef int (*tl_line_fn)(void *ctx, const struct tl_line *line, struct tl_err *err);

struct tl_lines {
    size_t max_line;    /* longer lines are skipped */
    struct tl_buf part; /* the start of a line whose end has not come yet */
    bool skipping;      /* that line is over the limit: counted, not held */
    uint64_t skip_len;
    char skip_first;
    uint64_t lineno;        /* lines given so far */
    uint64_t bytes;         /* bytes fed so far */
    const char *valid_end;  /* the chunk being fed is well-formed UTF-8 up to here */
    bool last_unterminated; /* the last line given had no newline (tl_lines_finish) */
};

/** Lines at most max_line bytes long are given whole. Release with tl_lines_release. */
void tl_lines_init(struct tl_lines *l, size_t max_line);
void tl_lines_release(struct tl_lines *l);
/** Feed n bytes: every line they complete goes to fn, in order. -1: fn's error. */
int tl_lines_feed(struct tl_lines *l, const char *p, size_t n, tl_line_fn fn, void *ctx,
                  struct tl_err *err);
/** The end of the input: a last line without a newline goes to fn (its "\r" kept). */
int tl_lines_finish(struct tl_lines *l, tl_line_fn fn, void *ctx, struct tl_err *err);
/** Whether a line has begun and not ended (a log being written stops mid-line). */
bool tl_lines_pending(const struct tl_lines *l);

#endif
