/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The output's front (outdir.h): every tl_outdir_* call dispatched to the backend's operations,
 * the buffered files (struct tl_outfile) that all backends share through the writer, and the
 * names: made safe (tl_path_safe) and flattened when they collide.
 */
#include "base/config.h"
#include "output/outdir.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tl_outdir_init_front(struct tl_outdir *o, const struct tl_output_ops *ops, void *st,
                          const char *target)
{
    memset(o, 0, sizeof(*o));
    o->ops = ops;
    o->impl = st;
    o->target = tl_xstrdup(target);
    o->writer = tl_writer_new(o->target, WRITE_BEHIND_BYTES, false);
    tl_buf_init(&o->leftovers, 0);
}

void tl_outdir_release_front(struct tl_outdir *o)
{
    tl_writer_free(o->writer);
    o->writer = NULL;
    free(o->target);
    o->target = NULL;
    tl_buf_release(&o->leftovers);
    o->ops = NULL;
    o->impl = NULL;
}

void tl_outdir_write_behind(struct tl_outdir *o, bool on)
{
    if (tl_writer_threaded(o->writer) == on)
        return;
    tl_writer_sync(o->writer, NULL);
    tl_writer_free(o->writer);
    o->writer = tl_writer_new(o->target, WRITE_BEHIND_BYTES, on);
}

/* rc of a write to o: with keep_failure, its failure is kept (the first one) and the output
 * drops every file from then on; 0 is returned, as the run goes on. */
static int kept(struct tl_outdir *o, int rc, const struct tl_err *err)
{
    if (rc == 0 || !o->keep_failure)
        return rc;
    if (!o->failed) {
        struct tl_err why = {TL_ERR_IO, "cannot write the report"};
        if (err && err->msg[0])
            why = *err;
        tl_outdir_detach(o); /* (which starts the output afresh) */
        o->keep_failure = o->failed = true;
        o->failure = why;
    }
    return 0;
}

void tl_outdir_keep_failures(struct tl_outdir *o)
{
    o->keep_failure = true;
}

bool tl_outdir_failed(const struct tl_outdir *o, struct tl_err *err)
{
    if (o->failed && err)
        *err = o->failure;
    return o->failed;
}

int tl_outdir_sync(struct tl_outdir *o, struct tl_err *err)
{
    return kept(o, tl_writer_sync(o->writer, err), err);
}

int tl_outdir_write(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                    struct tl_buf *used, struct tl_err *err)
{
    return kept(o, o->ops->write(o, rel, p, n, used, err), err);
}

int tl_outdir_write_once(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                         struct tl_buf *used, struct tl_err *err)
{
    return kept(o, o->ops->write_once(o, rel, p, n, NULL, NULL, used, err), err);
}

int tl_outdir_write_rightful(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                             bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                             struct tl_buf *used, struct tl_err *err)
{
    return kept(o, o->ops->write_once(o, rel, p, n, rightful, ctx, used, err), err);
}

int tl_outdir_replace(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                      struct tl_err *err)
{
    return kept(o, o->ops->replace(o, rel, p, n, err), err);
}

int tl_outdir_open_sub(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                       struct tl_err *err)
{
    return parent->ops->open_sub(parent, name, child, err);
}

int tl_outdir_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                   struct tl_err *err)
{
    return o->ops->read(o, rel, out, max, err);
}

int tl_outdir_read_open(struct tl_outdir *o, const char *rel, struct tl_outread *r,
                        struct tl_err *err)
{
    r->fd = -1;
    return o->ops->read_open(o, rel, &r->fd, err);
}

ssize_t tl_outread_some(struct tl_outread *r, void *p, size_t n)
{
    ssize_t got;
    do
        got = read(r->fd, p, n);
    while (got < 0 && errno == EINTR);
    return got;
}

void tl_outread_close(struct tl_outread *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}

int tl_outdir_list(struct tl_outdir *o, const char *rel, bool fs_order, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    return o->ops->list(o, rel, fs_order, names, n);
}

void tl_outdir_list_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int tl_outdir_remove_folder(struct tl_outdir *o, const char *rel)
{
    return o->ops->remove_folder ? o->ops->remove_folder(o, rel) : 0;
}

int tl_outdir_remove(struct tl_outdir *o, const char *rel)
{
    return o->ops->remove(o, rel);
}

bool tl_outdir_is_dir(struct tl_outdir *o, const char *rel)
{
    return o->ops->is_dir(o, rel);
}

int tl_outdir_commit(struct tl_outdir *o, struct tl_err *err)
{
    if (o->failed) { /* what was kept is the report's failure */
        if (err)
            *err = o->failure;
        o->ops->abort(o);
        return -1;
    }
    return o->ops->commit(o, err);
}

int tl_outdir_publish(struct tl_outdir *o, struct tl_err *err)
{
    if (!o->ops->publish)
        return tl_error(err, "a live report is written to a folder, not to %s (a %s)", o->target,
                        o->ops->what);
    return o->ops->publish(o, err);
}

void tl_outdir_abort(struct tl_outdir *o)
{
    if (o->ops) /* not opened, or committed or aborted already */
        o->ops->abort(o);
}

/* ---- buffered files ------------------------------------------------------------ */

#define FLUSH_AT (256 * 1024)

void tl_outfile_init(struct tl_outfile *f)
{
    f->fd = -1;
    f->name = NULL;
    f->dir = NULL;
    tl_buf_init(&f->buf, 0);
}

bool tl_outfile_is_open(const struct tl_outfile *f)
{
    return f->fd >= 0;
}

int tl_outfile_open(struct tl_outfile *f, struct tl_outdir *o, const char *rel, struct tl_err *err)
{
    f->fd = -1;
    f->dir = o;
    f->name = rel;
    tl_buf_init(&f->buf, FLUSH_AT + 4096);
    if (o->ops->create(o, rel, NULL, &f->fd, err) < 0) {
        if (kept(o, -1, err) == 0) /* dropped from now on: the file too */
            return o->ops->create(o, rel, NULL, &f->fd, err);
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
    f->fd = -1;
    if (o->ops->spool(o, name, &f->fd, err) < 0 &&
        (kept(o, -1, err) < 0 || o->ops->spool(o, name, &f->fd, err) < 0))
        return -1;
    tl_buf_init(&f->buf, FLUSH_AT + 4096);
    return 0;
}

int tl_outfile_flush(struct tl_outfile *f, struct tl_err *err)
{
    if (f->fd < 0 || !f->buf.len || !f->dir->writer)
        return 0;
    f->dir->bytes += f->buf.len;
    return kept(f->dir, tl_writer_give(f->dir->writer, f->fd, false, &f->buf, f->name, err), err);
}

int tl_outfile_maybe_flush(struct tl_outfile *f, struct tl_err *err)
{
    return f->buf.len >= FLUSH_AT ? tl_outfile_flush(f, err) : 0;
}

int tl_outfile_append(struct tl_outfile *f, struct tl_outfile *src, struct tl_err *err)
{
    /* The bytes before src's, and src's own, must be on disk first. */
    if (tl_outfile_flush(f, err) < 0 || tl_outfile_flush(src, err) < 0 ||
        tl_writer_sync(src->dir->writer, err) < 0 || tl_writer_sync(f->dir->writer, err) < 0)
        return -1;
    if (lseek(src->fd, 0, SEEK_SET) < 0 || tl_copy_fd(src->fd, f->fd) < 0)
        return kept(
            f->dir,
            tl_error(err, "cannot write %s/%s: %s", f->dir->target, f->name, strerror(errno)), err);
    return 0;
}

int tl_outfile_copy_fd(struct tl_outfile *f, int in, struct tl_err *err)
{
    if (f->buf.len &&
        (tl_outfile_flush(f, err) < 0 || tl_writer_sync_file(f->dir->writer, f->name, err) < 0))
        return -1;
    if (tl_copy_fd(in, f->fd) < 0)
        return tl_error(err, "cannot write %s/%s: %s", f->dir->target, f->name, strerror(errno));
    return 0;
}

int tl_outfile_move(struct tl_outfile *f, struct tl_outdir *to, struct tl_err *err)
{
    if (f->fd >= 0 && (tl_outfile_flush(f, err) < 0 || tl_writer_sync(f->dir->writer, err) < 0))
        return -1;
    f->dir = to;
    return 0;
}

int tl_outfile_close(struct tl_outfile *f, struct tl_err *err)
{
    int rc = 0;
    if (f->fd >= 0 && !f->dir->writer) {
        close(f->fd); /* the output is gone already (aborted) */
    } else if (f->fd >= 0) {
        if (f->buf.len) /* a spool moved from a rank's thread writes nothing here */
            f->dir->bytes += f->buf.len;
        /* The last bytes, then the close, in the writer's order. */
        rc = kept(f->dir, tl_writer_give(f->dir->writer, f->fd, true, &f->buf, f->name, err), err);
    }
    f->fd = -1;
    tl_buf_release(&f->buf);
    return rc;
}

/* ---- names ------------------------------------------------------------------------------ */

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

/* ---- the output given up (tl_outdir_detach): every file dropped --------------------------- */

/* The front's own backend: streamed files go to /dev/null, so that every caller's path
 * (buffers flushed, spools appended) runs as it does for a folder. */
static int null_fd(struct tl_outdir *o, int *fd, struct tl_err *err)
{
    *fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (*fd < 0)
        return tl_error(err, "cannot open /dev/null for %s: %s", o->target, strerror(errno));
    return 0;
}

static int discard_create(struct tl_outdir *o, const char *rel, struct tl_buf *used, int *fd,
                          struct tl_err *err)
{
    if (used)
        tl_buf_adds(used, rel);
    return null_fd(o, fd, err);
}

static int discard_write(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                         struct tl_buf *used, struct tl_err *err)
{
    (void)o, (void)p, (void)n, (void)err;
    if (used)
        tl_buf_adds(used, rel);
    return 0;
}

static int discard_write_once(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                              bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                              struct tl_buf *used, struct tl_err *err)
{
    (void)rightful, (void)ctx;
    return discard_write(o, rel, p, n, used, err);
}

static int discard_replace(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                           struct tl_err *err)
{
    return discard_write(o, rel, p, n, NULL, err);
}

static int discard_spool(struct tl_outdir *o, const char *name, int *fd, struct tl_err *err)
{
    (void)name;
    return null_fd(o, fd, err);
}

static int discard_open_sub(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                            struct tl_err *err)
{
    (void)parent, (void)name, (void)err;
    tl_outdir_open_discard(child);
    return 0;
}

static int discard_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                        struct tl_err *err)
{
    (void)out, (void)max;
    return tl_error(err, "%s/%s was dropped: no report is written", o->target, rel);
}

static int discard_read_open(struct tl_outdir *o, const char *rel, int *fd, struct tl_err *err)
{
    (void)fd;
    return tl_error(err, "%s/%s was dropped: no report is written", o->target, rel);
}

static int discard_list(struct tl_outdir *o, const char *rel, bool fs_order, char ***names,
                        size_t *n)
{
    (void)o, (void)rel, (void)fs_order;
    *names = NULL;
    *n = 0;
    return -1;
}

static int discard_remove(struct tl_outdir *o, const char *rel)
{
    (void)o, (void)rel;
    return 0;
}

static bool discard_is_dir(struct tl_outdir *o, const char *rel)
{
    (void)o, (void)rel;
    return false;
}

static int discard_commit(struct tl_outdir *o, struct tl_err *err)
{
    int rc = tl_outdir_sync(o, err);
    tl_outdir_release_front(o);
    return rc;
}

static void discard_abort(struct tl_outdir *o)
{
    tl_outdir_release_front(o);
}

static const struct tl_output_ops discard_ops = {
    .what = "discard",
    .create = discard_create,
    .write = discard_write,
    .write_once = discard_write_once,
    .replace = discard_replace,
    .spool = discard_spool,
    .open_sub = discard_open_sub,
    .read = discard_read,
    .read_open = discard_read_open,
    .list = discard_list,
    .remove = discard_remove,
    .is_dir = discard_is_dir,
    .commit = discard_commit,
    .abort = discard_abort,
};

void tl_outdir_open_discard(struct tl_outdir *o)
{
    tl_outdir_init_front(o, &discard_ops, NULL, "<discarded>");
}

void tl_outdir_detach(struct tl_outdir *o)
{
    if (o->ops == &discard_ops)
        return;
    tl_outdir_abort(o);
    tl_outdir_open_discard(o);
}
