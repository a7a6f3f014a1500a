/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for html.c: runs tl_html_text, tl_html_attr and tl_html_url on
 * the input and checks that no raw markup byte survives, that every '&'
 * starts a known entity, that decoding gives back the input (NUL read as
 * U+FFFD), and that the URL filter agrees with an independent, slower
 * reading of the browser's scheme rules.
 */
#include "base/config.h"
#include "report/html.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_html: check failed: %s (line %d)\n", #cond, __LINE__);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static const char *const entities[][2] = {
    {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"},
};

/* Check the escaped form p[0..n) and decode it into dec. */
static void check_escaped(const char *p, size_t n, bool attr, struct tl_buf *dec)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        CHECK(c != '<' && c != '>' && c != '\0');
        if (attr)
            CHECK(c != '"' && c != '\'');
        if (c != '&') {
            tl_buf_addch(dec, c);
            continue;
        }
        size_t k = 0;
        size_t len = 0;
        for (; k < TL_ARRAY_LEN(entities); k++) {
            len = strlen(entities[k][0]);
            if (n - i >= len && memcmp(p + i, entities[k][0], len) == 0)
                break;
        }
        CHECK(k < TL_ARRAY_LEN(entities));
        tl_buf_adds(dec, entities[k][1]);
        i += len - 1;
    }
}

/* The input as the escapers must reproduce it: NUL becomes U+FFFD. */
static void expected_text(const uint8_t *data, size_t size, struct tl_buf *want)
{
    for (size_t i = 0; i < size; i++) {
        if (data[i])
            tl_buf_addch(want, (char)data[i]);
        else
            tl_buf_add(want, "\xEF\xBF\xBD", 3);
    }
}

/*
 * Independent scheme check: first normalise the whole URL the way the WHATWG
 * parser does (strip C0/space at both ends, drop tab/CR/LF, lower-case), then
 * match ^[a-z][a-z0-9+.-]*: and compare with the allowed list.
 */
static bool url_blocked_slow(const uint8_t *data, size_t size)
{
    size_t b = 0;
    size_t e = size;
    while (b < e && data[b] <= 0x20)
        b++;
    while (e > b && data[e - 1] <= 0x20)
        e--;
    struct tl_buf norm = TL_BUF_INIT;
    for (size_t i = b; i < e; i++) {
        uint8_t c = data[i];
        if (c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c >= 'A' && c <= 'Z')
            c = (uint8_t)(c - 'A' + 'a');
        tl_buf_addch(&norm, (char)c);
    }
    bool blocked = false;
    const char *s = norm.buf;
    if (norm.len && s[0] >= 'a' && s[0] <= 'z') {
        size_t i = 1;
        while (i < norm.len &&
               (strchr("abcdefghijklmnopqrstuvwxyz0123456789+.-", s[i]) && s[i] != '\0'))
            i++;
        if (i < norm.len && s[i] == ':') {
            bool ok = (i == 4 && memcmp(s, "http", 4) == 0) ||
                      (i == 5 && memcmp(s, "https", 5) == 0) ||
                      (i == 6 && memcmp(s, "mailto", 6) == 0);
            blocked = !ok;
        }
    }
    tl_buf_release(&norm);
    return blocked;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    struct tl_buf want = TL_BUF_INIT;
    struct tl_buf out = TL_BUF_INIT;
    struct tl_buf dec = TL_BUF_INIT;
    expected_text(data, size, &want);

    for (int attr = 0; attr < 2; attr++) {
        tl_buf_reset(&out);
        tl_buf_reset(&dec);
        (attr ? tl_html_attr : tl_html_text)(&out, in, size);
        CHECK(out.buf[out.len] == '\0');
        check_escaped(out.buf, out.len, attr, &dec);
        CHECK(dec.len == want.len && memcmp(dec.buf, want.buf, want.len) == 0);
    }

    /* out holds the attr escape now: the URL must be it, maybe prefixed. */
    struct tl_buf url = TL_BUF_INIT;
    tl_html_url(&url, in, size);
    size_t pre = url_blocked_slow(data, size) ? 9 : 0;
    CHECK(url.len == pre + out.len);
    CHECK(memcmp(url.buf, "#blocked:", pre) == 0);
    CHECK(memcmp(url.buf + pre, out.buf, out.len) == 0);
    tl_buf_release(&url);

    tl_buf_release(&want);
    tl_buf_release(&out);
    tl_buf_release(&dec);
    return 0;
}
