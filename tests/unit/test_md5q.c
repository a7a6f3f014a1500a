/* SPDX-License-Identifier: BSD-3-Clause */
/* Payload checks: mismatches reported in submission order, threaded or not. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "input/md5q.h"
#include "base/md5.h"

#include <stdio.h>
#include <string.h>

struct seen {
    uint64_t lines[64];
    char got[64][33];
    bool truncated[64];
    size_t n;
};

static void collect(void *ctx, const struct tl_md5_result *r)
{
    struct seen *s = ctx;
    s->lines[s->n] = r->lineno;
    memcpy(s->got[s->n], r->got, 33);
    s->truncated[s->n] = r->truncated;
    s->n++;
}

/* Mismatches counted; each on a line i with i % 7 == 3 (1-based: i + 1), after the last. */
struct order {
    size_t n;
    uint64_t last;
    bool in_order;
};

static void count_in_order(void *ctx, const struct tl_md5_result *r)
{
    struct order *c = ctx;
    if (r->lineno <= c->last || (r->lineno - 1) % 7 != 3)
        c->in_order = false;
    c->last = r->lineno;
    c->n++;
}

static void test_hex(void **state)
{
    (void)state;
    char hex[33];
    tl_md5_hex("", 0, hex);
    assert_string_equal(hex, "d41d8cd98f00b204e9800998ecf8427e");
    tl_md5_hex("graph", 5, hex);
    assert_string_equal(hex, "f8b0b924ebd7046dbfa85a856e4682c8");
}

static void run_queue(bool threads)
{
    struct tl_md5q *q = tl_md5q_new(1024, threads); /* tiny: backpressure is exercised */
    struct tl_buf b = TL_BUF_INIT;
    char good[33];
    for (int i = 0; i < 40; i++) {
        char text[64];
        int n = snprintf(text, sizeof(text), "payload %d", i);
        tl_buf_reset(&b);
        tl_buf_add(&b, text, (size_t)n);
        tl_md5_hex(text, (size_t)n, good);
        /* every third one is wrong; one of them is flagged as truncated */
        struct tl_str want =
            i % 3 == 0 ? TL_STR_LIT("0123456789abcdef0123456789abcdef") : tl_str_make(good, 32);
        tl_md5q_submit(q, (uint64_t)(100 + i), want, i == 9, &b);
        /* the buffer was handed over: the caller's is empty again */
        assert_int_equal(b.len, 0);
    }
    struct seen s = {0};
    tl_md5q_drain(q, collect, &s);
    assert_int_equal(s.n, 14);
    for (size_t k = 0; k < s.n; k++) {
        assert_int_equal(s.lines[k], 100 + 3 * k);
        assert_int_equal(s.truncated[k], k == 3);
        char text[64];
        int n = snprintf(text, sizeof(text), "payload %zu", 3 * k);
        tl_md5_hex(text, (size_t)n, good);
        assert_string_equal(s.got[k], good);
    }
    /* a second drain reports nothing new */
    struct seen again = {0};
    tl_md5q_drain(q, collect, &again);
    assert_int_equal(again.n, 0);
    tl_buf_release(&b);
    tl_md5q_free(q);
}

static void test_threaded(void **state)
{
    (void)state;
    run_queue(true);
}

static void test_inline(void **state)
{
    (void)state;
    run_queue(false);
}

static void test_want_longer_than_shown(void **state)
{
    (void)state;
    struct tl_md5q *q = tl_md5q_new(1 << 20, true);
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_adds(&b, "x");
    /* 33 hex digits: never equal, and shown cut to 40 bytes at most */
    tl_md5q_submit(q, 7, TL_STR_LIT("9dd4e461268c8034f5c8564e155c67a6a"), false, &b);
    struct seen s = {0};
    tl_md5q_drain(q, collect, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.lines[0], 7);
    tl_buf_release(&b);
    tl_md5q_free(q);
}

/* Thousands of payloads, megabytes of them, some long: checked many at a time (more than a
 * batch of jobs, more than a batch of bytes), the mismatches still reported in line order. */
static void run_many(bool threads)
{
    enum { N = 3000 };
    struct tl_md5q *q = tl_md5q_new(4u << 20, threads);
    struct tl_buf b = TL_BUF_INIT;
    uint32_t x = 12345;
    char good[33];
    size_t bad = 0;
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        size_t len = i % 97 == 0 ? 100000 + x % 50000 : (x >> 8) % 3000;
        tl_buf_reset(&b);
        for (size_t k = 0; k < len; k++)
            tl_buf_addch(&b, (char)('a' + (k * 7 + (size_t)i) % 26));
        tl_md5_hex(b.buf, b.len, good);
        if (i % 7 == 3) {
            good[0] = good[0] == '0' ? '1' : '0';
            bad++;
        }
        tl_md5q_submit(q, (uint64_t)i + 1, tl_str_make(good, 32), false, &b);
    }
    struct order all = {0, 0, true};
    tl_md5q_drain(q, count_in_order, &all);
    assert_int_equal(all.n, bad);
    assert_true(all.in_order);
    tl_buf_release(&b);
    tl_md5q_free(q);
}

static void test_many_threaded(void **state)
{
    (void)state;
    run_many(true);
}

static void test_many_inline(void **state)
{
    (void)state;
    run_many(false);
}

/* The buffer handed back on submit is a checked payload's, with its memory (so the next
 * payload does not grow from nothing), while the queue keeps no more of it than a quarter of
 * what may be in flight (max_inflight). Inline, the drain checks all: the jobs are then
 * spare. */
static size_t alloc_after_reuse(size_t max_inflight)
{
    struct tl_md5q *q = tl_md5q_new(max_inflight, false);
    struct tl_buf b = TL_BUF_INIT;
    char good[33];
    for (int i = 0; i < 100000; i++)
        tl_buf_addch(&b, 'x');
    tl_md5_hex(b.buf, b.len, good);
    tl_md5q_submit(q, 1, tl_str_make(good, 32), false, &b);
    assert_int_equal(b.len, 0);
    struct seen s = {0};
    tl_md5q_drain(q, collect, &s);
    assert_int_equal(s.n, 0);
    tl_buf_adds(&b, "a");
    tl_md5_hex("a", 1, good);
    tl_md5q_submit(q, 2, tl_str_make(good, 32), false, &b);
    size_t alloc = b.alloc;
    assert_int_equal(b.len, 0);
    assert_string_equal(b.buf, "");
    tl_md5q_drain(q, collect, &s);
    assert_int_equal(s.n, 0);
    tl_buf_release(&b);
    tl_md5q_free(q);
    return alloc;
}

static void test_buffers_kept(void **state)
{
    (void)state;
    assert_true(alloc_after_reuse(1 << 20) > 100000);
    assert_true(alloc_after_reuse(1024) < 100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hex),           cmocka_unit_test(test_threaded),
        cmocka_unit_test(test_inline),        cmocka_unit_test(test_want_longer_than_shown),
        cmocka_unit_test(test_many_threaded), cmocka_unit_test(test_many_inline),
        cmocka_unit_test(test_buffers_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
