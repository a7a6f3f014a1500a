/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The thread pool (pool.h): the threads take job numbers from a shared counter under a
 * mutex; the caller's thread is one of them, so threads = 1 starts none.
 */
#include "base/config.h"
#include "base/pool.h"
#include "base/xalloc.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

struct pool {
    pthread_mutex_t mu;
    size_t next, n;
    void (*job)(void *ctx, size_t i);
    void *ctx;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            return NULL;
        p->job(p->ctx, i);
    }
}

unsigned tl_pool_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (unsigned)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

void tl_pool_run(size_t n, unsigned threads, void (*job)(void *ctx, size_t i), void *ctx)
{
    if (threads == 0)
        threads = tl_pool_cores();
    if (threads > n)
        threads = (unsigned)(n ? n : 1);
    struct pool p = {PTHREAD_MUTEX_INITIALIZER, 0, n, job, ctx};
    pthread_t *t = tl_xcalloc(threads, sizeof(*t));
    unsigned started = 0;
    for (unsigned k = 1; k < threads; k++) {
        if (pthread_create(&t[k], NULL, worker, &p) != 0)
            break; /* fewer threads: the others do the work */
        started = k;
    }
    worker(&p);
    for (unsigned k = 1; k <= started; k++)
        pthread_join(t[k], NULL);
    pthread_mutex_destroy(&p.mu);
    free(t);
}
