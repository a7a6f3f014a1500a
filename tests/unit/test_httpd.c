/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * output/httpd.c: the request target made a path (traversal, hidden names, encoded slashes
 * and NULs refused), the Host names a loopback server answers, content types; then a server
 * on a thread over a folder that holds symbolic links out of it, a FIFO and a sub-folder,
 * asked with raw requests (with openat2 and with the walk of one openat per name): files
 * byte for byte, HEAD, 301 for a folder without its '/', 404 and 405 and 400 and 431, and
 * idle clients that fill every slot cannot keep a request from being answered.
 */
#include "base/config.h"
#include "output/httpd.h"
#include "base/buf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

/* ---- the steps ------------------------------------------------------------------------------ */

static void test_path(void **state)
{
    (void)state;
    static const struct {
        const char *target;
        int status;
        const char *rel;
        bool dir;
    } cases[] = {
        {"/", 0, "", true},
        {"/index.html", 0, "index.html", false},
        {"/index.html?x=1#y", 0, "index.html", false},
        {"/live.js?n=3", 0, "live.js", false},
        {"/-_0_0_0/", 0, "-_0_0_0", true},
        {"/-_0_0_0", 0, "-_0_0_0", false},
        {"//a///b.txt", 0, "a/b.txt", false},
        {"/a%20b.txt", 0, "a b.txt", false},
        {"/%41%62c", 0, "Abc", false},
        {"/caf%C3%A9", 0, "caf\xc3\xa9", false},
        {"/..", 404, NULL, false},
        {"/../etc/passwd", 404, NULL, false},
        {"/a/../../etc/passwd", 404, NULL, false},
        {"/%2e%2e/etc/passwd", 404, NULL, false},
        {"/%2E%2e%2Fetc%2Fpasswd", 404, NULL, false},
        {"/.%2e/x", 404, NULL, false},
        {"/./index.html", 404, NULL, false},
        {"/.hidden", 404, NULL, false},
        {"/a/.tlparse-owner", 404, NULL, false},
        {"/a%2fb", 404, NULL, false},
        {"/a%2Fb", 404, NULL, false},
        {"/a%00b", 404, NULL, false},
        {"/a%0d%0aSet-Cookie:x", 404, NULL, false},
        {"/a%zzb", 400, NULL, false},
        {"/a%4", 400, NULL, false},
        {"/a%", 400, NULL, false},
        {"*", 400, NULL, false},
        {"http://example.com/index.html", 400, NULL, false},
        {"index.html", 400, NULL, false},
        {"", 400, NULL, false},
        {"/a\x01b", 400, NULL, false},
        {"/a\x7f", 400, NULL, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[256];
        bool dir = false;
        int st = tl_httpd_path(cases[i].target, strlen(cases[i].target), out, sizeof(out), &dir);
        if (st != cases[i].status)
            fail_msg("%s: status %d, not %d", cases[i].target, st, cases[i].status);
        if (!st) {
            assert_string_equal(out, cases[i].rel);
            assert_int_equal(dir, cases[i].dir);
        }
    }
    /* longer than the room for it: not found, never cut short */
    char out[8];
    bool dir;
    assert_int_equal(tl_httpd_path("/abcdefghij", 11, out, sizeof(out), &dir), 404);
    assert_int_equal(tl_httpd_path("/abcdef", 7, out, sizeof(out), &dir), 0);
    assert_string_equal(out, "abcdef");
}

static void test_host(void **state)
{
    (void)state;
    static const char *ok[] = {"127.0.0.1",    "127.0.0.1:8000", "localhost",
                               "LOCALHOST:80", "localhost.",     "[::1]",
                               "[::1]:8000",   "127.1.2.3:9",    "report.localhost:8000"};
    static const char *no[] = {"evil.com",
                               "evil.com:8000",
                               "127.0.0.1.evil.com",
                               "localhost.evil.com",
                               "10.0.0.1",
                               "[::2]",
                               "[::1",
                               "127.0.0.1:80x",
                               "",
                               ":8000",
                               "0.0.0.0",
                               "localhost:8000:1",
                               "xlocalhost"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (!tl_httpd_host_ok(ok[i], strlen(ok[i])))
            fail_msg("Host %s refused", ok[i]);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (tl_httpd_host_ok(no[i], strlen(no[i])))
            fail_msg("Host %s answered", no[i]);
    assert_true(tl_httpd_host_ok(NULL, 0));
}

static void test_type(void **state)
{
    (void)state;
    assert_string_equal(tl_httpd_type("index.html"), "text/html; charset=utf-8");
    assert_string_equal(tl_httpd_type("a/b/INDEX.HTM"), "text/html; charset=utf-8");
    assert_string_equal(tl_httpd_type("live.js"), "text/javascript; charset=utf-8");
    assert_string_equal(tl_httpd_type("s.css"), "text/css; charset=utf-8");
    assert_string_equal(tl_httpd_type("summary.json"), "application/json");
    assert_string_equal(tl_httpd_type("x/y.txt"), "text/plain; charset=utf-8");
    assert_string_equal(tl_httpd_type("raw.jsonl"), "text/plain; charset=utf-8");
    assert_string_equal(tl_httpd_type("raw.log"), "text/plain; charset=utf-8");
    assert_string_equal(tl_httpd_type("p.svg"), "image/svg+xml");
    assert_string_equal(tl_httpd_type("p.png"), "image/png");
    assert_string_equal(tl_httpd_type("a.txt/b"), "application/octet-stream");
    assert_string_equal(tl_httpd_type("noext"), "application/octet-stream");
}

static void test_bind(void **state)
{
    (void)state;
    struct tl_httpd *h;
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_httpd_config c = {.root = "/nonexistent", .bind = "example.com", .has_port = true};
    assert_int_equal(tl_httpd_open(&h, &c, &err), -1);
    assert_int_equal(err.code, TL_ERR_USAGE);
    assert_non_null(strstr(err.msg, "not an IP address"));
    /* the port of a server that listens is refused to another, with a hint */
    c.bind = NULL;
    assert_int_equal(tl_httpd_open(&h, &c, &err), 0);
    assert_true(tl_httpd_loopback(h));
    unsigned port = 0;
    assert_int_equal(sscanf(tl_httpd_url(h), "http://127.0.0.1:%u/", &port), 1);
    assert_true(port > 0);
    struct tl_httpd *h2;
    struct tl_httpd_config c2 = {.root = "/", .has_port = true, .port = (uint16_t)port};
    assert_int_equal(tl_httpd_open(&h2, &c2, &err), -1);
    assert_int_equal(err.code, TL_ERR_IO);
    assert_non_null(strstr(err.msg, "port 0 for any free one"));
    tl_httpd_free(h);
    /* [::1], and a wildcard's URL names the loopback */
    c.bind = "0.0.0.0";
    assert_int_equal(tl_httpd_open(&h, &c, &err), 0);
    assert_false(tl_httpd_loopback(h));
    assert_int_equal(strncmp(tl_httpd_url(h), "http://127.0.0.1:", 17), 0);
    assert_int_equal(strncmp(tl_httpd_address(h), "0.0.0.0:", 8), 0);
    tl_httpd_free(h);
    c.bind = "[::1]";
    if (tl_httpd_open(&h, &c, &err) == 0) { /* a machine without IPv6 has no ::1 */
        assert_true(tl_httpd_loopback(h));
        assert_int_equal(strncmp(tl_httpd_url(h), "http://[::1]:", 13), 0);
        tl_httpd_free(h);
    }
}

/* ---- a server ------------------------------------------------------------------------------- */

struct server {
    struct tl_httpd *h;
    pthread_t thread;
    volatile sig_atomic_t stop;
    unsigned port;
    char dir[64];
};

static void *serve_thread(void *arg)
{
    struct server *s = arg;
    tl_httpd_serve(s->h, &s->stop);
    return NULL;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void at(const char *dir, const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", dir, name);
}

/* A report folder with what a server must not give: links out of it, a FIFO. */
static void make_site(char *dir)
{
    strcpy(dir, "/tmp/tl-httpd-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char p[256], q[256];
    write_file(dir, "index.html", "<p>the index</p>\n");
    write_file(dir, "raw.jsonl", "{\"a\": 1}\n");
    at(dir, "sub", p, sizeof(p));
    assert_int_equal(mkdir(p, 0755), 0);
    write_file(dir, "sub/index.html", "<p>sub's index</p>\n");
    write_file(dir, "sub/a b.txt", "spaced\n");
    at(dir, "noindex", p, sizeof(p));
    assert_int_equal(mkdir(p, 0755), 0);
    write_file(dir, "noindex/x.txt", "x\n");
    write_file(dir, ".hidden", "secret\n");
    at(dir, "big.txt", p, sizeof(p));
    FILE *big = fopen(p, "w");
    assert_non_null(big);
    for (int i = 0; i < (8 << 20) / 64; i++)
        fputs("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", big);
    assert_int_equal(fclose(big), 0);
    at(dir, "passwd", p, sizeof(p));
    assert_int_equal(symlink("/etc/passwd", p), 0);
    at(dir, "etc", p, sizeof(p));
    assert_int_equal(symlink("/etc", p), 0);
    at(dir, "up", p, sizeof(p));
    assert_int_equal(symlink("..", p), 0);
    at(dir, "fifo", p, sizeof(p));
    assert_int_equal(mkfifo(p, 0644), 0);
    /* a link to a file inside the folder is not followed either */
    at(dir, "index-link.html", q, sizeof(q));
    assert_int_equal(symlink("index.html", q), 0);
}

static void remove_site(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void start(struct server *s, const char *root, bool live, bool no_openat2, unsigned ms)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_httpd_config c = {
        .root = root, .has_port = true, .live = live, .no_openat2 = no_openat2, .timeout_ms = ms};
    assert_int_equal(tl_httpd_open(&s->h, &c, &err), 0);
    assert_int_equal(sscanf(tl_httpd_url(s->h), "http://127.0.0.1:%u/", &s->port), 1);
    s->stop = 0;
    assert_int_equal(pthread_create(&s->thread, NULL, serve_thread, s), 0);
}

static void stop(struct server *s)
{
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
    pthread_join(s->thread, NULL);
    tl_httpd_free(s->h);
}

static int connect_to(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    return fd;
}

/* req sent whole, the answer read to its end (the server closes): its status, head in *head
 * and body in *body. */
static int ask(unsigned port, const char *req, size_t n, struct tl_buf *head, struct tl_buf *body)
{
    int fd = connect_to(port);
    assert_int_equal(send(fd, req, n, MSG_NOSIGNAL), (ssize_t)n);
    struct tl_buf all = TL_BUF_INIT;
    char buf[4096];
    ssize_t r;
    while ((r = recv(fd, buf, sizeof(buf), 0)) > 0)
        tl_buf_add(&all, buf, (size_t)r);
    assert_int_equal(r, 0); /* closed, not timed out */
    close(fd);
    const char *end = strstr(all.buf, "\r\n\r\n");
    assert_non_null(end);
    tl_buf_reset(head);
    tl_buf_add(head, all.buf, (size_t)(end - all.buf) + 4);
    tl_buf_reset(body);
    tl_buf_add(body, end + 4, all.len - (size_t)(end - all.buf) - 4);
    int status = 0;
    assert_int_equal(sscanf(all.buf, "HTTP/1.1 %d ", &status), 1);
    tl_buf_release(&all);
    return status;
}

static int get(unsigned port, const char *target, struct tl_buf *head, struct tl_buf *body)
{
    char req[512];
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", target);
    return ask(port, req, (size_t)n, head, body);
}

static void check_site(bool no_openat2)
{
    struct server s;
    make_site(s.dir);
    start(&s, s.dir, false, no_openat2, 0);
    struct tl_buf head = TL_BUF_INIT, body = TL_BUF_INIT;

    assert_int_equal(get(s.port, "/", &head, &body), 200);
    assert_string_equal(body.buf, "<p>the index</p>\n");
    assert_non_null(strstr(head.buf, "Content-Type: text/html; charset=utf-8\r\n"));
    assert_non_null(strstr(head.buf, "Content-Length: 17\r\n"));
    assert_non_null(strstr(head.buf, "X-Content-Type-Options: nosniff\r\n"));
    assert_non_null(strstr(head.buf, "Cache-Control: no-cache\r\n"));
    assert_int_equal(get(s.port, "/index.html?x", &head, &body), 200);
    assert_string_equal(body.buf, "<p>the index</p>\n");
    assert_int_equal(get(s.port, "/raw.jsonl", &head, &body), 200);
    assert_non_null(strstr(head.buf, "Content-Type: text/plain; charset=utf-8\r\n"));
    assert_int_equal(get(s.port, "/sub/", &head, &body), 200);
    assert_string_equal(body.buf, "<p>sub's index</p>\n");
    assert_int_equal(get(s.port, "/sub/a%20b.txt", &head, &body), 200);
    assert_string_equal(body.buf, "spaced\n");
    /* a folder without its '/': sent to it, so that its page's relative links resolve */
    assert_int_equal(get(s.port, "/sub", &head, &body), 301);
    assert_non_null(strstr(head.buf, "Location: /sub/\r\n"));
    assert_int_equal(get(s.port, "//sub", &head, &body), 301);
    assert_non_null(strstr(head.buf, "Location: /sub/\r\n")); /* never "//sub/": another host */
    /* no listing of a folder without index.html */
    assert_int_equal(get(s.port, "/noindex/", &head, &body), 404);
    assert_string_equal(body.buf, "404 Not Found\n");
    /* what is not the report's */
    static const char *const not_found[] = {
        "/.hidden",
        "/passwd",
        "/etc/passwd",
        "/up/",
        "/up/etc/passwd",
        "/fifo",
        "/index-link.html",
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/sub%2f..%2f..%2fetc%2fpasswd",
        "/nothing.html",
        "/sub/../../etc/passwd",
        "/%00",
    };
    for (size_t i = 0; i < sizeof(not_found) / sizeof(not_found[0]); i++) {
        int st = get(s.port, not_found[i], &head, &body);
        if (st != 404)
            fail_msg("%s: %d", not_found[i], st);
        assert_string_equal(body.buf, "404 Not Found\n"); /* the path is not echoed */
    }
    /* a client gone in the middle of a large file: the server goes on (no SIGPIPE) */
    for (int k = 0; k < 20; k++) {
        int fd = connect_to(s.port);
        static const char bigreq[] = "GET /big.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        assert_int_equal(send(fd, bigreq, sizeof(bigreq) - 1, MSG_NOSIGNAL),
                         (ssize_t)sizeof(bigreq) - 1);
        char some[100];
        if (k % 2) /* gone after a few bytes (a reset), or at once (a close, then EPIPE) */
            assert_true(recv(fd, some, sizeof(some), 0) > 0);
        close(fd);
    }
    assert_int_equal(get(s.port, "/big.txt", &head, &body), 200);
    assert_int_equal(body.len, 8u << 20);
    /* HEAD: the head of GET, no body */
    static const char headreq[] = "HEAD /index.html HTTP/1.1\r\nHost: localhost:1\r\n\r\n";
    assert_int_equal(ask(s.port, headreq, sizeof(headreq) - 1, &head, &body), 200);
    assert_non_null(strstr(head.buf, "Content-Length: 17\r\n"));
    assert_int_equal(body.len, 0);
    /* methods, versions, malformed requests, another site's name */
    static const char post[] = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc";
    assert_int_equal(ask(s.port, post, sizeof(post) - 1, &head, &body), 405);
    assert_non_null(strstr(head.buf, "Allow: GET, HEAD\r\n"));
    static const char put[] = "PUT /x HTTP/1.1\r\n\r\n";
    assert_int_equal(ask(s.port, put, sizeof(put) - 1, &head, &body), 405);
    static const char bad[] = "GET /\r\n\r\n";
    assert_int_equal(ask(s.port, bad, sizeof(bad) - 1, &head, &body), 400);
    static const char v2[] = "GET / HTTP/2.0\r\n\r\n";
    assert_int_equal(ask(s.port, v2, sizeof(v2) - 1, &head, &body), 400);
    static const char lf[] = "GET /index.html HTTP/1.0\n\n"; /* bare LFs, no Host */
    assert_int_equal(ask(s.port, lf, sizeof(lf) - 1, &head, &body), 200);
    static const char nul[] = "GET /index.html HTTP/1.1\r\nX: a\0b\r\n\r\n";
    assert_int_equal(ask(s.port, nul, sizeof(nul) - 1, &head, &body), 400);
    static const char rebind[] = "GET / HTTP/1.1\r\nHost: evil.example:8000\r\n\r\n";
    assert_int_equal(ask(s.port, rebind, sizeof(rebind) - 1, &head, &body), 403);
    /* a head that never ends within the limit */
    struct tl_buf big = TL_BUF_INIT;
    tl_buf_adds(&big, "GET / HTTP/1.1\r\n");
    while (big.len < 9000)
        tl_buf_adds(&big, "X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
    int fd = connect_to(s.port);
    send(fd, big.buf, big.len, MSG_NOSIGNAL);
    char buf[256] = "";
    ssize_t r = recv(fd, buf, sizeof(buf) - 1, 0);
    assert_true(r > 0);
    assert_int_equal(strncmp(buf, "HTTP/1.1 431 ", 13), 0);
    close(fd);
    tl_buf_release(&big);
    tl_buf_release(&head);
    tl_buf_release(&body);
    stop(&s);
    remove_site(s.dir);
}

static void test_site_openat2(void **state)
{
    (void)state;
    check_site(false);
}

static void test_site_openat(void **state)
{
    (void)state;
    check_site(true);
}

static uint64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Clients that connect and say nothing, more than there are slots: a request is answered
 * all the same, once their time is up, and they are closed. */
static void test_slow_clients(void **state)
{
    (void)state;
    struct server s;
    make_site(s.dir);
    start(&s, s.dir, false, false, 300);
    int idle[24];
    for (size_t i = 0; i < 24; i++) {
        idle[i] = connect_to(s.port);
        send(idle[i], "GET / HT", 8, MSG_NOSIGNAL); /* and no more */
    }
    uint64_t t0 = ms_now();
    struct tl_buf head = TL_BUF_INIT, body = TL_BUF_INIT;
    assert_int_equal(get(s.port, "/", &head, &body), 200);
    assert_true(ms_now() - t0 < 3000);
    char c;
    for (size_t i = 0; i < 24; i++) {
        assert_true(recv(idle[i], &c, 1, 0) <= 0); /* closed by the server */
        close(idle[i]);
    }
    tl_buf_release(&head);
    tl_buf_release(&body);
    stop(&s);
    remove_site(s.dir);
}

/* A single-page bundle: the file at / and /index.html, nothing else; a live root not there
 * yet: the page that waits for it, then the folder once it is. */
static void test_file_and_live(void **state)
{
    (void)state;
    char dir[64];
    make_site(dir);
    char page[128];
    at(dir, "report.html", page, sizeof(page));
    write_file(dir, "report.html", "<p>one page</p>\n");
    struct server s;
    start(&s, page, false, false, 0);
    struct tl_buf head = TL_BUF_INIT, body = TL_BUF_INIT;
    assert_int_equal(get(s.port, "/", &head, &body), 200);
    assert_string_equal(body.buf, "<p>one page</p>\n");
    assert_int_equal(get(s.port, "/index.html", &head, &body), 200);
    assert_int_equal(get(s.port, "/report.html", &head, &body), 404);
    assert_int_equal(get(s.port, "/raw.jsonl", &head, &body), 404);
    stop(&s);

    char live[128];
    at(dir, "live", live, sizeof(live));
    start(&s, live, true, false, 0);
    assert_int_equal(get(s.port, "/live.html", &head, &body), 503);
    assert_non_null(strstr(head.buf, "Cache-Control: no-store\r\n"));
    assert_non_null(strstr(head.buf, "Retry-After: 1\r\n"));
    assert_non_null(strstr(body.buf, "http-equiv=\"refresh\""));
    assert_int_equal(mkdir(live, 0755), 0);
    write_file(live, "live.html", "generation 1\n");
    assert_int_equal(get(s.port, "/live.html", &head, &body), 200);
    assert_string_equal(body.buf, "generation 1\n");
    assert_non_null(strstr(head.buf, "Cache-Control: no-store\r\n"));
    /* replaced whole, as a watch does: the new folder is served */
    char next[128];
    at(dir, "next", next, sizeof(next));
    assert_int_equal(mkdir(next, 0755), 0);
    write_file(next, "live.html", "generation 2\n");
    char old[128];
    at(dir, "old", old, sizeof(old));
    assert_int_equal(rename(live, old), 0);
    assert_int_equal(rename(next, live), 0);
    assert_int_equal(get(s.port, "/live.html", &head, &body), 200);
    assert_string_equal(body.buf, "generation 2\n");
    tl_buf_release(&head);
    tl_buf_release(&body);
    stop(&s);
    remove_site(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path),         cmocka_unit_test(test_host),
        cmocka_unit_test(test_type),         cmocka_unit_test(test_bind),
        cmocka_unit_test(test_site_openat2), cmocka_unit_test(test_site_openat),
        cmocka_unit_test(test_slow_clients), cmocka_unit_test(test_file_and_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
