/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pthread.h for the WebAssembly build (wasm32-wasi has no threads): one thread. Creating a
 * thread fails, which every caller in the library takes as "do the work on this thread"; locks
 * are no-ops; waiting on a condition could only wait forever with no other thread, so it aborts.
 */
#ifndef TL_WEB_PTHREAD_H
#define TL_WEB_PTHREAD_H

#include <errno.h>
#include <stdlib.h>

#include <sys/types.h> /* wasi-libc's pthread_t, pthread_mutex_t, ... (musl's) */

#define PTHREAD_MUTEX_INITIALIZER                                                                  \
    {                                                                                              \
        {                                                                                          \
            {                                                                                      \
                0                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
#define PTHREAD_COND_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define PTHREAD_ONCE_INIT 0

static inline int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                                 void *arg)
{
    (void)t;
    (void)a;
    (void)fn;
    (void)arg;
    return EAGAIN;
}

static inline int pthread_join(pthread_t t, void **ret)
{
    (void)t;
    (void)ret;
    return ESRCH;
}

static inline int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
    (void)a;
    (void)m;
    return 0;
}

static inline int pthread_mutex_destroy(pthread_mutex_t *m)
{
    (void)m;
    return 0;
}

static inline int pthread_mutex_lock(pthread_mutex_t *m)
{
    (void)m;
    return 0;
}

static inline int pthread_mutex_unlock(pthread_mutex_t *m)
{
    (void)m;
    return 0;
}

static inline int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
    (void)a;
    (void)c;
    return 0;
}

static inline int pthread_cond_destroy(pthread_cond_t *c)
{
    (void)c;
    return 0;
}

static inline int pthread_cond_signal(pthread_cond_t *c)
{
    (void)c;
    return 0;
}

static inline int pthread_cond_broadcast(pthread_cond_t *c)
{
    (void)c;
    return 0;
}

static inline int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    (void)c;
    (void)m;
    abort();
}

static inline int pthread_once(pthread_once_t *o, void (*fn)(void))
{
    if (!*o) {
        *o = 1;
        fn();
    }
    return 0;
}

#endif
