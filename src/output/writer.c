/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The write-behind thread: jobs of (fd, bytes, close?) run in order on a worker, in batches,
 * with the bytes and open files in flight bounded; the first failure is kept and reported.
 */
#include "base/config.h"
#include "output/writer.h"
#include "base/map.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Wake a sleeping worker once this much is queued (a wake-up is a system
 * call; a busy worker needs none), or once this many jobs are. */
#define WAKE_BYTES (256u << 10)
#define WAKE_JOBS 32
/* Each queued job holds an open file: stay far below the usual limit of
 * 1024 open files. */
#define MAX_JOBS 256
#define MAX_SPARE 8
#define MAX_BATCH 32
/* Buckets of the names of queued jobs (tl_writer_pending): a count each. */
#define NAME_BUCKETS 1024

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

struct job {
    struct job *next;
    int fd; /* -1: opened by open(open_ctx, name) when the job runs */
    bool close_fd;
    int (*open)(void *ctx, const char *name);
    void *open_ctx;
    unsigned bucket; /* of name, in tl_writer.names */
    struct tl_buf data;
    struct tl_buf name;
};

struct tl_writer {
    bool threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    struct job *head, *tail; /* queued, FIFO */
    struct job *running;     /* the batch the worker runs */
    struct job *spare;       /* recycled, with their buffers */
    size_t nspare;
    size_t njobs;    /* queued or running */
    size_t inflight; /* bytes queued or running */
    size_t max_inflight;
    size_t unsignalled_bytes, unsignalled_jobs;
    bool sleeping, stop, drop;
    bool waiting; /* the submitter waits for room */
    bool failed;  /* err holds the first failure */
    struct tl_err err;
    char *target;
    uint16_t names[NAME_BUCKETS]; /* queued or running jobs by the bucket of their name */
};

static void job_free(struct job *j)
{
    tl_buf_release(&j->data);
    tl_buf_release(&j->name);
    free(j);
}

/* Write p[0..n) to fd (unless !write_it: after a failure nothing more is
 * written), then close it if close_fd; called without the lock. Returns 0,
 * or -1 with e set to the errno of the failure. */
static int do_io(int fd, bool close_fd, const void *p, size_t n, bool write_it, int *e)
{
    int rc = 0;
    if (write_it && n && tl_write_all(fd, p, n) < 0) {
        *e = errno;
        rc = -1;
    }
    if (close_fd && close(fd) < 0 && rc == 0 && write_it) {
        *e = errno;
        rc = -1;
    }
    return rc;
}

static int run_job(struct job *j, bool write_it, int *e)
{
    if (j->fd < 0) {
        if (!write_it)
            return 0;
        j->fd = j->open(j->open_ctx, j->name.buf);
        if (j->fd < 0) {
            *e = errno;
            return -1;
        }
    }
    return do_io(j->fd, j->close_fd, j->data.buf, j->data.len, write_it, e);
}

static unsigned name_bucket(const char *name, size_t n)
{
    return (unsigned)(tl_hash(name, n) % NAME_BUCKETS);
}

/* Keep the first failure; with the lock held. */
static void note_failure(struct tl_writer *w, const char *name, int e)
{
    if (!w->failed) {
        w->failed = true;
        tl_error(&w->err, "cannot write %s/%s: %s", w->target, name, strerror(e));
    }
}

/* Account for a finished job and recycle it; with the lock held. */
static void finish(struct tl_writer *w, struct job *j, int rc, int e)
{
    if (rc < 0)
        note_failure(w, j->name.buf, e);
    w->inflight -= j->data.len;
    w->njobs--;
    w->names[j->bucket]--;
    if (w->nspare < MAX_SPARE && j->data.alloc <= (512u << 10)) {
        tl_buf_reset(&j->data);
        tl_buf_reset(&j->name);
        j->next = w->spare;
        w->spare = j;
        w->nspare++;
    } else {
        job_free(j);
    }
}

static void *worker(void *arg)
{
    struct tl_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->head && !w->stop) {
            w->sleeping = true;
            pthread_cond_wait(&w->work, &w->mu);
            w->sleeping = false;
        }
        if (!w->head)
            break;
        /* Take a batch: one lock round per batch, not per file, and
         * small enough that the submitter need not wait for all of it. */
        struct job *batch = w->head, *last = batch;
        for (unsigned k = 1; k < MAX_BATCH && last->next; k++)
            last = last->next;
        w->head = last->next;
        last->next = NULL;
        if (!w->head)
            w->tail = NULL;
        w->running = batch;
        bool write_it = !w->failed && !w->drop;
        pthread_mutex_unlock(&w->mu);
        int rc = 0, e = 0;
        struct job *bad = NULL;
        for (struct job *j = batch; j; j = j->next) {
            if (run_job(j, write_it, &e) < 0 && !bad) {
                bad = j;
                write_it = false;
            }
        }
        pthread_mutex_lock(&w->mu);
        w->running = NULL;
        for (struct job *j = batch; j;) {
            struct job *n = j->next;
            rc = j == bad ? -1 : 0;
            finish(w, j, rc, e);
            j = n;
        }
        /* A sync waits for an empty queue; a full queue's submitter is
         * woken once half of it is done, not for every job. */
        if (!w->head ||
            (w->waiting && w->njobs <= MAX_JOBS / 2 && w->inflight <= w->max_inflight / 2))
            pthread_cond_broadcast(&w->done);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct tl_writer *tl_writer_new(const char *target, size_t max_inflight, bool threads)
{
    struct tl_writer *w = tl_xcalloc(1, sizeof(*w));
    w->target = tl_xstrdup(target);
    w->max_inflight = max_inflight;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->done, NULL);
    w->threaded = threads && pthread_create(&w->thread, NULL, worker, w) == 0;
    return w;
}

bool tl_writer_threaded(const struct tl_writer *w)
{
    return w->threaded;
}

void tl_writer_free(struct tl_writer *w)
{
    if (!w)
        return;
    if (w->threaded) {
        pthread_mutex_lock(&w->mu);
        w->stop = true;
        w->drop = true; /* close what is queued, unwritten */
        pthread_cond_broadcast(&w->work);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    for (struct job *j = w->spare; j;) {
        struct job *n = j->next;
        job_free(j);
        j = n;
    }
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->done);
    free(w->target);
    free(w);
}

static int failure(struct tl_writer *w, struct tl_err *err)
{
    if (err)
        *err = w->err;
    return -1;
}

/* A job for fd, from the spare list or new; with the lock held. */
static struct job *take_job(struct tl_writer *w, int fd, bool close_fd, const char *name)
{
    struct job *j = w->spare;
    if (j) {
        w->spare = j->next;
        w->nspare--;
    } else {
        j = tl_xcalloc(1, sizeof(*j));
        tl_buf_init(&j->data, 0);
        tl_buf_init(&j->name, 0);
    }
    j->next = NULL;
    j->fd = fd;
    j->close_fd = close_fd;
    j->open = NULL;
    j->open_ctx = NULL;
    tl_buf_adds(&j->name, name);
    j->bucket = name_bucket(j->name.buf, j->name.len);
    return j;
}

/* Queue j (or run it now without a thread); with the lock held, which is
 * released. */
static int submit(struct tl_writer *w, struct job *j, struct tl_err *err)
{
    w->inflight += j->data.len;
    w->njobs++;
    w->names[j->bucket]++;
    if (!w->threaded) {
        int e = 0;
        int rc = run_job(j, !w->failed, &e);
        finish(w, j, rc, e);
        rc = w->failed ? failure(w, err) : 0;
        pthread_mutex_unlock(&w->mu);
        return rc;
    }
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    w->unsignalled_bytes += j->data.len;
    w->unsignalled_jobs++;
    if (w->sleeping && (w->unsignalled_bytes >= WAKE_BYTES || w->unsignalled_jobs >= WAKE_JOBS)) {
        w->unsignalled_bytes = w->unsignalled_jobs = 0;
        pthread_cond_signal(&w->work);
    }
    pthread_mutex_unlock(&w->mu);
    return 0;
}

/* Wait for room for n more bytes; with the lock held. False when an earlier
 * job failed. */
static bool wait_room(struct tl_writer *w, size_t n)
{
    while (w->threaded && !w->failed && w->njobs &&
           (w->njobs >= MAX_JOBS || w->inflight + n > w->max_inflight)) {
        w->unsignalled_bytes = w->unsignalled_jobs = 0;
        w->waiting = true;
        pthread_cond_signal(&w->work);
        pthread_cond_wait(&w->done, &w->mu);
        w->waiting = false;
    }
    return !w->failed;
}

int tl_writer_give(struct tl_writer *w, int fd, bool close_fd, struct tl_buf *data,
                   const char *name, struct tl_err *err)
{
    pthread_mutex_lock(&w->mu);
    if (!wait_room(w, data->len)) {
        pthread_mutex_unlock(&w->mu);
        if (close_fd)
            close(fd);
        tl_buf_reset(data);
        return failure(w, err);
    }
    struct job *j = take_job(w, fd, close_fd, name);
    /* Swap buffers: the job takes the bytes, the caller gets the job's
     * (empty, recycled) memory back, at least as large as what it gave (a fresh block, which
     * copies nothing): a streamed file fills its buffer up to the same mark again, and
     * growing a small one there copies it over and over in realloc. */
    size_t had = data->alloc;
    struct tl_buf t = j->data;
    j->data = *data;
    *data = t;
    tl_buf_reset(data);
    if (data->alloc < had)
        tl_buf_grow(data, had - 1);
    return submit(w, j, err);
}

int tl_writer_write(struct tl_writer *w, int fd, bool close_fd, const void *p, size_t n,
                    const char *name, struct tl_err *err)
{
    pthread_mutex_lock(&w->mu);
    if (!wait_room(w, n)) {
        pthread_mutex_unlock(&w->mu);
        if (close_fd)
            close(fd);
        return failure(w, err);
    }
    if (w->threaded) {
        struct job *j = take_job(w, fd, close_fd, name);
        tl_buf_add(&j->data, p, n);
        return submit(w, j, err);
    }
    /* Synchronous: no job, no copy. */
    pthread_mutex_unlock(&w->mu);
    int e = 0;
    int rc = do_io(fd, close_fd, p, n, true, &e);
    pthread_mutex_lock(&w->mu);
    if (rc < 0)
        note_failure(w, name, e);
    rc = w->failed ? failure(w, err) : 0;
    pthread_mutex_unlock(&w->mu);
    return rc;
}

int tl_writer_create_write(struct tl_writer *w, int (*open)(void *ctx, const char *name),
                           void *open_ctx, const void *p, size_t n, const char *name,
                           struct tl_err *err)
{
    pthread_mutex_lock(&w->mu);
    if (!wait_room(w, n)) {
        pthread_mutex_unlock(&w->mu);
        return failure(w, err);
    }
    struct job *j = take_job(w, -1, true, name);
    j->open = open;
    j->open_ctx = open_ctx;
    tl_buf_add(&j->data, p, n);
    return submit(w, j, err);
}

bool tl_writer_pending(struct tl_writer *w, const char *name, size_t n)
{
    unsigned b = name_bucket(name, n);
    pthread_mutex_lock(&w->mu);
    bool found = false;
    if (w->names[b]) {
        for (int list = 0; list < 2 && !found; list++) {
            for (const struct job *j = list ? w->running : w->head; j && !found; j = j->next)
                found = j->bucket == b && j->name.len == n && !memcmp(j->name.buf, name, n);
        }
    }
    pthread_mutex_unlock(&w->mu);
    return found;
}

static bool has_job(const struct job *j, const char *name)
{
    for (; j; j = j->next)
        if (!strcmp(j->name.buf, name))
            return true;
    return false;
}

int tl_writer_sync_file(struct tl_writer *w, const char *name, struct tl_err *err)
{
    pthread_mutex_lock(&w->mu);
    bool pending = has_job(w->head, name) || has_job(w->running, name);
    int rc = w->failed ? failure(w, err) : 0;
    pthread_mutex_unlock(&w->mu);
    return pending ? tl_writer_sync(w, err) : rc;
}

int tl_writer_sync(struct tl_writer *w, struct tl_err *err)
{
    pthread_mutex_lock(&w->mu);
    if (w->head) {
        w->unsignalled_bytes = w->unsignalled_jobs = 0;
        pthread_cond_signal(&w->work);
    }
    while (w->njobs)
        pthread_cond_wait(&w->done, &w->mu);
    int rc = w->failed ? failure(w, err) : 0;
    pthread_mutex_unlock(&w->mu);
    return rc;
}

int tl_copy_fd(int in, int out)
{
    for (;;) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
        if (n == 0)
            return 0;
        if (n > 0)
            continue;
        if (errno == EINTR)
            continue;
        if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
            return -1;
        break;
    }
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n == 0)
            return 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (tl_write_all(out, buf, (size_t)n) < 0)
            return -1;
    }
}

int tl_spool_open(const char *near, struct tl_err *err)
{
    struct tl_buf dir = TL_BUF_INIT;
    if (near) {
        const char *slash = strrchr(near, '/');
        if (slash)
            tl_buf_add(&dir, near, (size_t)(slash - near) + (slash == near));
        else
            tl_buf_adds(&dir, ".");
    } else {
        const char *t = getenv("TMPDIR");
        tl_buf_adds(&dir, t && *t ? t : "/tmp");
    }
    int fd = open(dir.buf, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        /* no O_TMPFILE on this file system: a name, unlinked at once */
        tl_buf_adds(&dir, "/.tlparse-spool-XXXXXX");
        fd = mkostemp(dir.buf, O_CLOEXEC);
        if (fd >= 0)
            unlink(dir.buf);
    }
    if (fd < 0)
        tl_error(err, "cannot create a temporary file in %s: %s", dir.buf, strerror(errno));
    tl_buf_release(&dir);
    return fd;
}

int tl_spool_each(int fd, uint64_t off, uint64_t size, const char *name,
                  int (*each)(void *ctx, const void *p, size_t n, struct tl_err *err), void *ctx,
                  struct tl_err *err)
{
    enum { PIECE = 256 * 1024 };
    char *buf = tl_xmalloc(PIECE);
    int rc = 0;
    for (uint64_t done = 0; done < size && rc == 0;) {
        size_t want = size - done < PIECE ? (size_t)(size - done) : PIECE;
        ssize_t r = pread(fd, buf, want, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            rc = tl_error(err, "cannot read back %s: %s", name,
                          r < 0 ? strerror(errno) : "cut short");
        else if ((rc = each(ctx, buf, (size_t)r, err)) == 0)
            done += (uint64_t)r;
    }
    free(buf);
    return rc < 0 ? -1 : 0;
}
