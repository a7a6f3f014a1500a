/* SPDX-License-Identifier: BSD-3-Clause */
/* The progress bar: sizes, and silence when disabled. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void test_bytes(void **state)
{
    (void)state;
    char b[32];
    tl_progress_format_bytes(b, sizeof(b), 0);
    assert_string_equal(b, "0 B");
    tl_progress_format_bytes(b, sizeof(b), 999);
    assert_string_equal(b, "999 B");
    tl_progress_format_bytes(b, sizeof(b), 1000);
    assert_string_equal(b, "1.0 KB");
    tl_progress_format_bytes(b, sizeof(b), 209715200);
    assert_string_equal(b, "209.7 MB");
    tl_progress_format_bytes(b, sizeof(b), 5e12);
    assert_string_equal(b, "5.0 TB");
}

/* Run updates with stderr redirected to a file; return what was written. */
static size_t drawn(bool enabled, uint64_t total, int updates)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    int saved = dup(2);
    dup2(fileno(f), 2);
    struct tl_progress p;
    tl_progress_init(&p, enabled, total);
    for (int i = 0; i < updates; i++)
        tl_progress_update(&p, (uint64_t)i);
    usleep(120000); /* past the redraw interval */
    for (int i = 0; i < 512; i++)
        tl_progress_update(&p, total / 2);
    tl_progress_clear(&p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long n = ftell(f);
    fclose(f);
    return (size_t)n;
}

static void test_disabled_is_silent(void **state)
{
    (void)state;
    assert_int_equal(drawn(false, 1000, 100000), 0);
}

static void test_enabled_draws_and_clears(void **state)
{
    (void)state;
    assert_true(drawn(true, 1000, 100000) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_disabled_is_silent),
        cmocka_unit_test(test_enabled_draws_and_clears),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
