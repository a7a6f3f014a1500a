/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How far a log's reading is, told to the caller's callback (tl_options.progress) at most ten
 * times a second: the first time at once, so that a short run shows it too. Cheap enough to
 * call per line. It draws nothing: the CLI's bar (cli/progress.c) is one such callback.
 * Depends on nothing.
 */
#ifndef TL_PROGRESS_H
#define TL_PROGRESS_H

#include "base/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_progress {
    void (*fn)(void *ctx, uint64_t done, uint64_t total); /* NULL: nobody is told */
    void *ctx;
    bool told; /* fn was called */
    uint64_t total;
    uint64_t last_ns;
};

void tl_progress_init(struct tl_progress *p, void (*fn)(void *ctx, uint64_t done, uint64_t total),
                      void *ctx, uint64_t total);
/** pos bytes of total are read: told when a tenth of a second passed since the last time. Called
 * once per piece the reader gives (1 MiB), so the clock is read at each call. */
void tl_progress_update(struct tl_progress *p, uint64_t pos);

#endif
