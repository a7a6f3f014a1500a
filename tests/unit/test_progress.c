/* SPDX-License-Identifier: BSD-3-Clause */
/* Progress: the library tells its callback at most ten times a second (and nothing without
 * one); the CLI's bar draws sizes, rate and time left on stderr and clears its line. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/progress.h"
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void test_bytes(void **state)
{
    (void)state;
    char b[32];
    tl_cli_format_bytes(b, sizeof(b), 0);
    assert_string_equal(b, "0 B");
    tl_cli_format_bytes(b, sizeof(b), 999);
    assert_string_equal(b, "999 B");
    tl_cli_format_bytes(b, sizeof(b), 1000);
    assert_string_equal(b, "1.0 KB");
    tl_cli_format_bytes(b, sizeof(b), 209715200);
    assert_string_equal(b, "209.7 MB");
    tl_cli_format_bytes(b, sizeof(b), 5e12);
    assert_string_equal(b, "5.0 TB");
}

struct told {
    int calls;
    uint64_t done, total;
};

static void tell(void *ctx, uint64_t done, uint64_t total)
{
    struct told *t = ctx;
    t->calls++;
    t->done = done;
    t->total = total;
}

/* The first update is told at once; a burst of updates within a tenth of a second is not;
 * the first after it is. Without a callback nothing happens. */
static void test_throttle(void **state)
{
    (void)state;
    struct tl_progress p;
    struct told t = {0, 0, 0};
    tl_progress_init(&p, tell, &t, 1000);
    tl_progress_update(&p, 10);
    assert_int_equal(t.calls, 1);
    assert_int_equal(t.done, 10);
    assert_int_equal(t.total, 1000);
    for (int i = 0; i < 1000; i++)
        tl_progress_update(&p, 20);
    assert_int_equal(t.calls, 1);
    usleep(120000); /* past the interval */
    for (int i = 0; i < 512; i++)
        tl_progress_update(&p, 500);
    assert_int_equal(t.calls, 2);
    assert_int_equal(t.done, 500);
    tl_progress_init(&p, NULL, NULL, 1000);
    tl_progress_update(&p, 10); /* nobody told, no crash */
}

/* What the bar writes to stderr for frames at pos of total, then a clear (static buffer). */
static const char *drawn(uint64_t total, uint64_t pos)
{
    static char text[4096];
    FILE *f = tmpfile();
    assert_non_null(f);
    int saved = dup(2);
    dup2(fileno(f), 2);
    struct tl_cli_bar bar;
    memset(&bar, 0, sizeof(bar));
    tl_cli_bar_draw(&bar, 0, total);
    usleep(20000);
    tl_cli_bar_draw(&bar, pos, total);
    tl_cli_bar_clear(&bar);
    tl_cli_bar_clear(&bar); /* a second clear writes nothing */
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

static void test_bar_draws_and_clears(void **state)
{
    (void)state;
    const char *t = drawn(1000, 500);
    const char *f = last_frame(t);
    const char *want = "\r[###############---------------]  50%  500 B / 1.0 KB  ";
    assert_memory_equal(f, want, strlen(want));
    assert_non_null(strstr(f, "/s  ETA "));
    /* the line is cleared at the end, once */
    size_t n = strlen(t);
    assert_true(n > 4);
    assert_string_equal(t + n - 4, "\r\x1b[K");
    assert_int_not_equal(memcmp(t + n - 8, "\r\x1b[K\r\x1b[K", 8), 0);
}

static void test_unknown_size(void **state)
{
    (void)state;
    /* a pipe: no size, so no bar, no percentage and no ETA */
    const char *f = last_frame(drawn(0, 2500));
    const char *want = "\r2.5 KB read  ";
    assert_memory_equal(f, want, strlen(want));
    assert_null(strstr(f, "ETA"));
    assert_null(strstr(f, "%"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_throttle),
        cmocka_unit_test(test_bar_draws_and_clears),
        cmocka_unit_test(test_unknown_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
