/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_json_num_parse must read number literals exactly as serde_json does
 * (see json_num.h): fixed cases with hand-derived values, then random
 * literals against the independent model in serde_ref.h.
 */
#include "base/config.h"
#include "base/json_num.h"
#include "serde_ref.h"
#include "testutil.h"

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

static enum tl_num_kind ref_kind(enum serde_ref_kind k)
{
    return k == SERDE_U64 ? TL_NUM_UINT : k == SERDE_I64 ? TL_NUM_INT : TL_NUM_FLOAT;
}

/* tl_json_num_parse and the model agree on text[0..n); returns the rc. */
static int check_against_ref(const char *text, size_t n)
{
    struct tl_num got;
    struct serde_ref_num want;
    int rc = tl_json_num_parse(text, n, &got);
    int ref_rc = serde_ref_parse(text, n, &want);
    if (ref_rc == SERDE_INVALID)
        fail_msg("test bug: '%.*s' is not a JSON number", (int)n, text);
    if (rc != ref_rc)
        fail_msg("'%.*s': rc %d, serde model %d", (int)n, text, rc, ref_rc);
    if (rc != 0)
        return rc;
    if (got.kind != ref_kind(want.kind))
        fail_msg("'%.*s': kind %d, serde model %d", (int)n, text, got.kind, want.kind);
    switch (want.kind) {
    case SERDE_U64:
        if (got.u != want.u || !tu_same_bits(got.d, (double)want.u))
            fail_msg("'%.*s': u64 %llu (%.17g), serde model %llu", (int)n, text,
                     (unsigned long long)got.u, got.d, (unsigned long long)want.u);
        break;
    case SERDE_I64:
        if (got.i != want.i || !tu_same_bits(got.d, (double)want.i))
            fail_msg("'%.*s': i64 %lld (%.17g), serde model %lld", (int)n, text, (long long)got.i,
                     got.d, (long long)want.i);
        break;
    case SERDE_F64:
        if (!tu_same_bits(got.d, want.f))
            fail_msg("'%.*s': %.17g (%a), serde model %.17g (%a)", (int)n, text, got.d, got.d,
                     want.f, want.f);
        break;
    }
    return rc;
}

enum { OK, RANGE };

struct case_ {
    const char *text;
    int rc;
    enum tl_num_kind kind;
    uint64_t u;
    int64_t i;
    double d;
};

static void test_fixed(void **state)
{
    (void)state;
    /* Values derived by hand from serde's algorithm: the significand (first
     * digits up to u64, the rest only move the exponent) rounded to a double,
     * then one multiply or divide by a correctly rounded power of ten. */
    const struct case_ cases[] = {
        {"0", OK, TL_NUM_UINT, 0, 0, 0.0},
        {"-0", OK, TL_NUM_FLOAT, 0, 0, -0.0},
        {"-0.0", OK, TL_NUM_FLOAT, 0, 0, -0.0},
        {"7", OK, TL_NUM_UINT, 7, 0, 7.0},
        {"-7", OK, TL_NUM_INT, 0, -7, -7.0},
        {"18446744073709551615", OK, TL_NUM_UINT, UINT64_MAX, 0, 18446744073709551615.0},
        {"18446744073709551616", OK, TL_NUM_FLOAT, 0, 0, 1.8446744073709552e19},
        {"-9223372036854775808", OK, TL_NUM_INT, 0, INT64_MIN, -9223372036854775808.0},
        {"-9223372036854775807", OK, TL_NUM_INT, 0, -INT64_MAX, -9223372036854775807.0},
        {"-9223372036854775809", OK, TL_NUM_FLOAT, 0, 0, -9223372036854775809.0},
        {"-18446744073709551615", OK, TL_NUM_FLOAT, 0, 0, -18446744073709551615.0},
        /* the reference writes this back as 1715885247.9018197 */
        {"1715885247.9018195", OK, TL_NUM_FLOAT, 0, 0, 1715885247.9018197},
        {"1e308", OK, TL_NUM_FLOAT, 0, 0, 1e308},
        {"1.7976931348623157e308", OK, TL_NUM_FLOAT, 0, 0, 17976931348623157.0 * 1e292},
        /* strtod rounds this down to DBL_MAX; serde's product overflows */
        {"1.7976931348623158e308", RANGE, 0, 0, 0, 0},
        {"1e309", RANGE, 0, 0, 0, 0},
        {"-1e309", RANGE, 0, 0, 0, 0},
        {"10e308", RANGE, 0, 0, 0, 0},
        {"0.1e310", RANGE, 0, 0, 0, 0},
        {"0.0000000001e310", OK, TL_NUM_FLOAT, 0, 0, 1e300},
        {"1e-400", OK, TL_NUM_FLOAT, 0, 0, 0.0},
        {"-1e-400", OK, TL_NUM_FLOAT, 0, 0, -0.0},
        {"0e999999999999", OK, TL_NUM_FLOAT, 0, 0, 0.0},
        {"0e400", OK, TL_NUM_FLOAT, 0, 0, 0.0},
        {"-0e-999999999999", OK, TL_NUM_FLOAT, 0, 0, -0.0},
        {"1e99999999999", RANGE, 0, 0, 0, 0},
        {"1e2147483647", RANGE, 0, 0, 0, 0},
        {"-1e-99999999999", OK, TL_NUM_FLOAT, 0, 0, -0.0},
        {"1e-2147483648", OK, TL_NUM_FLOAT, 0, 0, 0.0},
        {"0.1", OK, TL_NUM_FLOAT, 0, 0, 0.1},
        {"1E2", OK, TL_NUM_FLOAT, 0, 0, 100.0},
        {"1e+2", OK, TL_NUM_FLOAT, 0, 0, 100.0},
        {"25e-1", OK, TL_NUM_FLOAT, 0, 0, 2.5},
        {"1e007", OK, TL_NUM_FLOAT, 0, 0, 1e7},
        {"5e-324", OK, TL_NUM_FLOAT, 0, 0, 5.0 / 1e308 / 1e16},
        {"2.2250738585072011e-308", OK, TL_NUM_FLOAT, 0, 0, 22250738585072011.0 / 1e308 / 1e16},
        {"9007199254740993.0", OK, TL_NUM_FLOAT, 0, 0, 90071992547409930.0 / 10},
        /* long literals: 20 digits fit u64, the rest only count */
        {"123456789012345678901234567890", OK, TL_NUM_FLOAT, 0, 0, 12345678901234567890.0 * 1e10},
        {"123456789012345678901234567890.123456789012345678901234567890", OK, TL_NUM_FLOAT, 0, 0,
         12345678901234567890.0 * 1e10},
        {"-0.000000000000000000000000000000123456789012345678901234567890e+3", OK, TL_NUM_FLOAT, 0,
         0, -(12345678901234567890.0 / 1e47)},
        {"1.00000000000000000000000000001", OK, TL_NUM_FLOAT, 0, 0, 10000000000000000000.0 / 1e19},
        /* "0." then 400 zeros and a 1 is built below */
    };
    for (size_t k = 0; k < TL_ARRAY_LEN(cases); k++) {
        const struct case_ *c = &cases[k];
        size_t n = strlen(c->text);
        struct tl_num got;
        memset(&got, 0xa5, sizeof(got));
        int rc = tl_json_num_parse(c->text, n, &got);
        if (rc != (c->rc == OK ? 0 : -1))
            fail_msg("'%s': rc %d", c->text, rc);
        check_against_ref(c->text, n);
        if (c->rc != OK)
            continue;
        if (got.kind != c->kind)
            fail_msg("'%s': kind %d, want %d", c->text, got.kind, c->kind);
        if (c->kind == TL_NUM_UINT && got.u != c->u)
            fail_msg("'%s': u %llu", c->text, (unsigned long long)got.u);
        if (c->kind == TL_NUM_INT && got.i != c->i)
            fail_msg("'%s': i %lld", c->text, (long long)got.i);
        if (!tu_same_bits(got.d, c->d))
            fail_msg("'%s': %.17g (%a), want %.17g (%a)", c->text, got.d, got.d, c->d, c->d);
    }

    struct tl_num v;
    /* -0 is a float with the sign bit, 0 an unsigned integer without */
    assert_int_equal(tl_json_num_parse("-0", 2, &v), 0);
    assert_true(signbit(v.d));
    assert_int_equal(tl_json_num_parse("0", 1, &v), 0);
    assert_false(signbit(v.d));
    assert_int_equal(tl_json_num_parse("-1e-400", 7, &v), 0);
    assert_true(signbit(v.d) && v.d == 0.0);

    /* The reference's known 1-ulp difference from correct rounding. */
    const char *t = "1715885247.9018195";
    assert_int_equal(tl_json_num_parse(t, strlen(t), &v), 0);
    assert_true(tu_same_bits(v.d, nextafter(strtod(t, NULL), INFINITY)));

    /* Smallest subnormal and a large exponent spread over two divisions. */
    assert_int_equal(tl_json_num_parse("5e-324", 6, &v), 0);
    assert_true(v.d == DBL_TRUE_MIN);

    /* 400 leading zeros in the fraction: each still lowers the exponent. */
    char buf[512];
    strcpy(buf, "0.");
    memset(buf + 2, '0', 400);
    strcpy(buf + 402, "1e401");
    assert_int_equal(tl_json_num_parse(buf, strlen(buf), &v), 0);
    assert_true(tu_same_bits(v.d, 1.0));
    check_against_ref(buf, strlen(buf));
    /* 330 integer digits of 9: 19 fit, 311 more push the exponent past 308. */
    memset(buf, '9', 330);
    buf[330] = '\0';
    assert_int_equal(tl_json_num_parse(buf, 330, &v), -1);
    strcpy(buf + 330, "e-40");
    assert_int_equal(tl_json_num_parse(buf, strlen(buf), &v), 0);
    assert_true(tu_same_bits(v.d, 1e19 * 1e271));
    check_against_ref(buf, strlen(buf));
}

/*
 * serde keeps a fraction digit after a long integer part when it still fits
 * u64. In "18446744073709551619.0e-19" the integer part fills the significand
 * with 1844674407370955161 and only counts the '9' (exponent 1); then the
 * fraction digit '0' fits (18446744073709551610, exponent 0), so the value is
 * 18446744073709551610 / 1e19, one ulp away from 1844674407370955161 / 1e18
 * (what dropping every digit after the overflow would give).
 */
static void test_fraction_after_long_integer(void **state)
{
    (void)state;
    const struct {
        const char *text;
        double d;
    } cases[] = {
        {"18446744073709551619.0e-19", 18446744073709551610.0 / 1e19},
        {"-18446744073709551619.0e-19", -(18446744073709551610.0 / 1e19)},
        {"18446744073709551619.01e-19", 18446744073709551610.0 / 1e19},
        /* '6' does not fit: dropped, like every digit after it */
        {"18446744073709551619.6e-19", 1844674407370955161.0 / 1e18},
        {"184467440737095516190.5", 18446744073709551615.0 * 1e1},
        {"1844674407370955161999.0123456789e-3", 18446744073709551610.0 / 1e1},
    };
    assert_false(tu_same_bits(cases[0].d, cases[3].d));
    for (size_t k = 0; k < TL_ARRAY_LEN(cases); k++) {
        size_t n = strlen(cases[k].text);
        struct tl_num v;
        assert_int_equal(tl_json_num_parse(cases[k].text, n, &v), 0);
        assert_int_equal(v.kind, TL_NUM_FLOAT);
        if (!tu_same_bits(v.d, cases[k].d))
            fail_msg("'%s': %.17g (%a), want %.17g (%a)", cases[k].text, v.d, v.d, cases[k].d,
                     cases[k].d);
        check_against_ref(cases[k].text, n);
    }
}

/* The model's table is the correctly rounded powers of ten. */
static void test_ref_table(void **state)
{
    (void)state;
    struct serde_ref_num r;
    assert_int_equal(serde_ref_parse("1", 1, &r), 0);
    const double exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    for (size_t k = 0; k < TL_ARRAY_LEN(exact); k++)
        assert_true(tu_same_bits(serde_ref_pow10[k], exact[k]));
    assert_true(tu_same_bits(serde_ref_pow10[23], 1e23));
    assert_true(tu_same_bits(serde_ref_pow10[200], 1e200));
    assert_true(tu_same_bits(serde_ref_pow10[308], 1e308));
}

struct rng {
    uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((r->s >> 33) % n);
}

static size_t add_digits(struct rng *r, char *o, size_t len, bool first_nonzero)
{
    for (size_t k = 0; k < len; k++)
        o[k] = (char)((k == 0 && first_nonzero ? '1' : '0') + rnd(r, first_nonzero && !k ? 9 : 10));
    return len;
}

/* A random JSON number literal, biased towards serde's edge cases. */
static size_t gen_literal(struct rng *r, char *buf)
{
    static const char *prefixes[] = {"1844674407370955161", "18446744073709551615",
                                     "9223372036854775808", "9007199254740992", "1715885247"};
    static const char *exps[] = {"2147483647",  "2147483648", "214748364", "0000000000000400",
                                 "99999999999", "308",        "309",       "324",
                                 "325",         "22",         "23"};
    size_t o = 0;
    if (rnd(r, 2))
        buf[o++] = '-';
    uint32_t shape = rnd(r, 8);
    if (shape == 0) {
        buf[o++] = '0';
    } else if (shape == 1) {
        const char *p = prefixes[rnd(r, TL_ARRAY_LEN(prefixes))];
        strcpy(buf + o, p);
        o += strlen(p);
        o += add_digits(r, buf + o, rnd(r, 4), false);
    } else {
        uint32_t len = shape < 5 ? 1 + rnd(r, 19) : 1 + rnd(r, 45);
        o += add_digits(r, buf + o, len, true);
    }
    if (rnd(r, 3)) {
        buf[o++] = '.';
        if (rnd(r, 6) == 0) {
            uint32_t zeros = rnd(r, 8) ? rnd(r, 30) : rnd(r, 400);
            memset(buf + o, '0', zeros);
            o += zeros;
        }
        o += add_digits(r, buf + o, 1 + (rnd(r, 4) ? rnd(r, 20) : rnd(r, 45)), false);
    }
    if (rnd(r, 3)) {
        buf[o++] = rnd(r, 2) ? 'e' : 'E';
        uint32_t sign = rnd(r, 3);
        if (sign)
            buf[o++] = sign == 1 ? '+' : '-';
        uint32_t how = rnd(r, 10);
        if (how == 0) {
            const char *p = exps[rnd(r, TL_ARRAY_LEN(exps))];
            strcpy(buf + o, p);
            o += strlen(p);
        } else {
            int e = how < 5 ? (int)rnd(r, 40) : how < 9 ? (int)rnd(r, 360) : (int)rnd(r, 800);
            o += (size_t)sprintf(buf + o, "%d", e);
        }
    }
    buf[o] = '\0';
    return o;
}

/* The exactly sized copy being checked, freed by teardown if a check fails
 * (fail_msg does not return). */
static char *in_flight;

static int free_in_flight(void **state)
{
    (void)state;
    free(in_flight);
    in_flight = NULL;
    return 0;
}

static void test_random_vs_ref(void **state)
{
    (void)state;
    struct rng r = {0x243f6a8885a308d3ULL};
    char buf[1024];
    int floats = 0, ints = 0, errors = 0, off_strtod = 0, subnormal = 0;
    uint64_t worst = 0;
    char worst_text[1024] = "";
    for (int iter = 0; iter < 100000; iter++) {
        size_t n = gen_literal(&r, buf);
        /* exactly sized copy: ASan catches any read past n */
        in_flight = malloc(n);
        assert_non_null(in_flight);
        memcpy(in_flight, buf, n);
        int rc = check_against_ref(in_flight, n);
        free_in_flight(NULL);
        if (rc != 0) {
            errors++;
            continue;
        }
        struct tl_num v;
        tl_json_num_parse(buf, n, &v);
        if (v.kind != TL_NUM_FLOAT) {
            ints++;
            continue;
        }
        floats++;
        if (v.d != 0 && fabs(v.d) < DBL_MIN)
            subnormal++;
        double s = strtod(buf, NULL);
        if (!tu_same_bits(s, v.d)) {
            off_strtod++;
            uint64_t u = isinf(s) ? UINT64_MAX : tu_ulps(s, v.d);
            if (u > worst) {
                worst = u;
                strcpy(worst_text, buf);
            }
        }
    }
    print_message("json_num random: %d floats, %d integers, %d out of range, %d subnormal, "
                  "%d not correctly rounded, worst %llu ulps at %s\n",
                  floats, ints, errors, subnormal, off_strtod, (unsigned long long)worst,
                  worst_text);
    /* the generator must reach every outcome */
    assert_true(floats > 50000);
    assert_true(ints > 1000);
    assert_true(errors > 1000);
    assert_true(subnormal > 100);
    assert_true(off_strtod > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_fraction_after_long_integer),
        cmocka_unit_test(test_ref_table),
        cmocka_unit_test_teardown(test_random_vs_ref, free_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
