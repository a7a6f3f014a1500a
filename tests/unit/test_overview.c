/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for model/overview.c and report/page_overview.c: the colour of each status, the
 * counts, total and largest time of the compile ids of the directory (the unknown key left
 * out, keys without a frame id ([-/-]) apart, absent, negative and NaN times ignored), the
 * cache totals, the cap on the chart's bars (the slowest, in log order, with what was left
 * out), and the HTML of the overview: the counts as printed, one linked bar per compile id,
 * escaped function names.
 */
#include "base/config.h"
#include "model/overview.h"
#include "base/arena.h"
#include "base/buf.h"
#include "model/model.h"
#include "report/pages.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tl_arena arena;
static struct tl_model model;

static int setup(void **state)
{
    (void)state;
    tl_arena_init(&arena, 0);
    tl_model_init(&model, &arena);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tl_model_release(&model);
    tl_arena_release(&arena);
    return 0;
}

/* The directory key of [frame/fcid] (attempt when > 0). */
static struct tl_dirkey *key(uint32_t frame, uint32_t fcid, uint32_t attempt)
{
    struct tl_compile_id id = {0, frame, fcid, attempt,
                               TL_CID_FRAME | TL_CID_FCID | TL_CID_ATTEMPT};
    return tl_directory_key(&model.dir, &id);
}

static void metrics(struct tl_dirkey *k, uint8_t status, double t, const char *fn)
{
    tl_dirkey_add_metrics(&arena, k, TL_CS_METRICS | status, true, t, fn);
}

static void test_status_of(void **state)
{
    (void)state;
    assert_int_equal(tl_overview_status_of(0), TL_OV_MISSING);
    assert_int_equal(tl_overview_status_of(TL_CS_FAIL), TL_OV_MISSING);
    assert_int_equal(tl_overview_status_of(TL_CS_METRICS), TL_OV_OK);
    assert_int_equal(tl_overview_status_of(TL_CS_METRICS | TL_CS_RESTART), TL_OV_RESTART);
    assert_int_equal(tl_overview_status_of(TL_CS_METRICS | TL_CS_EMPTY | TL_CS_RESTART),
                     TL_OV_EMPTY);
    assert_int_equal(tl_overview_status_of(TL_CS_METRICS | TL_CS_FAIL | TL_CS_EMPTY), TL_OV_FAIL);
}

static void test_summary(void **state)
{
    (void)state;
    struct tl_dirkey *a = key(0, 0, 0), *b = key(1, 0, 0), *c = key(1, 0, 1);
    struct tl_dirkey *d = key(2, 0, 0);
    tl_directory_key(&model.dir, NULL); /* the unknown key: not a compile id */
    struct tl_dirkey *e = key(3, 0, 0);
    metrics(a, 0, 0.5, "f");
    metrics(a, 0, 0.25, NULL); /* a repeat: times add up, the function stays */
    metrics(b, TL_CS_RESTART, 0.125, "g");
    metrics(c, 0, NAN, "g"); /* no usable time */
    metrics(c, 0, -1, "g");  /* nor this */
    metrics(d, TL_CS_FAIL, 2.0, "h");
    (void)e; /* no metrics: missing */
    struct tl_compile_id mid = {0, 0, 0, 0, TL_CID_FRAME | TL_CID_FCID | TL_CID_ATTEMPT};
    struct tl_compile *mc = tl_model_compile(&model, &mid);
    mc->cache[TL_CACHE_FX_GRAPH][TL_CACHE_HIT] = 2;
    mc->cache[TL_CACHE_FX_GRAPH][TL_CACHE_MISS] = 3;
    mc->cache[TL_CACHE_AOTAUTOGRAD][TL_CACHE_BYPASS] = 1;

    const struct tl_overview_cid *oa = tl_overview_get(a);
    assert_non_null(oa);
    assert_true(oa->has_time);
    assert_true(oa->time_s == 0.75);
    assert_string_equal(oa->function, "f");
    assert_int_equal(oa->nmetrics, 2);
    assert_false(tl_overview_get(c)->has_time);
    assert_null(tl_overview_get(e));

    struct tl_overview_summary s;
    tl_overview_summarize(&model, 30, &s);
    assert_int_equal(s.ncids, 5);
    assert_int_equal(s.count[TL_OV_OK], 2);
    assert_int_equal(s.count[TL_OV_RESTART], 1);
    assert_int_equal(s.count[TL_OV_FAIL], 1);
    assert_int_equal(s.count[TL_OV_MISSING], 1);
    assert_int_equal(s.count[TL_OV_EMPTY], 0);
    assert_int_equal(s.ntimed, 3);
    assert_true(s.total_s == 2.875);
    assert_true(s.max_s == 2.0);
    assert_int_equal(s.cache[0][0], 2);
    assert_int_equal(s.cache[0][1], 3);
    assert_int_equal(s.cache[1][2], 1);
    assert_int_equal(s.nbars, 5);
    assert_int_equal(s.nomitted, 0);
    assert_ptr_equal(s.bars[0].key, a);
    assert_ptr_equal(s.bars[2].key, c);
    assert_ptr_equal(s.bars[4].key, e);
    assert_null(s.bars[4].c);
    assert_int_equal(s.bars[3].status, TL_OV_FAIL);
    tl_overview_summary_release(&s);

    /* Two bars: the two slowest, in log order. */
    tl_overview_summarize(&model, 2, &s);
    assert_int_equal(s.nbars, 2);
    assert_ptr_equal(s.bars[0].key, a);
    assert_ptr_equal(s.bars[1].key, d);
    assert_int_equal(s.nomitted, 3);
    assert_true(s.omitted_s == 0.125);
    tl_overview_summary_release(&s);
}

static void test_page(void **state)
{
    (void)state;
    struct tl_dirkey *a = key(0, 0, 0), *b = key(0, 1, 0), *c = key(1, 0, 0);
    metrics(a, 0, 1.5, "fwd<script>alert(1)</script>&\"'");
    metrics(b, TL_CS_RESTART, 0.0, "g");
    (void)c;
    struct tl_buf out = TL_BUF_INIT;
    tl_page_overview(&out, &model, 3, 30);
    const char *h = out.buf;
    assert_non_null(strstr(h, "<strong>3 compile ids</strong>: <span class='chip status-ok'>1 ok"
                              "</span> <span class='chip status-break'>1 restarted (graph break)"
                              "</span> <span class='chip status-missing'>1 no metrics</span>"));
    assert_non_null(strstr(h, "Total compile time: <strong>1.500 s</strong> (1 compile id has "
                              "no time)"));
    assert_non_null(strstr(h, "href=\"failures_and_restarts.html\">3 restarts and failures<"));
    assert_null(strstr(h, "cache:")); /* no cache events: no line */
    assert_int_equal(tu_count(h, "<a href=\"#"), 3);
    assert_non_null(
        strstr(h, "<a href=\"#[0/0]\"><title>[0/0] fwd&lt;script&gt;alert(1)&lt;/script&gt;"
                  "&amp;\"': 1.5 s, ok</title>"));
    assert_null(strstr(h, "<script>"));
    /* the longest bar is the full width; a zero time a sliver; no time, no bar */
    assert_non_null(strstr(h, "class='status-ok' x='"));
    assert_non_null(strstr(h, "width='58.00%'/>"));
    assert_non_null(strstr(h, "width='2'/>"));
    assert_non_null(strstr(h, "[1/0]: no compile time recorded, no metrics</title>"));
    assert_null(strstr(h, "slowest of"));
    tl_buf_reset(&out);
    tl_page_overview(&out, &model, 0, 1);
    assert_int_equal(tu_count(out.buf, "<a href=\"#"), 1);
    assert_non_null(strstr(out.buf, "<strong>The 1 slowest of 3 compile ids are drawn</strong>; "
                                    "the other 2 took 0.000 s in all."));
    assert_null(strstr(out.buf, "failures_and_restarts.html"));
    tl_buf_release(&out);
}

/* Keys without a frame id ([-/-], [!3/-/-]) are no compile id, as the diagnosis counts: not
 * in the counts nor the chart; named apart when they hold files or time (which the total
 * keeps, as the diagnosis's does). */
static void test_loose(void **state)
{
    (void)state;
    struct tl_compile_id none = {0, 0, 0, 0, 0};
    struct tl_compile_id ca = {3, 0, 0, 0, TL_CID_CA};
    struct tl_dirkey *loose = tl_directory_key(&model.dir, &none);
    struct tl_dirkey *a = key(0, 0, 0);
    struct tl_dirkey *ca_key = tl_directory_key(&model.dir, &ca);
    struct tl_dirkey *quiet = key(0, 0, 0); /* the same [0/0] */
    assert_ptr_equal(quiet, a);
    metrics(a, 0, 1.5, "f");
    metrics(ca_key, 0, 0.25, "g");
    tl_directory_add(&model.dir, loose, "-_-_-_-/a_1.txt", "a_1.txt", 1, false);
    tl_directory_add(&model.dir, loose, "-_-_-_-/b_2.txt", "b_2.txt", 2, false);
    tl_directory_add(&model.dir, loose, "https://example.com", "doc", 3, true);
    struct tl_overview_summary s;
    tl_overview_summarize(&model, 30, &s);
    assert_int_equal(s.ncids, 1);
    assert_int_equal(s.ncompilations, 1);
    assert_int_equal(s.count[TL_OV_OK], 1);
    assert_int_equal(s.count[TL_OV_MISSING], 0);
    assert_int_equal(s.nbars, 1);
    assert_ptr_equal(s.bars[0].key, a);
    assert_int_equal(s.nloose, 2);
    assert_ptr_equal(s.loose[0].key, loose);
    assert_ptr_equal(s.loose[1].key, ca_key);
    assert_int_equal(s.ntimed, 1);
    assert_true(s.total_s == 1.75);
    tl_overview_summary_release(&s);

    struct tl_buf out = TL_BUF_INIT;
    tl_page_overview(&out, &model, 0, 30);
    assert_non_null(strstr(out.buf, "<p class='counts'><strong>1 compile id</strong>: <span "
                                    "class='chip status-ok'>1 ok</span></p>\n<p class='loose'>"
                                    "Outside any compilation (no compile id): <a href=\"#[-/-]\">"
                                    "[-/-]</a> with 2 files, 1 link; <a href=\"#[!3/-/-]\">"
                                    "[!3/-/-]</a> with 0.250 s of compile time</p>\n<p "
                                    "class='total'>Total compile time: <strong>1.750 s</strong>"
                                    "</p>\n"));
    assert_int_equal(tu_count(out.buf, "<title>"), 1); /* one bar: [0/0] */
    tl_buf_release(&out);
}

/* Only [-/-], and nothing in it: no compile id, and nothing said of it. */
static void test_loose_empty(void **state)
{
    (void)state;
    struct tl_compile_id none = {0, 0, 0, 0, 0};
    tl_directory_key(&model.dir, &none);
    struct tl_buf out = TL_BUF_INIT;
    tl_page_overview(&out, &model, 0, 30);
    assert_non_null(strstr(out.buf, "<strong>0 compile ids</strong></p>\n<p class='total'>"));
    assert_null(strstr(out.buf, "[-/-]"));
    assert_null(strstr(out.buf, "<svg"));
    tl_buf_release(&out);
}

/* Restarts: the times are per analysis, and said so. */
static void test_attempts_time(void **state)
{
    (void)state;
    struct tl_dirkey *a = key(1, 0, 0), *b = key(1, 0, 1), *c = key(2, 0, 0);
    metrics(a, TL_CS_RESTART, 0.5, "f");
    (void)b;
    (void)c;
    struct tl_buf out = TL_BUF_INIT;
    tl_page_overview(&out, &model, 0, 30);
    assert_non_null(strstr(out.buf, "<strong>2 compile ids</strong>, analysed 3 times:"));
    assert_non_null(strstr(out.buf, "Total compile time: <strong>0.500 s</strong> (2 of the 3 "
                                    "analyses have no time)"));
    tl_buf_release(&out);
}

static void test_empty(void **state)
{
    (void)state;
    struct tl_buf out = TL_BUF_INIT;
    tl_page_overview(&out, &model, 0, 30);
    assert_non_null(strstr(out.buf, "<strong>0 compile ids</strong></p>"));
    assert_non_null(strstr(out.buf, "Total compile time: <strong>not recorded</strong>"));
    assert_null(strstr(out.buf, "<svg"));
    tl_buf_release(&out);
}

static void test_footer(void **state)
{
    (void)state;
    struct tl_runinfo info = {.version = TL_VERSION,
                              .revision = "0123456789ab",
                              .command_line = "tlparse 'a<b>.log' -o out",
                              .input = "dir/a<b>.log",
                              .has_stat = true,
                              .input_size = 312791,
                              .input_mtime = 1700000000};
    struct tl_buf out = TL_BUF_INIT;
    tl_page_footer(&out, &info);
    assert_string_equal(out.buf, "<footer class='runinfo'>\n<p>tlparse " TL_VERSION " (revision "
                                 "<code>0123456789ab</code>) · command: <code class='cmd'>"
                                 "tlparse 'a&lt;b&gt;.log' -o out</code> · input: <code>"
                                 "dir/a&lt;b&gt;.log</code>, 312791 bytes, modified 2023-11-14 "
                                 "22:13:20 UTC</p>\n</footer>\n");
    tl_buf_reset(&out);
    struct tl_runinfo lib = {.version = TL_VERSION, .revision = "", .input = "<memory>"};
    tl_page_footer(&out, &lib);
    assert_string_equal(out.buf, "<footer class='runinfo'>\n<p>tlparse " TL_VERSION " · input: "
                                 "<code>&lt;memory&gt;</code></p>\n</footer>\n");
    tl_buf_reset(&out);
    tl_page_footer(&out, NULL);
    assert_int_equal(out.len, 0);
    assert_true(tl_page_utc(&out, 0, true));
    assert_string_equal(out.buf, "1970-01-01T00:00:00Z");
    tl_buf_release(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_of),
        cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loose, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loose_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attempts_time, setup, teardown),
        cmocka_unit_test(test_footer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
