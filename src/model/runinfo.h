/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What made a report: the tlparse that ran, its command line, and the input it read. The
 * engine fills it (tl_runinfo_fill); the report prints it in the index's footer and in
 * summary.json's "generated_by" member, so that a report attached to a bug report says what
 * it came from. Plain data; depends on nothing.
 */
#ifndef TL_RUNINFO_H
#define TL_RUNINFO_H

#include <stdbool.h>
#include <stdint.h>

struct tl_runinfo {
    const char *version;      /* "0.4.3" */
    const char *revision;     /* the source revision ("a1b2c3d4e5f6", "-dirty" appended), "" */
    const char *command_line; /* the command as typed, shell-quoted; NULL: a library call */
    const char *input;        /* the log's path as read ("<memory>" for a buffer) */
    const char *redacted;     /* NULL, or how the report was redacted: "--redact",
                                 "--redact=paths" */
    bool has_stat;            /* the two below are known */
    uint64_t input_size;      /* bytes on disk (compressed size for .gz and .zst) */
    int64_t input_mtime;      /* modification time, seconds since the epoch */
};

#endif
