/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --serve for tl_run() and tl_watch() (serve.h): the server opened on the plan's address,
 * its URL told to the caller, and served on the calling thread or a thread of its own.
 */
#include "base/config.h"
#include "modes/serve.h"
#include "engine/engine.h"
#include "engine/messages.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int tl_serving_open(struct tl_serving *s, const struct tl_plan_serve *serve, bool live,
                    const struct tl_options *opt, struct tl_err *err)
{
    memset(s, 0, sizeof(*s));
    struct tl_httpd_config c = {.root = serve->root,
                                .bind = serve->bind,
                                .has_port = serve->has_port,
                                .port = serve->port,
                                .live = live};
    if (tl_httpd_open(&s->h, &c, err) < 0)
        return -1;
    s->serve = serve;
    snprintf(s->url, sizeof(s->url), "%s%s", tl_httpd_url(s->h), live ? "live.html" : "");
    if (!tl_httpd_loopback(s->h)) {
        struct tl_messages m = {.opt = opt};
        tl_say(&m, TL_MSG_WARNING,
               "tlparse: warning: serving on %s, which other machines can reach: the report "
               "holds the model's code (its source, graphs and generated kernels); without "
               "--bind it is served on 127.0.0.1 only",
               tl_httpd_address(s->h));
    }
    return 0;
}

void tl_serving_tell(const struct tl_serving *s, const struct tl_result *res)
{
    if (s->h && s->serve->serving)
        s->serve->serving(s->serve->ctx, s->url, s->serve->root, res);
}

void tl_serving_run(struct tl_serving *s, volatile sig_atomic_t *cancel)
{
    tl_httpd_serve(s->h, cancel);
    tl_stop_clear(cancel);
}

static void *serve_thread(void *arg)
{
    struct tl_serving *s = arg;
    tl_httpd_serve(s->h, &s->stop);
    return NULL;
}

int tl_serving_start(struct tl_serving *s, struct tl_err *err)
{
    int rc = pthread_create(&s->thread, NULL, serve_thread, s);
    if (rc != 0)
        return tl_error(err, "cannot start the server's thread: %s", strerror(rc));
    s->threaded = true;
    return 0;
}

void tl_serving_wait(volatile sig_atomic_t *cancel)
{
    struct timespec tick = {0, 100 * 1000 * 1000};
    while (!tl_stop_asked(cancel))
        nanosleep(&tick, NULL);
    tl_stop_clear(cancel);
}

void tl_serving_release(struct tl_serving *s)
{
    if (s->threaded) {
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
        pthread_join(s->thread, NULL);
        s->threaded = false;
    }
    tl_httpd_free(s->h);
    s->h = NULL;
}
