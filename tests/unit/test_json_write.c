/* SPDX-License-Identifier: BSD-3-Clause */
#include "base/config.h"
#include "base/json_write.h"
#include "base/json_num.h"
#include "base/json.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tl_arena arena;
static struct tl_buf out = TL_BUF_INIT;

static int setup(void **state)
{
    (void)state;
    tl_arena_init(&arena, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tl_arena_release(&arena);
    tl_buf_release(&out);
    return 0;
}

static struct tl_json parse(const char *text)
{
    struct tl_json v;
    struct tl_json_error err = {0, NULL};
    if (tl_json_parse(&arena, text, strlen(text), &v, &err) != 0)
        fail_msg("parse of '%s' failed at %zu: %s", text, err.offset, err.msg);
    return v;
}

static const char *compact(const char *text)
{
    struct tl_json v = parse(text);
    tl_buf_reset(&out);
    tl_json_write_compact(&out, &v);
    return out.buf;
}

static const char *pretty(const char *text, int level)
{
    struct tl_json v = parse(text);
    tl_buf_reset(&out);
    tl_json_write_pretty(&out, &v, level);
    return out.buf;
}

static const char *dbl(double d)
{
    tl_buf_reset(&out);
    tl_json_write_double(&out, d);
    return out.buf;
}

struct io_case {
    const char *in;
    const char *want;
};

static void test_compact(void **state)
{
    (void)state;
    static const struct io_case cases[] = {
        {"null", "null"},
        {" true ", "true"},
        {"false", "false"},
        {"[]", "[]"},
        {"{}", "{}"},
        {"[ 1 , 2 ,\n 3 ]", "[1,2,3]"},
        {"{ \"a\" : 1 , \"b\" : [ 1 , 2 ] }", "{\"a\":1,\"b\":[1,2]}"},
        {"[[],{},[[]],{\"x\":{}}]", "[[],{},[[]],{\"x\":{}}]"},
        {"\"a\\/b\\u00e9\"", "\"a/b\xc3\xa9\""},
        {"[0,-1,18446744073709551615,-9223372036854775808]",
         "[0,-1,18446744073709551615,-9223372036854775808]"},
        {"[1.0,1e2,1E-7,-2.50,0.1e1]", "[1.0,100.0,1e-7,-2.5,1.0]"},
        {"[18446744073709551616,-9223372036854775809]",
         "[1.8446744073709552e19,-9.223372036854776e18]"},
        {"-0", "-0.0"},
        {"[-0.0,0.0,0e5]", "[-0.0,0.0,0.0]"},
        {"3.910064697265625e-05", "0.00003910064697265625"},
        {"{\"dynamo_output_graph\": {\"sizes\": {\"l_x_\": [8, 8], \"mul\": [8, 8]}}, "
         "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, "
         "\"has_payload\": \"0ac1c7c2f1a4ee1bfe1d2c3a9e4f2b11\"}",
         "{\"attempt\":0,\"dynamo_output_graph\":{\"sizes\":{\"l_x_\":[8,8],\"mul\":[8,8]}},"
         "\"frame_compile_id\":0,\"frame_id\":0,\"has_payload\":"
         "\"0ac1c7c2f1a4ee1bfe1d2c3a9e4f2b11\"}"},
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++)
        assert_string_equal(compact(cases[i].in), cases[i].want);
}

static void test_pretty(void **state)
{
    (void)state;
    assert_string_equal(pretty("1", 0), "1");
    assert_string_equal(pretty("[]", 0), "[]");
    assert_string_equal(pretty("{}", 3), "{}");
    assert_string_equal(pretty("[1,2]", 0), "[\n  1,\n  2\n]");
    assert_string_equal(pretty("{\"b\":[1,{\"c\":null,\"a\":[]}],\"a\":{}}", 0),
                        "{\n"
                        "  \"a\": {},\n"
                        "  \"b\": [\n"
                        "    1,\n"
                        "    {\n"
                        "      \"a\": [],\n"
                        "      \"c\": null\n"
                        "    }\n"
                        "  ]\n"
                        "}");
    /* as if nested: first line unindented, inner 2*(level+1), closing 2*level */
    assert_string_equal(pretty("{\"k\":[true]}", 1), "{\n"
                                                     "    \"k\": [\n"
                                                     "      true\n"
                                                     "    ]\n"
                                                     "  }");
    assert_string_equal(pretty("[\"x\"]", 2), "[\n      \"x\"\n    ]");
    /* deep nesting beyond the 64-space indent chunk */
    const char *deep = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]";
    const char *s = pretty(deep, 0);
    const char *one = strchr(s, '1');
    assert_non_null(one);
    size_t spaces = 0;
    while (one - spaces > s && one[-(long)spaces - 1] == ' ')
        spaces++;
    assert_int_equal(spaces, 72);
    assert_int_equal(s[out.len - 1], ']');
    assert_int_not_equal(s[out.len - 2], ' ');
}

static void test_appends(void **state)
{
    (void)state;
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_adds(&b, "x=");
    struct tl_json v = parse("{\"a\":[1]}");
    tl_json_write_compact(&b, &v);
    tl_buf_adds(&b, ";");
    tl_json_write_pretty(&b, &v, 0);
    assert_string_equal(b.buf, "x={\"a\":[1]};{\n  \"a\": [\n    1\n  ]\n}");
    assert_int_equal(b.len, strlen(b.buf));
    tl_buf_release(&b);
}

static void test_sort_and_duplicates(void **state)
{
    (void)state;
    /* bytewise order: shorter prefix first, uppercase before lowercase,
     * non-ASCII after ASCII, the empty key first */
    assert_string_equal(
        compact("{\"b\":1,\"ab\":2,\"a\":3,\"B\":4,\"\xc3\xa9\":5,\"\":6,\"a0\":7}"),
        "{\"\":6,\"B\":4,\"a\":3,\"a0\":7,\"ab\":2,\"b\":1,\"\xc3\xa9\":5}");
    /* the last duplicate wins and is written once */
    assert_string_equal(compact("{\"a\":1,\"b\":2,\"a\":3}"), "{\"a\":3,\"b\":2}");
    assert_string_equal(compact("{\"a\":1,\"a\":2,\"a\":3}"), "{\"a\":3}");
    assert_string_equal(compact("{\"z\":{\"y\":1,\"x\":2},\"z\":{\"w\":0}}"), "{\"z\":{\"w\":0}}");
    assert_string_equal(pretty("{\"a\":1,\"a\":[2]}", 0), "{\n  \"a\": [\n    2\n  ]\n}");
    /* keys are compared decoded, and escapes are normalised on output */
    assert_string_equal(compact("{\"\\u0061\":1,\"a\":2}"), "{\"a\":2}");
    assert_string_equal(compact("{\"a\":2,\"\\u0061\":1}"), "{\"a\":1}");
    /* a NUL inside a key sorts before any other byte */
    assert_string_equal(compact("{\"a\\u0001\":1,\"a\\u0000\":2,\"a\":3}"),
                        "{\"a\":3,\"a\\u0000\":2,\"a\\u0001\":1}");
}

/* Objects with many members (heap index array, merge passes) against a
 * reference: qsort of the distinct keys, with the value of the last one. */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a;
    int y = *(const int *)b;
    char kx[16];
    char ky[16];
    snprintf(kx, sizeof(kx), "k%d", x);
    snprintf(ky, sizeof(ky), "k%d", y);
    return strcmp(kx, ky);
}

static void test_sort_large(void **state)
{
    (void)state;
    for (int n = 1; n <= 600; n = n * 3 + 1) {
        struct tl_buf in = TL_BUF_INIT;
        int *keys = calloc((size_t)n, sizeof(int));
        int *last = calloc((size_t)n, sizeof(int));
        int *seen = calloc((size_t)n, sizeof(int));
        assert_non_null(keys);
        assert_non_null(last);
        assert_non_null(seen);
        uint32_t r = 12345u + (uint32_t)n;
        int distinct = 0;
        tl_buf_addch(&in, '{');
        for (int i = 0; i < n; i++) {
            r = r * 1103515245u + 12345u;
            int k = (int)((r >> 8) % (unsigned)(n / 2 + 1));
            tl_buf_addf(&in, "%s\"k%d\":%d", i ? "," : "", k, i);
            if (!seen[k])
                keys[distinct++] = k;
            seen[k] = 1;
            last[k] = i;
        }
        tl_buf_addch(&in, '}');
        qsort(keys, (size_t)distinct, sizeof(int), cmp_int);
        struct tl_buf want = TL_BUF_INIT;
        tl_buf_addch(&want, '{');
        for (int i = 0; i < distinct; i++)
            tl_buf_addf(&want, "%s\"k%d\":%d", i ? "," : "", keys[i], last[keys[i]]);
        tl_buf_addch(&want, '}');
        assert_string_equal(compact(in.buf), want.buf);
        tl_buf_release(&in);
        tl_buf_release(&want);
        free(keys);
        free(last);
        free(seen);
        tl_arena_reset(&arena);
    }
}

static void test_strings(void **state)
{
    (void)state;
    static const char raw[] = "q\"b\\s/\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 end";
    tl_buf_reset(&out);
    tl_json_write_string(&out, raw, sizeof(raw) - 1);
    assert_string_equal(out.buf, "\"q\\\"b\\\\s/\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 end\"");

    /* every control character */
    char ctl[32];
    for (int i = 0; i < 32; i++)
        ctl[i] = (char)i;
    tl_buf_reset(&out);
    tl_json_write_string(&out, ctl, sizeof(ctl));
    assert_string_equal(out.buf, "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007"
                                 "\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
                                 "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
                                 "\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\"");
    tl_buf_reset(&out);
    tl_json_write_string(&out, "", 0);
    assert_string_equal(out.buf, "\"\"");
    /* escapes are decoded on input and re-escaped serde's way */
    assert_string_equal(compact("\"\\u001F\\u000a\\/\\u0041\\ud83d\\ude00\\u2028\""),
                        "\"\\u001f\\n/A\xf0\x9f\x98\x80\xe2\x80\xa8\"");
    /* a long string with escapes at both ends */
    char longs[300];
    memset(longs, 'x', sizeof(longs));
    longs[0] = '\n';
    longs[299] = '"';
    tl_buf_reset(&out);
    tl_json_write_string(&out, longs, sizeof(longs));
    assert_int_equal(out.len, 300 + 2 + 2);
    assert_memory_equal(out.buf, "\"\\nxxx", 6);
    assert_memory_equal(out.buf + out.len - 5, "xx\\\"\"", 5);
}

/* Our own documents' strings: nothing a terminal obeys, valid UTF-8, the same text. */
static void test_text(void **state)
{
    (void)state;
    static const char in[] = "\x1b[2J \x7f \xc2\x9b"
                             "31m \xc2\x9d\xc2\x80\xc2\x9f \xc2\xa0\xc4\x9b"
                             " \x9b"
                             "2J \xc3( \"q\" \xe2\x82\xac";
    tl_buf_reset(&out);
    tl_json_write_text(&out, in, sizeof(in) - 1);
    assert_string_equal(out.buf, "\"\\u001b[2J \\u007f \\u009b31m \\u009d\\u0080\\u009f "
                                 "\xc2\xa0\xc4\x9b \xef\xbf\xbd"
                                 "2J \xef\xbf\xbd( \\\"q\\\" "
                                 "\xe2\x82\xac\"");
    /* what reads back is the text (ill-formed bytes repaired) */
    assert_string_equal(compact(out.buf), "\"\\u001b[2J \x7f \xc2\x9b"
                                          "31m \xc2\x9d\xc2\x80\xc2\x9f "
                                          "\xc2\xa0\xc4\x9b \xef\xbf\xbd"
                                          "2J \xef\xbf\xbd( "
                                          "\\\"q\\\" \xe2\x82\xac\"");
    /* without any: as tl_json_write_string */
    tl_buf_reset(&out);
    tl_json_write_text(&out, "a\nb\xc3\xa9", 5);
    assert_string_equal(out.buf, "\"a\\nb\xc3\xa9\"");
    tl_buf_reset(&out);
    tl_json_write_text(&out, "", 0);
    assert_string_equal(out.buf, "\"\"");
}

/* The obvious escaper, a byte at a time, to check the fast one against. */
static void escape_slow(struct tl_buf *o, const unsigned char *p, size_t n)
{
    tl_buf_addch(o, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == '"' || c == '\\')
            tl_buf_addf(o, "\\%c", c);
        else if (c == '\b')
            tl_buf_adds(o, "\\b");
        else if (c == '\t')
            tl_buf_adds(o, "\\t");
        else if (c == '\n')
            tl_buf_adds(o, "\\n");
        else if (c == '\f')
            tl_buf_adds(o, "\\f");
        else if (c == '\r')
            tl_buf_adds(o, "\\r");
        else if (c < 0x20)
            tl_buf_addf(o, "\\u%04x", c);
        else
            tl_buf_addch(o, (char)c);
    }
    tl_buf_addch(o, '"');
}

static void test_strings_random(void **state)
{
    (void)state;
    /* every length around the 16-byte steps, stops anywhere */
    srand(11);
    struct tl_buf want = TL_BUF_INIT;
    unsigned char src[128];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(rand() % 70);
        for (size_t i = 0; i < sizeof(src); i++) {
            int r = rand() % 16;
            src[i] = r == 0   ? (unsigned char)(rand() % 0x20)
                     : r == 1 ? '"'
                     : r == 2 ? '\\'
                     : r == 3 ? (unsigned char)(0x80 + rand() % 0x80)
                              : (unsigned char)('a' + rand() % 26);
        }
        /* exactly n bytes on the heap: ASan sees any read past the end */
        unsigned char *exact = malloc(n ? n : 1);
        assert_non_null(exact);
        memcpy(exact, src, n);
        tl_buf_reset(&out);
        tl_buf_adds(&out, "pre");
        tl_json_write_string(&out, (const char *)exact, n);
        free(exact);
        tl_buf_reset(&want);
        tl_buf_adds(&want, "pre");
        escape_slow(&want, src, n);
        assert_int_equal(out.len, want.len);
        assert_memory_equal(out.buf, want.buf, want.len);
    }
    tl_buf_release(&want);
}

/* A parsed string written through its source's bytes (json.h, src) and written escaped from
 * its decoded bytes: the same text, for every kind of escape; the source is kept exactly when
 * it is that text. */
static void check_source(const char *lit, size_t n, bool kept)
{
    struct tl_json v;
    struct tl_json_error err = {0, NULL};
    if (tl_json_parse(&arena, lit, n, &v, &err) != 0)
        fail_msg("parse of '%s' failed at %zu: %s", lit, err.offset, err.msg);
    assert_int_equal(v.type, TL_JSON_STRING);
    if ((v.u.src.p != NULL) != kept)
        fail_msg("%s: source %s", lit, kept ? "not kept" : "kept");
    struct tl_json fresh = v;
    tl_json_set_string(&fresh, v.u.str);
    assert_null(fresh.u.src.p);
    struct tl_buf want = TL_BUF_INIT;
    tl_json_write_compact(&want, &fresh);
    tl_buf_reset(&out);
    tl_json_write_pretty(&out, &v, 0);
    assert_int_equal(out.len, want.len);
    assert_memory_equal(out.buf, want.buf, want.len);
    if (kept) { /* the literal itself */
        assert_int_equal(out.len, n);
        assert_memory_equal(out.buf, lit, n);
        assert_ptr_equal(v.u.src.p, lit + 1);
    }
    tl_buf_release(&want);
}

static void test_strings_written_from_source(void **state)
{
    (void)state;
    static const struct {
        const char *lit;
        bool kept;
    } cases[] = {
        {"\"\"", true},
        {"\"plain text\"", true},
        {"\"q\\\"b\\\\s\"", true},
        {"\"\\b\\f\\n\\r\\t\"", true},
        {"\"a\\/b\"", false},                       /* serde writes '/' raw */
        {"\"\\u0000\\u0001\\u001f\\u000b\"", true}, /* serde's own \u00XX */
        {"\"\\u001F\"", false},                     /* upper-case hex */
        {"\"\\u0008\"", false},                     /* short forms: \b \t \n \f \r */
        {"\"\\u0009\"", false},
        {"\"\\u000a\"", false},
        {"\"\\u000c\"", false},
        {"\"\\u000d\"", false},
        {"\"\\u0020\"", false}, /* printable ASCII, raw */
        {"\"\\u0022\"", false}, /* \" */
        {"\"\\u005c\"", false}, /* \\ */
        {"\"\\u007f\"", false}, /* DEL, raw */
        {"\"\\u00e9\\u4e2d\"", false},
        {"\"\\ud83d\\ude00\"", false},                   /* a surrogate pair */
        {"\"caf\xc3\xa9 \xf0\x9f\x98\x80 \x7f\"", true}, /* raw UTF-8 and DEL */
        {"\"long \\\"quoted\\\" text\\nwith lines\\n\\ttabbed\\u0002 and more\"", true},
        {"\"long \\\"quoted\\\" text\\nwith lines\\n\\ttabbed\\u0002 and \\/more\"", false},
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++)
        check_source(cases[i].lit, strlen(cases[i].lit), cases[i].kept);
    /* every \u00XX below 0x20, in both cases of hex digit */
    for (unsigned c = 0; c < 0x20; c++) {
        char lit[16];
        bool short_form = c == 8 || c == 9 || c == 10 || c == 12 || c == 13;
        snprintf(lit, sizeof(lit), "\"\\u%04x\"", c);
        check_source(lit, strlen(lit), !short_form);
        snprintf(lit, sizeof(lit), "\"\\u%04X\"", c);
        check_source(lit, strlen(lit), !short_form && (c & 15) < 10); /* no letter: the same */
    }
    /* random strings of every kind of piece: kept exactly when every piece is serde's */
    static const struct {
        const char *piece;
        bool serde;
    } pieces[] = {
        {"abc", true},      {"\\\"", true},         {"\\\\", true},     {"\\/", false},
        {"\\b", true},      {"\\f", true},          {"\\n", true},      {"\\r", true},
        {"\\t", true},      {"\\u0001", true},      {"\\u001e", true},  {"\\u001E", false},
        {"\\u000A", false}, {"\\u0041", false},     {"\\u00ff", false}, {"\\ud800\\udc00", false},
        {"\xc3\xa9", true}, {"\xe4\xb8\xad", true}, {"\x7f", true},     {"0123456789abcdef", true},
    };
    struct tl_buf lit = TL_BUF_INIT;
    srand(7);
    for (int round = 0; round < 5000; round++) {
        tl_buf_reset(&lit);
        tl_buf_addch(&lit, '"');
        bool serde = true;
        int k = rand() % 12;
        for (int j = 0; j < k; j++) {
            size_t x = (size_t)rand() % TL_ARRAY_LEN(pieces);
            tl_buf_adds(&lit, pieces[x].piece);
            serde = serde && pieces[x].serde;
        }
        tl_buf_addch(&lit, '"');
        check_source(lit.buf, lit.len, serde);
        tl_arena_reset(&arena);
    }
    tl_buf_release(&lit);
    /* inside containers too, and a string made by hand is written escaped */
    assert_string_equal(pretty("[\"a\\/b\", {\"k\": \"\\u0001\\n\"}]", 0),
                        "[\n  \"a/b\",\n  {\n    \"k\": \"\\u0001\\n\"\n  }\n]");
    struct tl_json hand;
    memset(&hand, 0xff, sizeof(hand));
    tl_json_set_string(&hand, TL_STR_LIT("x\ny"));
    tl_buf_reset(&out);
    tl_json_write_compact(&out, &hand);
    assert_string_equal(out.buf, "\"x\\ny\"");
}

/* The script escaper as first written: serde's escapes, then '<' '>' '&' and every non-ASCII
 * character of the (sanitized) text as \u escapes, a character at a time. */
static void script_slow(struct tl_buf *o, const unsigned char *p, size_t n)
{
    struct tl_buf clean = TL_BUF_INIT;
    struct tl_buf json = TL_BUF_INIT;
    tl_utf8_sanitize(&clean, (const char *)p, n);
    tl_json_write_string(&json, clean.buf, clean.len);
    const unsigned char *s = (const unsigned char *)json.buf;
    for (size_t i = 0; i < json.len;) {
        size_t k = 1;
        if (s[i] == '<' || s[i] == '>' || s[i] == '&') {
            tl_buf_addf(o, "\\u%04x", s[i]);
        } else if (s[i] >= 0x80) {
            k = s[i] >= 0xF0 ? 4 : s[i] >= 0xE0 ? 3 : 2;
            uint32_t cp = s[i] & (0x7Fu >> k);
            for (size_t j = 1; j < k; j++)
                cp = cp << 6 | (s[i + j] & 0x3Fu);
            if (cp >= 0x10000)
                tl_buf_addf(o, "\\u%04x\\u%04x", (unsigned)(0xD800 + ((cp - 0x10000) >> 10)),
                            (unsigned)(0xDC00 + ((cp - 0x10000) & 0x3FF)));
            else
                tl_buf_addf(o, "\\u%04x", (unsigned)cp);
        } else {
            tl_buf_addch(o, (char)s[i]);
        }
        i += k;
    }
    tl_buf_release(&json);
    tl_buf_release(&clean);
}

static void test_script(void **state)
{
    (void)state;
    static const struct io_case cases[] = {
        {"", "\"\""},
        {"plain/text 'q' `t`", "\"plain/text 'q' `t`\""},
        {"</script><!--&", "\"\\u003c/script\\u003e\\u003c!--\\u0026\""},
        {"\"\\\b\f\n\r\t\x01\x1f\x7f", "\"\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\""},
        {"\xc2\x85\xc3\xa9\xe2\x80\xa8\xe2\x80\xa9\xef\xbf\xbf",
         "\"\\u0085\\u00e9\\u2028\\u2029\\uffff\""},
        {"\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\xf0\x90\x80\x80",
         "\"\\ud83d\\ude00\\udbff\\udfff\\ud800\\udc00\""},
        {"a\xff"
         "b\xe2\x80"
         "c\xc0\xaf"
         "d\xed\xa0\x80"
         "e\xf0\x9f\x98",
         "\"a\\ufffdb\\ufffdc\\ufffdd\\ufffde\\ufffd\""},
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++) {
        tl_buf_reset(&out);
        tl_json_write_script(&out, cases[i].in, strlen(cases[i].in));
        assert_string_equal(out.buf, cases[i].want);
    }
    /* random text: the same bytes as the first escaper, ASCII, and it reads back as the
     * sanitized text */
    srand(13);
    struct tl_buf want = TL_BUF_INIT;
    struct tl_buf got = TL_BUF_INIT;
    struct tl_buf clean = TL_BUF_INIT;
    unsigned char src[128];
    static const char *const pieces[] = {
        "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "\xc3\xa9", "</", "&", ">", "\xe2\x80", "\xf0\x9f"};
    for (int round = 0; round < 20000; round++) {
        size_t n = 0;
        size_t len = (size_t)(rand() % 60);
        while (n < len) {
            int r = rand() % 12;
            if (r < 8) {
                const char *piece = pieces[rand() % 8];
                memcpy(src + n, piece, strlen(piece));
                n += strlen(piece);
            } else {
                src[n++] = r == 8    ? (unsigned char)(rand() % 0x20)
                           : r == 9  ? (unsigned char)(0x7f + rand() % 0x81)
                           : r == 10 ? '"'
                                     : (unsigned char)('a' + rand() % 26);
            }
        }
        unsigned char *exact = malloc(n ? n : 1);
        assert_non_null(exact);
        memcpy(exact, src, n);
        tl_buf_reset(&got);
        tl_json_write_script(&got, (const char *)exact, n);
        free(exact);
        tl_buf_reset(&want);
        script_slow(&want, src, n);
        assert_int_equal(got.len, want.len);
        assert_memory_equal(got.buf, want.buf, want.len);
        for (size_t i = 0; i < got.len; i++)
            assert_true((unsigned char)got.buf[i] < 0x80);
        tl_buf_reset(&clean);
        tl_utf8_sanitize(&clean, (const char *)src, n);
        tl_buf_reset(&want);
        tl_json_write_string(&want, clean.buf, clean.len);
        assert_string_equal(compact(got.buf), want.buf);
    }
    tl_buf_release(&clean);
    tl_buf_release(&got);
    tl_buf_release(&want);
}

struct dbl_case {
    double d;
    const char *want;
};

static void test_doubles(void **state)
{
    (void)state;
    /* expectations are ryu's output (checked against Python's repr, which
     * also prints shortest round-trip digits) in serde's layout */
    static const struct dbl_case cases[] = {
        {1.0, "1.0"},
        {0.1, "0.1"},
        {1e21, "1e21"},
        {1e16, "1e16"},
        {1e15, "1000000000000000.0"},
        {123456789012345680.0, "1.2345678901234568e17"},
        {5e-324, "5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e308"},
        {0.001, "0.001"},
        {1e-7, "1e-7"},
        {1e-5, "0.00001"},
        {1e-6, "1e-6"},
        {3.910064697265625e-05, "0.00003910064697265625"},
        {1733527213926572.8, "1733527213926572.8"},
        {1733527213926572.0, "1733527213926572.0"},
        {-2.5, "-2.5"},
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {2.225073858507201e-308, "2.225073858507201e-308"},
        {9007199254740992.0, "9007199254740992.0"},
        {0.3, "0.3"},
        {2.0 / 3.0, "0.6666666666666666"},
        {1.0 / 3.0, "0.3333333333333333"},
        {100.0, "100.0"},
        {12345678.9, "12345678.9"},
        {1e22, "1e22"},
        {1e23, "1e23"},
        {5e-7, "5e-7"},
        {123e-20, "1.23e-18"},
        {0.5, "0.5"},
        {-1e-300, "-1e-300"},
        {4.35, "4.35"},
        {1.5e300, "1.5e300"},
        {1.5e-323, "1.5e-323"},
        {9.223372036854776e18, "9.223372036854776e18"},
        {1.8446744073709552e19, "1.8446744073709552e19"},
        {1e17, "1e17"},
        {9999999999999998.0, "9999999999999998.0"},
        {0.000123, "0.000123"},
        {1.0000000000000002, "1.0000000000000002"},
        {0.30000000000000004, "0.30000000000000004"},
        {1.5000000000000002e-05, "0.000015000000000000002"},
        {6.02214076e23, "6.02214076e23"},
        {299792458.0, "299792458.0"},
        {8.095e-320, "8.095e-320"},
        {8e-323, "8e-323"},
        {1.9999999999999998, "1.9999999999999998"},
        {123456.789e3, "123456789.0"},
        {1.2345678901234567e19, "1.2345678901234567e19"},
        {-123.456, "-123.456"},
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        /* powers of two have an asymmetric rounding interval */
        {0x1p-1022, "2.2250738585072014e-308"},
        {0x1p-1000, "9.332636185032189e-302"},
        {0x1p60, "1.152921504606847e18"},
        {0x1p100, "1.2676506002282294e30"},
        {0x1p-20, "9.5367431640625e-7"},
        {0x1p-14, "0.00006103515625"},
        /* ... where the nearest 16-digit decimal falls outside the narrow
         * lower half and the one above is the answer */
        {0x1p-1017, "7.120236347223045e-307"},
        {0x1p-957, "8.209073602596753e-289"},
        {0x1p-24, "5.960464477539063e-8"},
        {0x1p-44, "5.684341886080802e-14"},
        {0x1p89, "6.189700196426902e26"},
        {0x1p122, "5.316911983139664e36"},
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++) {
        if (strcmp(dbl(cases[i].d), cases[i].want) != 0)
            fail_msg("%.17g: got %s, want %s", cases[i].d, out.buf, cases[i].want);
    }
    assert_string_equal(dbl(NAN), "null");
    assert_string_equal(dbl(INFINITY), "null");
    assert_string_equal(dbl(-INFINITY), "null");
}

/* Shortest check independent of the implementation: no decimal with fewer
 * digits, correctly rounded or one unit off, reads back as d. */
static bool shorter_exists(double d, int ndig)
{
    char buf[64];
    for (int p = 1; p < ndig; p++) {
        snprintf(buf, sizeof(buf), "%.*e", p - 1, d);
        if (strtod(buf, NULL) == d)
            return true;
        /* digits with the point removed, and the exponent */
        char digits[32];
        int n = 0;
        const char *s = buf[0] == '-' ? buf + 1 : buf;
        for (; *s != 'e'; s++)
            if (*s != '.')
                digits[n++] = *s;
        digits[n] = '\0';
        int e = atoi(s + 1);
        long long m = atoll(digits);
        for (int delta = -1; delta <= 1; delta += 2) {
            snprintf(buf, sizeof(buf), "%s%llde%d", d < 0 ? "-" : "", m + delta, e - (p - 1));
            if (strtod(buf, NULL) == d)
                return true;
        }
    }
    return false;
}

/* The significant digits of a decimal in any layout, without trailing zeros. */
static void sig_digits(const char *s, char *dst)
{
    size_t n = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9' || (n == 0 && *s == '0'))
            continue;
        dst[n++] = *s;
    }
    while (n > 1 && dst[n - 1] == '0')
        n--;
    dst[n] = '\0';
}

/* Random doubles: the output reads back exactly, has the layout's shape and
 * no shorter decimal reads back. */
static void test_doubles_random(void **state)
{
    (void)state;
    uint64_t s = 0x243f6a8885a308d3ULL;
    for (int iter = 0; iter < 100000; iter++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        uint64_t bits = s;
        if (iter % 4 == 1)
            bits &= 0x800fffffffffffffULL; /* subnormals */
        else if (iter % 4 == 2)
            bits &= 0xfff0000000000000ULL; /* powers of two */
        else if (iter % 4 == 3)            /* 2^-75 .. 2^53: the 128-bit exact path */
            bits = (bits & 0x800fffffffffffffULL) |
                   (uint64_t)(0x3ff - 75 + (int)((bits >> 52) % 128)) << 52;
        double d;
        memcpy(&d, &bits, sizeof(d));
        if (!isfinite(d) || d == 0)
            continue;
        const char *txt = dbl(d);
        double back = strtod(txt, NULL);
        if (back != d)
            fail_msg("%a printed as %s reads back as %a", d, txt, back);
        /* count significant digits and check the shape */
        int ndig = 0;
        bool seen_nonzero = false;
        bool has_e = strchr(txt, 'e') != NULL;
        const char *p = txt + (txt[0] == '-');
        int trailing_zeros = 0;
        for (; *p && *p != 'e'; p++) {
            if (*p == '.')
                continue;
            assert_true(*p >= '0' && *p <= '9');
            if (*p != '0')
                seen_nonzero = true;
            if (seen_nonzero) {
                ndig++;
                trailing_zeros = *p == '0' ? trailing_zeros + 1 : 0;
            }
        }
        if (has_e) {
            assert_true(p[1] == '-' || (p[1] >= '1' && p[1] <= '9'));
            assert_true(trailing_zeros == 0);
        } else {
            assert_non_null(strchr(txt, '.'));
            assert_true(strlen(txt) < 28);
        }
        assert_true(ndig <= 17);
        int sig = ndig - trailing_zeros;
        if (shorter_exists(d, sig))
            fail_msg("%a printed as %s is not the shortest", d, txt);
        /* if the correctly rounded decimal of that length reads back, it
         * is the one printed (nearest wins) */
        char c0[40];
        snprintf(c0, sizeof(c0), "%.*e", sig - 1, d);
        char want[40];
        char got[40];
        sig_digits(c0, want);
        sig_digits(txt, got);
        if (strtod(c0, NULL) == d && strcmp(want, got) != 0)
            fail_msg("%a printed as %s, nearest is %s", d, txt, c0);
    }
}

static void test_numbers(void **state)
{
    (void)state;
    struct tl_json n = {.type = TL_JSON_NUMBER};
    n.u.num.kind = TL_JSON_UINT;
    n.u.num.u = UINT64_MAX;
    tl_buf_reset(&out);
    tl_json_write_number(&out, &n);
    assert_string_equal(out.buf, "18446744073709551615");
    n.u.num.kind = TL_JSON_INT;
    n.u.num.i = INT64_MIN;
    tl_buf_reset(&out);
    tl_json_write_number(&out, &n);
    assert_string_equal(out.buf, "-9223372036854775808");
    n.u.num.kind = TL_JSON_FLOAT;
    n.u.num.d = 1.0;
    tl_buf_reset(&out);
    tl_json_write_number(&out, &n);
    assert_string_equal(out.buf, "1.0");
    /* a float-typed field prints as a float even when integral */
    n.u.num.d = 8.0;
    tl_buf_reset(&out);
    tl_json_write_number(&out, &n);
    assert_string_equal(out.buf, "8.0");
}

/* Writing, parsing the output and writing again is stable, compact and pretty. */
static void test_round_trip(void **state)
{
    (void)state;
    const char *docs[] = {
        "{\"z\":[1,-2,3.5,1e300,5e-324,\"\\u0000\\n\xc3\xa9\"],\"a\":{\"b\":null,\"a\":true},"
        "\"a\":{\"c\":[[],{}]},\"m\":-0,\"n\":18446744073709551616}",
        "[0.1,0.2,0.30000000000000004,1e16,1e15,123456789012345680]",
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(docs); i++) {
        struct tl_json v = parse(docs[i]);
        struct tl_buf c1 = TL_BUF_INIT;
        struct tl_buf p1 = TL_BUF_INIT;
        struct tl_buf c2 = TL_BUF_INIT;
        struct tl_buf c3 = TL_BUF_INIT;
        tl_json_write_compact(&c1, &v);
        tl_json_write_pretty(&p1, &v, 0);
        struct tl_json w = parse(c1.buf);
        tl_json_write_compact(&c2, &w);
        struct tl_json x = parse(p1.buf);
        tl_json_write_compact(&c3, &x);
        assert_string_equal(c1.buf, c2.buf);
        assert_string_equal(c1.buf, c3.buf);
        tl_buf_release(&c1);
        tl_buf_release(&p1);
        tl_buf_release(&c2);
        tl_buf_release(&c3);
    }
    assert_string_equal(compact(docs[1]), "[0.1,0.2,0.30000000000000004,1e16,"
                                          "1000000000000000.0,123456789012345680]");
}

/* tl_json_doc_f64_exact: every double serde's reader (not correctly rounded) made from a literal
 * is written so that it reads back as that double. */
static void test_f64_exact(void **state)
{
    (void)state;
    /* 1715885247.9018195 is the shortest form of a double serde reads one ulp away. */
    double hard = 1715885247.9018195;
    struct tl_num n;
    assert_int_equal(tl_json_num_parse("1715885247.9018195", 18, &n), 0);
    assert_true(n.d != hard);
    uint64_t seed = 42;
    unsigned fallbacks = 0;
    char last[64] = "";
    for (int i = 0; i < 30000; i++) {
        double v = hard;
        if (i) {
            /* a random literal: 1-25 digits, a point somewhere, an exponent */
            char lit[64];
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int nd = 1 + (int)(seed >> 59) % 25, len = 0;
            for (int k = 0; k < nd; k++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                lit[len++] = (char)('1' + (seed >> 60) % 9);
                if (k == 0 && nd > 1)
                    lit[len++] = '.';
            }
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            len += snprintf(lit + len, sizeof(lit) - (size_t)len, "e%d",
                            (int)((seed >> 40) % 640) - 320);
            if (tl_json_num_parse(lit, (size_t)len, &n) < 0 || n.d == 0 || !isfinite(n.d))
                continue;
            v = n.d;
            memcpy(last, lit, (size_t)len + 1);
        }
        struct tl_buf b = TL_BUF_INIT;
        struct tl_buf shortest = TL_BUF_INIT;
        struct tl_json_doc w;
        tl_json_doc_init(&w, &b, 0);
        tl_json_doc_f64_exact(&w, v);
        tl_json_write_double(&shortest, v);
        fallbacks += strcmp(b.buf, shortest.buf) != 0;
        assert_int_equal(tl_json_num_parse(b.buf, b.len, &n), 0);
        if (memcmp(&n.d, &v, sizeof(v)) != 0)
            fail_msg("%s does not read back as %.17g (from %s)", b.buf, v, last);
        if (i == 0)
            assert_string_equal(b.buf, "17158852479018194e-7");
        tl_buf_release(&b);
        tl_buf_release(&shortest);
    }
    assert_true(fallbacks > 0);
}

/* The document writer: every layout, exact bytes. */
static void test_doc(void **state)
{
    (void)state;
    struct tl_buf b = TL_BUF_INIT;
    struct tl_json_doc w;
    for (int pretty = 0; pretty < 2; pretty++) {
        tl_buf_reset(&b);
        tl_json_doc_init(&w, &b, pretty ? TL_JSON_DOC_PRETTY : 0);
        tl_json_doc_object(&w);
        tl_json_doc_kstr(&w, "s", "a\x7f\"");
        tl_json_doc_key(&w, "empty");
        tl_json_doc_array(&w);
        tl_json_doc_end(&w, ']');
        tl_json_doc_key(&w, "inline");
        tl_json_doc_array_inline(&w);
        tl_json_doc_u64(&w, 1);
        tl_json_doc_u64(&w, 3);
        tl_json_doc_end(&w, ']');
        tl_json_doc_key(&w, "a");
        tl_json_doc_array(&w);
        tl_json_doc_null(&w);
        tl_json_doc_bool(&w, true);
        tl_json_doc_f64(&w, 0.5);
        tl_json_doc_str(&w, NULL);
        struct tl_json v = parse("{\"z\": 1, \"y\": [2]}");
        tl_json_doc_value(&w, &v);
        tl_json_doc_end(&w, ']');
        tl_json_doc_key(&w, "raw");
        tl_json_doc_raw(&w, pretty ? "{\n  \"k\": [\n    1\n  ]\n}\n\n" : "{\"k\":[1]}");
        tl_json_doc_end(&w, '}');
        if (pretty)
            assert_string_equal(b.buf, "{\n"
                                       "  \"s\": \"a\\u007f\\\"\",\n"
                                       "  \"empty\": [],\n"
                                       "  \"inline\": [1, 3],\n"
                                       "  \"a\": [\n"
                                       "    null,\n"
                                       "    true,\n"
                                       "    0.5,\n"
                                       "    null,\n"
                                       "    {\n"
                                       "      \"y\": [\n"
                                       "        2\n"
                                       "      ],\n"
                                       "      \"z\": 1\n"
                                       "    }\n"
                                       "  ],\n"
                                       "  \"raw\": {\n"
                                       "    \"k\": [\n"
                                       "      1\n"
                                       "    ]\n"
                                       "  }\n"
                                       "}");
        else
            assert_string_equal(b.buf, "{\"s\":\"a\\u007f\\\"\",\"empty\":[],\"inline\":[1, 3],"
                                       "\"a\":[null,true,0.5,null,{\"y\":[2],\"z\":1}],"
                                       "\"raw\":{\"k\":[1]}}");
    }

    /* serde's strings: DEL and C1 raw, ill-formed UTF-8 as it is */
    tl_buf_reset(&b);
    tl_json_doc_init(&w, &b, TL_JSON_DOC_SERDE_STRINGS);
    tl_json_doc_array(&w);
    tl_json_doc_str(&w, "\x7f\xc2\x85\xff\n");
    tl_json_doc_end(&w, ']');
    assert_string_equal(b.buf, "[\"\x7f\xc2\x85\xff\\n\"]");
    tl_buf_reset(&b);
    tl_json_doc_init(&w, &b, 0);
    tl_json_doc_str(&w, "\x7f\xc2\x85\xff");
    assert_string_equal(b.buf, "\"\\u007f\\u0085\xef\xbf\xbd\"");

    /* script-safe strings (which win over serde's), keys as always; signed integers */
    tl_buf_reset(&b);
    tl_json_doc_init(&w, &b, TL_JSON_DOC_SCRIPT_STRINGS | TL_JSON_DOC_SERDE_STRINGS);
    tl_json_doc_object(&w);
    tl_json_doc_kstr(&w, "<k>", "</script>\x7f\xc2\x85\xff");
    tl_json_doc_ki64(&w, "min", INT64_MIN);
    tl_json_doc_ki64(&w, "max", INT64_MAX);
    tl_json_doc_key(&w, "a");
    tl_json_doc_array(&w);
    tl_json_doc_i64(&w, -1);
    tl_json_doc_i64(&w, 0);
    tl_json_doc_end(&w, ']');
    tl_json_doc_end(&w, '}');
    assert_string_equal(b.buf, "{\"<k>\":\"\\u003c/script\\u003e\x7f\\u0085\\ufffd\","
                               "\"min\":-9223372036854775808,\"max\":9223372036854775807,"
                               "\"a\":[-1,0]}");

    /* an array written in pieces: a spool of items placed after a separator */
    struct tl_buf spool = TL_BUF_INIT;
    struct tl_json_doc sw;
    tl_json_doc_init_items(&sw, &spool, TL_JSON_DOC_PRETTY, 1);
    tl_json_doc_object(&sw);
    tl_json_doc_ku64(&sw, "n", 1);
    tl_json_doc_end(&sw, '}');
    tl_json_doc_u64(&sw, 2);
    tl_buf_reset(&b);
    tl_json_doc_init(&w, &b, TL_JSON_DOC_PRETTY);
    tl_json_doc_array(&w);
    tl_json_doc_u64(&w, 0);
    tl_json_doc_next(&w);
    tl_buf_addbuf(&b, &spool);
    tl_json_doc_u64(&w, 3);
    tl_json_doc_end(&w, ']');
    assert_string_equal(b.buf, "[\n  0,\n  {\n    \"n\": 1\n  },\n  2,\n  3\n]");

    /* a key longer than one reservation, and the deepest nesting */
    size_t big = 200000;
    char *key = malloc(big + 1);
    assert_non_null(key);
    for (size_t i = 0; i < big; i++)
        key[i] = i % 1000 ? 'k' : '\n';
    key[big] = '\0';
    tl_buf_reset(&b);
    tl_json_doc_init(&w, &b, 0);
    tl_json_doc_object(&w);
    tl_json_doc_ku64(&w, key, 7);
    tl_json_doc_end(&w, '}');
    assert_int_equal(b.len, 1 + 1 + big + big / 1000 + 1 + 1 + 1 + 1);
    assert_memory_equal(b.buf, "{\"\\nkk", 6);
    assert_string_equal(b.buf + b.len - 5, "k\":7}");
    free(key);
    tl_buf_reset(&b);
    tl_json_doc_init(&w, &b, TL_JSON_DOC_PRETTY);
    int deepest = TL_JSON_DOC_MAX_DEPTH - 1;
    for (int i = 0; i < deepest; i++)
        tl_json_doc_array(&w);
    tl_json_doc_u64(&w, 5);
    for (int i = 0; i < deepest; i++)
        tl_json_doc_end(&w, ']');
    assert_int_equal(b.len, 2 * (size_t)deepest * (size_t)deepest + 4 * (size_t)deepest + 1);
    assert_int_equal(b.buf[b.len - 1], ']');
    tl_buf_release(&spool);
    tl_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact),
        cmocka_unit_test(test_pretty),
        cmocka_unit_test(test_appends),
        cmocka_unit_test(test_sort_and_duplicates),
        cmocka_unit_test(test_sort_large),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_strings_random),
        cmocka_unit_test(test_strings_written_from_source),
        cmocka_unit_test(test_script),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_doubles_random),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_f64_exact),
        cmocka_unit_test(test_doc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
