/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The line splitter (input/lines.c) and the engine fed bytes as they arrive: the same lines,
 * line numbers and long-line skips whatever the chunks; CRLF ends; a last line without its
 * newline; and a trace fed one byte at a time, in odd chunks or whole, gives the same entries
 * and the same diagnosis (what --watch will rely on).
 */
#include "base/config.h"
#include "engine/engine.h"
#include "input/lines.h"
#include "report/summary.h"
#include "sinks/sinks.h"
#include "base/buf.h"
#include "base/utf8.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the splitter -----------------------------------------------------------------------------
 */

/* Each line as "N:text\n", or "N:LONG len first\n". */
static int collect(void *ctx, const struct tl_line *l, struct tl_err *err)
{
    (void)err;
    struct tl_buf *b = ctx;
    if (l->long_line)
        tl_buf_addf(b, "%llu:LONG %llu %c\n", (unsigned long long)l->lineno,
                    (unsigned long long)l->len, l->first);
    else {
        tl_buf_addf(b, "%llu:", (unsigned long long)l->lineno);
        tl_buf_add(b, l->text.p, l->text.n);
        tl_buf_addch(b, '\n');
    }
    return 0;
}

/* The lines of s fed in chunks of k bytes (k 0: whole), with the given limit. */
static void split(struct tl_buf *out, const char *s, size_t k, size_t max_line, bool *unterminated)
{
    struct tl_lines l;
    struct tl_err err = {TL_ERR_NONE, ""};
    tl_lines_init(&l, max_line);
    size_t n = strlen(s);
    size_t step = k ? k : (n ? n : 1);
    for (size_t i = 0; i < n; i += step)
        assert_int_equal(tl_lines_feed(&l, s + i, n - i < step ? n - i : step, collect, out, &err),
                         0);
    assert_int_equal(tl_lines_finish(&l, collect, out, &err), 0);
    assert_int_equal(l.bytes, n);
    *unterminated = l.last_unterminated;
    tl_lines_release(&l);
}

static void check_split(const char *s, size_t max_line, const char *want, bool want_unterminated)
{
    static const size_t chunks[] = {0, 1, 2, 3, 5, 7, 64};
    for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        struct tl_buf b = TL_BUF_INIT;
        bool unterminated;
        split(&b, s, chunks[i], max_line, &unterminated);
        if (strcmp(b.buf, want) != 0)
            fail_msg("chunks of %zu: got\n%s\nwant\n%s", chunks[i], b.buf, want);
        assert_int_equal(unterminated, want_unterminated);
        tl_buf_release(&b);
    }
}

static void test_split_plain(void **state)
{
    (void)state;
    check_split("a\nbc\n\ndef\n", 100, "1:a\n2:bc\n3:\n4:def\n", false);
    check_split("a\nlast", 100, "1:a\n2:last\n", true);
    check_split("", 100, "", false);
    check_split("\n", 100, "1:\n", false);
}

static void test_split_crlf(void **state)
{
    (void)state;
    /* One "\r" before "\n" goes; a lone "\r" stays; the last line keeps its "\r". */
    check_split("a\r\n\r\nb\rc\r\r\nd\r", 100, "1:a\n2:\n3:b\rc\r\n4:d\r\n", true);
}

static void test_split_long(void **state)
{
    (void)state;
    /* Over the limit: skipped with its length (the "\r" counted) and first byte, wherever the
     * chunks cut it; exactly the limit passes. */
    check_split("12345\nabcdefgh\nxy\n", 5, "1:12345\n2:LONG 8 a\n3:xy\n", false);
    check_split("abcdefgh\r\n", 5, "1:LONG 9 a\n", false);
    check_split("ok\n\tabcdefghij", 5, "1:ok\n2:LONG 11 \t\n", true);
}

/* Each line's UTF-8 flag as 'v' (known well-formed) or '-' (not checked); a line flagged that
 * is not well-formed fails the test. */
static int collect_utf8(void *ctx, const struct tl_line *l, struct tl_err *err)
{
    (void)err;
    struct tl_buf *b = ctx;
    if (l->utf8 && !tl_utf8_valid(l->text.p, l->text.n))
        fail_msg("line %llu flagged well-formed", (unsigned long long)l->lineno);
    tl_buf_addch(b, l->utf8 ? 'v' : '-');
    return 0;
}

static void utf8_flags(struct tl_buf *out, const char *s, size_t n, size_t k)
{
    struct tl_lines l;
    struct tl_err err = {TL_ERR_NONE, ""};
    tl_lines_init(&l, 100);
    size_t step = k ? k : (n ? n : 1);
    for (size_t i = 0; i < n; i += step)
        assert_int_equal(
            tl_lines_feed(&l, s + i, n - i < step ? n - i : step, collect_utf8, out, &err), 0);
    assert_int_equal(tl_lines_finish(&l, collect_utf8, out, &err), 0);
    tl_lines_release(&l);
}

static void test_utf8_flag(void **state)
{
    (void)state;
    /* Fed whole, each line inside the chunk is judged on its own: two ill-formed lines in a
     * row, one cut short before its newline, one at the start, the last unterminated (held
     * over, so not flagged); a long line is not checked. */
    static const char log[] =
        "\xff\n"
        "caf\xc3\xa9\n"
        "\xe2\x82\n"
        "a\xc3\n"
        "\n"
        "ok \xf0\x9f\x98\x80\n"
        "x\xc0\xafy\n"
        "plain\r\n"
        "0123456789012345678901234567890123456789012345678901234567890123456789"
        "0123456789012345678901234567890123456789\n"
        "end";
    struct tl_buf b = TL_BUF_INIT;
    utf8_flags(&b, log, sizeof(log) - 1, 0);
    assert_string_equal(b.buf, "-v--vv-v--");
    /* In chunks, lines cut by a chunk are held and not flagged; no flag is ever wrong. */
    static const size_t chunks[] = {1, 2, 3, 5, 7, 16};
    for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        tl_buf_reset(&b);
        utf8_flags(&b, log, sizeof(log) - 1, chunks[i]);
        assert_int_equal(b.len, 10);
    }
    tl_buf_release(&b);
}

/* ---- the engine, fed in chunks ----------------------------------------------------------------
 */

/* Every entry as a line of its number, kind, compile id and payload length. */
static int on_entry(void *ctx, const struct tl_entry *e)
{
    struct tl_buf *b = ctx;
    tl_buf_addf(b, "%llu %s %s %zu\n", (unsigned long long)e->line, e->kind, e->compile_id,
                e->payload_len);
    return 0;
}

struct seen {
    struct tl_buf entries;
    char *summary;
};

static void keep_summary(void *ctx, const struct tl_model *model, const struct tl_runinfo *info)
{
    (void)info;
    struct seen *s = ctx;
    struct tl_buf b = TL_BUF_INIT;
    struct tl_summary_source src = {"demo.log", "torch_trace", NULL, NULL};
    tl_summary_json(&b, &model->diag, &src, true);
    s->summary = tl_buf_detach(&b, NULL);
}

static void quiet(void *ctx, enum tl_message_kind kind, const char *line)
{
    (void)ctx, (void)kind, (void)line;
}

/* The demo trace through the engine in chunks of k bytes (0: whole). */
static void feed_demo(struct seen *s, const char *log, size_t n, size_t k, uint64_t *lines)
{
    struct tl_options opt = {.no_threads = true, .year = 2024, .message = quiet};
    struct tl_engine_job job = {
        .opt = &opt, .name = "demo.log", .done = keep_summary, .done_ctx = s};
    struct tl_entries_params params = {on_entry, &s->entries};
    tl_engine_job_add(&job, &tl_sink_entries, &params);
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_engine *eng = tl_engine_new(&job);
    assert_int_equal(tl_engine_start(eng, n, &err), 0);
    size_t step = k ? k : n;
    for (size_t i = 0; i < n; i += step)
        assert_int_equal(tl_engine_feed(eng, log + i, n - i < step ? n - i : step, &err), 0);
    struct tl_engine_result res;
    assert_int_equal(tl_engine_finish(eng, NULL, 0, &res, &err), 0);
    *lines = res.lines;
    assert_int_equal(res.bytes_in, n);
    tl_engine_free(eng);
}

static void test_engine_chunks(void **state)
{
    (void)state;
    size_t n;
    char *log = tu_slurp_in(TL_SOURCE_DIR, "tests/fixtures/demo.log", &n);
    assert_non_null(log);
    struct seen whole = {TL_BUF_INIT, NULL};
    uint64_t lines_whole;
    feed_demo(&whole, log, n, 0, &lines_whole);
    assert_true(whole.entries.len > 1000); /* the demo has entries of every kind */
    assert_non_null(strstr(whole.summary, "\"graph_breaks\""));
    static const size_t chunks[] = {1, 7, 4096, 65537};
    for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        struct seen s = {TL_BUF_INIT, NULL};
        uint64_t lines;
        feed_demo(&s, log, n, chunks[i], &lines);
        assert_int_equal(lines, lines_whole);
        assert_string_equal(s.entries.buf, whole.entries.buf);
        assert_string_equal(s.summary, whole.summary);
        tl_buf_release(&s.entries);
        free(s.summary);
    }
    tl_buf_release(&whole.entries);
    free(whole.summary);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_plain),   cmocka_unit_test(test_split_crlf),
        cmocka_unit_test(test_split_long),    cmocka_unit_test(test_utf8_flag),
        cmocka_unit_test(test_engine_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
