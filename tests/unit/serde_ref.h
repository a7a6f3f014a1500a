/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A second, independent model of how serde_json (default features, no
 * float_roundtrip) turns a number literal into a value, used by the tests to
 * check src/json_num.c and src/json.c without comparing the code with itself.
 *
 * It is transliterated function by function from serde_json's src/de.rs
 * (parse_integer, parse_number, parse_decimal, parse_exponent,
 * parse_long_integer, parse_decimal_overflow, parse_exponent_overflow and
 * f64_from_parts), deliberately in another shape than src/json_num.c: a
 * cursor with peek/eat, overflow detected with the compiler's checked
 * arithmetic instead of serde's overflow! macro (the two are equivalent),
 * exponent sums done in 64 bits and then saturated. The powers of ten are
 * the correctly rounded doubles 1e0..1e308, as Rust's POW10 literals are.
 *
 * Header-only, everything static inline; include it from one test file.
 */
#ifndef TL_TEST_SERDE_REF_H
#define TL_TEST_SERDE_REF_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum serde_ref_kind {
    SERDE_U64, /* ParserNumber::U64 */
    SERDE_I64, /* ParserNumber::I64 */
    SERDE_F64, /* ParserNumber::F64 */
};

struct serde_ref_num {
    enum serde_ref_kind kind;
    uint64_t u;
    int64_t i;
    double f;
};

/* Results, like serde's ErrorCode. */
enum {
    SERDE_OK = 0,
    SERDE_OUT_OF_RANGE = -1, /* ErrorCode::NumberOutOfRange */
    SERDE_INVALID = -2,      /* ErrorCode::InvalidNumber (grammar) */
};

struct serde_ref_cur {
    const char *p;
    const char *end;
};

static double serde_ref_pow10[309];
static bool serde_ref_pow10_ready;

static inline void serde_ref_init(void)
{
    for (int i = 0; i < 309; i++) {
        char lit[16];
        snprintf(lit, sizeof(lit), "1e%d", i);
        serde_ref_pow10[i] = strtod(lit, NULL);
    }
    serde_ref_pow10_ready = true;
}

/* peek_or_null: the next byte, or 0 at the end. */
static inline int sr_peek(const struct serde_ref_cur *c)
{
    return c->p < c->end ? (unsigned char)*c->p : 0;
}

static inline bool sr_is_digit(int ch)
{
    return ch >= '0' && ch <= '9';
}

static inline int32_t sr_saturate(int64_t x)
{
    return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : (int32_t)x;
}

/* *s = *s * 10 + digit, or false (and *s unchanged) if that exceeds u64. */
static inline bool sr_push_digit(uint64_t *s, int digit)
{
    uint64_t t;
    if (__builtin_mul_overflow(*s, (uint64_t)10, &t) ||
        __builtin_add_overflow(t, (uint64_t)digit, &t))
        return false;
    *s = t;
    return true;
}

/* f64_from_parts (not float_roundtrip) */
static inline int sr_f64_from_parts(bool positive, uint64_t significand, int32_t exponent,
                                    double *out)
{
    double f = (double)significand;
    for (;;) {
        /* POW10.get(exponent.wrapping_abs() as usize) */
        int64_t index = exponent < 0 ? -(int64_t)exponent : (int64_t)exponent;
        if (index < 309) {
            double pow = serde_ref_pow10[index];
            if (exponent >= 0) {
                f *= pow;
                if (isinf(f))
                    return SERDE_OUT_OF_RANGE;
            } else {
                f /= pow;
            }
            break;
        }
        if (f == 0.0)
            break;
        if (exponent >= 0)
            return SERDE_OUT_OF_RANGE;
        f /= 1e308;
        exponent += 308;
    }
    *out = positive ? f : -f;
    return SERDE_OK;
}

/* parse_exponent_overflow */
static inline int sr_parse_exponent_overflow(struct serde_ref_cur *c, bool positive,
                                             bool zero_significand, bool positive_exp, double *out)
{
    if (!zero_significand && positive_exp)
        return SERDE_OUT_OF_RANGE;
    while (sr_is_digit(sr_peek(c)))
        c->p++;
    *out = positive ? 0.0 : -0.0;
    return SERDE_OK;
}

/* parse_exponent: the cursor is at 'e' or 'E'. */
static inline int sr_parse_exponent(struct serde_ref_cur *c, bool positive, uint64_t significand,
                                    int32_t starting_exp, double *out)
{
    c->p++;
    bool positive_exp = true;
    if (sr_peek(c) == '+') {
        c->p++;
    } else if (sr_peek(c) == '-') {
        c->p++;
        positive_exp = false;
    }
    int next = sr_peek(c);
    if (!sr_is_digit(next))
        return SERDE_INVALID;
    c->p++;
    int64_t exp = next - '0';
    while (sr_is_digit(sr_peek(c))) {
        int digit = sr_peek(c) - '0';
        c->p++;
        if (exp * 10 + digit > INT32_MAX)
            return sr_parse_exponent_overflow(c, positive, significand == 0, positive_exp, out);
        exp = exp * 10 + digit;
    }
    int64_t final_exp = positive_exp ? (int64_t)starting_exp + exp : (int64_t)starting_exp - exp;
    return sr_f64_from_parts(positive, significand, sr_saturate(final_exp), out);
}

/* parse_decimal_overflow */
static inline int sr_parse_decimal_overflow(struct serde_ref_cur *c, bool positive,
                                            uint64_t significand, int32_t exponent, double *out)
{
    while (sr_is_digit(sr_peek(c)))
        c->p++;
    int ch = sr_peek(c);
    if (ch == 'e' || ch == 'E')
        return sr_parse_exponent(c, positive, significand, exponent, out);
    return sr_f64_from_parts(positive, significand, exponent, out);
}

/* parse_decimal: the cursor is at '.'. */
static inline int sr_parse_decimal(struct serde_ref_cur *c, bool positive, uint64_t significand,
                                   int32_t exponent_before_decimal_point, double *out)
{
    c->p++;
    int32_t exponent_after_decimal_point = 0;
    while (sr_is_digit(sr_peek(c))) {
        int digit = sr_peek(c) - '0';
        if (!sr_push_digit(&significand, digit))
            return sr_parse_decimal_overflow(
                c, positive, significand,
                exponent_before_decimal_point + exponent_after_decimal_point, out);
        c->p++;
        exponent_after_decimal_point--;
    }
    if (exponent_after_decimal_point == 0)
        return SERDE_INVALID;
    int32_t exponent = exponent_before_decimal_point + exponent_after_decimal_point;
    int ch = sr_peek(c);
    if (ch == 'e' || ch == 'E')
        return sr_parse_exponent(c, positive, significand, exponent, out);
    return sr_f64_from_parts(positive, significand, exponent, out);
}

/* parse_long_integer: significand is full; count the remaining digits. */
static inline int sr_parse_long_integer(struct serde_ref_cur *c, bool positive,
                                        uint64_t significand, double *out)
{
    int64_t exponent = 0;
    for (;;) {
        int ch = sr_peek(c);
        if (sr_is_digit(ch)) {
            c->p++;
            exponent++;
        } else if (ch == '.') {
            return sr_parse_decimal(c, positive, significand, sr_saturate(exponent), out);
        } else if (ch == 'e' || ch == 'E') {
            return sr_parse_exponent(c, positive, significand, sr_saturate(exponent), out);
        } else {
            return sr_f64_from_parts(positive, significand, sr_saturate(exponent), out);
        }
    }
}

/* parse_number: after the integer part. */
static inline int sr_parse_number(struct serde_ref_cur *c, bool positive, uint64_t significand,
                                  struct serde_ref_num *out)
{
    int ch = sr_peek(c);
    if (ch == '.' || ch == 'e' || ch == 'E') {
        out->kind = SERDE_F64;
        if (ch == '.')
            return sr_parse_decimal(c, positive, significand, 0, &out->f);
        return sr_parse_exponent(c, positive, significand, 0, &out->f);
    }
    if (positive) {
        out->kind = SERDE_U64;
        out->u = significand;
        return SERDE_OK;
    }
    /* (significand as i64).wrapping_neg(); gcc and clang convert modulo 2^64 */
    int64_t neg = (int64_t)(0 - significand);
    if (neg >= 0) { /* "-0", or below i64::MIN */
        out->kind = SERDE_F64;
        out->f = -(double)significand;
    } else {
        out->kind = SERDE_I64;
        out->i = neg;
    }
    return SERDE_OK;
}

/**
 * serde_json's value for the number literal s[0..n), which must span the
 * whole literal. Returns SERDE_OK, SERDE_OUT_OF_RANGE or SERDE_INVALID.
 */
static inline int serde_ref_parse(const char *s, size_t n, struct serde_ref_num *out)
{
    if (!serde_ref_pow10_ready)
        serde_ref_init();
    struct serde_ref_cur c = {s, s + n};
    bool positive = true;
    if (sr_peek(&c) == '-') {
        c.p++;
        positive = false;
    }
    int rc;
    int first = sr_peek(&c);
    if (first == '0') {
        c.p++;
        if (sr_is_digit(sr_peek(&c)))
            return SERDE_INVALID;
        rc = sr_parse_number(&c, positive, 0, out);
    } else if (sr_is_digit(first)) {
        c.p++;
        uint64_t significand = (uint64_t)(first - '0');
        for (;;) {
            int ch = sr_peek(&c);
            if (!sr_is_digit(ch)) {
                rc = sr_parse_number(&c, positive, significand, out);
                break;
            }
            if (!sr_push_digit(&significand, ch - '0')) {
                out->kind = SERDE_F64;
                rc = sr_parse_long_integer(&c, positive, significand, &out->f);
                break;
            }
            c.p++;
        }
    } else {
        return SERDE_INVALID;
    }
    if (rc == SERDE_OK && c.p != c.end)
        return SERDE_INVALID; /* trailing characters */
    return rc;
}

#endif
