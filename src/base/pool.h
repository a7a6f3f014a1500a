/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pool of threads for independent jobs (the ranks of a multi-rank run): jobs 0..n-1 are
 * taken in order by the first free thread and run to completion (a job publishes its own
 * results, under the caller's lock). With one thread (or none to be had) the jobs run in the
 * calling thread, in order. Depends on xalloc and pthreads.
 */
#ifndef TL_POOL_H
#define TL_POOL_H

#include "base/config.h"

#include <stddef.h>

/**
 * Run job(ctx, i) for every i in [0, n) on up to threads threads (0: the number of cores),
 * then return. Jobs start in order of i.
 */
void tl_pool_run(size_t n, unsigned threads, void (*job)(void *ctx, size_t i), void *ctx);

/** The number of cores this process may use (at least 1). */
unsigned tl_pool_cores(void);

#endif
