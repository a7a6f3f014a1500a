/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for reader.c (spec core.md §1.1): plain, gzip, zstd and
 * in-memory input give the same lines; CRLF handling; a last line without a
 * newline; unread; line numbers that count empty lines; a 5 MB line; empty
 * input; truncated compressed files; open errors; the tee callback; and the
 * overlong-line limit. Files live in a private mkdtemp folder.
 */
#include "base/config.h"
#include "input/reader.h"
#include "base/buf.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static char scratch[64];

static int setup(void **state)
{
    (void)state;
    return tu_mkdtemp(scratch, sizeof(scratch), "reader");
}

static int teardown(void **state)
{
    (void)state;
    return tu_rmtree(scratch);
}

static const char *path(const char *name)
{
    static char bufs[4][256];
    static int k;
    char *p = bufs[k++ % 4];
    snprintf(p, 256, "%s/%s", scratch, name);
    return p;
}

static void write_raw(const char *p, const void *data, size_t n)
{
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void write_gz(const char *p, const void *data, size_t n)
{
    gzFile g = gzopen(p, "wb");
    assert_non_null(g);
    /* gzwrite takes an unsigned length: write in pieces. */
    const char *c = data;
    while (n) {
        unsigned k = n > (1u << 20) ? (1u << 20) : (unsigned)n;
        assert_int_equal(gzwrite(g, c, k), (int)k);
        c += k;
        n -= k;
    }
    assert_int_equal(gzclose(g), Z_OK);
}

/* zstd-compressed bytes of data (caller frees), size in *out_n. */
static char *zstd_bytes(const void *data, size_t n, size_t *out_n)
{
    size_t cap = ZSTD_compressBound(n);
    char *z = malloc(cap);
    assert_non_null(z);
    size_t zn = ZSTD_compress(z, cap, data, n, 3);
    assert_false(ZSTD_isError(zn));
    *out_n = zn;
    return z;
}

static void write_zst(const char *p, const void *data, size_t n)
{
    size_t zn;
    char *z = zstd_bytes(data, n, &zn);
    write_raw(p, z, zn);
    free(z);
}

enum kind { K_MEM, K_PLAIN, K_GZ, K_ZST };
static const char *const kind_names[] = {"mem", "plain", "gz", "zst"};

/* Open a reader over data[0..n) of the given kind (data must outlive it). */
static struct tl_reader *open_kind(enum kind k, const char *data, size_t n, const char *name)
{
    if (k == K_MEM)
        return tl_reader_open_mem(data, n);
    const char *p = path(name);
    if (k == K_PLAIN)
        write_raw(p, data, n);
    else if (k == K_GZ)
        write_gz(p, data, n);
    else
        write_zst(p, data, n);
    struct tl_reader *r = NULL;
    struct tl_err err = {TL_ERR_NONE, ""};
    if (tl_reader_open(&r, p, &err) != 0)
        fail_msg("open %s: %s", p, err.msg);
    static const enum tl_reader_kind want[] = {TL_READER_PLAIN, TL_READER_PLAIN, TL_READER_GZIP,
                                               TL_READER_ZSTD};
    assert_int_equal(tl_reader_kind(r), want[k]);
    return r;
}

struct want_line {
    const char *text;
    bool unterminated;
};

/* Read every line and compare (text, lineno, unterminated flag); false and
 * a message on the first difference (the caller frees, then asserts). */
static bool check_lines(struct tl_reader *r, const struct want_line *w, size_t n, const char *what)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_str line;
    for (size_t i = 0; i < n; i++) {
        int got = tl_reader_next(r, &line, &err);
        if (got != 1) {
            print_error("%s: line %zu: got %d (%s)\n", what, i + 1, got, err.msg);
            return false;
        }
        if (!tl_str_eq_cstr(line, w[i].text)) {
            print_error("%s: line %zu: \"%.*s\" (%zu bytes), want \"%s\" (%zu bytes)\n", what,
                        i + 1, (int)line.n, line.p, line.n, w[i].text, strlen(w[i].text));
            return false;
        }
        if (tl_reader_lineno(r) != i + 1) {
            print_error("%s: line %zu: lineno %llu\n", what, i + 1,
                        (unsigned long long)tl_reader_lineno(r));
            return false;
        }
        if (tl_reader_last_unterminated(r) != w[i].unterminated) {
            print_error("%s: line %zu: unterminated flag %d\n", what, i + 1,
                        tl_reader_last_unterminated(r));
            return false;
        }
    }
    int got = tl_reader_next(r, &line, &err);
    if (got != 0) {
        print_error("%s: expected the end, got %d\n", what, got);
        return false;
    }
    /* The end stays the end. */
    return tl_reader_next(r, &line, &err) == 0;
}

static void each_kind(const char *data, size_t n, const struct want_line *w, size_t nw)
{
    for (int k = K_MEM; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, data, n, "in");
        bool ok = check_lines(r, w, nw, kind_names[k]);
        uint64_t off = tl_reader_offset(r);
        tl_reader_free(r);
        assert_true(ok);
        assert_int_equal(off, n);
    }
}

static void test_simple_lines(void **state)
{
    (void)state;
    static const char data[] = "first\nsecond line\n\nfourth\n";
    static const struct want_line w[] = {
        {"first", false}, {"second line", false}, {"", false}, {"fourth", false}};
    each_kind(data, sizeof(data) - 1, w, 4);
}

static void test_crlf(void **state)
{
    (void)state;
    static const char data[] = "a\r\nb\r\r\n\r\n\rc\r\nd\re\n";
    static const struct want_line w[] = {
        {"a", false}, {"b\r", false}, {"", false}, {"\rc", false}, {"d\re", false}};
    each_kind(data, sizeof(data) - 1, w, 5);
}

static void test_last_line_unterminated(void **state)
{
    (void)state;
    static const char data[] = "one\ntwo";
    static const struct want_line w[] = {{"one", false}, {"two", true}};
    each_kind(data, sizeof(data) - 1, w, 2);
    static const char crlf[] = "one\r\ntwo\r\n";
    static const struct want_line w2[] = {{"one", false}, {"two", false}};
    each_kind(crlf, sizeof(crlf) - 1, w2, 2);
    static const char only[] = "x";
    static const struct want_line w3[] = {{"x", true}};
    each_kind(only, 1, w3, 1);
}

static void test_last_line_cr_without_newline(void **state)
{
    (void)state;
    /* Regression (fixed): reader.c tl_reader_next strips a '\r' from an unterminated last
     * line too. The header (and spec §1.1) only remove "one \r before the
     * \n", as the reference's BufRead::lines does (it pops '\r' only after
     * popping '\n'), so a file ending in "two\r" yields "two\r". */
    static const char data[] = "one\ntwo\r";
    static const struct want_line w[] = {{"one", false}, {"two\r", true}};
    each_kind(data, sizeof(data) - 1, w, 2);
}

static void test_empty_input(void **state)
{
    (void)state;
    each_kind("", 0, NULL, 0);
    /* Only newlines: every one is a line. */
    static const struct want_line w[] = {{"", false}, {"", false}, {"", false}};
    each_kind("\n\n\n", 3, w, 3);
    static const struct want_line w2[] = {{"", false}};
    each_kind("\r\n", 2, w2, 1);
}

static void test_lineno_counts_every_line(void **state)
{
    (void)state;
    static const char data[] = "\n\nx\n\n\ny\n";
    for (int k = K_MEM; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, data, sizeof(data) - 1, "ln");
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line;
        assert_int_equal(tl_reader_lineno(r), 0);
        uint64_t x_at = 0, y_at = 0, count = 0;
        while (tl_reader_next(r, &line, &err) == 1) {
            count++;
            if (tl_str_eq_cstr(line, "x"))
                x_at = tl_reader_lineno(r);
            if (tl_str_eq_cstr(line, "y"))
                y_at = tl_reader_lineno(r);
        }
        assert_int_equal(count, 6);
        assert_int_equal(x_at, 3);
        assert_int_equal(y_at, 6);
        assert_int_equal(tl_reader_lineno(r), 6);
        tl_reader_free(r);
    }
}

static void test_unread(void **state)
{
    (void)state;
    static const char data[] = "a\nbb\r\n\nccc";
    for (int k = K_MEM; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, data, sizeof(data) - 1, "unread");
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line, again;
        static const char *const want[] = {"a", "bb", "", "ccc"};
        for (int i = 0; i < 4; i++) {
            assert_int_equal(tl_reader_next(r, &line, &err), 1);
            assert_true(tl_str_eq_cstr(line, want[i]));
            assert_int_equal(tl_reader_lineno(r), i + 1);
            uint64_t off = tl_reader_offset(r);
            bool unterm = tl_reader_last_unterminated(r);
            /* Push back, twice over. */
            for (int rep = 0; rep < 2; rep++) {
                tl_reader_unread(r);
                assert_int_equal(tl_reader_lineno(r), i);
                assert_int_equal(tl_reader_next(r, &again, &err), 1);
                assert_ptr_equal(again.p, line.p);
                assert_int_equal(again.n, line.n);
                assert_int_equal(tl_reader_lineno(r), i + 1);
                assert_int_equal(tl_reader_offset(r), off);
                assert_int_equal(tl_reader_last_unterminated(r), unterm);
            }
        }
        assert_int_equal(tl_reader_next(r, &line, &err), 0);
        tl_reader_free(r);
    }
}

static void test_offsets(void **state)
{
    (void)state;
    static const char data[] = "ab\r\ncde\n\nf";
    static const uint64_t offs[] = {4, 8, 9, 10};
    for (int k = K_MEM; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, data, sizeof(data) - 1, "off");
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line;
        assert_int_equal(tl_reader_offset(r), 0);
        for (int i = 0; i < 4; i++) {
            assert_int_equal(tl_reader_next(r, &line, &err), 1);
            assert_int_equal(tl_reader_offset(r), offs[i]);
        }
        if (k == K_PLAIN || k == K_MEM)
            assert_int_equal(tl_reader_file_size(r), sizeof(data) - 1);
        tl_reader_free(r);
    }
}

static void test_big_line(void **state)
{
    (void)state;
    const size_t big = 5u << 20;
    char *data = malloc(big + 32);
    assert_non_null(data);
    for (size_t i = 0; i < big; i++)
        data[i] = (char)('a' + i % 23);
    memcpy(data + big, "\r\nnext\nlast", 11);
    size_t n = big + 11;
    for (int k = K_MEM; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, data, n, "big");
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line;
        assert_int_equal(tl_reader_next(r, &line, &err), 1);
        assert_int_equal(line.n, big);
        assert_memory_equal(line.p, data, big);
        assert_int_equal(tl_reader_lineno(r), 1);
        assert_int_equal(tl_reader_next(r, &line, &err), 1);
        assert_true(tl_str_eq_cstr(line, "next"));
        assert_int_equal(tl_reader_next(r, &line, &err), 1);
        assert_true(tl_str_eq_cstr(line, "last"));
        assert_true(tl_reader_last_unterminated(r));
        assert_int_equal(tl_reader_next(r, &line, &err), 0);
        assert_int_equal(tl_reader_offset(r), n);
        tl_reader_free(r);
    }
    free(data);
}

static void test_many_lines_across_chunks(void **state)
{
    (void)state;
    /* Lines of varying length spanning several 1 MiB chunks. */
    struct tl_buf b = TL_BUF_INIT;
    const int N = 60000;
    for (int i = 0; i < N; i++) {
        tl_buf_addf(&b, "%d:", i);
        for (int j = 0; j < i % 97; j++)
            tl_buf_addch(&b, 'x');
        tl_buf_adds(&b, i % 5 == 0 ? "\r\n" : "\n");
    }
    for (int k = K_MEM; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, b.buf, b.len, "many");
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line;
        int bad = 0;
        char want[160];
        for (int i = 0; i < N; i++) {
            int pre = snprintf(want, sizeof(want), "%d:", i);
            memset(want + pre, 'x', (size_t)(i % 97));
            size_t wn = (size_t)pre + (size_t)(i % 97);
            if (tl_reader_next(r, &line, &err) != 1 || line.n != wn ||
                memcmp(line.p, want, wn) != 0 || tl_reader_lineno(r) != (uint64_t)i + 1)
                bad++;
        }
        assert_int_equal(bad, 0);
        assert_int_equal(tl_reader_next(r, &line, &err), 0);
        tl_reader_free(r);
    }
    tl_buf_release(&b);
}

struct tee_sink {
    struct tl_buf got;
    size_t calls;
    size_t fail_after; /* 0: never fail */
};

static int tee_fn(void *ctx, const char *p, size_t n, struct tl_err *err)
{
    struct tee_sink *s = ctx;
    s->calls++;
    if (s->fail_after && s->calls >= s->fail_after)
        return tl_error(err, "tee says no");
    assert_true(n > 0);
    tl_buf_add(&s->got, p, n);
    return 0;
}

static void test_tee(void **state)
{
    (void)state;
    /* 3 MB of lines, so the tee sees several chunks. */
    struct tl_buf b = TL_BUF_INIT;
    for (int i = 0; b.len < (3u << 20); i++)
        tl_buf_addf(&b, "line %d %s\r\n", i, i % 3 ? "" : "with some more text");
    tl_buf_adds(&b, "no newline at end");
    for (int k = K_PLAIN; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, b.buf, b.len, "tee");
        struct tee_sink s = {TL_BUF_INIT, 0, 0};
        assert_int_equal(tl_reader_set_tee(r, tee_fn, &s, NULL), 0);
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line;
        /* Unread does not feed the tee twice. */
        assert_int_equal(tl_reader_next(r, &line, &err), 1);
        tl_reader_unread(r);
        int got;
        while ((got = tl_reader_next(r, &line, &err)) == 1)
            ;
        assert_int_equal(got, 0);
        if (s.got.len != b.len || memcmp(s.got.buf, b.buf, b.len) != 0)
            fail_msg("%s: tee got %zu bytes, want %zu", kind_names[k], s.got.len, b.len);
        assert_true(s.calls >= 3);
        tl_buf_release(&s.got);
        tl_reader_free(r);
    }
    /* A peek before the tee: the tee still gets every byte, the peeked ones first, and the
     * lines come out as without the peek. */
    for (int k = K_PLAIN; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, b.buf, b.len, "peek");
        struct tl_err err = {TL_ERR_NONE, ""};
        const char *p;
        size_t n;
        assert_int_equal(tl_reader_peek(r, 100, &p, &n, &err), 0);
        assert_int_equal(n, 100);
        assert_memory_equal(p, b.buf, 100);
        if (k == K_PLAIN) /* what was asked for is read, not a buffer's worth */
            assert_int_equal(tl_reader_file_pos(r), 100);
        struct tee_sink s = {TL_BUF_INIT, 0, 0};
        assert_int_equal(tl_reader_set_tee(r, tee_fn, &s, NULL), 0);
        struct tl_str line;
        assert_int_equal(tl_reader_next(r, &line, &err), 1);
        assert_true(tl_str_eq_cstr(line, "line 0 with some more text"));
        int got;
        while ((got = tl_reader_next(r, &line, &err)) == 1)
            ;
        assert_int_equal(got, 0);
        if (s.got.len != b.len || memcmp(s.got.buf, b.buf, b.len) != 0)
            fail_msg("%s: tee after peek got %zu bytes, want %zu", kind_names[k], s.got.len, b.len);
        tl_buf_release(&s.got);
        tl_reader_free(r);
    }
    /* A failing tee stops the reader with its error. */
    for (int k = K_PLAIN; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, b.buf, b.len, "tee2");
        struct tee_sink s = {TL_BUF_INIT, 0, 2};
        assert_int_equal(tl_reader_set_tee(r, tee_fn, &s, NULL), 0);
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line;
        int got;
        while ((got = tl_reader_next(r, &line, &err)) == 1)
            ;
        assert_int_equal(got, -1);
        assert_string_equal(err.msg, "tee says no");
        tl_buf_release(&s.got);
        tl_reader_free(r);
    }
    tl_buf_release(&b);
}

/* Incompressible-ish text so that cutting the compressed file in half
 * really loses data. */
static char *noisy_text(size_t n)
{
    char *t = malloc(n);
    assert_non_null(t);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        t[i] = (i % 80 == 79) ? '\n' : (char)(' ' + (x >> 16) % 94);
    }
    return t;
}

/* What tl_reader_on_truncated() said. */
struct cut {
    int calls;
    uint64_t lines;
    char format[8];
};

static void on_cut(void *ctx, const char *format, uint64_t lines)
{
    struct cut *c = ctx;
    c->calls++;
    c->lines = lines;
    snprintf(c->format, sizeof(c->format), "%s", format);
}

static void test_truncated_gzip(void **state)
{
    (void)state;
    size_t n = 400000;
    char *t = noisy_text(n);
    write_gz(path("full.gz"), t, n);
    size_t zn;
    char *z = tu_slurp(path("full.gz"), &zn);
    assert_non_null(z);
    const char *p = path("cut.gz");
    write_raw(p, z, zn / 2);
    struct tl_reader *r = NULL;
    struct tl_err err = {TL_ERR_NONE, ""};
    assert_int_equal(tl_reader_open(&r, p, &err), 0);
    assert_int_equal(tl_reader_kind(r), TL_READER_GZIP);
    struct tl_str line;
    int got;
    size_t lines = 0, partial = 0;
    struct cut said = {0, 0, ""};
    tl_reader_on_truncated(r, on_cut, &said);
    while ((got = tl_reader_next(r, &line, &err)) == 1) {
        if (line.n != 79)
            partial++;
        lines++;
    }
    /* zlib's gzread reports a cut-off stream by returning the data it has and then 0 with
     * gzerror() giving Z_BUF_ERROR: the lines decoded are read (the last one cut off and
     * unterminated), then the end of input, and the cut is said once with the lines read. */
    assert_int_equal(got, 0);
    assert_int_equal(err.code, TL_ERR_NONE);
    assert_true(tl_reader_truncated(r));
    assert_true(tl_reader_last_unterminated(r));
    assert_true(partial <= 1);
    assert_true(lines > 0 && lines < n / 80);
    assert_int_equal(said.calls, 1);
    assert_int_equal(said.lines, lines);
    assert_string_equal(said.format, "gzip");
    assert_int_equal(tl_reader_next(r, &line, &err), 0);
    assert_int_equal(said.calls, 1);
    tl_reader_free(r);
    free(z);
    free(t);
}

static void test_truncated_zstd(void **state)
{
    (void)state;
    size_t n = 400000;
    char *t = noisy_text(n);
    size_t zn;
    char *z = zstd_bytes(t, n, &zn);
    const char *p = path("cut.zst");
    write_raw(p, z, zn / 2);
    struct tl_reader *r = NULL;
    struct tl_err err = {TL_ERR_NONE, ""};
    assert_int_equal(tl_reader_open(&r, p, &err), 0);
    assert_int_equal(tl_reader_kind(r), TL_READER_ZSTD);
    struct tl_str line;
    int got;
    size_t lines = 0;
    struct cut said = {0, 0, ""};
    tl_reader_on_truncated(r, on_cut, &said);
    while ((got = tl_reader_next(r, &line, &err)) == 1) {
        lines++;
        if (line.n != 79) /* the last one, cut off */
            assert_true(tl_reader_last_unterminated(r));
    }
    assert_int_equal(got, 0);
    assert_true(tl_reader_truncated(r));
    assert_true(lines > 0 && lines < n / 80);
    assert_int_equal(said.calls, 1);
    assert_int_equal(said.lines, lines);
    assert_string_equal(said.format, "zstd");
    tl_reader_free(r);
    /* Only the magic number: no line, cut off. */
    write_raw(p, z, 4);
    assert_int_equal(tl_reader_open(&r, p, &err), 0);
    said.calls = 0;
    tl_reader_on_truncated(r, on_cut, &said);
    assert_int_equal(tl_reader_next(r, &line, &err), 0);
    assert_true(tl_reader_truncated(r));
    assert_int_equal(said.calls, 1);
    assert_int_equal(said.lines, 0);
    tl_reader_free(r);
    /* Corrupt data after a good header. */
    memset(z + 20, 0xFF, zn - 40);
    write_raw(p, z, zn);
    assert_int_equal(tl_reader_open(&r, p, &err), 0);
    while ((got = tl_reader_next(r, &line, &err)) == 1)
        ;
    assert_int_equal(got, -1);
    assert_non_null(strstr(err.msg, p));
    tl_reader_free(r);
    free(z);
    free(t);
}

static void test_multi_frame(void **state)
{
    (void)state;
    /* Two zstd frames back to back (as `cat a.zst b.zst` makes), the line
     * split across them; and the same with two gzip members. */
    static const char a[] = "one\ntw", b[] = "o\nthree\n";
    size_t an, bn;
    char *za = zstd_bytes(a, sizeof(a) - 1, &an);
    char *zb = zstd_bytes(b, sizeof(b) - 1, &bn);
    char *both = malloc(an + bn);
    assert_non_null(both);
    memcpy(both, za, an);
    memcpy(both + an, zb, bn);
    write_raw(path("two.zst"), both, an + bn);
    free(both);
    free(za);
    free(zb);
    write_gz(path("a.gz"), a, sizeof(a) - 1);
    write_gz(path("b.gz"), b, sizeof(b) - 1);
    size_t gan, gbn;
    char *ga = tu_slurp(path("a.gz"), &gan);
    char *gb = tu_slurp(path("b.gz"), &gbn);
    assert_non_null(ga);
    assert_non_null(gb);
    both = malloc(gan + gbn);
    assert_non_null(both);
    memcpy(both, ga, gan);
    memcpy(both + gan, gb, gbn);
    write_raw(path("two.gz"), both, gan + gbn);
    free(both);
    free(ga);
    free(gb);
    static const struct want_line w[] = {{"one", false}, {"two", false}, {"three", false}};
    static const char *const files[] = {"two.zst", "two.gz"};
    for (int i = 0; i < 2; i++) {
        struct tl_reader *r = NULL;
        struct tl_err err = {TL_ERR_NONE, ""};
        assert_int_equal(tl_reader_open(&r, path(files[i]), &err), 0);
        bool ok = check_lines(r, w, 3, files[i]);
        tl_reader_free(r);
        assert_true(ok);
    }
}

static void test_empty_compressed(void **state)
{
    (void)state;
    static const char *const files[] = {"e.zst", "e.gz"};
    write_zst(path("e.zst"), "", 0);
    write_gz(path("e.gz"), "", 0);
    for (int i = 0; i < 2; i++) {
        struct tl_reader *r = NULL;
        struct tl_err err = {TL_ERR_NONE, ""};
        assert_int_equal(tl_reader_open(&r, path(files[i]), &err), 0);
        bool ok = check_lines(r, NULL, 0, files[i]);
        tl_reader_free(r);
        assert_true(ok);
    }
}

static void test_open_errors(void **state)
{
    (void)state;
    struct tl_reader *r = NULL;
    struct tl_err err = {TL_ERR_NONE, ""};
    char want[300];
    const char *p = path("does-not-exist.log");
    assert_int_equal(tl_reader_open(&r, p, &err), -1);
    assert_int_equal(err.code, TL_ERR_INPUT);
    snprintf(want, sizeof(want), "cannot open %s: No such file or directory", p);
    assert_string_equal(err.msg, want);
    memset(&err, 0, sizeof(err));
    assert_int_equal(tl_reader_open(&r, scratch, &err), -1);
    assert_int_equal(err.code, TL_ERR_INPUT);
    snprintf(want, sizeof(want), "%s is not a file", scratch);
    assert_string_equal(err.msg, want);
}

static void test_long_lines(void **state)
{
    (void)state;
    /* A 3 MB line with a 1 KiB limit: skipped, its length reported, the
     * lines around it intact, in memory and from files. */
    const size_t big = 3u << 20;
    char *data = malloc(big + 32);
    assert_non_null(data);
    memcpy(data, "before\n", 7);
    memset(data + 7, 'L', big);
    data[7] = '\t';
    memcpy(data + 7 + big, "\nafter\n", 7);
    size_t n = big + 14;
    for (int k = K_MEM; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, data, n, "long");
        tl_reader_set_max_line(r, 1024);
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line;
        assert_int_equal(tl_reader_next(r, &line, &err), 1);
        assert_true(tl_str_eq_cstr(line, "before"));
        assert_int_equal(tl_reader_next(r, &line, &err), TL_READER_LONG);
        assert_null(line.p);
        assert_int_equal(line.n, big);
        assert_int_equal(tl_reader_long_first(r), '\t');
        assert_int_equal(tl_reader_lineno(r), 2);
        assert_false(tl_reader_last_unterminated(r));
        assert_int_equal(tl_reader_offset(r), 7 + big + 1);
        /* Unread of a skipped line gives it back as skipped. */
        tl_reader_unread(r);
        assert_int_equal(tl_reader_next(r, &line, &err), TL_READER_LONG);
        assert_int_equal(line.n, big);
        assert_int_equal(tl_reader_lineno(r), 2);
        assert_int_equal(tl_reader_next(r, &line, &err), 1);
        assert_true(tl_str_eq_cstr(line, "after"));
        assert_int_equal(tl_reader_lineno(r), 3);
        assert_int_equal(tl_reader_next(r, &line, &err), 0);
        tl_reader_free(r);
    }
    /* Overlong and unterminated at the end. */
    for (int k = K_MEM; k <= K_ZST; k++) {
        struct tl_reader *r = open_kind((enum kind)k, data, 7 + big, "long2");
        tl_reader_set_max_line(r, 1024);
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_str line;
        assert_int_equal(tl_reader_next(r, &line, &err), 1);
        assert_int_equal(tl_reader_next(r, &line, &err), TL_READER_LONG);
        assert_int_equal(line.n, big);
        assert_true(tl_reader_last_unterminated(r));
        assert_int_equal(tl_reader_next(r, &line, &err), 0);
        tl_reader_free(r);
    }
    /* In memory, the limit is exact: max_line bytes pass, one more is skipped. */
    memset(data, 'm', 1025);
    data[1024] = '\n';
    struct tl_reader *r = tl_reader_open_mem(data, 1025);
    tl_reader_set_max_line(r, 1024);
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_str line;
    assert_int_equal(tl_reader_next(r, &line, &err), 1);
    assert_int_equal(line.n, 1024);
    tl_reader_free(r);
    data[1024] = 'm';
    r = tl_reader_open_mem(data, 1025);
    tl_reader_set_max_line(r, 1024);
    assert_int_equal(tl_reader_next(r, &line, &err), TL_READER_LONG);
    assert_int_equal(line.n, 1025);
    tl_reader_free(r);
    /* Limits below 1 KiB are raised to 1 KiB. */
    r = tl_reader_open_mem(data, 1000);
    tl_reader_set_max_line(r, 10);
    assert_int_equal(tl_reader_next(r, &line, &err), 1);
    assert_int_equal(line.n, 1000);
    tl_reader_free(r);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_lines),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_last_line_unterminated),
        cmocka_unit_test(test_last_line_cr_without_newline),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_lineno_counts_every_line),
        cmocka_unit_test(test_unread),
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_big_line),
        cmocka_unit_test(test_many_lines_across_chunks),
        cmocka_unit_test(test_tee),
        cmocka_unit_test(test_truncated_gzip),
        cmocka_unit_test(test_truncated_zstd),
        cmocka_unit_test(test_multi_frame),
        cmocka_unit_test(test_empty_compressed),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_long_lines),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
