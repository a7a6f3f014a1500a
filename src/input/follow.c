/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Following logs as they are written (follow.h): inotify marks files dirty, a periodic sweep
 * marks them all; a dirty file is looked at (replaced? truncated? grown?) and read a chunk at
 * a time until it has nothing new.
 */
#include "base/config.h"
#include "input/follow.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/str.h"
#include "base/utf8.h"
#include "base/xalloc.h"
#include "input/rankfiles.h"
#include "base/sort.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What is watched: a followed file's writes and what may replace it (an unlink or a rename
 * over it changes its link count: IN_ATTRIB); a folder's new entries and its own end. */
#define FILE_MASK (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
#define DIR_MASK (IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

enum root {
    ROOT_WAITING, /* PATH does not exist yet */
    ROOT_FILE,    /* PATH is the one file followed */
    ROOT_DIR,     /* PATH is a folder of rank logs */
};

struct file {
    char *path;
    const char *name; /* in path */
    long rank;
    size_t index; /* given with its FILE event */
    int fd;       /* -1 until opened; closed when refused */
    int wd;       /* its inotify watch, -1: none */
    dev_t dev;    /* the open file's identity */
    ino_t ino;
    uint64_t off;   /* bytes handed out */
    bool dirty;     /* may have changed: look at it */
    bool announced; /* its FILE event was given */
    bool refused;   /* never read again */
    bool plain;     /* its first bytes are not a compressed file's magic */
};

struct tl_follow {
    char *path;       /* PATH without trailing slashes */
    char *parent;     /* the folder it is in */
    const char *base; /* its last component (in path) */
    enum root root;
    bool root_dirty; /* ROOT_WAITING: look whether PATH exists now */
    int ifd;         /* inotify, -1: polling only */
    int dir_wd;      /* watch on parent (waiting, file) or PATH (folder); -1: none */
    dev_t dir_dev;   /* the folder dir_wd watches */
    ino_t dir_ino;
    bool dir_suspect; /* a file was unlinked or replaced: is the folder still there? */
    bool degraded;    /* a file has no watch: poll as without inotify */
    bool no_safety;   /* TL_FOLLOW_NO_SAFETY */
    struct file *files;
    size_t nfiles, alloc;
    struct tl_arena names_arena;
    struct tl_map names; /* folder: file name -> index + 1 */
    size_t *by_wd;       /* a watch's file: index + 1 (0: none), by watch descriptor */
    size_t nby_wd;
    bool shared_wds;  /* two files have one watch (links): look for all of them */
    size_t announced; /* FILE events given */
    size_t cursor;    /* where the round robin goes on */
    int64_t last_sweep;
    bool sweep_now;
    char *buf; /* TL_FOLLOW_CHUNK bytes, once something is read */
    struct tl_buf why;
    int wake_fd; /* tl_follow_wake_on: -1 none */
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_why(struct tl_follow *f, const char *fmt, ...) TL_PRINTF(2, 3);

static void set_why(struct tl_follow *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_buf_reset(&f->why);
    tl_buf_vaddf(&f->why, fmt, ap);
    va_end(ap);
}

static int64_t interval(const struct tl_follow *f)
{
    if (f->ifd < 0 || f->degraded || f->dir_wd < 0)
        return TL_FOLLOW_POLL_MS;
    return f->no_safety ? INT32_MAX : TL_FOLLOW_SAFETY_MS;
}

/* ---- watches ------------------------------------------------------------------------------- */

/* Watch the folder whose entries matter: PATH's parent while PATH is awaited or is the file
 * followed, PATH when it is the folder. A failure leaves it to the poll. */
static const char *watched_dir(const struct tl_follow *f)
{
    return f->root == ROOT_DIR ? f->path : f->parent;
}

static void watch_dir(struct tl_follow *f)
{
    if (f->ifd < 0 || f->dir_wd >= 0)
        return;
    /* Its identity before the watch: if it is swapped in between, verify_dir sees it. */
    struct stat st;
    if (stat(watched_dir(f), &st) < 0 || !S_ISDIR(st.st_mode))
        return;
    f->dir_wd = inotify_add_watch(f->ifd, watched_dir(f), DIR_MASK);
    f->dir_dev = st.st_dev;
    f->dir_ino = st.st_ino;
}

static void unwatch_dir(struct tl_follow *f)
{
    if (f->dir_wd >= 0)
        inotify_rm_watch(f->ifd, f->dir_wd);
    f->dir_wd = -1;
}

/* Is the folder watched still the one at its path? A folder removed while files of it are
 * open (ours) sends no IN_DELETE_SELF: its inode lives on. Else watch the new one, and look at
 * its entries. */
static void verify_dir(struct tl_follow *f)
{
    f->dir_suspect = false;
    if (f->dir_wd < 0)
        return;
    struct stat st;
    if (stat(watched_dir(f), &st) == 0 && st.st_dev == f->dir_dev && st.st_ino == f->dir_ino)
        return;
    unwatch_dir(f);
    watch_dir(f);
    f->sweep_now = true;
}

/* The file an event of watch wd is about (index + 1), 0: none. */
static size_t file_of_wd(const struct tl_follow *f, int wd)
{
    return wd >= 0 && (size_t)wd < f->nby_wd ? f->by_wd[wd] : 0;
}

static void watch_file(struct tl_follow *f, struct file *fl)
{
    size_t i = (size_t)(fl - f->files);
    if (f->ifd < 0)
        return;
    fl->wd = inotify_add_watch(f->ifd, fl->path, FILE_MASK);
    if (fl->wd < 0) {
        f->degraded = true; /* out of watches (max_user_watches): poll */
        return;
    }
    size_t wd = (size_t)fl->wd;
    if (wd >= f->nby_wd) {
        size_t n = f->nby_wd ? f->nby_wd : 64;
        while (n <= wd)
            n *= 2;
        f->by_wd = tl_xreallocarray(f->by_wd, n, sizeof(*f->by_wd));
        memset(f->by_wd + f->nby_wd, 0, (n - f->nby_wd) * sizeof(*f->by_wd));
        f->nby_wd = n;
    }
    size_t other = f->by_wd[wd];
    if (other && other != i + 1 && f->files[other - 1].wd == fl->wd)
        f->shared_wds = true; /* the kernel gave the same watch: one inode, two names */
    f->by_wd[wd] = i + 1;
}

/* Two names of one file (hard links, symbolic links) share the inode's watch: it goes when the
 * last of them lets it go. */
static void unwatch_file(struct tl_follow *f, struct file *fl)
{
    int wd = fl->wd;
    fl->wd = -1;
    if (wd < 0)
        return;
    f->by_wd[wd] = 0;
    if (f->shared_wds)
        for (size_t k = 0; k < f->nfiles; k++)
            if (f->files[k].wd == wd) {
                f->by_wd[wd] = k + 1;
                return;
            }
    inotify_rm_watch(f->ifd, wd);
}

/* ---- the files ----------------------------------------------------------------------------- */

static struct file *add_file(struct tl_follow *f, char *path, size_t name_at)
{
    TL_GROW(f->files, f->nfiles + 1, f->alloc);
    size_t i = f->nfiles++;
    struct file *fl = &f->files[i];
    memset(fl, 0, sizeof(*fl));
    fl->path = path;
    fl->name = path + name_at;
    fl->rank = tl_rank_of_name(fl->name);
    fl->fd = -1;
    fl->wd = -1;
    fl->dirty = true;
    if (f->root == ROOT_DIR)
        tl_map_put(&f->names, tl_str_cstr(fl->name), (void *)(uintptr_t)(i + 1));
    return fl;
}

/* Whether a name of the folder PATH is a log TORCH_TRACE writes: a rank's, or the one log of
 * a job of one process (dedicated_log_torch_trace_<random>.log). */
static bool trace_log_name(const char *name)
{
    static const char prefix[] = "dedicated_log_torch_trace_";
    size_t n = strlen(name);
    if (tl_rank_of_name(name) >= 0)
        return true;
    return !strncmp(name, prefix, sizeof(prefix) - 1) && n > sizeof(prefix) - 1 + 4 &&
           !strcmp(name + n - 4, ".log");
}

/* The entry name of the folder PATH: a log not seen yet is added, a known one looked at. */
static void dir_entry(struct tl_follow *f, const char *name)
{
    if (!trace_log_name(name) || !tl_utf8_valid(name, strlen(name)))
        return;
    uintptr_t known = (uintptr_t)tl_map_get(&f->names, tl_str_cstr(name));
    if (known) {
        f->files[known - 1].dirty = true;
        return;
    }
    int dlen = tl_path_dir_len(f->path); /* "dir/" and "dir" alike: "dir/name" */
    size_t plen = (size_t)dlen + strlen(name) + 2;
    char *path = tl_xmalloc(plen);
    snprintf(path, plen, "%.*s/%s", dlen, f->path, name);
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
        free(path); /* not (yet) a rank log: a sweep looks again */
        return;
    }
    add_file(f, path, (size_t)dlen + 1);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder's logs, in name order (ranks 0, 1, ... come in that order at the start). */
static int scan_dir(struct tl_follow *f, struct tl_err *err)
{
    DIR *d = opendir(f->path);
    if (!d)
        return tl_error_code(err, TL_ERR_INPUT, "cannot read the folder %s: %s", f->path,
                             strerror(errno));
    char **names = NULL;
    size_t n = 0, alloc = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (trace_log_name(e->d_name)) {
            TL_GROW(names, n + 1, alloc);
            names[n++] = tl_xstrdup(e->d_name);
        }
    closedir(d);
    if (n)
        tl_sort(names, n, sizeof(*names), cmp_name);
    for (size_t i = 0; i < n; i++) {
        dir_entry(f, names[i]);
        free(names[i]);
    }
    free(names);
    return 0;
}

/* Does PATH exist now, and what is it? at_open: errors other than its absence are errors. */
static int resolve(struct tl_follow *f, bool at_open, struct tl_err *err)
{
    watch_dir(f); /* before looking, so that a creation right after is not missed */
    struct stat st;
    if (stat(f->path, &st) < 0) {
        if (at_open && errno != ENOENT)
            return tl_error_code(err, TL_ERR_INPUT, "cannot follow %s: %s", f->path,
                                 strerror(errno));
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        f->root = ROOT_DIR;
        unwatch_dir(f);
        watch_dir(f);
        if (scan_dir(f, err) < 0 && at_open)
            return -1;
        return 0;
    }
    f->root = ROOT_FILE;
    add_file(f, tl_xstrdup(f->path), (size_t)(f->base - f->path));
    return 0;
}

static void sweep(struct tl_follow *f)
{
    f->last_sweep = now_ms();
    f->sweep_now = false;
    verify_dir(f);
    watch_dir(f);
    if (f->root == ROOT_WAITING) {
        f->root_dirty = true;
        return;
    }
    if (f->root == ROOT_DIR) {
        struct tl_err ignored;
        scan_dir(f, &ignored); /* a folder gone for now: its files are still open */
    }
    for (size_t i = 0; i < f->nfiles; i++)
        f->files[i].dirty = true;
}

/* ---- inotify events ------------------------------------------------------------------------ */

static void on_event(struct tl_follow *f, const struct inotify_event *ev, const char *name)
{
    if (ev->mask & IN_Q_OVERFLOW) {
        f->sweep_now = true; /* events were lost */
        return;
    }
    if (ev->wd == f->dir_wd) {
        if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)) {
            /* The folder went: look for it (or its replacement) by polling. A moved folder
             * keeps the watch; a deleted one loses it by itself. */
            if (ev->mask & IN_MOVE_SELF)
                inotify_rm_watch(f->ifd, f->dir_wd);
            f->dir_wd = -1;
            f->sweep_now = true;
            return;
        }
        if (!name)
            return;
        if (f->root == ROOT_DIR)
            dir_entry(f, name);
        else if (strcmp(name, f->base) == 0) {
            if (f->root == ROOT_WAITING)
                f->root_dirty = true;
            else
                f->files[0].dirty = true;
        }
        return;
    }
    size_t one = file_of_wd(f, ev->wd);
    if (!one)
        return; /* a watch let go of already */
    size_t from = f->shared_wds ? 0 : one - 1;
    size_t to = f->shared_wds ? f->nfiles : one;
    for (size_t i = from; i < to; i++) {
        struct file *fl = &f->files[i];
        if (fl->wd != ev->wd)
            continue;
        fl->dirty = true;
        if (ev->mask & IN_IGNORED) {
            fl->wd = -1; /* the kernel dropped it (an unmounted file system) */
            f->by_wd[ev->wd] = 0;
            f->degraded = true;
        }
    }
}

/* Read the queued events without waiting. */
static void drain_events(struct tl_follow *f)
{
    _Alignas(struct inotify_event) char buf[16384];
    while (f->ifd >= 0) {
        ssize_t got = read(f->ifd, buf, sizeof(buf));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (got <= 0) {
            /* inotify broke: poll from now on */
            close(f->ifd);
            f->ifd = -1;
            f->dir_wd = -1;
            for (size_t i = 0; i < f->nfiles; i++)
                f->files[i].wd = -1;
            if (f->nby_wd)
                memset(f->by_wd, 0, f->nby_wd * sizeof(*f->by_wd));
            f->sweep_now = true;
            return;
        }
        size_t at = 0;
        while (at + sizeof(struct inotify_event) <= (size_t)got) {
            struct inotify_event ev;
            memcpy(&ev, buf + at, sizeof(ev));
            size_t end = at + sizeof(ev) + ev.len;
            if (end > (size_t)got)
                break;
            const char *name = NULL;
            if (ev.len && memchr(buf + at + sizeof(ev), '\0', ev.len))
                name = buf + at + sizeof(ev);
            on_event(f, &ev, name);
            at = end;
        }
    }
}

/* ---- looking at a file --------------------------------------------------------------------- */

enum opened { OPEN_GONE, OPEN_OK, OPEN_REFUSED };

/* Open fl's path: OPEN_OK and *fd (a regular file, its identity and size in *st), OPEN_GONE
 * when it is not there, OPEN_REFUSED when it cannot be followed (f->why says why); -1 and err
 * when we are out of descriptors. */
static int open_file(struct tl_follow *f, struct file *fl, int *fd, struct stat *st,
                     struct tl_err *err)
{
    *fd = -1;
    /* Looked at before it is opened: a FIFO or a device is not opened at all. */
    if (stat(fl->path, st) < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return OPEN_GONE;
        set_why(f, "cannot read %s: %s", fl->path, strerror(errno));
        return OPEN_REFUSED;
    }
    if (!S_ISREG(st->st_mode)) {
        set_why(f, "%s is not a regular file: --watch follows plain log files only", fl->path);
        return OPEN_REFUSED;
    }
    *fd = open(fl->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (*fd < 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return OPEN_GONE;
        if (e == EMFILE || e == ENFILE || e == ENOMEM)
            return tl_error(err,
                            "cannot open %s: %s (one descriptor per followed file: raise the "
                            "limit with ulimit -n)",
                            fl->path, strerror(e));
        set_why(f, "cannot read %s: %s", fl->path, strerror(e));
        return OPEN_REFUSED;
    }
    if (fstat(*fd, st) < 0 || !S_ISREG(st->st_mode)) { /* swapped since the stat */
        int e = errno;
        close(*fd);
        *fd = -1;
        set_why(f, "cannot read %s: %s", fl->path, e ? strerror(e) : "not a regular file");
        return OPEN_REFUSED;
    }
    return OPEN_OK;
}

/* Start reading fl from the file open as fd. */
static void adopt(struct tl_follow *f, struct file *fl, int fd, const struct stat *st)
{
    fl->fd = fd;
    fl->dev = st->st_dev;
    fl->ino = st->st_ino;
    fl->off = 0;
    fl->plain = false;
    watch_file(f, fl);
}

static void drop(struct tl_follow *f, struct file *fl)
{
    if (fl->fd >= 0)
        close(fl->fd);
    fl->fd = -1;
    unwatch_file(f, fl);
}

static void event(struct tl_follow_event *ev, enum tl_follow_kind kind, const struct file *fl)
{
    ev->kind = kind;
    ev->file = fl->index;
    ev->path = fl->path;
    ev->name = fl->name;
    ev->rank = fl->rank;
}

static int refuse(struct tl_follow *f, struct file *fl, struct tl_follow_event *ev)
{
    drop(f, fl);
    fl->refused = true;
    fl->dirty = false;
    event(ev, TL_FOLLOW_REFUSED, fl);
    ev->why = f->why.buf;
    return 1;
}

enum magic { MAGIC_PLAIN, MAGIC_GZIP, MAGIC_ZSTD, MAGIC_UNSURE };

/* What the first n bytes (n > 0) of a file say it is; unsure while they are the beginning of
 * a magic number. */
static enum magic magic_of(const char *p, size_t n)
{
    static const char gz[2] = {'\x1f', '\x8b'};
    static const char zst[4] = {'\x28', '\xb5', '\x2f', '\xfd'};
    if (n >= sizeof(gz) && memcmp(p, gz, sizeof(gz)) == 0)
        return MAGIC_GZIP;
    if (n >= sizeof(zst) && memcmp(p, zst, sizeof(zst)) == 0)
        return MAGIC_ZSTD;
    if ((n < sizeof(gz) && memcmp(p, gz, n) == 0) || (n < sizeof(zst) && memcmp(p, zst, n) == 0))
        return MAGIC_UNSURE;
    return MAGIC_PLAIN;
}

/* Has the path another file than the one open? Then follow that one from its start: 1 and a
 * RESTART or REFUSED event, 0 when not, -1 on an error. */
static int check_replaced(struct tl_follow *f, struct file *fl, struct tl_follow_event *ev,
                          struct tl_err *err)
{
    struct stat st;
    bool gone = stat(fl->path, &st) < 0;
    if (!gone && st.st_dev == fl->dev && st.st_ino == fl->ino)
        return 0;
    f->dir_suspect = true; /* unlinked or replaced, maybe with its folder */
    if (gone)
        return 0; /* the open file may still grow */
    int fd;
    int r = open_file(f, fl, &fd, &st, err);
    if (r < 0)
        return -1;
    if (r == OPEN_GONE)
        return 0;
    if (r == OPEN_REFUSED)
        return refuse(f, fl, ev);
    if (st.st_dev == fl->dev && st.st_ino == fl->ino) {
        close(fd); /* replaced back meanwhile */
        return 0;
    }
    drop(f, fl);
    adopt(f, fl, fd, &st);
    set_why(f, "%s was replaced: starting over", fl->path);
    event(ev, TL_FOLLOW_RESTART, fl);
    ev->why = f->why.buf;
    return 1;
}

/* Look at the dirty file i: 1 and *ev, 0 when it has nothing (it is clean then), -1 on an
 * error. */
static int check_file(struct tl_follow *f, size_t i, struct tl_follow_event *ev, struct tl_err *err)
{
    struct file *fl = &f->files[i];
    struct stat st;
    if (fl->refused) {
        fl->dirty = false;
        return 0;
    }
    if (!fl->announced) {
        if (stat(fl->path, &st) < 0) {
            fl->dirty = false; /* gone before it was followed: wait for it */
            return 0;
        }
        fl->announced = true;
        fl->index = f->announced++;
        f->cursor = i; /* its bytes next */
        event(ev, TL_FOLLOW_FILE, fl);
        return 1;
    }
    if (fl->fd < 0) {
        int fd;
        int r = open_file(f, fl, &fd, &st, err);
        if (r < 0)
            return -1;
        if (r == OPEN_GONE) {
            fl->dirty = false;
            return 0;
        }
        if (r == OPEN_REFUSED)
            return refuse(f, fl, ev);
        adopt(f, fl, fd, &st);
    } else {
        int r = check_replaced(f, fl, ev, err);
        if (r != 0)
            return r;
    }
    if (fstat(fl->fd, &st) < 0)
        return tl_error(err, "cannot read %s: %s", fl->path, strerror(errno));
    uint64_t size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    if (size < fl->off) {
        set_why(f, "%s was truncated (%llu -> %llu bytes): starting over", fl->path,
                (unsigned long long)fl->off, (unsigned long long)size);
        fl->off = 0;
        fl->plain = false;
        f->cursor = i;
        event(ev, TL_FOLLOW_RESTART, fl);
        ev->why = f->why.buf;
        return 1;
    }
    if (size == fl->off) {
        fl->dirty = false;
        return 0;
    }
    if (!f->buf)
        f->buf = tl_xmalloc(TL_FOLLOW_CHUNK);
    size_t want = size - fl->off < TL_FOLLOW_CHUNK ? (size_t)(size - fl->off) : TL_FOLLOW_CHUNK;
    ssize_t got;
    do
        got = pread(fl->fd, f->buf, want, (off_t)fl->off);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return tl_error(err, "cannot read %s: %s", fl->path, strerror(errno));
    if (got == 0) {
        fl->dirty = false; /* shrunk since the fstat: the next look says so */
        return 0;
    }
    if (!fl->plain) {
        switch (magic_of(f->buf, (size_t)got)) {
        case MAGIC_GZIP:
        case MAGIC_ZSTD:
            set_why(f,
                    "%s is %s-compressed: --watch follows plain logs only; run tlparse on it "
                    "when the job ends",
                    fl->path, magic_of(f->buf, (size_t)got) == MAGIC_GZIP ? "gzip" : "zstd");
            return refuse(f, fl, ev);
        case MAGIC_UNSURE:
            fl->dirty = false; /* hold the bytes back until the magic is whole or broken */
            return 0;
        case MAGIC_PLAIN:
            fl->plain = true;
            break;
        }
    }
    event(ev, TL_FOLLOW_DATA, fl);
    ev->p = f->buf;
    ev->n = (size_t)got;
    ev->off = fl->off;
    fl->off += (uint64_t)got;
    f->cursor = i + 1; /* the next file's turn */
    return 1;
}

/* One event from what is known to have changed: 1, or 0 when nothing has. */
static int serve(struct tl_follow *f, struct tl_follow_event *ev, struct tl_err *err)
{
    if (f->root == ROOT_WAITING && f->root_dirty) {
        f->root_dirty = false;
        if (resolve(f, false, err) < 0)
            return -1;
    }
    size_t n = f->nfiles;
    for (size_t k = 0; k < n; k++) {
        size_t i = (f->cursor + k) % n;
        if (!f->files[i].dirty)
            continue;
        int r = check_file(f, i, ev, err);
        if (r != 0)
            return r;
    }
    return 0;
}

/* ---- the interface ------------------------------------------------------------------------- */

int tl_follow_open(struct tl_follow **out, const char *path, unsigned flags, struct tl_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return tl_error_code(err, TL_ERR_USAGE, "nothing to follow: the path is empty");
    struct tl_follow *f = tl_xcalloc(1, sizeof(*f));
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    f->path = tl_xmemdupz(path, n);
    char *slash = strrchr(f->path, '/');
    if (!slash) {
        f->parent = tl_xstrdup(".");
        f->base = f->path;
    } else {
        f->parent =
            slash == f->path ? tl_xstrdup("/") : tl_xmemdupz(f->path, (size_t)(slash - f->path));
        f->base = slash + 1;
    }
    f->ifd = -1;
    f->dir_wd = -1;
    f->wake_fd = -1;
    tl_buf_init(&f->why, 256);
    tl_arena_init(&f->names_arena, 4096);
    tl_map_init(&f->names, &f->names_arena);
    f->no_safety = flags & TL_FOLLOW_NO_SAFETY;
    if (!(flags & TL_FOLLOW_POLL))
        f->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC); /* -1: poll */
    if (resolve(f, true, err) < 0) {
        tl_follow_free(f);
        return -1;
    }
    f->last_sweep = now_ms();
    *out = f;
    return 0;
}

void tl_follow_free(struct tl_follow *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nfiles; i++) {
        if (f->files[i].fd >= 0)
            close(f->files[i].fd);
        free(f->files[i].path);
    }
    if (f->ifd >= 0)
        close(f->ifd); /* and its watches with it */
    free(f->files);
    tl_map_release(&f->names);
    tl_arena_release(&f->names_arena);
    free(f->by_wd);
    free(f->path);
    free(f->parent);
    free(f->buf);
    tl_buf_release(&f->why);
    free(f);
}

void tl_follow_wake_on(struct tl_follow *f, int fd)
{
    f->wake_fd = fd;
}

void tl_follow_rescan(struct tl_follow *f)
{
    f->sweep_now = true;
}

int tl_follow_fd(const struct tl_follow *f, size_t file)
{
    for (size_t i = 0; i < f->nfiles; i++)
        if (f->files[i].announced && f->files[i].index == file)
            return f->files[i].fd;
    return -1;
}

bool tl_follow_inotify(const struct tl_follow *f)
{
    return f->ifd >= 0;
}

int tl_follow_next(struct tl_follow *f, int timeout_ms, struct tl_follow_event *ev,
                   struct tl_err *err)
{
    memset(ev, 0, sizeof(*ev));
    ev->rank = -1;
    int64_t start = now_ms();
    for (;;) {
        drain_events(f);
        if (f->dir_suspect)
            verify_dir(f);
        if (f->sweep_now || now_ms() - f->last_sweep >= interval(f))
            sweep(f);
        int r = serve(f, ev, err);
        if (r != 0)
            return r < 0 ? -1 : 0;
        int64_t now = now_ms();
        int64_t wait = f->last_sweep + interval(f) - now;
        if (timeout_ms >= 0) {
            int64_t left = start + timeout_ms - now;
            if (left <= 0)
                break;
            if (left < wait)
                wait = left;
        }
        if (wait < 0)
            wait = 0;
        if (wait > INT_MAX)
            wait = INT_MAX;
        /* A negative fd is left out by poll(): without inotify (or nothing to wake on) it is a
         * plain sleep. */
        struct pollfd pfd[2] = {{.fd = f->ifd, .events = POLLIN},
                                {.fd = f->wake_fd, .events = POLLIN}};
        if (poll(pfd, 2, (int)wait) < 0) {
            if (errno == EINTR)
                break; /* a signal: let the caller see to it */
            return tl_error(err, "cannot wait for %s to change: %s", f->path, strerror(errno));
        }
        if (pfd[1].revents)
            break; /* the caller's descriptor: let it read */
    }
    ev->kind = TL_FOLLOW_IDLE;
    return 0;
}
