/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress bar on stderr (tl_options.progress): bytes, rate and time left, drawn as the
 * library tells how far the reading is (at most ten times a second), cleared before each
 * message and at the end.
 */
#include "base/config.h"
#include "cli/cli.h"

#include <stdio.h>
#include <time.h>

#define WIDTH 30

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void tl_cli_format_bytes(char *buf, size_t n, double bytes)
{
    static const char *const unit[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 4) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

void tl_cli_bar_draw(void *ctx, uint64_t pos, uint64_t total)
{
    struct tl_cli_bar *b = ctx;
    uint64_t t = now_ns();
    if (!b->start_ns || pos < b->last_pos) /* a new log: its rate from now */
        b->start_ns = t;
    b->last_pos = pos;
    double secs = (double)(t - b->start_ns) / 1e9;
    double rate = secs > 0 ? (double)pos / secs : 0;
    double frac = total ? (double)pos / (double)total : 0;
    if (frac > 1)
        frac = 1;
    char bar[WIDTH + 1];
    int full = (int)(frac * WIDTH);
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < full ? '#' : '-';
    bar[WIDTH] = '\0';
    char done[32], all[32], r[32];
    tl_cli_format_bytes(done, sizeof(done), (double)pos);
    tl_cli_format_bytes(all, sizeof(all), (double)total);
    tl_cli_format_bytes(r, sizeof(r), rate);
    double eta = rate > 0 && total > pos ? (double)(total - pos) / rate : 0;
    if (total)
        fprintf(stderr, "\r[%s] %3d%%  %s / %s  %s/s  ETA %.0fs\x1b[K", bar, (int)(frac * 100),
                done, all, r, eta);
    else /* a pipe: no size, so no bar and no ETA */
        fprintf(stderr, "\r%s read  %s/s\x1b[K", done, r);
    fflush(stderr);
    b->shown = true;
}

void tl_cli_bar_clear(struct tl_cli_bar *b)
{
    if (b->shown) {
        fputs("\r\x1b[K", stderr);
        fflush(stderr);
        b->shown = false;
    }
}

void tl_cli_bar_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    (void)kind;
    tl_cli_bar_clear(ctx);
    fprintf(stderr, "%s\n", line);
}
