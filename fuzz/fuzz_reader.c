/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for reader.c. The whole input is a log; its bytes also drive
 * the test: the first one picks a small line limit (1 KiB to 2 KiB), and
 * after every line one input byte decides whether to push it back.
 *
 * The in-memory reader is checked against a model of spec core.md §1.1 (split
 * at '\n', drop one '\r' before it, a last line without newline counts, lines
 * over the limit are skipped and reported with their length): every line,
 * its position in the input, the line number, the offset, the unterminated
 * flag. Lines never contain '\n', offsets only grow, and without CR and long
 * lines, lines plus newlines give back the input.
 *
 * The same bytes are then read through the file reader (a memfd, so also as
 * gzip or zstd when the magic bytes say so; for plain input only when the
 * first byte has bits 0x30 set, as that path is slow): plain input must give the same
 * lines (the file reader keeps a long line that is already buffered whole, so
 * there a long line may come back as a line or as skipped); compressed input
 * must only be handled safely.
 */
#include "base/config.h"
#include "base/err.h"
#include "input/reader.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_reader: check failed: %s (line %d)\n", #cond, __LINE__);         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The model's next line of in[0..n) from pos. */
struct mline {
    size_t start, len; /* len: up to the newline, CR included */
    bool nl;           /* ended by a newline */
};

static bool model_next(const char *in, size_t n, size_t pos, struct mline *m)
{
    if (pos >= n)
        return false;
    const char *nl = memchr(in + pos, '\n', n - pos);
    m->start = pos;
    m->len = nl ? (size_t)(nl - (in + pos)) : n - pos;
    m->nl = nl != NULL;
    return true;
}

/* Bytes that drive the pushbacks: the input read cyclically from byte 1. */
struct dice {
    const uint8_t *p;
    size_t n, i;
};

static bool roll_unread(struct dice *d)
{
    if (d->n < 2)
        return false;
    uint8_t b = d->p[1 + d->i % (d->n - 1)];
    d->i++;
    return (b & 3) == 0;
}

static void read_mem(const char *in, size_t n, size_t max_line, const uint8_t *data)
{
    struct tl_reader *r = tl_reader_open_mem(in, n);
    CHECK(r != NULL);
    tl_reader_set_max_line(r, max_line);
    CHECK(tl_reader_kind(r) == TL_READER_PLAIN);
    CHECK(tl_reader_lineno(r) == 0 && tl_reader_offset(r) == 0);

    struct dice d = {data, n, 0};
    size_t pos = 0;
    uint64_t lineno = 0;
    bool has_cr = memchr(in, '\r', n) != NULL;
    bool had_long = false;
    char *rebuilt = malloc(n + 2);
    CHECK(rebuilt != NULL);
    size_t rlen = 0;
    unsigned pushes = 0;

    for (;;) {
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line = {(const char *)1, 7};
        uint64_t off_before = tl_reader_offset(r);
        int got = tl_reader_next(r, &line, &err);
        struct mline m;
        if (!model_next(in, n, pos, &m)) {
            CHECK(got == 0);
            CHECK(tl_reader_offset(r) == n && tl_reader_lineno(r) == lineno);
            /* End of input is sticky. */
            CHECK(tl_reader_next(r, &line, &err) == 0);
            break;
        }
        lineno++;
        pos = m.start + m.len + m.nl;
        CHECK(tl_reader_lineno(r) == lineno);
        CHECK(tl_reader_offset(r) == pos && tl_reader_offset(r) >= off_before);
        CHECK(tl_reader_last_unterminated(r) == !m.nl);
        if (m.len > max_line) {
            CHECK(got == TL_READER_LONG);
            CHECK(line.p == NULL && line.n == m.len);
            CHECK(tl_reader_long_first(r) == in[m.start]);
            had_long = true;
        } else {
            CHECK(got == 1);
            /* One "\r" goes only before a "\n": a last line keeps it. */
            size_t want = m.nl && m.len && in[m.start + m.len - 1] == '\r' ? m.len - 1 : m.len;
            CHECK(line.p == in + m.start && line.n == want);
            CHECK(!memchr(line.p, '\n', line.n));
            memcpy(rebuilt + rlen, line.p, line.n);
            rlen += line.n;
            rebuilt[rlen++] = '\n';
        }
        /* Push back (at most a few times in a row), then the same line again. */
        while (pushes < 3 && roll_unread(&d)) {
            pushes++;
            tl_reader_unread(r);
            CHECK(tl_reader_lineno(r) == lineno - 1);
            struct tl_str again;
            int got2 = tl_reader_next(r, &again, &err);
            CHECK(got2 == got);
            CHECK(again.p == line.p && again.n == line.n);
            CHECK(tl_reader_lineno(r) == lineno && tl_reader_offset(r) == pos);
        }
        pushes = 0;
    }
    if (!has_cr && !had_long) {
        bool unterminated = n > 0 && in[n - 1] != '\n';
        CHECK(rlen == n + unterminated);
        CHECK(n == 0 || memcmp(rebuilt, in, n) == 0);
    }
    free(rebuilt);
    tl_reader_free(r);
}

static int memfd = -1;
static char memfd_path[64];

static bool is_compressed(const uint8_t *p, size_t n)
{
    return (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) ||
           (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd);
}

static void read_file(const char *in, size_t n, size_t max_line, const uint8_t *data)
{
    if (memfd < 0) {
        memfd = memfd_create("fuzz_reader", MFD_CLOEXEC);
        CHECK(memfd >= 0);
        snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
    }
    CHECK(ftruncate(memfd, 0) == 0);
    CHECK(n == 0 || pwrite(memfd, in, n, 0) == (ssize_t)n);

    struct tl_reader *r = NULL;
    struct tl_err err = {TL_ERR_NONE, ""};
    CHECK(tl_reader_open(&r, memfd_path, &err) == 0 && r != NULL);
    tl_reader_set_max_line(r, max_line);
    bool compressed = is_compressed(data, n);
    CHECK(compressed == (tl_reader_kind(r) != TL_READER_PLAIN));

    struct dice d = {data, n, 1};
    size_t pos = 0;
    uint64_t lineno = 0;
    uint64_t off = 0;
    for (;;) {
        struct tl_str line = {(const char *)1, 7};
        int got = tl_reader_next(r, &line, &err);
        if (compressed) {
            /* Any outcome, but a well-formed one. */
            CHECK(got >= -1 && got <= TL_READER_LONG);
            if (got == -1)
                CHECK(err.msg[0] != '\0');
            if (got <= 0)
                break;
            CHECK(tl_reader_offset(r) >= off);
            off = tl_reader_offset(r);
            if (off > ((uint64_t)256 << 10))
                break; /* a small bomb inflates to far more: enough of it */
            if (got == 1)
                CHECK(line.n == 0 || !memchr(line.p, '\n', line.n));
            else
                CHECK(line.p == NULL);
            continue;
        }
        struct mline m;
        if (!model_next(in, n, pos, &m)) {
            CHECK(got == 0 && tl_reader_offset(r) == n);
            break;
        }
        lineno++;
        pos = m.start + m.len + m.nl;
        CHECK(tl_reader_lineno(r) == lineno && tl_reader_offset(r) == pos);
        CHECK(tl_reader_last_unterminated(r) == !m.nl);
        if (got == TL_READER_LONG) {
            CHECK(m.len >= max_line && line.p == NULL && line.n == m.len);
            CHECK(tl_reader_long_first(r) == in[m.start]);
        } else {
            CHECK(got == 1);
            /* One "\r" goes only before a "\n": a last line keeps it. */
            size_t want = m.nl && m.len && in[m.start + m.len - 1] == '\r' ? m.len - 1 : m.len;
            CHECK(line.n == want && (want == 0 || memcmp(line.p, in + m.start, want) == 0));
        }
        if (roll_unread(&d)) {
            tl_reader_unread(r);
            struct tl_str again;
            CHECK(tl_reader_next(r, &again, &err) == got);
            CHECK(again.p == line.p && again.n == line.n);
            CHECK(tl_reader_lineno(r) == lineno);
        }
    }
    tl_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t max_line = 1024 + (size_t)(size ? data[0] & 0x0f : 0) * 64;
    /* A private copy of exactly size bytes, so any overread is caught. */
    char *in = malloc(size ? size : 1);
    CHECK(in != NULL);
    if (size)
        memcpy(in, data, size);
    else
        in[0] = '\0';
    read_mem(in, size, max_line, data);
    /* The file reader costs a 1 MiB buffer per open: a quarter of the plain
     * inputs (first byte 0x3?, 0x7?, ...) and every compressed one. */
    if (size && ((data[0] & 0x30) == 0x30 || is_compressed(data, size)))
        read_file(in, size, max_line, data);
    free(in);
    return 0;
}
