/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pytext.c, PyTorch's own wording: graph-break messages of PyTorch 2.6 and 2.13
 * (the notes, their lines that go on, a nested break, a reason of several lines, the user code
 * traceback) read into exact structures; traceback frames, exception lines, compile ids,
 * guards, labels, gb ids, a frame's failure, restarts, resume functions, limits, Eq guards; and
 * hostile input: every cut of a message, random bytes, a 4 MB line, too many frames and hints.
 */
#include "base/config.h"
#include "input/pytext.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

/* ---- a canonical text form of a graph break, so that cases read as what a person expects -- */

static void add_view(struct tl_buf *b, const char *key, struct tl_str v)
{
    if (!v.n)
        return;
    tl_buf_addf(b, "%s=", key);
    for (size_t i = 0; i < v.n; i++) {
        if (v.p[i] == '\n')
            tl_buf_adds(b, "\\n");
        else
            tl_buf_addch(b, v.p[i]);
    }
    tl_buf_addch(b, '\n');
}

static void add_frame(struct tl_buf *b, const struct tl_pytext_frame *f)
{
    tl_buf_addf(b, "frame=%.*s:%u in %.*s", (int)f->file.n, f->file.p, f->line, (int)f->function.n,
                f->function.p);
    if (f->code.n)
        tl_buf_addf(b, " | %.*s", (int)f->code.n, f->code.p);
    tl_buf_addch(b, '\n');
}

static char *gb_text(const char *msg)
{
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    struct tl_pytext_gb gb;
    tl_pytext_graph_break(tl_str_cstr(msg), &arena, &gb);
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = 0; i < gb.nnotes; i++) {
        const struct tl_pytext_gb_note *n = &gb.notes[i];
        tl_buf_addf(&b, "note %zu\n", i);
        add_view(&b, "reason", n->reason);
        add_view(&b, "type", n->type);
        add_view(&b, "explanation", n->explanation);
        for (size_t h = 0; h < n->nhints; h++)
            add_view(&b, "hint", n->hints[h]);
        add_view(&b, "context", n->context);
        add_view(&b, "url", n->url);
    }
    for (size_t i = 0; i < gb.nframes; i++)
        add_frame(&b, &gb.frames[i]);
    tl_arena_release(&arena);
    return tl_buf_detach(&b, NULL);
}

static void check_gb(const char *msg, const char *want)
{
    char *got = gb_text(msg);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "---- got\n%s---- want\n%s", got, want);
    assert_string_equal(got, want);
    free(got);
}

/* ---- graph breaks ------------------------------------------------------------------------- */

/* PyTorch 2.13's message, as tests/torch/scenarios/item.py makes it. */
static const char pt213_item[] =
    "Graph break in user code at /w/item.py:9\n"
    "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function "
    "call, e.g. f(x, y):\n"
    "\n"
    "Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
    "  Explanation: Dynamo does not support tracing `Tensor.item()` with config."
    "capture_scalar_outputs=False.\n"
    "  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True` or "
    "`export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in the captured "
    "graph.\n"
    "\n"
    "  Developer debug context: call_method TensorVariable() item () {}\n"
    "\n"
    " For more details about this graph break, please visit: "
    "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html\n"
    "\n"
    "User code traceback:\n"
    "  File \"/w/item.py\", line 14, in <module>\n"
    "    main()\n"
    "  File \"/w/item.py\", line 12, in main\n"
    "    return f(torch.ones(3))\n"
    "  File \"/w/item.py\", line 9, in f\n"
    "    n = x.sum().item()\n"
    "\n"
    "Traceback (most recent call last):\n"
    "  File \"/torch/_dynamo/x.py\", line 1, in g\n"
    "torch._dynamo.exc.Unsupported: ...\n";

static void test_gb_213(void **state)
{
    (void)state;
    check_gb(pt213_item,
             "note 0\n"
             "reason=Encountered graph break when attempting to trace CALL: a function call, "
             "e.g. f(x, y):\\n\\nUnsupported Tensor.item() call with capture_scalar_outputs=False\n"
             "type=Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
             "explanation=Dynamo does not support tracing `Tensor.item()` with "
             "config.capture_scalar_outputs=False.\n"
             "hint=Set `torch._dynamo.config.capture_scalar_outputs = True` or `export "
             "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in the captured "
             "graph.\n"
             "context=call_method TensorVariable() item () {}\n"
             "url=https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html\n"
             "frame=/w/item.py:14 in <module> |     main()\n"
             "frame=/w/item.py:12 in main |     return f(torch.ones(3))\n"
             "frame=/w/item.py:9 in f |     n = x.sum().item()\n");
    char id[16];
    struct tl_str url =
        tl_str_cstr("https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html");
    assert_int_equal(tl_pytext_gb_id(url, id), 6);
    assert_string_equal(id, "GB0124");
}

static void test_gb_26(void **state)
{
    (void)state;
    check_gb("Graph break in user code at /x/m.py:7\n"
             "Reason: Unsupported: Tensor.item\n"
             "User code traceback:\n"
             "  File \"/x/m.py\", line 7, in f\n"
             "    s = x.sum().item()\n"
             "\n"
             "Traceback (most recent call last):\n"
             "  File \"/torch/_dynamo/symbolic_convert.py\", line 1, in step\n",
             "note 0\n"
             "reason=Unsupported: Tensor.item\n"
             "frame=/x/m.py:7 in f |     s = x.sum().item()\n");
}

/* The notes go on over indented lines (a blank line leaves them open); several hints; a reason
 * of several lines; a break while handling the first one. */
static void test_gb_notes_nested(void **state)
{
    (void)state;
    check_gb("Graph Break Reason: Data-dependent branching\n"
             "  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`).\n"
             "\n"
             "    def forward(self, x):\n"
             "  Hint: Use `torch.cond` to express dynamic control flow.\n"
             "  Hint: It may be possible to write Dynamo tracing rules for this code.\n"
             "    (second line of it)\n"
             "  Developer debug context: attempted to jump with TensorVariable()\n"
             "\n"
             "*** While handling this graph break, another graph break occurred: ***\n"
             "Unsupported context manager\n"
             "  Explanation: Dynamo does not know how to enter a `X` context manager.\n"
             "  Hint: Avoid using the unsupported context manager.\n"
             "  Developer debug context: ignored for a nested break\n"
             " For more details about this graph break, please visit: "
             "https://x/gb/gb0142.html\n",
             "note 0\n"
             "reason=Data-dependent branching\n"
             "type=Data-dependent branching\n"
             "explanation=Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`)."
             "\\ndef forward(self, x):\n"
             "hint=Use `torch.cond` to express dynamic control flow.\n"
             "hint=It may be possible to write Dynamo tracing rules for this code.\\n(second line "
             "of it)\n"
             "context=attempted to jump with TensorVariable()\n"
             "note 1\n"
             "reason=Unsupported context manager\n"
             "type=Unsupported context manager\n"
             "explanation=Dynamo does not know how to enter a `X` context manager.\n"
             "hint=Avoid using the unsupported context manager.\n"
             "url=https://x/gb/gb0142.html\n");
    check_gb("Graph break in user code at a.py:1\n"
             "Reason: Unsupported: call_function\n"
             "  BuiltinVariable(open) [ConstantVariable(str)] {}\n"
             "User code traceback:\n"
             "  File \"a.py\", line 1, in g\n",
             "note 0\n"
             "reason=Unsupported: call_function\\n  BuiltinVariable(open) [ConstantVariable(str)] "
             "{}\n"
             "frame=a.py:1 in g\n");
}

/* ---- hostile graph breaks ----------------------------------------------------------------- */

/* Every cut of a message reads without a fault, and what a cut gives is what the whole gave or
 * less: as many notes and frames at most. */
static void test_gb_every_cut(void **state)
{
    (void)state;
    size_t n = strlen(pt213_item);
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    for (size_t k = 0; k <= n; k++) {
        char *copy = malloc(k ? k : 1); /* exactly k bytes: no NUL after the view */
        memcpy(copy, pt213_item, k);
        struct tl_pytext_gb gb;
        tl_pytext_graph_break(tl_str_make(copy, k), &arena, &gb);
        assert_true(gb.nnotes == 1);
        assert_true(gb.nframes <= 3);
        assert_true(gb.notes[0].nhints <= 1);
        for (size_t i = 0; i < gb.nframes; i++)
            assert_true(gb.frames[i].file.p >= copy && gb.frames[i].file.p <= copy + k);
        free(copy);
        tl_arena_reset(&arena);
    }
    tl_arena_release(&arena);
}

static void test_gb_hostile(void **state)
{
    (void)state;
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    struct tl_pytext_gb gb;
    /* random bytes, NULs and newlines among them */
    unsigned seed = 12345;
    char *junk = malloc(1 << 16);
    for (int round = 0; round < 64; round++) {
        for (size_t i = 0; i < (1 << 16); i++) {
            seed = seed * 1103515245u + 12345u;
            junk[i] = (char)(seed >> 16);
            if ((seed >> 8) % 23 == 0)
                junk[i] = '\n';
        }
        if (round % 2)
            memcpy(junk, "Reason: x\n  Hint: y\nUser code traceback:\n", 41);
        tl_pytext_graph_break(tl_str_make(junk, 1 << 16), &arena, &gb);
        assert_true(gb.nnotes <= 2 && gb.nframes <= TL_PYTEXT_GB_FRAMES);
        struct tl_pytext_failure f;
        tl_pytext_wont_convert(tl_str_make(junk, 1 << 16), &arena, &f);
        tl_arena_reset(&arena);
    }
    free(junk);

    /* a 4 MB line of a note, then 100 hints and 1000 frames: the caps hold */
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_adds(&b, "Reason: big\n  Explanation: ");
    for (int i = 0; i < 4 * 1024 * 1024; i++)
        tl_buf_addch(&b, 'x');
    tl_buf_addch(&b, '\n');
    for (int i = 0; i < 100; i++)
        tl_buf_addf(&b, "  Hint: hint %d\n", i);
    tl_buf_adds(&b, "User code traceback:\n");
    for (int i = 0; i < 1000; i++)
        tl_buf_addf(&b, "  File \"f%d.py\", line %d, in g\n    code %d\n", i, i + 1, i);
    tl_pytext_graph_break(tl_buf_str(&b), &arena, &gb);
    assert_int_equal(gb.notes[0].explanation.n, 4 * 1024 * 1024);
    assert_int_equal(gb.notes[0].nhints, TL_PYTEXT_GB_HINTS);
    assert_int_equal(gb.nframes, TL_PYTEXT_GB_FRAMES);
    /* the innermost frames are kept: the user's line is at the bottom of a deep stack */
    assert_int_equal(gb.frames[0].line, 1000 - TL_PYTEXT_GB_FRAMES + 1);
    assert_true(tl_str_eq_cstr(gb.frames[0].file, "f968.py"));
    assert_int_equal(gb.frames[31].line, 1000);
    assert_true(tl_str_eq_cstr(gb.frames[31].code, "    code 999"));
    tl_buf_release(&b);
    tl_arena_release(&arena);
}

/* ---- tracebacks --------------------------------------------------------------------------- */

static void test_frames(void **state)
{
    (void)state;
    struct tl_pytext_frame f;
    assert_true(tl_pytext_frame_line(tl_str_cstr("  File \"/a b/m.py\", line 42, in fwd  "), &f));
    assert_true(tl_str_eq_cstr(f.file, "/a b/m.py"));
    assert_int_equal(f.line, 42);
    assert_true(tl_str_eq_cstr(f.function, "fwd"));
    assert_int_equal(f.code.n, 0);
    /* curly quotes of a paste; no function; a line number too long to be one */
    assert_true(tl_pytext_frame_line(
        tl_str_cstr("File \xe2\x80\x9cm.py\xe2\x80\x9d, line 3, in <module>"), &f));
    assert_true(tl_str_eq_cstr(f.file, "m.py") && f.line == 3);
    assert_true(tl_str_eq_cstr(f.function, "<module>"));
    assert_true(tl_pytext_frame_line(tl_str_cstr("File \"m.py\", line 7"), &f));
    assert_true(f.line == 7 && f.function.n == 0);
    assert_true(tl_pytext_frame_line(tl_str_cstr("File \"m.py\", line 12345678901, in f"), &f));
    assert_int_equal(f.line, 0);
    assert_false(tl_pytext_frame_line(tl_str_cstr("File \"m.py, line 3"), &f));
    assert_false(tl_pytext_frame_line(tl_str_cstr("Filename \"m.py\", line 3"), &f));
    assert_false(tl_pytext_frame_line(tl_str_make("File \"", 6), &f));

    assert_true(tl_pytext_carets(tl_str_cstr("    ^^^^~~~~ ")));
    assert_false(tl_pytext_carets(tl_str_cstr("  x = ^")));
}

static void test_exceptions(void **state)
{
    (void)state;
    assert_true(tl_pytext_exception_line(tl_str_cstr("torch._dynamo.exc.Unsupported: x")));
    assert_true(tl_pytext_exception_line(tl_str_cstr("TypeError: bad")));
    assert_true(tl_pytext_exception_line(tl_str_cstr("AssertionError")));
    assert_true(tl_pytext_exception_line(tl_str_cstr("KeyboardInterrupt")));
    assert_false(tl_pytext_exception_line(tl_str_cstr("Reason: x")));
    assert_false(tl_pytext_exception_line(tl_str_cstr("some words: here")));

    assert_true(tl_str_eq_cstr(
        tl_pytext_exception_type(tl_str_cstr("torch._dynamo.exc.Unsupported: m")), "Unsupported"));
    assert_true(
        tl_str_eq_cstr(tl_pytext_exception_type(tl_str_cstr("RuntimeError")), "RuntimeError"));
    assert_null(tl_pytext_exception_type(tl_str_cstr("two words: m")).p);

    struct tl_str dd = tl_str_cstr("torch._subclasses.fake_tensor.DataDependentOutputException: "
                                   "aten._local_scalar_dense.default");
    assert_true(tl_str_eq_cstr(tl_pytext_exception_name(dd), "DataDependentOutputException"));
    assert_true(tl_str_eq_cstr(
        tl_pytext_exception_name(tl_str_cstr("torch._dynamo.exc.Unsupported: x")), "Unsupported"));
    assert_null(tl_pytext_exception_name(tl_str_cstr("KeyboardInterrupt")).p);
    assert_null(tl_pytext_exception_name(tl_str_cstr("Note: not an error")).p);
    assert_null(tl_pytext_exception_name(tl_str_cstr(": x")).p);
}

/* ---- compile ids, guards, labels ---------------------------------------------------------- */

static void test_cids_guards(void **state)
{
    (void)state;
    struct tl_compile_id id;
    assert_int_equal(tl_pytext_cid("0/1: x", 6, &id), 3);
    assert_true(id.frame == 0 && id.fcid == 1 && !(id.has & TL_CID_ATTEMPT));
    assert_int_equal(tl_pytext_cid("1/0_2]", 6, &id), 5);
    assert_true(id.frame == 1 && id.fcid == 0 && id.attempt == 2 && (id.has & TL_CID_ATTEMPT));
    assert_int_equal(tl_pytext_cid("!3/2/1", 6, &id), 6);
    assert_true((id.has & TL_CID_CA) && id.ca == 3 && id.frame == 2 && id.fcid == 1);
    assert_int_equal(tl_pytext_cid("!7", 2, &id), 2);
    assert_int_equal(tl_pytext_cid("1/2/3", 5, &id), 0);
    assert_int_equal(tl_pytext_cid("12345678901/0", 13, &id), 0);
    assert_int_equal(tl_pytext_cid("x/1", 3, &id), 0);

    struct tl_str g = tl_pytext_guard_code(
        tl_str_cstr("L['x'] == 'a  # b'                                  # f(x)  # m.py:3 in f"));
    assert_true(tl_str_eq_cstr(g, "L['x'] == 'a  # b'"));
    assert_true(tl_str_eq_cstr(tl_pytext_guard_code(tl_str_cstr("s0 < 5")), "s0 < 5"));
}

static void test_labels(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        enum tl_pytext_gb_label label;
        const char *value;
    } cases[] = {
        {"Reason: Unsupported: x ", TL_PYGB_REASON, "Unsupported: x"},
        {"Graph Break Reason: Data-dependent branching", TL_PYGB_REASON,
         "Data-dependent branching"},
        {"Explanation: e", TL_PYGB_EXPLANATION, "e"},
        {"Hint:h", TL_PYGB_HINT, "h"},
        {"Developer debug context: c", TL_PYGB_CONTEXT, "c"},
        {"For more details about this graph break, please visit: u", TL_PYGB_MORE, "u"},
        {"*** While handling this graph break, another graph break occurred: ***", TL_PYGB_NESTED,
         ""},
        {"User code traceback:", TL_PYGB_USER_TB, ""},
        {"Traceback (most recent call last):", TL_PYGB_TRACEBACK, ""},
        {"Stack variable source attribution:", TL_PYGB_ATTRIBUTION, ""},
        {"Graph break in user code at x.py:1", TL_PYGB_NONE, ""},
        {"", TL_PYGB_NONE, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct tl_str v;
        assert_int_equal(tl_pytext_gb_label(tl_str_cstr(cases[i].line), &v), cases[i].label);
        assert_true(tl_str_eq_cstr(v, cases[i].value));
    }
    struct tl_str v;
    assert_int_equal(tl_pytext_gb_label(tl_str_cstr("For more details about this graph break"), &v),
                     TL_PYGB_MORE);
    assert_null(v.p);

    char id[16];
    assert_int_equal(tl_pytext_gb_id(tl_str_cstr("https://x/gb/gb.html"), id), 0);
    assert_string_equal(id, "");
    assert_int_equal(tl_pytext_gb_id(tl_str_cstr("/gb/gb12345678901234567890"), id), 15);
    assert_string_equal(id, "GB1234567890123");
}

/* ---- failures, restarts, resume functions, limits, Eq guards ------------------------------ */

static void test_wont_convert(void **state)
{
    (void)state;
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    struct tl_pytext_failure f;
    tl_pytext_wont_convert(
        tl_str_cstr("WON'T CONVERT pack /x/m.py line 15\n"
                    "========== TorchDynamo Stack Trace ==========\n"
                    "Traceback (most recent call last):\n"
                    "  File \"/torch/_dynamo/convert_frame.py\", line 1, in _compile\n"
                    "torch._subclasses.fake_tensor.DataDependentOutputException: aten.x\n"
                    "\n"
                    "While executing %item : ...\n"
                    "Original traceback:\n"
                    "  File \"/x/m.py\", line 7, in lengths\n"
                    "    return x.item()\n"
                    "  File \"/torch/nn/modules/module.py\", line 9, in _call_impl\n"),
        &arena, &f);
    assert_true(tl_str_eq_cstr(f.type, "DataDependentOutputException"));
    assert_true(tl_str_eq_cstr(
        f.reason, "torch._subclasses.fake_tensor.DataDependentOutputException: aten.x"));
    assert_int_equal(f.nframes, 2);
    assert_true(tl_str_eq_cstr(f.frames[0].file, "/x/m.py") && f.frames[0].line == 7);
    assert_true(tl_str_eq_cstr(f.frames[0].function, "lengths"));
    assert_true(tl_str_eq_cstr(f.frames[1].function, "_call_impl"));
    tl_pytext_wont_convert(tl_str_cstr(""), &arena, &f);
    assert_true(f.nframes == 0 && !f.type.p && !f.reason.p);
    tl_arena_release(&arena);
}

static void test_restart_resume_limit(void **state)
{
    (void)state;
    assert_true(tl_str_eq_cstr(tl_pytext_restart_kind(tl_str_cstr(
                                   " <class 'torch._dynamo.exc.TensorifyScalarRestartAnalysis'>")),
                               "TensorifyScalarRestartAnalysis"));
    assert_int_equal(tl_pytext_restart_kind(tl_str_cstr("Unsupported: x")).n, 0);

    struct tl_str r = tl_str_cstr("torch_dynamo_resume_in_fwd_at_61");
    assert_true(tl_str_eq_cstr(tl_pytext_resume_function(r), "fwd"));
    assert_int_equal(tl_pytext_resume_line(r), 61);
    assert_true(tl_str_eq_cstr(tl_pytext_resume_function(tl_str_cstr("f_at_3")), "f_at_3"));
    assert_int_equal(tl_pytext_resume_line(tl_str_cstr("torch_dynamo_resume_in_f_at_1234567890")),
                     0);
    assert_int_equal(tl_pytext_resume_line(tl_str_cstr("torch_dynamo_resume_in_f_61")), 0);

    struct tl_str name = TL_STR_NULL;
    uint64_t v = 99;
    tl_pytext_limit_reason(tl_str_cstr("Dynamo recompile limit exceeded\n  Limit type: "
                                       "recompile_limit\n  Explanation: (currently set to 2)."),
                           &name, &v);
    assert_true(tl_str_eq_cstr(name, "recompile_limit") && v == 2);
    name = TL_STR_NULL;
    v = 99;
    tl_pytext_limit_reason(tl_str_cstr("cache_size_limit reached"), &name, &v);
    assert_true(tl_str_eq_cstr(name, "cache_size_limit") && v == 99);

    struct tl_str sym, val;
    assert_true(tl_pytext_eq_constant(tl_str_cstr("Eq(s77, 5)"), &sym, &val));
    assert_true(tl_str_eq_cstr(sym, "s77") && tl_str_eq_cstr(val, "5"));
    assert_true(tl_pytext_eq_constant(tl_str_cstr("Eq(-3, u0)"), &sym, &val));
    assert_true(tl_str_eq_cstr(sym, "u0") && tl_str_eq_cstr(val, "-3"));
    assert_false(tl_pytext_eq_constant(tl_str_cstr("Eq(s1, s2)"), &sym, &val));
    assert_false(tl_pytext_eq_constant(tl_str_cstr("Ne(s0, 1)"), &sym, &val));
    assert_false(tl_pytext_eq_constant(tl_str_cstr("Eq(s0*2, 8)"), &sym, &val));
    assert_false(tl_pytext_eq_constant(tl_str_cstr("Eq("), &sym, &val));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gb_213),
        cmocka_unit_test(test_gb_26),
        cmocka_unit_test(test_gb_notes_nested),
        cmocka_unit_test(test_gb_every_cut),
        cmocka_unit_test(test_gb_hostile),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_exceptions),
        cmocka_unit_test(test_cids_guards),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_wont_convert),
        cmocka_unit_test(test_restart_resume_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
