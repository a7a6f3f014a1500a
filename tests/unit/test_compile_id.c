/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for compile_id.c (spec core.md §6, §3.1): display and folder
 * strings for all 16 presence combinations, the spec's examples, the
 * compile-directory and metrics key normalisations, equality and the
 * fixed-size map key.
 */
#include "base/config.h"
#include "input/compile_id.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static struct tl_compile_id cid(int ca, int frame, int fcid, int attempt)
{
    /* -1 = missing */
    struct tl_compile_id id;
    memset(&id, 0, sizeof(id));
    if (ca >= 0)
        id.has |= TL_CID_CA, id.ca = (uint32_t)ca;
    if (frame >= 0)
        id.has |= TL_CID_FRAME, id.frame = (uint32_t)frame;
    if (fcid >= 0)
        id.has |= TL_CID_FCID, id.fcid = (uint32_t)fcid;
    if (attempt >= 0)
        id.has |= TL_CID_ATTEMPT, id.attempt = (uint32_t)attempt;
    return id;
}

static void expect_display(struct tl_compile_id id, const char *want)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_adds(&b, "<");
    tl_cid_display(&b, &id);
    char got[128];
    snprintf(got, sizeof(got), "%s", b.buf);
    tl_buf_release(&b);
    char w[128];
    snprintf(w, sizeof(w), "<%s", want);
    assert_string_equal(got, w); /* appends, keeping what was there */
}

static void expect_folder(struct tl_compile_id id, const char *want)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_cid_folder(&b, &id);
    char got[128];
    snprintf(got, sizeof(got), "%s", b.buf);
    tl_buf_release(&b);
    assert_string_equal(got, want);
}

static void test_spec_examples(void **state)
{
    (void)state;
    expect_display(cid(-1, 0, 0, 0), "[0/0]");
    expect_display(cid(-1, 0, 0, 1), "[0/0_1]");
    expect_display(cid(-1, -1, -1, -1), "[-/-]");
    expect_display(cid(3, -1, -1, -1), "[!3/-/-]");
    expect_display(cid(1, 5, 2, 3), "[!1/5/2_3]");
    expect_display(cid(-1, 5, 2, -1), "[5/2]");

    expect_folder(cid(-1, 0, 0, 0), "-_0_0_0");
    expect_folder(cid(-1, 0, 0, 1), "-_0_0_1");
    expect_folder(cid(1, 5, 2, 3), "1_5_2_3");
    expect_folder(cid(3, -1, -1, -1), "3_-_-_-");
    expect_folder(cid(-1, -1, -1, -1), "-_-_-_-");
    expect_folder(cid(-1, 5, 2, -1), "-_5_2_-");
}

static void test_all_presence_combinations(void **state)
{
    (void)state;
    /* ca=7 frame=8 fcid=9 attempt=2, each present or not. */
    static const char *const display[16] = {
        "[-/-]",   "[!7/-/-]",   "[8/-]",   "[!7/8/-]",   "[-/9]",   "[!7/-/9]",
        "[8/9]",   "[!7/8/9]",   "[-/-_2]", "[!7/-/-_2]", "[8/-_2]", "[!7/8/-_2]",
        "[-/9_2]", "[!7/-/9_2]", "[8/9_2]", "[!7/8/9_2]",
    };
    static const char *const folder[16] = {
        "-_-_-_-", "7_-_-_-", "-_8_-_-", "7_8_-_-", "-_-_9_-", "7_-_9_-", "-_8_9_-", "7_8_9_-",
        "-_-_-_2", "7_-_-_2", "-_8_-_2", "7_8_-_2", "-_-_9_2", "7_-_9_2", "-_8_9_2", "7_8_9_2",
    };
    for (int has = 0; has < 16; has++) {
        struct tl_compile_id id =
            cid(has & 1 ? 7 : -1, has & 2 ? 8 : -1, has & 4 ? 9 : -1, has & 8 ? 2 : -1);
        assert_int_equal(id.has, has);
        expect_display(id, display[has]);
        expect_folder(id, folder[has]);
    }
}

static void test_attempt_zero_and_large(void **state)
{
    (void)state;
    /* Attempt 0 is hidden in the display but kept in the folder. */
    expect_display(cid(-1, 1, 2, 0), "[1/2]");
    expect_folder(cid(-1, 1, 2, 0), "-_1_2_0");
    expect_display(cid(0, 0, 0, 0), "[!0/0/0]");
    expect_folder(cid(0, 0, 0, 0), "0_0_0_0");
    /* The values of missing parts are not printed even if set. */
    struct tl_compile_id junk = {.ca = 5, .frame = 6, .fcid = 7, .attempt = 8, .has = 0};
    expect_display(junk, "[-/-]");
    expect_folder(junk, "-_-_-_-");
    /* u32 extremes. */
    struct tl_compile_id big = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 15};
    expect_display(big, "[!4294967295/4294967295/4294967295_4294967295]");
    expect_folder(big, "4294967295_4294967295_4294967295_4294967295");
    expect_display(cid(-1, 10, 123, 45), "[10/123_45]");
}

static void test_dir_key(void **state)
{
    (void)state;
    struct tl_compile_id k;
    /* attempt missing + fcid present -> attempt 0 */
    k = tl_cid_dir_key(cid(-1, 5, 2, -1));
    struct tl_compile_id want = cid(-1, 5, 2, 0);
    assert_true(tl_cid_eq(&k, &want));
    expect_display(k, "[5/2]");
    expect_folder(k, "-_5_2_0");
    /* attempt present: unchanged */
    k = tl_cid_dir_key(cid(-1, 5, 2, 3));
    want = cid(-1, 5, 2, 3);
    assert_true(tl_cid_eq(&k, &want));
    /* fcid missing: attempt stays missing */
    k = tl_cid_dir_key(cid(3, -1, -1, -1));
    want = cid(3, -1, -1, -1);
    assert_true(tl_cid_eq(&k, &want));
    k = tl_cid_dir_key(cid(-1, 4, -1, -1));
    want = cid(-1, 4, -1, -1);
    assert_true(tl_cid_eq(&k, &want));
    /* attempt present, fcid missing: unchanged */
    k = tl_cid_dir_key(cid(-1, 4, -1, 2));
    want = cid(-1, 4, -1, 2);
    assert_true(tl_cid_eq(&k, &want));
    /* A missing attempt with a junk value is normalised to 0. */
    struct tl_compile_id junk = cid(-1, 1, 1, -1);
    junk.attempt = 9;
    k = tl_cid_dir_key(junk);
    assert_int_equal(k.attempt, 0);
    assert_int_equal(k.has, TL_CID_FRAME | TL_CID_FCID | TL_CID_ATTEMPT);
    /* Missing and 0 share one directory key. */
    struct tl_compile_id a = tl_cid_dir_key(cid(-1, 0, 0, -1));
    struct tl_compile_id b = tl_cid_dir_key(cid(-1, 0, 0, 0));
    assert_true(tl_cid_eq(&a, &b));
}

static void test_metrics_key(void **state)
{
    (void)state;
    struct tl_compile_id k, want;
    /* fcid present: attempt forced to 0, present or not */
    k = tl_cid_metrics_key(cid(-1, 5, 2, 3));
    want = cid(-1, 5, 2, 0);
    assert_true(tl_cid_eq(&k, &want));
    k = tl_cid_metrics_key(cid(-1, 5, 2, -1));
    assert_true(tl_cid_eq(&k, &want));
    k = tl_cid_metrics_key(cid(1, 5, 2, 7));
    want = cid(1, 5, 2, 0);
    assert_true(tl_cid_eq(&k, &want));
    /* fcid missing: unchanged, attempt included */
    k = tl_cid_metrics_key(cid(-1, 5, -1, 3));
    want = cid(-1, 5, -1, 3);
    assert_true(tl_cid_eq(&k, &want));
    k = tl_cid_metrics_key(cid(-1, -1, -1, -1));
    want = cid(-1, -1, -1, -1);
    assert_true(tl_cid_eq(&k, &want));
}

static void test_equality(void **state)
{
    (void)state;
    struct tl_compile_id a = cid(-1, 0, 0, 0), b = cid(-1, 0, 0, -1);
    /* Missing is not 0. */
    assert_false(tl_cid_eq(&a, &b));
    a = cid(0, 1, 2, 3);
    b = cid(0, 1, 2, 3);
    assert_true(tl_cid_eq(&a, &b));
    b = cid(-1, 1, 2, 3);
    assert_false(tl_cid_eq(&a, &b));
    b = cid(0, 1, 2, 4);
    assert_false(tl_cid_eq(&a, &b));
    b = cid(0, 9, 2, 3);
    assert_false(tl_cid_eq(&a, &b));
    b = cid(0, 1, 9, 3);
    assert_false(tl_cid_eq(&a, &b));
    b = cid(1, 1, 2, 3);
    assert_false(tl_cid_eq(&a, &b));
}

static void test_map_key(void **state)
{
    (void)state;
    char ka[TL_CID_KEY_LEN], kb[TL_CID_KEY_LEN];
    struct tl_compile_id a, b;
    /* Equal ids give equal keys, unequal ids unequal keys. */
    a = cid(1, 2, 3, 4);
    b = cid(1, 2, 3, 4);
    tl_cid_key(&a, ka);
    tl_cid_key(&b, kb);
    assert_memory_equal(ka, kb, TL_CID_KEY_LEN);
    a = cid(-1, 0, 0, 0);
    b = cid(-1, 0, 0, -1);
    tl_cid_key(&a, ka);
    tl_cid_key(&b, kb);
    assert_memory_not_equal(ka, kb, TL_CID_KEY_LEN);
    /* A part's position matters: [1/2] vs [2/1], frame vs ca. */
    a = cid(-1, 1, 2, -1);
    b = cid(-1, 2, 1, -1);
    tl_cid_key(&a, ka);
    tl_cid_key(&b, kb);
    assert_memory_not_equal(ka, kb, TL_CID_KEY_LEN);
    a = cid(5, -1, -1, -1);
    b = cid(-1, 5, -1, -1);
    tl_cid_key(&a, ka);
    tl_cid_key(&b, kb);
    assert_memory_not_equal(ka, kb, TL_CID_KEY_LEN);
    /* Exhaustive over small values: key equality == tl_cid_eq. */
    static const int vals[] = {-1, 0, 1, 256};
    struct tl_compile_id ids[256];
    size_t n = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++)
                for (int l = 0; l < 4; l++)
                    ids[n++] = cid(vals[i], vals[j], vals[k], vals[l]);
    for (size_t i = 0; i < n; i++) {
        tl_cid_key(&ids[i], ka);
        for (size_t j = 0; j < n; j++) {
            tl_cid_key(&ids[j], kb);
            bool same = memcmp(ka, kb, TL_CID_KEY_LEN) == 0;
            assert_int_equal(same, tl_cid_eq(&ids[i], &ids[j]));
            assert_int_equal(same, i == j);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_examples),
        cmocka_unit_test(test_all_presence_combinations),
        cmocka_unit_test(test_attempt_zero_and_large),
        cmocka_unit_test(test_dir_key),
        cmocka_unit_test(test_metrics_key),
        cmocka_unit_test(test_equality),
        cmocka_unit_test(test_map_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
