/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON array read element by element (input/json_elements.c): the exact elements and
 * results of well-formed arrays, whatever the chunk size; hostile files (truncated, nested
 * deep, brackets and escapes in strings, elements larger than many chunks, bytes after the
 * array) end with -1 after the elements before the fault. */
#include "base/config.h"
#include "base/buf.h"
#include "input/json_elements.h"
#include "testutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return tu_mkdtemp(dir, sizeof(dir), "json-elements");
}

static int teardown(void **state)
{
    (void)state;
    return tu_rmtree(dir);
}

/* The file's bytes, read from its descriptor. */
static long read_fd(void *ctx, void *p, size_t n)
{
    ssize_t got;
    do
        got = read(*(int *)ctx, p, n);
    while (got < 0 && errno == EINTR);
    return got;
}

/* The results of reading text[0..n) in chunks of chunk bytes (0: the default): each element
 * as "<text>|", then "END" (0) or "BAD" (-1). */
static void read_all(struct tl_buf *got, const char *text, size_t n, size_t chunk)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/a.json", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct tl_json_elements e;
    tl_json_elements_init(&e, read_fd, &fd);
    if (chunk)
        e.chunk = chunk;
    tl_buf_reset(got);
    struct tl_str v;
    int rc;
    while ((rc = tl_json_elements_next(&e, &v)) == 1) {
        tl_buf_add(got, v.p, v.n);
        tl_buf_addch(got, '|');
    }
    tl_buf_adds(got, rc == 0 ? "END" : "BAD");
    /* the end stays the end */
    assert_int_equal(tl_json_elements_next(&e, &v), rc);
    tl_json_elements_release(&e);
    close(fd);
}

/* text gives want in chunks of every size from 1 to 9 bytes and the default. */
static void check(const char *text, const char *want)
{
    struct tl_buf got = TL_BUF_INIT;
    for (size_t chunk = 0; chunk <= 9; chunk++) {
        read_all(&got, text, strlen(text), chunk);
        if (strcmp(got.buf, want) != 0)
            fail_msg("%s (chunk %zu): got %s, want %s", text, chunk, got.buf, want);
    }
    tl_buf_release(&got);
}

static void test_elements(void **state)
{
    (void)state;
    check("[1, \"a]b\", {\"x\": [1, {\"y\": \"}\"}]}, [], true, null, -2.5e3]",
          "1|\"a]b\"|{\"x\": [1, {\"y\": \"}\"}]}|[]|true|null|-2.5e3|END");
    check("[]", "END");
    check(" \n\t[ \r\n ] \n", "END");
    check("[{}]", "{}|END");
    check("[\n  {\"a\": 1},\n  {\"b\": 2}\n]", "{\"a\": 1}|{\"b\": 2}|END");
    check("[1,2,3]", "1|2|3|END");
    /* escapes: a quote, a backslash before the closing quote, brackets in strings */
    check("[\"a\\\"]b\\\\\", \"\\\\\\\"\", {\"k\\\"}\": \"[\"}]",
          "\"a\\\"]b\\\\\"|\"\\\\\\\"\"|{\"k\\\"}\": \"[\"}|END");
    /* an element the parser will refuse is still an element: it ends where its brackets do */
    check("[{]}]", "{]|BAD");
    check("[}]", "}|END");
    check("[tru]", "tru|END");
}

static void test_not_arrays(void **state)
{
    (void)state;
    check("", "BAD");
    check("   ", "BAD");
    check("{}", "BAD");
    check("1", "BAD");
    check("[1,]", "1|BAD");
    check("[,1]", "BAD");
    check("[1,,2]", "1|BAD");
    check("[1 2]", "1|BAD");
    check("[1] x", "1|BAD");
    check("[1][2]", "1|BAD");
    check("[1]\n\n", "1|END");
}

static void test_truncated(void **state)
{
    (void)state;
    check("[", "BAD");
    check("[1", "BAD");
    check("[1,", "1|BAD");
    check("[1, {\"a\": [1, 2", "1|BAD");
    check("[\"abc", "BAD");
    check("[\"abc\\", "BAD");
    check("[\"abc\\\"]", "BAD");
    check("[{\"a\": \"]}\"", "BAD");
    check("[1, 2", "1|BAD");
    check("[1, 2 ", "1|2|BAD");
}

static void test_deep(void **state)
{
    (void)state;
    size_t depth = 100000;
    struct tl_buf text = TL_BUF_INIT;
    struct tl_buf want = TL_BUF_INIT;
    struct tl_buf got = TL_BUF_INIT;
    tl_buf_addch(&text, '[');
    for (size_t i = 0; i < depth; i++)
        tl_buf_adds(&text, i % 2 ? "{\"k\":" : "[");
    for (size_t i = depth; i-- > 0;)
        tl_buf_addch(&text, i % 2 ? '}' : ']');
    tl_buf_add(&want, text.buf + 1, text.len - 1);
    tl_buf_adds(&want, "|END");
    tl_buf_adds(&text, "]");
    read_all(&got, text.buf, text.len, 4096);
    assert_string_equal(got.buf, want.buf);
    /* one bracket short: the file ends inside the element */
    read_all(&got, text.buf, text.len - 2, 4096);
    assert_string_equal(got.buf, "BAD");
    tl_buf_release(&text);
    tl_buf_release(&want);
    tl_buf_release(&got);
}

/* Elements of megabytes, with brackets and escapes all through, across many chunks. */
static void test_huge(void **state)
{
    (void)state;
    size_t big = (size_t)3 << 20;
    struct tl_buf s = TL_BUF_INIT;
    tl_buf_adds(&s, "{\"s\": \"");
    while (s.len < big)
        tl_buf_adds(&s, "]}[{ \\\" , \\\\");
    tl_buf_adds(&s, "\", \"n\": [");
    for (int i = 0; i < 100000; i++)
        tl_buf_adds(&s, i ? ", [1]" : "[1]");
    tl_buf_adds(&s, "]}");
    struct tl_buf text = TL_BUF_INIT;
    struct tl_buf want = TL_BUF_INIT;
    struct tl_buf got = TL_BUF_INIT;
    tl_buf_addf(&text, "[7, %s, %s, \"x\"]", s.buf, s.buf);
    tl_buf_addf(&want, "7|%s|%s|\"x\"|END", s.buf, s.buf);
    for (size_t chunk = 0; chunk < 3; chunk++) {
        size_t sizes[] = {0, 4096, 65537};
        read_all(&got, text.buf, text.len, sizes[chunk]);
        assert_int_equal(got.len, want.len);
        assert_memory_equal(got.buf, want.buf, want.len);
    }
    /* cut inside the second element */
    read_all(&got, text.buf, 4 + s.len + 2 + s.len / 2, 65536);
    assert_int_equal(got.len, 2 + s.len + 1 + 3);
    assert_memory_equal(got.buf + got.len - 3, "BAD", 3);
    tl_buf_release(&s);
    tl_buf_release(&text);
    tl_buf_release(&want);
    tl_buf_release(&got);
}

static void test_unreadable(void **state)
{
    (void)state;
    struct tl_json_elements e;
    tl_json_elements_init(&e, NULL, NULL);
    struct tl_str v;
    assert_int_equal(tl_json_elements_next(&e, &v), -1);
    tl_json_elements_release(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elements),  cmocka_unit_test(test_not_arrays),
        cmocka_unit_test(test_truncated), cmocka_unit_test(test_deep),
        cmocka_unit_test(test_huge),      cmocka_unit_test(test_unreadable),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
