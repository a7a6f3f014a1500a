/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for bundle_html.c, the single-page bundle: the exact page of a small bundle (the
 * loader page, then one element per file), every file read back from the page (base64
 * decoded piece by piece, then gunzipped with zlib) equal to its bytes, whatever the chunks
 * it was handed in (one byte at a time, odd sizes, 64 KiB), and hostile names and bytes that
 * stay inside their attribute and element.
 */
#include "base/config.h"
#include "report/bundle_html.h"
#include "base/xalloc.h"
#include "report/assets.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define FILE_OPEN "<script type=\"application/x-tlparse-file\" data-path=\""
#define MORE_OPEN "<script type=\"application/x-tlparse-more\">"
#define CLOSE "</script>\n"
#define PIECE 65536
#define END "</body>\n</html>\n"

/* ---- reading a bundle back, strictly ---------------------------------------------------- */

struct file {
    char *path;     /* the attribute, unescaped */
    char *raw_path; /* the attribute as written */
    unsigned long long size;
    struct tl_buf data; /* gunzipped */
    size_t pieces;
};

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Decode one piece on its own (so each must be whole quads); fails the test on bad input. */
static void b64_decode(const char *s, size_t n, struct tl_buf *out)
{
    assert_int_equal(n % 4, 0);
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            if (s[i + k] == '=') {
                /* padding only at the very end of a piece, and only in the last two places */
                assert_true(i + 4 == n && k >= 2);
                v[k] = 0;
                pad++;
            } else {
                assert_int_equal(pad, 0);
                v[k] = b64_value(s[i + k]);
                assert_true(v[k] >= 0);
            }
        }
        unsigned char o[3] = {(unsigned char)(v[0] << 2 | v[1] >> 4),
                              (unsigned char)((v[1] & 15) << 4 | v[2] >> 2),
                              (unsigned char)((v[2] & 3) << 6 | v[3])};
        tl_buf_add(out, o, 3 - (size_t)pad);
    }
}

/* Gunzip a whole gzip member: exactly one, nothing after it. */
static void gunzip(const struct tl_buf *in, struct tl_buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK); /* gzip only, not zlib or raw */
    z.next_in = (Bytef *)in->buf;
    z.avail_in = (uInt)in->len;
    int rc;
    do {
        tl_buf_grow(out, 65536);
        z.next_out = (Bytef *)out->buf + out->len;
        z.avail_out = 65536;
        rc = inflate(&z, Z_NO_FLUSH);
        assert_true(rc == Z_OK || rc == Z_STREAM_END);
        tl_buf_setlen(out, out->len + (65536 - z.avail_out));
    } while (rc != Z_STREAM_END);
    assert_int_equal(z.avail_in, 0);
    inflateEnd(&z);
}

static char *unescape_attr(const char *p, size_t n)
{
    static const struct {
        const char *ent;
        char c;
    } ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = 0; i < n;) {
        bool done = false;
        for (size_t k = 0; k < TL_ARRAY_LEN(ents) && !done; k++) {
            size_t l = strlen(ents[k].ent);
            if (p[i] == '&' && i + l <= n && !memcmp(p + i, ents[k].ent, l)) {
                tl_buf_addch(&b, ents[k].c);
                i += l;
                done = true;
            }
        }
        if (!done) {
            /* an attribute value as written holds no raw quote, '<', '>' or bare '&' */
            assert_true(p[i] != '"' && p[i] != '\'' && p[i] != '<' && p[i] != '>' && p[i] != '&');
            tl_buf_addch(&b, p[i++]);
        }
    }
    return tl_buf_detach(&b, NULL);
}

static bool eat(const char **s, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(*s, lit, n))
        return false;
    *s += n;
    return true;
}

/* The elements of the files, from s to the end of the page; returns how many (at most max). */
static size_t read_files(const char *s, struct file *files, size_t max)
{
    size_t n = 0;
    while (!eat(&s, END)) {
        assert_true(n < max);
        struct file *f = &files[n++];
        memset(f, 0, sizeof(*f));
        assert_true(eat(&s, FILE_OPEN));
        const char *q = strchr(s, '"');
        assert_non_null(q);
        f->raw_path = tl_xmemdupz(s, (size_t)(q - s));
        f->path = unescape_attr(s, (size_t)(q - s));
        s = q;
        assert_true(eat(&s, "\" data-size=\""));
        char *end;
        f->size = strtoull(s, &end, 10);
        assert_true(end > s);
        s = end;
        assert_true(eat(&s, "\">"));
        struct tl_buf gz = TL_BUF_INIT;
        for (;;) {
            /* the content: base64 and nothing else, up to our own "</script>\n" */
            size_t len =
                strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=");
            b64_decode(s, len, &gz);
            f->pieces++;
            s += len;
            assert_true(eat(&s, CLOSE));
            if (!eat(&s, MORE_OPEN))
                break;
            assert_int_equal(len, PIECE); /* only the last piece may be short */
        }
        tl_buf_init(&f->data, 0);
        gunzip(&gz, &f->data);
        tl_buf_release(&gz);
    }
    assert_int_equal(*s, '\0');
    return n;
}

static void files_release(struct file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(files[i].path);
        free(files[i].raw_path);
        tl_buf_release(&files[i].data);
    }
}

/* The loader page up to the first file: the exact text bundle_html.c writes. */
static void expected_preamble(struct tl_buf *b, const char *title_text)
{
    tl_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                   "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; "
                   "font-src data:; media-src data: blob:; frame-src blob:; child-src blob:; "
                   "connect-src 'none'; form-action 'none'\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<meta name=\"generator\" content=\"tlparse " TL_VERSION " bundle 1\">\n"
                   "<title>");
    tl_buf_adds(b, title_text);
    tl_buf_adds(b, "</title>\n<style>\n");
    tl_buf_adds(b, tl_asset_bundle_css);
    tl_buf_adds(b, "</style>\n<script>\n");
    tl_buf_adds(b, tl_asset_bundle_js);
    tl_buf_adds(b, "</script>\n</head>\n<body>\n"
                   "<noscript><p class=\"tlb-msg\">This report is a single-file bundle: its "
                   "pages are shown by a small script, so it needs JavaScript.</p></noscript>\n"
                   "<div id=\"tlb-bar\"><a id=\"tlb-home\" href=\"#/index.html\">");
    tl_buf_adds(b, title_text);
    tl_buf_adds(b, "</a><span id=\"tlb-path\"></span><a id=\"tlb-save\" hidden>save</a></div>\n"
                   "<div id=\"tlb-view\"><p class=\"tlb-msg\">Loading\xE2\x80\xA6</p></div>\n");
}

/* What a bundle of one file looks like when written with chunks of `chunk` bytes (0: all). */
static void bundle_one(struct tl_buf *out, const char *path, const void *p, size_t n, size_t chunk)
{
    struct tl_bundle_html *b = tl_bundle_html_begin(out, "t");
    tl_bundle_html_file_begin(b, out, path, n);
    const unsigned char *s = p;
    for (size_t i = 0; i < n;) {
        size_t k = chunk && chunk < n - i ? chunk : n - i;
        tl_bundle_html_file_data(b, out, s + i, k);
        i += k;
    }
    tl_bundle_html_file_end(b, out);
    tl_bundle_html_end(b, out);
}

/* Deterministic bytes: a mix of text (compressible) and noise (not). */
static unsigned char *make_bytes(size_t n, uint32_t seed, bool noisy)
{
    unsigned char *p = tl_xmalloc(n ? n : 1);
    uint32_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] =
            noisy ? (unsigned char)(x >> 24) : (unsigned char)("abc def\n<>&\"'"[(x >> 24) % 13]);
    }
    return p;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_small_bundle_exact(void **state)
{
    (void)state;
    static const char index_html[] = "<!DOCTYPE html>\n<p>hello <a href=\"a/b.txt\">b</a></p>\n";
    static const char txt[] = "one\ntwo\n";
    struct tl_buf out = TL_BUF_INIT;
    struct tl_bundle_html *b = tl_bundle_html_begin(&out, "tlparse: x<&>.log");
    tl_bundle_html_file_begin(b, &out, "index.html", sizeof(index_html) - 1);
    tl_bundle_html_file_data(b, &out, index_html, sizeof(index_html) - 1);
    tl_bundle_html_file_end(b, &out);
    tl_bundle_html_file_begin(b, &out, "a/b.txt", sizeof(txt) - 1);
    tl_bundle_html_file_data(b, &out, txt, 3);
    tl_bundle_html_file_data(b, &out, txt + 3, sizeof(txt) - 4);
    tl_bundle_html_file_end(b, &out);
    tl_bundle_html_end(b, &out);

    struct tl_buf want = TL_BUF_INIT;
    expected_preamble(&want, "tlparse: x&lt;&amp;&gt;.log");
    assert_true(out.len > want.len);
    assert_memory_equal(out.buf, want.buf, want.len);

    /* Then exactly: two one-piece elements, and the end of the page. */
    const char *s = out.buf + want.len;
    assert_true(!strncmp(s, FILE_OPEN "index.html\" data-size=\"53\">H4sI", 84));
    const char *second = strstr(s, CLOSE FILE_OPEN "a/b.txt\" data-size=\"8\">H4sI");
    assert_non_null(second);
    assert_null(strstr(s, MORE_OPEN));
    assert_string_equal(out.buf + out.len - strlen(CLOSE END), CLOSE END);

    struct file f[4];
    size_t n = read_files(s, f, 4);
    assert_int_equal(n, 2);
    assert_string_equal(f[0].path, "index.html");
    assert_int_equal(f[0].size, sizeof(index_html) - 1);
    assert_int_equal(f[0].data.len, sizeof(index_html) - 1);
    assert_memory_equal(f[0].data.buf, index_html, sizeof(index_html) - 1);
    assert_int_equal(f[0].pieces, 1);
    assert_string_equal(f[1].path, "a/b.txt");
    assert_int_equal(f[1].size, 8);
    assert_int_equal(f[1].data.len, 8);
    assert_memory_equal(f[1].data.buf, txt, 8);
    files_release(f, n);
    tl_buf_release(&want);
    tl_buf_release(&out);
}

static void test_empty_files_and_implicit_ends(void **state)
{
    (void)state;
    struct tl_buf out = TL_BUF_INIT;
    struct tl_bundle_html *b = tl_bundle_html_begin(&out, NULL);
    tl_bundle_html_file_begin(b, &out, "empty.txt", 0);
    tl_bundle_html_file_end(b, &out);
    tl_bundle_html_file_begin(b, &out, "no_end.json", 2);
    tl_bundle_html_file_data(b, &out, "{}", 2);
    tl_bundle_html_file_begin(b, &out, "big_claim.log", UINT64_C(1) << 40); /* size as given */
    tl_bundle_html_file_data(b, &out, "x", 1);
    tl_bundle_html_file_data(b, &out, "", 0);
    tl_bundle_html_end(b, &out); /* ends the open file */

    struct tl_buf want = TL_BUF_INIT;
    expected_preamble(&want, "tlparse report");
    assert_memory_equal(out.buf, want.buf, want.len);
    struct file f[4];
    size_t n = read_files(out.buf + want.len, f, 4);
    assert_int_equal(n, 3);
    assert_string_equal(f[0].path, "empty.txt");
    assert_int_equal(f[0].size, 0);
    assert_int_equal(f[0].data.len, 0);
    assert_string_equal(f[1].path, "no_end.json");
    assert_string_equal(f[1].data.buf, "{}");
    assert_string_equal(f[2].path, "big_claim.log");
    assert_true(f[2].size == UINT64_C(1) << 40);
    assert_string_equal(f[2].data.buf, "x");
    files_release(f, n);
    tl_buf_release(&want);
    tl_buf_release(&out);

    tl_bundle_html_end(NULL, &out); /* no-op */
    assert_int_equal(out.len, 0);
}

/* Files of many sizes around the base64 and piece boundaries, handed over in chunks of every
 * awkward size: the carried bytes between chunks, the padding and the pieces come out right,
 * and the page does not depend on how the bytes were chunked. */
static void test_chunking_and_pieces(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 3, 4, 5, 100, 49151, 49152, 49153, 65536, 300000};
    static const size_t chunks[] = {0, 1, 2, 3, 7, 4096, 65536};
    for (size_t si = 0; si < TL_ARRAY_LEN(sizes); si++) {
        for (int noisy = 0; noisy < 2; noisy++) {
            size_t n = sizes[si];
            unsigned char *p = make_bytes(n, (uint32_t)(n * 2 + (size_t)noisy), noisy);
            struct tl_buf first = TL_BUF_INIT;
            for (size_t ci = 0; ci < TL_ARRAY_LEN(chunks); ci++) {
                if (chunks[ci] && chunks[ci] < 4096 && n > 50000)
                    continue; /* byte by byte over 300 KB: slow under ASan, adds nothing */
                struct tl_buf out = TL_BUF_INIT;
                bundle_one(&out, "f.bin", p, n, chunks[ci]);
                if (ci == 0) {
                    struct tl_buf want = TL_BUF_INIT;
                    expected_preamble(&want, "t");
                    assert_memory_equal(out.buf, want.buf, want.len);
                    struct file f[1];
                    assert_int_equal(read_files(out.buf + want.len, f, 1), 1);
                    assert_int_equal(f[0].data.len, n);
                    assert_memory_equal(f[0].data.buf, p, n);
                    assert_int_equal(f[0].size, n);
                    if (noisy && n == 300000)
                        assert_true(f[0].pieces >= 6); /* 400 KB of base64: several pieces */
                    files_release(f, 1);
                    tl_buf_release(&want);
                    first = out;
                    continue;
                }
                if (out.len != first.len || memcmp(out.buf, first.buf, out.len))
                    fail_msg("%zu bytes in chunks of %zu: not the page of one chunk", n,
                             chunks[ci]);
                tl_buf_release(&out);
            }
            tl_buf_release(&first);
            free(p);
        }
    }
}

/* A name or bytes that try to end the element or the attribute stay inside. */
static void test_hostile_paths_and_bytes(void **state)
{
    (void)state;
    static const char *const paths[] = {
        "</script><script>alert(1)</script>.html",
        "a\"b'c&d<e>f.txt",
        "<!--x--><SCRIPT>y</SCRIPT >.json",
        "&amp;&#39;&quot;.txt",
    };
    struct tl_buf data = TL_BUF_INIT;
    tl_buf_adds(&data, "</script><script>alert(1)</script><!-- </SCRIPT --> <script>\n");
    for (int i = 0; i < 256; i++)
        tl_buf_addch(&data, (char)i);
    tl_buf_adds(&data, "</script");

    struct tl_buf out = TL_BUF_INIT;
    struct tl_bundle_html *b = tl_bundle_html_begin(&out, "</title><script>alert(2)</script>");
    for (size_t i = 0; i < TL_ARRAY_LEN(paths); i++) {
        tl_bundle_html_file_begin(b, &out, paths[i], data.len);
        tl_bundle_html_file_data(b, &out, data.buf, data.len);
        tl_bundle_html_file_end(b, &out);
    }
    tl_bundle_html_end(b, &out);

    struct tl_buf want = TL_BUF_INIT;
    expected_preamble(&want, "&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    assert_memory_equal(out.buf, want.buf, want.len);
    const char *s = out.buf + want.len;

    /* After the loader, every "</script" (in any case) is the end of one of our elements, and
     * there is no "<!--" (which would switch the parser to escaped script data). */
    size_t closes = 0;
    for (const char *p = s; (p = strcasestr(p, "</script")) != NULL; p++) {
        assert_true(!strncmp(p, CLOSE, strlen(CLOSE)));
        closes++;
    }
    assert_int_equal(closes, TL_ARRAY_LEN(paths));
    assert_null(strstr(s, "<!--"));

    struct file f[8];
    size_t n = read_files(s, f, 8); /* strict: would fail on any stray byte */
    assert_int_equal(n, TL_ARRAY_LEN(paths));
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(f[i].path, paths[i]);
        assert_int_equal(f[i].data.len, data.len);
        assert_memory_equal(f[i].data.buf, data.buf, data.len);
    }
    assert_string_equal(f[0].raw_path, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;.html");
    assert_string_equal(f[1].raw_path, "a&quot;b&#39;c&amp;d&lt;e&gt;f.txt");
    assert_string_equal(f[3].raw_path, "&amp;amp;&amp;#39;&amp;quot;.txt");
    files_release(f, n);
    tl_buf_release(&want);
    tl_buf_release(&out);
    tl_buf_release(&data);
}

/* The loader itself must not end the <script> it is put in, nor the CSS its <style>. */
static void test_assets_fit_their_elements(void **state)
{
    (void)state;
    assert_null(strcasestr(tl_asset_bundle_js, "</script"));
    assert_null(strcasestr(tl_asset_bundle_js, "<!--"));
    assert_null(strcasestr(tl_asset_bundle_css, "</style"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_bundle_exact),
        cmocka_unit_test(test_empty_files_and_implicit_ends),
        cmocka_unit_test(test_chunking_and_pieces),
        cmocka_unit_test(test_hostile_paths_and_bytes),
        cmocka_unit_test(test_assets_fit_their_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
