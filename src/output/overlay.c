/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The overlay backend of the output (outdir.h): files are written to one output (the upper, a
 * memory output) while what is read back comes from another (the lower, a report folder). A
 * live report's generation is rendered this way: the rank's summary lists the folder the
 * report is written in, and its pages go to memory first, to be put in place each at once.
 */
#include "base/config.h"
#include "output/outdir.h"
#include "base/xalloc.h"

#include <stdlib.h>

struct overlay {
    struct tl_outdir *lower, *upper;
};

static struct overlay *ov(struct tl_outdir *o)
{
    return o->impl;
}

static int ov_create(struct tl_outdir *o, const char *rel, struct tl_buf *used, int *fd,
                     struct tl_err *err)
{
    struct tl_outdir *u = ov(o)->upper;
    return u->ops->create(u, rel, used, fd, err);
}

static int ov_write(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                    struct tl_buf *used, struct tl_err *err)
{
    return tl_outdir_write(ov(o)->upper, rel, p, n, used, err);
}

static int ov_write_once(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                         bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                         struct tl_buf *used, struct tl_err *err)
{
    return tl_outdir_write_rightful(ov(o)->upper, rel, p, n, rightful, ctx, used, err);
}

static int ov_replace(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                      struct tl_err *err)
{
    return tl_outdir_replace(ov(o)->upper, rel, p, n, err);
}

static int ov_spool(struct tl_outdir *o, const char *name, int *fd, struct tl_err *err)
{
    struct tl_outdir *u = ov(o)->upper;
    return u->ops->spool(u, name, fd, err);
}

static int ov_open_sub(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                       struct tl_err *err)
{
    (void)child;
    return tl_error(err, "cannot open %s/%s: an overlay has no sub-folders", parent->target, name);
}

static int ov_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                   struct tl_err *err)
{
    return tl_outdir_read(ov(o)->lower, rel, out, max, err);
}

static int ov_read_open(struct tl_outdir *o, const char *rel, int *fd, struct tl_err *err)
{
    struct tl_outdir *l = ov(o)->lower;
    return l->ops->read_open(l, rel, fd, err);
}

static int ov_list(struct tl_outdir *o, const char *rel, bool fs_order, char ***names, size_t *n)
{
    return tl_outdir_list(ov(o)->lower, rel, fs_order, names, n);
}

static int ov_remove(struct tl_outdir *o, const char *rel)
{
    (void)o, (void)rel;
    return 0; /* nothing of the lower output is changed */
}

static bool ov_is_dir(struct tl_outdir *o, const char *rel)
{
    return tl_outdir_is_dir(ov(o)->lower, rel);
}

static void ov_release(struct tl_outdir *o)
{
    free(o->impl);
    tl_outdir_release_front(o);
}

static int ov_commit(struct tl_outdir *o, struct tl_err *err)
{
    int rc = tl_outdir_sync(o, err);
    ov_release(o);
    return rc;
}

static const struct tl_output_ops overlay_ops = {
    .what = "overlay",
    .create = ov_create,
    .write = ov_write,
    .write_once = ov_write_once,
    .replace = ov_replace,
    .spool = ov_spool,
    .open_sub = ov_open_sub,
    .read = ov_read,
    .read_open = ov_read_open,
    .list = ov_list,
    .remove = ov_remove,
    .is_dir = ov_is_dir,
    .commit = ov_commit,
    .abort = ov_release,
};

void tl_outdir_open_overlay(struct tl_outdir *o, struct tl_outdir *lower, struct tl_outdir *upper)
{
    struct overlay *st = tl_xcalloc(1, sizeof(*st));
    st->lower = lower;
    st->upper = upper;
    tl_outdir_init_front(o, &overlay_ops, st, upper->target);
}
