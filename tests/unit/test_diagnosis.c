/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for model/diagnosis.c and what report/summary.c says of it: a recompile's guard
 * counts its distinct values exactly, past the kept ones too, and the text and summary.json
 * say what the count is (PyTorch lists, for each recompile, the failure of every earlier
 * compilation: 14 recompiles of a growing size give 105 values).
 */
#include "base/config.h"
#include "model/diagnosis.h"
#include "base/buf.h"
#include "report/summary.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

/* Recompile k of frame 0 (k = 1..n) as PyTorch logs it: the size of x grew to k + 2, and each
 * earlier compilation j (size j + 2) fails with its own pair "expected j + 2, actual k + 2". */
static void growing_size(struct tl_diag *d, uint32_t n)
{
    struct tl_diag_fact_loc fn;
    memset(&fn, 0, sizeof(fn));
    fn.file = tl_str_cstr("/w/m.py");
    fn.function = tl_str_cstr("kernel");
    fn.line = 6;
    fn.def = true;
    char text[64][96];
    struct tl_str guards[64];
    for (uint32_t k = 1; k <= n; k++) {
        struct tl_compile_id cid = {0, 0, k, 0, TL_CID_FRAME | TL_CID_FCID | TL_CID_ATTEMPT};
        for (uint32_t j = 0; j < k; j++) {
            snprintf(text[j], sizeof(text[j]),
                     "0/%u: tensor 'x' size mismatch at index 0. expected %u, actual %u", k - 1 - j,
                     k + 1 - j, k + 2);
            guards[j] = tl_str_cstr(text[j]);
        }
        tl_diag_recompile(d, &cid, &fn, guards, k);
    }
}

static void test_distinct_values(void **state)
{
    (void)state;
    struct tl_diag d;
    tl_diag_init(&d);
    growing_size(&d, 14);
    tl_diag_finish(&d);
    assert_int_equal(d.nrecompiles, 1);
    const struct tl_diag_guard *g = &d.recompiles[0].guards[0];
    assert_int_equal(d.recompiles[0].nguards, 1);
    assert_int_equal(g->count, 14);
    assert_int_equal(g->values.kept, TL_DIAG_MAX_VALUES);
    assert_int_equal(g->values.n, 105); /* 1 + 2 + ... + 14 pairs, all different */

    /* the same calls again: 28 recompiles, and not one value more */
    growing_size(&d, 14);
    tl_diag_finish(&d);
    g = &d.recompiles[0].guards[0];
    assert_int_equal(g->count, 28);
    assert_int_equal(g->values.n, 105);

    struct tl_summary_source src = {"m.log", "torch_trace", NULL, NULL};
    struct tl_buf out = TL_BUF_INIT;
    tl_summary_text(&out, &d, &src, false);
    assert_non_null(strstr(out.buf, "     - tensor 'x' size mismatch at index 0  (28x: expected "
                                    "2, actual 3; expected 3, actual 4; expected 2, actual 4; "
                                    "expected 4, actual 5; ... 105 distinct values in all: a "
                                    "recompile gives one for each earlier compilation that "
                                    "failed this guard)\n"));
    tl_buf_reset(&out);
    tl_summary_json(&out, &d, &src, true);
    assert_non_null(strstr(out.buf, "\"distinct_values\": 105,"));
    tl_buf_reset(&out);
    tl_page_diagnosis(&out, &d, "#", NULL);
    assert_non_null(strstr(out.buf, "; &hellip; 105 distinct values in all: a recompile gives "
                                    "one for each earlier compilation that failed this guard"));
    tl_buf_release(&out);
    tl_diag_release(&d);
}

/* Fewer values than recompiles: the count alone, nothing to explain. */
static void test_few_values(void **state)
{
    (void)state;
    struct tl_diag d;
    tl_diag_init(&d);
    struct tl_diag_fact_loc fn;
    memset(&fn, 0, sizeof(fn));
    fn.function = tl_str_cstr("f");
    char text[96];
    for (uint32_t k = 1; k <= 12; k++) {
        struct tl_compile_id cid = {0, 0, k, 0, TL_CID_FRAME | TL_CID_FCID | TL_CID_ATTEMPT};
        snprintf(text, sizeof(text), "0/0: L['n'] == %u", k % 6);
        struct tl_str g = tl_str_cstr(text);
        tl_diag_recompile(&d, &cid, &fn, &g, 1);
    }
    tl_diag_finish(&d);
    const struct tl_diag_guard *g = &d.recompiles[0].guards[0];
    assert_int_equal(g->count, 12);
    assert_int_equal(g->values.n, 6);
    struct tl_summary_source src = {"m.log", "torch_trace", NULL, NULL};
    struct tl_buf out = TL_BUF_INIT;
    tl_summary_text(&out, &d, &src, false);
    assert_non_null(strstr(out.buf, "; ... 6 distinct values in all)\n"));
    tl_buf_release(&out);
    tl_diag_release(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distinct_values),
        cmocka_unit_test(test_few_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
