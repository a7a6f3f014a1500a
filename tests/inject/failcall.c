/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * failcall: an LD_PRELOAD shim that makes one libc call fail, for
 * tests/outsafety.sh, which builds it:
 *
 *     cc -shared -fPIC -O1 -o failcall.so tests/inject/failcall.c -ldl
 *
 * Configured by the environment:
 *
 *   TL_FAIL=CALL:N:ERR[:sticky][,CALL:N:ERR[:sticky]...]   (up to 4, one per call)
 *       CALL is write, open, openat, mkdir, mkdirat, mkdtemp, rename, renameat,
 *       renameat2, copy_file_range or close (open64/openat64 are open/openat).
 *       The first N counted calls succeed; call N+1 fails with errno ERR
 *       (ENOSPC, EIO, EACCES, EROFS, EDQUOT, EXDEV, ENOSYS, EINVAL, EPERM,
 *       EMFILE, ENAMETOOLONG, EOPNOTSUPP, or a number). With ":sticky" every later call
 *       fails too. For write, ERR may be SHORT: the call writes only part of
 *       its bytes (a short write, which is not an error).
 *   TL_FAIL_SKIP=TEXT
 *       calls whose path argument contains TEXT are neither counted nor failed
 *       (e.g. the input log, so that only the output side is hit); paths under
 *       /proc/ never are.
 *   TL_SLOW_READ=MICROSECONDS
 *       every read() on a descriptor above 2 sleeps first, so that a test can
 *       signal a run while it is still reading its input.
 *   TL_FAIL_LOG=FILE
 *       each injected failure appends "CALL NUMBER WHAT" to FILE, so the test
 *       knows whether the run got as far as call N+1.
 *   TL_FAIL_DISK=BYTES
 *       a disk that fills up: write and copy_file_range on descriptors above 2
 *       succeed until BYTES bytes were written in all; the call that crosses
 *       the limit writes what still fits (a short write, as a real disk does)
 *       and every later one fails with ENOSPC (logged as "CALL BYTES fd F").
 *
 * write is counted on descriptors above 2 only, close on descriptors open
 * for writing only. Counts are atomic: a program's threads share them. Calls made inside libc (stdio, nftw, the mkdir inside
 * mkdtemp) do not go through here, which is why mkdtemp is wrapped whole.
 *
 * With an ASan build, preload the ASan runtime first:
 *     LD_PRELOAD="/path/to/libasan.so.N failcall.so"
 * ASan's interceptors then reach these wrappers through dlsym(RTLD_NEXT).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

enum call {
    C_WRITE,
    C_OPEN,
    C_OPENAT,
    C_MKDIR,
    C_MKDIRAT,
    C_MKDTEMP,
    C_RENAME,
    C_RENAMEAT,
    C_RENAMEAT2,
    C_COPY_FILE_RANGE,
    C_CLOSE,
    C_NONE,
};

static const char *const call_names[] = {
    "write",  "open",     "openat",    "mkdir",           "mkdirat", "mkdtemp",
    "rename", "renameat", "renameat2", "copy_file_range", "close",
};

static const struct {
    const char *name;
    int value;
} errnos[] = {
    {"ENOSPC", ENOSPC},
    {"EIO", EIO},
    {"EACCES", EACCES},
    {"EROFS", EROFS},
    {"EDQUOT", EDQUOT},
    {"EXDEV", EXDEV},
    {"ENOSYS", ENOSYS},
    {"EINVAL", EINVAL},
    {"EPERM", EPERM},
    {"EMFILE", EMFILE},
    {"ENAMETOOLONG", ENAMETOOLONG},
    {"EOPNOTSUPP", EOPNOTSUPP},
};

#define ERR_SHORT (-1)

#define MAX_SPECS 4

struct spec {
    enum call call;
    long fail_after; /* calls that succeed first */
    int err;         /* errno, or ERR_SHORT */
    int sticky;
    long seen;
};

static int configured;
static struct spec specs[MAX_SPECS];
static int nspecs;
static const char *skip_text;
static const char *log_path;
static long disk_bytes = -1; /* TL_FAIL_DISK; -1: no limit */
static long disk_used;

static void parse_spec(char *text)
{
    char *save = NULL;
    char *name = strtok_r(text, ":", &save);
    char *n = strtok_r(NULL, ":", &save);
    char *err = strtok_r(NULL, ":", &save);
    char *mode = strtok_r(NULL, ":", &save);
    if (!name || !n || !err || nspecs == MAX_SPECS)
        return;
    struct spec *s = &specs[nspecs];
    s->call = C_NONE;
    for (int i = 0; i < C_NONE; i++)
        if (!strcmp(name, call_names[i]))
            s->call = (enum call)i;
    if (!strcmp(name, "open64"))
        s->call = C_OPEN;
    if (!strcmp(name, "openat64"))
        s->call = C_OPENAT;
    if (s->call == C_NONE)
        return;
    s->fail_after = strtol(n, NULL, 10);
    s->err = !strcmp(err, "SHORT") ? ERR_SHORT : (int)strtol(err, NULL, 10);
    for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
        if (!strcmp(err, errnos[i].name))
            s->err = errnos[i].value;
    s->sticky = mode && !strcmp(mode, "sticky");
    nspecs++;
}

/* TL_FAIL may hold up to MAX_SPECS comma-separated specs, one per call. */
static void configure(void)
{
    if (configured)
        return;
    configured = 1;
    skip_text = getenv("TL_FAIL_SKIP");
    if (skip_text && !*skip_text)
        skip_text = NULL;
    log_path = getenv("TL_FAIL_LOG");
    const char *disk = getenv("TL_FAIL_DISK");
    if (disk && *disk)
        disk_bytes = strtol(disk, NULL, 10);
    const char *env = getenv("TL_FAIL");
    if (!env || !*env)
        return;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", env);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        parse_spec(t);
}

/* Raw system calls for the shim's own I/O: never counted, never intercepted. */
static void note(enum call c, long seen, const char *what)
{
    if (!log_path)
        return;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                          0644);
    if (fd < 0)
        return;
    char line[512];
    int n = snprintf(line, sizeof(line), "%s %ld %.400s\n", call_names[c], seen, what);
    if (n > (int)sizeof(line) - 1)
        n = (int)sizeof(line) - 1;
    if (n > 0)
        syscall(SYS_write, fd, line, (size_t)n);
    syscall(SYS_close, fd);
}

/* Count this call; the spec that makes it fail, or NULL. */
static const struct spec *hit(enum call c, const char *path, int fd)
{
    configure();
    struct spec *s = NULL;
    for (int i = 0; i < nspecs; i++)
        if (specs[i].call == c)
            s = &specs[i];
    if (!s)
        return NULL;
    if (path && skip_text && strstr(path, skip_text))
        return NULL;
    /* Reading /proc (a process's start time, for the owner of a temporary folder) is not
     * part of writing the report: a failure there changes nothing anyone could see. */
    if (path && !strncmp(path, "/proc/", 6))
        return NULL;
    long seen = __atomic_add_fetch(&s->seen, 1, __ATOMIC_SEQ_CST);
    if (seen <= s->fail_after || (!s->sticky && seen > s->fail_after + 1))
        return NULL;
    char what[420];
    if (path)
        snprintf(what, sizeof(what), "%s", path);
    else
        snprintf(what, sizeof(what), "fd %d", fd);
    note(c, seen, what);
    return s;
}

/* TL_FAIL_DISK: how many of n bytes fit on the disk, reserved (disk_done gives back what the
 * call did not write), or 0 when it is full (errno ENOSPC then, and the failure logged). */
static size_t disk_room(enum call c, int fd, size_t n)
{
    configure();
    if (disk_bytes < 0 || fd <= 2 || n == 0)
        return n;
    long used = __atomic_load_n(&disk_used, __ATOMIC_SEQ_CST);
    for (;;) {
        long room = disk_bytes - used;
        size_t take = room <= 0 ? 0 : (size_t)room < n ? (size_t)room : n;
        if (take == 0) {
            char what[64];
            snprintf(what, sizeof(what), "fd %d", fd);
            note(c, disk_bytes, what);
            errno = ENOSPC;
            return 0;
        }
        if (__atomic_compare_exchange_n(&disk_used, &used, used + (long)take, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return take;
    }
}

/* A call given room bytes by disk_room wrote got (or failed: -1): the rest goes back. */
static ssize_t disk_done(size_t room, ssize_t got)
{
    if (disk_bytes >= 0) {
        long back = (long)room - (got > 0 ? (long)got : 0);
        if (back > 0)
            __atomic_sub_fetch(&disk_used, back, __ATOMIC_SEQ_CST);
    }
    return got;
}

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        static const char msg[] = "failcall: dlsym failed\n";
        syscall(SYS_write, 2, msg, sizeof(msg) - 1);
        abort();
    }
    return f;
}

/* The next definition of fn (libc's, or ASan's interceptor), looked up once.
 * (Assigned through a void * as POSIX advises for dlsym results.) */
#define REAL(fn)                                                                                   \
    static __typeof__(fn) *real_fn;                                                                \
    if (!real_fn)                                                                                  \
    *(void **)&real_fn = real(#fn)

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(write);
    const struct spec *f = fd > 2 ? hit(C_WRITE, NULL, fd) : NULL;
    if (f && f->err == ERR_SHORT)
        return real_fn(fd, buf, n > 1 ? n / 2 : n);
    if (f) {
        errno = f->err;
        return -1;
    }
    size_t room = disk_room(C_WRITE, fd, n);
    if (n && !room)
        return -1;
    return disk_done(room, real_fn(fd, buf, room));
}

ssize_t read(int fd, void *buf, size_t n)
{
    REAL(read);
    static long slow = -1;
    if (slow < 0) {
        const char *e = getenv("TL_SLOW_READ");
        slow = e ? strtol(e, NULL, 10) : 0;
    }
    if (slow > 0 && fd > 2) {
        struct timespec ts = {slow / 1000000, (slow % 1000000) * 1000};
        nanosleep(&ts, NULL); /* a signal ends the nap early: fine */
    }
    return real_fn(fd, buf, n);
}

static int open_mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, int) : 0;
}

/* Fail with the spec's errno: return value r. */
#define FAIL_IF(expr, r)                                                                           \
    do {                                                                                           \
        const struct spec *f_ = (expr);                                                            \
        if (f_) {                                                                                  \
            errno = f_->err;                                                                       \
            return r;                                                                              \
        }                                                                                          \
    } while (0)

int open(const char *path, int flags, ...)
{
    REAL(open);
    va_list ap;
    va_start(ap, flags);
    int mode = open_mode_arg(flags, ap);
    va_end(ap);
    FAIL_IF(hit(C_OPEN, path, -1), -1);
    return real_fn(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    REAL(open64);
    va_list ap;
    va_start(ap, flags);
    int mode = open_mode_arg(flags, ap);
    va_end(ap);
    FAIL_IF(hit(C_OPEN, path, -1), -1);
    return real_fn(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    REAL(openat);
    va_list ap;
    va_start(ap, flags);
    int mode = open_mode_arg(flags, ap);
    va_end(ap);
    FAIL_IF(hit(C_OPENAT, path, -1), -1);
    return real_fn(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    REAL(openat64);
    va_list ap;
    va_start(ap, flags);
    int mode = open_mode_arg(flags, ap);
    va_end(ap);
    FAIL_IF(hit(C_OPENAT, path, -1), -1);
    return real_fn(dirfd, path, flags, mode);
}

int mkdir(const char *path, mode_t mode)
{
    REAL(mkdir);
    FAIL_IF(hit(C_MKDIR, path, -1), -1);
    return real_fn(path, mode);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
    REAL(mkdirat);
    FAIL_IF(hit(C_MKDIRAT, path, -1), -1);
    return real_fn(dirfd, path, mode);
}

char *mkdtemp(char *tmpl)
{
    REAL(mkdtemp);
    FAIL_IF(hit(C_MKDTEMP, tmpl, -1), NULL);
    return real_fn(tmpl);
}

int rename(const char *from, const char *to)
{
    REAL(rename);
    FAIL_IF(hit(C_RENAME, to, -1), -1);
    return real_fn(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
    REAL(renameat);
    FAIL_IF(hit(C_RENAMEAT, to, -1), -1);
    return real_fn(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags)
{
    REAL(renameat2);
    FAIL_IF(hit(C_RENAMEAT2, to, -1), -1);
    return real_fn(fromfd, from, tofd, to, flags);
}

ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len,
                        unsigned int flags)
{
    REAL(copy_file_range);
    FAIL_IF(hit(C_COPY_FILE_RANGE, NULL, out), -1);
    /* A copy asks for more than its source holds ("the rest"): only what the source has left
     * is reserved, or two threads copying at once would each take the whole disk's room. */
    struct stat st;
    off_t pos = in_off ? *in_off : lseek(in, 0, SEEK_CUR);
    if (fstat(in, &st) == 0 && S_ISREG(st.st_mode) && pos >= 0)
        len = st.st_size > pos && (size_t)(st.st_size - pos) < len ? (size_t)(st.st_size - pos)
              : st.st_size > pos                                  ? len
                                                                  : 0;
    if (!len)
        return real_fn(in, in_off, out, out_off, 0, flags);
    size_t room = disk_room(C_COPY_FILE_RANGE, out, len);
    if (len && !room)
        return -1;
    return disk_done(room, real_fn(in, in_off, out, out_off, room, flags));
}

int close(int fd)
{
    REAL(close);
    if (fd > 2) {
        int fl = fcntl(fd, F_GETFL);
        const struct spec *f =
            fl >= 0 && (fl & O_ACCMODE) != O_RDONLY ? hit(C_CLOSE, NULL, fd) : NULL;
        if (f) {
            /* Like a failed flush on NFS: the descriptor is gone, the error stays. */
            real_fn(fd);
            errno = f->err;
            return -1;
        }
    }
    return real_fn(fd);
}
