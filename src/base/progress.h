/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A progress bar on stderr (bytes, rate, ETA), drawn at most ten times a
 * second and only when asked to (the CLI asks when stderr is a terminal).
 * Messages printed while it is shown first clear its line. Depends on nothing.
 */
#ifndef TL_PROGRESS_H
#define TL_PROGRESS_H

#include "base/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_progress {
    bool enabled;
    bool shown; /* a bar is on the screen */
    uint64_t total;
    uint64_t start_ns, last_ns;
    uint32_t tick;
};

void tl_progress_init(struct tl_progress *p, bool enabled, uint64_t total);
/** Cheap enough to call per line: looks at the clock every few hundred calls. */
void tl_progress_update(struct tl_progress *p, uint64_t pos);
/** Clear the bar's line (before printing a message, and at the end). */
void tl_progress_clear(struct tl_progress *p);
/** Format "12.3 MB" style sizes into buf (for tests and the bar). */
void tl_progress_format_bytes(char *buf, size_t n, double bytes);

#endif
