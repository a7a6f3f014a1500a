/* SPDX-License-Identifier: BSD-3-Clause */
/* Jobs behind the caller (base/jobq.c): outputs in submission order, whole, threaded or not,
 * with any bound on the bytes in flight; the worker's context read after a drain. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/jobq.h"

#include <stdio.h>
#include <string.h>

struct counter {
    size_t jobs, bytes;
};

/* "<n>:<the input reversed>;" */
static void reverse(void *ctx, const char *in, size_t n, struct tl_buf *out)
{
    struct counter *c = ctx;
    tl_buf_addf(out, "%zu:", n);
    for (size_t i = n; i-- > 0;)
        tl_buf_addch(out, in[i]);
    tl_buf_addch(out, ';');
    c->jobs++;
    c->bytes += n;
}

/* Jobs "0", "01", "012", ... (n of them, cycling through the digits), their outputs taken
 * after every submission and at the end. */
static void run(bool threads, size_t max_inflight, size_t n)
{
    struct counter c = {0, 0};
    struct tl_jobq *q = tl_jobq_new(reverse, &c, max_inflight, threads);
    struct tl_buf got = TL_BUF_INIT, want = TL_BUF_INIT, in = TL_BUF_INIT;
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        tl_buf_reset(&in);
        for (size_t k = 0; k <= i % 300; k++)
            tl_buf_addch(&in, (char)('0' + k % 10));
        struct counter unused = {0, 0};
        reverse(&unused, in.buf, in.len, &want);
        bytes += in.len;
        tl_jobq_submit(q, in.buf, in.len);
        tl_jobq_take(q, &got);
        /* Only whole outputs are ever taken. */
        assert_true(got.len == 0 || got.buf[got.len - 1] == ';');
    }
    tl_jobq_drain(q, &got);
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.buf, want.buf, want.len);
    assert_int_equal(c.jobs, n);
    assert_int_equal(c.bytes, bytes);
    /* Drained twice: nothing more. */
    tl_buf_reset(&got);
    tl_jobq_drain(q, &got);
    assert_int_equal(got.len, 0);
    tl_jobq_free(q);
    tl_buf_release(&got);
    tl_buf_release(&want);
    tl_buf_release(&in);
}

static void test_inline(void **state)
{
    (void)state;
    run(false, 1 << 20, 2000);
}

static void test_threaded(void **state)
{
    (void)state;
    run(true, 1 << 20, 5000);
}

static void test_backpressure(void **state)
{
    (void)state;
    /* Every job larger than the bound: each waits for the one before. */
    run(true, 16, 500);
}

static void test_empty_jobs(void **state)
{
    (void)state;
    struct counter c = {0, 0};
    struct tl_jobq *q = tl_jobq_new(reverse, &c, 1 << 20, true);
    struct tl_buf got = TL_BUF_INIT;
    for (int i = 0; i < 3; i++)
        tl_jobq_submit(q, "", 0);
    tl_jobq_drain(q, &got);
    assert_string_equal(got.buf, "0:;0:;0:;");
    assert_int_equal(c.jobs, 3);
    tl_buf_release(&got);
    tl_jobq_free(q);
}

static void test_free_with_jobs_queued(void **state)
{
    (void)state;
    struct counter c = {0, 0};
    struct tl_jobq *q = tl_jobq_new(reverse, &c, 1 << 20, true);
    for (int i = 0; i < 1000; i++)
        tl_jobq_submit(q, "abc", 3);
    tl_jobq_free(q); /* dropped or done, and no leak (ASan) */
    assert_true(c.jobs <= 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inline),
        cmocka_unit_test(test_threaded),
        cmocka_unit_test(test_backpressure),
        cmocka_unit_test(test_empty_jobs),
        cmocka_unit_test(test_free_with_jobs_queued),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
