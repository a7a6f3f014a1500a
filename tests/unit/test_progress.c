/* SPDX-License-Identifier: BSD-3-Clause */
/* The progress bar: sizes, and silence when disabled. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/progress.h"

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

/* Run updates up to pos with stderr redirected to a file; return what was
 * written (static buffer). */
static const char *drawn(bool enabled, uint64_t total, uint64_t pos, int updates)
{
    static char text[4096];
    FILE *f = tmpfile();
    assert_non_null(f);
    int saved = dup(2);
    dup2(fileno(f), 2);
    struct tl_progress p;
    tl_progress_init(&p, enabled, total);
    for (int i = 0; i < updates; i++)
        tl_progress_update(&p, (uint64_t)i % (pos + 1));
    usleep(120000); /* past the redraw interval */
    for (int i = 0; i < 512; i++)
        tl_progress_update(&p, pos);
    tl_progress_clear(&p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The last frame drawn: from the last \r that starts one. */
static const char *last_frame(const char *t)
{
    const char *last = NULL;
    for (const char *q = strchr(t, '\r'); q; q = strchr(q + 1, '\r'))
        if (q[1] != '\x1b')
            last = q;
    assert_non_null(last);
    return last;
}

static void test_disabled_is_silent(void **state)
{
    (void)state;
    assert_string_equal(drawn(false, 1000, 500, 100000), "");
}

static void test_enabled_draws_and_clears(void **state)
{
    (void)state;
    const char *t = drawn(true, 1000, 500, 100000);
    const char *f = last_frame(t);
    const char *want = "\r[###############---------------]  50%  500 B / 1.0 KB  ";
    assert_memory_equal(f, want, strlen(want));
    assert_non_null(strstr(f, "/s  ETA "));
    /* the line is cleared at the end */
    size_t n = strlen(t);
    assert_true(n > 4);
    assert_string_equal(t + n - 4, "\r\x1b[K");
}

static void test_unknown_size(void **state)
{
    (void)state;
    /* a pipe: no size, so no bar, no percentage and no ETA */
    const char *f = last_frame(drawn(true, 0, 2500, 100000));
    const char *want = "\r2.5 KB read  ";
    assert_memory_equal(f, want, strlen(want));
    assert_null(strstr(f, "ETA"));
    assert_null(strstr(f, "%"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_disabled_is_silent),
        cmocka_unit_test(test_enabled_draws_and_clears),
        cmocka_unit_test(test_unknown_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
