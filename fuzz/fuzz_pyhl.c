/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for pyhl.c: renders the input and checks the page structure
 * (wrapper, balanced non-nested spans with known styles, no empty span, no
 * two neighbours with one style, only known entities) and that the text
 * content, spans stripped and entities decoded, equals the input exactly
 * (NUL read as U+FFFD, as html.c writes it).
 */
#include "base/config.h"
#include "report/pyhl.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_pyhl: check failed: %s (line %d)\n", #cond, __LINE__);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static const char pre_open[] = "<pre style=\"background-color:#ffffff;\">\n";
static const char pre_close[] = "</pre>\n";
static const char span_start[] = "<span style=\"";
static const char span_close[] = "</span>";

static const char *const styles[] = {
    "color:#323232;",
    "font-weight:bold;color:#a71d5d;",
    "color:#183691;",
    "color:#0086b3;",
    "font-style:italic;color:#969896;",
    "color:#62a35c;",
    "font-weight:bold;color:#323232;",
};

static const char *const entities[][2] = {
    {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"},
};

static bool starts(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tl_buf out = TL_BUF_INIT;
    struct tl_buf text = TL_BUF_INIT;
    tl_pyhl_render(&out, (const char *)data, size);

    const char *p = out.buf;
    const char *end = out.buf + out.len;
    CHECK(*end == '\0');
    CHECK(starts(p, end, pre_open));
    p += sizeof(pre_open) - 1;
    CHECK((size_t)(end - p) >= sizeof(pre_close) - 1);
    end -= sizeof(pre_close) - 1;
    CHECK(memcmp(end, pre_close, sizeof(pre_close) - 1) == 0);

    int prev = -1;
    while (p < end) {
        CHECK(starts(p, end, span_start));
        p += sizeof(span_start) - 1;
        int st = -1;
        for (size_t i = 0; i < TL_ARRAY_LEN(styles) && st < 0; i++) {
            size_t l = strlen(styles[i]);
            if (starts(p, end, styles[i]) && starts(p + l, end, "\">")) {
                st = (int)i;
                p += l + 2;
            }
        }
        CHECK(st >= 0);
        CHECK(st != prev);
        prev = st;
        const char *text_start = p;
        /* Text runs up to the next '<', which must close this span. */
        while (p < end && *p != '<') {
            char c = *p;
            CHECK(c != '>' && c != '"' && c != '\'' && c != '\0');
            if (c != '&') {
                tl_buf_addch(&text, c);
                p++;
                continue;
            }
            size_t k = 0;
            while (k < TL_ARRAY_LEN(entities) && !starts(p, end, entities[k][0]))
                k++;
            CHECK(k < TL_ARRAY_LEN(entities));
            tl_buf_adds(&text, entities[k][1]);
            p += strlen(entities[k][0]);
        }
        CHECK(p > text_start);
        CHECK(starts(p, end, span_close));
        p += sizeof(span_close) - 1;
    }

    size_t j = 0;
    for (size_t i = 0; i < size; i++) {
        if (data[i]) {
            CHECK(j < text.len && (uint8_t)text.buf[j] == data[i]);
            j++;
        } else {
            CHECK(text.len - j >= 3 && memcmp(text.buf + j, "\xEF\xBF\xBD", 3) == 0);
            j += 3;
        }
    }
    CHECK(j == text.len);

    tl_buf_release(&text);
    tl_buf_release(&out);
    return 0;
}
