/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Included first into every file of the WebAssembly build (-include): what wasm32-wasi's libc
 * lacks that the library names, given values under which the call fails cleanly and the
 * library takes its fallback (O_TMPFILE: a named temporary file, unlinked at once).
 */
#ifndef TL_WEB_WASI_H
#define TL_WEB_WASI_H

#include <fcntl.h>
#include <limits.h>

#ifndef O_TMPFILE
#define O_TMPFILE (O_DIRECTORY | O_EXCL)
#endif
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#ifndef NAME_MAX
#define NAME_MAX 255
#endif
/* renameat2's flags (web/compat/posix.c): RENAME_EXCHANGE fails with EINVAL, under which
 * output/folder.c replaces a report in two renames. */
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE 2

#include <stddef.h>
#include <sys/types.h>

/* POSIX and Linux calls that wasi-libc does not declare (or has not), made by web/stubs.c */
ssize_t getrandom(void *buf, size_t n, unsigned flags);
int mkostemp(char *tmpl, int flags);
int mkstemp(char *tmpl);
char *mkdtemp(char *tmpl);
int fchmod(int fd, mode_t mode);
mode_t umask(mode_t mask);
int dup(int fd);
ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned flags);
char *realpath(const char *path, char *resolved);
int kill(pid_t pid, int sig);
uid_t geteuid(void);
int renameat2(int olddir, const char *oldpath, int newdir, const char *newpath, unsigned flags);
void qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
             void *ctx);

#endif
