/* SPDX-License-Identifier: BSD-3-Clause */
#include "base/config.h"
#include "base/json.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/json_num.h"
#include "serde_ref.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

static struct tl_arena arena;

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
    return 0;
}

/* Parse a NUL-terminated text that must be valid. */
static struct tl_json parse_ok(const char *text)
{
    struct tl_json v;
    struct tl_json_error err = {0, NULL};
    int rc = tl_json_parse(&arena, text, strlen(text), &v, &err);
    if (rc != 0)
        fail_msg("parse of '%s' failed at %zu: %s", text, err.offset, err.msg);
    return v;
}

/* Parse text[0..n) from an exactly sized heap copy, so ASan sees any overread. */
static int parse_exact(const char *text, size_t n, struct tl_json *v, struct tl_json_error *err)
{
    char *copy = malloc(n ? n : 1);
    assert_non_null(copy);
    memcpy(copy, text, n);
    int rc = tl_json_parse(&arena, copy, n, v, err);
    /* Strings may point into the copy; callers here only inspect the result
     * kind and error, so drop the views before freeing. */
    if (rc == 0 &&
        (v->type == TL_JSON_STRING || v->type == TL_JSON_ARRAY || v->type == TL_JSON_OBJECT))
        v->type = TL_JSON_NULL;
    free(copy);
    return rc;
}

struct err_case {
    const char *text;
    size_t len; /* 0: strlen(text) */
    size_t offset;
    const char *msg;
};

static void check_errors(const struct err_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct err_case *c = &cases[i];
        size_t len = c->len ? c->len : strlen(c->text);
        struct tl_json v;
        struct tl_json_error err = {999, NULL};
        int rc = parse_exact(c->text, len, &v, &err);
        if (rc != -1)
            fail_msg("case %zu '%s' parsed but should fail", i, c->text);
        if (!err.msg || strcmp(err.msg, c->msg) != 0 || err.offset != c->offset)
            fail_msg("case %zu '%s': got \"%s\" at %zu, want \"%s\" at %zu", i, c->text,
                     err.msg ? err.msg : "(null)", err.offset, c->msg, c->offset);
        assert_int_equal(v.type, TL_JSON_NULL);
    }
}

static void test_literals(void **state)
{
    (void)state;
    struct tl_json v = parse_ok("null");
    assert_int_equal(v.type, TL_JSON_NULL);
    assert_true(tl_json_is_null(&v));
    assert_true(tl_json_is_null(NULL));
    v = parse_ok("true");
    assert_int_equal(v.type, TL_JSON_BOOL);
    assert_true(v.u.b);
    assert_false(tl_json_is_null(&v));
    v = parse_ok(" \t\r\nfalse \n");
    assert_int_equal(v.type, TL_JSON_BOOL);
    assert_false(v.u.b);
}

/*
 * True when the literal text[0..n) is in Clinger's exact range: its digits
 * (leading zeros dropped) form an integer m <= 2^53 and its decimal exponent
 * e (the exponent minus the number of fraction digits) has |e| <= 22. Then m
 * and 10^|e| are exact doubles and serde_json's one multiply or divide is
 * the only rounding, so its value is the correctly rounded one: strtod's.
 */
static bool exact_range(const char *text, size_t n)
{
    const uint64_t limit = 1ULL << 53;
    size_t i = 0;
    uint64_t m = 0;
    long e = 0;
    bool fraction = false;
    if (i < n && text[i] == '-')
        i++;
    for (; i < n && (text[i] == '.' || (text[i] >= '0' && text[i] <= '9')); i++) {
        if (text[i] == '.') {
            fraction = true;
            continue;
        }
        m = m * 10 + (uint64_t)(text[i] - '0'); /* m <= 2^53 before: no overflow */
        if (m > limit)
            return false;
        if (fraction)
            e--;
    }
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        bool neg = i < n && text[i] == '-';
        if (i < n && (text[i] == '-' || text[i] == '+'))
            i++;
        long x = 0;
        for (; i < n && text[i] >= '0' && text[i] <= '9'; i++)
            if (x < 1000)
                x = x * 10 + (text[i] - '0');
        e += neg ? -x : x;
    }
    return e >= -22 && e <= 22;
}

/*
 * The number v that tl_json_parse made of the literal text[0..n) (rc and err
 * are what it returned) is serde_json's: the same as tl_json_num_parse and as
 * the independent model in serde_ref.h, including an out-of-range error.
 */
static void check_serde_number(const char *text, size_t n, int rc, const struct tl_json *v,
                               const struct tl_json_error *err)
{
    struct serde_ref_num ref;
    int ref_rc = serde_ref_parse(text, n, &ref);
    struct tl_num num;
    int num_rc = tl_json_num_parse(text, n, &num);
    if (ref_rc == SERDE_INVALID)
        fail_msg("test bug: '%.*s' is not a JSON number", (int)n, text);
    if (num_rc != ref_rc)
        fail_msg("'%.*s': tl_json_num_parse rc %d, serde model %d", (int)n, text, num_rc, ref_rc);
    if (ref_rc == SERDE_OUT_OF_RANGE) {
        if (rc != -1 || strcmp(err->msg, "number out of range") != 0)
            fail_msg("'%.*s': parsed, but serde_json says out of range", (int)n, text);
        return;
    }
    if (rc != 0)
        fail_msg("'%.*s' failed: %s", (int)n, text, err->msg);
    assert_int_equal(v->type, TL_JSON_NUMBER);
    enum tl_json_num_kind kind = ref.kind == SERDE_U64   ? TL_JSON_UINT
                                 : ref.kind == SERDE_I64 ? TL_JSON_INT
                                                         : TL_JSON_FLOAT;
    double want = ref.kind == SERDE_U64   ? (double)ref.u
                  : ref.kind == SERDE_I64 ? (double)ref.i
                                          : ref.f;
    if (v->u.num.kind != kind)
        fail_msg("'%.*s': kind %d, serde model %d", (int)n, text, v->u.num.kind, ref.kind);
    if ((kind == TL_JSON_UINT && v->u.num.u != ref.u) ||
        (kind == TL_JSON_INT && v->u.num.i != ref.i))
        fail_msg("'%.*s': integer differs from the serde model", (int)n, text);
    if (!tu_same_bits(v->u.num.d, want))
        fail_msg("'%.*s': %.17g (%a), serde model %.17g (%a)", (int)n, text, v->u.num.d, v->u.num.d,
                 want, want);
    if (!tu_same_bits(v->u.num.d, num.d))
        fail_msg("'%.*s': %.17g (%a), tl_json_num_parse %.17g (%a)", (int)n, text, v->u.num.d,
                 v->u.num.d, num.d, num.d);
}

struct num_case {
    const char *text;
    enum tl_json_num_kind kind;
    uint64_t u;
    int64_t i;
    double d;
    /* false: d is also strtod's value (integers, and floats in the exact
     * range); true: a float outside it, d derived by hand from serde_json's
     * algorithm (significand as a double, then one multiply or divide). */
    bool serde;
};

static void test_number_kinds(void **state)
{
    (void)state;
    static const struct num_case cases[] = {
        {"0", TL_JSON_UINT, 0, 0, 0.0, false},
        {"7", TL_JSON_UINT, 7, 0, 7.0, false},
        {"1733527213", TL_JSON_UINT, 1733527213, 0, 1733527213.0, false},
        {"18446744073709551615", TL_JSON_UINT, UINT64_MAX, 0, 18446744073709551615.0, false},
        {"9223372036854775808", TL_JSON_UINT, 9223372036854775808ULL, 0, 9223372036854775808.0,
         false},
        {"-1", TL_JSON_INT, 0, -1, -1.0, false},
        {"-42", TL_JSON_INT, 0, -42, -42.0, false},
        {"-9223372036854775808", TL_JSON_INT, 0, INT64_MIN, -9223372036854775808.0, false},
        {"-9223372036854775807", TL_JSON_INT, 0, -INT64_MAX, -9223372036854775807.0, false},
        {"9007199254740993", TL_JSON_UINT, 9007199254740993ULL, 0, 9007199254740992.0, false},
        /* out of integer range: floats */
        {"18446744073709551616", TL_JSON_FLOAT, 0, 0, 1844674407370955161.0 * 1e1, true},
        {"-9223372036854775809", TL_JSON_FLOAT, 0, 0, -9223372036854775809.0, true},
        {"123456789012345678901234567890", TL_JSON_FLOAT, 0, 0, 12345678901234567890.0 * 1e10,
         true},
        /* fractions and exponents are floats even when integral */
        {"1.0", TL_JSON_FLOAT, 0, 0, 1.0, false},
        {"1e2", TL_JSON_FLOAT, 0, 0, 100.0, false},
        {"1E2", TL_JSON_FLOAT, 0, 0, 100.0, false},
        {"1e+2", TL_JSON_FLOAT, 0, 0, 100.0, false},
        {"1e-2", TL_JSON_FLOAT, 0, 0, 0.01, false},
        {"-2.5", TL_JSON_FLOAT, 0, 0, -2.5, false},
        {"0.1", TL_JSON_FLOAT, 0, 0, 0.1, false},
        {"3.910064697265625e-05", TL_JSON_FLOAT, 0, 0, 3.910064697265625e-05, false},
        {"8.41e21", TL_JSON_FLOAT, 0, 0, 8.41e21, false},
        {"1733527213926572.8", TL_JSON_FLOAT, 0, 0, 17335272139265728.0 / 1e1, true},
        {"1.7976931348623157e308", TL_JSON_FLOAT, 0, 0, 17976931348623157.0 * 1e292, true},
        {"5e-324", TL_JSON_FLOAT, 0, 0, 5.0 / 1e308 / 1e16, true},
        {"1e-400", TL_JSON_FLOAT, 0, 0, 0.0, true},
        {"0e99999999999999999999", TL_JSON_FLOAT, 0, 0, 0.0, true},
        {"1.00000000000000000000000000001", TL_JSON_FLOAT, 0, 0, 1.0, true},
        {"1e23", TL_JSON_FLOAT, 0, 0, 1e23, true},
        /* 1844674407370955161 fills u64, '9' only counts, yet the fraction's
         * '0' still fits: 18446744073709551610 / 1e19 (see test_json_num.c) */
        {"18446744073709551619.0e-19", TL_JSON_FLOAT, 0, 0, 18446744073709551610.0 / 1e19, true},
        /* Not correctly rounded, like the reference: strtod gives 1e-30,
         * 9007199254740992, 2.2250738585072009e-308 (the largest subnormal)
         * and 1715885247.9018195 (the reference prints 1715885247.9018197). */
        {"0.000000000000000000000000000001", TL_JSON_FLOAT, 0, 0, 1.0 / 1e30, true},
        {"9007199254740993.0", TL_JSON_FLOAT, 0, 0, 9007199254740994.0, true},
        {"2.2250738585072011e-308", TL_JSON_FLOAT, 0, 0, 2.2250738585072014e-308, true},
        {"1715885247.9018195", TL_JSON_FLOAT, 0, 0, 1715885247.9018197, true},
    };
    int not_strtod = 0;
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++) {
        const struct num_case *c = &cases[i];
        size_t n = strlen(c->text);
        struct tl_json v = parse_ok(c->text);
        assert_int_equal(v.type, TL_JSON_NUMBER);
        if (v.u.num.kind != c->kind)
            fail_msg("'%s': kind %d, want %d", c->text, v.u.num.kind, c->kind);
        if (c->kind == TL_JSON_UINT)
            assert_true(v.u.num.u == c->u);
        if (c->kind == TL_JSON_INT)
            assert_true(v.u.num.i == c->i);
        if (!tu_same_bits(v.u.num.d, c->d))
            fail_msg("'%s': d = %.17g, want %.17g", c->text, v.u.num.d, c->d);
        if (c->kind == TL_JSON_FLOAT && exact_range(c->text, n) == c->serde)
            fail_msg("test bug: '%s' is %sin the exact range", c->text, c->serde ? "" : "not ");
        double s = strtod(c->text, NULL);
        if (!c->serde && !tu_same_bits(v.u.num.d, s))
            fail_msg("'%s': d = %.17g, strtod %.17g", c->text, v.u.num.d, s);
        not_strtod += !tu_same_bits(v.u.num.d, s);
        struct tl_json_error err = {0, NULL};
        check_serde_number(c->text, n, 0, &v, &err);
    }
    assert_int_equal(not_strtod, 4); /* the last four cases */
}

/* serde_json turns "-0" into the float -0.0 (it prints back as "-0.0"). */
static void test_negative_zero(void **state)
{
    (void)state;
    const char *texts[] = {"-0", "-0.0", "-0e5", "-0.000"};
    for (size_t i = 0; i < TL_ARRAY_LEN(texts); i++) {
        struct tl_json v = parse_ok(texts[i]);
        assert_int_equal(v.type, TL_JSON_NUMBER);
        assert_int_equal(v.u.num.kind, TL_JSON_FLOAT);
        assert_true(v.u.num.d == 0.0);
        assert_true(signbit(v.u.num.d));
    }
    struct tl_json v = parse_ok("0");
    assert_int_equal(v.u.num.kind, TL_JSON_UINT);
    assert_false(signbit(v.u.num.d));
}

/* Random decimal literals: in the exact range (json.c's fast path) they must
 * parse to exactly what strtod gives; outside it to what serde_json gives,
 * which is sometimes 1 ulp away from strtod. */
static void test_number_rounding(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    char text[96];
    int exact = 0, inexact = 0, not_strtod = 0;
    for (int iter = 0; iter < 200000; iter++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t r = seed >> 11;
        int ndig = 1 + (int)(r % 20);
        int point = (int)((r >> 5) % (unsigned)(ndig + 1));
        int ex = (int)((r >> 10) % 61) - 30;
        if ((r >> 17) % 8 == 0)
            ex = (int)((r >> 20) % 700) - 350;
        size_t o = 0;
        if ((r >> 30) & 1)
            text[o++] = '-';
        uint64_t dseed = seed ^ (seed >> 29);
        for (int k = 0; k < ndig; k++) {
            dseed = dseed * 2862933555777941757ULL + 3037000493ULL;
            int dig = (int)((dseed >> 33) % 10);
            if (k == 0 && dig == 0)
                dig = 1 + (int)((dseed >> 40) % 9);
            if (k == point && k > 0)
                text[o++] = '.';
            text[o++] = (char)('0' + dig);
        }
        if ((r >> 31) & 1)
            o += (size_t)snprintf(text + o, sizeof(text) - o, "e%d", ex);
        text[o] = '\0';
        double want = strtod(text, NULL);
        struct tl_json v;
        struct tl_json_error err = {0, NULL};
        int rc = tl_json_parse(&arena, text, o, &v, &err);
        check_serde_number(text, o, rc, &v, &err);
        if (exact_range(text, o)) {
            exact++;
            if (rc != 0 || !tu_same_bits(v.u.num.d, want))
                fail_msg("'%s': got %.17g want %.17g (strtod)", text, v.u.num.d, want);
        } else {
            inexact++;
            not_strtod += rc == 0 && !tu_same_bits(v.u.num.d, want);
        }
        tl_arena_reset(&arena);
    }
    /* both paths are exercised, and serde's rounding shows */
    assert_true(exact > 50000);
    assert_true(inexact > 50000);
    assert_true(not_strtod > 100);
}

static void test_number_errors(void **state)
{
    (void)state;
    static const struct err_case cases[] = {
        {"01", 0, 1, "invalid number"},
        {"-01", 0, 2, "invalid number"},
        {"00", 0, 1, "invalid number"},
        {"1.", 0, 2, "invalid number"},
        {"1.e5", 0, 2, "invalid number"},
        {".5", 0, 0, "expected value"},
        {"+1", 0, 0, "expected value"},
        {"-", 0, 1, "invalid number"},
        {"- 1", 0, 1, "invalid number"},
        {"-a", 0, 1, "invalid number"},
        {"1e", 0, 2, "invalid number"},
        {"1e+", 0, 3, "invalid number"},
        {"1E-x", 0, 3, "invalid number"},
        {"1.5e", 0, 4, "invalid number"},
        {"1e400", 0, 0, "number out of range"},
        {"-1e400", 0, 0, "number out of range"},
        {"[1, 2e999]", 0, 4, "number out of range"},
        {"1e99999999999999999999999", 0, 0, "number out of range"},
        /* strtod gives DBL_MAX, but 17976931348623158.0 * 1e292 overflows */
        {"1.7976931348623158e308", 0, 0, "number out of range"},
        {"0x10", 0, 1, "trailing characters"},
        {"1.5.5", 0, 3, "trailing characters"},
        {"NaN", 0, 0, "expected value"},
        {"Infinity", 0, 0, "expected value"},
        {"-Infinity", 0, 1, "invalid number"},
        {"[--1]", 0, 2, "invalid number"},
    };
    check_errors(cases, TL_ARRAY_LEN(cases));

    /* A long digit run overflowing to infinity is caught too. */
    char big[400];
    memset(big, '9', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    struct tl_json v;
    struct tl_json_error err;
    int rc = tl_json_parse(&arena, big, strlen(big), &v, &err);
    assert_int_equal(rc, -1);
    assert_string_equal(err.msg, "number out of range");
    check_serde_number(big, strlen(big), rc, &v, &err);
    big[300] = '\0';
    v = parse_ok(big);
    assert_int_equal(v.u.num.kind, TL_JSON_FLOAT);
    check_serde_number(big, strlen(big), 0, &v, &err);
    /* 19 nines fit u64 (9999999999999999999 rounds to 1e19), 281 more count */
    assert_true(tu_same_bits(v.u.num.d, 1e19 * 1e281));
}

static void test_strings_zero_copy(void **state)
{
    (void)state;
    const char *text = "[\"plain\", \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\", \"\"]";
    struct tl_json v = parse_ok(text);
    assert_int_equal(v.type, TL_JSON_ARRAY);
    assert_int_equal(v.u.arr.n, 3);
    const struct tl_json *s = v.u.arr.items;
    assert_int_equal(s[0].type, TL_JSON_STRING);
    assert_ptr_equal(s[0].u.str.p, text + 2);
    assert_int_equal(s[0].u.str.n, 5);
    assert_ptr_equal(s[1].u.str.p, text + 11);
    assert_int_equal(s[1].u.str.n, 14);
    assert_memory_equal(s[1].u.str.p, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14);
    assert_int_equal(s[2].u.str.n, 0);

    /* long strings take the 8-bytes-at-a-time path; a special in every
     * position of the word must still be seen */
    for (size_t pos = 0; pos < 24; pos++) {
        char buf[64];
        memset(buf, 'x', sizeof(buf));
        buf[0] = '"';
        buf[1 + pos] = '"';
        size_t n = pos + 2;
        struct tl_json sv;
        struct tl_json_error err;
        assert_int_equal(parse_exact(buf, n, &sv, &err), 0);
        buf[1 + pos] = '\x01';
        buf[30] = '"';
        assert_int_equal(parse_exact(buf, 31, &sv, &err), -1);
        assert_string_equal(err.msg, "control character in string");
        assert_int_equal(err.offset, 1 + pos);
    }
}

struct str_case {
    const char *text;
    const char *want;
    size_t want_len;
};

static void test_strings_escapes(void **state)
{
    (void)state;
    static const struct str_case cases[] = {
        {"\"a\\\"b\"", "a\"b", 3},
        {"\"\\\\\"", "\\", 1},
        {"\"\\/\"", "/", 1},
        {"\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t", 5},
        {"\"\\u0041\\u00e9\\u00E9\"", "A\xc3\xa9\xc3\xa9", 5},
        {"\"\\u0000x\"", "\0x", 2},
        {"\"\\u007f\\u0080\\u07ff\\u0800\\uffff\"", "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf",
         11},
        {"\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4},
        {"\"\\uD800\\uDC00\"", "\xf0\x90\x80\x80", 4},
        {"\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf", 4},
        {"\"x\\ud83d\\ude00y\\n\"", "x\xf0\x9f\x98\x80y\n", 7},
        {"\"caf\xc3\xa9\\t\"", "caf\xc3\xa9\t", 6},
        {"\"\x7f\"", "\x7f", 1},
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++) {
        struct tl_json v = parse_ok(cases[i].text);
        assert_int_equal(v.type, TL_JSON_STRING);
        if (v.u.str.n != cases[i].want_len ||
            memcmp(v.u.str.p, cases[i].want, cases[i].want_len) != 0)
            fail_msg("case %zu '%s' decoded wrongly", i, cases[i].text);
    }
    /* decoded strings do not point into the input */
    const char *text = "\"a\\nb\"";
    struct tl_json v = parse_ok(text);
    assert_true(v.u.str.p < text || v.u.str.p > text + strlen(text));
    /* object keys are decoded too */
    v = parse_ok("{\"k\\u0065y\": 1}");
    assert_non_null(tl_json_get(&v, "key"));
}

static void test_string_errors(void **state)
{
    (void)state;
    static const struct err_case cases[] = {
        {"\"abc", 0, 4, "unexpected end of input"},
        {"\"", 0, 1, "unexpected end of input"},
        {"\"\\", 0, 2, "unexpected end of input"},
        {"\"\\x\"", 0, 2, "invalid escape"},
        {"\"\\U0041\"", 0, 2, "invalid escape"},
        {"\"\\'\"", 0, 2, "invalid escape"},
        {"\"\\u12\"", 0, 5, "invalid escape"},
        {"\"\\u12g4\"", 0, 5, "invalid escape"},
        {"\"\\u12", 0, 5, "unexpected end of input"},
        {"\"\\ud800\"", 0, 1, "lone surrogate"},
        {"\"\\udc00\"", 0, 1, "lone surrogate"},
        {"\"ab\\uDFFF\"", 0, 3, "lone surrogate"},
        {"\"\\ud800\\u0041\"", 0, 1, "lone surrogate"},
        {"\"\\ud800\\ud800\"", 0, 1, "lone surrogate"},
        {"\"\\ud800\\n\"", 0, 1, "lone surrogate"},
        {"\"\\ud800x\"", 0, 1, "lone surrogate"},
        {"\"\\ud800", 0, 7, "unexpected end of input"},
        {"\"\\ud800\\", 0, 8, "unexpected end of input"},
        {"\"\\ud800\\u", 0, 9, "unexpected end of input"},
        {"\"\\ud800\\udc0", 0, 12, "unexpected end of input"},
        {"\"\\ud800\\udcxx\"", 0, 11, "invalid escape"},
        {"\"a\tb\"", 0, 2, "control character in string"},
        {"\"a\nb\"", 0, 2, "control character in string"},
        {"\"\x1f\"", 0, 1, "control character in string"},
        {"\"a\0b\"", 5, 2, "control character in string"},
        /* UTF-8 */
        {"\"\x80\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xbf\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xc0\x80\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xc1\xbf\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xc3(\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xe0\x80\x80\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xe0\x9f\xbf\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xed\xa0\x80\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xed\xbf\xbf\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xe2\x82\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xf0\x80\x80\x80\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xf0\x8f\xbf\xbf\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xf4\x90\x80\x80\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xf5\x80\x80\x80\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xff\"", 0, 1, "invalid UTF-8 in string"},
        {"\"\xf0\x9f\x98\"", 0, 1, "invalid UTF-8 in string"},
        {"\"ok\xf0\x9f\x98", 0, 6, "unexpected end of input"},
        {"\"\xc3", 0, 2, "unexpected end of input"},
        /* raw bytes outside strings */
        {"\xef\xbb\xbf{}", 0, 0, "expected value"},
    };
    check_errors(cases, TL_ARRAY_LEN(cases));

    /* boundary code points that are valid */
    const char *ok[] = {"\"\xc2\x80\"",         "\"\xdf\xbf\"",        "\"\xe0\xa0\x80\"",
                        "\"\xed\x9f\xbf\"",     "\"\xee\x80\x80\"",    "\"\xef\xbf\xbf\"",
                        "\"\xf0\x90\x80\x80\"", "\"\xf4\x8f\xbf\xbf\""};
    for (size_t i = 0; i < TL_ARRAY_LEN(ok); i++) {
        struct tl_json v = parse_ok(ok[i]);
        assert_int_equal(v.u.str.n, strlen(ok[i]) - 2);
    }
}

static void test_containers(void **state)
{
    (void)state;
    struct tl_json v = parse_ok(" { \"a\" : [ 1 , \"x\" , [ ] , { } , null ] , \"b\":{\"c\":true},"
                                "\"a\":2 } ");
    assert_int_equal(v.type, TL_JSON_OBJECT);
    assert_int_equal(v.u.obj.n, 3);
    assert_true(tl_str_eq_cstr(v.u.obj.items[0].key, "a"));
    assert_true(tl_str_eq_cstr(v.u.obj.items[1].key, "b"));
    assert_true(tl_str_eq_cstr(v.u.obj.items[2].key, "a"));
    const struct tl_json *a = &v.u.obj.items[0].value;
    assert_int_equal(a->type, TL_JSON_ARRAY);
    assert_int_equal(a->u.arr.n, 5);
    assert_int_equal(a->u.arr.items[0].u.num.u, 1);
    assert_true(tl_str_eq_cstr(a->u.arr.items[1].u.str, "x"));
    assert_int_equal(a->u.arr.items[2].type, TL_JSON_ARRAY);
    assert_int_equal(a->u.arr.items[2].u.arr.n, 0);
    assert_int_equal(a->u.arr.items[3].type, TL_JSON_OBJECT);
    assert_int_equal(a->u.arr.items[3].u.obj.n, 0);
    assert_int_equal(a->u.arr.items[4].type, TL_JSON_NULL);
    /* tl_json_get: the last duplicate wins */
    const struct tl_json *g = tl_json_get(&v, "a");
    assert_non_null(g);
    assert_int_equal(g->type, TL_JSON_NUMBER);
    assert_int_equal(g->u.num.u, 2);
    const struct tl_json *b = tl_json_get(&v, "b");
    assert_non_null(b);
    assert_non_null(tl_json_get(b, "c"));
    assert_true(tl_json_get(b, "c")->u.b);
    assert_null(tl_json_get(&v, "c"));
    assert_null(tl_json_get(&v, ""));
    assert_null(tl_json_get(&v, "aa"));
    assert_null(tl_json_get(a, "a"));
    assert_null(tl_json_get(NULL, "a"));
    v = parse_ok("{\"\":5,\"ab\":6}");
    assert_int_equal(tl_json_get(&v, "")->u.num.u, 5);
    assert_null(tl_json_get(&v, "a"));
    /* keys of one length that differ in the first byte, or only after it; a key with a NUL */
    v = parse_ok("{\"xbc\":1,\"abd\":2,\"abc\":3,\"a\\u0000c\":4}");
    assert_int_equal(tl_json_get(&v, "abc")->u.num.u, 3);
    assert_int_equal(tl_json_get(&v, "abd")->u.num.u, 2);
    assert_int_equal(tl_json_get(&v, "xbc")->u.num.u, 1);
    assert_null(tl_json_get(&v, "ybc"));
    assert_null(tl_json_get(&v, "abe"));
    assert_int_equal(tl_json_get_n(&v, "a\0c", 3)->u.num.u, 4);
    assert_null(tl_json_get(&v, "a"));
    const struct tl_json *num = tl_json_get_type(&v, "abc", TL_JSON_NUMBER);
    assert_non_null(num);
    assert_ptr_equal(num, tl_json_get(&v, "abc"));
    assert_null(tl_json_get_type(&v, "abc", TL_JSON_STRING));
}

/* Containers bigger than the parser's local value stack, nested, so the
 * stack moves to the arena while outer containers hold children on it. */
static void test_large_containers(void **state)
{
    (void)state;
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_adds(&b, "{");
    for (int i = 0; i < 300; i++) {
        tl_buf_addf(&b, "%s\"k%d\":", i ? "," : "", i);
        if (i % 50 == 7) {
            tl_buf_adds(&b, "[");
            for (int j = 0; j < 200; j++)
                tl_buf_addf(&b, "%s[%d,{\"z\":%d}]", j ? "," : "", j, -j);
            tl_buf_adds(&b, "]");
        } else {
            tl_buf_addf(&b, "%d", i);
        }
    }
    tl_buf_adds(&b, "}");
    struct tl_json v = parse_ok(b.buf);
    assert_int_equal(v.type, TL_JSON_OBJECT);
    assert_int_equal(v.u.obj.n, 300);
    for (int i = 0; i < 300; i++) {
        char key[16];
        snprintf(key, sizeof(key), "k%d", i);
        assert_true(tl_str_eq_cstr(v.u.obj.items[i].key, key));
        const struct tl_json *x = &v.u.obj.items[i].value;
        if (i % 50 == 7) {
            assert_int_equal(x->type, TL_JSON_ARRAY);
            assert_int_equal(x->u.arr.n, 200);
            for (int j = 0; j < 200; j++) {
                const struct tl_json *e = &x->u.arr.items[j];
                assert_int_equal(e->u.arr.n, 2);
                assert_int_equal(e->u.arr.items[0].u.num.u, (uint64_t)j);
                const struct tl_json *z = tl_json_get(&e->u.arr.items[1], "z");
                assert_non_null(z);
                assert_true(z->u.num.d == -j);
            }
        } else {
            assert_int_equal(x->u.num.u, (uint64_t)i);
        }
    }
    tl_buf_release(&b);
}

static char *repeat2(const char *open, const char *close, int n)
{
    size_t lo = strlen(open);
    size_t lc = strlen(close);
    char *s = malloc((size_t)n * (lo + lc) + 1);
    assert_non_null(s);
    char *o = s;
    for (int i = 0; i < n; i++, o += lo)
        memcpy(o, open, lo);
    for (int i = 0; i < n; i++, o += lc)
        memcpy(o, close, lc);
    *o = '\0';
    return s;
}

/* serde_json allows 127 nested containers and fails on the 128th. */
static void test_depth(void **state)
{
    (void)state;
    char *s = repeat2("[", "]", TL_JSON_MAX_DEPTH - 1);
    struct tl_json v = parse_ok(s);
    int depth = 0;
    const struct tl_json *p = &v;
    while (p->type == TL_JSON_ARRAY && p->u.arr.n == 1)
        p = &p->u.arr.items[0], depth++;
    assert_int_equal(depth, TL_JSON_MAX_DEPTH - 2);
    free(s);

    struct tl_json_error err;
    s = repeat2("[", "]", TL_JSON_MAX_DEPTH);
    assert_int_equal(tl_json_parse(&arena, s, strlen(s), &v, &err), -1);
    assert_string_equal(err.msg, "nesting too deep");
    assert_int_equal(err.offset, TL_JSON_MAX_DEPTH - 1);
    free(s);

    /* 126 objects around an empty one: 127 levels, still fine */
    s = repeat2("{\"a\":", "}", TL_JSON_MAX_DEPTH - 2);
    char *s2 = malloc(strlen(s) + 3);
    assert_non_null(s2);
    size_t half = (TL_JSON_MAX_DEPTH - 2) * 5;
    memcpy(s2, s, half);
    memcpy(s2 + half, "{}", 2);
    strcpy(s2 + half + 2, s + half);
    v = parse_ok(s2);
    depth = 1;
    p = &v;
    while ((p = tl_json_get(p, "a")) != NULL)
        depth++;
    assert_int_equal(depth, TL_JSON_MAX_DEPTH - 1);
    free(s2);
    free(s);
    s = repeat2("{\"a\":[", "]}", TL_JSON_MAX_DEPTH / 2);
    assert_int_equal(tl_json_parse(&arena, s, strlen(s), &v, &err), -1);
    assert_string_equal(err.msg, "nesting too deep");
    free(s);

    /* hostile input: fails fast, no stack overflow */
    size_t n = 100000;
    s = malloc(n);
    assert_non_null(s);
    memset(s, '[', n);
    clock_t t0 = clock();
    assert_int_equal(tl_json_parse(&arena, s, n, &v, &err), -1);
    assert_string_equal(err.msg, "nesting too deep");
    assert_int_equal(err.offset, TL_JSON_MAX_DEPTH - 1);
    memset(s, '{', n);
    assert_int_equal(tl_json_parse(&arena, s, n, &v, &err), -1);
    assert_string_equal(err.msg, "key must be a string");
    for (size_t i = 0; i + 5 <= n; i += 5)
        memcpy(s + i, "{\"\":", 4), s[i + 4] = '[';
    assert_int_equal(tl_json_parse(&arena, s, n, &v, &err), -1);
    assert_string_equal(err.msg, "nesting too deep");
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
    free(s);
}

static void test_structure_errors(void **state)
{
    (void)state;
    static const struct err_case cases[] = {
        {"", 0, 0, "unexpected end of input"},
        {"   ", 0, 3, "unexpected end of input"},
        {"[", 0, 1, "unexpected end of input"},
        {"[1", 0, 2, "unexpected end of input"},
        {"[1,", 0, 3, "unexpected end of input"},
        {"{", 0, 1, "unexpected end of input"},
        {"{\"a\"", 0, 4, "unexpected end of input"},
        {"{\"a\":", 0, 5, "unexpected end of input"},
        {"{\"a\":1", 0, 6, "unexpected end of input"},
        {"{\"a\":1,", 0, 7, "unexpected end of input"},
        {"]", 0, 0, "expected value"},
        {"}", 0, 0, "expected value"},
        {",", 0, 0, "expected value"},
        {"[1,]", 0, 3, "expected value"},
        {"[,1]", 0, 1, "expected value"},
        {"[1,,2]", 0, 3, "expected value"},
        {"[1 2]", 0, 3, "expected ',' or ']'"},
        {"[1}", 0, 2, "expected ',' or ']'"},
        {"[\"a\" \"b\"]", 0, 5, "expected ',' or ']'"},
        {"{\"a\":1,}", 0, 7, "key must be a string"},
        {"{,}", 0, 1, "key must be a string"},
        {"{a:1}", 0, 1, "key must be a string"},
        {"{1:1}", 0, 1, "key must be a string"},
        {"{'a':1}", 0, 1, "key must be a string"},
        {"{\"a\" 1}", 0, 5, "expected ':'"},
        {"{\"a\",1}", 0, 4, "expected ':'"},
        {"{\"a\":1 \"b\":2}", 0, 7, "expected ',' or '}'"},
        {"{\"a\":1]", 0, 6, "expected ',' or '}'"},
        {"{\"a\":}", 0, 5, "expected value"},
        {"[1]x", 0, 3, "trailing characters"},
        {"[1] [2]", 0, 4, "trailing characters"},
        {"1 2", 0, 2, "trailing characters"},
        {"{}{}", 0, 2, "trailing characters"},
        {"null,", 0, 4, "trailing characters"},
        {"/* c */ 1", 0, 0, "expected value"},
        {"tru", 0, 3, "unexpected end of input"},
        {"nul", 0, 3, "unexpected end of input"},
        {"True", 0, 0, "expected value"},
        {"trUe", 0, 0, "expected value"},
        {"[truex]", 0, 5, "expected ',' or ']'"},
        {"nulll", 0, 4, "trailing characters"},
        {"fals", 0, 4, "unexpected end of input"},
        {"\f1", 0, 0, "expected value"},
        {"1\v", 0, 1, "trailing characters"},
        {"\xc2\xa0"
         "1",
         0, 0, "expected value"},
        {"[1]\0", 4, 3, "trailing characters"},
    };
    check_errors(cases, TL_ARRAY_LEN(cases));

    /* err may be NULL, and NULL text with n == 0 is an empty document */
    struct tl_json v;
    assert_int_equal(tl_json_parse(&arena, "[", 1, &v, NULL), -1);
    struct tl_json_error err;
    assert_int_equal(tl_json_parse(&arena, NULL, 0, &v, &err), -1);
    assert_string_equal(err.msg, "unexpected end of input");
    assert_int_equal(err.offset, 0);
}

/* Parsing stops at n: bytes after it are never looked at. */
static void test_length_bound(void **state)
{
    (void)state;
    struct tl_json v;
    struct tl_json_error err;
    assert_int_equal(tl_json_parse(&arena, "123456", 3, &v, &err), 0);
    assert_int_equal(v.u.num.u, 123);
    assert_int_equal(tl_json_parse(&arena, "1.5e10", 3, &v, &err), 0);
    assert_true(v.u.num.d == 1.5);
    assert_int_equal(tl_json_parse(&arena, "[1]]", 3, &v, &err), 0);
    assert_int_equal(tl_json_parse(&arena, "\"ab\"", 3, &v, &err), -1);
    assert_string_equal(err.msg, "unexpected end of input");
    assert_int_equal(tl_json_parse(&arena, "truex", 4, &v, &err), 0);
    const char *exact[] = {"1",
                           "-1",
                           "1.5",
                           "1e5",
                           "-0",
                           "123456789012345678901234567890",
                           "1.00000000000000000000000000000000000000000000000000001",
                           "\"abcdefghijklmnopqrstuvwxyz\"",
                           "\"\\u00e9\"",
                           "true",
                           "[]",
                           "{}"};
    for (size_t i = 0; i < TL_ARRAY_LEN(exact); i++)
        assert_int_equal(parse_exact(exact[i], strlen(exact[i]), &v, &err), 0);
    const char *cut[] = {"-", "1.", "1e", "1e-", "\"", "\"ab", "\"\\u00", "t", "nu", "[", "{\"a"};
    for (size_t i = 0; i < TL_ARRAY_LEN(cut); i++)
        assert_int_equal(parse_exact(cut[i], strlen(cut[i]), &v, &err), -1);
}

static void test_envelope(void **state)
{
    (void)state;
    const char *line =
        "{\"dynamo_output_graph\": {\"sizes\": {\"l_x_\": [8, 8], \"mul\": [8, 8]}}, "
        "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, "
        "\"has_payload\": \"0ac1c7c2f1a4ee1bfe1d2c3a9e4f2b11\"}";
    struct tl_json v = parse_ok(line);
    assert_int_equal(v.u.obj.n, 5);
    const struct tl_json *g = tl_json_get(&v, "dynamo_output_graph");
    const struct tl_json *sizes = tl_json_get(g, "sizes");
    const struct tl_json *mul = tl_json_get(sizes, "mul");
    assert_int_equal(mul->type, TL_JSON_ARRAY);
    assert_int_equal(mul->u.arr.n, 2);
    assert_int_equal(mul->u.arr.items[1].u.num.u, 8);
    assert_true(
        tl_str_eq_cstr(tl_json_get(&v, "has_payload")->u.str, "0ac1c7c2f1a4ee1bfe1d2c3a9e4f2b11"));
    assert_int_equal(tl_json_get(&v, "attempt")->u.num.kind, TL_JSON_UINT);
}

/*
 * Cross-check against json-c 0.16 in strict mode with UTF-8 validation.
 * json-c is known to be more lenient than RFC 8259 / serde_json in these
 * ways, so documents hitting them are expected to be accepted by json-c
 * and rejected by us:
 *   LENIENT_QUOTE    single-quoted strings
 *   LENIENT_CTRL     raw control characters inside strings
 *   LENIENT_UTF8     overlong, surrogate and > U+10FFFF UTF-8 sequences
 *   LENIENT_SURR     lone surrogate \u escapes (json-c substitutes U+FFFD)
 *   LENIENT_NUM      "1.", "1.e5", "-01", "[00]", NaN, Infinity
 *   LENIENT_RANGE    1e400 (json-c gives inf; serde_json: out of range)
 *   LENIENT_DEPTH    128 nested arrays (serde_json's recursion limit)
 * And json-c saturates integers outside int64/uint64 (JC_SATURATES), so
 * those are compared for structure only.
 */
enum {
    JC_SAME = 0,
    LENIENT_QUOTE,
    LENIENT_CTRL,
    LENIENT_UTF8,
    LENIENT_SURR,
    LENIENT_NUM,
    LENIENT_RANGE,
    LENIENT_DEPTH,
    JC_SATURATES,
};

struct jc_case {
    const char *text;
    bool valid; /* for us */
    int jc;     /* JC_SAME or a documented difference */
};

static struct json_object *jc_parse(const char *text, size_t n, bool *ok)
{
    /* json-c needs the NUL to know a trailing number has ended */
    char *copy = malloc(n + 1);
    assert_non_null(copy);
    memcpy(copy, text, n);
    copy[n] = '\0';
    struct json_tokener *tok = json_tokener_new_ex(1000);
    if (!tok) {
        free(copy);
        fail_msg("json_tokener_new_ex failed");
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *o = json_tokener_parse_ex(tok, copy, (int)n + 1);
    *ok = json_tokener_get_error(tok) == json_tokener_success &&
          (size_t)json_tokener_get_parse_end(tok) >= n;
    if (!*ok && o) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    free(copy);
    return o;
}

/* Floats where json-c and we are one ulp apart (see jc_compare). */
static int jc_one_ulp;

/*
 * Compare our tree v with json-c's o. Returns false and describes the first
 * difference in why[0..cap); never fails the test itself, so the caller can
 * release o first (a cmocka failure longjmps and would leak it).
 */
static bool jc_compare(const char *doc, const struct tl_json *v, struct json_object *o,
                       bool numbers, char *why, size_t cap)
{
    enum json_type t = json_object_get_type(o);
    switch (v->type) {
    case TL_JSON_NULL:
        if (t != json_type_null) {
            snprintf(why, cap, "%s: null vs json-c type %d", doc, t);
            return false;
        }
        break;
    case TL_JSON_BOOL:
        if (t != json_type_boolean || json_object_get_boolean(o) != v->u.b) {
            snprintf(why, cap, "%s: bool differs", doc);
            return false;
        }
        break;
    case TL_JSON_NUMBER: {
        if (t != json_type_int && t != json_type_double) {
            snprintf(why, cap, "%s: number vs json-c type %d", doc, t);
            return false;
        }
        if (v->u.num.kind != TL_JSON_FLOAT && t != json_type_int) {
            snprintf(why, cap, "%s: integer vs json-c double", doc);
            return false;
        }
        if (!numbers)
            break;
        /* json-c converts floats with strtod (correctly rounded); we convert
         * them as serde_json does (json_num.h), which can be 1 ulp off, e.g.
         * 1715885247.9018195. So floats may differ by one ulp; integers
         * (json-c keeps them as int64/uint64 too) must match exactly. */
        double theirs = json_object_get_double(o);
        uint64_t max_ulps = v->u.num.kind == TL_JSON_FLOAT ? 1 : 0;
        uint64_t d = tu_ulps(v->u.num.d, theirs);
        if (d > max_ulps) {
            snprintf(why, cap, "%s: number %.17g vs json-c %.17g", doc, v->u.num.d, theirs);
            return false;
        }
        jc_one_ulp += d == 1;
        break;
    }
    case TL_JSON_STRING:
        if (t != json_type_string || (size_t)json_object_get_string_len(o) != v->u.str.n ||
            memcmp(json_object_get_string(o), v->u.str.p, v->u.str.n) != 0) {
            snprintf(why, cap, "%s: string differs", doc);
            return false;
        }
        break;
    case TL_JSON_ARRAY:
        if (t != json_type_array || json_object_array_length(o) != v->u.arr.n) {
            snprintf(why, cap, "%s: array differs", doc);
            return false;
        }
        for (size_t i = 0; i < v->u.arr.n; i++)
            if (!jc_compare(doc, &v->u.arr.items[i], json_object_array_get_idx(o, i), numbers, why,
                            cap))
                return false;
        break;
    case TL_JSON_OBJECT: {
        if (t != json_type_object) {
            snprintf(why, cap, "%s: object vs json-c type %d", doc, t);
            return false;
        }
        /* json-c keeps the last duplicate, like tl_json_get */
        size_t distinct = 0;
        for (size_t i = 0; i < v->u.obj.n; i++) {
            const struct tl_json_member *m = &v->u.obj.items[i];
            if (memchr(m->key.p, '\0', m->key.n)) {
                snprintf(why, cap, "%s: test bug: NUL in a key", doc);
                return false;
            }
            char key[64];
            if (m->key.n >= sizeof(key)) {
                snprintf(why, cap, "%s: test bug: long key", doc);
                return false;
            }
            memcpy(key, m->key.p, m->key.n);
            key[m->key.n] = '\0';
            if (tl_json_get(v, key) != &m->value)
                continue;
            distinct++;
            struct json_object *c = NULL;
            if (!json_object_object_get_ex(o, key, &c)) {
                snprintf(why, cap, "%s: key %s missing in json-c", doc, key);
                return false;
            }
            if (!jc_compare(doc, &m->value, c, numbers, why, cap))
                return false;
        }
        if ((size_t)json_object_object_length(o) != distinct) {
            snprintf(why, cap, "%s: object size differs", doc);
            return false;
        }
        break;
    }
    }
    return true;
}

static void jc_check(const char *doc, size_t n, bool valid, int jc)
{
    struct tl_json v;
    struct tl_json_error err = {0, NULL};
    bool ours = tl_json_parse(&arena, doc, n, &v, &err) == 0;
    bool theirs;
    struct json_object *o = jc_parse(doc, n, &theirs);
    bool jc_expected = valid;
    if (jc != JC_SAME && jc != JC_SATURATES)
        jc_expected = !valid; /* documented leniency: json-c accepts */
    char why[512] = "";
    if (ours != valid)
        snprintf(why, sizeof(why), "'%.*s': we say %s (%s), expected %s", (int)n, doc,
                 ours ? "valid" : "invalid", ours ? "" : err.msg, valid ? "valid" : "invalid");
    else if (theirs != jc_expected)
        snprintf(why, sizeof(why), "'%.*s': json-c says %s, expected %s", (int)n, doc,
                 theirs ? "valid" : "invalid", jc_expected ? "valid" : "invalid");
    else if (ours && theirs)
        jc_compare(doc, &v, o, jc != JC_SATURATES, why, sizeof(why));
    /* release json-c's tree before any failure: fail_msg does not return */
    if (o)
        json_object_put(o);
    tl_arena_reset(&arena);
    if (why[0])
        fail_msg("%s", why);
}

static void test_jsonc_table(void **state)
{
    (void)state;
    static const struct jc_case cases[] = {
        {"null", true, JC_SAME},
        {"true", true, JC_SAME},
        {"false", true, JC_SAME},
        {"0", true, JC_SAME},
        {"-0", true, JC_SAME},
        {"123", true, JC_SAME},
        {"-123", true, JC_SAME},
        {"1.5", true, JC_SAME},
        {"-1.5e10", true, JC_SAME},
        {"1E-5", true, JC_SAME},
        {"0.1", true, JC_SAME},
        {"1733527213926572.8", true, JC_SAME},
        {"[5e-324, 1.7976931348623157e308, 2.2250738585072011e-308]", true, JC_SAME},
        /* one ulp from json-c's strtod each (serde_json's rounding) */
        {"[1715885247.9018195, 9007199254740993.0, 0.000000000000000000000000000001]", true,
         JC_SAME},
        {"18446744073709551615", true, JC_SAME},
        {"-9223372036854775808", true, JC_SAME},
        {"18446744073709551616", true, JC_SAME}, /* saturates to the same double */
        {"100000000000000000000", true, JC_SATURATES},
        {"-9223372036854775809", true, JC_SAME}, /* saturates to the same double */
        {"-100000000000000000000", true, JC_SATURATES},
        {"\"\"", true, JC_SAME},
        {"\"abc\"", true, JC_SAME},
        {"\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", true, JC_SAME},
        {"\"\\u00e9\\u20ac\\ud83d\\ude00\"", true, JC_SAME},
        {"\"caf\xc3\xa9 \xf0\x9f\x98\x80\"", true, JC_SAME},
        {"\"\\u0000\"", true, JC_SAME},
        {"[]", true, JC_SAME},
        {"{}", true, JC_SAME},
        {"[1,[2,[3,[]]],{}]", true, JC_SAME},
        {"{\"a\":{\"b\":[true,false,null]},\"c\":\"d\"}", true, JC_SAME},
        {" \t\n\r[1 , 2 ]\n ", true, JC_SAME},
        {"{\"a\":1,\"a\":2}", true, JC_SAME},
        {"{\"dynamo_start\": {\"stack\": [{\"line\": 1, \"name\": \"<module>\", \"filename\": 0}]},"
         " \"rank\": 0, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}",
         true, JC_SAME},
        {"", false, JC_SAME},
        {" ", false, JC_SAME},
        {"[", false, JC_SAME},
        {"[1,]", false, JC_SAME},
        {"{\"a\":1,}", false, JC_SAME},
        {"{a:1}", false, JC_SAME},
        {"01", false, JC_SAME},
        {".5", false, JC_SAME},
        {"+1", false, JC_SAME},
        {"-", false, JC_SAME},
        {"1e", false, JC_SAME},
        {"1e+", false, JC_SAME},
        {"tru", false, JC_SAME},
        {"True", false, JC_SAME},
        {"\"abc", false, JC_SAME},
        {"\"\\x\"", false, JC_SAME},
        {"\"\\u12\"", false, JC_SAME},
        {"\"\x80\"", false, JC_SAME},
        {"[1]x", false, JC_SAME},
        {"[1] [2]", false, JC_SAME},
        {"/* c */ 1", false, JC_SAME},
        {"[1,2", false, JC_SAME},
        {"{\"a\":1 \"b\":2}", false, JC_SAME},
        {"[05]", false, JC_SAME},
        {"0x10", false, JC_SAME},
        {"[1 2]", false, JC_SAME},
        {"[--1]", false, JC_SAME},
        /* documented json-c leniencies */
        {"{'a':1}", false, LENIENT_QUOTE},
        {"\"a\tb\"", false, LENIENT_CTRL},
        {"\"\x01\"", false, LENIENT_CTRL},
        {"\"\xc0\x80\"", false, LENIENT_UTF8},
        {"\"\xed\xa0\x80\"", false, LENIENT_UTF8},
        {"\"\xf4\x90\x80\x80\"", false, LENIENT_UTF8},
        {"\"\\ud800\"", false, LENIENT_SURR},
        {"\"\\udc00\"", false, LENIENT_SURR},
        {"\"\\ud800\\u0041\"", false, LENIENT_SURR},
        {"1.", false, LENIENT_NUM},
        {"[1.e5]", false, LENIENT_NUM},
        {"-01", false, LENIENT_NUM},
        {"[00]", false, LENIENT_NUM},
        {"NaN", false, LENIENT_NUM},
        {"-Infinity", false, LENIENT_NUM},
        {"1e400", false, LENIENT_RANGE},
    };
    jc_one_ulp = 0;
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++)
        jc_check(cases[i].text, strlen(cases[i].text), cases[i].valid, cases[i].jc);
    /* the three above and 2.2250738585072011e-308 */
    assert_int_equal(jc_one_ulp, 4);

    char *s = repeat2("[", "]", TL_JSON_MAX_DEPTH - 1);
    jc_check(s, strlen(s), true, JC_SAME);
    free(s);
    s = repeat2("[", "]", TL_JSON_MAX_DEPTH);
    jc_check(s, strlen(s), false, LENIENT_DEPTH);
    free(s);
}

struct rng {
    uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((r->s >> 33) % n);
}

/* A random valid document. `plain` restricts it to an alphabet that avoids
 * every json-c leniency under mutation: no '-', '.', '0', 'e', escapes. */
static void gen_value(struct rng *r, struct tl_buf *b, int depth, bool plain)
{
    /* raw whitespace other than ' ' would become a raw control character
     * inside a string once a mutation removes a quote */
    static const char *ws[] = {"", "", "", " ", "\n", "\t ", "\r\n  "};
    const size_t nws = plain ? 4 : TL_ARRAY_LEN(ws);
    tl_buf_adds(b, ws[rnd(r, nws)]);
    uint32_t kind = rnd(r, depth > 4 ? 5 : 7);
    switch (kind) {
    case 0:
        tl_buf_adds(b, rnd(r, 3) == 0 ? "null" : rnd(r, 2) ? "true" : "false");
        break;
    case 1:
    case 2:
        if (plain) {
            int nd = 1 + (int)rnd(r, 12);
            for (int i = 0; i < nd; i++)
                tl_buf_addch(b, (char)('1' + rnd(r, 9)));
        } else {
            static const char *nums[] = {"0",
                                         "-0",
                                         "7",
                                         "-12",
                                         "3.25",
                                         "-0.5",
                                         "1e3",
                                         "2E-2",
                                         "18446744073709551615",
                                         "-9223372036854775808",
                                         "6.02214076e23",
                                         "1733527213926572.8",
                                         "4.9e-324"};
            if (rnd(r, 2))
                tl_buf_adds(b, nums[rnd(r, TL_ARRAY_LEN(nums))]);
            else
                tl_buf_addf(b, "%s%u.%ue%d", rnd(r, 2) ? "-" : "", rnd(r, 100000), rnd(r, 1000),
                            (int)rnd(r, 80) - 40);
        }
        break;
    case 3:
    case 4: {
        tl_buf_addch(b, '"');
        int n = (int)rnd(r, 12);
        for (int i = 0; i < n; i++) {
            uint32_t c = rnd(r, plain ? 1 : 6);
            if (c == 0)
                tl_buf_addch(b, (char)('a' + rnd(r, 26)));
            else if (c == 1)
                tl_buf_adds(b, "\\n");
            else if (c == 2)
                tl_buf_addf(b, "\\u%04x", 1 + rnd(r, 0xd7ff));
            else if (c == 3)
                tl_buf_adds(b, "\xc3\xa9\xe2\x82\xac");
            else if (c == 4)
                tl_buf_adds(b, "\\ud83d\\ude00");
            else
                tl_buf_adds(b, "\\\"\\\\\\/");
        }
        tl_buf_addch(b, '"');
        break;
    }
    case 5: {
        tl_buf_addch(b, '[');
        int n = (int)rnd(r, 5);
        for (int i = 0; i < n; i++) {
            if (i)
                tl_buf_addch(b, ',');
            gen_value(r, b, depth + 1, plain);
        }
        tl_buf_adds(b, ws[rnd(r, nws)]);
        tl_buf_addch(b, ']');
        break;
    }
    default: {
        tl_buf_addch(b, '{');
        int n = (int)rnd(r, 5);
        for (int i = 0; i < n; i++) {
            if (i)
                tl_buf_addch(b, ',');
            tl_buf_addf(b, "\"%c\" :", 'a' + rnd(r, 4));
            gen_value(r, b, depth + 1, plain);
        }
        tl_buf_addch(b, '}');
        break;
    }
    }
    tl_buf_adds(b, ws[rnd(r, nws)]);
}

static void test_jsonc_random(void **state)
{
    (void)state;
    struct rng r = {20240601};
    struct tl_buf b = TL_BUF_INIT;
    int invalid = 0;
    for (int iter = 0; iter < 3000; iter++) {
        tl_buf_reset(&b);
        gen_value(&r, &b, 0, false);
        jc_check(b.buf, b.len, true, JC_SAME);

        /* mutate a plain document: both parsers must agree on validity */
        tl_buf_reset(&b);
        gen_value(&r, &b, 0, true);
        static const char alphabet[] = "[]{},:\" 1a";
        int muts = 1 + (int)rnd(&r, 3);
        for (int m = 0; m < muts && b.len > 0; m++) {
            size_t pos = rnd(&r, (uint32_t)b.len);
            switch (rnd(&r, 3)) {
            case 0: /* delete */
                memmove(b.buf + pos, b.buf + pos + 1, b.len - pos - 1);
                tl_buf_setlen(&b, b.len - 1);
                break;
            case 1: /* replace */
                b.buf[pos] = alphabet[rnd(&r, sizeof(alphabet) - 1)];
                break;
            default: /* insert */
                tl_buf_addch(&b, ' ');
                memmove(b.buf + pos + 1, b.buf + pos, b.len - pos - 1);
                b.buf[pos] = alphabet[rnd(&r, sizeof(alphabet) - 1)];
                break;
            }
        }
        struct tl_json v;
        bool ours = tl_json_parse(&arena, b.buf, b.len, &v, NULL) == 0;
        invalid += !ours;
        jc_check(b.buf, b.len, ours, JC_SAME);
    }
    /* the mutations must actually produce both outcomes */
    assert_true(invalid > 300);
    assert_true(invalid < 2900);
    tl_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals),        cmocka_unit_test(test_number_kinds),
        cmocka_unit_test(test_negative_zero),   cmocka_unit_test(test_number_rounding),
        cmocka_unit_test(test_number_errors),   cmocka_unit_test(test_strings_zero_copy),
        cmocka_unit_test(test_strings_escapes), cmocka_unit_test(test_string_errors),
        cmocka_unit_test(test_containers),      cmocka_unit_test(test_large_containers),
        cmocka_unit_test(test_depth),           cmocka_unit_test(test_structure_errors),
        cmocka_unit_test(test_length_bound),    cmocka_unit_test(test_envelope),
        cmocka_unit_test(test_jsonc_table),     cmocka_unit_test(test_jsonc_random),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
