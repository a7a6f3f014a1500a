/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A static file server for a report (tlparse --serve): GET and HEAD of the files under one
 * folder, or of one file (a single-page bundle) at /, over HTTP/1.1 with one answer per
 * connection. One thread, poll(2), a few connections at once, each with a deadline, so that
 * a slow or idle client holds a slot for seconds at most. The root is looked up by its path
 * on every request (a live report's folder is replaced whole as it is rebuilt) and every file
 * is opened beneath it: openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel
 * has it, else one openat with O_NOFOLLOW per name; a path with "..", a hidden name, an
 * encoded slash or a NUL is not found. No directory listing; no request text is echoed.
 * Bound to 127.0.0.1 unless told otherwise; on a loopback address it answers only requests
 * whose Host is a loopback name (a page of another site cannot read it through DNS
 * rebinding). Depends on base only.
 */
#ifndef TL_HTTPD_H
#define TL_HTTPD_H

#include "base/config.h"
#include "base/err.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct tl_httpd;

/* The first port tried when none is asked for, and how many after it (the reference's). */
#define TL_HTTPD_PORT_FIRST 8000
#define TL_HTTPD_PORT_TRIES 100

struct tl_httpd_config {
    const char *root;    /* the report folder, or one file served at / (and /index.html) */
    const char *bind;    /* an IPv4 or IPv6 address, or "localhost"; NULL: 127.0.0.1 */
    bool has_port;       /* false: the first free port of 8000..8099 */
    uint16_t port;       /* with has_port: this port, 0: any free one */
    bool live;           /* a report being rebuilt: Cache-Control: no-store, and a page that
                            waits for it while the root is not there yet */
    unsigned timeout_ms; /* a request must come within this, and an answer make progress;
                            0: 10 s */
    bool no_openat2;     /* tests: one openat per name, as where the kernel has no openat2 */
};

/**
 * Listen as c says (borrowed: c->root must outlive the server). Answers nothing before
 * tl_httpd_serve. Returns 0 and *out (free it with tl_httpd_free), or -1 with err filled:
 * TL_ERR_USAGE for a bind that is no address, TL_ERR_IO for a port in use or refused.
 */
int tl_httpd_open(struct tl_httpd **out, const struct tl_httpd_config *c, struct tl_err *err);
/** The URL of the root: "http://127.0.0.1:8000/" (a wildcard bind gives its loopback). */
const char *tl_httpd_url(const struct tl_httpd *h);
/** The address and port listened on, as "0.0.0.0:8000" or "[::]:8000". */
const char *tl_httpd_address(const struct tl_httpd *h);
/** Whether it listens on a loopback address only (127.0.0.0/8, ::1). */
bool tl_httpd_loopback(const struct tl_httpd *h);
/** Answer requests until *stop is set (read atomically; looked at every 200 ms), then close
 * every connection. May run on a thread of its own. */
void tl_httpd_serve(struct tl_httpd *h, volatile sig_atomic_t *stop);
/** Close the socket and free h (NULL: nothing). */
void tl_httpd_free(struct tl_httpd *h);

/* The steps of a request, for the unit test. */

/**
 * The file a request target names, relative to the root, into out (size bytes): "" for the
 * root. 0, or the HTTP status to answer: 400 for a target that is no origin-form path or
 * has a bad %-escape, 404 for one that names ".." or a hidden name, holds an encoded '/' or
 * NUL, or is too long. *dir: the target ends with '/' (or is the root).
 */
int tl_httpd_path(const char *target, size_t n, char *out, size_t size, bool *dir);
/** The Content-Type of a file name, by its extension. */
const char *tl_httpd_type(const char *name);
/** Whether a Host header's value (NULL: none) is one a loopback server answers. */
bool tl_httpd_host_ok(const char *host, size_t n);

#endif
