/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw.log: a copy of the input. A plain file is copied by the kernel (copy_file_range) into
 * the output's file (tl_outfile_copy_fd) on a thread of its own, so that on two cores it costs no
 * wall time: it runs while the log is parsed. A pipe, a compressed log or an in-memory one is
 * written from what the reader reads (decompressed), as it reads it.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rawlog {
    const char *copy_path; /* a plain file, copied on a thread; NULL: the bytes as read */
    const char *mem;       /* a log in memory, written whole; NULL: none */
    uint64_t mem_len;
    struct tl_outfile out; /* raw.log: fed with the bytes as they are read, or the copy's */
    pthread_t thread;      /* the copy of a plain file */
    int in;                /* the plain file */
    int rc;
    struct tl_err err; /* the copy's failure */
    bool started;
};

static void *copy_main(void *arg)
{
    struct rawlog *rl = arg;
    rl->rc = tl_outfile_copy_fd(&rl->out, rl->in, &rl->err);
    return NULL;
}

static int rawlog_bytes(void *self, struct tl_sink_ctx *ctx, const char *p, size_t n,
                        struct tl_err *err)
{
    (void)ctx;
    struct rawlog *rl = self;
    if (rl->copy_path || !tl_outfile_is_open(&rl->out))
        return 0;
    tl_buf_add(&rl->out.buf, p, n);
    return tl_outfile_maybe_flush(&rl->out, err);
}

static void *rawlog_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx;
    const struct tl_rawlog_params *p = params;
    struct rawlog *rl = tl_xcalloc(1, sizeof(*rl));
    rl->copy_path = p ? p->copy_path : NULL;
    rl->mem = p ? p->mem : NULL;
    rl->mem_len = p ? p->mem_len : 0;
    rl->in = -1;
    tl_outfile_init(&rl->out);
    return rl;
}

static int rawlog_start(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct rawlog *rl = self;
    if (rl->mem)
        return tl_outdir_write(ctx->out, "raw.log", rl->mem, rl->mem_len, NULL, err);
    if (!rl->copy_path)
        return tl_outfile_open(&rl->out, ctx->out, "raw.log", err);
    rl->in = open(rl->copy_path, O_RDONLY | O_CLOEXEC);
    if (rl->in < 0)
        return tl_error_code(err, TL_ERR_INPUT, "cannot read %s: %s", rl->copy_path,
                             strerror(errno));
    if (tl_outfile_open(&rl->out, ctx->out, "raw.log", err) < 0)
        return -1;
    if (ctx->threads && pthread_create(&rl->thread, NULL, copy_main, rl) == 0) {
        rl->started = true;
        return 0;
    }
    /* No thread wanted, or none to be had: copy now. */
    copy_main(rl);
    return 0;
}

static int rawlog_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                         struct tl_err *err)
{
    (void)self, (void)ctx, (void)r, (void)err;
    return 0;
}

/* Wait for the copy and close everything; -1 (err filled when not NULL) if it failed. */
static int settle(struct rawlog *rl, struct tl_err *err)
{
    if (rl->started)
        pthread_join(rl->thread, NULL);
    rl->started = false;
    if (rl->in >= 0)
        close(rl->in);
    rl->in = -1;
    int rc = rl->rc;
    if (rc < 0 && err)
        *err = rl->err;
    rl->rc = 0;
    if (tl_outfile_close(&rl->out, rc < 0 ? NULL : err) < 0)
        rc = -1;
    return rc;
}

static int rawlog_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    (void)ctx;
    return settle(self, err);
}

static void rawlog_destroy(void *self)
{
    struct rawlog *rl = self;
    settle(rl, NULL);
    free(rl);
}

const struct tl_sink_ops tl_sink_rawlog = {
    .name = "raw.log",
    .create = rawlog_create,
    .start = rawlog_start,
    .bytes = rawlog_bytes,
    .record = rawlog_record,
    .finish = rawlog_finish,
    .destroy = rawlog_destroy,
};
