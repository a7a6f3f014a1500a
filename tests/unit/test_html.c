/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for html.c: exact output of the text/attr escapers (every
 * special byte, empty input, chunk boundaries, NUL, bytes >= 0x80), a
 * randomized comparison with a naive reference, and the URL filter.
 */
#include "base/config.h"
#include "report/html.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef void (*escaper)(struct tl_buf *, const char *, size_t);

/* Escape p[0..n) into a fresh buffer and compare with want[0..wn). */
static void check_n(escaper fn, const char *p, size_t n, const char *want, size_t wn)
{
    struct tl_buf b = TL_BUF_INIT;
    fn(&b, p, n);
    bool ok = b.len == wn && memcmp(b.buf, want, wn) == 0 && b.buf[b.len] == '\0';
    if (!ok)
        print_error("escape of %zu bytes: got %zu bytes \"%.200s\", want %zu bytes \"%.200s\"\n", n,
                    b.len, b.buf, wn, want);
    tl_buf_release(&b);
    assert_true(ok);
}

static void check(escaper fn, const char *p, const char *want)
{
    check_n(fn, p, strlen(p), want, strlen(want));
}

static void test_text_specials(void **state)
{
    (void)state;
    check(tl_html_text, "", "");
    check(tl_html_text, "&", "&amp;");
    check(tl_html_text, "<", "&lt;");
    check(tl_html_text, ">", "&gt;");
    check(tl_html_text, "\"'", "\"'");
    check(tl_html_text, "a&b<c>d\"e'f", "a&amp;b&lt;c&gt;d\"e'f");
    check(tl_html_text, "&amp;", "&amp;amp;");
    check(tl_html_text, "<<>>&&", "&lt;&lt;&gt;&gt;&amp;&amp;");
    check(tl_html_text, "plain text, no specials", "plain text, no specials");
}

static void test_attr_specials(void **state)
{
    (void)state;
    check(tl_html_attr, "", "");
    check(tl_html_attr, "&", "&amp;");
    check(tl_html_attr, "<", "&lt;");
    check(tl_html_attr, ">", "&gt;");
    check(tl_html_attr, "\"", "&quot;");
    check(tl_html_attr, "'", "&#39;");
    check(tl_html_attr, "a&b<c>d\"e'f", "a&amp;b&lt;c&gt;d&quot;e&#39;f");
    check(tl_html_attr, "x=\"1\" onload='y'", "x=&quot;1&quot; onload=&#39;y&#39;");
}

static void test_nul_and_high_bytes(void **state)
{
    (void)state;
    check_n(tl_html_text, "a\0b", 3,
            "a\xEF\xBF\xBD"
            "b",
            5);
    check_n(tl_html_attr, "\0", 1, "\xEF\xBF\xBD", 3);
    check_n(tl_html_attr, "\0\0<", 3, "\xEF\xBF\xBD\xEF\xBF\xBD&lt;", 10);
    /* Valid UTF-8, invalid UTF-8 and control bytes pass through. */
    check(tl_html_text, "caf\xC3\xA9 \xE2\x82\xAC", "caf\xC3\xA9 \xE2\x82\xAC");
    check(tl_html_attr, "\xFF\xFE\xC3(\x80<", "\xFF\xFE\xC3(\x80&lt;");
    check(tl_html_attr, "\x01\x1F\x7F\t\r\n", "\x01\x1F\x7F\t\r\n");
}

static void test_appends(void **state)
{
    (void)state;
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_adds(&b, "<p>");
    tl_html_text_cstr(&b, "1 < 2");
    tl_buf_adds(&b, "</p><a title=\"");
    tl_html_attr_cstr(&b, "\"q\"");
    tl_buf_adds(&b, "\">");
    assert_string_equal(b.buf, "<p>1 &lt; 2</p><a title=\"&quot;q&quot;\">");
    tl_buf_release(&b);
}

/* Long inputs cross the internal chunking; check exact output. */
static void test_long_runs(void **state)
{
    (void)state;
    size_t na = 100000;
    size_t nb = 20000;
    char *in = malloc(na + 1 + nb);
    char *want = malloc(na + 4 + nb);
    assert_non_null(in);
    assert_non_null(want);
    memset(in, 'a', na);
    in[na] = '<';
    memset(in + na + 1, 'b', nb);
    memset(want, 'a', na);
    memcpy(want + na, "&lt;", 4);
    memset(want + na + 4, 'b', nb);
    check_n(tl_html_text, in, na + 1 + nb, want, na + 4 + nb);
    check_n(tl_html_attr, in, na + 1 + nb, want, na + 4 + nb);
    free(in);
    free(want);

    /* Every byte special: the worst-case expansion, over several chunks. */
    size_t nq = 30001;
    in = malloc(nq);
    want = malloc(nq * 6);
    assert_non_null(in);
    assert_non_null(want);
    memset(in, '"', nq);
    for (size_t i = 0; i < nq; i++)
        memcpy(want + i * 6, "&quot;", 6);
    check_n(tl_html_attr, in, nq, want, nq * 6);
    check_n(tl_html_text, in, nq, in, nq);
    free(in);
    free(want);
}

static void naive(struct tl_buf *b, const unsigned char *p, size_t n, int attr)
{
    for (size_t i = 0; i < n; i++) {
        switch (p[i]) {
        case '&':
            tl_buf_adds(b, "&amp;");
            break;
        case '<':
            tl_buf_adds(b, "&lt;");
            break;
        case '>':
            tl_buf_adds(b, "&gt;");
            break;
        case '"':
            tl_buf_adds(b, attr ? "&quot;" : "\"");
            break;
        case '\'':
            tl_buf_adds(b, attr ? "&#39;" : "'");
            break;
        case 0:
            tl_buf_adds(b, "\xEF\xBF\xBD");
            break;
        default:
            tl_buf_addch(b, (char)p[i]);
        }
    }
}

/* Random inputs over all 256 byte values, against the per-byte reference. */
static void test_random_vs_naive(void **state)
{
    (void)state;
    srand(12345);
    unsigned char *in = malloc(40000);
    assert_non_null(in);
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)rand() % (round < 190 ? 300 : 40000);
        int density = rand() % 4;
        for (size_t i = 0; i < n; i++) {
            in[i] = (unsigned char)(density == 0 ? rand() % 256 : 'a' + rand() % 26);
            if (density && rand() % (density * 8) == 0)
                in[i] = (unsigned char)"&<>\"'\0"[rand() % 6];
        }
        for (int attr = 0; attr < 2; attr++) {
            struct tl_buf want = TL_BUF_INIT;
            naive(&want, in, n, attr);
            check_n(attr ? tl_html_attr : tl_html_text, (const char *)in, n, want.buf, want.len);
            tl_buf_release(&want);
        }
    }
    free(in);
}

struct url_case {
    const char *in;
    const char *want;
};

static void test_url(void **state)
{
    (void)state;
    static const struct url_case cases[] = {
        /* blocked schemes, also disguised */
        {"javascript:alert(1)", "#blocked:javascript:alert(1)"},
        {"JaVaScRiPt:alert(1)", "#blocked:JaVaScRiPt:alert(1)"},
        {" javascript:alert(1)", "#blocked: javascript:alert(1)"},
        {"java\tscript:alert(1)", "#blocked:java\tscript:alert(1)"},
        {"java\nscript:", "#blocked:java\nscript:"},
        {"java\rscript:x", "#blocked:java\rscript:x"},
        {"javascript\t:x", "#blocked:javascript\t:x"},
        {"\x01javascript:alert(1)", "#blocked:\x01javascript:alert(1)"},
        {" \t\r\n\x1F javascript:x \x01", "#blocked: \t\r\n\x1F javascript:x \x01"},
        {"data:text/html,<script>alert('x')</script>",
         "#blocked:data:text/html,&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"},
        {"vbscript:msgbox(1)", "#blocked:vbscript:msgbox(1)"},
        {"file:///etc/passwd", "#blocked:file:///etc/passwd"},
        {"ftp://host/x", "#blocked:ftp://host/x"},
        {"httpx://x", "#blocked:httpx://x"},
        {"c:\\windows", "#blocked:c:\\windows"},
        {"a+b-c.d:x", "#blocked:a+b-c.d:x"},
        {"https:x", "https:x"},
        /* allowed schemes */
        {"https://x", "https://x"},
        {"http://x/?a=1&b=\"2\"", "http://x/?a=1&amp;b=&quot;2&quot;"},
        {"HTTPS://X", "HTTPS://X"},
        {"ht\ttps://x", "ht\ttps://x"},
        {"h\ttps://x", "#blocked:h\ttps://x"},
        {" http://x ", " http://x "},
        {"mailto:a@b", "mailto:a@b"},
        {"MailTo:a@b", "MailTo:a@b"},
        /* relative URLs */
        {"", ""},
        {"foo/bar.html", "foo/bar.html"},
        {"-_0_0_0/a_1.txt", "-_0_0_0/a_1.txt"},
        {"#frag", "#frag"},
        {"?q=1", "?q=1"},
        {"//host/path", "//host/path"},
        {"./javascript:x", "./javascript:x"},
        {"a/b:c", "a/b:c"},
        {"1abc:x", "1abc:x"},
        {":x", ":x"},
        {"http", "http"},
        {"\xC2\xA0javascript:x", "\xC2\xA0javascript:x"},
        {"it's <here>", "it&#39;s &lt;here&gt;"},
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++)
        check(tl_html_url, cases[i].in, cases[i].want);

    /* A leading NUL is stripped by the browser too: still blocked. */
    check_n(tl_html_url, "\0javascript:x", 13, "#blocked:\xEF\xBF\xBDjavascript:x", 24);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_specials),
        cmocka_unit_test(test_attr_specials),
        cmocka_unit_test(test_nul_and_high_bytes),
        cmocka_unit_test(test_appends),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_random_vs_naive),
        cmocka_unit_test(test_url),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
