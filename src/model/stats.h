/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Run statistics: the reference's counters (spec core.md §1.9) plus ours for
 * input it would have aborted on, and the `Stats { ... }` line. Depends on buf.
 */
#ifndef TL_STATS_H
#define TL_STATS_H

#include "base/config.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stdint.h>

/* name, reference counter? (printed in the reference's order first) */
#define TL_STATS_FIELDS(X)                                                                         \
    X(ok)                                                                                          \
    X(other_rank)                                                                                  \
    X(fail_glog)                                                                                   \
    X(fail_json)                                                                                   \
    X(fail_payload_md5)                                                                            \
    X(fail_dynamo_guards_json)                                                                     \
    X(fail_parser)                                                                                 \
    X(fail_key_conflict)                                                                           \
    X(fail_json_serialization)                                                                     \
    X(unknown)                                                                                     \
    X(fail_utf8)                                                                                   \
    X(fail_payload_truncated)                                                                      \
    X(fail_str_table)                                                                              \
    X(fail_missing_fail_reason)                                                                    \
    X(fail_line_too_long)

struct tl_stats {
#define TL_X(name) uint64_t name;
    TL_STATS_FIELDS(TL_X)
#undef TL_X
};

/** Append `Stats { ok: 64, fail_glog: 2 }` (non-zero counters only). */
void tl_stats_format(struct tl_buf *out, const struct tl_stats *s);

/** The counters that --strict treats as failures. */
uint64_t tl_stats_strict_failures(const struct tl_stats *s);

#endif
