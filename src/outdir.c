/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"
#include "outdir.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tl_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = ENOSPC;
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    int r = (flag == FTW_DP || flag == FTW_D) ? rmdir(path) : unlink(path);
    return r < 0 && errno != ENOENT ? -1 : 0;
}

int tl_remove_tree(const char *path)
{
    return nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p for an absolute or relative path given by the user. */
static int mkdir_parents(const char *path, struct tl_err *err)
{
    char *p = tl_xstrdup(path);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) < 0 && errno != EEXIST) {
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

int tl_outdir_open(struct tl_outdir *o, const char *target, bool overwrite, struct tl_err *err)
{
    memset(o, 0, sizeof(*o));
    o->dirfd = -1;
    struct stat st;
    if (lstat(target, &st) == 0) {
        if (!overwrite)
            return tl_error_code(err, TL_ERR_EXISTS,
                                 "Directory %s already exists; pass --overwrite to replace it or "
                                 "use -o OUTDIR",
                                 target);
        if (!S_ISDIR(st.st_mode))
            return tl_error_code(err, TL_ERR_EXISTS,
                                 "%s exists and is not a folder; not replacing it", target);
    } else if (errno != ENOENT) {
        return tl_error(err, "cannot access %s: %s", target, strerror(errno));
    }
    if (mkdir_parents(target, err) < 0)
        return -1;
    char *copy1 = tl_xstrdup(target), *copy2 = tl_xstrdup(target);
    size_t tl = strlen(copy1);
    while (tl > 1 && copy1[tl - 1] == '/') {
        tl--;
        copy1[tl] = copy2[tl] = '\0';
    }
    const char *dir = dirname(copy1);
    const char *base = basename(copy2);
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
        return -1;
    }
    /* mkdtemp makes the folder private; give it the user's usual mode.
     * umask() both reads and sets: put the user's back. */
    mode_t um = umask(0);
    umask(um);
    chmod(o->tmp, 0777 & ~um);
    o->dirfd = open(o->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (o->dirfd < 0) {
        int e = errno;
        tl_remove_tree(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return tl_error(err, "cannot open %s: %s", target, strerror(e));
    }
    o->target = tl_xstrdup(target);
    o->overwrite = overwrite;
    tl_arena_init(&o->arena, 16 * 1024);
    tl_map_init(&o->dirs, &o->arena);
    return 0;
}

/* Create the parent folders of rel inside the report (once each). */
static int make_parents(struct tl_outdir *o, const char *rel, struct tl_err *err)
{
    const char *slash = strrchr(rel, '/');
    if (!slash)
        return 0;
    struct tl_str dir = tl_str_make(rel, (size_t)(slash - rel));
    if (tl_map_get(&o->dirs, dir))
        return 0;
    char *p = tl_xmemdupz(dir.p, dir.n);
    for (char *s = p;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            struct tl_str part = tl_str_cstr(p);
            if (!tl_map_get(&o->dirs, part)) {
                if (mkdirat(o->dirfd, p, 0777) < 0 && errno != EEXIST) {
                    int e = errno;
                    tl_error(err, "cannot create folder %s/%s: %s", o->target, p, strerror(e));
                    free(p);
                    return -1;
                }
                tl_map_put(&o->dirs, part, (void *)1);
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    return 0;
}

int tl_outdir_create(struct tl_outdir *o, const char *rel, int *fd, struct tl_err *err)
{
    if (make_parents(o, rel, err) < 0)
        return -1;
    /* O_NOFOLLOW: a name cannot be made to write through a link. */
    int f = openat(o->dirfd, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (f < 0)
        return tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(errno));
    o->files++;
    *fd = f;
    return 0;
}

int tl_outdir_write(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                    struct tl_err *err)
{
    int fd;
    if (tl_outdir_create(o, rel, &fd, err) < 0)
        return -1;
    if (tl_write_all(fd, p, n) < 0) {
        int e = errno;
        close(fd);
        return tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(e));
    }
    if (close(fd) < 0)
        return tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(errno));
    o->bytes += n;
    return 0;
}

static void release(struct tl_outdir *o)
{
    if (o->dirfd >= 0)
        close(o->dirfd);
    o->dirfd = -1;
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
    if (o->arena.head || o->dirs.entries) {
        tl_map_release(&o->dirs);
        tl_arena_release(&o->arena);
    }
}

int tl_outdir_commit(struct tl_outdir *o, struct tl_err *err)
{
    struct stat st;
    int rc = 0;
    if (lstat(o->target, &st) == 0) {
        if (!o->overwrite || !S_ISDIR(st.st_mode)) {
            rc = tl_error_code(err, TL_ERR_EXISTS,
                               "Directory %s appeared while tlparse ran; not replacing it",
                               o->target);
            tl_remove_tree(o->tmp);
        } else if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->target, RENAME_EXCHANGE) == 0) {
            /* The old report now sits at the temporary name. */
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
                rc = tl_error(err, "cannot replace %s: %s", o->target, strerror(errno));
                rename(old, o->target);
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
    if (o->tmp)
        tl_remove_tree(o->tmp);
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
    if (tl_outdir_create(o, rel, &f->fd, err) < 0) {
        tl_buf_release(&f->buf);
        return -1;
    }
    return 0;
}

int tl_outfile_flush(struct tl_outfile *f, struct tl_err *err)
{
    if (f->fd < 0 || !f->buf.len)
        return 0;
    if (tl_write_all(f->fd, f->buf.buf, f->buf.len) < 0)
        return tl_error(err, "cannot write %s/%s: %s", f->dir->target, f->name, strerror(errno));
    f->dir->bytes += f->buf.len;
    tl_buf_reset(&f->buf);
    return 0;
}

int tl_outfile_maybe_flush(struct tl_outfile *f, struct tl_err *err)
{
    return f->buf.len >= FLUSH_AT ? tl_outfile_flush(f, err) : 0;
}

int tl_outfile_close(struct tl_outfile *f, struct tl_err *err)
{
    int rc = tl_outfile_flush(f, err);
    if (f->fd >= 0 && close(f->fd) < 0 && rc == 0)
        rc = tl_error(err, "cannot write %s/%s: %s", f->dir->target, f->name, strerror(errno));
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
    size_t keep = n;
    if (n > MAX_PART) {
        keep = MAX_PART - 10;
        /* Do not cut a UTF-8 sequence in half. */
        while (keep > 0 && ((unsigned char)p[keep] & 0xC0) == 0x80)
            keep--;
    }
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f || c == '\\' || c == '/' || (i == 0 && c == '.'))
            c = '_';
        tl_buf_addch(out, (char)c);
    }
    if (keep < n) {
        tl_buf_addf(out, "~%08x", (unsigned)(tl_hash(p, n) & 0xffffffffu));
    }
}

void tl_path_safe(struct tl_buf *out, struct tl_str name, bool allow_slash)
{
    size_t start_len = out->len;
    if (!allow_slash) {
        if (name.n)
            add_part(out, name.p, name.n);
    } else {
        size_t parts = 0;
        const char *p = name.p, *end = name.p + name.n;
        while (p < end) {
            const char *s = memchr(p, '/', (size_t)(end - p));
            const char *e = s ? s : end;
            if (e > p) {
                /* Past MAX_PARTS folders, the rest is one flat name. */
                if (parts + 1 >= MAX_PARTS && s) {
                    if (out->len > start_len)
                        tl_buf_addch(out, '/');
                    add_part(out, p, (size_t)(end - p));
                    break;
                }
                if (out->len > start_len)
                    tl_buf_addch(out, '/');
                add_part(out, p, (size_t)(e - p));
                parts++;
            }
            p = s ? s + 1 : end;
        }
    }
    if (out->len == start_len)
        tl_buf_addch(out, '_');
}
