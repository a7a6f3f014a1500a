/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --serve (struct tl_plan_serve): the report served over HTTP (output/httpd.h), by tl_run()
 * once it is written, until the run's cancel flag is set; by tl_watch() on a thread of its
 * own while the live report is rebuilt. Not a mode: what the two do with the folder they
 * wrote. The socket listens from tl_serving_open on, before the log is read.
 */
#ifndef TL_MODES_SERVE_H
#define TL_MODES_SERVE_H

#include "base/config.h"
#include "modes/plan.h"
#include "base/err.h"
#include "output/httpd.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

struct tl_serving {
    struct tl_httpd *h; /* NULL: nothing served */
    const struct tl_plan_serve *serve;
    char url[128]; /* the page to open: the root's URL, live.html's for a watch */
    pthread_t thread;
    bool threaded;
    volatile sig_atomic_t stop; /* ends the thread */
};

/**
 * Listen for serve (borrowed until tl_serving_release); live: a watch's report, rebuilt while
 * it is served. A bind other than loopback is warned about through opt's messages. 0, or -1
 * with err filled (a port in use, an address that is none); s is then empty, and releasing it
 * does nothing.
 */
int tl_serving_open(struct tl_serving *s, const struct tl_plan_serve *serve, bool live,
                    const struct tl_options *opt, struct tl_err *err);
/** Tell the caller the report is served (serve->serving), with the run's result (NULL: a
 * watch's live report). */
void tl_serving_tell(const struct tl_serving *s, const struct tl_result *res);
/** Serve on this thread until *cancel is set, then clear it (it stopped the serving, not a
 * run). */
void tl_serving_run(struct tl_serving *s, volatile sig_atomic_t *cancel);
/** Serve on a thread of its own, until tl_serving_release. 0, or -1 with err filled. */
int tl_serving_start(struct tl_serving *s, struct tl_err *err);
/** Wait (the thread serving) until *cancel is set, then clear it. */
void tl_serving_wait(volatile sig_atomic_t *cancel);
/** Stop the thread, if there is one, and close the socket. */
void tl_serving_release(struct tl_serving *s);

#endif
