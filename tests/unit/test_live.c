/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * live.js (tl_live_status) byte for byte: the layout of the call and its object, the numbers at
 * their limits, and strings that try every way out of a JSON string or a <script>: quotes,
 * backslashes, control characters, "</script>", "<!--", U+2028 and U+2029, ill-formed UTF-8
 * and characters beyond the BMP. The expected bytes are what the watcher has always written.
 */
#include "base/config.h"
#include "base/buf.h"
#include "report/live.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

static void expect_status(const struct tl_live_status *s, const char *want)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_live_status(&b, s);
    assert_string_equal(b.buf, want);
    assert_int_equal(b.len, strlen(want));
    tl_buf_release(&b);
}

static void test_minimal(void **state)
{
    (void)state;
    struct tl_live_status s = {0};
    expect_status(&s, "if (typeof tlLive === \"function\") tlLive({\"generation\":0,\"updated\":0,"
                      "\"heartbeat\":0,\"last_input\":0,\"state\":\"writing\",\"final\":false,"
                      "\"compile_ids\":0,\"graph_breaks\":0,\"recompiles\":0,\"failures\":0,"
                      "\"ranks\":[]});\n");
}

static void test_numbers_and_ranks(void **state)
{
    (void)state;
    static const struct tl_live_rank ranks[] = {
        {0, {1, 2, 3, 4}},
        {7, {0, 0, 0, 0}},
        {UINT32_MAX, {UINT64_MAX, 10, 100, 1000}},
    };
    struct tl_live_status s = {
        .generation = UINT64_MAX,
        .updated_ms = INT64_MIN,
        .heartbeat_ms = INT64_MAX,
        .last_input_ms = -1,
        .state = TL_LIVE_FINISHED,
        .total = {12, 34, 56, 78},
        .ranks = ranks,
        .nranks = 3,
        .final = true,
        .input = "",
        .message = "done",
    };
    expect_status(&s, "if (typeof tlLive === \"function\") tlLive({"
                      "\"generation\":18446744073709551615,\"updated\":-9223372036854775808,"
                      "\"heartbeat\":9223372036854775807,\"last_input\":-1,"
                      "\"state\":\"finished\",\"final\":true,"
                      "\"compile_ids\":12,\"graph_breaks\":34,\"recompiles\":56,\"failures\":78,"
                      "\"ranks\":[{\"rank\":0,\"compile_ids\":1,\"graph_breaks\":2,"
                      "\"recompiles\":3,\"failures\":4},{\"rank\":7,\"compile_ids\":0,"
                      "\"graph_breaks\":0,\"recompiles\":0,\"failures\":0},{\"rank\":4294967295,"
                      "\"compile_ids\":18446744073709551615,\"graph_breaks\":10,"
                      "\"recompiles\":100,\"failures\":1000}],"
                      "\"input\":\"\",\"message\":\"done\"});\n");
    s.state = TL_LIVE_IDLE;
    s.nranks = 1;
    s.final = false;
    s.input = NULL;
    expect_status(&s, "if (typeof tlLive === \"function\") tlLive({"
                      "\"generation\":18446744073709551615,\"updated\":-9223372036854775808,"
                      "\"heartbeat\":9223372036854775807,\"last_input\":-1,"
                      "\"state\":\"idle\",\"final\":false,"
                      "\"compile_ids\":12,\"graph_breaks\":34,\"recompiles\":56,\"failures\":78,"
                      "\"ranks\":[{\"rank\":0,\"compile_ids\":1,\"graph_breaks\":2,"
                      "\"recompiles\":3,\"failures\":4}],\"message\":\"done\"});\n");
    s.state = TL_LIVE_STOPPED;
    s.message = NULL;
    s.nranks = 0;
    expect_status(&s, "if (typeof tlLive === \"function\") tlLive({"
                      "\"generation\":18446744073709551615,\"updated\":-9223372036854775808,"
                      "\"heartbeat\":9223372036854775807,\"last_input\":-1,"
                      "\"state\":\"stopped\",\"final\":false,"
                      "\"compile_ids\":12,\"graph_breaks\":34,\"recompiles\":56,\"failures\":78,"
                      "\"ranks\":[]});\n");
}

static void test_hostile_strings(void **state)
{
    (void)state;
    struct tl_live_status s = {
        .generation = 3,
        .updated_ms = 1700000000000,
        .heartbeat_ms = 1700000001000,
        .state = TL_LIVE_WRITING,
        /* quotes, backslash, the short escapes, other controls, DEL, C1 (U+0085) */
        .input = "a\"b\\c/d\b\f\n\r\t\x01\x1f\x7f|\xc2\x85|'`${x}",
        /* the script's way out, then U+2028, U+2029, é, U+FFFF, a non-BMP emoji (U+1F600),
         * U+10FFFF, then ill-formed UTF-8: a lone continuation, a truncated sequence, an
         * overlong '/', an encoded surrogate, a byte never in UTF-8, a cut-off tail */
        .message = "</script><!--<script>&amp;\xe2\x80\xa8|\xe2\x80\xa9|\xc3\xa9|\xef\xbf\xbf|"
                   "\xf0\x9f\x98\x80|\xf4\x8f\xbf\xbf|\x80|\xe2\x80|\xc0\xaf|\xed\xa0\x80|\xff|"
                   "\xf0\x9f\x98",
    };
    expect_status(&s, "if (typeof tlLive === \"function\") tlLive({\"generation\":3,"
                      "\"updated\":1700000000000,\"heartbeat\":1700000001000,\"last_input\":0,"
                      "\"state\":\"writing\",\"final\":false,\"compile_ids\":0,"
                      "\"graph_breaks\":0,\"recompiles\":0,\"failures\":0,\"ranks\":[],"
                      /* DEL stays raw: it is ASCII, and harmless in a script */
                      "\"input\":\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0001\\u001f\x7f|"
                      "\\u0085|'`${x}\","
                      "\"message\":\"\\u003c/script\\u003e\\u003c!--\\u003cscript\\u003e"
                      "\\u0026amp;\\u2028|\\u2029|\\u00e9|\\uffff|\\ud83d\\ude00|"
                      "\\udbff\\udfff|"
                      /* each ill-formed sequence one U+FFFD (tl_utf8_sanitize) */
                      "\\ufffd|\\ufffd|\\ufffd|\\ufffd|\\ufffd|\\ufffd\"});\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minimal),
        cmocka_unit_test(test_numbers_and_ranks),
        cmocka_unit_test(test_hostile_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
