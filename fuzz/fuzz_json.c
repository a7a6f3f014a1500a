/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for json.c and json_write.c: parse the input; if it is valid
 * JSON, write it compact and pretty, parse both outputs again and check that
 * they re-serialise to the same text.
 *
 * Floats are read as serde_json reads them (json_num.h: not correctly
 * rounded), so reading back the shortest digits of a double can land an ulp
 * or two away (0.111...1e-10 with 400 ones is written 1.1111111111111111e-11,
 * which reads back as 1.1111111111111113e-11). Round trips therefore compare
 * float literals by value, within a few ulps; everything else, integers
 * included, must come back byte for byte. Compact and pretty output carry the
 * same literals, so what they parse to must write out identically.
 */
#include "base/config.h"
#include "base/json.h"
#include "base/json_write.h"
#include "base/arena.h"
#include "base/buf.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void mismatch(const char *what, const struct tl_buf *a, const struct tl_buf *b)
{
    fprintf(stderr, "fuzz_json: %s\n--- first\n%s\n--- second\n%s\n", what, a->buf, b->buf);
    abort();
}

/* Whether two float literals are within a few ulps of each other. */
static bool close_floats(const char *a, size_t na, const char *b, size_t nb)
{
    char x[64], y[64];
    if (na >= sizeof(x) || nb >= sizeof(y))
        return false;
    memcpy(x, a, na);
    x[na] = '\0';
    memcpy(y, b, nb);
    y[nb] = '\0';
    double u = strtod(x, NULL), v = strtod(y, NULL);
    if (u == v)
        return true;
    if (!isfinite(u) || !isfinite(v) || (u < 0) != (v < 0))
        return false;
    double lo = fmin(fabs(u), fabs(v)), hi = fmax(fabs(u), fabs(v));
    for (int i = 0; i < 4 && lo < hi; i++)
        lo = nextafter(lo, INFINITY);
    return lo >= hi;
}

static bool is_num_char(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Our writer's output a and b are equal but for nearby float literals. */
static bool same_but_floats(const struct tl_buf *a, const struct tl_buf *b)
{
    size_t i = 0, j = 0;
    while (i < a->len && j < b->len) {
        char c = a->buf[i];
        if (c == '"') {
            /* A string: byte for byte up to its closing quote. */
            size_t k = i + 1;
            while (k < a->len && a->buf[k] != '"')
                k += a->buf[k] == '\\' ? 2 : 1;
            k++;
            if (k > a->len || b->len - j < k - i || memcmp(a->buf + i, b->buf + j, k - i) != 0)
                return false;
            j += k - i;
            i = k;
        } else if (is_num_char(c)) {
            size_t ei = i, ej = j;
            while (ei < a->len && is_num_char(a->buf[ei]))
                ei++;
            while (ej < b->len && is_num_char(b->buf[ej]))
                ej++;
            bool same = ei - i == ej - j && memcmp(a->buf + i, b->buf + j, ei - i) == 0;
            if (!same) {
                bool float_a = memchr(a->buf + i, '.', ei - i) || memchr(a->buf + i, 'e', ei - i);
                bool float_b = memchr(b->buf + j, '.', ej - j) || memchr(b->buf + j, 'e', ej - j);
                if (!float_a || !float_b || !close_floats(a->buf + i, ei - i, b->buf + j, ej - j))
                    return false;
            }
            i = ei;
            j = ej;
        } else {
            if (b->buf[j] != c)
                return false;
            i++;
            j++;
        }
    }
    return i == a->len && j == b->len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tl_arena a;
    struct tl_json v;
    struct tl_json_error err;
    tl_arena_init(&a, 4096);
    if (tl_json_parse(&a, (const char *)data, size, &v, &err) != 0) {
        if (!err.msg || err.offset > size)
            abort();
        tl_arena_release(&a);
        return 0;
    }

    struct tl_buf compact = TL_BUF_INIT;
    struct tl_buf pretty = TL_BUF_INIT;
    struct tl_buf again = TL_BUF_INIT;
    struct tl_buf again2 = TL_BUF_INIT;
    tl_json_write_compact(&compact, &v);
    tl_json_write_pretty(&pretty, &v, 0);
    if (memchr(compact.buf, '\n', compact.len))
        mismatch("compact output has a newline", &compact, &compact);

    /* compact -> parse -> compact */
    struct tl_json w;
    if (tl_json_parse(&a, compact.buf, compact.len, &w, &err) != 0) {
        fprintf(stderr, "compact output does not parse: %s at %zu\n", err.msg, err.offset);
        mismatch("compact output invalid", &compact, &compact);
    }
    tl_json_write_compact(&again, &w);
    if (!same_but_floats(&compact, &again))
        mismatch("compact round trip differs", &compact, &again);

    /* pretty -> parse -> compact: the same literals as compact, the same values */
    if (tl_json_parse(&a, pretty.buf, pretty.len, &w, &err) != 0) {
        fprintf(stderr, "pretty output does not parse: %s at %zu\n", err.msg, err.offset);
        mismatch("pretty output invalid", &pretty, &pretty);
    }
    tl_json_write_compact(&again2, &w);
    if (again2.len != again.len || memcmp(again2.buf, again.buf, again.len) != 0)
        mismatch("pretty and compact parse differently", &again, &again2);

    /* pretty of the re-parsed pretty text is stable too */
    tl_buf_reset(&again);
    tl_json_write_pretty(&again, &w, 0);
    if (!same_but_floats(&pretty, &again))
        mismatch("pretty output not stable", &pretty, &again);

    tl_buf_release(&compact);
    tl_buf_release(&pretty);
    tl_buf_release(&again);
    tl_buf_release(&again2);
    tl_arena_release(&a);
    return 0;
}
