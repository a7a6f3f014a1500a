/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the command prints itself: its messages on stderr, one printable line each (they quote
 * paths and arguments, which may be a log's file name), and at the end the check of everything
 * written to stdout and stderr, by the command and the library alike (coreutils'
 * close_stdout): a write that failed is exit status 1 with a message, not a silent 0.
 */
#include "base/config.h"
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The length of the well-formed UTF-8 character at p (p[0] >= 0x80), else 0: the rule of the
 * library's tl_buf_add_printable, which the CLI, on the public header only, cannot call. */
static size_t utf8_char(const unsigned char *p)
{
    size_t len = p[0] >= 0xC2 && p[0] <= 0xDF   ? 2
                 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
                 : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4
                                                : 0;
    unsigned lo = p[0] == 0xE0 ? 0xA0 : p[0] == 0xF0 ? 0x90 : 0x80;
    unsigned hi = p[0] == 0xED ? 0x9F : p[0] == 0xF4 ? 0x8F : 0xBF;
    if (!len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if ((p[k] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* s made printable in place: a control (C0, DEL, C1) or a byte of no character becomes '?'.
 * The string gets no longer. */
static void printable(char *s)
{
    unsigned char *r = (unsigned char *)s, *w = r;
    while (*r) {
        size_t len = *r >= 0x80 ? utf8_char(r) : 0;
        if (len && !(r[0] == 0xC2 && r[1] <= 0x9F)) {
            memmove(w, r, len);
            w += len;
            r += len;
        } else if (*r < 0x20 || *r >= 0x7F) {
            *w++ = '?';
            r += len ? len : 1;
        } else {
            *w++ = *r++;
        }
    }
    *w = 0;
}

void tl_cli_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fputs("tlparse: fatal: out of memory\n", stderr);
        return;
    }
    printable(line);
    fprintf(stderr, "%s\n", line);
    free(line);
}

/* The errno of the first write to stdout that failed: a write of stdio's that fails is only
 * flagged (ferror), and the reason would be gone by the time of tl_cli_close. */
static int stdout_errno;

void tl_cli_print(const char *s)
{
    size_t n = strlen(s);
    errno = 0;
    if (fwrite(s, 1, n, stdout) != n && !stdout_errno)
        stdout_errno = errno ? errno : EIO;
}

/* A stream that failed with EPIPE: its reader went away, which ends tlparse as SIGPIPE would
 * have, had it not been ignored (the parent's choice, inherited): quietly. */
static void broken_pipe(void)
{
    signal(SIGPIPE, SIG_DFL);
    raise(SIGPIPE);
    _exit(128 + SIGPIPE);
}

int tl_cli_close(int rc)
{
    /* stdout is buffered: what failed shows at the flush, or was noted by stdio (ferror) */
    errno = 0;
    bool failed = fflush(stdout) != 0;
    int err = stdout_errno ? stdout_errno : errno;
    failed |= ferror(stdout) != 0;
    /* EBADF: there was no stdout (tlparse >&-) and nothing was written to it */
    if (fclose(stdout) != 0 && !failed && errno != EBADF) {
        failed = true;
        err = errno;
    }
    if (failed && err == EPIPE)
        broken_pipe();
    if (failed) {
        tl_cli_say("tlparse: error: cannot write to stdout: %s",
                   err ? strerror(err) : "write error");
        if (rc == TL_EXIT_OK)
            rc = TL_EXIT_ERROR;
    }
    /* stderr cannot say that it failed: the exit status says it (a message lost, perhaps the
     * one that says why) */
    errno = 0;
    if (fflush(stderr) != 0 || ferror(stderr)) {
        if (errno == EPIPE)
            broken_pipe();
        if (rc == TL_EXIT_OK)
            rc = TL_EXIT_ERROR;
    }
    return rc;
}
