/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Payload md5 checks on a second core. A check changes no output (the
 * payload is used whatever its md5), only a counter and a warning, so the
 * parser hands each payload to a worker thread and goes on. Buffers are
 * handed over, not copied, and recycled; the bytes in flight are bounded.
 * tl_md5q_drain() waits for all submitted checks and reports the mismatches
 * in submission order, so messages keep their line order.
 * Several checks are hashed at once (base/md5.h). Depends on buf, str and md5.
 */
#ifndef TL_MD5Q_H
#define TL_MD5Q_H

#include "base/config.h"
#include "base/buf.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_md5q;

struct tl_md5_result {
    uint64_t lineno;
    char want[41]; /* has_payload as logged (cut to 40 bytes) */
    char got[33];  /* md5 of the payload, hex */
    bool truncated;
};

/** A queue with its worker; with threads false, tl_md5q_submit checks a batch once it has
 * one, tl_md5q_drain the rest. */
struct tl_md5q *tl_md5q_new(size_t max_inflight, bool threads);
void tl_md5q_free(struct tl_md5q *q);

/**
 * Queue a check of *payload against want. Takes the buffer's memory and
 * leaves *payload empty (with recycled memory). Blocks while too many bytes
 * are in flight.
 */
void tl_md5q_submit(struct tl_md5q *q, uint64_t lineno, struct tl_str want, bool truncated,
                    struct tl_buf *payload);

/** Wait for every queued check; call report for each mismatch, in order. */
void tl_md5q_drain(struct tl_md5q *q, void (*report)(void *ctx, const struct tl_md5_result *r),
                   void *ctx);

#endif
