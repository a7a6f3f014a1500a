/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which log to read: the PATH of the command line is a log file (plain, .gz, .zst), a pipe,
 * "-" (standard input), or a folder, whose newest log is taken: of the regular files whose
 * name looks like a log (dedicated_log_torch_trace_*, *.log, *.log.gz, *.log.zst), else of
 * the others, the newest (ties: the name that sorts last) whose first lines are a log's
 * (sniff.h; an empty file counts when its name looks like a log). Hidden files are not logs.
 * Depends on err, xalloc, reader, sniff.
 */
#ifndef TL_LOCATE_H
#define TL_LOCATE_H

#include "base/config.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>

/**
 * Resolve path. latest: it must be a folder (the reference's --latest). On success
 * *resolved is a malloc'd path the caller frees, and *others is the number of other files
 * of the folder (-1 when path is not a folder). Errors are TL_ERR_INPUT.
 */
int tl_input_locate(const char *path, bool latest, char **resolved, long *others,
                    struct tl_err *err);

#endif
