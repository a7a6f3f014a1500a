/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The line reader: plain, gzip or zstd input read in 1 MiB chunks into one buffer, split with
 * memchr; overlong lines skipped without being held; an optional tee of every chunk.
 */
#include "base/config.h"
#include "input/reader.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define CHUNK (1u << 20)

struct tl_reader {
    enum tl_reader_kind kind;
    int fd;
    gzFile gz;
    ZSTD_DCtx *zctx;
    char *zin; /* compressed input for zstd */
    ZSTD_inBuffer zbuf;
    size_t zin_cap;
    bool zframe_done;

    const char *mem; /* in-memory input (tl_reader_open_mem) */
    size_t mem_len;

    char *buf;
    size_t cap, start, end;
    size_t max_line;
    char long_first; /* first byte of the last overlong line */
    bool eof, mem_mode;
    bool stream;  /* a pipe or a device: read once, front to back */
    bool sniffed; /* its first bytes were checked */

    uint64_t lineno, offset, file_pos, file_size;
    struct tl_str last;
    bool pushed, last_unterminated;
    tl_reader_tee_fn tee;
    void *tee_ctx;
    const char *path;
    bool truncated; /* the compressed stream was cut off: its end is the end of input */
    bool limited;   /* a plain file is read up to limit only (tl_reader_complete_lines) */
    uint64_t limit;
    tl_reader_truncated_fn on_truncated;
    void *truncated_ctx;
};

static int detect(int fd, enum tl_reader_kind *kind)
{
    unsigned char m[4];
    ssize_t n = pread(fd, m, sizeof(m), 0);
    if (n < 0)
        return -1;
    *kind = TL_READER_PLAIN;
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        *kind = TL_READER_GZIP;
    else if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
        *kind = TL_READER_ZSTD;
    return 0;
}

int tl_reader_open(struct tl_reader **out, const char *path, struct tl_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tl_error_code(err, TL_ERR_INPUT, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 ||
        !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        close(fd);
        return tl_error_code(err, TL_ERR_INPUT, "%s is not a file", path);
    }
    struct tl_reader *r = tl_xcalloc(1, sizeof(*r));
    r->fd = fd;
    r->path = path;
    /* A pipe (tlparse <(generate ...)) cannot be peeked at: it is read as
     * plain text, and its first bytes are checked when they arrive. */
    r->stream = !S_ISREG(st.st_mode);
    r->file_size = r->stream ? 0 : (uint64_t)st.st_size;
    if (r->stream) {
        r->kind = TL_READER_PLAIN;
    } else if (detect(fd, &r->kind) < 0) {
        tl_reader_free(r);
        return tl_error_code(err, TL_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (r->kind == TL_READER_GZIP) {
        int dfd = dup(fd);
        r->gz = dfd >= 0 ? gzdopen(dfd, "rb") : NULL;
        if (!r->gz) {
            if (dfd >= 0)
                close(dfd);
            tl_reader_free(r);
            return tl_error_code(err, TL_ERR_INPUT, "cannot open %s as gzip", path);
        }
        gzbuffer(r->gz, 256 * 1024);
    } else if (r->kind == TL_READER_ZSTD) {
        r->zctx = ZSTD_createDCtx();
        if (!r->zctx)
            tl_die_oom();
        r->zin_cap = ZSTD_DStreamInSize();
        r->zin = tl_xmalloc(r->zin_cap);
        r->zbuf.src = r->zin;
    }
    r->cap = CHUNK;
    r->buf = tl_xmalloc(r->cap + 1);
    r->max_line = TL_READER_MAX_LINE;
    *out = r;
    return 0;
}

struct tl_reader *tl_reader_open_mem(const char *p, size_t n)
{
    struct tl_reader *r = tl_xcalloc(1, sizeof(*r));
    r->fd = -1;
    r->mem_mode = true;
    r->mem = p;
    r->mem_len = n;
    r->file_size = n;
    r->path = "<memory>";
    r->max_line = TL_READER_MAX_LINE;
    return r;
}

void tl_reader_free(struct tl_reader *r)
{
    if (!r)
        return;
    if (r->gz)
        gzclose(r->gz);
    if (r->zctx)
        ZSTD_freeDCtx(r->zctx);
    if (r->fd >= 0)
        close(r->fd);
    free(r->zin);
    free(r->buf);
    free(r);
}

void tl_reader_set_max_line(struct tl_reader *r, size_t max_line)
{
    r->max_line = max_line < 1024 ? 1024 : max_line;
}

static ssize_t fill(struct tl_reader *r, struct tl_err *err);

/* Skip the rest of an overlong line whose first bytes fill the buffer. */
static int skip_long(struct tl_reader *r, struct tl_str *line, struct tl_err *err)
{
    uint64_t skipped = r->end - r->start;
    r->long_first = r->buf[r->start];
    r->start = r->end = 0;
    bool found = false;
    while (!found) {
        ssize_t got = fill(r, err);
        if (got < 0)
            return -1;
        if (got == 0) {
            r->eof = true;
            r->last_unterminated = true;
            break;
        }
        const char *nl = memchr(r->buf, '\n', r->end);
        if (nl) {
            size_t k = (size_t)(nl - r->buf);
            skipped += k;
            r->start = k + 1;
            found = true;
            r->last_unterminated = false;
        } else {
            skipped += r->end;
            r->end = 0;
        }
    }
    r->offset += skipped + found;
    r->lineno++;
    r->last = tl_str_make(NULL, (size_t)skipped);
    *line = r->last;
    return TL_READER_LONG;
}

void tl_reader_on_truncated(struct tl_reader *r, tl_reader_truncated_fn fn, void *ctx)
{
    r->on_truncated = fn;
    r->truncated_ctx = ctx;
}

/* The end of input: a cut-off stream is said, with the lines read. */
static int at_end(struct tl_reader *r)
{
    if (r->truncated && r->on_truncated) {
        r->on_truncated(r->truncated_ctx, r->kind == TL_READER_GZIP ? "gzip" : "zstd", r->lineno);
        r->on_truncated = NULL;
    }
    return 0;
}

int tl_reader_set_tee(struct tl_reader *r, tl_reader_tee_fn fn, void *ctx, struct tl_err *err)
{
    r->tee = fn;
    r->tee_ctx = ctx;
    /* What tl_reader_peek() read already goes first. */
    if (!r->mem_mode && r->end > 0)
        return fn(ctx, r->buf, r->end, err);
    return 0;
}

static ssize_t read_plain(struct tl_reader *r, char *dst, size_t n)
{
    if (r->limited && r->kind == TL_READER_PLAIN)
        n = r->file_pos >= r->limit      ? 0
            : r->limit - r->file_pos < n ? (size_t)(r->limit - r->file_pos)
                                         : n;
    if (!n)
        return 0;
    for (;;) {
        ssize_t got = read(r->fd, dst, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got > 0)
            r->file_pos += (uint64_t)got;
        return got;
    }
}

static ssize_t read_zstd(struct tl_reader *r, char *dst, size_t n, struct tl_err *err)
{
    ZSTD_outBuffer ob = {dst, n, 0};
    while (ob.pos == 0) {
        if (r->zbuf.pos == r->zbuf.size) {
            ssize_t got = read_plain(r, r->zin, r->zin_cap);
            if (got < 0)
                return -1;
            if (got == 0) {
                /* A cut-off frame: what was decoded is read, and the end said once. */
                r->truncated = !r->zframe_done;
                return 0;
            }
            r->zbuf.size = (size_t)got;
            r->zbuf.pos = 0;
        }
        size_t ret = ZSTD_decompressStream(r->zctx, &ob, &r->zbuf);
        if (ZSTD_isError(ret))
            return tl_error_code(err, TL_ERR_INPUT, "%s: zstd: %s", r->path,
                                 ZSTD_getErrorName(ret));
        r->zframe_done = ret == 0;
    }
    return (ssize_t)ob.pos;
}

/* Read more input into buf[end..cap). Returns bytes read, 0 at EOF, -1 on error. */
static ssize_t fill_upto(struct tl_reader *r, size_t most, struct tl_err *err);

static ssize_t fill(struct tl_reader *r, struct tl_err *err)
{
    return fill_upto(r, r->cap - r->end, err);
}

/* Read at most `most` bytes (no more than the buffer has room for) after what it holds. */
static ssize_t fill_upto(struct tl_reader *r, size_t most, struct tl_err *err)
{
    char *dst = r->buf + r->end;
    size_t room = r->cap - r->end < most ? r->cap - r->end : most;
    ssize_t got;
    switch (r->kind) {
    case TL_READER_GZIP: {
        unsigned want = room > (1u << 30) ? (1u << 30) : (unsigned)room;
        int g = gzread(r->gz, dst, want);
        int zerr = Z_OK;
        const char *msg = gzerror(r->gz, &zerr);
        /* A cut-off stream reads as end of input with Z_BUF_ERROR set: what was decoded is
         * read, and the end said once (tl_reader_on_truncated). */
        if (g == 0 && zerr == Z_BUF_ERROR) {
            r->truncated = true;
            got = 0;
            break;
        }
        if (g < 0 || (g == 0 && zerr != Z_OK)) {
            /* zlib puts the name it was opened with first: "<fd:5>: ..." */
            const char *colon = strstr(msg, ": ");
            if (msg[0] == '<' && colon)
                msg = colon + 2;
            return tl_error_code(err, TL_ERR_INPUT, "%s: gzip: %s", r->path, msg);
        }
        got = g;
        r->file_pos = (uint64_t)gzoffset(r->gz);
        break;
    }
    case TL_READER_ZSTD:
        got = read_zstd(r, dst, room, err);
        if (got < 0 && err && err->code == TL_ERR_NONE)
            tl_error_code(err, TL_ERR_INPUT, "cannot read %s: %s", r->path, strerror(errno));
        if (got < 0)
            return -1;
        break;
    default:
        got = read_plain(r, dst, room);
        if (got < 0)
            return tl_error_code(err, TL_ERR_INPUT, "cannot read %s: %s", r->path, strerror(errno));
        if (r->stream && !r->sniffed && got > 0) {
            r->sniffed = true;
            const unsigned char *m = (const unsigned char *)dst;
            if ((got >= 2 && m[0] == 0x1f && m[1] == 0x8b) ||
                (got >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd))
                return tl_error_code(err, TL_ERR_INPUT,
                                     "%s: compressed input is read from files only; decompress "
                                     "it into the pipe (zcat or zstdcat)",
                                     r->path);
        }
        break;
    }
    if (got > 0 && r->tee && r->tee(r->tee_ctx, dst, (size_t)got, err) < 0)
        return -1;
    r->end += (size_t)got;
    return got;
}

int tl_reader_peek(struct tl_reader *r, size_t want, const char **p, size_t *n, struct tl_err *err)
{
    if (r->mem_mode) {
        *p = r->mem;
        *n = r->mem_len < want ? r->mem_len : want;
        return 0;
    }
    if (want > r->cap)
        want = r->cap;
    /* no more than asked for: a folder's candidates are sniffed one by one */
    while (!r->eof && r->end - r->start < want) {
        ssize_t got = fill_upto(r, want - (r->end - r->start), err);
        if (got < 0)
            return -1;
        if (got == 0)
            r->eof = true;
    }
    *p = r->buf + r->start;
    *n = r->end - r->start < want ? r->end - r->start : want;
    return 0;
}

/* Hands out p[0..len) as the current line (p NULL for an overlong one). */
static inline void set_line(struct tl_reader *r, struct tl_str *line, const char *p, size_t len)
{
    r->last = tl_str_make(p, len);
    r->lineno++;
    *line = r->last;
}

/* The next line of an in-memory input: a view into it, nothing copied. */
static inline int next_mem(struct tl_reader *r, struct tl_str *line)
{
    if (r->start >= r->mem_len)
        return 0;
    const char *p = r->mem + r->start;
    size_t avail = r->mem_len - r->start;
    const char *nl = memchr(p, '\n', avail);
    size_t len = nl ? (size_t)(nl - p) : avail;
    r->start += len + (nl != NULL);
    if (len > r->max_line) {
        r->long_first = p[0];
        r->offset = r->start;
        r->last_unterminated = nl == NULL;
        set_line(r, line, NULL, len);
        return TL_READER_LONG;
    }
    r->offset = r->start;
    r->file_pos = r->start;
    r->last_unterminated = nl == NULL;
    if (nl && len && p[len - 1] == '\r')
        len--;
    set_line(r, line, p, len);
    return 1;
}

/* The buffered line that ends at nl, without its "\n" or "\r\n". */
static inline int line_to_newline(struct tl_reader *r, struct tl_str *line, const char *nl)
{
    const char *p = r->buf + r->start;
    size_t len = (size_t)(nl - p);
    r->offset += len + 1;
    r->start += len + 1;
    r->last_unterminated = false;
    if (len && p[len - 1] == '\r')
        len--;
    set_line(r, line, p, len);
    return 1;
}

/* At the end of input, the bytes after the last newline make a line of their own. */
static int unterminated_line(struct tl_reader *r, struct tl_str *line)
{
    const char *p = r->buf + r->start;
    size_t len = r->end - r->start;
    r->offset += len;
    r->start = r->end;
    r->last_unterminated = true; /* a "\r" stays: it ends no line */
    set_line(r, line, p, len);
    return 1;
}

/* No newline in the buffer: move the partial line to the front (to read more behind it) and
 * return where the newline scan goes on. */
static size_t compact(struct tl_reader *r, size_t scan)
{
    if (r->start > 0) {
        size_t keep = r->end - r->start;
        memmove(r->buf, r->buf + r->start, keep);
        scan -= r->start;
        r->start = 0;
        r->end = keep;
    }
    return scan;
}

int tl_reader_next(struct tl_reader *r, struct tl_str *line, struct tl_err *err)
{
    if (r->pushed) {
        r->pushed = false;
        r->lineno++;
        *line = r->last;
        return r->last.p ? 1 : TL_READER_LONG;
    }
    if (r->mem_mode)
        return next_mem(r, line);
    size_t scan = r->start;
    for (;;) {
        const char *nl = memchr(r->buf + scan, '\n', r->end - scan);
        if (nl)
            return line_to_newline(r, line, nl);
        scan = r->end;
        if (r->eof)
            return r->start == r->end ? at_end(r) : unterminated_line(r, line);
        scan = compact(r, scan);
        if (r->end - r->start >= r->max_line)
            return skip_long(r, line, err);
        /* a partial line fills the whole buffer: grow it */
        if (r->end == r->cap) {
            r->cap *= 2;
            r->buf = tl_xrealloc(r->buf, r->cap + 1);
        }
        ssize_t got = fill(r, err);
        if (got < 0)
            return -1;
        if (got == 0)
            r->eof = true;
    }
}

int tl_reader_read(struct tl_reader *r, const char **p, size_t *n, struct tl_err *err)
{
    if (r->mem_mode) {
        if (r->start >= r->mem_len)
            return 0;
        *p = r->mem + r->start;
        *n = r->mem_len - r->start;
        r->start = r->mem_len;
        r->offset = r->file_pos = r->mem_len;
        return 1;
    }
    if (r->end > r->start) { /* what tl_reader_peek() read, first */
        *p = r->buf + r->start;
        *n = r->end - r->start;
        r->offset += *n;
        r->start = r->end = 0;
        return 1;
    }
    r->start = r->end = 0;
    if (r->eof)
        return at_end(r);
    ssize_t got = fill(r, err);
    if (got < 0)
        return -1;
    if (got == 0) {
        r->eof = true;
        return at_end(r);
    }
    *p = r->buf;
    *n = (size_t)got;
    r->offset += *n;
    r->end = 0; /* handed over: the next read refills the buffer from its start */
    return 1;
}

void tl_reader_unread(struct tl_reader *r)
{
    r->pushed = true;
    r->lineno--;
}

char tl_reader_long_first(const struct tl_reader *r)
{
    return r->long_first;
}

uint64_t tl_reader_lineno(const struct tl_reader *r)
{
    return r->lineno;
}

uint64_t tl_reader_offset(const struct tl_reader *r)
{
    return r->offset;
}

uint64_t tl_reader_file_pos(const struct tl_reader *r)
{
    return r->file_pos;
}

bool tl_reader_is_stream(const struct tl_reader *r)
{
    return r->stream;
}

int tl_reader_complete_lines(struct tl_reader *r, struct tl_err *err)
{
    if (r->kind != TL_READER_PLAIN || r->stream || r->mem_mode || r->end || r->file_pos)
        return 0;
    struct stat st;
    if (fstat(r->fd, &st) < 0)
        return tl_error_code(err, TL_ERR_INPUT, "cannot read %s: %s", r->path, strerror(errno));
    /* The last newline, looked for backwards a block at a time. */
    uint64_t end = (uint64_t)st.st_size;
    char block[8192];
    while (end > 0) {
        size_t n = end < sizeof(block) ? (size_t)end : sizeof(block);
        ssize_t got = pread(r->fd, block, n, (off_t)(end - n));
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t)n)
            return tl_error_code(err, TL_ERR_INPUT, "cannot read %s: %s", r->path,
                                 got < 0 ? strerror(errno) : "it shrank");
        const char *nl = memrchr(block, '\n', n);
        if (nl) {
            end = end - n + (uint64_t)(nl - block) + 1;
            break;
        }
        end -= n;
    }
    r->limited = true;
    r->limit = end;
    r->file_size = end;
    return end == 0 ? 1 : 0;
}

uint64_t tl_reader_file_size(const struct tl_reader *r)
{
    return r->file_size;
}

enum tl_reader_kind tl_reader_kind(const struct tl_reader *r)
{
    return r->kind;
}

bool tl_reader_truncated(const struct tl_reader *r)
{
    return r->truncated;
}

bool tl_reader_last_unterminated(const struct tl_reader *r)
{
    return r->last_unterminated;
}
