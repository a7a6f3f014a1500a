/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where `tlparse --watch` writes: a file descriptor, a terminal or not. The library's watch
 * (modes/watch.c) makes the text and gives it to the CLI's view (main.c), which writes it here.
 *
 * Not a terminal (a pipe, a CI log): each line as it comes, and nothing else.
 *
 * A terminal: lines are written as they come too, into the terminal's scrollback like any
 * program's output, and a small panel (the counts) stays below them, redrawn in place: the
 * cursor goes up to the panel's first line, erases to the end of the screen and writes the
 * lines above it again. Nothing the terminal showed before the panel is ever erased. The
 * job's own output (with --run on a terminal, the job writes into a pseudo-terminal whose other
 * end the watch reads) is passed through above the panel byte for byte. While the job is in
 * the middle of a line (a progress bar redrawn with \r) the panel is not drawn, and a line of
 * ours first ends the job's line. Panel lines are cut to the width, so that none wraps and the
 * redraw knows how many lines to go up.
 *
 * Every write is checked; the first that fails is kept (tl_screen_failed) and nothing more is
 * written. Depends on the C library only.
 */
#ifndef TL_CLI_SCREEN_H
#define TL_CLI_SCREEN_H

#include "base/config.h"

#include <stdbool.h>
#include <stddef.h>

/* Bytes the screen holds (screen.c's own buffer: the CLI uses no library internals). */
struct sbuf {
    char *buf;
    size_t len, alloc;
};

struct tl_screen {
    int fd;
    bool tty;
    unsigned rows, columns; /* of the terminal (0: 24 x 80) */
    unsigned shown;         /* panel lines on the screen now (0: none) */
    bool mid_line;          /* the job's output ended in the middle of a line */
    struct sbuf panel;      /* the panel's lines, each ending with '\n' */
    bool dirty;             /* the panel changed since it was drawn */
    int failed;             /* errno of the first write that failed; 0: none did */
};

/** Write to fd (a terminal when tty; its size rows x columns, 0 for 24 x 80). */
void tl_screen_init(struct tl_screen *s, int fd, bool tty, unsigned rows, unsigned columns);
void tl_screen_release(struct tl_screen *s);

/** Lines of ours (p[0..n), each ending with '\n'), above the panel. */
void tl_screen_lines(struct tl_screen *s, const char *p, size_t n);
/** Bytes of the job's output, as it wrote them, above the panel. */
void tl_screen_job(struct tl_screen *s, const char *p, size_t n);
/** What the panel says from now on (lines ending with '\n'; terminals only); drawn by the
 * next tl_screen_draw. */
void tl_screen_set_panel(struct tl_screen *s, const char *p, size_t n);
/** Draw the panel when it changed and may be drawn (the job is not in the middle of a line). */
void tl_screen_draw(struct tl_screen *s);
/** The last draw: the panel stays as the last lines, and the cursor goes below it (what is
 * written to the terminal afterwards starts on a line of its own). */
void tl_screen_end(struct tl_screen *s);
/** The terminal's new size. */
void tl_screen_resize(struct tl_screen *s, unsigned rows, unsigned columns);

/** errno of the first write that failed, 0 when none did. */
static inline int tl_screen_failed(const struct tl_screen *s)
{
    return s->failed;
}

#endif
