/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Jobs run in order on a worker thread (jobq.h): their inputs queued in one buffer, each behind
 * its length, which the worker takes whole; their outputs gathered in another, which the caller
 * takes whole. No allocation per job.
 */
#include "base/config.h"
#include "base/jobq.h"
#include "base/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Input bytes queued before the sleeping worker is woken: a wake-up is a system call or two,
 * and most jobs are small. Draining and backpressure wake it too. */
#define BATCH (256u << 10)

struct tl_jobq {
    tl_jobq_fn fn;
    void *ctx;
    bool threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    struct tl_buf queued;  /* inputs waiting: each a size_t length, then its bytes */
    struct tl_buf running; /* the inputs the worker runs (lock not held) */
    size_t max_inflight;
    bool sleeping, busy, stop, waiting;
    struct tl_buf ready; /* the output of the jobs done, in order */
    struct tl_buf work;  /* the worker's output while it runs (lock not held) */
};

/* Wake the worker (the lock held): it sleeps until this is called, so that it runs batches,
 * not single jobs. */
static void kick(struct tl_jobq *q)
{
    q->sleeping = false;
    pthread_cond_signal(&q->wake);
}

/* Every job of in, in order, into out. */
static void run_all(struct tl_jobq *q, const struct tl_buf *in, struct tl_buf *out)
{
    size_t at = 0;
    while (at + sizeof(size_t) <= in->len) {
        size_t n;
        memcpy(&n, in->buf + at, sizeof(n));
        at += sizeof(n);
        q->fn(q->ctx, in->buf + at, n, out);
        at += n;
    }
}

static void *worker(void *arg)
{
    struct tl_jobq *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while ((!q->queued.len || q->sleeping) && !q->stop) {
            q->sleeping = true;
            pthread_cond_wait(&q->wake, &q->mu);
        }
        if (q->stop)
            break;
        struct tl_buf t = q->running;
        q->running = q->queued;
        q->queued = t;
        tl_buf_reset(&q->queued);
        q->busy = true;
        pthread_mutex_unlock(&q->mu);
        run_all(q, &q->running, &q->work);
        tl_buf_reset(&q->running);
        pthread_mutex_lock(&q->mu);
        q->busy = false;
        tl_buf_addbuf(&q->ready, &q->work);
        tl_buf_reset(&q->work);
        if (q->waiting)
            pthread_cond_broadcast(&q->done);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

struct tl_jobq *tl_jobq_new(tl_jobq_fn fn, void *ctx, size_t max_inflight, bool threads)
{
    struct tl_jobq *q = tl_xcalloc(1, sizeof(*q));
    q->fn = fn;
    q->ctx = ctx;
    q->max_inflight = max_inflight;
    tl_buf_init(&q->queued, 0);
    tl_buf_init(&q->running, 0);
    tl_buf_init(&q->ready, 0);
    tl_buf_init(&q->work, 0);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->wake, NULL);
    pthread_cond_init(&q->done, NULL);
    q->threaded = threads && pthread_create(&q->thread, NULL, worker, q) == 0;
    return q;
}

void tl_jobq_free(struct tl_jobq *q)
{
    if (!q)
        return;
    if (q->threaded) {
        pthread_mutex_lock(&q->mu);
        q->stop = true; /* what is queued is dropped; what runs is finished */
        pthread_cond_broadcast(&q->wake);
        pthread_mutex_unlock(&q->mu);
        pthread_join(q->thread, NULL);
    }
    tl_buf_release(&q->queued);
    tl_buf_release(&q->running);
    tl_buf_release(&q->ready);
    tl_buf_release(&q->work);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->wake);
    pthread_cond_destroy(&q->done);
    free(q);
}

void tl_jobq_submit(struct tl_jobq *q, const void *p, size_t n)
{
    if (!q->threaded) {
        q->fn(q->ctx, p, n, &q->ready);
        return;
    }
    pthread_mutex_lock(&q->mu);
    /* Backpressure: bounded memory however fast the caller runs. */
    while (q->queued.len && q->queued.len + n > q->max_inflight) {
        kick(q);
        q->waiting = true;
        pthread_cond_wait(&q->done, &q->mu);
        q->waiting = false;
    }
    tl_buf_add(&q->queued, &n, sizeof(n));
    tl_buf_add(&q->queued, p, n);
    if (q->sleeping && q->queued.len >= BATCH)
        kick(q);
    pthread_mutex_unlock(&q->mu);
}

void tl_jobq_take(struct tl_jobq *q, struct tl_buf *out)
{
    if (q->threaded)
        pthread_mutex_lock(&q->mu);
    tl_buf_addbuf(out, &q->ready);
    tl_buf_reset(&q->ready);
    if (q->threaded)
        pthread_mutex_unlock(&q->mu);
}

void tl_jobq_drain(struct tl_jobq *q, struct tl_buf *out)
{
    if (q->threaded) {
        pthread_mutex_lock(&q->mu);
        while (q->queued.len || q->busy) {
            kick(q);
            q->waiting = true;
            pthread_cond_wait(&q->done, &q->mu);
        }
        q->waiting = false;
        pthread_mutex_unlock(&q->mu);
    }
    tl_jobq_take(q, out);
}
