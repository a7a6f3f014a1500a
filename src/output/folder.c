/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The folder backend of the output (outdir.h): a hidden temporary folder beside the target,
 * every file created through its directory fd with openat2 (RESOLVE_BENEATH) where the kernel
 * has it, names made safe and unique, and the final rename into place (swapped atomically under
 * --overwrite). Also a sub-folder of such an output, and an existing folder written in place.
 */
#include "base/config.h"
#include "output/outdir.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

struct folder {
    char *tmp;   /* the temporary folder's path (a sub-folder's: its path in the parent's) */
    char **made; /* parent folders of the target that we created (removed on abort) */
    size_t nmade;
    int dirfd; /* open on tmp */
    bool overwrite;
    bool in_place;   /* a folder of another output, or an existing one: nothing to rename */
    bool sub;        /* a folder of another output (tmp: its path): abort removes it */
    bool no_openat2; /* the kernel refused openat2: plain openat with O_NOFOLLOW */
    bool opened;     /* a file was created: no_openat2 is settled */
    bool has_subs;   /* sub-folders were opened, with writers of their own (set by the
                        threads of several ranks at once: atomic) */
    bool deferred;   /* files were given to the writer to create (see folder_write) */
    struct tl_arena arena;
    struct tl_map dirs; /* sub-folders already created */
    /* Files write_once created: name -> struct once (what they hold), so that a name that
     * comes again is compared with what was written, not read back (and waited for). */
    struct tl_map once;
};

/* What write_once wrote under a name: its length and tl_map_hash. A name comes again with the
 * same payload (content-addressed names); other bytes under it (a log's wrong has_payload)
 * differ in length or hash. Two payloads that agree in both under one name are taken for the
 * same: that needs a wrong name and a 64-bit collision of tl_map_hash, in a log made for it,
 * and costs that record's link the earlier bytes. */
struct once {
    uint64_t n, hash;
};

static const struct tl_output_ops folder_ops;

static struct folder *folder_of(struct tl_outdir *o)
{
    return o->impl;
}

static struct folder *new_folder(void)
{
    struct folder *d = tl_xcalloc(1, sizeof(*d));
    d->dirfd = -1;
    tl_arena_init(&d->arena, 16 * 1024);
    tl_map_init(&d->dirs, &d->arena);
    tl_map_init(&d->once, &d->arena);
    return d;
}

static void free_made(struct folder *d)
{
    for (size_t i = 0; i < d->nmade; i++)
        free(d->made[i]);
    free(d->made);
    d->made = NULL;
    d->nmade = 0;
}

static void free_folder(struct folder *d)
{
    free_made(d);
    if (d->dirfd >= 0)
        close(d->dirfd);
    free(d->tmp);
    tl_map_release(&d->dirs);
    tl_map_release(&d->once);
    tl_arena_release(&d->arena);
    free(d);
}

/* mkdir -p for the target's parents; remembers which folders it made so that
 * a failed run can remove them again. */
static int mkdir_parents(struct folder *d, const char *path, struct tl_err *err)
{
    char *p = tl_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/' || s[-1] == '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) == 0) {
            d->made = tl_xreallocarray(d->made, d->nmade + 1, sizeof(*d->made));
            d->made[d->nmade++] = tl_xstrdup(p);
        } else if (errno != EEXIST) {
            int e = errno;
            tl_error(err, "cannot create folder %s: %s", p, strerror(e));
            free(p);
            return -1;
        }
        *s = '/';
    }
    free(p);
    return 0;
}

static void remove_made(struct folder *d)
{
    for (size_t i = d->nmade; i > 0; i--)
        rmdir(d->made[i - 1]); /* fails, harmlessly, if not empty */
}

/* The temporary folder of target in d; -1 with err (and d's made folders removed). */
static int open_target(struct folder *d, const char *target, const char *given, bool overwrite,
                       size_t *nleftovers, struct tl_buf *leftovers, struct tl_err *err)
{
    struct stat st;
    if (lstat(target, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return tl_error_code(err, TL_ERR_EXISTS,
                                 "%s exists and is not a folder; not replacing it (use -o "
                                 "OUTDIR to write the report elsewhere)",
                                 given);
        if (!overwrite)
            return tl_error_code(err, TL_ERR_EXISTS,
                                 "Directory %s already exists; pass --overwrite to replace it or "
                                 "use -o OUTDIR",
                                 given);
    } else if (errno != ENOENT) {
        return tl_error(err, "cannot access %s: %s", target, strerror(errno));
    }
    if (mkdir_parents(d, target, err) < 0) {
        remove_made(d);
        return -1;
    }
    char *copy1 = tl_xstrdup(target), *copy2 = tl_xstrdup(target);
    const char *dir = dirname(copy1);
    const char *base = basename(copy2);
    *nleftovers = tl_leftovers_remove(dir, base, leftovers);
    size_t len = strlen(dir) + strlen(base) + 32;
    d->tmp = tl_xmalloc(len);
    snprintf(d->tmp, len, "%s/.%s.tlparse-XXXXXX", dir, base);
    free(copy1);
    free(copy2);
    if (!mkdtemp(d->tmp)) {
        int e = errno;
        tl_error(err, "cannot create a folder beside %s: %s", target, strerror(e));
        free(d->tmp);
        d->tmp = NULL;
        remove_made(d);
        return -1;
    }
    /* mkdtemp makes the folder private (0700), and it stays so while it is
     * written: nobody else can plant a link in it. It gets the user's usual
     * mode when it is moved into place. */
    d->dirfd = open(d->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d->dirfd < 0 || tl_owner_write(d->dirfd) < 0) {
        int e = errno;
        tl_remove_tree(d->tmp);
        remove_made(d);
        return tl_error(err, "cannot open %s: %s", target, strerror(e));
    }
    d->overwrite = overwrite;
    return 0;
}

int tl_outdir_open(struct tl_outdir *o, const char *target_arg, bool overwrite, struct tl_err *err)
{
    /* "out/" must mean the folder out, not what a link named out points to. */
    char *target = tl_xstrdup(target_arg);
    for (size_t n = strlen(target); n > 1 && target[n - 1] == '/'; n--)
        target[n - 1] = '\0';
    struct folder *d = new_folder();
    struct tl_buf leftovers = TL_BUF_INIT;
    size_t nleftovers = 0;
    int rc = open_target(d, target, target_arg, overwrite, &nleftovers, &leftovers, err);
    if (rc < 0) {
        free_folder(d);
        tl_buf_release(&leftovers);
        memset(o, 0, sizeof(*o));
        tl_buf_init(&o->leftovers, 0);
    } else {
        tl_outdir_init_front(o, &folder_ops, d, target);
        o->nleftovers = nleftovers;
        tl_buf_release(&o->leftovers);
        o->leftovers = leftovers;
    }
    free(target);
    return rc;
}

/* Errors that mean "this name is taken by something of another kind". */
static bool is_collision(int e)
{
    /* EXDEV: openat2 refused to leave the folder */
    return e == ENOTDIR || e == EISDIR || e == EEXIST || e == ELOOP || e == ENAMETOOLONG ||
           e == EXDEV;
}

/* Create the parent folders of rel inside the report (once each). Returns 0,
 * 1 when a parent is taken by a file, -1 on other errors. */
static int make_parents(struct tl_outdir *o, const char *rel, struct tl_err *err)
{
    struct folder *d = folder_of(o);
    const char *slash = strrchr(rel, '/');
    if (!slash)
        return 0;
    struct tl_str dir = tl_str_make(rel, (size_t)(slash - rel));
    if (tl_map_get(&d->dirs, dir))
        return 0;
    char *p = tl_xmemdupz(dir.p, dir.n);
    int rc = 0;
    for (char *s = p;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct tl_str part = tl_str_cstr(p);
        if (!tl_map_get(&d->dirs, part)) {
            struct stat st;
            if (mkdirat(d->dirfd, p, 0777) < 0) {
                int e = errno;
                if (e == EEXIST && fstatat(d->dirfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISDIR(st.st_mode)) {
                    /* made by an earlier name: fine */
                } else if (is_collision(e)) {
                    rc = 1;
                    break;
                } else {
                    rc = tl_error(err, "cannot create folder %s/%s: %s", o->target, p, strerror(e));
                    break;
                }
            }
            tl_map_put(&d->dirs, part, (void *)1);
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return rc;
}

/* openat that cannot leave dirfd, through ".." or any symbolic link, where
 * the kernel offers openat2 (5.6+); plain openat with O_NOFOLLOW elsewhere. */
static int open_beneath(struct folder *d, const char *rel, int flags)
{
    int dirfd = d->dirfd;
#ifdef SYS_openat2
    if (!d->no_openat2) {
        struct open_how how;
        memset(&how, 0, sizeof(how));
        how.flags = (uint64_t)flags;
        how.mode = (flags & O_CREAT) ? 0666 : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
        long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) {
            d->opened |= fd >= 0;
            return (int)fd;
        }
        d->no_openat2 = true; /* not there, or filtered (seccomp gives EPERM) */
    }
#endif
    int fd = openat(dirfd, rel, flags, 0666);
    d->opened |= fd >= 0;
    return fd;
}

/* open_beneath's creation of a file for folder_write, on the writer's thread: it changes
 * nothing in the folder's state (no_openat2 is settled before any file is deferred). */
static int open_deferred(void *ctx, const char *rel)
{
    const struct folder *d = ctx;
    int flags = O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
#ifdef SYS_openat2
    if (!d->no_openat2) {
        struct open_how how;
        memset(&how, 0, sizeof(how));
        how.flags = (uint64_t)flags;
        how.mode = 0666;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
        long fd = syscall(SYS_openat2, d->dirfd, rel, &how, sizeof(how));
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
            return (int)fd;
    }
#endif
    return openat(d->dirfd, rel, flags, 0666);
}

/* Wait for the writer when it has yet to create rel or one of its parent folders' names, so
 * that what the caller does to rel next sees the folder as the calls so far left it. */
static int settle(struct tl_outdir *o, const char *rel, struct tl_err *err)
{
    if (!folder_of(o)->deferred)
        return 0;
    for (const char *s = rel;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        if (tl_writer_pending(o->writer, rel, (size_t)(s - rel)))
            return tl_writer_sync(o->writer, err);
        if (!*s)
            return 0;
    }
}

/* Wait for every file the writer has yet to create (a failure stays with the writer, for its
 * next call to report). */
static void settle_all(struct tl_outdir *o)
{
    if (folder_of(o)->deferred)
        tl_writer_sync(o->writer, NULL);
}

/* Whether creating rel can be left to the writer: the folder is our fresh temporary one, with
 * no other writer in it, and rel a plain relative path whose creation cannot fail for a reason
 * that would change its name (see is_collision): none of its parts is empty, "." or "..", or
 * longer than a name may be. Whether rel is a folder already, or a parent a file, the caller
 * checks. */
static bool can_defer(struct tl_outdir *o, const char *rel)
{
    const struct folder *d = folder_of(o);
    if (d->in_place || __atomic_load_n(&d->has_subs, __ATOMIC_RELAXED) || !d->opened ||
        !tl_writer_threaded(o->writer))
        return false;
    size_t part = 0, len = 0;
    for (const char *s = rel;; s++, len++) {
        if (*s != '/' && *s != '\0') {
            part++;
            continue;
        }
        if (part == 0 || part > NAME_MAX ||
            (s[-1] == '.' && (part == 1 || (part == 2 && s[-2] == '.'))))
            return false;
        if (!*s)
            return len < PATH_MAX;
        part = 0;
    }
}

/* Open rel with flags; 1 when the name collides. */
static int try_open(struct tl_outdir *o, const char *rel, int flags, int *fd, struct tl_err *err)
{
    if (settle(o, rel, err) < 0)
        return -1;
    int r = make_parents(o, rel, err);
    if (r != 0)
        return r;
    int f = open_beneath(folder_of(o), rel, flags | O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (f < 0) {
        int e = errno;
        if (is_collision(e))
            return 1;
        return tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(e));
    }
    *fd = f;
    return 0;
}

static int create(struct tl_outdir *o, const char *rel, int flags, int *fd, struct tl_buf *used,
                  struct tl_err *err)
{
    int r = try_open(o, rel, flags, fd, err);
    if (r == 0 && used)
        tl_buf_adds(used, rel);
    if (r <= 0) {
        if (r == 0)
            o->files++;
        return r;
    }
    /* The name is taken by a folder, or a parent by a file: use a flat name
     * in the same top folder, unique among what is there. */
    struct tl_buf alt = TL_BUF_INIT;
    for (unsigned n = 0; n < 10000; n++) {
        tl_buf_reset(&alt);
        char tag[16];
        snprintf(tag, sizeof(tag), "~%u", n);
        tl_outdir_flat_name(&alt, rel, n ? tag : NULL);
        r = try_open(o, alt.buf, O_CREAT | O_EXCL, fd, err);
        if (r <= 0)
            break;
    }
    if (r == 0) {
        o->files++;
        if (used)
            tl_buf_addstr(used, tl_buf_str(&alt));
    } else if (r > 0) {
        r = tl_error(err, "cannot write %s/%s: no free name", o->target, rel);
    }
    tl_buf_release(&alt);
    return r;
}

static int folder_create(struct tl_outdir *o, const char *rel, struct tl_buf *used, int *fd,
                         struct tl_err *err)
{
    return create(o, rel, O_CREAT | O_TRUNC, fd, used, err);
}

static int write_close(struct tl_outdir *o, int fd, const char *name, const void *p, size_t n,
                       struct tl_err *err)
{
    o->bytes += n;
    return tl_writer_write(o->writer, fd, true, p, n, name, err);
}

/* A file created on the writer's thread: when rel's parents are folders and rel is not one,
 * the creation cannot collide, and its outcome is known now. */
static int deferred_write(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                          struct tl_buf *used, struct tl_err *err)
{
    struct folder *d = folder_of(o);
    if (settle(o, rel, err) < 0)
        return -1;
    int r = make_parents(o, rel, err);
    if (r != 0 || tl_map_get(&d->dirs, tl_str_cstr(rel)))
        return r < 0 ? -1 : 1;
    d->deferred = true;
    o->files++;
    o->bytes += n;
    if (used)
        tl_buf_adds(used, rel);
    return tl_writer_create_write(o->writer, open_deferred, d, p, n, rel, err);
}

static int folder_write(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                        struct tl_buf *used, struct tl_err *err)
{
    if (can_defer(o, rel)) {
        int r = deferred_write(o, rel, p, n, used, err);
        if (r <= 0)
            return r;
    }
    int fd;
    size_t mark = used ? used->len : 0;
    if (folder_create(o, rel, used, &fd, err) < 0)
        return -1;
    return write_close(o, fd, used ? used->buf + mark : rel, p, n, err);
}

/* Whether the file rel holds exactly p[0..n). */
static bool same_content(struct folder *d, const char *rel, const void *p, size_t n)
{
    int fd = openat(d->dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat st;
    bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == n;
    char buf[65536];
    size_t off = 0;
    while (same && off < n) {
        ssize_t r = read(fd, buf, sizeof(buf));
        if (r <= 0 || (size_t)r > n - off || memcmp(buf, (const char *)p + off, (size_t)r) != 0)
            same = false;
        else
            off += (size_t)r;
    }
    close(fd);
    return same;
}

static int folder_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                       struct tl_err *err);

/* Move the bytes of rel (other than the caller's) to a variant name, as write_once would
 * have named them: the name of their content, else "~N"; when a variant holds them already,
 * rel is just removed. */
static int move_aside(struct tl_outdir *o, const char *rel, struct tl_err *err)
{
    struct folder *d = folder_of(o);
    struct tl_buf old = TL_BUF_INIT, name = TL_BUF_INIT;
    int rc = folder_read(o, rel, &old, SIZE_MAX, err); /* waits for the writer */
    for (unsigned k = 1; rc == 0 && k < 10000; k++) {
        char tag[24];
        if (k == 1)
            snprintf(tag, sizeof(tag), "~%016llx", (unsigned long long)tl_hash(old.buf, old.len));
        else
            snprintf(tag, sizeof(tag), "~%u", k);
        tl_buf_reset(&name);
        tl_outdir_flat_name(&name, rel, tag);
        if (renameat2(d->dirfd, rel, d->dirfd, name.buf, RENAME_NOREPLACE) == 0)
            break;
        if (errno != EEXIST) {
            rc = tl_error(err, "cannot rename %s/%s: %s", o->target, rel, strerror(errno));
        } else if (same_content(d, name.buf, old.buf, old.len)) {
            if (unlinkat(d->dirfd, rel, 0) < 0)
                rc = tl_error(err, "cannot remove %s/%s: %s", o->target, rel, strerror(errno));
            break;
        }
    }
    tl_buf_release(&old);
    tl_buf_release(&name);
    return rc;
}

/* write_once, and with rightful(p, n, ctx) true on a collision, rel is taken over. */
static int folder_write_once(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                             bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                             struct tl_buf *used, struct tl_err *err)
{
    struct folder *d = folder_of(o);
    struct tl_buf name = TL_BUF_INIT;
    int rc = -1;
    bool failed_io = false; /* err already says why */
    for (unsigned k = 0; k < 10000; k++) {
        tl_buf_reset(&name);
        /* The name; then one named by the content, so that however many
         * payloads share a bad name, each costs two probes; then ~N. */
        char tag[24];
        if (k == 1)
            snprintf(tag, sizeof(tag), "~%016llx", (unsigned long long)tl_hash(p, n));
        else
            snprintf(tag, sizeof(tag), "~%u", k);
        if (k == 0)
            tl_buf_adds(&name, rel);
        else
            tl_outdir_flat_name(&name, rel, tag);
        /* A name this run wrote: its bytes are known, and the same again need no system call. */
        const struct once *known = tl_map_get(&d->once, tl_buf_str(&name));
        if (known && known->n == n && known->hash == tl_map_hash(p, n)) {
            rc = 0;
            if (used)
                tl_buf_addstr(used, tl_buf_str(&name));
            break;
        }
        int fd;
        int r = try_open(o, name.buf, O_CREAT | O_EXCL, &fd, err);
        if (r < 0) {
            failed_io = true;
            break;
        }
        if (r == 0) {
            o->files++;
            rc = write_close(o, fd, name.buf, p, n, err);
            failed_io = rc < 0;
            if (rc == 0) {
                struct once *w = tl_arena_alloc(&d->arena, sizeof(*w));
                *w = (struct once){n, tl_map_hash(p, n)};
                tl_map_put(&d->once, tl_buf_str(&name), w);
            }
        } else if (!known && tl_writer_sync_file(o->writer, name.buf, err) < 0) {
            failed_io = true; /* the file may not be written yet */
            break;
        } else if (!known && same_content(d, name.buf, p, n)) {
            rc = 0; /* already there: content-addressed names repeat */
        } else if (k == 0 && rightful && rightful(p, n, ctx)) {
            tl_map_put(&d->once, tl_str_cstr(rel), NULL); /* its bytes move: read them */
            if (move_aside(o, rel, err) < 0) {
                failed_io = true;
                break;
            }
            k = (unsigned)-1; /* rel is free again: try it once more */
            rightful = NULL;
            continue;
        } else {
            continue;
        }
        if (rc == 0 && used)
            tl_buf_addstr(used, tl_buf_str(&name));
        break;
    }
    if (rc < 0 && !failed_io)
        tl_error(err, "cannot write %s/%s: no free name", o->target, rel);
    tl_buf_release(&name);
    return rc;
}

/* Written beside rel under a hidden name, then renamed over it, within the folder's fd: a
 * reader sees the old file or the new one. */
static int folder_replace(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                          struct tl_err *err)
{
    struct folder *d = folder_of(o);
    settle_all(o);
    struct tl_buf tmp = TL_BUF_INIT;
    tl_buf_addf(&tmp, ".%s.tmp", rel);
    int rc = 0;
    int fd = open_beneath(d, tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        rc = tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(errno));
    } else {
        if (tl_write_all(fd, p, n) < 0)
            rc = tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(errno));
        if (close(fd) < 0 && rc == 0)
            rc = tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(errno));
        if (rc == 0 && renameat(d->dirfd, tmp.buf, d->dirfd, rel) < 0)
            rc = tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(errno));
        if (rc < 0)
            unlinkat(d->dirfd, tmp.buf, 0);
    }
    tl_buf_release(&tmp);
    return rc;
}

/* Unnamed in the folder (it never shows), on its file system. */
static int folder_spool(struct tl_outdir *o, const char *name, int *fd, struct tl_err *err)
{
    struct folder *d = folder_of(o);
    *fd = openat(d->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (*fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR) && d->tmp) {
        /* no O_TMPFILE on this file system: a name in the temporary folder, unlinked */
        struct tl_buf t = TL_BUF_INIT;
        tl_buf_addf(&t, "%s/.spool-XXXXXX", d->tmp);
        if ((*fd = mkostemp(t.buf, O_CLOEXEC)) >= 0)
            unlink(t.buf);
        tl_buf_release(&t);
    }
    if (*fd < 0)
        return tl_error(err, "cannot write %s/%s: %s", o->target, name, strerror(errno));
    return 0;
}

static void release(struct tl_outdir *o)
{
    if (o->impl)
        free_folder(o->impl);
    o->impl = NULL;
    tl_outdir_release_front(o);
}

static int folder_open_sub(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                           struct tl_err *err)
{
    struct folder *p = folder_of(parent);
    memset(child, 0, sizeof(*child));
    tl_buf_init(&child->leftovers, 0);
    settle_all(parent);
    __atomic_store_n(&p->has_subs, true, __ATOMIC_RELAXED);
    if (mkdirat(p->dirfd, name, 0777) < 0 && errno != EEXIST)
        return tl_error(err, "cannot create %s/%s: %s", parent->target, name, strerror(errno));
    int fd = openat(p->dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return tl_error(err, "cannot open %s/%s: %s", parent->target, name, strerror(errno));
    struct folder *d = new_folder();
    d->dirfd = fd;
    d->in_place = true;
    d->sub = true;
    d->no_openat2 = p->no_openat2;
    struct tl_buf t = TL_BUF_INIT;
    if (p->tmp) {
        tl_buf_addf(&t, "%s/%s", p->tmp, name);
        d->tmp = tl_buf_detach(&t, NULL);
    }
    tl_buf_addf(&t, "%s/%s", parent->target, name);
    tl_outdir_init_front(child, &folder_ops, d, t.buf);
    tl_buf_release(&t);
    return 0;
}

int tl_outdir_open_in_place(struct tl_outdir *o, const char *path, struct tl_err *err)
{
    memset(o, 0, sizeof(*o));
    tl_buf_init(&o->leftovers, 0);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return tl_error_code(err, TL_ERR_INPUT, "cannot open the folder %s: %s", path,
                             strerror(errno));
    struct folder *d = new_folder();
    d->dirfd = fd;
    d->in_place = true;
    tl_outdir_init_front(o, &folder_ops, d, path);
    return 0;
}

static int folder_read_open(struct tl_outdir *o, const char *rel, int *fd, struct tl_err *err)
{
    if (tl_writer_sync(o->writer, err) < 0)
        return -1;
    *fd = openat(folder_of(o)->dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (*fd < 0)
        return tl_error(err, "cannot read %s/%s: %s", o->target, rel, strerror(errno));
    return 0;
}

static int folder_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                       struct tl_err *err)
{
    int fd;
    if (folder_read_open(o, rel, &fd, err) < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        close(fd);
        return tl_error(err, "%s/%s is not a file of at most %zu bytes", o->target, rel, max);
    }
    tl_buf_grow(out, (size_t)st.st_size);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, out->buf + out->len + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    tl_buf_setlen(out, out->len + got);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int folder_list(struct tl_outdir *o, const char *rel, bool fs_order, char ***names,
                       size_t *n)
{
    settle_all(o);
    int fd = openat(folder_of(o)->dirfd, *rel ? rel : ".",
                    O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    char **v = NULL;
    size_t len = 0, alloc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        TL_GROW(v, len + 1, alloc);
        v[len++] = tl_xstrdup(e->d_name);
    }
    closedir(d);
    if (!fs_order && len)
        tl_sort(v, len, sizeof(*v), cmp_names);
    *names = v;
    *n = len;
    return 0;
}

static int folder_remove(struct tl_outdir *o, const char *rel)
{
    settle_all(o);
    if (unlinkat(folder_of(o)->dirfd, rel, 0) == 0 || errno == ENOENT)
        return 0;
    return -1;
}

/* Through the folder's descriptor (/proc/self/fd/N names the folder wherever it was renamed
 * to: a published output's temporary path is gone). */
static int folder_remove_folder(struct tl_outdir *o, const char *rel)
{
    settle_all(o);
    struct folder *d = folder_of(o);
    struct stat st;
    if (fstatat(d->dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return -1;
    struct tl_buf path = TL_BUF_INIT;
    tl_buf_addf(&path, "/proc/self/fd/%d/%s", d->dirfd, rel);
    int rc = tl_remove_tree(path.buf);
    tl_buf_release(&path);
    return rc;
}

static bool folder_is_dir(struct tl_outdir *o, const char *rel)
{
    settle_all(o);
    struct stat st;
    return fstatat(folder_of(o)->dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static void folder_abort(struct tl_outdir *o)
{
    struct folder *d = folder_of(o);
    /* Stop writing first: the worker may hold files of the folder. */
    tl_writer_free(o->writer);
    o->writer = NULL;
    if (d->tmp && (!d->in_place || d->sub))
        tl_remove_tree(d->tmp);
    remove_made(d);
    release(o);
}

/* The temporary folder renamed to the target (swapped with an old report under --overwrite, the
 * old one removed). On failure the temporary folder is removed, unless keep. */
static int into_place(struct tl_outdir *o, bool keep, struct tl_err *err)
{
    struct folder *d = folder_of(o);
    struct stat st;
    int rc = 0;
    tl_owner_remove(d->dirfd);
    mode_t um = umask(0); /* umask() reads by setting: put it back */
    umask(um);
    fchmod(d->dirfd, 0777 & ~um);
    if (lstat(o->target, &st) == 0) {
        if (!d->overwrite || !S_ISDIR(st.st_mode)) {
            rc = tl_error_code(err, TL_ERR_EXISTS,
                               "Directory %s appeared while tlparse ran; not replacing it",
                               o->target);
        } else if (renameat2(AT_FDCWD, d->tmp, AT_FDCWD, o->target, RENAME_EXCHANGE) == 0) {
            /* The old report now sits at the temporary name. */
            tl_remove_tree(d->tmp);
            return 0;
        } else if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
            rc = tl_error(err, "cannot replace %s: %s", o->target, strerror(errno));
        } else {
            /* No atomic exchange on this file system: move the old report
             * aside first, so that a failure leaves it intact. */
            size_t len = strlen(d->tmp) + 8;
            char *old = tl_xmalloc(len);
            snprintf(old, len, "%s.old", d->tmp);
            if (rename(o->target, old) < 0) {
                rc = tl_error(err, "cannot replace %s: %s", o->target, strerror(errno));
            } else if (rename(d->tmp, o->target) < 0) {
                int e = errno;
                if (rename(old, o->target) == 0)
                    rc = tl_error(err, "cannot replace %s: %s", o->target, strerror(e));
                else
                    rc = tl_error(err, "cannot replace %s: %s; the previous report is kept at %s",
                                  o->target, strerror(e), old);
            } else {
                tl_remove_tree(old);
            }
            free(old);
        }
    } else if (rename(d->tmp, o->target) < 0) {
        rc = tl_error(err, "cannot create %s: %s", o->target, strerror(errno));
    }
    if (rc < 0 && !keep)
        tl_remove_tree(d->tmp);
    return rc;
}

static int folder_commit(struct tl_outdir *o, struct tl_err *err)
{
    struct folder *d = folder_of(o);
    if (tl_writer_sync(o->writer, err) < 0) {
        folder_abort(o);
        return -1;
    }
    int rc = d->in_place ? 0 : into_place(o, false, err);
    release(o);
    return rc;
}

/* The folder goes to its target now, and is written there from then on (its fd follows it). */
static int folder_publish(struct tl_outdir *o, struct tl_err *err)
{
    struct folder *d = folder_of(o);
    if (d->in_place)
        return 0;
    if (tl_writer_sync(o->writer, err) < 0 || into_place(o, true, err) < 0)
        return -1;
    free(d->tmp);
    d->tmp = tl_xstrdup(o->target);
    d->in_place = true; /* what a failure leaves is the user's report now */
    return 0;
}

static const struct tl_output_ops folder_ops = {
    .what = "folder",
    .create = folder_create,
    .write = folder_write,
    .write_once = folder_write_once,
    .replace = folder_replace,
    .spool = folder_spool,
    .open_sub = folder_open_sub,
    .read = folder_read,
    .read_open = folder_read_open,
    .list = folder_list,
    .remove = folder_remove,
    .remove_folder = folder_remove_folder,
    .is_dir = folder_is_dir,
    .commit = folder_commit,
    .publish = folder_publish,
    .abort = folder_abort,
};
