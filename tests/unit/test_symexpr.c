/* SPDX-License-Identifier: BSD-3-Clause */
/* PyTorch's symbolic shape expressions: symbols, float symbols, guards that always hold. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "input/symexpr.h"

#include <string.h>

static void test_symbol_at(void **state)
{
    (void)state;
    const char *e = "Eq(s0, 32) and u12 + zf3 - xs1 - s2x";
    assert_int_equal(tl_symexpr_symbol_at(e, strstr(e, "s0")), 2);
    assert_int_equal(tl_symexpr_symbol_at(e, strstr(e, "u12")), 3);
    assert_int_equal(tl_symexpr_symbol_at(e, strstr(e, "zf3")), 3);
    assert_int_equal(tl_symexpr_symbol_at(e, strstr(e, "s1")), 0);  /* part of xs1 */
    assert_int_equal(tl_symexpr_symbol_at(e, strstr(e, "s2x")), 0); /* s2x is no symbol */
    assert_int_equal(tl_symexpr_symbol_at(e, e), 0);                /* "Eq" */
    assert_int_equal(tl_symexpr_symbol_at("s", "s"), 0);
}

static void test_float_symbol(void **state)
{
    (void)state;
    assert_true(tl_symexpr_float_symbol("zf0"));
    assert_true(tl_symexpr_float_symbol("zf128"));
    assert_false(tl_symexpr_float_symbol("zf"));
    assert_false(tl_symexpr_float_symbol("s0"));
    assert_false(tl_symexpr_float_symbol("zf1a"));
    assert_false(tl_symexpr_float_symbol(NULL));
}

static void test_always_holds(void **state)
{
    (void)state;
    /* PyTorch 2.13's bound of a view, with guards suppressed */
    assert_true(tl_symexpr_always_holds("8*((s77//2)) <= 4*s77"));
    assert_true(tl_symexpr_always_holds("s0 >= 0"));
    assert_true(tl_symexpr_always_holds("Ne(Mod(s0, 2), 3)"));
    assert_true(tl_symexpr_always_holds("Eq(2*s1, s1 + s1)"));
    /* a specialization, or a bound that some size breaks */
    assert_false(tl_symexpr_always_holds("Eq(s0, 32)"));
    assert_false(tl_symexpr_always_holds("s0 <= 1000"));
    assert_false(tl_symexpr_always_holds("2 <= s0"));
    /* what cannot be told: two symbols, a float, a function, no comparison, no symbol */
    assert_false(tl_symexpr_always_holds("s0 <= s0 + s1"));
    assert_false(tl_symexpr_always_holds("s0 <= 2.5*s0"));
    assert_false(tl_symexpr_always_holds("sqrt(s0) >= 0"));
    assert_false(tl_symexpr_always_holds("s0 + 1"));
    assert_false(tl_symexpr_always_holds("1 <= 2"));
    assert_false(tl_symexpr_always_holds(""));
    assert_false(tl_symexpr_always_holds(NULL));
    assert_false(tl_symexpr_always_holds("((((s0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbol_at),
        cmocka_unit_test(test_float_symbol),
        cmocka_unit_test(test_always_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
