/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_md5_many against RFC 1321's test suite and against libmd, message by message: every
 * length from 0 to 300 (the padding's boundaries 55, 56, 63, 64, 119, 120 among them), batches
 * of 1 to 40 messages of mixed lengths (lanes refilled as they end), long ones beside short
 * ones, with each kind of lanes the CPU has (AVX-512, AVX2) and with none. Each message is an
 * exactly sized heap block, so that ASan catches a read past its end.
 */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/md5.h"

#include <md5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex_of(const char *s, char hex[33])
{
    struct tl_md5_msg m = {s, strlen(s), {0}};
    tl_md5_many(&m, 1);
    tl_md5_to_hex(m.digest, hex);
}

/* RFC 1321, appendix A.5, alone and (the lanes) seven at once. */
static void test_rfc1321(void **state)
{
    (void)state;
    static const char *const suite[][2] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"12345678901234567890123456789012345678901234567890"
         "123456789012345678901234567890",
         "57edf4a22be3c955ac49da2e2107b67a"},
    };
    char hex[33];
    struct tl_md5_msg m[7];
    for (size_t i = 0; i < 7; i++) {
        hex_of(suite[i][0], hex);
        assert_string_equal(hex, suite[i][1]);
        m[i] = (struct tl_md5_msg){suite[i][0], strlen(suite[i][0]), {0}};
    }
    tl_md5_many(m, 7);
    for (size_t i = 0; i < 7; i++) {
        tl_md5_to_hex(m[i].digest, hex);
        assert_string_equal(hex, suite[i][1]);
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* n messages of the given lengths, hashed at once, each compared with libmd's digest. */
static void check_batch(const size_t *len, size_t n)
{
    struct tl_md5_msg *m = calloc(n, sizeof(*m));
    assert_non_null(m);
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = malloc(len[i] ? len[i] : 1);
        assert_non_null(p);
        for (size_t k = 0; k < len[i]; k++)
            p[k] = (uint8_t)next_rand();
        m[i] = (struct tl_md5_msg){p, len[i], {0}};
    }
    tl_md5_many(m, n);
    for (size_t i = 0; i < n; i++) {
        uint8_t want[16];
        MD5_CTX ctx;
        MD5Init(&ctx);
        MD5Update(&ctx, m[i].p, m[i].n);
        MD5Final(want, &ctx);
        if (memcmp(want, m[i].digest, 16) != 0)
            fail_msg("message %zu of %zu (%zu bytes): digest differs from libmd's", i, n, len[i]);
        free((void *)m[i].p);
    }
    free(m);
}

static void every_length_and_mix(void)
{
    size_t len[300];
    /* every length 0..299, alone, then eight at a time, then all at once */
    for (size_t i = 0; i < 300; i++) {
        len[i] = i;
        check_batch(&len[i], 1);
    }
    for (size_t i = 0; i + 8 <= 300; i += 8)
        check_batch(&len[i], 8);
    check_batch(len, 300);
    /* batches of 1 to 40 of random lengths, some long: lanes end at different blocks */
    for (size_t n = 1; n <= 40; n++) {
        size_t mix[40];
        for (size_t i = 0; i < n; i++)
            mix[i] = next_rand() % 8 == 0 ? next_rand() % 70000 : next_rand() % 400;
        check_batch(mix, n);
    }
    /* one long message among many empty ones, and the other way round */
    size_t lone[17] = {0};
    lone[3] = 1 << 20;
    check_batch(lone, 17);
    for (size_t i = 0; i < 17; i++)
        lone[i] = i == 9 ? 0 : 4096 + i;
    check_batch(lone, 17);
}

static void test_against_libmd(void **state)
{
    (void)state;
    every_length_and_mix();
}

/* Each kind of lanes this CPU has, and none (libmd alone), gives libmd's digests. */
static void test_each_kind_of_lanes(void **state)
{
    (void)state;
    const char *kinds[] = {"avx512", "avx2", "none"};
    int tried = 0;
    for (int i = 0; i < 3; i++) {
        if (!tl_md5_set_lanes(kinds[i]))
            continue;
        assert_string_equal(tl_md5_lanes(), kinds[i]);
        every_length_and_mix();
        tried++;
    }
    assert_true(tried >= 1);
    assert_false(tl_md5_set_lanes("avx1024"));
    assert_true(tl_md5_set_lanes("avx512") || tl_md5_set_lanes("avx2") || tl_md5_set_lanes("none"));
}

/* The lanes are what make it fast: the widest the CPU has are used. */
static void test_widest_used(void **state)
{
    (void)state;
#if defined(__x86_64__)
    __builtin_cpu_init();
    const char *want = __builtin_cpu_supports("avx512f") ? "avx512"
                       : __builtin_cpu_supports("avx2")  ? "avx2"
                                                         : "none";
#else
    const char *want = "none";
#endif
    assert_string_equal(tl_md5_lanes(), want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc1321),
        cmocka_unit_test(test_against_libmd),
        cmocka_unit_test(test_widest_used),
        cmocka_unit_test(test_each_kind_of_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
