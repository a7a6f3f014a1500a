/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How far the reading is, told at most ten times a second.
 */
#include "base/config.h"
#include "base/progress.h"

#include <time.h>

#define TELL_NS 100000000ULL /* at most ten a second */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void tl_progress_init(struct tl_progress *p, void (*fn)(void *ctx, uint64_t done, uint64_t total),
                      void *ctx, uint64_t total)
{
    p->fn = fn;
    p->ctx = ctx;
    p->told = false;
    p->total = total;
    p->last_ns = now_ns();
}

void tl_progress_update(struct tl_progress *p, uint64_t pos)
{
    if (!p->fn)
        return;
    uint64_t t = now_ns();
    if (p->told && t - p->last_ns < TELL_NS)
        return;
    p->last_ns = t;
    p->told = true;
    p->fn(p->ctx, pos, p->total);
}
