/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for `tlparse diff` (model/diff.c, report/diff.c): the input is two summaries
 * (tlparse-summary/1 JSON) split at the first NUL byte, or one used for both sides when it has
 * none. Each is read with tl_diff_side_read (a hostile summary.json: a failed read leaves an
 * empty side); when both read, they are compared and written as JSON, as coloured text and as
 * the page, and checked: the pairs add up to both sides' items, a side against itself has no
 * change, the JSON re-parses with its schema, the text has no control character but ANSI
 * colours, the page no unescaped `<fz` canary, and every output is well-formed UTF-8.
 */
#include "base/config.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"
#include "base/utf8.h"
#include "model/diff.h"
#include "report/diff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_diff: check failed: %s (line %d)\n", #cond, __LINE__);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A side that failed to read holds nothing. */
static void check_empty(const struct tl_diff_side *s)
{
    for (int c = 0; c < TL_DIFF_NCATS; c++)
        CHECK(s->nitems[c] == 0);
    CHECK(s->nframes == 0);
}

/* Every item of each side is in exactly one pair, or counted as the same on both. */
static void check_counts(const struct tl_diff *d, bool same_input)
{
    for (int c = 0; c < TL_DIFF_NCATS; c++) {
        const uint32_t *n = d->nchange[c];
        CHECK(n[TL_DIFF_SAME] + n[TL_DIFF_CHANGED] + n[TL_DIFF_FIXED] == d->before->nitems[c]);
        CHECK(n[TL_DIFF_SAME] + n[TL_DIFF_CHANGED] + n[TL_DIFF_NEW] == d->after->nitems[c]);
        CHECK(d->nsame[c] == n[TL_DIFF_SAME]);
        CHECK(d->npairs[c] == n[TL_DIFF_CHANGED] + n[TL_DIFF_FIXED] + n[TL_DIFF_NEW]);
        for (uint32_t i = 0; i < d->npairs[c]; i++) {
            const struct tl_diff_pair *p = &d->pairs[c][i];
            CHECK(p->change != TL_DIFF_SAME);
            CHECK((p->before != NULL) == (p->change != TL_DIFF_NEW));
            CHECK((p->after != NULL) == (p->change != TL_DIFF_FIXED));
        }
        if (same_input)
            CHECK(d->npairs[c] == 0);
    }
    uint32_t na = d->before->nframes, nb = d->after->nframes;
    CHECK(d->nframes >= (na > nb ? na : nb) && d->nframes <= na + nb);
    CHECK(d->graphs_same + d->ngraphs == d->graphs_matched);
    CHECK(d->graphs_by_hash <= d->graphs_matched);
    struct tl_diff_counts k;
    tl_diff_counts(d, &k);
    if (same_input) {
        CHECK(d->nframes == na);
        for (uint32_t i = 0; i < d->nframes; i++)
            CHECK(d->frames[i].before && d->frames[i].after);
        CHECK(d->ngraphs == 0);
        CHECK(k.frames_more == 0 && k.frames_fewer == 0);
    }
}

static void check_json(const struct tl_buf *b, bool same_input)
{
    CHECK(tl_utf8_valid(b->buf, b->len));
    struct tl_arena a;
    tl_arena_init(&a, 64 * 1024);
    struct tl_json root;
    CHECK(tl_json_parse(&a, b->buf, b->len, &root, NULL) == 0);
    CHECK(root.type == TL_JSON_OBJECT);
    const struct tl_json *schema = tl_json_get(&root, "schema");
    CHECK(schema && schema->type == TL_JSON_STRING &&
          tl_str_eq_cstr(schema->u.str, "tlparse-diff/1"));
    const struct tl_json *changes = tl_json_get(&root, "changes");
    CHECK(changes && changes->type == TL_JSON_NUMBER && changes->u.num.kind == TL_JSON_UINT);
    if (same_input)
        CHECK(changes->u.num.u == 0);
    tl_arena_release(&a);
}

/* Only '\n' and the ANSI colour sequences ("\033[" digits and ';' "m") are control bytes. */
static void check_text(const struct tl_buf *b)
{
    CHECK(tl_utf8_valid(b->buf, b->len));
    for (size_t i = 0; i < b->len; i++) {
        unsigned char c = (unsigned char)b->buf[i];
        if (c == '\033') {
            CHECK(i + 1 < b->len && b->buf[i + 1] == '[');
            i += 2;
            while (i < b->len && ((b->buf[i] >= '0' && b->buf[i] <= '9') || b->buf[i] == ';'))
                i++;
            CHECK(i < b->len && b->buf[i] == 'm');
            continue;
        }
        CHECK(c == '\n' || (c >= 0x20 && c != 0x7f));
    }
}

static void check_page(const struct tl_buf *b)
{
    CHECK(tl_utf8_valid(b->buf, b->len));
    CHECK(b->len > 0);
    CHECK(!memmem(b->buf, b->len, "<fz", 3));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t n0 = nul ? (size_t)(nul - text) : size;
    const char *text1 = nul ? nul + 1 : text;
    size_t n1 = nul ? size - n0 - 1 : size;

    /* The paths come from the user, not the summary, but are written the same way. */
    struct tl_diff_side before, after;
    struct tl_err err = {TL_ERR_NONE, ""};
    int rc0 = tl_diff_side_read(&before, "runs/<fz>a\x1b[31m/summary.json", "summary", "runs/a",
                                text, n0, &err);
    if (rc0 < 0) {
        CHECK(err.msg[0]);
        check_empty(&before);
    }
    err = (struct tl_err){TL_ERR_NONE, ""};
    int rc1 = tl_diff_side_read(&after, "b.json", NULL, NULL, text1, n1, &err);
    if (rc1 < 0) {
        CHECK(err.msg[0]);
        check_empty(&after);
    }
    if (rc0 == 0 && rc1 == 0) {
        struct tl_diff d;
        tl_diff_compute(&d, &before, &after);
        check_counts(&d, !nul);

        struct tl_buf out = TL_BUF_INIT;
        tl_diff_json(&out, &d);
        check_json(&out, !nul);
        tl_buf_reset(&out);
        tl_diff_text(&out, &d, true);
        check_text(&out);
        tl_buf_reset(&out);
        struct tl_diff_links links = {"before/", "after/"};
        tl_diff_page(&out, &d, &links, NULL);
        check_page(&out);
        tl_buf_release(&out);
        tl_diff_release(&d);
    }
    tl_diff_side_release(&before);
    tl_diff_side_release(&after);
    return 0;
}
