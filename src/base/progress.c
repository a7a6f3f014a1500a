/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress bar on stderr: bytes, rate and time left, redrawn at most ten times a second.
 */
#include "base/config.h"
#include "base/progress.h"

#include <stdio.h>
#include <time.h>

#define REDRAW_NS 100000000ULL /* at most ten redraws a second */
#define WIDTH 30

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void tl_progress_init(struct tl_progress *p, bool enabled, uint64_t total)
{
    p->enabled = enabled;
    p->shown = false;
    p->total = total;
    p->start_ns = p->last_ns = now_ns();
    p->tick = 0;
}

void tl_progress_format_bytes(char *buf, size_t n, double bytes)
{
    static const char *const unit[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 4) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

void tl_progress_update(struct tl_progress *p, uint64_t pos)
{
    /* The first frame at once, so that the bar shows even on a short
     * run; then at most 10 a second (the clock is read every 256 calls). */
    if (!p->enabled || (p->shown && (++p->tick & 255) != 0))
        return;
    uint64_t t = now_ns();
    if (p->shown && t - p->last_ns < REDRAW_NS)
        return;
    p->last_ns = t;
    double secs = (double)(t - p->start_ns) / 1e9;
    double rate = secs > 0 ? (double)pos / secs : 0;
    double frac = p->total ? (double)pos / (double)p->total : 0;
    if (frac > 1)
        frac = 1;
    char bar[WIDTH + 1];
    int full = (int)(frac * WIDTH);
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < full ? '#' : '-';
    bar[WIDTH] = '\0';
    char done[32], total[32], r[32];
    tl_progress_format_bytes(done, sizeof(done), (double)pos);
    tl_progress_format_bytes(total, sizeof(total), (double)p->total);
    tl_progress_format_bytes(r, sizeof(r), rate);
    double eta = rate > 0 && p->total > pos ? (double)(p->total - pos) / rate : 0;
    if (p->total)
        fprintf(stderr, "\r[%s] %3d%%  %s / %s  %s/s  ETA %.0fs\x1b[K", bar, (int)(frac * 100),
                done, total, r, eta);
    else /* a pipe: no size, so no bar and no ETA */
        fprintf(stderr, "\r%s read  %s/s\x1b[K", done, r);
    fflush(stderr);
    p->shown = true;
}

void tl_progress_clear(struct tl_progress *p)
{
    if (p->shown) {
        fputs("\r\x1b[K", stderr);
        fflush(stderr);
        p->shown = false;
    }
}
