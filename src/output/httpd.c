/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report's HTTP file server (httpd.h): a listening socket, a poll loop over it and a few
 * connections, each read up to its request's blank line, answered with one file (or a status)
 * and closed. Nothing here knows what a report holds; base only.
 */
#include "base/config.h"
#include "output/httpd.h"
#include "base/buf.h"
#include "base/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/openat2.h>

#define MAX_CONNS 16 /* connections answered at once; more wait in the listen queue */
#define REQ_MAX 8192 /* a request's line and headers */
#define WAIT_MS                                                                                    \
    10000               /* the whole request must come within this, and an answer that makes       \
                           no progress for this long is dropped (tl_httpd_config.timeout_ms) */
#define DRAIN_MS 1000   /* what the client still sends after the answer, read before closing */
#define TICK_MS 200     /* how often the stop flag is looked at */
#define CHUNK (1 << 16) /* bytes of a file read and sent at once */

enum conn_state { C_FREE, C_READ, C_WRITE, C_DRAIN };

struct conn {
    enum conn_state state;
    int fd;
    uint64_t deadline; /* monotonic ms: closed when it passes */
    char req[REQ_MAX + 1];
    size_t reqlen;
    struct tl_buf out; /* the answer's head, and a status's body */
    size_t out_off;
    int file; /* the file answered, -1: none */
    off_t file_off, file_end;
};

struct tl_httpd {
    int fd;
    const char *root;
    bool live, loopback;
    bool no_openat2; /* the kernel refused openat2: one openat per name */
    unsigned wait_ms;
    char url[96], addr[80];
    struct conn conns[MAX_CONNS];
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool stop_asked(volatile sig_atomic_t *stop)
{
    return stop && __atomic_load_n(stop, __ATOMIC_RELAXED) != 0;
}

/* ---- listening ------------------------------------------------------------------------------ */

/* The address to bind: an IPv4 or IPv6 literal ([::1] too), or "localhost". */
static int parse_bind(const char *bind, struct sockaddr_storage *ss, socklen_t *len, bool *loopback)
{
    const char *a = bind ? bind : "127.0.0.1";
    char tmp[INET6_ADDRSTRLEN + 1];
    size_t n = strlen(a);
    if (!strcasecmp(a, "localhost"))
        a = "127.0.0.1";
    else if (n >= 2 && a[0] == '[' && a[n - 1] == ']' && n - 2 < sizeof(tmp)) {
        memcpy(tmp, a + 1, n - 2);
        tmp[n - 2] = 0;
        a = tmp;
    }
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, a, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        *len = sizeof(*v4);
        *loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
        return 0;
    }
    if (inet_pton(AF_INET6, a, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        *len = sizeof(*v6);
        *loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr) ||
                    (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr) && v6->sin6_addr.s6_addr[12] == 127);
        return 0;
    }
    return -1;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
    if (ss->ss_family == AF_INET)
        ((struct sockaddr_in *)ss)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* A socket listening on ss, or -1 with errno. */
static int listen_on(const struct sockaddr_storage *ss, socklen_t len)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    /* a server stopped a moment ago leaves its port in TIME_WAIT: taken again at once */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (const struct sockaddr *)ss, len) < 0 || listen(fd, 64) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* h->url and h->addr, from what the socket is bound to. */
static void name_it(struct tl_httpd *h)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    char ip[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    getsockname(h->fd, (struct sockaddr *)&ss, &len);
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof(ip));
        port = ntohs(v4->sin_port);
        snprintf(h->addr, sizeof(h->addr), "%s:%u", ip, port);
        snprintf(h->url, sizeof(h->url), "http://%s:%u/",
                 v4->sin_addr.s_addr == htonl(INADDR_ANY) ? "127.0.0.1" : ip, port);
    } else {
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof(ip));
        port = ntohs(v6->sin6_port);
        snprintf(h->addr, sizeof(h->addr), "[%s]:%u", ip, port);
        snprintf(h->url, sizeof(h->url), "http://[%s]:%u/",
                 IN6_IS_ADDR_UNSPECIFIED(&v6->sin6_addr) ? "::1" : ip, port);
    }
}

int tl_httpd_open(struct tl_httpd **out, const struct tl_httpd_config *c, struct tl_err *err)
{
    *out = NULL;
    struct sockaddr_storage ss;
    socklen_t len;
    bool loopback;
    if (parse_bind(c->bind, &ss, &len, &loopback) < 0)
        return tl_error_code(err, TL_ERR_USAGE,
                             "cannot serve on %s: not an IP address (127.0.0.1, ::1, 0.0.0.0, "
                             "a machine's address) or localhost",
                             c->bind);
    const char *shown = c->bind ? c->bind : "127.0.0.1";
    int fd = -1;
    if (c->has_port) {
        set_port(&ss, c->port);
        fd = listen_on(&ss, len);
        if (fd < 0 && errno == EADDRINUSE)
            return tl_error(err,
                            "cannot serve on %s port %u: %s (another program listens there: "
                            "ask for another port, or port 0 for any free one)",
                            shown, c->port, strerror(errno));
        if (fd < 0)
            return tl_error(err, "cannot serve on %s port %u: %s", shown, c->port, strerror(errno));
    } else {
        for (unsigned p = TL_HTTPD_PORT_FIRST;
             fd < 0 && p < TL_HTTPD_PORT_FIRST + TL_HTTPD_PORT_TRIES; p++) {
            set_port(&ss, (uint16_t)p);
            fd = listen_on(&ss, len);
            if (fd < 0 && errno != EADDRINUSE)
                return tl_error(err, "cannot serve on %s port %u: %s", shown, p, strerror(errno));
        }
        if (fd < 0)
            return tl_error(err,
                            "cannot serve on %s: ports %u to %u are all in use (ask for "
                            "another port, or port 0 for any free one)",
                            shown, TL_HTTPD_PORT_FIRST,
                            TL_HTTPD_PORT_FIRST + TL_HTTPD_PORT_TRIES - 1);
    }
    struct tl_httpd *h = tl_xcalloc(1, sizeof(*h));
    h->fd = fd;
    h->root = c->root;
    h->live = c->live;
    h->no_openat2 = c->no_openat2;
    h->wait_ms = c->timeout_ms ? c->timeout_ms : WAIT_MS;
    h->loopback = loopback;
    for (size_t i = 0; i < MAX_CONNS; i++) {
        h->conns[i].fd = h->conns[i].file = -1;
        tl_buf_init(&h->conns[i].out, 0);
    }
    name_it(h);
    *out = h;
    return 0;
}

const char *tl_httpd_url(const struct tl_httpd *h)
{
    return h->url;
}

const char *tl_httpd_address(const struct tl_httpd *h)
{
    return h->addr;
}

bool tl_httpd_loopback(const struct tl_httpd *h)
{
    return h->loopback;
}

/* ---- a request ------------------------------------------------------------------------------ */

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int tl_httpd_path(const char *t, size_t n, char *out, size_t size, bool *dir)
{
    *dir = false;
    if (size)
        out[0] = 0;
    if (!n || t[0] != '/' || size < 2)
        return 400; /* "*", "http://host/..." */
    size_t end = 1;
    while (end < n && t[end] != '?' && t[end] != '#')
        end++;
    *dir = t[end - 1] == '/';
    size_t w = 0, seg = 0; /* out[seg..w): the name being decoded */
    for (size_t i = 1; i <= end; i++) {
        if (i == end || t[i] == '/') {
            if (w == seg)
                continue; /* "//", or the end after a '/' */
            if (out[seg] == '.')
                return 404; /* ".", "..", and hidden names */
            if (i == end)
                break;
            if (w + 2 > size)
                return 404;
            out[w++] = '/';
            seg = w;
            continue;
        }
        unsigned char c = (unsigned char)t[i];
        if (c <= 0x20 || c == 0x7f)
            return 400;
        if (c == '%') {
            int hi = i + 2 < end ? hex(t[i + 1]) : -1;
            int lo = i + 2 < end ? hex(t[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                return 400;
            c = (unsigned char)(hi * 16 + lo);
            i += 2;
            /* no encoded separator or NUL: a name is what it looks like */
            if (c < 0x20 || c == '/' || c == 0x7f)
                return 404;
        }
        if (w + 2 > size)
            return 404;
        out[w++] = (char)c;
    }
    if (w && out[w - 1] == '/')
        w--;
    out[w] = 0;
    return 0;
}

const char *tl_httpd_type(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {"html", "text/html; charset=utf-8"},
        {"htm", "text/html; charset=utf-8"},
        {"js", "text/javascript; charset=utf-8"},
        {"css", "text/css; charset=utf-8"},
        {"json", "application/json"},
        {"txt", "text/plain; charset=utf-8"},
        {"jsonl", "text/plain; charset=utf-8"},
        {"log", "text/plain; charset=utf-8"},
        {"py", "text/plain; charset=utf-8"},
        {"svg", "image/svg+xml"},
        {"png", "image/png"},
        {"ico", "image/x-icon"},
        {"zip", "application/zip"},
    };
    const char *slash = strrchr(name, '/');
    const char *dot = strrchr(slash ? slash + 1 : name, '.');
    for (size_t i = 0; dot && i < TL_ARRAY_LEN(types); i++)
        if (!strcasecmp(dot + 1, types[i].ext))
            return types[i].type;
    return "application/octet-stream";
}

bool tl_httpd_host_ok(const char *host, size_t n)
{
    if (!host)
        return true; /* an HTTP/1.0 client: no browser sends a request without Host */
    char name[256];
    size_t len = n;
    if (n && host[0] == '[') { /* "[::1]:8000" */
        const char *close = memchr(host, ']', n);
        if (!close)
            return false;
        len = (size_t)(close - host) + 1;
    } else {
        const char *colon = memchr(host, ':', n);
        if (colon)
            len = (size_t)(colon - host);
    }
    for (size_t i = len; i < n; i++) /* the port: ":" and digits */
        if (!(i == len ? host[i] == ':' : host[i] >= '0' && host[i] <= '9'))
            return false;
    if (!len || len >= sizeof(name))
        return false;
    memcpy(name, host, len);
    name[len] = 0;
    if (name[len - 1] == '.') /* "localhost." */
        name[--len] = 0;
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, name, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (len > 2 && name[0] == '[') {
        name[len - 1] = 0;
        return inet_pton(AF_INET6, name + 1, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
    }
    /* localhost and the names under it, which browsers resolve to loopback themselves */
    return !strcasecmp(name, "localhost") ||
           (len > 10 && !strcasecmp(name + len - 10, ".localhost"));
}

/* rel (checked by tl_httpd_path: no "..", no leading '/') opened beneath dirfd, following no
 * symbolic link; non-blocking, so that a FIFO there cannot hold the server. */
static int open_beneath(struct tl_httpd *h, int dirfd, const char *rel)
{
    int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
#ifdef SYS_openat2
    if (!h->no_openat2) {
        struct open_how how;
        memset(&how, 0, sizeof(how));
        how.flags = (uint64_t)flags;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
            return (int)fd;
        h->no_openat2 = true; /* not there, or filtered (seccomp gives EPERM) */
    }
#endif
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s", rel);
    int fd = dirfd;
    char *name = path;
    for (;;) {
        char *slash = strchr(name, '/');
        if (slash)
            *slash = 0;
        int next = openat(fd, name, slash ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : flags);
        int e = errno;
        if (fd != dirfd)
            close(fd);
        if (next < 0) {
            errno = e;
            return -1;
        }
        fd = next;
        if (!slash)
            return fd;
        name = slash + 1;
    }
}

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 301:
        return "Moved Permanently";
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 431:
        return "Request Header Fields Too Large";
    case 503:
        return "Service Unavailable";
    default:
        return "Internal Server Error";
    }
}

/* The head of an answer, into c->out. */
static void head(struct tl_httpd *h, struct conn *c, int status, const char *type,
                 unsigned long long length, const char *extra)
{
    tl_buf_reset(&c->out);
    tl_buf_addf(
        &c->out,
        "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %llu\r\n"
        "X-Content-Type-Options: nosniff\r\nCache-Control: %s\r\n%sConnection: close\r\n\r\n",
        status, reason(status), type, length, h->live ? "no-store" : "no-cache",
        extra ? extra : "");
}

/* A status and its one-line body, which names nothing of the request. */
static void answer_status(struct tl_httpd *h, struct conn *c, int status, bool head_only,
                          const char *extra)
{
    char body[96];
    int n = snprintf(body, sizeof(body), "%d %s\n", status, reason(status));
    head(h, c, status, "text/plain; charset=utf-8", (unsigned long long)n, extra);
    if (!head_only)
        tl_buf_add(&c->out, body, (size_t)n);
}

/* A live report whose first generation is not written yet: a page that asks again. */
static void answer_waiting(struct tl_httpd *h, struct conn *c, bool head_only)
{
    static const char page[] =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta http-equiv=\"refresh\" content=\"1\"><title>tlparse</title></head>\n"
        "<body><p>Waiting for the first report of the watch&hellip;</p></body></html>\n";
    head(h, c, 503, "text/html; charset=utf-8", sizeof(page) - 1, "Retry-After: 1\r\n");
    if (!head_only)
        tl_buf_add(&c->out, page, sizeof(page) - 1);
}

/* fd, a regular file (else 404), as the answer; fd is the connection's from here on. */
static void answer_file(struct tl_httpd *h, struct conn *c, int fd, const char *name,
                        bool head_only)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        answer_status(h, c, 404, head_only, NULL);
        return;
    }
    head(h, c, 200, tl_httpd_type(name), (unsigned long long)st.st_size, NULL);
    if (head_only) {
        close(fd);
        return;
    }
    c->file = fd;
    c->file_off = 0;
    c->file_end = st.st_size;
}

/* A folder asked for without its '/': where it is, so that its page's links resolve. */
static void answer_redirect(struct tl_httpd *h, struct conn *c, const char *rel, bool head_only)
{
    struct tl_buf loc = TL_BUF_INIT;
    tl_buf_adds(&loc, "Location: /");
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/-._~", *p))
            tl_buf_addch(&loc, (char)*p);
        else
            tl_buf_addf(&loc, "%%%02X", *p);
    }
    tl_buf_adds(&loc, "/\r\n");
    answer_status(h, c, 301, head_only, loc.buf);
    tl_buf_release(&loc);
}

/* The value of header name in the head p[0..n), or NULL. */
static const char *header(const char *p, size_t n, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    const char *end = p + n;
    const char *line = memchr(p, '\n', n);
    while (line && ++line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        size_t ll = eol ? (size_t)(eol - line) : (size_t)(end - line);
        if (ll > nl && line[nl] == ':' && !strncasecmp(line, name, nl)) {
            const char *v = line + nl + 1, *ve = line + ll;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
                ve--;
            *len = (size_t)(ve - v);
            return v;
        }
        line = eol;
    }
    return NULL;
}

/* c->req[0..n) is a whole request head: its answer, into c->out and c->file. */
static void answer(struct tl_httpd *h, struct conn *c, size_t n)
{
    const char *req = c->req;
    const char *eol = memchr(req, '\n', n);
    size_t ll = (size_t)(eol - req);
    if (ll && req[ll - 1] == '\r')
        ll--;
    const char *sp1 = memchr(req, ' ', ll);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', ll - (size_t)(sp1 + 1 - req)) : NULL;
    const char *version = sp2 ? sp2 + 1 : NULL;
    size_t vlen = version ? ll - (size_t)(version - req) : 0;
    if (!sp2 || memchr(req, 0, n) || vlen != 8 || strncmp(version, "HTTP/1.", 7)) {
        answer_status(h, c, 400, false, NULL);
        return;
    }
    size_t mlen = (size_t)(sp1 - req);
    bool head_only = mlen == 4 && !memcmp(req, "HEAD", 4);
    if (!head_only && !(mlen == 3 && !memcmp(req, "GET", 3))) {
        answer_status(h, c, 405, false, "Allow: GET, HEAD\r\n");
        return;
    }
    size_t hlen = 0;
    const char *host = header(req, n, "Host", &hlen);
    if (h->loopback && !tl_httpd_host_ok(host, hlen)) {
        answer_status(h, c, 403, head_only, NULL);
        return;
    }
    char rel[PATH_MAX];
    bool dir;
    int status = tl_httpd_path(sp1 + 1, (size_t)(sp2 - sp1 - 1), rel, sizeof(rel), &dir);
    if (status) {
        answer_status(h, c, status, head_only, NULL);
        return;
    }
    /* The root by its path, each time: a live report's folder is replaced as it is rebuilt. */
    int root = open(h->root, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (root < 0 || fstat(root, &st) < 0) {
        int e = errno;
        if (root >= 0)
            close(root);
        if (h->live && e == ENOENT)
            answer_waiting(h, c, head_only);
        else
            answer_status(h, c, 404, head_only, NULL);
        return;
    }
    if (S_ISREG(st.st_mode)) { /* one page (a bundle): at / */
        if (!rel[0] || !strcmp(rel, "index.html"))
            answer_file(h, c, root, h->root, head_only);
        else {
            close(root);
            answer_status(h, c, 404, head_only, NULL);
        }
        return;
    }
    int fd = !S_ISDIR(st.st_mode) ? -1 : rel[0] ? open_beneath(h, root, rel) : dup(root);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (rel[0] && !dir) {
            close(fd);
            close(root);
            answer_redirect(h, c, rel, head_only);
            return;
        }
        int index = open_beneath(h, fd, "index.html");
        close(fd);
        fd = index;
    }
    close(root);
    if (fd < 0)
        answer_status(h, c, 404, head_only, NULL);
    else
        answer_file(h, c, fd, rel[0] && !dir ? rel : "index.html", head_only);
}

/* ---- connections ---------------------------------------------------------------------------- */

static void conn_close(struct conn *c)
{
    if (c->file >= 0)
        close(c->file);
    if (c->fd >= 0)
        close(c->fd);
    c->fd = c->file = -1;
    c->state = C_FREE;
    tl_buf_reset(&c->out);
}

static void accept_all(struct tl_httpd *h, uint64_t now)
{
    for (size_t i = 0; i < MAX_CONNS; i++) {
        struct conn *c = &h->conns[i];
        if (c->state != C_FREE)
            continue;
        int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* none waiting (EAGAIN), or none can be taken now (EMFILE) */
        c->fd = fd;
        c->state = C_READ;
        c->deadline = now + h->wait_ms;
        c->reqlen = 0;
        c->out_off = 0;
    }
}

/* The end of the request head in c->req, searched from from: its length, or 0. */
static size_t head_end(const struct conn *c, size_t from)
{
    for (size_t i = from; i < c->reqlen; i++) {
        if (c->req[i] != '\n')
            continue;
        if (i >= 1 && c->req[i - 1] == '\n')
            return i + 1;
        if (i >= 2 && c->req[i - 1] == '\r' && c->req[i - 2] == '\n')
            return i + 1;
    }
    return 0;
}

static void step_read(struct tl_httpd *h, struct conn *c, uint64_t now)
{
    size_t before = c->reqlen;
    ssize_t r = recv(c->fd, c->req + c->reqlen, REQ_MAX - c->reqlen, 0);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (r <= 0) {
        conn_close(c);
        return;
    }
    c->reqlen += (size_t)r;
    size_t end = head_end(c, before);
    if (!end && c->reqlen < REQ_MAX)
        return;
    if (!end)
        answer_status(h, c, 431, false, NULL);
    else
        answer(h, c, end);
    c->out_off = 0;
    c->state = C_WRITE;
    c->deadline = now + h->wait_ms;
}

static void step_write(struct tl_httpd *h, struct conn *c, uint64_t now)
{
    for (;;) {
        ssize_t r;
        if (c->out_off < c->out.len) {
            r = send(c->fd, c->out.buf + c->out_off, c->out.len - c->out_off,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
            if (r > 0)
                c->out_off += (size_t)r;
        } else if (c->file >= 0 && c->file_off < c->file_end) {
            /* read and sent with MSG_NOSIGNAL (sendfile would raise SIGPIPE, which ends the
             * process, when the client goes away); what is not sent is read again */
            char buf[CHUNK];
            off_t left = c->file_end - c->file_off;
            ssize_t got = pread(c->file, buf, left < CHUNK ? (size_t)left : CHUNK, c->file_off);
            if (got <= 0) { /* the file got shorter: the answer cannot be whole */
                conn_close(c);
                return;
            }
            r = send(c->fd, buf, (size_t)got, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (r > 0)
                c->file_off += r;
        } else {
            /* all sent: no more to say, and what the client still sends is read before the
             * close, or the kernel would reset the connection and may drop the answer */
            shutdown(c->fd, SHUT_WR);
            c->state = C_DRAIN;
            c->deadline = now + DRAIN_MS;
            return;
        }
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (r < 0) {
            conn_close(c);
            return;
        }
        c->deadline = now + h->wait_ms;
    }
}

static void step_drain(struct conn *c)
{
    char buf[4096];
    for (;;) {
        ssize_t r = recv(c->fd, buf, sizeof(buf), 0);
        if (r > 0)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        conn_close(c);
        return;
    }
}

void tl_httpd_serve(struct tl_httpd *h, volatile sig_atomic_t *stop)
{
    struct pollfd pfd[MAX_CONNS + 1];
    int which[MAX_CONNS + 1];
    while (!stop_asked(stop)) {
        uint64_t now = now_ms();
        int n = 0, timeout = TICK_MS;
        bool room = false;
        for (size_t i = 0; i < MAX_CONNS; i++) {
            struct conn *c = &h->conns[i];
            if (c->state != C_FREE && now >= c->deadline)
                conn_close(c);
            if (c->state == C_FREE) {
                room = true;
                continue;
            }
            pfd[n] = (struct pollfd){c->fd, c->state == C_WRITE ? POLLOUT : POLLIN, 0};
            which[n++] = (int)i;
            if (c->deadline - now < (uint64_t)timeout)
                timeout = (int)(c->deadline - now);
        }
        if (room) { /* full: new connections wait in the listen queue */
            pfd[n] = (struct pollfd){h->fd, POLLIN, 0};
            which[n++] = -1;
        }
        if (poll(pfd, (nfds_t)n, timeout) <= 0)
            continue; /* a timeout, or a signal (EINTR): the flag and deadlines again */
        now = now_ms();
        for (int k = 0; k < n; k++) {
            if (!pfd[k].revents)
                continue;
            if (which[k] < 0) {
                accept_all(h, now);
                continue;
            }
            struct conn *c = &h->conns[which[k]];
            if (c->state == C_READ)
                step_read(h, c, now);
            if (c->state == C_WRITE)
                step_write(h, c, now);
            else if (c->state == C_DRAIN)
                step_drain(c);
        }
    }
    for (size_t i = 0; i < MAX_CONNS; i++)
        if (h->conns[i].state != C_FREE)
            conn_close(&h->conns[i]);
}

void tl_httpd_free(struct tl_httpd *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < MAX_CONNS; i++) {
        conn_close(&h->conns[i]);
        tl_buf_release(&h->conns[i].out);
    }
    close(h->fd);
    free(h);
}
