/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for utf8.c: every boundary of the 1-4 byte forms, overlongs,
 * surrogates, code points above U+10FFFF, truncated sequences, stray
 * continuation bytes, the valid-prefix length for each, the 8-byte ASCII fast
 * path around multi-byte sequences, and an exhaustive comparison with a naive
 * decoder over every 1-3 byte input (and a large sample of 4-byte inputs).
 * Every input is copied into an exactly sized heap block so that ASan catches
 * a read past the end.
 */
#include "base/config.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* tl_utf8_valid_prefix on an exactly sized heap copy of p[0..n). */
static size_t prefix_n(const char *p, size_t n)
{
    char *c = malloc(n ? n : 1);
    assert_non_null(c);
    if (n)
        memcpy(c, p, n);
    size_t r = tl_utf8_valid_prefix(c, n);
    bool v = tl_utf8_valid(c, n);
    free(c);
    /* The two entry points must agree. */
    assert_int_equal(v, r == n);
    return r;
}

/* Expect p (a C string literal, so no NUL inside) to have valid prefix want. */
#define PREFIX(lit, want) assert_int_equal(prefix_n((lit), sizeof(lit) - 1), (want))
#define VALID(lit) PREFIX(lit, sizeof(lit) - 1)

static void test_ascii(void **state)
{
    (void)state;
    VALID("");
    VALID("a");
    VALID("hello");
    VALID("exactly8");
    VALID("sixteen bytes!!!");
    VALID("\x01\x1f\x7f ~");
    /* NUL is a valid one-byte character. */
    assert_int_equal(prefix_n("a\0b", 3), 3);
    assert_int_equal(prefix_n("\0\0\0\0\0\0\0\0\0", 9), 9);
    assert_true(tl_utf8_valid("abc", 3));
    assert_true(tl_utf8_valid(NULL, 0));
    assert_int_equal(tl_utf8_valid_prefix(NULL, 0), 0);
}

static void test_two_byte(void **state)
{
    (void)state;
    VALID("\xC2\x80");         /* U+0080, smallest */
    VALID("\xDF\xBF");         /* U+07FF, largest */
    VALID("caf\xC3\xA9");      /* é */
    VALID("\xC2\xA0\xD0\x96"); /* two in a row */
    /* Overlongs: C0/C1 leads can never start a sequence. */
    PREFIX("\xC0\x80", 0);
    PREFIX("\xC1\xBF", 0);
    PREFIX("ab\xC0\xAF", 2);
    /* Bad continuation. */
    PREFIX("\xC2\x7F", 0);
    PREFIX("\xC2\xC0", 0);
    PREFIX("x\xDF\x00", 1);
}

static void test_three_byte(void **state)
{
    (void)state;
    VALID("\xE0\xA0\x80"); /* U+0800 */
    VALID("\xEF\xBF\xBF"); /* U+FFFF */
    VALID("\xED\x9F\xBF"); /* U+D7FF, just below the surrogates */
    VALID("\xEE\x80\x80"); /* U+E000, just above them */
    VALID("\xE2\x82\xAC"); /* € */
    VALID("\xEF\xBB\xBF"); /* BOM is just a character */
    /* Overlongs. */
    PREFIX("\xE0\x80\x80", 0);
    PREFIX("\xE0\x9F\xBF", 0);
    PREFIX("ok\xE0\x9F\xBF", 2);
    /* Surrogates D800..DFFF. */
    PREFIX("\xED\xA0\x80", 0);
    PREFIX("\xED\xBF\xBF", 0);
    PREFIX("abc\xED\xA0\x80", 3);
    /* Bad continuation in the 2nd or 3rd byte. */
    PREFIX("\xE2\x28\xA1", 0);
    PREFIX("\xE2\x82\x28", 0);
    PREFIX("\xE2\x82\xC0", 0);
}

static void test_four_byte(void **state)
{
    (void)state;
    VALID("\xF0\x90\x80\x80"); /* U+10000 */
    VALID("\xF4\x8F\xBF\xBF"); /* U+10FFFF */
    VALID("\xF0\x9F\x98\x80"); /* 😀 */
    VALID("\xF3\xBF\xBF\xBF");
    /* Overlongs. */
    PREFIX("\xF0\x80\x80\x80", 0);
    PREFIX("\xF0\x8F\xBF\xBF", 0);
    /* Above U+10FFFF. */
    PREFIX("\xF4\x90\x80\x80", 0);
    PREFIX("a\xF4\x90\x80\x80", 1);
    PREFIX("\xF5\x80\x80\x80", 0);
    PREFIX("\xF7\xBF\xBF\xBF", 0);
    /* 5- and 6-byte forms and the bytes that are never valid. */
    PREFIX("\xF8\x88\x80\x80\x80", 0);
    PREFIX("\xFC\x84\x80\x80\x80\x80", 0);
    PREFIX("\xFE", 0);
    PREFIX("\xFF", 0);
    /* Bad continuation in each position. */
    PREFIX("\xF0\x28\x8C\xBC", 0);
    PREFIX("\xF0\x90\x28\xBC", 0);
    PREFIX("\xF0\x90\x8C\x28", 0);
    PREFIX("xy\xF0\x90\x8C\xC0", 2);
}

static void test_truncated_at_end(void **state)
{
    (void)state;
    PREFIX("\xC2", 0);
    PREFIX("ab\xC2", 2);
    PREFIX("ab\xE0\xA0", 2);
    PREFIX("ab\xE2", 2);
    PREFIX("ab\xF0\x90\x80", 2);
    PREFIX("ab\xF0\x90", 2);
    PREFIX("ab\xF0", 2);
    /* Truncated right after a valid multi-byte character. */
    PREFIX("\xC3\xA9\xE2\x82", 2);
    PREFIX("\xF0\x9F\x98\x80\xF0\x9F\x98", 4);
    /* A sequence truncated by the length, not by the bytes in memory. */
    assert_int_equal(prefix_n("\xE2\x82\xAC", 2), 0);
    assert_int_equal(prefix_n("a\xF0\x9F\x98\x80", 4), 1);
}

static void test_stray_continuation(void **state)
{
    (void)state;
    PREFIX("\x80", 0);
    PREFIX("\xBF", 0);
    PREFIX("a\x80"
           "b",
           1);
    PREFIX("\xC3\xA9\xA9", 2);
    PREFIX("\xE2\x82\xAC\x80", 3);
    PREFIX("\xF0\x9F\x98\x80\xBF", 4);
}

static void test_prefix_stops_at_first_error(void **state)
{
    (void)state;
    PREFIX("abc\xC3\xA9\xFF"
           "def\xC3\xA9",
           5);
    PREFIX("\xFF"
           "abcdefgh",
           0);
}

/* Multi-byte sequences placed at every offset around the 8-byte ASCII fast
 * path, and errors placed after long ASCII runs. */
static void test_fast_path_boundaries(void **state)
{
    (void)state;
    static const char *const seqs[] = {"\xC2\x80", "\xE0\xA0\x80", "\xF4\x8F\xBF\xBF"};
    static const char *const bad[] = {"\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\x80"};
    char in[64];
    for (size_t pre = 0; pre < 20; pre++) {
        for (size_t s = 0; s < TL_ARRAY_LEN(seqs); s++) {
            size_t sl = strlen(seqs[s]);
            for (size_t post = 0; post < 12; post++) {
                memset(in, 'a', sizeof(in));
                memcpy(in + pre, seqs[s], sl);
                size_t n = pre + sl + post;
                assert_int_equal(prefix_n(in, n), n);
                /* Cut one byte off the sequence when nothing follows it. */
                if (post == 0)
                    assert_int_equal(prefix_n(in, n - 1), pre);
            }
        }
        for (size_t s = 0; s < TL_ARRAY_LEN(bad); s++) {
            size_t sl = strlen(bad[s]);
            for (size_t post = 0; post < 12; post++) {
                memset(in, 'a', sizeof(in));
                memcpy(in + pre, bad[s], sl);
                assert_int_equal(prefix_n(in, pre + sl + post), pre);
            }
        }
    }
}

/* A straightforward decoder: the length of the valid prefix of p[0..n). */
static size_t naive_prefix(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4, cp = c & 0x07, min = 0x10000;
        } else {
            return i;
        }
        if (i + len > n)
            return i;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += len;
    }
    return n;
}

static void test_exhaustive_short(void **state)
{
    (void)state;
    unsigned char b[3];
    for (unsigned x = 0; x < 256; x++) {
        b[0] = (unsigned char)x;
        assert_int_equal(tl_utf8_valid_prefix((const char *)b, 1), naive_prefix(b, 1));
        for (unsigned y = 0; y < 256; y++) {
            b[1] = (unsigned char)y;
            assert_int_equal(tl_utf8_valid_prefix((const char *)b, 2), naive_prefix(b, 2));
        }
    }
    /* All 16M three-byte inputs; count mismatches rather than assert in the
     * loop so a failure reports how widespread it is. */
    size_t bad = 0, valid = 0;
    for (unsigned v = 0; v < (1u << 24); v++) {
        b[0] = (unsigned char)(v >> 16);
        b[1] = (unsigned char)(v >> 8);
        b[2] = (unsigned char)v;
        size_t got = tl_utf8_valid_prefix((const char *)b, 3);
        size_t want = naive_prefix(b, 3);
        if (got != want) {
            if (bad < 5)
                print_error("%02x %02x %02x: got %zu want %zu\n", b[0], b[1], b[2], got, want);
            bad++;
        }
        valid += want == 3;
    }
    assert_int_equal(bad, 0);
    /* Sanity check of the reference itself: 128^3 ASCII triples, 2 * 128 *
     * 1920 ASCII + 2-byte pairs, 63488 - 2048 three-byte characters. */
    assert_int_equal(valid, 2097152 + 491520 + 61440);
}

static void test_exhaustive_four_byte_sample(void **state)
{
    (void)state;
    static const unsigned char tails[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90,
                                          0x9F, 0xA0, 0xBF, 0xC0, 0xF4, 0xFF};
    unsigned char b[4];
    size_t bad = 0;
    for (unsigned x = 0; x < 256; x++) {
        for (unsigned y = 0; y < 256; y++) {
            for (size_t z = 0; z < sizeof(tails); z++) {
                for (size_t w = 0; w < sizeof(tails); w++) {
                    b[0] = (unsigned char)x;
                    b[1] = (unsigned char)y;
                    b[2] = tails[z];
                    b[3] = tails[w];
                    if (tl_utf8_valid_prefix((const char *)b, 4) != naive_prefix(b, 4))
                        bad++;
                }
            }
        }
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ascii),
        cmocka_unit_test(test_two_byte),
        cmocka_unit_test(test_three_byte),
        cmocka_unit_test(test_four_byte),
        cmocka_unit_test(test_truncated_at_end),
        cmocka_unit_test(test_stray_continuation),
        cmocka_unit_test(test_prefix_stops_at_first_error),
        cmocka_unit_test(test_fast_path_boundaries),
        cmocka_unit_test(test_exhaustive_short),
        cmocka_unit_test(test_exhaustive_four_byte_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
