/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON number literals read as serde_json reads them: integers that fit u64/i64 exactly,
 * other literals through its significand-then-power-of-ten conversion.
 */
#include "base/config.h"
#include "base/json_num.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

/* 1e0 .. 1e308, each the correctly rounded double (as Rust's literals are), made once
 * (strtod is correctly rounded; a literal table of 309 doubles would be as long as this). */
static double pow10_tab[309];
static pthread_once_t pow10_once = PTHREAD_ONCE_INIT;

static void init_pow10(void)
{
    char lit[8];
    for (int i = 0; i < 309; i++) {
        lit[0] = '1';
        lit[1] = 'e';
        int k = i, j = 2;
        char d[4];
        int nd = 0;
        do {
            d[nd++] = (char)('0' + k % 10);
            k /= 10;
        } while (k);
        while (nd)
            lit[j++] = d[--nd];
        lit[j] = '\0';
        pow10_tab[i] = strtod(lit, NULL);
    }
}

static int from_parts(bool positive, uint64_t significand, int32_t exponent, double *out)
{
    pthread_once(&pow10_once, init_pow10);
    double f = (double)significand;
    for (;;) {
        uint32_t a = exponent < 0 ? (uint32_t)0 - (uint32_t)exponent : (uint32_t)exponent;
        if (a < 309) {
            if (exponent >= 0) {
                f *= pow10_tab[a];
                if (isinf(f))
                    return -1;
            } else {
                f /= pow10_tab[a];
            }
            break;
        }
        if (f == 0.0)
            break;
        if (exponent >= 0)
            return -1;
        f /= 1e308;
        exponent += 308;
    }
    *out = positive ? f : -f;
    return 0;
}

static inline bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* significand * 10 + digit would exceed u64 */
static inline bool overflows(uint64_t s, unsigned digit)
{
    return s >= UINT64_MAX / 10 && (s > UINT64_MAX / 10 || digit > UINT64_MAX % 10);
}

static int32_t sat_add(int32_t a, int32_t b)
{
    int64_t r = (int64_t)a + b;
    return r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : (int32_t)r;
}

static int parse_exponent(const char *p, const char *end, bool positive, uint64_t significand,
                          int32_t starting, double *out)
{
    p++; /* 'e' or 'E' */
    bool pos_exp = true;
    if (p < end && (*p == '+' || *p == '-')) {
        pos_exp = *p == '+';
        p++;
    }
    int32_t exp = 0;
    for (; p < end && is_digit(*p); p++) {
        int32_t digit = *p - '0';
        if (exp >= INT32_MAX / 10 && (exp > INT32_MAX / 10 || digit > INT32_MAX % 10)) {
            /* serde: an error instead of infinity, zero instead of underflow */
            if (significand != 0 && pos_exp)
                return -1;
            *out = positive ? 0.0 : -0.0;
            return 0;
        }
        exp = exp * 10 + digit;
    }
    int32_t final = pos_exp ? sat_add(starting, exp) : sat_add(starting, -exp);
    return from_parts(positive, significand, final, out);
}

/* After the integer part: '.', 'e' or the end. */
static int parse_tail(const char *p, const char *end, bool positive, uint64_t significand,
                      int32_t exponent, double *out)
{
    if (p < end && *p == '.') {
        p++;
        for (; p < end && is_digit(*p); p++) {
            unsigned digit = (unsigned)(*p - '0');
            if (overflows(significand, digit)) {
                /* Further digits are ignored. */
                while (p < end && is_digit(*p))
                    p++;
                break;
            }
            significand = significand * 10 + digit;
            exponent--;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E'))
        return parse_exponent(p, end, positive, significand, exponent, out);
    return from_parts(positive, significand, exponent, out);
}

int tl_json_num_parse(const char *p, size_t n, struct tl_num *out)
{
    const char *end = p + n;
    bool positive = true;
    if (p < end && *p == '-') {
        positive = false;
        p++;
    }
    uint64_t significand = 0;
    for (; p < end && is_digit(*p); p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (overflows(significand, digit)) {
            /* A long integer part: the rest only scales it. */
            int32_t exponent = 0;
            for (; p < end && is_digit(*p); p++)
                exponent = sat_add(exponent, 1);
            out->kind = TL_NUM_FLOAT;
            return parse_tail(p, end, positive, significand, exponent, &out->d);
        }
        significand = significand * 10 + digit;
    }
    if (p < end && (*p == '.' || *p == 'e' || *p == 'E')) {
        out->kind = TL_NUM_FLOAT;
        return parse_tail(p, end, positive, significand, 0, &out->d);
    }
    if (positive) {
        out->kind = TL_NUM_UINT;
        out->u = significand;
        out->d = (double)significand;
        return 0;
    }
    int64_t neg = (int64_t)(0 - significand);
    if (significand != 0 && significand <= (uint64_t)INT64_MAX + 1) {
        out->kind = TL_NUM_INT;
        out->i = neg;
        out->d = (double)neg;
        return 0;
    }
    /* "-0" and negatives below i64: a float, as serde_json does. */
    out->kind = TL_NUM_FLOAT;
    out->d = -(double)significand;
    return 0;
}
