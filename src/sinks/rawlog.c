/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw.log: a copy of the input. A plain file is copied by the kernel (copy_file_range) on a
 * thread of its own, so that on two cores it costs no wall time: it runs while the log is
 * parsed. A pipe, a compressed log or an in-memory one is written from what the reader
 * reads (decompressed), as it reads it.
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
    struct tl_outfile tee; /* fed with the bytes as they are read */
    pthread_t thread;      /* the copy of a plain file */
    int in, out;
    int rc, err;
    bool started;
};

static void *copy_main(void *arg)
{
    struct rawlog *rl = arg;
    rl->rc = tl_copy_fd(rl->in, rl->out);
    rl->err = errno;
    return NULL;
}

static int rawlog_bytes(void *self, struct tl_sink_ctx *ctx, const char *p, size_t n,
                        struct tl_err *err)
{
    (void)ctx;
    struct rawlog *rl = self;
    if (rl->tee.fd < 0)
        return 0;
    tl_buf_add(&rl->tee.buf, p, n);
    return tl_outfile_maybe_flush(&rl->tee, err);
}

static void *rawlog_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx;
    const struct tl_rawlog_params *p = params;
    struct rawlog *rl = tl_xcalloc(1, sizeof(*rl));
    rl->copy_path = p ? p->copy_path : NULL;
    rl->mem = p ? p->mem : NULL;
    rl->mem_len = p ? p->mem_len : 0;
    rl->tee.fd = rl->in = rl->out = -1;
    tl_buf_init(&rl->tee.buf, 0);
    return rl;
}

static int rawlog_start(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct rawlog *rl = self;
    if (rl->mem)
        return tl_outdir_write(ctx->out, "raw.log", rl->mem, rl->mem_len, NULL, err);
    if (!rl->copy_path)
        return tl_outfile_open(&rl->tee, ctx->out, "raw.log", err);
    rl->in = open(rl->copy_path, O_RDONLY | O_CLOEXEC);
    if (rl->in < 0)
        return tl_error_code(err, TL_ERR_INPUT, "cannot read %s: %s", rl->copy_path,
                             strerror(errno));
    if (tl_outdir_create(ctx->out, "raw.log", &rl->out, NULL, err) < 0)
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
static int settle(struct rawlog *rl, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    int rc = 0;
    if (rl->tee.fd >= 0 && tl_outfile_close(&rl->tee, err) < 0)
        rc = -1;
    if (rl->started)
        pthread_join(rl->thread, NULL);
    rl->started = false;
    if (rl->in >= 0)
        close(rl->in);
    rl->in = -1;
    if (rl->out < 0)
        return rc;
    int e = rl->err, status = rl->rc;
    if (close(rl->out) < 0 && status == 0) {
        status = -1;
        e = errno;
    }
    rl->out = -1;
    if (status < 0 && rc == 0) {
        rc = -1;
        if (err)
            tl_error(err, "cannot write %s/raw.log: %s", ctx->out->target, strerror(e));
    }
    return rc;
}

static int rawlog_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    return settle(self, ctx, err);
}

static void rawlog_destroy(void *self)
{
    struct rawlog *rl = self;
    settle(rl, NULL, NULL);
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
