/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for model/guard_diff.c and the recompile forecast of model/diag_forecast.c: guard
 * tree lines as PyTorch 2.6 and 2.13 print them normalized (the tree, the kind and the comment
 * gone, object ids masked in the text and kept as the value, a compilation's own global names
 * made equal); the differences between two entries (changed, added, removed, only the parts
 * that differ, bounded); and per frame the entries, the limit, the recompiles left and the
 * eager mode after the limit, read back from summary JSON the same.
 */
#include "base/config.h"
#include "model/guard_diff.h"
#include "base/buf.h"
#include "model/diag_read.h"
#include "model/diagnosis.h"
#include "report/summary.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

static void norm(const char *line, const char *text, const char *key, const char *value)
{
    struct tl_buf t = TL_BUF_INIT, k = TL_BUF_INIT, v = TL_BUF_INIT;
    bool guard = tl_guard_normalize(tl_str_cstr(line), &t, &k, &v);
    if (!text) {
        assert_false(guard);
    } else {
        assert_true(guard);
        assert_string_equal(t.buf, text);
        assert_string_equal(k.buf, key);
        assert_string_equal(v.buf, value);
    }
    tl_buf_release(&t);
    tl_buf_release(&k);
    tl_buf_release(&v);
}

static void test_normalize(void **state)
{
    (void)state;
    /* 2.13: the user code after the guard is a comment */
    norm("| | +- EQUALS_MATCH: L['k'] == 0                     # return x + k  # mp/limit.py:11 in "
         "bump",
         "L['k'] == 0", "L['k'] ==", "0");
    /* 2.6's trace: trailing spaces only */
    norm("| | +- EQUALS_MATCH: L['k'] == 1                                                 ",
         "L['k'] == 1", "L['k'] ==", "1");
    norm("| | | +- TRUE_MATCH: L['self']._modules['drop'].training == True   # x  # d.py:73",
         "L['self']._modules['drop'].training == True",
         "L['self']._modules['drop'].training ==", "True");
    /* 2.6: the training flag is an object id; masked in the text, kept as the value */
    norm("| | | | +- ID_MATCH: ___check_obj_id(L['self']._modules['drop'].training, 10519872)",
         "___check_obj_id(L['self']._modules['drop'].training, <id>)",
         "___check_obj_id(L['self']._modules['drop'].training, ...)", "10519872");
    norm("| +- TYPE_MATCH: ___check_type_id(L['self'], 94906258030208), type=<class '__main__.Net'>"
         "  # return self.drop(self.lin(x))  # t.py:13 in forward (HINT: type Net)",
         "___check_type_id(L['self'], <id>), type=<class '__main__.Net'>",
         "___check_type_id(L['self'], ...), type=<class '__main__.Net'>", "94906258030208");
    /* a compilation's own globals: __builtins_dict___0 and ___2 are one */
    norm("| | +- ID_MATCH: ___check_obj_id(G['__builtins_dict___2']['iter'], 140)",
         "___check_obj_id(G['__builtins_dict___N']['iter'], <id>)",
         "___check_obj_id(G['__builtins_dict___N']['iter'], ...)", "140");
    norm("| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, "
         "device=None, requires_grad=False, size=[4, 8], stride=[8, 1])  # f(x)  # a.py:1",
         "check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, "
         "requires_grad=False, size=[4, 8], stride=[8, 1])",
         "check_tensor(L['x'], ...)",
         "Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, "
         "size=[4, 8], stride=[8, 1]");
    norm("| +- GLOBAL_STATE: ___check_global_state() against {\"grad_mode\":true,\"a\":1}",
         "___check_global_state() against {\"grad_mode\":true,\"a\":1}", "___check_global_state()",
         "{\"grad_mode\":true,\"a\":1}");
    /* a '#' in a string is no comment; an address is masked */
    norm("+- LAMBDA_GUARD: L['s'] == 'a # b'  # f", "L['s'] == 'a # b'", "L['s'] ==", "'a # b'");
    norm("+- ID_MATCH: L['f'] is <function f at 0x7f3a12c0>", "L['f'] is <function f at <addr>>",
         "L['f'] is", "<function f at <addr>>");
    norm("| +- DICT_CONTAINS: not ___dict_contains('forward', L['m'].__dict__)  # m(x)",
         "not ___dict_contains('forward', L['m'].__dict__)",
         "not ___dict_contains('forward', L['m'].__dict__)", "");
    /* no guards: the tree's own nodes, its header, the latency */
    norm("| +- GuardManager: source=L['k'], accessed_by=FrameLocalsGuardAccessor(key='k')", NULL,
         NULL, NULL);
    norm("+- RootGuardManager", NULL, NULL, NULL);
    norm("| | +- DictGuardManager: source=L['d']", NULL, NULL, NULL);
    norm("TREE_GUARD_MANAGER:", NULL, NULL, NULL);
    norm("Guard latency = 85.39 us", NULL, NULL, NULL);
    norm("", NULL, NULL, NULL);
    norm("+- ", NULL, NULL, NULL);
    /* cut short: taken as it is, no crash */
    norm("+- X: ___check_obj_id(L['a'], 1", "___check_obj_id(L['a'], 1",
         "___check_obj_id(L['a'], 1", "");
}

static void set_of(struct tl_guard_set *s, const char *tree)
{
    tl_guard_set_init(s);
    tl_guard_set_add_tree(s, tl_str_cstr(tree));
}

static void test_diff(void **state)
{
    (void)state;
    struct tl_guard_set a, b;
    set_of(&a, "TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
               "| +- GLOBAL_STATE: ___check_global_state() against "
               "{\"grad_mode\":true,\"num_threads\":2}\n"
               "| +- GuardManager: source=L['x']\n"
               "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, size=[2], stride=[1])\n"
               "| | +- EQUALS_MATCH: L['k'] == 0  # k\n"
               "| | +- ID_MATCH: ___check_obj_id(L['t'], 111)\n"
               "| | +- ID_MATCH: ___check_obj_id(G['__builtins_dict___0']['iter'], 7)\n"
               "| | +- NO_HASATTR: hasattr(L['x'], '_dynamo_dynamic_indices') == False\n");
    set_of(&b, "TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
               "| +- GLOBAL_STATE: ___check_global_state() against "
               "{\"grad_mode\":false,\"num_threads\":2}\n"
               "| +- GuardManager: source=L['x']\n"
               "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, size=[3], stride=[1])\n"
               "| | +- EQUALS_MATCH: L['k'] == 0  # another comment\n"
               "| | +- ID_MATCH: ___check_obj_id(L['t'], 222)\n"
               "| | +- ID_MATCH: ___check_obj_id(G['__builtins_dict___2']['iter'], 7)\n"
               "| | +- LAMBDA_GUARD: 2 <= L['x'].size()[0]\n");
    assert_int_equal(a.n, 6);
    assert_int_equal(b.n, 6);
    struct tl_arena arena;
    tl_arena_init(&arena, 1024);
    struct tl_guard_change c[8];
    size_t n = tl_guard_diff(&a, &b, c, 8, &arena);
    assert_int_equal(n, 5);
    /* changed first, in the later entry's order; only the parts that differ */
    assert_int_equal(c[0].kind, TL_GUARD_CHANGED);
    assert_string_equal(c[0].guard, "___check_global_state()");
    assert_string_equal(c[0].before, "\"grad_mode\":true");
    assert_string_equal(c[0].after, "\"grad_mode\":false");
    assert_string_equal(c[1].guard, "check_tensor(L['x'], ...)");
    assert_string_equal(c[1].before, "size=[2]");
    assert_string_equal(c[1].after, "size=[3]");
    assert_string_equal(c[2].guard, "___check_obj_id(L['t'], ...)");
    assert_string_equal(c[2].before, "111");
    assert_string_equal(c[2].after, "222");
    assert_int_equal(c[3].kind, TL_GUARD_ADDED);
    assert_string_equal(c[3].guard, "2 <= L['x'].size()[0]");
    assert_null(c[3].before);
    assert_int_equal(c[4].kind, TL_GUARD_REMOVED);
    assert_string_equal(c[4].guard, "hasattr(L['x'], '_dynamo_dynamic_indices') == False");
    assert_string_equal(tl_guard_change_name(c[4].kind), "removed");
    /* bounded: the count says all of them */
    assert_int_equal(tl_guard_diff(&a, &b, c, 2, &arena), 5);
    /* the same entry: nothing differs; against nothing: every guard was added */
    assert_int_equal(tl_guard_diff(&a, &a, c, 8, &arena), 0);
    struct tl_guard_set empty;
    tl_guard_set_init(&empty);
    assert_int_equal(tl_guard_diff(&empty, &b, c, 8, &arena), 6);
    assert_int_equal(c[0].kind, TL_GUARD_ADDED);
    assert_int_equal(tl_guard_diff(&empty, &empty, c, 8, &arena), 0);
    tl_guard_set_release(&empty);
    tl_guard_set_release(&a);
    tl_guard_set_release(&b);
    tl_arena_release(&arena);
}

static struct tl_compile_id cid(uint32_t frame, uint32_t fcid)
{
    struct tl_compile_id c;
    memset(&c, 0, sizeof(c));
    c.has = TL_CID_FRAME | TL_CID_FCID;
    c.frame = frame;
    c.fcid = fcid;
    return c;
}

/* A frame whose third compilation hit a recompile limit of 2 set in the config, and a frame
 * compiled twice with recompiles left; the guards as TORCH_LOGS prints them, line by line. */
static void two_frames(struct tl_diag *d)
{
    char tree[128];
    for (uint32_t k = 0; k < 2; k++) {
        struct tl_compile_id c = cid(0, k);
        tl_diag_compile_id(d, &c);
        snprintf(tree, sizeof(tree), "+- RootGuardManager\n| +- EQUALS_MATCH: L['k'] == %u\n", k);
        tl_diag_guards(d, &c, tl_str_cstr(tree));
    }
    struct tl_compile_id hit = cid(0, 2);
    struct tl_diag_fact_loc fn;
    memset(&fn, 0, sizeof(fn));
    fn.file = tl_str_cstr("/w/m.py");
    fn.line = 3;
    fn.function = tl_str_cstr("bump");
    fn.def = true;
    tl_diag_compile(d, &hit, &fn);
    d->recompile_limit = 2;
    d->recompile_limit_name = "recompile_limit";
    tl_diag_limit(d, &hit, &fn, tl_str_cstr("recompile_limit"), 2, tl_str_cstr("k == 1"));
    for (uint32_t k = 0; k < 2; k++) {
        struct tl_compile_id c = cid(1, k);
        tl_diag_compile_id(d, &c);
        tl_diag_guard_line(d, &c, tl_str_cstr("+- RootGuardManager"));
        tl_diag_guard_line(d, &c,
                           tl_str_cstr(k ? "| +- TENSOR_MATCH: check_tensor(L['y'], "
                                           "Tensor, size=[3])"
                                         : "| +- TENSOR_MATCH: check_tensor(L['y'], "
                                           "Tensor, size=[2])"));
        tl_diag_guards_end(d, &c);
    }
}

static void test_forecast(void **state)
{
    (void)state;
    struct tl_diag d;
    tl_diag_init(&d);
    two_frames(&d);
    tl_diag_finish(&d);
    assert_int_equal(d.nfframes, 2);
    const struct tl_diag_fframe *f = &d.fframes[0];
    assert_string_equal(f->frame, "0");
    assert_string_equal(f->function, "bump");
    assert_int_equal(f->compiles, 3);
    assert_int_equal(f->entries, 2);
    assert_int_equal(f->limit, 2);
    assert_int_equal(f->limit_from, TL_LIMIT_CONFIG);
    assert_int_equal(f->left, 0);
    assert_int_equal(f->eager, TL_EAGER_LIMIT);
    assert_string_equal(f->eager_cid, "[0/2]");
    assert_int_equal(f->ndiffs, 1);
    assert_string_equal(f->diffs[0].cid, "[0/1]");
    assert_string_equal(f->diffs[0].against, "[0/0]");
    assert_int_equal(f->diffs[0].total, 1);
    assert_string_equal(f->diffs[0].changes[0].guard, "L['k'] ==");
    f = &d.fframes[1];
    assert_string_equal(f->frame, "1");
    assert_int_equal(f->entries, 2);
    assert_int_equal(f->left, 0); /* the config's limit of 2 holds for every frame */
    assert_int_equal(f->eager, TL_EAGER_NO);
    assert_string_equal(f->diffs[0].changes[0].before, "size=[2]");
    struct tl_diag_counts counts;
    tl_diag_counts(&d, &counts);
    assert_int_equal(counts.eager_frames, 1);
    /* finishing again (a live view) gives the same */
    tl_diag_finish(&d);
    assert_int_equal(d.nfframes, 2);
    assert_int_equal(d.fframes[1].ndiffs, 1);

    /* the text and the JSON of a summary read back say the same */
    struct tl_summary_source src = {"m.log", "torch_trace", NULL, NULL};
    struct tl_buf json = TL_BUF_INIT, text = TL_BUF_INIT, again = TL_BUF_INIT;
    tl_summary_json(&json, &d, &src, true);
    tl_summary_text(&text, &d, &src, false);
    assert_non_null(strstr(text.buf, "  frame 0 bump (/w/m.py:3): 2 cache entries, 0 recompiles "
                                     "left before recompile_limit = 2 (the log's dynamo config)\n"
                                     "     RAN IN EAGER MODE: the recompile limit was hit at "
                                     "[0/2]\n     [0/1] against [0/0]: 1 guard differs\n"
                                     "       changed L['k'] == 0 -> 1\n"));
    assert_non_null(strstr(json.buf, "\"ran_in_eager\": true,"));
    struct tl_diag r;
    tl_diag_init(&r);
    struct tl_diag_source from;
    struct tl_err err = {TL_ERR_NONE, ""};
    assert_int_equal(tl_diag_read(&r, json.buf, json.len, &from, &err), 0);
    tl_summary_text(&again, &r, &src, false);
    assert_string_equal(again.buf, text.buf);
    tl_buf_reset(&again);
    tl_summary_json(&again, &r, &src, true);
    assert_string_equal(again.buf, json.buf);
    tl_diag_release(&r);
    tl_diag_release(&d);
    tl_buf_release(&json);
    tl_buf_release(&text);
    tl_buf_release(&again);
}

/* The guard texts kept stay under the budget: frames that logged the same text share it, and
 * past the budget the frames whose last entry is oldest are counted, not compared. */
static void test_guards_budget(void **state)
{
    (void)state;
    struct tl_diag d;
    tl_diag_init(&d);
    d.guards_budget = 100;
    char tree[96];
    /* frames 0..2 log one text (29 bytes, kept once); frames 3 and 4 each their own (66) */
    for (uint32_t f = 0; f < 5; f++) {
        struct tl_compile_id c = cid(f, 0);
        tl_diag_compile_id(&d, &c);
        snprintf(tree, sizeof(tree), "+- EQUALS_MATCH: L['n'] == %u%s\n", f < 3 ? 0 : f,
                 f < 3 ? "" : " and a longer text to fill the budget");
        tl_diag_guards(&d, &c, tl_str_cstr(tree));
    }
    /* 29 + 2 * 66 bytes > 100: frames 0..2's shared text went, then frame 3's; the second
     * entries come newest frame first */
    for (uint32_t f = 5; f-- > 0;) {
        struct tl_compile_id c = cid(f, 1);
        tl_diag_compile_id(&d, &c);
        snprintf(tree, sizeof(tree), "+- EQUALS_MATCH: L['n'] == %u\n", 10 + f);
        tl_diag_guards(&d, &c, tl_str_cstr(tree));
    }
    tl_diag_finish(&d);
    assert_int_equal(d.nfframes, 5);
    for (uint32_t f = 0; f < 5; f++) {
        const struct tl_diag_fframe *x = &d.fframes[f];
        assert_int_equal(x->entries, 2);
        assert_int_equal(x->ndiffs_all, 1);
        /* only frame 4's first text was still kept when its second entry came */
        assert_int_equal(x->ndiffs, f == 4 ? 1 : 0);
    }
    assert_string_equal(d.fframes[4].diffs[0].changes[0].before,
                        "4 and a longer text to fill the budget");
    tl_diag_release(&d);
}

/* Without a limit in the log, PyTorch's default (8), said as such; a frame Dynamo skipped ran
 * in eager mode though it was compiled once. */
static void test_default_limit(void **state)
{
    (void)state;
    struct tl_diag d;
    tl_diag_init(&d);
    for (uint32_t k = 0; k < 3; k++) {
        struct tl_compile_id c = cid(0, k);
        tl_diag_guards(&d, &c, tl_str_cstr("+- EQUALS_MATCH: L['n'] == 1"));
    }
    struct tl_compile_id s = cid(4, 0);
    tl_diag_compile_id(&d, &s);
    tl_diag_frame_skipped(&d, &s, true);
    tl_diag_finish(&d);
    assert_int_equal(d.nfframes, 2);
    assert_string_equal(d.fframes[0].frame, "4");
    assert_int_equal(d.fframes[0].eager, TL_EAGER_SKIPPED);
    assert_string_equal(d.fframes[0].eager_why, "a graph break inside a loop");
    assert_int_equal(d.fframes[0].entries, 0);
    const struct tl_diag_fframe *f = &d.fframes[1];
    assert_int_equal(f->entries, 3);
    assert_int_equal(f->limit, TL_DIAG_DEFAULT_LIMIT);
    assert_int_equal(f->limit_from, TL_LIMIT_DEFAULT);
    assert_int_equal(f->left, 5);
    assert_int_equal(f->ndiffs, 2);
    assert_int_equal(f->diffs[1].total, 0); /* the same guards */
    tl_diag_release(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize),     cmocka_unit_test(test_diff),
        cmocka_unit_test(test_forecast),      cmocka_unit_test(test_guards_budget),
        cmocka_unit_test(test_default_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
