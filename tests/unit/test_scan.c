/* SPDX-License-Identifier: BSD-3-Clause */
/* The 16-byte JSON string scanners: the one in use (SSE2 on x86-64), the
 * 64-bit-word one and the byte loop agree on every byte value at every
 * position, over noise, and on the lowest of several stops. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/scan.h"

#include <stdlib.h>

static unsigned scalar(const unsigned char *p, bool high)
{
    for (unsigned i = 0; i < 16; i++) {
        unsigned c = p[i];
        if (c < 0x20 || c == '"' || c == '\\' || (high && c >= 0x80))
            return i;
    }
    return 16;
}

static void agree(const unsigned char *p)
{
    for (int h = 0; h < 2; h++) {
        bool high = h;
        unsigned want = scalar(p, high);
        assert_int_equal(tl_scan16_json(p, high), want);
        assert_int_equal(tl_scan16_json_bytes(p, high), want);
#ifdef TL_SCAN_HAVE_SWAR
        assert_int_equal(tl_scan16_json_swar(p, high), want);
#endif
    }
}

static void test_every_byte_everywhere(void **state)
{
    (void)state;
    unsigned char p[16];
    for (unsigned pos = 0; pos < 16; pos++) {
        for (unsigned c = 0; c < 256; c++) {
            for (unsigned i = 0; i < 16; i++)
                p[i] = 'a';
            p[pos] = (unsigned char)c;
            agree(p);
            /* next to a byte that borrows in the word trick */
            if (pos + 1 < 16) {
                p[pos + 1] = 0x00;
                agree(p);
                p[pos + 1] = 0x21;
                agree(p);
            }
        }
    }
    /* the lowest of two stops, whatever the higher one is */
    for (unsigned i = 0; i < 16; i++)
        p[i] = 'x';
    p[3] = '\\';
    p[9] = '"';
    assert_int_equal(tl_scan16_json(p, false), 3);
    for (unsigned i = 0; i < 16; i++)
        p[i] = 'x';
    p[12] = 0x1f;
    p[13] = 0x20;
    assert_int_equal(tl_scan16_json(p, false), 12);
    p[5] = 0xc3;
    assert_int_equal(tl_scan16_json(p, false), 12);
    assert_int_equal(tl_scan16_json(p, true), 5);
}

static void test_noise(void **state)
{
    (void)state;
    srand(7);
    unsigned char p[16];
    for (int n = 0; n < 200000; n++) {
        /* mostly plain text, with a few of each kind of stop */
        for (unsigned i = 0; i < 16; i++) {
            int r = rand() % 64;
            p[i] = r == 0   ? (unsigned char)(rand() % 0x20)
                   : r == 1 ? '"'
                   : r == 2 ? '\\'
                   : r == 3 ? (unsigned char)(0x80 + rand() % 0x80)
                            : (unsigned char)(0x20 + rand() % 0x5f);
        }
        agree(p);
    }
}

/* tl_scan_find against memmem: haystacks of a small alphabet (many near misses), needles of
 * 1 to 20 bytes taken from them or not, every length of haystack around the 16-byte steps. */
static void test_find(void **state)
{
    (void)state;
    srand(11);
    char hay[96];
    char needle[24];
    for (int t = 0; t < 100000; t++) {
        size_t hn = (size_t)(rand() % (int)sizeof(hay));
        for (size_t i = 0; i < hn; i++)
            hay[i] = "aab_c"[rand() % 5];
        size_t n = 1 + (size_t)(rand() % 20);
        if (hn >= n && rand() % 2) {
            memcpy(needle, hay + (size_t)rand() % (hn - n + 1), n);
        } else {
            for (size_t i = 0; i < n; i++)
                needle[i] = "aab_c"[rand() % 5];
        }
        const char *want = memmem(hay, hn, needle, n);
        const char *got = tl_scan_find(hay, hn, needle, n);
        if (got != want)
            fail_msg("hay %.*s needle %.*s: got %td want %td", (int)hn, hay, (int)n, needle,
                     got ? got - hay : -1, want ? want - hay : -1);
    }
    assert_null(tl_scan_find("abc", 3, "abcd", 4));
    static const char ev[] = "{\"name\": \"autograd_cache_miss\", \"ph\": \"i\", \"args\": {}}";
    assert_ptr_equal(tl_scan_find(ev, sizeof(ev) - 1, "autograd_cache_", 15), ev + 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_byte_everywhere),
        cmocka_unit_test(test_noise),
        cmocka_unit_test(test_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
