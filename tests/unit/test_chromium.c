/* SPDX-License-Identifier: BSD-3-Clause */
/* A chromium event's few fields read off its JSON text. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "input/chromium.h"

#include <stdlib.h>
#include <string.h>

static bool peek(const char *text, struct tl_chromium_peek *e)
{
    return tl_chromium_peek(tl_str_cstr(text), e);
}

/* As PyTorch 2.13 writes an "E": the fields found, args' cache_state among kilobytes of other
 * arguments (nested objects, arrays, escaped quotes) skipped. */
static void test_event(void **state)
{
    (void)state;
    struct tl_chromium_peek e;
    assert_true(peek("{\n\"name\": \"inductor_compile\",\n\"ts\": 1795781050354470.2,\n"
                     "\"args\": {\"fn_name\": \"compile_fx_inner\", \"x\": [1, {\"a\": \"}\"}], "
                     "\"q\": \"say \\\"hi\\\" \\\\\", \"compile_id\": \"0/0\", \"cache_state\": "
                     "\"miss\", \"n\": null},\n\"ph\": \"E\",\n\"cat\": \"dynamo_timed\",\n"
                     "\"tid\": 7,\n\"pid\": -2\n}\n",
                     &e));
    assert_int_equal(e.ph, 'E');
    assert_true(tl_str_eq_cstr(e.name, "inductor_compile"));
    assert_true(e.has_ts);
    assert_true(e.ts == 1795781050354470.2);
    assert_false(e.has_dur);
    assert_int_equal(e.tid, 7);
    assert_int_equal(e.pid, -2);
    assert_true(tl_str_eq_cstr(e.cache_state, "miss"));
}

static void test_complete_event(void **state)
{
    (void)state;
    struct tl_chromium_peek e;
    assert_true(peek("{\"ph\":\"X\",\"name\":\"a\\\"b\",\"ts\":5,\"dur\":2.5e1,\"args\":{}}", &e));
    assert_int_equal(e.ph, 'X');
    assert_true(tl_str_eq_cstr(e.name, "a\\\"b")); /* as written */
    assert_true(e.has_dur);
    assert_true(e.dur == 25.0);
    assert_null(e.cache_state.p);
    assert_true(peek("{}", &e));
    assert_null(e.name.p);
    assert_int_equal(e.ph, 0);
}

/* What is no such object gives false; odd values are left unset, never read past the text. */
static void test_bad(void **state)
{
    (void)state;
    struct tl_chromium_peek e;
    static const char *const bad[] = {
        "",
        "[]",
        "{",
        "{\"name\": \"x\"",
        "{\"name\" \"x\"}",
        "{\"name\": \"x}",
        "{\"a\": [1, 2}",
        "{\"a\": 1,}",
        "{\"a\": 1} x",
        "{name: 1}",
        "{\"a\": }",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (peek(bad[i], &e))
            fail_msg("accepted %s", bad[i]);
    assert_true(peek("{\"ph\": \"BE\", \"ts\": \"1\", \"tid\": 1e300, \"pid\": 1.5}", &e));
    assert_int_equal(e.ph, 0);  /* longer than one byte */
    assert_false(e.has_ts);     /* a string */
    assert_int_equal(e.tid, 0); /* too large */
    assert_int_equal(e.pid, 1); /* whole part */
    /* whole numbers of up to 15 digits and longer ones, a sign alone */
    assert_true(peek("{\"ts\": 123456789012345, \"tid\": 1234567890123456, \"pid\": -0}", &e));
    assert_true(e.has_ts && e.ts == 123456789012345.0);
    assert_int_equal(e.tid, 1234567890123456);
    assert_int_equal(e.pid, 0);
    assert_true(peek("{\"ts\": -, \"tid\": -42, \"pid\": 007}", &e));
    assert_false(e.has_ts);
    assert_int_equal(e.tid, -42);
    assert_int_equal(e.pid, 7);
    /* a number cut off by the end of the text is read to there only */
    char text[] = "{\"ts\": 12}";
    assert_true(tl_chromium_peek((struct tl_str){text, strlen(text)}, &e));
    assert_true(e.ts == 12);
    assert_false(tl_chromium_peek((struct tl_str){text, 8}, &e)); /* "{\"ts\": 1" */
    assert_false(tl_chromium_peek(TL_STR_NULL, &e));
}

/* Strings of every length up to past two steps of sixteen bytes, with runs of backslashes
 * before quotes and control characters, ending at the end of an exactly sized text: read
 * whole, never past the text; cut off (or a last backslash), no event. */
static void test_strings(void **state)
{
    (void)state;
    static const char *const pieces[] = {"a", "\\\\", "\\\"", "\x01", "\xc3\xa9", "\\\\\\\""};
    struct tl_chromium_peek e;
    char body[128];
    srand(3);
    for (int round = 0; round < 4000; round++) {
        size_t n = 0;
        size_t want = (size_t)(rand() % 40);
        while (n < want) {
            const char *x = pieces[(size_t)rand() % (sizeof(pieces) / sizeof(pieces[0]))];
            memcpy(body + n, x, strlen(x));
            n += strlen(x);
        }
        size_t len = 9 + n + 2; /* ends at '}', without a NUL */
        char *text = malloc(len);
        assert_non_null(text);
        memcpy(text, "{\"name\":\"", 9);
        memcpy(text + 9, body, n);
        memcpy(text + 9 + n, "\"}", 2);
        assert_true(tl_chromium_peek((struct tl_str){text, len}, &e));
        assert_int_equal(e.name.n, n);
        assert_memory_equal(e.name.p, body, n);
        /* without the closing quote and brace: no end of the string */
        assert_false(tl_chromium_peek((struct tl_str){text, 9 + n}, &e));
        free(text);
    }
    assert_false(peek("{\"name\":\"abc\\\"}", &e)); /* the quote escaped */
    assert_false(peek("{\"name\":\"abc\\", &e));    /* a backslash last */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event),
        cmocka_unit_test(test_complete_event),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
