/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The discard backend of the output (outdir.h): every file written is dropped. What an output
 * becomes when its run goes on without a report (tl_outdir_detach: a live report given up
 * while its log is still read for the diagnosis). Streamed files go to /dev/null, so that
 * every caller's path (buffers flushed, spools appended) runs as it does for a folder.
 */
#include "base/config.h"
#include "output/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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
