/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pyhl.c: golden HTML for each token kind, escaping and
 * invalid UTF-8, plus a structural check (balanced spans, known styles,
 * merged neighbours, text content == input) on realistic inductor output.
 */
#include "base/config.h"
#include "report/pyhl.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRE "<pre style=\"background-color:#ffffff;\">\n"
#define END "</pre>\n"
#define SP(css, text) "<span style=\"" css "\">" text "</span>"
#define D(t) SP("color:#323232;", t)                   /* default */
#define KW(t) SP("font-weight:bold;color:#a71d5d;", t) /* keyword */
#define S(t) SP("color:#183691;", t)                   /* string */
#define N(t) SP("color:#0086b3;", t)                   /* number / constant */
#define C(t) SP("font-style:italic;color:#969896;", t) /* comment */
#define B(t) SP("color:#62a35c;", t)                   /* builtin / decorator */
#define DN(t) SP("font-weight:bold;color:#323232;", t) /* def/class name */

static const char *const styles[] = {
    "color:#323232;",
    "font-weight:bold;color:#a71d5d;",
    "color:#183691;",
    "color:#0086b3;",
    "font-style:italic;color:#969896;",
    "color:#62a35c;",
    "font-weight:bold;color:#323232;",
};

static void check_n(const char *src, size_t n, const char *want)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_pyhl_render(&b, src, n);
    bool ok = b.len == strlen(want) && memcmp(b.buf, want, b.len) == 0;
    if (!ok)
        print_error("input:\n%.*s\ngot:\n%s\nwant:\n%s\n", (int)n, src, b.buf, want);
    tl_buf_release(&b);
    assert_true(ok);
}

static void check(const char *src, const char *want)
{
    check_n(src, strlen(src), want);
}

struct golden {
    const char *in;
    const char *want;
};

static void check_table(const struct golden *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check(g[i].in, g[i].want);
}

static void test_empty(void **state)
{
    (void)state;
    check("", PRE END);
    check(" ", PRE D(" ") END);
    check("\n\n", PRE D("\n\n") END);
}

static void test_keywords(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"if x and not y:\n    return None\n",
         PRE KW("if ") D("x ") KW("and not ") D("y:\n    ") KW("return ") N("None\n") END},
        {"for i in range(3):\n    pass",
         PRE KW("for ") D("i ") KW("in ") B("range") D("(") N("3") D("):\n    ") KW("pass") END},
        {"from a import b as c",
         PRE KW("from ") D("a ") KW("import ") D("b ") KW("as ") D("c") END},
        {"with x: yield", PRE KW("with ") D("x: ") KW("yield") END},
        {"lambda: await f", PRE KW("lambda") D(": ") KW("await ") D("f") END},
        {"try:\n  del x\nexcept E:\n  raise\nfinally:\n  assert y",
         PRE KW("try") D(":\n  ") KW("del ") D("x\n") KW("except ") D("E:\n  ") KW("raise\nfinally")
             D(":\n  ") KW("assert ") D("y") END},
        {"elif else while is or global nonlocal break continue",
         PRE KW("elif else while is or global nonlocal break continue") END},
        /* Not keywords: prefixes, suffixes, other case, attributes. */
        {"iff fort If x.if self.return", PRE D("iff fort If x.if self.return") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
}

static void test_def_class(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"def foo(a):\n    pass\nclass Bar(Base):\n",
         PRE KW("def ") DN("foo") D("(a):\n    ") KW("pass\nclass ") DN("Bar") D("(Base):\n") END},
        {"async def call(args):", PRE KW("async def ") DN("call") D("(args):") END},
        /* The name may be a builtin's; it is still the defined name. */
        {"def print(): return", PRE KW("def ") DN("print") D("(): ") KW("return") END},
        /* Only the token right after def/class is the name. */
        {"class (x)", PRE KW("class ") D("(x)") END},
        {"defx y", PRE D("defx y") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
}

static void test_strings(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"'a'", PRE S("&#39;a&#39;") END},
        {"\"b\"", PRE S("&quot;b&quot;") END},
        {"''", PRE S("&#39;&#39;") END},
        /* Adjacent strings (and the space between) share one span. */
        {"'a' \"b\"", PRE S("&#39;a&#39; &quot;b&quot;") END},
        /* Escaped quotes and backslashes do not end the string. */
        {"'a\\'b' + 1", PRE S("&#39;a\\&#39;b&#39; ") D("+ ") N("1") END},
        {"\"a\\\\\" x", PRE S("&quot;a\\\\&quot; ") D("x") END},
        {"'a\\\nb' c", PRE S("&#39;a\\\nb&#39; ") D("c") END},
        /* Prefixes, any case. */
        {"x = r'\\d'", PRE D("x = ") S("r&#39;\\d&#39;") END},
        {"b\"x\"", PRE S("b&quot;x&quot;") END},
        {"f'{y}'", PRE S("f&#39;{y}&#39;") END},
        {"u'z'", PRE S("u&#39;z&#39;") END},
        {"Rb'1'", PRE S("Rb&#39;1&#39;") END},
        {"bR'2'", PRE S("bR&#39;2&#39;") END},
        {"rf'3'", PRE S("rf&#39;3&#39;") END},
        {"FR'4'", PRE S("FR&#39;4&#39;") END},
        {"Br\"5\"", PRE S("Br&quot;5&quot;") END},
        {"U'6'", PRE S("U&#39;6&#39;") END},
        /* Not prefixes: the name stays default, the string starts at the quote. */
        {"ab'x'", PRE D("ab") S("&#39;x&#39;") END},
        {"ub'x'", PRE D("ub") S("&#39;x&#39;") END},
        {"rr'x'", PRE D("rr") S("&#39;x&#39;") END},
        /* A raw string still cannot end on an escaped quote. */
        {"r'\\'' x", PRE S("r&#39;\\&#39;&#39; ") D("x") END},
        /* Triple-quoted across lines, with lone quotes inside. */
        {"x = '''a\nb ' \" c\n'''\ny",
         PRE D("x = ") S("&#39;&#39;&#39;a\nb &#39; &quot; c\n&#39;&#39;&#39;\n") D("y") END},
        {"\"\"\"a\"\"b\"\"\" + 1",
         PRE S("&quot;&quot;&quot;a&quot;&quot;b&quot;&quot;&quot; ") D("+ ") N("1") END},
        {"r'''\\''' x'''", PRE S("r&#39;&#39;&#39;\\&#39;&#39;&#39; x&#39;&#39;&#39;") END},
        {"'''\\'' x'''", PRE S("&#39;&#39;&#39;\\&#39;&#39; x&#39;&#39;&#39;") END},
        {"\"\"\"\\\"\" x\"\"\"\nx",
         PRE S("&quot;&quot;&quot;\\&quot;&quot; x&quot;&quot;&quot;\n") D("x") END},
        {"'''#not a comment''' # one",
         PRE S("&#39;&#39;&#39;#not a comment&#39;&#39;&#39; ") C("# one") END},
        /* Unterminated: triple runs to the end, single to the end of line. */
        {"s = \"\"\"abc\ndef x", PRE D("s = ") S("&quot;&quot;&quot;abc\ndef x") END},
        {"s = '''ab\\", PRE D("s = ") S("&#39;&#39;&#39;ab\\") END},
        {"s = 'abc\nx = 1", PRE D("s = ") S("&#39;abc\n") D("x = ") N("1") END},
        {"'abc", PRE S("&#39;abc") END},
        {"'ab\\", PRE S("&#39;ab\\") END},
        {"\"", PRE S("&quot;") END},
        {"''''", PRE S("&#39;&#39;&#39;&#39;") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
}

static void test_comments(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"# only", PRE C("# only") END},
        {"x = 1 # hi <b>\ny", PRE D("x = ") N("1 ") C("# hi &lt;b&gt;\n") D("y") END},
        {"'#not' # yes 'q'", PRE S("&#39;#not&#39; ") C("# yes &#39;q&#39;") END},
        {"#a\n#b\nc", PRE C("#a\n#b\n") D("c") END},
        {"# def x(): 'str'\n", PRE C("# def x(): &#39;str&#39;\n") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
}

static void test_numbers(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"1, 1.5, 1e-3, 0x1F, 1_000, 3j", PRE N("1") D(", ") N("1.5") D(", ") N("1e-3") D(", ")
                                              N("0x1F") D(", ") N("1_000") D(", ") N("3j") END},
        {"0b101+0o17-.5*1E+10/2.5e3J",
         PRE N("0b101") D("+") N("0o17") D("-") N(".5") D("*") N("1E+10") D("/") N("2.5e3J") END},
        {"1.", PRE N("1.") END},
        {"1e", PRE N("1") D("e") END},
        {"1e+", PRE N("1") D("e+") END},
        {"0", PRE N("0") END},
        {"0x", PRE N("0x") END},
        /* Digits inside names are not numbers. */
        {"tmp10 = x1", PRE D("tmp10 = x1") END},
        {"True, False, None", PRE N("True") D(", ") N("False") D(", ") N("None") END},
        {"x.True", PRE D("x.True") END},
        {"a[1:2]", PRE D("a[") N("1") D(":") N("2") D("]") END},
        {"x.y", PRE D("x.y") END},
        {"...", PRE D("...") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
}

static void test_builtins(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"print(len(x))", PRE B("print") D("(") B("len") D("(x))") END},
        {"x.type, type(x)", PRE D("x.type, ") B("type") D("(x)") END},
        {"isinstance(a, int)", PRE B("isinstance") D("(a, ") B("int") D(")") END},
        {"raise Exception('e')",
         PRE KW("raise ") B("Exception") D("(") S("&#39;e&#39;") D(")") END},
        {"printer lens", PRE D("printer lens") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
}

static void test_decorators(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"@triton.jit\ndef k():\n    a @ b\n",
         PRE B("@triton.jit\n") KW("def ") DN("k") D("():\n    a @ b\n") END},
        {"    @staticmethod\n    def f(): pass",
         PRE D("    ") B("@staticmethod\n    ") KW("def ") DN("f") D("(): ") KW("pass") END},
        {"@h.pointwise(\n    size=1,\n)",
         PRE B("@h.pointwise") D("(\n    size=") N("1") D(",\n)") END},
        {"x = a@b", PRE D("x = a@b") END},
        {"@", PRE D("@") END},
        {"@ x", PRE D("@ x") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
}

static void test_escaping(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"a < b > c & d", PRE D("a &lt; b &gt; c &amp; d") END},
        {"x = \"<script>\" + '&amp;'",
         PRE D("x = ") S("&quot;&lt;script&gt;&quot; ") D("+ ") S("&#39;&amp;amp;&#39;") END},
        {"</span></pre>", PRE D("&lt;/span&gt;&lt;/pre&gt;") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    static const struct golden g[] = {
        {"x = '\xff\xfe'\n\xc3(", PRE D("x = ") S("&#39;\xff\xfe&#39;\n") D("\xc3(") END},
        {"caf\xc3\xa9 = 1", PRE D("caf\xc3\xa9 = ") N("1") END},
        {"\x80", PRE D("\x80") END},
        {"# \xff\xff\n", PRE C("# \xff\xff\n") END},
        {"\x01\x02", PRE D("\x01\x02") END},
    };
    check_table(g, TL_ARRAY_LEN(g));
    /* NUL becomes U+FFFD, like everywhere in html.c. */
    check_n("a\0'\0'", 5, PRE D("a\xEF\xBF\xBD") S("&#39;\xEF\xBF\xBD&#39;") END);
}

/*
 * Structural check: wrapper, only known styles, balanced spans, no empty
 * span, no two neighbours with the same style, only the five entities, and
 * the decoded text equals the input (NUL read as U+FFFD).
 */
static void check_structure(const char *src, size_t n)
{
    struct tl_buf b = TL_BUF_INIT;
    struct tl_buf text = TL_BUF_INIT;
    tl_pyhl_render(&b, src, n);
    assert_true(b.len >= strlen(PRE END));
    assert_memory_equal(b.buf, PRE, strlen(PRE));
    assert_string_equal(b.buf + b.len - strlen(END), END);

    const char *p = b.buf + strlen(PRE);
    const char *end = b.buf + b.len - strlen(END);
    int prev = -1;
    while (p < end) {
        assert_true(strncmp(p, "<span style=\"", 13) == 0);
        p += 13;
        int st = -1;
        for (size_t i = 0; i < TL_ARRAY_LEN(styles); i++) {
            size_t l = strlen(styles[i]);
            if (strncmp(p, styles[i], l) == 0 && strncmp(p + l, "\">", 2) == 0) {
                st = (int)i;
                p += l + 2;
                break;
            }
        }
        assert_true(st >= 0);
        assert_true(st != prev);
        prev = st;
        const char *close = strstr(p, "</span>");
        assert_non_null(close);
        assert_true(close > p);
        for (; p < close; p++) {
            assert_true(*p != '<' && *p != '>' && *p != '"' && *p != '\'');
            if (*p != '&') {
                tl_buf_addch(&text, *p);
                continue;
            }
            static const char *const ent[][2] = {
                {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}};
            size_t k = 0;
            while (k < 5 && strncmp(p, ent[k][0], strlen(ent[k][0])) != 0)
                k++;
            assert_true(k < 5);
            tl_buf_adds(&text, ent[k][1]);
            p += strlen(ent[k][0]) - 1;
        }
        p = close + 7;
    }

    struct tl_buf want = TL_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (src[i])
            tl_buf_addch(&want, src[i]);
        else
            tl_buf_adds(&want, "\xEF\xBF\xBD");
    }
    assert_int_equal(text.len, want.len);
    assert_memory_equal(text.buf, want.buf, want.len);
    tl_buf_release(&want);
    tl_buf_release(&text);
    tl_buf_release(&b);
}

static const char inductor_code[] =
    "# AOT ID: ['0_inference']\n"
    "from ctypes import c_void_p, c_long, c_int\n"
    "import torch\n"
    "from torch._inductor.runtime.triton_heuristics import (\n"
    "    grid,\n"
    ")\n"
    "aten = torch.ops.aten\n"
    "async_compile = AsyncCompile()\n"
    "\n"
    "# kernel path: /tmp/x/ke/ckedh.py\n"
    "triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''\n"
    "import triton\n"
    "@triton_heuristics.pointwise(\n"
    "    size_hints=[8388608], \n"
    "    triton_meta={'signature': {'in_ptr0': '*i64'}, 'constants': {}},\n"
    ")\n"
    "@triton.jit\n"
    "def triton_poi_fused_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
    "    xnumel = 5242880\n"
    "    xmask = xindex < xnumel\n"
    "    tmp7 = 0.7071067811865476\n"
    "    tl.store(out_ptr0 + (x0), tmp2, None)\n"
    "''', device_str='cuda')\n"
    "cpp_fused_0 = async_compile.cpp_pybinding(['const float*', 'float*'], '''\n"
    "#include \"/tmp/torchinductor/cpp_prefix.h\"\n"
    "extern \"C\"  void kernel(const float* in_ptr0, float* out_ptr0)\n"
    "{\n"
    "    for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=1)\n"
    "    {\n"
    "        auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];\n"
    "        out_ptr0[x0] = tmp0 > 0 ? tmp0 : 0.0f; // relu & 'done'\n"
    "    }\n"
    "}\n"
    "''')\n"
    "\n"
    "def call(args):\n"
    "    arg0_1, = args\n"
    "    args.clear()\n"
    "    with torch.cuda._DeviceGuard(0):\n"
    "        aten.randint.low_out(-9223372036854775808, 9223372036854775807, [1], out=buf0)\n"
    "    return (buf4, )\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    compiled_module_main('None', benchmark_compiled_module)\n";

static void test_structure(void **state)
{
    (void)state;
    check_structure(inductor_code, sizeof(inductor_code) - 1);
    /* Every prefix of it, so each unterminated state is exercised. */
    for (size_t i = 0; i < sizeof(inductor_code) - 1; i += 7)
        check_structure(inductor_code, i);
    check_structure("a\0b\xff'''\0", 8);
}

/* Spot-check the realistic snippet's interesting spans. */
static void test_inductor_spans(void **state)
{
    (void)state;
    static const char *const want[] = {
        C("# AOT ID: [&#39;0_inference&#39;]\n"),
        KW("def ") DN("call") "<span style=\"color:#323232;\">(args):\n    arg0_1, = args\n",
        S("&#39;triton_poi_fused_0&#39;")
            D(", ") "<span style=\"color:#183691;\">"
                    "&#39;&#39;&#39;\nimport triton\n@triton_heuristics",
        "tmp0 : 0.0f; // relu &amp; &#39;done&#39;\n    }\n}\n&#39;&#39;&#39;</span>" D(")\n\n")
            KW("def "),
        "low_out(-</span>" N("9223372036854775808") D(", "),
        KW("if ") D("__name__ == ") S("&quot;__main__&quot;"),
    };
    struct tl_buf b = TL_BUF_INIT;
    tl_pyhl_render(&b, inductor_code, sizeof(inductor_code) - 1);
    int missing = 0;
    for (size_t i = 0; i < TL_ARRAY_LEN(want); i++) {
        if (!strstr(b.buf, want[i])) {
            print_error("missing: %s\n", want[i]);
            missing++;
        }
    }
    if (missing)
        print_error("output:\n%s\n", b.buf);
    tl_buf_release(&b);
    assert_int_equal(missing, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),     cmocka_unit_test(test_keywords),
        cmocka_unit_test(test_def_class), cmocka_unit_test(test_strings),
        cmocka_unit_test(test_comments),  cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_builtins),  cmocka_unit_test(test_decorators),
        cmocka_unit_test(test_escaping),  cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_structure), cmocka_unit_test(test_inductor_spans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
