/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Line reader over a log file: plain, gzip or zstd (detected by magic bytes),
 * read in large chunks into one buffer and split with memchr. Lines are views
 * into that buffer, valid until the next call to tl_reader_next() (a line
 * pushed back with tl_reader_unread() stays valid). Memory is the chunk size
 * plus the longest line. Knows nothing of the log format.
 */
#ifndef TL_READER_H
#define TL_READER_H

#include "base/config.h"
#include "base/err.h"
#include "base/str.h"

#include <stdbool.h>
#include <stdint.h>

enum tl_reader_kind {
    TL_READER_PLAIN,
    TL_READER_GZIP,
    TL_READER_ZSTD,
};

struct tl_reader;

/** Called with every decompressed chunk, in order (for copying the log out). */
typedef int (*tl_reader_tee_fn)(void *ctx, const char *p, size_t n, struct tl_err *err);

/** Called once at the end of a compressed input that was cut off ("gzip" or "zstd"), with the
 * number of lines read. */
typedef void (*tl_reader_truncated_fn)(void *ctx, const char *format, uint64_t lines);

/** Open path. Returns 0 and *out (free with tl_reader_free), or -1 and err. */
int tl_reader_open(struct tl_reader **out, const char *path, struct tl_err *err);
/** Open an in-memory log (not copied: p must outlive the reader). */
struct tl_reader *tl_reader_open_mem(const char *p, size_t n);
void tl_reader_free(struct tl_reader *r);

/**
 * Install a tee callback; must be called before the first tl_reader_next(). What
 * tl_reader_peek() read already is handed to it at once (its error returned).
 */
int tl_reader_set_tee(struct tl_reader *r, tl_reader_tee_fn fn, void *ctx, struct tl_err *err);

/**
 * A compressed input cut off before its end (a copy interrupted, a disk full) reads as what
 * could be decoded, then the end of input; fn is called then. NULL: not said.
 */
void tl_reader_on_truncated(struct tl_reader *r, tl_reader_truncated_fn fn, void *ctx);

/**
 * The first bytes of the input (up to want, at most 1 MiB; fewer at its end), without
 * consuming them: a view valid until the first tl_reader_next(). Call it before reading lines
 * (it reads a pipe as far as needed). Returns 0, or -1 on a read error.
 */
int tl_reader_peek(struct tl_reader *r, size_t want, const char **p, size_t *n, struct tl_err *err);

/**
 * A plain log still being written: read it only up to its last newline as of now (what is
 * after it, a line being written, and what is appended later are left out). Call it before
 * reading. Returns 0, 1 when the log has no whole line yet (nothing will be read), or -1.
 * Does nothing to a compressed log, a pipe or a buffer.
 */
int tl_reader_complete_lines(struct tl_reader *r, struct tl_err *err);

/** Lines longer than this are skipped without being buffered (memory stays bounded). */
#define TL_READER_MAX_LINE ((size_t)64 << 20)

/** Returned by tl_reader_next() for a skipped overlong line. */
#define TL_READER_LONG 2

/** Change the line-length limit (for tests); at least 1 KiB. */
void tl_reader_set_max_line(struct tl_reader *r, size_t max_line);

/**
 * The next line, without its "\n" and one "\r" before it. A last line with no
 * newline is returned too. Returns 1 and *line, 0 at end of input, -1 on a
 * read or decompression error (err filled), or TL_READER_LONG for a line
 * longer than the limit: it was skipped, line->p is NULL and line->n its length.
 */
int tl_reader_next(struct tl_reader *r, struct tl_str *line, struct tl_err *err);
/** The first byte of the last line returned as TL_READER_LONG. */
char tl_reader_long_first(const struct tl_reader *r);
/**
 * The input as chunks of bytes instead of lines (decompressed; what tl_reader_peek() read
 * comes first): 1 and a view valid until the next call, 0 at the end of the input, -1 on a
 * read or decompression error. Do not mix with tl_reader_next().
 */
int tl_reader_read(struct tl_reader *r, const char **p, size_t *n, struct tl_err *err);
/** Make the next tl_reader_next() return the last line again. */
void tl_reader_unread(struct tl_reader *r);

/** 1-based number of the last line returned. */
uint64_t tl_reader_lineno(const struct tl_reader *r);
/** Bytes of (decompressed) input consumed so far. */
uint64_t tl_reader_offset(const struct tl_reader *r);
/** Bytes of the file read so far, and its size (0 if unknown), for progress. */
uint64_t tl_reader_file_pos(const struct tl_reader *r);
uint64_t tl_reader_file_size(const struct tl_reader *r);
enum tl_reader_kind tl_reader_kind(const struct tl_reader *r);
/** Whether the input is a pipe or a device (no size, cannot be read twice). */
bool tl_reader_is_stream(const struct tl_reader *r);
/** Whether the compressed input was found cut off (so far: at its end, for certain). */
bool tl_reader_truncated(const struct tl_reader *r);
/** Whether the last line ended without a newline (a truncated file). */
bool tl_reader_last_unterminated(const struct tl_reader *r);

#endif
