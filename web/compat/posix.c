/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The POSIX calls the library makes that wasm32-wasi's libc has not (temporary files, modes,
 * dup through the worker, qsort_r, ...), for the page's build (web/CMakeLists.txt). Apart
 * from web/stubs.c, which stands in for the library's own parts the page leaves out: these use
 * nothing of the library.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
    (void)flags;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < 256 ? n - done : 256; /* getentropy's most at once */
        if (getentropy((char *)buf + done, k) != 0)
            return -1;
        done += k;
    }
    return (ssize_t)n;
}

int mkostemp(char *tmpl, int flags)
{
    size_t n = strlen(tmpl);
    if (n < 6 || memcmp(tmpl + n - 6, "XXXXXX", 6)) {
        errno = EINVAL;
        return -1;
    }
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int tries = 0; tries < 100; tries++) {
        unsigned char r[6];
        if (getentropy(r, sizeof(r)) != 0)
            return -1;
        for (int i = 0; i < 6; i++)
            tmpl[n - 6 + i] = letters[r[i] % (sizeof(letters) - 1)];
        int fd = open(tmpl, O_RDWR | O_CREAT | O_EXCL | flags, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int mkstemp(char *tmpl)
{
    return mkostemp(tmpl, 0);
}

char *mkdtemp(char *tmpl)
{
    size_t n = strlen(tmpl);
    if (n < 6 || memcmp(tmpl + n - 6, "XXXXXX", 6)) {
        errno = EINVAL;
        return NULL;
    }
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int tries = 0; tries < 100; tries++) {
        unsigned char r[6];
        if (getentropy(r, sizeof(r)) != 0)
            return NULL;
        for (int i = 0; i < 6; i++)
            tmpl[n - 6 + i] = letters[r[i] % (sizeof(letters) - 1)];
        if (mkdir(tmpl, 0700) == 0)
            return tmpl;
        if (errno != EEXIST)
            return NULL;
    }
    errno = EEXIST;
    return NULL;
}

int fchmod(int fd, mode_t mode)
{
    (void)fd;
    (void)mode;
    return 0; /* the page's files have no modes */
}

mode_t umask(mode_t mask)
{
    (void)mask;
    return 022;
}

/* The worker's file table: a second descriptor of the same open file (its offset shared). */
__attribute__((import_module("tlweb"), import_name("dup"))) int tlweb_dup(int fd);

int dup(int fd)
{
    int r = tlweb_dup(fd);
    if (r < 0) {
        errno = -r;
        return -1;
    }
    return r;
}

ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned flags)
{
    (void)in;
    (void)in_off;
    (void)out;
    (void)out_off;
    (void)n;
    (void)flags;
    errno = ENOSYS; /* the callers then copy through a buffer */
    return -1;
}

char *realpath(const char *path, char *resolved)
{
    (void)path;
    (void)resolved;
    errno = ENOSYS; /* WASI has no absolute paths */
    return NULL;
}

int kill(pid_t pid, int sig)
{
    (void)pid;
    (void)sig;
    errno = ENOSYS; /* no other process: a leftover's owner is never found alive */
    return -1;
}

uid_t geteuid(void)
{
    return 0;
}

/* A merge sort. The library sorts with tl_sort (base/sort.h), stable on every libc; its one
 * qsort_r (report/page_misc.c) has a comparator that orders every pair. */
void qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
             void *ctx)
{
    if (n < 2)
        return;
    char *a = base;
    char *tmp = malloc(n * size);
    if (!tmp)
        abort();
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (cmp(a + j * size, a + i * size, ctx) < 0)
                    memcpy(tmp + k++ * size, a + j++ * size, size);
                else
                    memcpy(tmp + k++ * size, a + i++ * size, size);
            }
            memcpy(tmp + k * size, a + i * size, (mid - i) * size);
            k += mid - i;
            memcpy(tmp + k * size, a + j * size, (hi - j) * size);
        }
        memcpy(a, tmp, n * size);
    }
    free(tmp);
}

/* The page's file system is the worker's, used by one thread: RENAME_NOREPLACE is a look
 * then a rename; RENAME_EXCHANGE is refused (EINVAL, as a file system without it). */
int renameat2(int olddir, const char *oldpath, int newdir, const char *newpath, unsigned flags)
{
    struct stat st;
    if (flags & ~(unsigned)RENAME_NOREPLACE) {
        errno = EINVAL;
        return -1;
    }
    if (flags && fstatat(newdir, newpath, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        errno = EEXIST;
        return -1;
    }
    return renameat(olddir, oldpath, newdir, newpath);
}

/* The owner tag of a report folder being written (output/leftovers.c): the tab has no host. */
int gethostname(char *name, size_t n)
{
    if (n == 0) {
        errno = EINVAL;
        return -1;
    }
    strncpy(name, "page", n);
    return 0;
}
