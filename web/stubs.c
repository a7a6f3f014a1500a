/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the WebAssembly build leaves out (web/CMakeLists.txt) or wasm32-wasi's libc lacks,
 * stood in for: the thread pool runs its jobs on the calling thread, and --serve is refused
 * (no sockets). A report folder is written in the worker's memory (the diff's, made into a
 * bundle). The POSIX calls wasi-libc lacks are in web/compat/posix.c.
 */
#include "base/config.h"
#include "base/err.h"
#include "base/pool.h"
#include "output/httpd.h"

void tl_pool_run(size_t n, unsigned threads, void (*job)(void *ctx, size_t i), void *ctx)
{
    (void)threads;
    for (size_t i = 0; i < n; i++)
        job(ctx, i);
}

unsigned tl_pool_cores(void)
{
    return 1;
}

/* ---- libc ---------------------------------------------------------------------------------- */

/* --serve: no sockets in the page (the page's entry never asks for it). */
int tl_httpd_open(struct tl_httpd **out, const struct tl_httpd_config *c, struct tl_err *err)
{
    (void)c;
    *out = NULL;
    return tl_error_code(err, TL_ERR_USAGE, "--serve is not available in the web page");
}

const char *tl_httpd_url(const struct tl_httpd *h)
{
    (void)h;
    return "";
}

const char *tl_httpd_address(const struct tl_httpd *h)
{
    (void)h;
    return "";
}

bool tl_httpd_loopback(const struct tl_httpd *h)
{
    (void)h;
    return true;
}

void tl_httpd_serve(struct tl_httpd *h, volatile sig_atomic_t *stop)
{
    (void)h;
    (void)stop;
}

void tl_httpd_free(struct tl_httpd *h)
{
    (void)h;
}
