/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for provenance.c (spec modes.md §3.3-3.4), on hand-made texts: node names,
 * Python numbering (# AOT ID:, leading empty lines, lines before it), debug-handle kernels and
 * the fallback, the C++ last-colon base, the def / static inline void skip, both _xnumel
 * filters (the regex checked line by line), string-ordered rows, replacement by a later
 * kernel, duplicates in postTo...Code, missing and hostile mappings, the target cap, kernels
 * sharing one fallback, and a cross-check of the kernel search against a literal per-line
 * implementation of the spec on generated texts (400 small ones, and one of 7 000 lines with
 * 2 000 kernels).
 */
#include "base/config.h"
#include "model/provenance.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/json.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tl_arena arena;
static struct tl_prov_result res;

static int setup(void **state)
{
    (void)state;
    tl_arena_init(&arena, 0);
    memset(&res, 0, sizeof(res));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tl_arena_release(&arena);
    return 0;
}

static struct tl_str S(const char *s) {
    return s ? tl_str_cstr(s) : TL_STR_NULL;
}

static const struct tl_json *
parse(const char *text)
{
    if (!text)
        return NULL;
    struct tl_json *j = tl_arena_alloc(&arena, sizeof(*j));
    struct tl_json_error err;
    if (tl_json_parse(&arena, text, strlen(text), j, &err) != 0)
        fail_msg("test mapping is not JSON: %s at %zu", err.msg, err.offset);
    return j;
}

/* tl_prov_compute on texts (NULL: empty) and a mapping JSON text (NULL: none). */
static void run(const char *pre, const char *post, const char *py, const char *cpp,
                const char *mapping)
{
    struct tl_prov_input in = {S(pre), S(post), S(py), S(cpp), parse(mapping)};
    tl_prov_compute(&in, &arena, &res);
}

/* A table as compact JSON, rows in the result's order. */
static void table_json(struct tl_buf *b, enum tl_prov_table_id id)
{
    const struct tl_prov_table *t = &res.t[id];
    tl_buf_addch(b, '{');
    for (size_t i = 0; i < t->n; i++) {
        tl_buf_addf(b, "%s\"%d\":[", i ? "," : "", (int)t->rows[i].line);
        for (size_t j = 0; j < t->rows[i].n; j++)
            tl_buf_addf(b, "%s%d", j ? "," : "", (int)t->rows[i].to[j]);
        tl_buf_addch(b, ']');
    }
    tl_buf_addch(b, '}');
}

static void expect_table(enum tl_prov_table_id id, const char *want)
{
    struct tl_buf b = TL_BUF_INIT;
    table_json(&b, id);
    if (strcmp(b.buf, want ? want : "{}") != 0) {
        print_error("%s:\n got  %s\n want %s\n", tl_prov_table_name(id), b.buf, want ? want : "{}");
        tl_buf_release(&b);
        fail();
    }
    tl_buf_release(&b);
}

/* The six tables (NULL: {}), in the header's order. */
static void expect_tables(const char *pre_to_post, const char *post_to_pre, const char *py_to_post,
                          const char *post_to_py, const char *cpp_to_post, const char *post_to_cpp)
{
    expect_table(TL_PROV_PRE_TO_POST, pre_to_post);
    expect_table(TL_PROV_POST_TO_PRE, post_to_pre);
    expect_table(TL_PROV_PY_TO_POST, py_to_post);
    expect_table(TL_PROV_POST_TO_PY, post_to_py);
    expect_table(TL_PROV_CPP_TO_POST, cpp_to_post);
    expect_table(TL_PROV_POST_TO_CPP, post_to_cpp);
}

/* ---- names and graphs ---- */

static void test_table_names(void **state)
{
    (void)state;
    static const char *const want[] = {"preToPost",    "postToPre",     "pyCodeToPost",
                                       "postToPyCode", "cppCodeToPost", "postToCppCode"};
    for (int i = 0; i < TL_PROV__COUNT; i++)
        assert_string_equal(tl_prov_table_name((enum tl_prov_table_id)i), want[i]);
    assert_null(tl_prov_table_name(TL_PROV__COUNT));
}

static void test_node_names(void **state)
{
    (void)state;
    /* Lines: 1 def (no '=': the name is the text before ':'), 2 linear, 3 a comment (not
     * linear), 4 empty, 5 relu, 6 add (NBSP + spaces, CRLF), 7 an empty name, 8 return. */
    const char *pre = "def forward(self, x: \"f32[8]\"):\n"
                      "    linear: \"f32[8, 16]\" = torch.ops.aten.linear.default(x)\n"
                      "    # linear = not a node\n"
                      "\n"
                      "    relu: \"f32[8, 16]\xe2\x80\xa6\" = torch.ops.aten.relu.default(linear)\n"
                      "\xc2\xa0   add = relu + 1\r\n"
                      " : = nothing\n"
                      "    return (relu,)\n";
    /* mm on 1 and 3: the later line wins. */
    const char *post = "mm = a\nrelu = b\nmm = c\nsum_1: \"f32[]\" = d";
    run(pre, post, NULL, NULL,
        "{\"preToPost\": {\"relu\": [\"mm\", \"relu\", \"nope\", 5, \"sum_1\"],"
        " \"linear\": [\"relu\"], \"add\": [\"sum_1\"], \"missing\": [\"mm\"], \"x\": [\"mm\"],"
        " \"def forward(self, x\": [\"mm\"], \"\": [\"mm\"], \"# linear\": [\"mm\"]},"
        " \"postToPre\": {\"mm\": [\"relu\", \"relu\"], \"sum_1\": [\"add\"], \"relu\": "
        "[\"zzz\"]}}");
    assert_true(res.have_mappings);
    expect_tables("{\"1\":[3],\"2\":[2],\"5\":[3,2,4],\"6\":[4]}", "{\"3\":[5,5],\"4\":[6]}", NULL,
                  NULL, NULL, NULL);
}

static void test_string_order(void **state)
{
    (void)state;
    /* Nodes on lines 2, 8, 11, 100 and 1060 of a 1100-line graph: rows go by the decimal
     * string, "100" < "1060" < "11" < "2" < "8". */
    struct tl_buf pre = TL_BUF_INIT;
    for (int i = 1; i <= 1100; i++) {
        if (i == 2 || i == 8 || i == 11 || i == 100 || i == 1060)
            tl_buf_addf(&pre, "n%d = x\n", i);
        else
            tl_buf_adds(&pre, "  # filler\n");
    }
    run(pre.buf, "a = 1\nb = 2\n", NULL, NULL,
        "{\"preToPost\": {\"n8\": [\"a\"], \"n1060\": [\"b\"], \"n11\": [\"a\", \"b\"],"
        " \"n2\": [\"b\"], \"n100\": [\"a\"]}, \"postToPre\": {\"b\": [\"n1060\", \"n8\"]}}");
    expect_tables("{\"100\":[1],\"1060\":[2],\"11\":[1,2],\"2\":[2],\"8\":[1]}", "{\"2\":[1060,8]}",
                  NULL, NULL, NULL, NULL);
    tl_buf_release(&pre);
}

/* ---- Python ---- */

static const char *const two_kernels =
    "{\"cppCodeToPost\": {\"triton_poi_fused_1\": [\"p1\", \"p0\"], \"triton_poi_fused_0\": "
    "[\"p0\"]},"
    " \"postToCppCode\": {\"p0\": [\"triton_poi_fused_0\", \"triton_poi_fused_1\"],"
    " \"p1\": [\"triton_poi_fused_1\"]}}";

static void test_python_aot_id(void **state)
{
    (void)state;
    /* Two leading empty lines are dropped; "# AOT ID:" is line 1, so "import torch" is 0 and
     * the calls (indices 5 and 6) are 5 and 6. Lines before R (the definition) do not count. */
    const char *py = "\n\r\nimport torch\n"
                     "# AOT ID: ['0_inference']\n"
                     "triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''\n"
                     "''')\n"
                     "def call(args):\n"
                     "    triton_poi_fused_0.run(buf0)\n"
                     "    triton_poi_fused_1.run(buf1)\n"
                     "    return (buf0,)\n";
    run(NULL, "p0 = x\np1 = y\n", py, NULL, two_kernels);
    assert_int_equal(res.py_skip, 1);
    assert_true(tl_str_has_prefix(res.py_text, "import torch\n"));
    expect_tables(NULL, NULL, "{\"5\":[1],\"6\":[2,1]}", "{\"1\":[5,6],\"2\":[6]}", NULL, NULL);
}

static void test_python_no_aot_id(void **state)
{
    (void)state;
    /* No "# AOT ID:": plain 1-based numbers of the text without its leading empty line. */
    const char *py = "\nimport torch\n"
                     "# no id here\n"
                     "triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''\n"
                     "''')\n"
                     "def call(args):\n"
                     "    triton_poi_fused_0.run(buf0)\n"
                     "    triton_poi_fused_1.run(buf1)\n";
    run(NULL, "p0 = x\np1 = y\n", py, NULL, two_kernels);
    assert_int_equal(res.py_skip, 0);
    assert_true(tl_str_has_prefix(res.py_text, "import torch\n"));
    expect_tables(NULL, NULL, "{\"6\":[1],\"7\":[2,1]}", "{\"1\":[6,7],\"2\":[7]}", NULL, NULL);
}

static void test_python_before_aot_id(void **state)
{
    (void)state;
    /* No def call(args): R = 0. The match above "# AOT ID:" would be line 0: never recorded. */
    run(NULL, "p = 1\n", "x = triton_k\n# AOT ID: a\ntriton_k.run()\n", NULL,
        "{\"cppCodeToPost\": {\"triton_k\": [\"p\"]}, \"postToCppCode\": {\"p\": "
        "[\"triton_k\"]}}");
    expect_tables(NULL, NULL, "{\"2\":[1]}", "{\"1\":[2]}", NULL, NULL);
    assert_int_equal(res.py_skip, 1);
}

static void test_python_debug_handles(void **state)
{
    (void)state;
    const char *py = "def call(args):\n"                                           /* 1 */
                     "    # Topologically Sorted Source Nodes: [mul]\n"            /* 2 */
                     "    triton_poi_fused_mul_1.run(buf0)\n"                      /* 3 */
                     "    # [Provenance debug handles] triton_poi_fused_mul_1:2\n" /* 4 */
                     "    stream0 = get_raw_stream(0)\n"                           /* 5 */
                     "    triton_poi_fused_mul_1.run(buf1)\n"                      /* 6 */
                     "    # [Provenance debug handles] extern_kernels.mm:4\n"      /* 7 */
                     "    extern_kernels.mm(a, b, out=buf2)\n"                     /* 8 */
                     "    # [Provenance debug handles] k_missing_after:7\n"        /* 9 */
                     "    pass\n"                                                  /* 10 */
                     "    extern_kernels.mm(c, d, out=buf3)\n";                    /* 11 */
    /* K after R, then the next line with the base; K without a later base line, and K absent:
     * every line with the base (from R); the Python base ends at the FIRST ':'. */
    run(NULL, "n1 = a\nn2 = b\nn3 = c\nn4 = d\nn5 = e\nn6 = f\n", py, NULL,
        "{\"cppCodeToPost\": {\"triton_poi_fused_mul_1:2\": [\"n1\"], \"extern_kernels.mm:4\": "
        "[\"n2\"],"
        " \"k_missing_after:7\": [\"n3\"], \"not_there:3\": [\"n4\"], \"extern_kernels.mm:99\": "
        "[\"n5\"],"
        " \"triton_poi_fused_mul_1:2:9\": [\"n6\"]},"
        " \"postToCppCode\": {\"n1\": [\"triton_poi_fused_mul_1:2\"], \"n2\": "
        "[\"extern_kernels.mm:4\"],"
        " \"n3\": [\"k_missing_after:7\"], \"n4\": [\"not_there:3\"], \"n5\": "
        "[\"extern_kernels.mm:99\"],"
        " \"n6\": [\"triton_poi_fused_mul_1:2:9\"]}, \"version\": 2.0}");
    /* Kernels in ascending order: em:4 (8), em:99 (7, 8, 11), kma:7 (9), tpfm:2 (6),
     * tpfm:2:9 (3, 4, 6); a later one takes a line over. */
    expect_tables(NULL, NULL,
                  "{\"11\":[5],\"3\":[6],\"4\":[6],\"6\":[6],\"7\":[5],\"8\":[5],\"9\":[3]}",
                  "{\"1\":[6],\"2\":[8],\"3\":[9],\"5\":[7,8,11],\"6\":[3,4,6]}", NULL, NULL);
}

static void test_python_replace(void **state)
{
    (void)state;
    /* b_kernel comes after a_kernel (keys are sorted, whatever the document order) and takes
     * line 2 over; c_kernel has no post line, so it adds no entry and replaces none. The
     * repeated a_kernel key keeps its last value. */
    const char *py = "def call(args):\n    a_kernel(b_kernel(c_kernel(x)))\n    a_kernel(y)\n";
    run(NULL, "p1 = 1\np2 = 2\np3 = 3\n", py, NULL,
        "{\"cppCodeToPost\": {\"c_kernel\": [\"nope\"], \"b_kernel\": [\"p3\"], \"a_kernel\": "
        "[\"p1\"],"
        " \"a_kernel\": [\"p2\", \"p1\"]},"
        " \"postToCppCode\": {\"p1\": [\"a_kernel\", \"b_kernel\", \"a_kernel\", \"nope\", 7, "
        "null],"
        " \"p2\": [\"c_kernel\"]}}");
    expect_tables(NULL, NULL, "{\"2\":[3],\"3\":[2,1]}", "{\"1\":[2,3,2,2,3],\"2\":[2]}", NULL,
                  NULL);
}

/* ---- C++ ---- */

static void test_cpp_kernels(void **state)
{
    (void)state;
    const char *cpp = "\n\n"
                      "// header aoti_torch_cuda_mm_out\n"                        /* 1 */
                      "void AOTInductorModel::run_impl(AtenTensorHandle* in) {\n" /* 2 */
                      "    def triton_k:1 skipped\n"                              /* 3 */
                      "    static inline void triton_k:1 skipped\n"               /* 4 */
                      "    triton_k_other();\n"                                   /* 5 */
                      "    // Provenance debug handle: triton_k:1\n"              /* 6 */
                      "    int64_t triton_k_xnumel = 16;\n"                       /* 7 */
                      "    triton_k_xnumel = 16;\n"                               /* 8 */
                      "    int64_t triton_k_xnumel_1 = 16;\n"                     /* 9 */
                      "    auto triton_k_xnumel_2=4;\n"                           /* 10 */
                      "    call_triton_k(a, triton_k_xnumel_1=3);\n"              /* 11 */
                      "    triton_k(b);\n"                                        /* 12 */
                      "    aoti_torch_cuda_mm_out(buf0, a, b);\n"                 /* 13 */
                      "    // aoti_torch_cuda_mm_out:5\n"                         /* 14 */
                      "    aoti_torch_cuda_mm_out(buf1, c, d);\n"                 /* 15 */
                      "    ns::kern(x);\n"                                        /* 16 */
                      "    // ns::kern:3\n"                                       /* 17 */
                      "    ns::kern(y);\n"                                        /* 18 */
                      "    static inline void only_def:1();\n"                    /* 19 */
                      "    only_def(z);\n"                                        /* 20 */
                      "    // ker_z:1\n"                                          /* 21 */
                      "    int64_t ker_z_xnumel_3 = 3;\n"                         /* 22 */
                      "}\n";                                                      /* 23 */
    run(NULL, "q1 = 1\nq2 = 2\nq3 = 3\nq4 = 4\nq5 = 5\nq6 = 6\nq7 = 7\nq8 = 8\n", NULL, cpp,
        "{\"cppCodeToPost\": {\"triton_k:1\": [\"q1\"], \"aoti_torch_cuda_mm_out:5\": [\"q2\"],"
        " \"ns::kern:3\": [\"q3\"], \"ns::kern:9\": [\"q4\"], \"triton_k:2\": [\"q5\"],"
        " \"plain_kernel\": [\"q6\"], \"only_def:1\": [\"q7\"], \"ker_z:1\": [\"q8\"]},"
        " \"postToCppCode\": {\"q1\": [\"triton_k:1\"], \"q2\": [\"aoti_torch_cuda_mm_out:5\"],"
        " \"q3\": [\"ns::kern:3\"], \"q4\": [\"ns::kern:9\"], \"q5\": [\"triton_k:2\"],"
        " \"q6\": [\"plain_kernel\"], \"q7\": [\"only_def:1\"], \"q8\": [\"ker_z:1\"]}}");
    assert_true(tl_str_has_prefix(res.cpp_text, "// header"));
    /* triton_k:1: K on 3 and 4 is skipped (def, static inline void), found on 6; 7-10 are
     * _xnumel lines, 11 is the call. aoti:5 -> 15. ns::kern:3 -> 18 (base "ns::kern", up to
     * the LAST ':'). ns::kern:9 and triton_k:2 are absent: every line with the base from R.
     * only_def:1 is on a skipped line only, ker_z:1 has no later usable line: both fall back. */
    expect_tables(NULL, NULL, NULL, NULL,
                  "{\"10\":[5],\"11\":[5],\"12\":[5],\"15\":[2],\"16\":[4],\"17\":[4],"
                  "\"18\":[4],\"19\":[7],\"20\":[7],\"21\":[8],\"22\":[8],\"3\":[5],\"4\":[5],"
                  "\"5\":[5],\"6\":[5],\"7\":[5],\"8\":[5],\"9\":[5]}",
                  "{\"1\":[11],\"2\":[15],\"3\":[18],\"4\":[16,17,18],"
                  "\"5\":[3,4,5,6,7,8,9,10,11,12],\"7\":[19,20],\"8\":[21,22]}");
}

/* One candidate line after the kernel's debug-handle line: taken (line 3) or skipped (the
 * next line, 4, is taken). */
static void xnumel_case(const char *line, bool taken)
{
    struct tl_buf cpp = TL_BUF_INIT;
    tl_buf_addf(&cpp, "void AOTInductorModel::run_impl() {\n// kx:1\n%s\nkx(final);\n", line);
    tl_arena_reset(&arena);
    run(NULL, "p = 1\n", NULL, cpp.buf,
        "{\"cppCodeToPost\": {\"kx:1\": [\"p\"]}, \"postToCppCode\": {\"p\": [\"kx:1\"]}}");
    const struct tl_prov_table *t = &res.t[TL_PROV_POST_TO_CPP];
    if (t->n != 1 || t->rows[0].n != 1 || t->rows[0].to[0] != (taken ? 3 : 4)) {
        print_error("line \"%s\": want %s\n", line, taken ? "taken" : "skipped");
        tl_buf_release(&cpp);
        fail();
    }
    tl_buf_release(&cpp);
}

static void test_cpp_xnumel(void **state)
{
    (void)state;
    /* "_xnumel = " anywhere */
    xnumel_case("int64_t kx_xnumel = 1;", false);
    xnumel_case("kx_xnumel = 1;", false);
    /* ^\s*\w+\s+.*_xnumel(?:_\d+)?\s*= */
    xnumel_case("int64_t kx_xnumel_12 = 1;", false);
    xnumel_case("  const int64_t kx_xnumel_3=1;", false);
    xnumel_case("int64_t kx_xnumel =1;", false);
    xnumel_case("\tint64_t\tkx_xnumel_7\t=\t1;", false);
    xnumel_case("int64_t  kx_xnumel_1 = 1", false);
    xnumel_case("int64_t kx_xnumel_1_xnumel_2 = 1", false); /* the second occurrence */
    xnumel_case("x\xc2\xa0kx_xnumel_1 = 1", false);         /* \s is Unicode: NBSP */
    xnumel_case("x\xe3\x80\x80kx_xnumel_1 = 1", false);     /* U+3000 */
    /* not a declaration */
    xnumel_case("kx_xnumel_1 = 1;", true); /* the first word is the name itself */
    xnumel_case("kx(a, kx_xnumel_1=3);", true);
    xnumel_case("int64_t kx_xnumel_a = 1;", true);
    xnumel_case("int64_t kx_xnumelx = 1;", true);
    xnumel_case("kx_xnumel_1 = 1 int64_t", true);
    xnumel_case("  // kx_xnumel_1 = 1", true);
    xnumel_case("int64_t kx_xnumel_1 == 1", false); /* '=' then anything */
    xnumel_case("int64_t kx_xnumel_ = 1", true);    /* _\d+ needs a digit */
    xnumel_case("kx", true);
}

static void test_cpp_skip_def(void **state)
{
    (void)state;
    /* The skip looks at the trimmed line; a K inside a "def" line that is not at its start
     * counts. */
    const char *cpp = "void AOTInductorModel::run_impl() {\n" /* 1 */
                      "  \tdefine kk:1\n"                     /* 2: starts with "def" */
                      "  static inline voidish kk:1\n"        /* 3: "static inline void" */
                      "  kk(a);\n"                            /* 4 */
                      "  x = 1; def kk:1\n"                   /* 5: counts */
                      "  kk(b);\n";                           /* 6 */
    run(NULL, "p = 1\n", NULL, cpp,
        "{\"cppCodeToPost\": {\"kk:1\": [\"p\"]}, \"postToCppCode\": {\"p\": [\"kk:1\"]}}");
    expect_tables(NULL, NULL, NULL, NULL, "{\"6\":[1]}", "{\"1\":[6]}");
}

/* ---- missing and hostile mappings ---- */

static void test_no_mappings(void **state)
{
    (void)state;
    run("a = 1\n", "b = 2\n", "\n\n# AOT ID: x\ndef call(args):\n", "\nvoid f();\n", NULL);
    assert_false(res.have_mappings);
    for (int i = 0; i < TL_PROV__COUNT; i++)
        assert_int_equal(res.t[i].n, 0);
    assert_int_equal(res.py_skip, 0);
    assert_true(tl_str_eq_cstr(res.py_text, "# AOT ID: x\ndef call(args):\n"));
    assert_true(tl_str_eq_cstr(res.cpp_text, "void f();\n"));

    run("a = 1\n", "b = 2\n", NULL, NULL, "[{\"preToPost\": {\"a\": [\"b\"]}}]");
    assert_false(res.have_mappings);
    run("a = 1\n", "b = 2\n", NULL, NULL, "null");
    assert_false(res.have_mappings);

    run("a = 1\n", "b = 2\n", NULL, NULL, "{}");
    assert_true(res.have_mappings);
    expect_tables(NULL, NULL, NULL, NULL, NULL, NULL);

    /* Everything empty. */
    run(NULL, NULL, NULL, NULL, "{\"preToPost\": {\"a\": [\"b\"]}}");
    assert_true(res.have_mappings);
    assert_int_equal(res.py_text.n, 0);
    assert_int_equal(res.cpp_text.n, 0);
    expect_tables(NULL, NULL, NULL, NULL, NULL, NULL);

    /* Only empty code lines. */
    run(NULL, "p = 1\n", "\n\n\n", "\r\n\r\n",
        "{\"cppCodeToPost\": {\"\": [\"p\"]}, \"postToCppCode\": {\"p\": [\"\"]}}");
    assert_int_equal(res.py_text.n, 0);
    assert_int_equal(res.cpp_text.n, 0);
    expect_tables(NULL, NULL, NULL, NULL, NULL, NULL);
}

static void test_hostile_values(void **state)
{
    (void)state;
    /* Wrong types everywhere; the empty kernel name matches every line, ":" has an empty
     * Python base (the line after the first ':' line). "k" has no post list. */
    run("a = 1\n", "p1 = a\np2 = b\np3 = c\n", "def call(args):\n    k2(x)\n", NULL,
        "{\"preToPost\": 5, \"postToPre\": [1, 2],"
        " \"cppCodeToPost\": {\"k\": 7, \"\": [\"p1\"], \":\": [\"p1\"],"
        " \"k2\": [[], {}, null, 1.5, \"p1\", true]},"
        " \"postToCppCode\": {\"p1\": \"k2\", \"p2\": [[\"k2\"]], \"p3\": [\"k2\", 1, null, {}]},"
        " \"version\": \"x\"}");
    assert_true(res.have_mappings);
    expect_tables(NULL, NULL, "{\"1\":[1],\"2\":[1]}", "{\"3\":[2]}", NULL, NULL);

    /* Tables that are not objects, keys that are numbers, nested garbage. */
    run("1 = x\n", "2 = y\n", NULL, NULL,
        "{\"preToPost\": {\"1\": [\"2\", [\"2\"], {\"2\": 1}]}, \"postToPre\": {\"2\": {}},"
        " \"cppCodeToPost\": \"x\", \"postToCppCode\": [\"2\"]}");
    expect_tables("{\"1\":[1]}", NULL, NULL, NULL, NULL, NULL);

    /* A repeated key keeps its last value (one row, not two for line 1). */
    run("a = 1\n", "b = 1\nc = 2\n", NULL, NULL,
        "{\"preToPost\": {\"a\": [\"b\"], \"a\": [\"c\"]}, \"postToPre\": {\"c\": [\"a\"], "
        "\"c\": []}}");
    expect_tables("{\"1\":[2]}", NULL, NULL, NULL, NULL, NULL);

    /* A key with a NUL byte and one with a newline match nothing. */
    run("a = 1\n", "b = 1\n", "def call(args):\n k\n", "::run_impl(\nk\n",
        "{\"cppCodeToPost\": {\"k\\u0000\": [\"b\"], \"k\\n\": [\"b\"], \"\\nk\": [\"b\"]},"
        " \"preToPost\": {\"a\\u0000\": [\"b\"]}}");
    expect_tables(NULL, NULL, NULL, NULL, NULL, NULL);
}

static void test_target_cap(void **state)
{
    (void)state;
    /* The empty kernel is on each of 100 lines; a post node lists it 60 000 times: 6 000 000
     * targets, cut at TL_PROV_MAX_TARGETS. The other table still gets its rows. */
    struct tl_buf py = TL_BUF_INIT;
    tl_buf_adds(&py, "def call(args):\n");
    for (int i = 0; i < 99; i++)
        tl_buf_adds(&py, "  x\n");
    struct tl_buf map = TL_BUF_INIT;
    tl_buf_adds(&map, "{\"cppCodeToPost\": {\"\": [\"p\"]}, \"postToCppCode\": {\"p\": [");
    for (int i = 0; i < 60000; i++)
        tl_buf_adds(&map, i ? ",\"\"" : "\"\"");
    tl_buf_adds(&map, "], \"q\": [\"\"]}}");
    run(NULL, "p = 1\nq = 2\n", py.buf, NULL, map.buf);
    const struct tl_prov_table *t = &res.t[TL_PROV_POST_TO_PY];
    assert_int_equal(t->n, 1); /* p took the whole budget; q got nothing */
    assert_int_equal(t->rows[0].line, 1);
    assert_int_equal(t->rows[0].n, TL_PROV_MAX_TARGETS);
    assert_int_equal(t->rows[0].to[0], 1);
    assert_int_equal(t->rows[0].to[TL_PROV_MAX_TARGETS - 1], (int)(TL_PROV_MAX_TARGETS % 100));
    assert_int_equal(res.t[TL_PROV_PY_TO_POST].n, 100);
    tl_buf_release(&py);
    tl_buf_release(&map);
}

static void test_shared_fallback(void **state)
{
    (void)state;
    /* 5 000 kernels a:1 ... a:5000, none in the code, all fall back to base "a", which is on
     * every one of 2 000 lines: the lines are shared, not copied per kernel (that would be
     * 40 MB here), and the last kernel in string order ("a:999") owns every line. */
    struct tl_buf code = TL_BUF_INIT;
    tl_buf_adds(&code, "void AOTInductorModel::run_impl(a) {\n");
    for (int i = 1; i < 2000; i++)
        tl_buf_adds(&code, "  a();\n");
    struct tl_buf post = TL_BUF_INIT;
    struct tl_buf map = TL_BUF_INIT;
    tl_buf_adds(&map, "{\"cppCodeToPost\": {");
    for (int i = 1; i <= 5000; i++) {
        tl_buf_addf(&post, "p%d = x\n", i);
        tl_buf_addf(&map, "%s\"a:%d\": [\"p%d\"]", i > 1 ? ", " : "", i, i);
    }
    tl_buf_adds(&map, "}, \"postToCppCode\": {\"p7\": [\"a:7\", \"a:8\"]}}");
    size_t before = arena.used;
    run(NULL, post.buf, NULL, code.buf, map.buf);
    assert_true(arena.used - before < (size_t)8 << 20);
    const struct tl_prov_table *t = &res.t[TL_PROV_CPP_TO_POST];
    assert_int_equal(t->n, 2000);
    for (size_t i = 0; i < t->n; i++) {
        assert_int_equal(t->rows[i].n, 1);
        assert_int_equal(t->rows[i].to[0], 999);
    }
    t = &res.t[TL_PROV_POST_TO_CPP];
    assert_int_equal(t->n, 1);
    assert_int_equal(t->rows[0].line, 7);
    assert_int_equal(t->rows[0].n, 4000);
    assert_int_equal(t->rows[0].to[1999], 2000);
    assert_int_equal(t->rows[0].to[2000], 1);
    tl_buf_release(&code);
    tl_buf_release(&post);
    tl_buf_release(&map);
}

/* ---- a literal implementation of the kernel search, to check the automaton ---- */

struct naive_lines {
    char **l; /* NUL-terminated copies (the generator makes no NUL bytes) */
    size_t n;
};

static struct naive_lines naive_split(const char *text)
{
    struct naive_lines ls = {NULL, 0};
    size_t cap = 16;
    ls.l = malloc(cap * sizeof(*ls.l));
    const char *p = text;
    const char *end = text + strlen(text);
    while (p < end) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        const char *e = q ? q : end;
        size_t len = (size_t)(e - p);
        if (len && p[len - 1] == '\r')
            len--;
        if (ls.n == cap)
            ls.l = realloc(ls.l, (cap *= 2) * sizeof(*ls.l));
        ls.l[ls.n] = malloc(len + 1);
        memcpy(ls.l[ls.n], p, len);
        ls.l[ls.n++][len] = 0;
        p = q ? q + 1 : end;
    }
    size_t k = 0;
    while (k < ls.n && !ls.l[k][0])
        free(ls.l[k++]);
    memmove(ls.l, ls.l + k, (ls.n - k) * sizeof(*ls.l));
    ls.n -= k;
    return ls;
}

static void naive_free(struct naive_lines *ls)
{
    for (size_t i = 0; i < ls->n; i++)
        free(ls->l[i]);
    free(ls->l);
}

static bool has(const char *line, const char *needle)
{
    return strstr(line, needle) != NULL;
}

static size_t naive_first(const struct naive_lines *ls, const char *a, const char *b, const char *c)
{
    for (size_t i = 0; i < ls->n; i++)
        if (has(ls->l[i], a) && (!b || has(ls->l[i], b)) && (!c || has(ls->l[i], c)))
            return i;
    return 0;
}

/* Python lines of k, as the spec words it; returns the count, numbers in out. */
static size_t naive_py(const struct naive_lines *ls, const char *k, int *out)
{
    size_t r = naive_first(ls, "def", "call", "(args)");
    long a = (long)naive_first(ls, "# AOT ID:", NULL, NULL);
    char base[256];
    snprintf(base, sizeof(base), "%.*s", (int)strcspn(k, ":"), k);
    size_t n = 0;
    if (strchr(k, ':')) {
        for (size_t i = r; i < ls->n; i++) {
            if (!has(ls->l[i], k))
                continue;
            for (size_t j = i + 1; j < ls->n; j++)
                if (has(ls->l[j], base)) {
                    if ((long)j + 1 - a > 0)
                        out[n++] = (int)((long)j + 1 - a);
                    break;
                }
            break;
        }
    }
    if (!n)
        for (size_t i = r; i < ls->n; i++)
            if (has(ls->l[i], base) && (long)i + 1 - a > 0)
                out[n++] = (int)((long)i + 1 - a);
    return n;
}

static regex_t decl_re;

static bool naive_skipped(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return !strncmp(line, "def", 3) || !strncmp(line, "static inline void", 18);
}

/* C++ lines of k, as the spec words it (every K line is tried in turn). */
static size_t naive_cpp(const struct naive_lines *ls, const char *k, int *out)
{
    size_t r = naive_first(ls, "::run_impl(", NULL, NULL);
    char base[256];
    const char *last = strrchr(k, ':');
    snprintf(base, sizeof(base), "%.*s", (int)(last ? (size_t)(last - k) : strlen(k)), k);
    size_t n = 0;
    if (last) {
        for (size_t i = r; i < ls->n && !n; i++) {
            if (naive_skipped(ls->l[i]) || !has(ls->l[i], k))
                continue;
            for (size_t j = i + 1; j < ls->n; j++)
                if (has(ls->l[j], base) && !has(ls->l[j], "_xnumel = ") &&
                    regexec(&decl_re, ls->l[j], 0, NULL, 0) != 0) {
                    out[n++] = (int)j + 1;
                    break;
                }
        }
    }
    if (!n)
        for (size_t i = r; i < ls->n; i++)
            if (has(ls->l[i], base))
                out[n++] = (int)i + 1;
    return n;
}

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

static const char *const kernel_pool[] = {
    "k1", "k12",    "k1:2", "k12:3", "a::k1:4", "a::k1", "k",   "1:2",       ":",
    "",   "k1:2:3", "k2",   "k2:1",  "b:k2:1",  "zz",    "k1:", "a::k1:4:5", "::",
};

static const char *const token_pool[] = {
    "k1",
    "k12",
    "k1:2",
    "k12:3",
    "a::k1:4",
    "a::k1",
    "k2:1",
    "k2",
    "b:k2:1",
    "def",
    "static inline void",
    "_xnumel = ",
    "int64_t",
    "k1_xnumel_2 = 1",
    "auto",
    "=",
    "x",
    "(",
    ")",
    ":",
    "def call(args):",
    "# AOT ID: 0",
    "::run_impl(",
    "\t",
    "  ",
    "_xnumel_3=",
    "1",
    "zz",
};

/* A random text: lines of 0-5 tokens from the pool, some joined without a space. */
static void random_text(struct tl_buf *b, size_t lines)
{
    for (size_t i = 0; i < lines; i++) {
        unsigned nt = rnd(6);
        for (unsigned t = 0; t < nt; t++) {
            tl_buf_adds(b, token_pool[rnd(TL_ARRAY_LEN(token_pool))]);
            if (rnd(3))
                tl_buf_addch(b, ' ');
        }
        tl_buf_adds(b, rnd(10) ? "\n" : "\r\n");
    }
}

/* Post graph: node pI on line I + 1 for kernel I; each kernel maps to its node and back, so
 * postTo...Code row I + 1 is kernel I's lines. */
static void kernel_mapping(struct tl_buf *post, struct tl_buf *map, const char *const *names,
                           size_t n)
{
    tl_buf_adds(map, "{\"cppCodeToPost\": {");
    for (size_t i = 0; i < n; i++) {
        tl_buf_addf(post, "p%zu = x\n", i);
        tl_buf_addf(map, "%s\"%s\": [\"p%zu\"]", i ? ", " : "", names[i], i);
    }
    tl_buf_adds(map, "}, \"postToCppCode\": {");
    for (size_t i = 0; i < n; i++)
        tl_buf_addf(map, "%s\"p%zu\": [\"%s\"]", i ? ", " : "", i, names[i]);
    tl_buf_adds(map, "}}");
}

/* The postTo...Code row of line `line`, or NULL. */
static const struct tl_prov_row *row_of(enum tl_prov_table_id id, int32_t line)
{
    const struct tl_prov_table *t = &res.t[id];
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].line == line)
            return &t->rows[i];
    return NULL;
}

static void expect_lines(enum tl_prov_table_id id, size_t kernel, const char *name, const int *want,
                         size_t nwant, const char *text)
{
    const struct tl_prov_row *r = row_of(id, (int32_t)kernel + 1);
    size_t got = r ? r->n : 0;
    bool same = got == nwant;
    for (size_t i = 0; same && i < got; i++)
        same = r->to[i] == want[i];
    if (!same) {
        print_error("%s, kernel \"%s\": got %zu lines, want %zu\n%s\n", tl_prov_table_name(id),
                    name, got, nwant, text);
        fail();
    }
}

static void test_cross_check(void **state)
{
    (void)state;
    assert_int_equal(
        regcomp(&decl_re, "^[[:space:]]*[[:alnum:]_]+[[:space:]]+.*_xnumel(_[0-9]+)?[[:space:]]*=",
                REG_EXTENDED | REG_NOSUB),
        0);
    int *want = malloc(4096 * sizeof(*want));
    rng_state = 42;
    for (int round = 0; round < 400; round++) {
        struct tl_buf py = TL_BUF_INIT;
        struct tl_buf cpp = TL_BUF_INIT;
        struct tl_buf post = TL_BUF_INIT;
        struct tl_buf map = TL_BUF_INIT;
        if (rnd(4))
            tl_buf_adds(&py, rnd(2) ? "\n\n" : "\r\n");
        random_text(&py, 1 + rnd(40));
        random_text(&cpp, 1 + rnd(40));
        const size_t nk = TL_ARRAY_LEN(kernel_pool);
        kernel_mapping(&post, &map, kernel_pool, nk);
        tl_arena_reset(&arena);
        run(NULL, post.buf, py.buf, cpp.buf, map.buf);
        struct naive_lines pl = naive_split(py.buf);
        struct naive_lines cl = naive_split(cpp.buf);
        for (size_t k = 0; k < nk; k++) {
            size_t n = naive_py(&pl, kernel_pool[k], want);
            expect_lines(TL_PROV_POST_TO_PY, k, kernel_pool[k], want, n, py.buf);
            n = naive_cpp(&cl, kernel_pool[k], want);
            expect_lines(TL_PROV_POST_TO_CPP, k, kernel_pool[k], want, n, cpp.buf);
        }
        naive_free(&pl);
        naive_free(&cl);
        tl_buf_release(&py);
        tl_buf_release(&cpp);
        tl_buf_release(&post);
        tl_buf_release(&map);
    }
    free(want);
    regfree(&decl_re);
}

static void test_big_file(void **state)
{
    (void)state;
    /* Generated code of 7 000 lines with 2 000 kernels, names sharing long prefixes
     * (triton_poi_fused_7 in triton_poi_fused_71...), a debug handle on every other kernel. */
    enum { NK = 2000 };
    char **names = malloc(NK * sizeof(*names));
    for (size_t i = 0; i < NK; i++) {
        names[i] = malloc(48);
        snprintf(names[i], 48, i % 2 ? "triton_poi_fused_%zu:%zu" : "triton_poi_fused_%zu", i,
                 i + 1);
    }
    struct tl_buf py = TL_BUF_INIT;
    tl_buf_adds(&py, "# AOT ID: ['0_inference']\n");
    for (size_t i = 0; i < NK; i++)
        tl_buf_addf(&py, "triton_poi_fused_%zu = async_compile.triton('x', '''\n'''\n", i);
    tl_buf_adds(&py, "def call(args):\n");
    for (size_t i = 0; i < NK; i++) {
        if (i % 2)
            tl_buf_addf(&py, "    # [Provenance debug handles] %s\n", names[i]);
        tl_buf_addf(&py, "    triton_poi_fused_%zu.run(buf%zu)\n", i, i);
    }
    struct tl_buf post = TL_BUF_INIT;
    struct tl_buf map = TL_BUF_INIT;
    kernel_mapping(&post, &map, (const char *const *)names, NK);
    run(NULL, post.buf, py.buf, NULL, map.buf);
    struct naive_lines pl = naive_split(py.buf);
    assert_true(pl.n >= 7000);
    int want[256];
    /* Every 37th kernel against the literal search (all of them take seconds that way). */
    for (size_t k = 0; k < NK; k += 37) {
        size_t n = naive_py(&pl, names[k], want);
        expect_lines(TL_PROV_POST_TO_PY, k, names[k], want, n, "(big file)");
    }
    naive_free(&pl);
    for (size_t i = 0; i < NK; i++)
        free(names[i]);
    free(names);
    tl_buf_release(&py);
    tl_buf_release(&post);
    tl_buf_release(&map);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_table_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_string_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_python_aot_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_python_no_aot_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_python_before_aot_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_python_debug_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_python_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpp_kernels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpp_xnumel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpp_skip_def, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_mappings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_target_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cross_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
