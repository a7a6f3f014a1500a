/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rank logs of a folder (spec modes.md §1.2): the direct entries that are regular files
 * (links to files count) named dedicated_log_torch_trace_rank_<N>[_<anything>].log, N an
 * unsigned 32-bit decimal ('+' and leading zeros allowed); everything else is ignored.
 * Depends on err, xalloc, utf8.
 */
#ifndef TL_RANKFILES_H
#define TL_RANKFILES_H

#include "base/config.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_rank_log {
    uint32_t rank;
    char *name; /* the file name */
    char *path; /* folder/name */
};

/**
 * Find the rank logs of dir, in name order, or with fs_order in the order the file system
 * lists them (the reference's order). *out is malloc'd (tl_rank_logs_free); *n may be 0.
 * Errors (TL_ERR_INPUT): dir cannot be read.
 */
int tl_rank_logs_find(const char *dir, bool fs_order, struct tl_rank_log **out, size_t *n,
                      struct tl_err *err);
void tl_rank_logs_free(struct tl_rank_log *l, size_t n);

/** The number of ranks whose logs path (a folder) holds; 0: not a folder, or none. */
size_t tl_rank_folder_ranks(const char *path);

/** The rank a file name gives by the rule above, or -1. */
long tl_rank_of_name(const char *name);

#endif
