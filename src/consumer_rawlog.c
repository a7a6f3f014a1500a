/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw.log: a copy of the input. A plain file is copied by the kernel (copy_file_range) on a
 * thread of its own, so that on two cores it costs no wall time: it runs while the log is
 * parsed. A pipe, a compressed log or an in-memory one is written from what the reader
 * reads (decompressed), as it reads it.
 */
#include "base/config.h"
#include "run.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rawlog {
    struct tl_outfile tee; /* fed by the reader */
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

static int tee_chunk(void *ctx, const char *p, size_t n, struct tl_err *err)
{
    struct tl_outfile *f = ctx;
    tl_buf_add(&f->buf, p, n);
    return tl_outfile_maybe_flush(f, err);
}

static void *rawlog_create(struct tl_log *log)
{
    (void)log;
    struct rawlog *rl = tl_xcalloc(1, sizeof(*rl));
    rl->tee.fd = rl->in = rl->out = -1;
    tl_buf_init(&rl->tee.buf, 0);
    return rl;
}

static int rawlog_start(void *self, struct tl_log *log, struct tl_err *err)
{
    struct rawlog *rl = self;
    if (!log->path)
        return tl_outdir_write(log->out, "raw.log", log->opt->mem_input, log->opt->mem_len, NULL,
                               err);
    if (tl_reader_kind(log->reader) != TL_READER_PLAIN || tl_reader_is_stream(log->reader)) {
        if (tl_outfile_open(&rl->tee, log->out, "raw.log", err) < 0)
            return -1;
        return tl_reader_set_tee(log->reader, tee_chunk, &rl->tee, err);
    }
    rl->in = open(log->path, O_RDONLY | O_CLOEXEC);
    if (rl->in < 0)
        return tl_error(err, "cannot read %s: %s", log->path, strerror(errno));
    if (tl_outdir_create(log->out, "raw.log", &rl->out, NULL, err) < 0)
        return -1;
    if (log->threads && pthread_create(&rl->thread, NULL, copy_main, rl) == 0) {
        rl->started = true;
        return 0;
    }
    /* No thread wanted, or none to be had: copy now. */
    copy_main(rl);
    return 0;
}

static int rawlog_record(void *self, struct tl_log *log, struct tl_record *r, struct tl_err *err)
{
    (void)self, (void)log, (void)r, (void)err;
    return 0;
}

/* Wait for the copy and close everything; -1 (err filled when not NULL) if it failed. */
static int settle(struct rawlog *rl, struct tl_log *log, struct tl_err *err)
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
            tl_error(err, "cannot write %s/raw.log: %s", log->out->target, strerror(e));
    }
    return rc;
}

static int rawlog_finish(void *self, struct tl_log *log, struct tl_err *err)
{
    return settle(self, log, err);
}

static void rawlog_destroy(void *self)
{
    struct rawlog *rl = self;
    settle(rl, NULL, NULL);
    free(rl);
}

const struct tl_consumer_ops tl_consumer_rawlog = {
    .name = "raw.log",
    .create = rawlog_create,
    .start = rawlog_start,
    .record = rawlog_record,
    .finish = rawlog_finish,
    .destroy = rawlog_destroy,
};
