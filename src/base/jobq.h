/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Formatting behind the caller, on a thread of its own: each job turns bytes (a copy of the
 * caller's) into bytes of output, and the outputs come back in submission order, so that
 * a file written from them is the same whatever the timing. For a sink whose bytes are a pure
 * function of its input (chromium_events.json's pretty JSON, raw.jsonl's lines): on two cores
 * that work leaves the parser's thread. The job function runs on the worker only, one job at a
 * time, so its context needs no lock; the caller reads that context after tl_jobq_drain().
 * With threads off every job runs inside the call that submits it.
 * Depends on buf, xalloc and pthreads.
 */
#ifndef TL_JOBQ_H
#define TL_JOBQ_H

#include "base/config.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>

struct tl_jobq;

/* A job: append the output of in[0..n) to out. */
typedef void (*tl_jobq_fn)(void *ctx, const char *in, size_t n, struct tl_buf *out);

/**
 * A queue whose jobs run fn(ctx, ...) (ctx borrowed, used by the worker only until the next
 * drain returns). At most max_inflight bytes of input wait at once (submitting blocks beyond
 * that). With threads false, or when no thread can be started, jobs run synchronously.
 */
struct tl_jobq *tl_jobq_new(tl_jobq_fn fn, void *ctx, size_t max_inflight, bool threads);
/** Stop the worker and release everything (jobs not yet run are dropped). NULL is fine. */
void tl_jobq_free(struct tl_jobq *q);

/** Queue a job for a copy of p[0..n). Blocks while too many bytes wait. */
void tl_jobq_submit(struct tl_jobq *q, const void *p, size_t n);
/** Append the output of the jobs done so far (in order, and never a part of one) to out,
 * without waiting. */
void tl_jobq_take(struct tl_jobq *q, struct tl_buf *out);
/** Wait for every queued job, then take their output as tl_jobq_take() does. */
void tl_jobq_drain(struct tl_jobq *q, struct tl_buf *out);

#endif
