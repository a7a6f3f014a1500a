/* SPDX-License-Identifier: BSD-3-Clause */
/* The `str` table: overwrite, gaps, the id limit. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/strtab.h"

#include <string.h>

static void test_set_get(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 0);
    struct tl_strtab t;
    tl_strtab_init(&t, &a);
    assert_null(tl_strtab_get(&t, 0).p);
    assert_true(tl_strtab_set(&t, 3, TL_STR_LIT("c.py")));
    assert_int_equal(t.len, 4);
    assert_null(tl_strtab_get(&t, 1).p); /* a gap */
    assert_true(tl_str_eq_cstr(tl_strtab_get(&t, 3), "c.py"));
    assert_true(tl_strtab_set(&t, 3, TL_STR_LIT("d.py"))); /* later wins */
    assert_true(tl_str_eq_cstr(tl_strtab_get(&t, 3), "d.py"));
    assert_true(tl_strtab_set(&t, 0, TL_STR_LIT("")));
    assert_non_null(tl_strtab_get(&t, 0).p); /* empty but defined */
    assert_int_equal(tl_strtab_get(&t, 0).n, 0);
    assert_null(tl_strtab_get(&t, 99).p);
    tl_strtab_release(&t);
    tl_arena_release(&a);
}

static void test_limit(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 0);
    struct tl_strtab t;
    tl_strtab_init(&t, &a);
    assert_true(tl_strtab_set(&t, TL_STRTAB_MAX_ID, TL_STR_LIT("edge")));
    assert_false(tl_strtab_set(&t, TL_STRTAB_MAX_ID + 1, TL_STR_LIT("over")));
    assert_false(tl_strtab_set(&t, UINT32_MAX, TL_STR_LIT("over")));
    assert_int_equal(t.len, (size_t)TL_STRTAB_MAX_ID + 1);
    tl_strtab_release(&t);
    tl_arena_release(&a);
}

/* raw.jsonl's string table line: null for a gap, strings as serde_json escapes them. */
static void test_json(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 0);
    struct tl_strtab t;
    tl_strtab_init(&t, &a);
    struct tl_buf b = TL_BUF_INIT;
    tl_strtab_json(&b, &t);
    assert_string_equal(b.buf, "{\"string_table\":[null]}\n"); /* none: one null */
    assert_true(tl_strtab_set(&t, 0, TL_STR_LIT("a.py")));
    assert_true(tl_strtab_set(&t, 2, TL_STR_LIT("q\"b\\s/\n\x01\x7f\xc3\xa9\xff")));
    assert_true(tl_strtab_set(&t, 3, TL_STR_LIT("")));
    tl_buf_reset(&b);
    tl_strtab_json(&b, &t);
    assert_string_equal(b.buf, "{\"string_table\":[\"a.py\",null,"
                               "\"q\\\"b\\\\s/\\n\\u0001\x7f\xc3\xa9\xff\",\"\"]}\n");
    tl_buf_release(&b);
    tl_strtab_release(&t);
    tl_arena_release(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
