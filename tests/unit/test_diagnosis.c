/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for model/diagnosis.c and what report/summary_*.c say of it: a recompile's guard
 * counts its distinct values exactly, past the kept ones too, and the text and summary.json
 * say what the count is (PyTorch lists, for each recompile, the failure of every earlier
 * compilation: 14 recompiles of a growing size give 105 values). The fix of an export
 * problem in the log's names (model/advice.c): the torch._check() of a data-dependent
 * condition on the variable .item() made, the dimension of an evaluated guard. A diagnosis read
 * back from a summary (model/diag_read.c): the same text, and odd summaries read safely.
 */
#include "base/config.h"
#include "model/diagnosis.h"
#include "base/buf.h"
#include "model/advice.h"
#include "model/diag_read.h"
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

/* The check of expr as it came out (result), its symbols made by the lines given. */
static const char *check(const char *expr, const char *result, const char *const *made)
{
    static struct tl_buf out = TL_BUF_INIT;
    struct tl_advice_unbacked syms[4];
    size_t n = 0;
    for (; made && made[2 * n]; n++) {
        syms[n].symbol = tl_str_cstr(made[2 * n]);
        syms[n].code = made[2 * n + 1] ? tl_str_cstr(made[2 * n + 1]) : TL_STR_NULL;
    }
    tl_buf_release(&out);
    tl_advice_export_check(&out, tl_str_cstr(expr), tl_str_cstr(result), syms, n);
    return out.buf;
}

static void test_export_check(void **state)
{
    (void)state;
    const char *const n[] = {"u0", "n = x.item()", NULL};
    const char *const ab[] = {"u0", "a = x.item()", "u1", "  b=int(y.sum().item())", NULL};
    assert_string_equal(check("u0 < 10", "True", n), "torch._check(n < 10)");
    assert_string_equal(check("u0 < 10", "False", n), "torch._check(n >= 10)");
    assert_string_equal(check("u0 >= 0", "False", n), "torch._check(n < 0)");
    assert_string_equal(check("u0 <= 4", "False", n), "torch._check(n > 4)");
    assert_string_equal(check("u0 > 4", "False", n), "torch._check(n <= 4)");
    assert_string_equal(check("Eq(u0, 0)", "False", n), "torch._check(n != 0)");
    assert_string_equal(check("Eq(u0, 0)", "True", n), "torch._check(n == 0)");
    assert_string_equal(check("Ne(u0, 1)", "False", n), "torch._check(n == 1)");
    /* export.log's: the expression as logged, its symbol renamed */
    assert_string_equal(check("Eq((((-u0)//3)) + 5, 0)", "False",
                              (const char *const[]){"u0", "a = x.item()", NULL}),
                        "torch._check((((-a)//3)) + 5 != 0)");
    assert_string_equal(check("Eq(u0 + u1, 2*u1)", "False", ab), "torch._check(a + b != 2*b)");
    assert_string_equal(check(" u1 % 2 < u0 ", "True", ab), "torch._check(b % 2 < a)");
    /* not to be written so: nothing */
    assert_string_equal(check("u0 < 10", "u0", n), "");              /* no boolean */
    assert_string_equal(check("u2 < 10", "True", n), "");            /* a symbol not made here */
    assert_string_equal(check("s0 < 10", "True", n), "");            /* a backed symbol */
    assert_string_equal(check("Eq(Mod(u0, 2), 0)", "False", n), ""); /* sympy's Mod */
    assert_string_equal(check("u0 < 0.5", "True", n), "");           /* a float */
    assert_string_equal(check("u0 < 1e5", "True", n), "");
    assert_string_equal(check("(u0 < 4) & (u0 > 1)", "True", n), ""); /* two comparisons */
    assert_string_equal(check("u0", "True", n), "");                  /* none */
    assert_string_equal(check("Eq(u0, 0, 1)", "True", n), "");
    assert_string_equal(
        check("u0 < 10", "True", (const char *const[]){"u0", "a, b = t.tolist()", NULL}), "");
    assert_string_equal(
        check("u0 < 10", "True", (const char *const[]){"u0", "n == x.item()", NULL}), "");
    assert_string_equal(check("u0 < 10", "True", (const char *const[]){"u0", NULL, NULL}), "");
    check("", "", NULL);
}

static const char *dim(const char *readable)
{
    static struct tl_buf out = TL_BUF_INIT;
    tl_buf_release(&out);
    tl_advice_dim(&out, tl_str_cstr(readable));
    return out.buf;
}

static void test_export_dim(void **state)
{
    (void)state;
    assert_string_equal(dim("Eq(L['x'].size()[0], 4)"), "x.shape[0]");
    assert_string_equal(dim("L['args'][0][0].size()[0] <= 8"), "");
    assert_string_equal(dim("Eq(L['y'].stride()[0], 1) & Eq(L['img'].size()[12], 3)"),
                        "img.shape[12]");
    assert_string_equal(dim("Eq(s0, 4)"), "");
    assert_string_equal(dim("L['x'].size()[]"), "");
    assert_string_equal(dim("L['"), "");
    dim("");
}

/* The advice as printed: the check and the dimension in the fix, stand-ins without them. */
static void test_export_fix(void **state)
{
    (void)state;
    const struct tl_advice *a = tl_advice_match(TL_ADVICE_EXPORT, tl_str_cstr("data_dependent"));
    struct tl_advice_vars v;
    memset(&v, 0, sizeof(v));
    v.check = tl_str_cstr("torch._check(n < 10)");
    struct tl_buf out = TL_BUF_INIT;
    tl_advice_format(&out, a->fix, &v);
    assert_string_equal(out.buf, "If the outcome is the same for every input, say so before that "
                                 "line: torch._check(n < 10). If both outcomes occur, write the "
                                 "branch with torch.cond(pred, true_fn, false_fn).");
    tl_buf_reset(&out);
    tl_advice_format(&out, a->fix, NULL);
    assert_string_equal(out.buf, "If the outcome is the same for every input, say so before that "
                                 "line: call torch._check() with the outcome, written on the "
                                 "Python values the condition reads (torch._check_is_size() for "
                                 "a number used as a size). If both outcomes occur, write the "
                                 "branch with torch.cond(pred, true_fn, false_fn).");
    a = tl_advice_match(TL_ADVICE_EXPORT, tl_str_cstr("guard_evaluated"));
    v.dim = tl_str_cstr("x.shape[0]");
    tl_buf_reset(&out);
    tl_advice_format(&out, a->fix, &v);
    assert_non_null(strstr(out.buf, "(a branch or an assert on x.shape[0], a hard-coded size"));
    tl_buf_release(&out);
}

/* A summary written, read back, and written again as text and JSON: the same. */
static void test_read_back(void **state)
{
    (void)state;
    struct tl_diag d;
    tl_diag_init(&d);
    growing_size(&d, 14);
    tl_diag_finish(&d);
    struct tl_summary_source src = {"m.log", "torch_trace", NULL, NULL};
    struct tl_buf json = TL_BUF_INIT, text = TL_BUF_INIT, again = TL_BUF_INIT;
    tl_summary_json(&json, &d, &src, true);
    tl_summary_text(&text, &d, &src, false);
    struct tl_diag r;
    tl_diag_init(&r);
    struct tl_diag_source from;
    struct tl_err err = {TL_ERR_NONE, ""};
    assert_int_equal(tl_diag_read(&r, json.buf, json.len, &from, &err), 0);
    assert_string_equal(from.path, "m.log");
    assert_string_equal(from.kind, "torch_trace");
    tl_summary_text(&again, &r, &src, false);
    assert_string_equal(again.buf, text.buf);
    tl_buf_reset(&again);
    tl_summary_json(&again, &r, &src, true);
    assert_non_null(strstr(again.buf, "\"distinct_values\": 105,"));
    struct tl_diag_counts a, b;
    tl_diag_counts(&d, &a);
    tl_diag_counts(&r, &b);
    assert_int_equal(a.recompiles, b.recompiles);
    assert_int_equal(a.compile_ids, b.compile_ids);
    tl_diag_release(&r);
    tl_diag_release(&d);
    tl_buf_release(&json);
    tl_buf_release(&text);
    tl_buf_release(&again);
}

/* What no summary of ours holds: read without harm, an index past its array left out. */
static void test_read_odd(void **state)
{
    (void)state;
    static const char *const odd[] = {
        "{\"schema\": \"tlparse-summary/1\"}",
        "{\"schema\": \"tlparse-summary/1\", \"findings\": [{\"kind\": \"recompile\", "
        "\"index\": 3}, {\"kind\": \"graph_break\", \"index\": 0}, 7, {\"kind\": 1}], "
        "\"graph_breaks\": [{\"reason\": 5, \"where\": [1, {\"file\": \"a.py\", \"line\": "
        "-1}], \"ranks\": [\"x\", 99999999999, 1, 1], \"pytorch_location\": \":7\"}], "
        "\"recompiles\": [3, {\"reasons\": [null, {\"values\": [1, \"v\"], "
        "\"distinct_values\": \"many\"}]}], \"frames\": {}, \"compile_time\": {\"total_s\": "
        "1e300, \"slowest\": [{\"seconds\": \"1\"}]}, \"cache\": [], \"graphs\": [{}], "
        "\"export\": [{\"kind\": \"nope\", \"unbacked\": [{}, {}, {}, {}, {}, {}]}]}",
    };
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        struct tl_diag d;
        tl_diag_init(&d);
        struct tl_diag_source from;
        struct tl_err err = {TL_ERR_NONE, ""};
        assert_int_equal(tl_diag_read(&d, odd[i], strlen(odd[i]), &from, &err), 0);
        struct tl_summary_source src = {from.path, from.kind, NULL, NULL};
        struct tl_buf out = TL_BUF_INIT;
        tl_summary_text(&out, &d, &src, true);
        tl_summary_json(&out, &d, &src, true);
        tl_page_diagnosis(&out, &d, "#", NULL);
        if (i == 1) {
            assert_int_equal(d.nfindings, 1); /* the graph break; recompile 3 is none */
            assert_int_equal(d.ranks.n, 1);
            assert_false(d.have_times);
        }
        tl_buf_release(&out);
        tl_diag_release(&d);
    }
    static const char *const bad[] = {"", "[]", "{\"schema\": \"tlparse-ranks/1\"}", "{"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct tl_diag d;
        tl_diag_init(&d);
        struct tl_diag_source from;
        struct tl_err err = {TL_ERR_NONE, ""};
        assert_int_equal(tl_diag_read(&d, bad[i], strlen(bad[i]), &from, &err), -1);
        assert_int_equal(err.code, TL_ERR_INPUT);
        tl_diag_release(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distinct_values), cmocka_unit_test(test_few_values),
        cmocka_unit_test(test_export_check),    cmocka_unit_test(test_export_dim),
        cmocka_unit_test(test_export_fix),      cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_read_odd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
