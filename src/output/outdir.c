/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report folder: a hidden temporary folder beside the target, every file created through
 * its directory fd with openat2 (RESOLVE_BENEATH) where the kernel has it, names made safe and
 * unique, and the final rename into place (swapped atomically under --overwrite).
 */
#include "base/config.h"
#include "output/outdir.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

static int open_target(struct tl_outdir *o, const char *target, const char *given, bool overwrite,
                       struct tl_err *err);

/* mkdir -p for the target's parents; remembers which folders it made so that
 * a failed run can remove them again. */
static int mkdir_parents(struct tl_outdir *o, const char *path, struct tl_err *err)
{
    char *p = tl_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/' || s[-1] == '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) == 0) {
            o->made = tl_xreallocarray(o->made, o->nmade + 1, sizeof(*o->made));
            o->made[o->nmade++] = tl_xstrdup(p);
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

static void remove_made(struct tl_outdir *o)
{
    for (size_t i = o->nmade; i > 0; i--)
        rmdir(o->made[i - 1]); /* fails, harmlessly, if not empty */
}

static void free_made(struct tl_outdir *o)
{
    for (size_t i = 0; i < o->nmade; i++)
        free(o->made[i]);
    free(o->made);
    o->made = NULL;
    o->nmade = 0;
}

int tl_outdir_open(struct tl_outdir *o, const char *target_arg, bool overwrite, struct tl_err *err)
{
    memset(o, 0, sizeof(*o));
    o->dirfd = -1;
    tl_buf_init(&o->leftovers, 0);
    /* "out/" must mean the folder out, not what a link named out points to. */
    char *target = tl_xstrdup(target_arg);
    for (size_t n = strlen(target); n > 1 && target[n - 1] == '/'; n--)
        target[n - 1] = '\0';
    int rc = open_target(o, target, target_arg, overwrite, err);
    free(target);
    if (rc < 0)
        tl_buf_release(&o->leftovers);
    return rc;
}

static int open_target(struct tl_outdir *o, const char *target, const char *given, bool overwrite,
                       struct tl_err *err)
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
    if (mkdir_parents(o, target, err) < 0) {
        remove_made(o);
        free_made(o);
        return -1;
    }
    char *copy1 = tl_xstrdup(target), *copy2 = tl_xstrdup(target);
    const char *dir = dirname(copy1);
    const char *base = basename(copy2);
    o->nleftovers = tl_leftovers_remove(dir, base, &o->leftovers);
    size_t len = strlen(dir) + strlen(base) + 32;
    o->tmp = tl_xmalloc(len);
    snprintf(o->tmp, len, "%s/.%s.tlparse-XXXXXX", dir, base);
    free(copy1);
    free(copy2);
    if (!mkdtemp(o->tmp)) {
        int e = errno;
        tl_error(err, "cannot create a folder beside %s: %s", target, strerror(e));
        free(o->tmp);
        o->tmp = NULL;
        remove_made(o);
        free_made(o);
        return -1;
    }
    /* mkdtemp makes the folder private (0700), and it stays so while it is
     * written: nobody else can plant a link in it. It gets the user's usual
     * mode when it is moved into place. */
    o->dirfd = open(o->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (o->dirfd < 0 || tl_owner_write(o->dirfd) < 0) {
        int e = errno;
        if (o->dirfd >= 0)
            close(o->dirfd);
        o->dirfd = -1;
        tl_remove_tree(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        remove_made(o);
        free_made(o);
        return tl_error(err, "cannot open %s: %s", target, strerror(e));
    }
    o->target = tl_xstrdup(target);
    o->overwrite = overwrite;
    o->writer = tl_writer_new(target, WRITE_BEHIND_BYTES, false);
    tl_arena_init(&o->arena, 16 * 1024);
    tl_map_init(&o->dirs, &o->arena);
    return 0;
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
    const char *slash = strrchr(rel, '/');
    if (!slash)
        return 0;
    struct tl_str dir = tl_str_make(rel, (size_t)(slash - rel));
    if (tl_map_get(&o->dirs, dir))
        return 0;
    char *p = tl_xmemdupz(dir.p, dir.n);
    int rc = 0;
    for (char *s = p;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct tl_str part = tl_str_cstr(p);
        if (!tl_map_get(&o->dirs, part)) {
            struct stat st;
            if (mkdirat(o->dirfd, p, 0777) < 0) {
                int e = errno;
                if (e == EEXIST && fstatat(o->dirfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
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
            tl_map_put(&o->dirs, part, (void *)1);
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return rc;
}

/* rel with the folders after the first flattened into its file name, and
 * "~n" before the extension when n > 0: the fallback for colliding names. */
void tl_outdir_flat_name(struct tl_buf *out, const char *rel, const char *tag)
{
    const char *slash = strchr(rel, '/');
    size_t top = slash ? (size_t)(slash - rel) + 1 : 0;
    tl_buf_add(out, rel, top);
    size_t start = out->len;
    for (const char *p = rel + top; *p; p++)
        tl_buf_addch(out, *p == '/' ? '_' : *p);
    size_t len = out->len - start;
    if (len > 200) {
        /* keep the tail, which holds the number and the extension, starting
         * on a UTF-8 character boundary */
        size_t cut = len - 180;
        while (cut < len && ((unsigned char)out->buf[start + cut] & 0xC0) == 0x80)
            cut++;
        memmove(out->buf + start, out->buf + start + cut, len - cut);
        tl_buf_setlen(out, out->len - cut);
    }
    if (!tag)
        return;
    char *dot = strrchr(out->buf + start, '.');
    if (dot && dot > out->buf + start) {
        size_t at = (size_t)(dot - out->buf);
        size_t tn = strlen(tag);
        tl_buf_grow(out, tn);
        memmove(out->buf + at + tn, out->buf + at, out->len - at + 1);
        memcpy(out->buf + at, tag, tn);
        out->len += tn;
    } else {
        tl_buf_adds(out, tag);
    }
}

/* openat that cannot leave dirfd, through ".." or any symbolic link, where
 * the kernel offers openat2 (5.6+); plain openat with O_NOFOLLOW elsewhere. */
static int open_beneath(struct tl_outdir *o, const char *rel, int flags)
{
    int dirfd = o->dirfd;
#ifdef SYS_openat2
    if (!o->no_openat2) {
        struct open_how how;
        memset(&how, 0, sizeof(how));
        how.flags = (uint64_t)flags;
        how.mode = (flags & O_CREAT) ? 0666 : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
        long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
            return (int)fd;
        o->no_openat2 = true; /* not there, or filtered (seccomp gives EPERM) */
    }
#endif
    return openat(dirfd, rel, flags, 0666);
}

/* Open rel with flags; 1 when the name collides. */
static int try_open(struct tl_outdir *o, const char *rel, int flags, int *fd, struct tl_err *err)
{
    int r = make_parents(o, rel, err);
    if (r != 0)
        return r;
    int f = open_beneath(o, rel, flags | O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
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

int tl_outdir_create(struct tl_outdir *o, const char *rel, int *fd, struct tl_buf *used,
                     struct tl_err *err)
{
    if (o->stream)
        return o->stream_ops->create(o, rel, fd, used, err);
    return create(o, rel, O_CREAT | O_TRUNC, fd, used, err);
}

static int write_close(struct tl_outdir *o, int fd, const char *name, const void *p, size_t n,
                       struct tl_err *err)
{
    o->bytes += n;
    return tl_writer_write(o->writer, fd, true, p, n, name, err);
}

void tl_outdir_write_behind(struct tl_outdir *o, bool on)
{
    if (tl_writer_threaded(o->writer) == on)
        return;
    tl_writer_sync(o->writer, NULL);
    tl_writer_free(o->writer);
    o->writer = tl_writer_new(o->target, WRITE_BEHIND_BYTES, on);
}

int tl_outdir_sync(struct tl_outdir *o, struct tl_err *err)
{
    return tl_writer_sync(o->writer, err);
}

int tl_outdir_write(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                    struct tl_buf *used, struct tl_err *err)
{
    if (o->stream)
        return o->stream_ops->write(o, rel, p, n, false, used, err);
    int fd;
    size_t mark = used ? used->len : 0;
    if (tl_outdir_create(o, rel, &fd, used, err) < 0)
        return -1;
    return write_close(o, fd, used ? used->buf + mark : rel, p, n, err);
}

/* Whether the file rel holds exactly p[0..n). */
static bool same_content(struct tl_outdir *o, const char *rel, const void *p, size_t n)
{
    int fd = openat(o->dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
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

/* Move the bytes of rel (other than the caller's) to a variant name, as write_once would
 * have named them: the name of their content, else "~N"; when a variant holds them already,
 * rel is just removed. */
static int move_aside(struct tl_outdir *o, const char *rel, struct tl_err *err)
{
    struct tl_buf old = TL_BUF_INIT, name = TL_BUF_INIT;
    int rc = tl_outdir_read(o, rel, &old, SIZE_MAX, err);
    for (unsigned k = 1; rc == 0 && k < 10000; k++) {
        char tag[24];
        if (k == 1)
            snprintf(tag, sizeof(tag), "~%016llx", (unsigned long long)tl_hash(old.buf, old.len));
        else
            snprintf(tag, sizeof(tag), "~%u", k);
        tl_buf_reset(&name);
        tl_outdir_flat_name(&name, rel, tag);
        if (renameat2(o->dirfd, rel, o->dirfd, name.buf, RENAME_NOREPLACE) == 0)
            break;
        if (errno != EEXIST) {
            rc = tl_error(err, "cannot rename %s/%s: %s", o->target, rel, strerror(errno));
        } else if (same_content(o, name.buf, old.buf, old.len)) {
            if (unlinkat(o->dirfd, rel, 0) < 0)
                rc = tl_error(err, "cannot remove %s/%s: %s", o->target, rel, strerror(errno));
            break;
        }
    }
    tl_buf_release(&old);
    tl_buf_release(&name);
    return rc;
}

/* write_once, and with rightful(p, n, ctx) true on a collision, rel is taken over. */
static int write_named(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                       bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                       struct tl_buf *used, struct tl_err *err)
{
    struct tl_buf name = TL_BUF_INIT;
    if (o->stream) /* nothing to move aside: the first bytes keep the name (outdir.h, streams) */
        return o->stream_ops->write(o, rel, p, n, true, used, err);
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
        } else if (tl_writer_sync_file(o->writer, name.buf, err) < 0) {
            failed_io = true; /* the file may not be written yet */
            break;
        } else if (same_content(o, name.buf, p, n)) {
            rc = 0; /* already there: content-addressed names repeat */
        } else if (k == 0 && rightful && rightful(p, n, ctx)) {
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

int tl_outdir_write_once(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                         struct tl_buf *used, struct tl_err *err)
{
    return write_named(o, rel, p, n, NULL, NULL, used, err);
}

int tl_outdir_write_rightful(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                             bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                             struct tl_buf *used, struct tl_err *err)
{
    return write_named(o, rel, p, n, rightful, ctx, used, err);
}

static void release(struct tl_outdir *o)
{
    free_made(o);
    if (o->dirfd >= 0)
        close(o->dirfd);
    o->dirfd = -1;
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
    tl_writer_free(o->writer);
    o->writer = NULL;
    tl_buf_release(&o->leftovers);
    if (o->arena.head || o->dirs.entries) {
        tl_map_release(&o->dirs);
        tl_arena_release(&o->arena);
    }
}

/* The parts common to a sub-folder and a folder written in place. */
static void open_common(struct tl_outdir *o, const char *target)
{
    o->target = tl_xstrdup(target);
    o->in_place = true;
    o->writer = tl_writer_new(o->target, WRITE_BEHIND_BYTES, false);
    tl_arena_init(&o->arena, 16 * 1024);
    tl_map_init(&o->dirs, &o->arena);
}

int tl_outdir_open_sub(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                       struct tl_err *err)
{
    if (parent->stream)
        return parent->stream_ops->open_sub(parent, name, child, err);
    memset(child, 0, sizeof(*child));
    tl_buf_init(&child->leftovers, 0);
    child->dirfd = -1;
    if (mkdirat(parent->dirfd, name, 0777) < 0 && errno != EEXIST)
        return tl_error(err, "cannot create %s/%s: %s", parent->target, name, strerror(errno));
    child->dirfd = openat(parent->dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (child->dirfd < 0)
        return tl_error(err, "cannot open %s/%s: %s", parent->target, name, strerror(errno));
    struct tl_buf t = TL_BUF_INIT;
    tl_buf_addf(&t, "%s/%s", parent->target, name);
    open_common(child, t.buf);
    child->no_openat2 = parent->no_openat2;
    child->sub = true;
    if (parent->tmp) {
        tl_buf_reset(&t);
        tl_buf_addf(&t, "%s/%s", parent->tmp, name);
        child->tmp = tl_buf_detach(&t, NULL);
    }
    tl_buf_release(&t);
    return 0;
}

int tl_outdir_open_in_place(struct tl_outdir *o, const char *path, struct tl_err *err)
{
    memset(o, 0, sizeof(*o));
    tl_buf_init(&o->leftovers, 0);
    o->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (o->dirfd < 0)
        return tl_error_code(err, TL_ERR_INPUT, "cannot open the folder %s: %s", path,
                             strerror(errno));
    open_common(o, path);
    return 0;
}

int tl_outdir_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                   struct tl_err *err)
{
    if (o->stream)
        return o->stream_ops->read(o, rel, out, max, err);
    if (tl_writer_sync(o->writer, err) < 0)
        return -1;
    int fd = openat(o->dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return tl_error(err, "cannot read %s/%s: %s", o->target, rel, strerror(errno));
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

int tl_outdir_list(struct tl_outdir *o, const char *rel, bool fs_order, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    if (o->stream) /* the names it gave, in name order: it has no file system's */
        return o->stream_ops->list(o, rel, names, n);
    int fd = openat(o->dirfd, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
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
        qsort(v, len, sizeof(*v), cmp_names);
    *names = v;
    *n = len;
    return 0;
}

void tl_outdir_list_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int tl_outdir_remove(struct tl_outdir *o, const char *rel)
{
    if (o->stream || unlinkat(o->dirfd, rel, 0) == 0 || errno == ENOENT)
        return 0;
    return -1;
}

bool tl_outdir_is_dir(struct tl_outdir *o, const char *rel)
{
    if (o->stream)
        return o->stream_ops->is_dir(o, rel);
    struct stat st;
    return fstatat(o->dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

int tl_outdir_commit(struct tl_outdir *o, struct tl_err *err)
{
    if (o->stream)
        return o->stream_ops->commit(o, err);
    struct stat st;
    int rc = 0;
    if (tl_writer_sync(o->writer, err) < 0) {
        tl_outdir_abort(o);
        return -1;
    }
    if (o->in_place) {
        release(o);
        return 0;
    }
    tl_owner_remove(o->dirfd);
    mode_t um = umask(0); /* umask() reads by setting: put it back */
    umask(um);
    fchmod(o->dirfd, 0777 & ~um);
    if (lstat(o->target, &st) == 0) {
        if (!o->overwrite || !S_ISDIR(st.st_mode)) {
            rc = tl_error_code(err, TL_ERR_EXISTS,
                               "Directory %s appeared while tlparse ran; not replacing it",
                               o->target);
            tl_remove_tree(o->tmp);
        } else if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->target, RENAME_EXCHANGE) == 0) {
            /* The old report now sits at the temporary name. */
            tl_remove_tree(o->tmp);
        } else if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
            rc = tl_error(err, "cannot replace %s: %s", o->target, strerror(errno));
            tl_remove_tree(o->tmp);
        } else {
            /* No atomic exchange on this file system: move the old report
             * aside first, so that a failure leaves it intact. */
            size_t len = strlen(o->tmp) + 8;
            char *old = tl_xmalloc(len);
            snprintf(old, len, "%s.old", o->tmp);
            if (rename(o->target, old) < 0) {
                rc = tl_error(err, "cannot replace %s: %s", o->target, strerror(errno));
                tl_remove_tree(o->tmp);
            } else if (rename(o->tmp, o->target) < 0) {
                int e = errno;
                if (rename(old, o->target) == 0)
                    rc = tl_error(err, "cannot replace %s: %s", o->target, strerror(e));
                else
                    rc = tl_error(err, "cannot replace %s: %s; the previous report is kept at %s",
                                  o->target, strerror(e), old);
                tl_remove_tree(o->tmp);
            } else {
                tl_remove_tree(old);
            }
            free(old);
        }
    } else if (rename(o->tmp, o->target) < 0) {
        rc = tl_error(err, "cannot create %s: %s", o->target, strerror(errno));
        tl_remove_tree(o->tmp);
    }
    release(o);
    return rc;
}

void tl_outdir_abort(struct tl_outdir *o)
{
    if (o->stream) {
        o->stream_ops->abort(o);
        return;
    }
    /* Stop writing first: the worker may hold files of the folder. */
    tl_writer_free(o->writer);
    o->writer = NULL;
    if (o->tmp && (!o->in_place || o->sub))
        tl_remove_tree(o->tmp);
    remove_made(o);
    release(o);
}

/* ---- buffered files ------------------------------------------------------------ */

#define FLUSH_AT (256 * 1024)

int tl_outfile_open(struct tl_outfile *f, struct tl_outdir *o, const char *rel, struct tl_err *err)
{
    f->fd = -1;
    f->dir = o;
    f->name = rel;
    tl_buf_init(&f->buf, FLUSH_AT + 4096);
    if (tl_outdir_create(o, rel, &f->fd, NULL, err) < 0) {
        tl_buf_release(&f->buf);
        return -1;
    }
    return 0;
}

int tl_outfile_open_spool(struct tl_outfile *f, struct tl_outdir *o, const char *name,
                          struct tl_err *err)
{
    f->dir = o;
    f->name = name;
    /* Beside the output, on its file system: in the folder, unnamed (it never shows), or
     * beside the stream's file; $TMPDIR for memory. */
    if (o->stream) {
        f->fd = o->stream_ops->spool(o, err);
    } else {
        f->fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (f->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR) && o->tmp) {
            /* no O_TMPFILE on this file system: a name in the temporary folder, unlinked */
            struct tl_buf t = TL_BUF_INIT;
            tl_buf_addf(&t, "%s/.spool-XXXXXX", o->tmp);
            if ((f->fd = mkostemp(t.buf, O_CLOEXEC)) >= 0)
                unlink(t.buf);
            tl_buf_release(&t);
        }
        if (f->fd < 0)
            tl_error(err, "cannot write %s/%s: %s", o->target, name, strerror(errno));
    }
    if (f->fd < 0)
        return -1;
    tl_buf_init(&f->buf, FLUSH_AT + 4096);
    return 0;
}

int tl_outfile_flush(struct tl_outfile *f, struct tl_err *err)
{
    if (f->fd < 0 || !f->buf.len || !f->dir->writer)
        return 0;
    f->dir->bytes += f->buf.len;
    return tl_writer_give(f->dir->writer, f->fd, false, &f->buf, f->name, err);
}

int tl_outfile_maybe_flush(struct tl_outfile *f, struct tl_err *err)
{
    return f->buf.len >= FLUSH_AT ? tl_outfile_flush(f, err) : 0;
}

int tl_outfile_close(struct tl_outfile *f, struct tl_err *err)
{
    int rc = 0;
    if (f->fd >= 0 && !f->dir->writer) {
        close(f->fd); /* the folder is gone already (aborted) */
    } else if (f->fd >= 0) {
        f->dir->bytes += f->buf.len;
        /* The last bytes, then the close, in the writer's order. */
        rc = tl_writer_give(f->dir->writer, f->fd, true, &f->buf, f->name, err);
    }
    f->fd = -1;
    tl_buf_release(&f->buf);
    return rc;
}

/* ---- safe names -------------------------------------------------------------------- */

static bool is_device_name(const char *p, size_t n)
{
    static const char *const dev[] = {"CON", "PRN", "AUX", "NUL"};
    size_t stem = 0;
    while (stem < n && p[stem] != '.')
        stem++;
    char up[5];
    if (stem == 3 || stem == 4) {
        for (size_t i = 0; i < stem; i++)
            up[i] = (char)(p[i] >= 'a' && p[i] <= 'z' ? p[i] - 32 : p[i]);
        up[stem] = '\0';
        if (stem == 3) {
            for (size_t i = 0; i < TL_ARRAY_LEN(dev); i++)
                if (!strcmp(up, dev[i]))
                    return true;
        } else if ((!memcmp(up, "COM", 3) || !memcmp(up, "LPT", 3)) && up[3] >= '1' &&
                   up[3] <= '9') {
            return true;
        }
    }
    return false;
}

#define MAX_PART 200
#define MAX_PARTS 32

static void add_bytes(struct tl_buf *out, const char *p, size_t n, bool first)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f || c == '\\' || c == '/' || (first && i == 0 && c == '.'))
            c = '_';
        tl_buf_addch(out, (char)c);
    }
}

#define KEEP_HEAD 130
#define KEEP_TAIL 50

static void add_part(struct tl_buf *out, const char *p, size_t n)
{
    if (n == 1 && p[0] == '.') {
        tl_buf_adds(out, "_.");
        return;
    }
    if (n == 2 && p[0] == '.' && p[1] == '.') {
        tl_buf_adds(out, "_..");
        return;
    }
    if (is_device_name(p, n))
        tl_buf_addch(out, '_');
    if (n <= MAX_PART) {
        add_bytes(out, p, n, true);
        return;
    }
    /* Too long: keep the start and the end (which holds the extension or the
     * last folder's name), with a hash of the whole between them. No UTF-8
     * sequence is cut in half. */
    size_t head = KEEP_HEAD, tail = n - KEEP_TAIL;
    while (head > 0 && ((unsigned char)p[head] & 0xC0) == 0x80)
        head--;
    while (tail < n && ((unsigned char)p[tail] & 0xC0) == 0x80)
        tail++;
    add_bytes(out, p, head, true);
    tl_buf_addf(out, "~%08x~", (unsigned)(tl_hash(p, n) & 0xffffffffu));
    add_bytes(out, p + tail, n - tail, false);
}

#define MAX_TOTAL 1000

/* When out[start..) is longer than MAX_TOTAL, keep its trailing whole parts
 * (the file name and as many folders as fit) behind a tag made of the hash
 * of the whole name: every part stays a part, none grows. */
static void cap_total(struct tl_buf *out, size_t start, struct tl_str name)
{
    size_t len = out->len - start;
    if (len <= MAX_TOTAL)
        return;
    char tag[16];
    int tn =
        snprintf(tag, sizeof(tag), "~%08x/", (unsigned)(tl_hash(name.p, name.n) & 0xffffffffu));
    const char *b = out->buf + start;
    size_t from = len;
    for (size_t i = 0; i < len; i++) {
        if (b[i] == '/' && len - (i + 1) + (size_t)tn <= MAX_TOTAL) {
            from = i + 1;
            break;
        }
    }
    if (from == len) /* cannot happen: parts are at most about 210 bytes */
        from = len - (MAX_TOTAL - (size_t)tn);
    size_t keep = len - from;
    memmove(out->buf + start + tn, out->buf + start + from, keep);
    memcpy(out->buf + start, tag, (size_t)tn);
    tl_buf_setlen(out, start + (size_t)tn + keep);
}

void tl_path_safe(struct tl_buf *out, struct tl_str name, bool allow_slash)
{
    size_t start_len = out->len;
    if (!allow_slash) {
        if (name.n)
            add_part(out, name.p, name.n);
    } else {
        /* The parts; past MAX_PARTS, the first MAX_PARTS - 2 stay folders,
         * the middle ones are folded into one part (cut like any part), and
         * the last is kept as the file. */
        size_t nparts = 0;
        const char *end = name.p + name.n;
        for (const char *q = name.p; q < end;) {
            const char *e = memchr(q, '/', (size_t)(end - q));
            if (!e)
                e = end;
            nparts += e > q;
            q = e + 1;
        }
        size_t i = 0;
        const char *fold = NULL; /* start of the folded run */
        for (const char *q = name.p; q < end;) {
            const char *e = memchr(q, '/', (size_t)(end - q));
            if (!e)
                e = end;
            if (e > q) {
                bool last = i + 1 == nparts;
                if (nparts > MAX_PARTS && i >= MAX_PARTS - 2 && !last) {
                    if (!fold)
                        fold = q;
                } else {
                    if (fold) {
                        /* the folded run ends before this last part */
                        const char *fe = q - 1;
                        tl_buf_addch(out, '/');
                        add_part(out, fold, (size_t)(fe - fold));
                        fold = NULL;
                    }
                    if (out->len > start_len)
                        tl_buf_addch(out, '/');
                    add_part(out, q, (size_t)(e - q));
                }
                i++;
            }
            q = e + 1;
        }
    }
    if (out->len == start_len)
        tl_buf_addch(out, '_');
    cap_total(out, start_len, name);
}
