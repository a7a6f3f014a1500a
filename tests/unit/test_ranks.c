/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the multi-rank analyses (model/ranks.c) and what is made of them
 * (report/landing.c): each analysis of spec modes.md §1.5-1.13 on small hand-made summaries
 * with the spec's examples, the runtime trace's thread ids, collectives parity on code with
 * tags and comments, the landing page's sections and escaping, and the exact JSON files.
 */
#include "base/config.h"
#include "model/ranks.h"
#include "report/landing.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------------------------- */

static struct tl_arena arena;

static int setup(void **state)
{
    (void)state;
    tl_arena_init(&arena, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tl_arena_release(&arena);
    return 0;
}

static void analyze(struct tl_ranks *r, const struct tl_rank_summary *s, size_t n)
{
    tl_arena_reset(&arena);
    tl_ranks_analyze(r, s, n, &arena);
}

/* The landing page of r (no header, no chromium), in a string the caller frees. */
static char *landing(const struct tl_ranks *r, const char *header, bool chromium)
{
    struct tl_buf b = TL_BUF_INIT;
    struct tl_landing p = {.custom_header_html = header, .ranks = r, .has_chromium = chromium};
    tl_page_landing(&b, &p);
    return tl_buf_detach(&b, NULL);
}

static void has(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("missing \"%s\" in:\n%s", needle, hay);
}

static void lacks(const char *hay, const char *needle)
{
    if (strstr(hay, needle))
        fail_msg("unexpected \"%s\" in:\n%s", needle, hay);
}

/* Position of needle, which must be there. */
static size_t at(const char *hay, const char *needle)
{
    const char *p = strstr(hay, needle);
    if (!p)
        fail_msg("missing \"%s\" in:\n%s", needle, hay);
    return (size_t)(p - hay);
}

static void group_is(const struct tl_rank_group *g, const char *value, const char *ranks_text)
{
    assert_string_equal(g->value, value);
    assert_string_equal(g->ranks_text, ranks_text);
}

/* ---- §1.8 tid, §1.9 ms, §1.11 normalisation ---------------------------------------------- */

static void test_tid(void **state)
{
    (void)state;
    assert_int_equal(tl_ranks_tid(0, "-_0_1_0"), 3096134113u);
    assert_int_equal(tl_ranks_tid(6, "-_0_0_0"), 1904702005u);
    /* every tail length: 8-byte words, a 4-byte word, single bytes; never crashes */
    assert_int_not_equal(tl_ranks_tid(0, ""), tl_ranks_tid(1, ""));
    assert_int_not_equal(tl_ranks_tid(0, "abcdefghijklm"), tl_ranks_tid(0, "abcdefghijkl"));
    assert_int_equal(tl_ranks_tid(3, NULL), tl_ranks_tid(3, ""));
}

static void test_ms(void **state)
{
    (void)state;
    assert_true(tl_ranks_ms(13806089) == 13.806);
    assert_true(tl_ranks_ms(15877002) == 15.877);
    assert_true(tl_ranks_ms(15877002.0 - 13806089.0) == 2.071);
    /* half away from zero, not to even */
    assert_true(tl_ranks_ms(2500) == 0.003);
    assert_true(tl_ranks_ms(1500) == 0.002);
    assert_true(tl_ranks_ms(-1500) == -0.002);
    assert_true(tl_ranks_ms(0) == 0.0);
}

static void norm_is(const char *op, const char *want)
{
    const char *got = tl_ranks_collective(op, strlen(op));
    if (!want && got)
        fail_msg("%s: got %s, want none", op, got);
    if (want && (!got || strcmp(got, want) != 0))
        fail_msg("%s: got %s, want %s", op, got ? got : "none", want);
}

static void test_collective_names(void **state)
{
    (void)state;
    norm_is("torch.ops._c10d_functional.all_reduce_.default", "all_reduce");
    norm_is("all_reduce___", "all_reduce");
    norm_is("all_gather_into_tensor", "all_gather");
    norm_is("reduce_scatter_tensor", "reduce_scatter");
    norm_is("broadcast_", "broadcast");
    norm_is("all_to_all_single", "all_to_all");
    norm_is("reduce", "reduce");
    norm_is("my_reduce_op", "reduce");
    /* the first name of the list, wherever it is in the op */
    norm_is("broadcast_then_all_reduce", "all_reduce");
    norm_is("wait_tensor", NULL);
    norm_is("torch.ops._c10d_functional.wait_tensor.default", NULL);
    norm_is("", NULL);
    norm_is("___", NULL);
    norm_is("all_reduc", NULL);
    assert_null(tl_ranks_collective(NULL, 0));
    /* only n bytes are read */
    assert_string_equal(tl_ranks_collective("all_reduce_x", 10), "all_reduce");
    assert_null(tl_ranks_collective("all_reduce", 9));
}

/* ---- §1.11 parity ------------------------------------------------------------------------- */

static struct tl_parity_counts code_counts(const char *code)
{
    struct tl_parity_counts c;
    memset(&c, 0, sizeof(c));
    tl_parity_code(&c, code, strlen(code));
    return c;
}

static void test_parity_code_plain(void **state)
{
    (void)state;
    struct tl_parity_counts c = code_counts(
        "buf1 = torch.ops._c10d_functional.all_reduce_.default(buf0, 'sum', '0')\n"
        "buf2 = torch.ops._c10d_functional.all_gather_into_tensor.default(buf1, 2, '0')\n"
        "buf3 = torch.ops._c10d_functional.reduce_scatter_tensor.default(buf2, 'sum', 2, '0')\n"
        "torch.ops._c10d_functional.wait_tensor.default(buf3)\n"
        "torch.ops._c10d_functional.broadcast_.default(buf3, 0, '0')\n"
        "torch.ops._c10d_functional.all_to_all_single.default(buf3, [1], [1], '0')\n"
        "torch.ops._c10d_functional.something_else.default(buf3)\n");
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 1);
    assert_int_equal(c.n[TL_COLL_ALL_GATHER], 1);
    assert_int_equal(c.n[TL_COLL_REDUCE_SCATTER], 1);
    assert_int_equal(c.n[TL_COLL_BROADCAST], 1);
    assert_int_equal(c.n[TL_COLL_ALL_TO_ALL], 1);
    assert_int_equal(c.n[TL_COLL_REDUCE], 0);
    assert_int_equal(c.waits, 1);
}

static void test_parity_code_spacing(void **state)
{
    (void)state;
    /* whitespace around each dot and before "(", the leading "_" optional */
    struct tl_parity_counts c = code_counts(
        "x = torch . ops . _c10d_functional . all_reduce_ . default (a)\n"
        "y = torch\n.\n\tops.c10d_functional.all_reduce.default\n(b)\n"
        "z = torch.ops.c10d_functional.wait_tensor.default(y)\n"
        /* not calls: no "(", "default" misspelt, two underscores, no name, other namespace */
        "torch.ops._c10d_functional.all_reduce_.default\n"
        "torch.ops._c10d_functional.all_reduce_.defaults(a)\n"
        "torch.ops.__c10d_functional.all_reduce_.default(a)\n"
        "torch.ops._c10d_functional..default(a)\n"
        "torch.ops.aten.all_reduce.default(a)\n"
        "torchops._c10d_functional.all_reduce.default(a)\n");
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 2);
    assert_int_equal(c.waits, 1);
    uint64_t total = 0;
    for (int i = 0; i < TL_COLL__COUNT; i++)
        total += c.n[i];
    assert_int_equal(total, 2);
}

static void test_parity_code_html(void **state)
{
    (void)state;
    /* highlighted HTML: tags between the parts, a tag spanning lines, entities */
    struct tl_parity_counts c = code_counts(
        "<pre><span class=\"n\">buf1</span> = <span class=\"n\">torch</span><span\n"
        "class=\"o\">.</span>ops.<span>_c10d_functional</span>.<b>all_gather_into_tensor</b>"
        ".default(buf0, 2, &#39;0&#39;)\n"
        "<span class=\"c\"># torch.ops._c10d_functional.all_reduce_.default(buf0)</span>\n"
        "// torch.ops._c10d_functional.all_reduce_.default(buf0)\n"
        "/* torch.ops._c10d_functional.all_reduce_.default(buf0)\n"
        "   torch.ops._c10d_functional.all_reduce_.default(buf0) */ "
        "torch.ops._c10d_functional.reduce_scatter_tensor.default(b)\n"
        /* a comment made by removing tags: "/<i></i>/" is "//" */
        "/<i></i>/ torch.ops._c10d_functional.broadcast_.default(b)\n"
        /* "#" inside a block comment does not hide its end */
        "/* # */ torch.ops._c10d_functional.wait_tensor.default(b)\n"
        "</pre>");
    assert_int_equal(c.n[TL_COLL_ALL_GATHER], 1);
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 0);
    assert_int_equal(c.n[TL_COLL_REDUCE_SCATTER], 1);
    assert_int_equal(c.n[TL_COLL_BROADCAST], 0);
    assert_int_equal(c.waits, 1);
}

static void test_parity_code_hostile(void **state)
{
    (void)state;
    /* unclosed tags and comments: the rest is kept as text, or eaten, never read past */
    struct tl_parity_counts c =
        code_counts("<<<< torch.ops._c10d_functional.all_reduce_.default(a)");
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 1);
    c = code_counts("/* torch.ops._c10d_functional.all_reduce_.default(a)");
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 1); /* an unclosed block comment is no comment */
    c = code_counts("/*/ torch.ops._c10d_functional.all_reduce_.default(a)");
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 1);
    c = code_counts("# torch.ops._c10d_functional.all_reduce_.default(a)");
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 0);
    c = code_counts("torch.ops._c10d_functional.all_reduce_.default");
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 0);
    for (const char *p = "torch.ops._c10d_functional.x.default("; *p; p++)
        code_counts(p); /* every suffix of a call, ending anywhere */

    /* NUL bytes and high bytes in the middle */
    const char nul[] = "torch.ops._c10d_functional.all_reduce_.default(\0\xff<\0>"
                       "torch.ops._c10d_functional.all_reduce_.default(";
    memset(&c, 0, sizeof(c));
    tl_parity_code(&c, nul, sizeof(nul) - 1);
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 2);
    tl_parity_code(&c, NULL, 0);
    assert_int_equal(c.n[TL_COLL_ALL_REDUCE], 2);

    /* a large adversarial input stays linear: block comments without end, "<" without ">",
     * "torch" prefixes and long runs of spaces */
    size_t n = 1 << 20;
    char *big = malloc(n + 1);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = "/*<torch . ops  .  "[i % 19];
    big[n] = '\0';
    tl_parity_code(&c, big, n);
    memset(big, ' ', n);
    memcpy(big, "torch", 5);
    tl_parity_code(&c, big, n);
    free(big);
}

static void test_parity_schedule_compare(void **state)
{
    (void)state;
    const char *ops[] = {
        "torch.ops._c10d_functional.all_reduce_.default",
        "torch.ops._c10d_functional.wait_tensor.default",
        "torch.ops._c10d_functional.all_gather_into_tensor.default",
        NULL,
        "torch.ops.aten.mm.default",
    };
    struct tl_parity_counts s;
    memset(&s, 0, sizeof(s));
    tl_parity_schedule(&s, ops, TL_ARRAY_LEN(ops));
    assert_int_equal(s.n[TL_COLL_ALL_REDUCE], 1);
    assert_int_equal(s.n[TL_COLL_ALL_GATHER], 1);
    assert_int_equal(s.waits, 0);

    /* §1.11: the code has the same collectives and no wait: offset 0, missing waits 2 */
    struct tl_parity_counts c =
        code_counts("torch.ops._c10d_functional.all_reduce_.default(a)\n"
                    "torch.ops._c10d_functional.all_gather_into_tensor.default(a)\n");
    uint64_t offset = 99, missing = 99;
    tl_parity_compare(&s, &c, &offset, &missing);
    assert_int_equal(offset, 0);
    assert_int_equal(missing, 2);

    /* one more reduce_scatter in the code, one all_gather fewer, three waits */
    c = code_counts("torch.ops._c10d_functional.all_reduce_.default(a)\n"
                    "torch.ops._c10d_functional.reduce_scatter_tensor.default(a)\n"
                    "torch.ops._c10d_functional.wait_tensor.default(a)\n"
                    "torch.ops._c10d_functional.wait_tensor.default(a)\n"
                    "torch.ops._c10d_functional.wait_tensor.default(a)\n");
    tl_parity_compare(&s, &c, &offset, &missing);
    assert_int_equal(offset, 2);
    assert_int_equal(missing, 0);
}

/* ---- compile keys in numeric order --------------------------------------------------------- */

static int cmp_cid(const void *a, const void *b)
{
    return tl_ranks_cid_cmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_cid_order(void **state)
{
    (void)state;
    /* by frame id, frame compile id, attempt, then compiled autograd; [-/-] after the numbers,
     * what is no compile key after every key */
    const char *v[] = {"[0/10]",   "[-/-]",    "[0/2]",    "unknown_7", "[1/0]",  "[0/1_1]",
                       "[0/1]",    "[!0/0/0]", "[0/0]",    "[0/-]",     "[10/0]", "[2/0]",
                       "[0/1_10]", "[0/1_2]",  "[!1/0/0]", "[0/9]",     "unknown"};
    const char *want[] = {"[0/0]",    "[!0/0/0]", "[!1/0/0]", "[0/1]",   "[0/1_1]",  "[0/1_2]",
                          "[0/1_10]", "[0/2]",    "[0/9]",    "[0/10]",  "[0/-]",    "[1/0]",
                          "[2/0]",    "[10/0]",   "[-/-]",    "unknown", "unknown_7"};
    size_t n = sizeof(v) / sizeof(v[0]);
    qsort(v, n, sizeof(v[0]), cmp_cid);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v[i], want[i]);
    /* a total order: each pair one way round, equal only to itself */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int c = tl_ranks_cid_cmp(want[i], want[j]);
            assert_true(i < j ? c < 0 : i > j ? c > 0 : c == 0);
        }
    assert_true(tl_ranks_cid_cmp("[0/1]", "[0/01]") != 0);
    assert_true(tl_ranks_cid_cmp("[0/1_0]", "[0/1]") > 0); /* attempt 0 written: byte order */
    assert_true(tl_ranks_cid_cmp(NULL, "[0/0]") > 0);
    assert_int_equal(tl_ranks_cid_cmp(NULL, ""), 0);
    /* not keys: a bad number, a part missing, something after the bracket */
    assert_true(tl_ranks_cid_cmp("[0/99999999999999999999999]", "[-/-]") > 0);
    assert_true(tl_ranks_cid_cmp("[0]", "[-/-]") > 0);
    assert_true(tl_ranks_cid_cmp("[0/1]x", "[-/-]") > 0);
    assert_true(tl_ranks_cid_cmp("[!/0/1]", "[-/-]") > 0);
    assert_true(tl_ranks_cid_cmp("[0/1_]", "[-/-]") > 0);

    /* the gaps come in that order */
    const char *ids0[] = {"[0/0]"};
    const char *ids1[] = {"[0/10]", "[0/2]", "[1/0]", "[0/1_1]", "[0/1]", "[0/0]", "[-/-]"};
    struct tl_rank_summary s[2] = {{.rank = 0, .compile_ids = ids0, .ncompile_ids = 1},
                                   {.rank = 1, .compile_ids = ids1, .ncompile_ids = 7}};
    struct tl_ranks r;
    analyze(&r, s, 2);
    assert_int_equal(r.ngaps, 5);
    const char *gaps[] = {"[0/1]", "[0/1_1]", "[0/2]", "[0/10]", "[1/0]"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(r.gaps[i].cid, gaps[i]);
    char *page = landing(&r, NULL, false);
    has(page, "<li><code>[0/1]</code>, <code>[0/1_1]</code>, <code>[0/2]</code>, "
              "<code>[0/10]</code>, <code>[1/0]</code>: not on Rank 0</li>");
    has(page, "Rank 1 compiled <code>[0/1]</code>, which Rank 0 did not");
    lacks(page, "[-/-]");
    free(page);
}

/* ---- §1.5 compile ids, §1.6 cache groups ------------------------------------------------- */

static void test_compile_ids_and_cache(void **state)
{
    (void)state;
    /* multi_rank_logs in small: ranks 0 and 2 alike, 1 and 3 not */
    const char *ids0[] = {"[0/0]"};
    const char *ids1[] = {"[0/1]", "[-/-]", "[0/0]"};
    const char *ids3[] = {"[0/0]", "[0/0]"};
    struct tl_rank_summary s[4] = {
        {.rank = 0, .compile_ids = ids0, .ncompile_ids = 1, .cache_sequence = ""},
        {.rank = 1, .compile_ids = ids1, .ncompile_ids = 3, .cache_sequence = "\u274c\u2705"},
        {.rank = 2, .compile_ids = ids0, .ncompile_ids = 1},
        {.rank = 3, .compile_ids = ids3, .ncompile_ids = 2, .cache_sequence = "\u274c"},
    };
    struct tl_ranks r;
    analyze(&r, s, 4);
    assert_true(r.compile_ids_diverge);
    assert_true(r.cache.diverge);
    assert_int_equal(r.cache.n, 3);
    group_is(&r.cache.groups[0], "", "0, 2");
    group_is(&r.cache.groups[1], "\u274c\u2705", "1");
    group_is(&r.cache.groups[2], "\u274c", "3");
    assert_int_equal(r.cache.groups[0].nranks, 2);
    assert_int_equal(r.cache.groups[0].ranks[1], 2);
    /* which compile ids, and which ranks lack each; [-/-] is no compile id: said apart */
    assert_true(r.cids.diverge);
    assert_int_equal(r.ngaps, 1);
    assert_int_equal(r.ngaps_all, 1);
    assert_string_equal(r.gaps[0].cid, "[0/1]");
    assert_string_equal(r.gaps[0].missing, "Rank 0, Rank 2, Rank 3");
    assert_string_equal(r.idless_ranks, "Rank 1");
    assert_string_equal(r.idless_others, "Rank 0, Rank 2, Rank 3");
    char *page = landing(&r, NULL, false);
    lacks(page, "[-/-]");
    has(page, "<li><code>[0/1]</code>: not on Rank 0, Rank 2, Rank 3</li>\n"
              "<li>Entries without a compile id (logged outside any compilation): on Rank 1, "
              "not on Rank 0, Rank 2, Rank 3</li>\n");
    free(page);

    /* only [-/-] differs: the reference's divergence (§1.5), but no compile id differs, and the
     * page warns of none */
    const char *ids_idless[] = {"[0/0]", "[-/-]"};
    struct tl_rank_summary idless[2] = {
        s[0], {.rank = 1, .compile_ids = ids_idless, .ncompile_ids = 2, .cache_sequence = ""}};
    analyze(&r, idless, 2);
    assert_true(r.compile_ids_diverge);
    assert_false(r.cids.diverge);
    assert_int_equal(r.ngaps, 0);
    assert_string_equal(r.idless_ranks, "Rank 1");
    page = landing(&r, NULL, false);
    lacks(page, "[-/-]");
    lacks(page, "Diverging Compilation IDs");
    lacks(page, "warning-box\"");
    has(page, "<li>Entries without a compile id (logged outside any compilation): on Rank 1, "
              "not on Rank 0</li>");
    has(page, "The 2 ranks agree");
    free(page);

    /* sets: order and repeats do not matter */
    analyze(&r, (struct tl_rank_summary[]){s[0], s[3], s[2]}, 3);
    assert_false(r.compile_ids_diverge);
    assert_true(r.cache.diverge);

    /* two copies of one log: nothing diverges */
    struct tl_rank_summary same[2] = {s[1], s[1]};
    same[1].rank = 1;
    same[0].rank = 0;
    analyze(&r, same, 2);
    assert_false(r.compile_ids_diverge);
    assert_false(r.cache.diverge);
    assert_int_equal(r.cache.n, 1);
    group_is(&r.cache.groups[0], "\u274c\u2705", "0, 1");

    /* a rank without a report takes no part */
    struct tl_rank_summary err[2] = {s[0], {.rank = 1, .error = "cannot read"}};
    analyze(&r, err, 2);
    assert_false(r.compile_ids_diverge);
    assert_false(r.cache.diverge);
    assert_int_equal(r.cache.n, 1);
    group_is(&r.cache.groups[0], "", "0");

    /* nothing at all */
    analyze(&r, NULL, 0);
    assert_false(r.compile_ids_diverge);
    assert_int_equal(r.cache.n, 0);
    assert_false(r.has_runtime);
    assert_false(r.exec.available);
    assert_string_equal(r.exec.ranks_schedule, "");
}

/* ---- §1.9 runtime analysis ------------------------------------------------------------------ */

/* One graph of one op of the given runtime. */
#define RT(name, ns)                                                                               \
    {                                                                                              \
        .graph = (name), .ops = (struct tl_rank_op[]){{"op", (ns)}}, .nops = 1                     \
    }

static void test_runtime_analysis(void **state)
{
    (void)state;
    /* multi_rank_runtime ranks 0-3, graph -_0_0_0 (the totals of §1.9), listed after -_0_1_0 */
    struct tl_rank_runtime r0[] = {RT("-_0_1_0", 13859000), RT("-_0_0_0", 13806089)};
    struct tl_rank_runtime r1[] = {RT("-_0_1_0", 14000000), RT("-_0_0_0", 14496393)};
    struct tl_rank_runtime r2[] = {RT("-_0_1_0", 15938000), RT("-_0_0_0", 15186698)};
    struct tl_rank_runtime r3[] = {RT("-_0_1_0", 15938000), RT("-_0_0_0", 15877002)};
    struct tl_rank_summary s[5] = {
        {.rank = 0, .runtime = r0, .nruntime = 2},
        {.rank = 1, .runtime = r1, .nruntime = 2},
        {.rank = 2, .runtime = r2, .nruntime = 2},
        {.rank = 3, .runtime = r3, .nruntime = 2},
        {.rank = 4}, /* no records: no part in the analysis */
    };
    struct tl_ranks r;
    analyze(&r, s, 5);
    assert_true(r.has_runtime);
    assert_false(r.runtime_mismatch);
    assert_int_equal(r.nrows, 2);
    const struct tl_runtime_row *row = &r.rows[0]; /* sorted by graph_id */
    assert_string_equal(row->graph_id, "-_0_0_0");
    assert_int_equal(row->graph_index, 1);
    assert_true(row->delta_ms == 2.071);
    assert_int_equal(row->fastest_rank, 0);
    assert_int_equal(row->slowest_rank, 3);
    assert_true(row->fastest_ms == 13.806);
    assert_true(row->slowest_ms == 15.877);
    row = &r.rows[1];
    assert_string_equal(row->graph_id, "-_0_1_0");
    assert_int_equal(row->graph_index, 0);
    assert_true(row->delta_ms == 2.079);
    assert_int_equal(row->fastest_rank, 0);
    assert_int_equal(row->slowest_rank, 3); /* a tie with rank 2: the higher rank */

    char *page = landing(&r, NULL, false);
    has(page, "<h3>Graph Runtime Analysis</h3>");
    has(page, "<p><strong>Graph -_0_0_0:</strong> 2.071 ms delta (Fastest: Rank 0 - 13.806 ms, "
              "Slowest: Rank 3 - 15.877 ms)</p>");
    has(page, "<p><strong>Graph -_0_1_0:</strong> 2.079 ms delta (Fastest: Rank 0 - 13.859 ms, "
              "Slowest: Rank 3 - 15.938 ms)</p>");
    assert_true(at(page, "Graph -_0_0_0:") < at(page, "Graph -_0_1_0:"));
    lacks(page, "Runtime analysis not available");
    has(page, "<h3>Runtime Trace Visualization</h3>");
    has(page, "href='chromium_trace_with_runtime.json'");
    free(page);

    /* ties everywhere: both sides go to the highest rank, 0.0 ms delta */
    struct tl_rank_op ops[] = {{"a", 1000000}, {"b", 500000}};
    struct tl_rank_runtime same = {"-_0_0_0", ops, 2};
    struct tl_rank_summary t[2] = {{.rank = 0, .runtime = &same, .nruntime = 1},
                                   {.rank = 1, .runtime = &same, .nruntime = 1}};
    analyze(&r, t, 2);
    assert_int_equal(r.nrows, 1);
    assert_int_equal(r.rows[0].fastest_rank, 1);
    assert_int_equal(r.rows[0].slowest_rank, 1);
    page = landing(&r, NULL, false);
    has(page, "<p><strong>Graph -_0_0_0:</strong> 0.0 ms delta (Fastest: Rank 1 - 1.5 ms, "
              "Slowest: Rank 1 - 1.5 ms)</p>");
    free(page);

    /* one rank alone: Rank 0 on both sides */
    analyze(&r, t, 1);
    assert_int_equal(r.rows[0].fastest_rank, 0);
    assert_int_equal(r.rows[0].slowest_rank, 0);

    /* a rank with a graph more: mismatched counts, no rows */
    struct tl_rank_runtime r4[] = {RT("-_0_0_0", 1), RT("-_0_1_0", 1), RT("-_0_2_0", 1)};
    s[4].runtime = r4;
    s[4].nruntime = 3;
    analyze(&r, s, 5);
    assert_true(r.has_runtime);
    assert_true(r.runtime_mismatch);
    assert_int_equal(r.nrows, 0);
    page = landing(&r, NULL, false);
    has(page, "<h3>Graph Runtime Analysis</h3>");
    has(page, "<strong>Runtime analysis not available:</strong>");
    lacks(page, "ms delta");
    free(page);

    /* no records: no section */
    analyze(&r, s + 4, 0);
    page = landing(&r, NULL, false);
    lacks(page, "Graph Runtime Analysis");
    lacks(page, "Runtime Trace Visualization");
    free(page);
}

/* ---- §1.10 collective sequences, §1.12 tensor meta ----------------------------------------- */

static const char *sched_pre[] = {"torch.ops._c10d_functional.all_reduce_.default",
                                  "torch.ops._c10d_functional.wait_tensor.default"};
static const char *sched_six[] = {"a", "b", "c", "d", "e", "f"};
static const char *sched_four[] = {"a", "b", "c", "d"};

static void test_schedule_groups(void **state)
{
    (void)state;
    /* multi_rank_schedule: every rank has a 2-op -_1_0_0 listed first, then -_0_0_0 with 6 ops
     * on ranks 0 and 2 and 4 on rank 1 */
    struct tl_rank_schedule s6[] = {{"-_1_0_0", sched_pre, 2}, {"-_0_0_0", sched_six, 6}};
    struct tl_rank_schedule s4[] = {{"-_1_0_0", sched_pre, 2}, {"-_0_0_0", sched_four, 4}};
    struct tl_rank_summary s[3] = {
        {.rank = 0, .schedules = s6, .nschedules = 2},
        {.rank = 1, .schedules = s4, .nschedules = 2},
        {.rank = 2, .schedules = s6, .nschedules = 2},
    };
    struct tl_ranks r;
    analyze(&r, s, 3);
    assert_true(r.has_schedules);
    assert_true(r.schedules.diverge);
    assert_int_equal(r.schedules.n, 2);
    group_is(&r.schedules.groups[0],
             "torch.ops._c10d_functional.all_reduce_.default,"
             "torch.ops._c10d_functional.wait_tensor.default,a,b,c,d,e,f",
             "0, 2");
    assert_string_equal(r.schedules.groups[1].ranks_text, "1");

    char *page = landing(&r, NULL, false);
    has(page, "<div class=\"warning-box\">");
    has(page, "<strong>Warning:</strong> Diverging collective operation sequences");
    has(page, "<li>Ranks: 0, 2</li>");
    has(page, "<li>Ranks: 1</li>");
    free(page);

    /* ranks 0 and 2 only: no divergence; a rank without records is the empty sequence */
    struct tl_rank_summary two[3] = {s[0], s[2], {.rank = 3}};
    analyze(&r, two, 2);
    assert_false(r.schedules.diverge);
    page = landing(&r, NULL, false);
    lacks(page, "Warning:</strong> Diverging collective operation sequences");
    lacks(page, "warning-box\"");
    free(page);
    analyze(&r, two, 3);
    assert_true(r.schedules.diverge);
    assert_int_equal(r.schedules.n, 2);
    group_is(&r.schedules.groups[1], "", "3");

    /* no records anywhere: no groups (empty records count as none) */
    struct tl_rank_schedule empty = {"-_0_0_0", NULL, 0};
    struct tl_rank_summary none[2] = {{.rank = 0, .schedules = &empty, .nschedules = 1},
                                      {.rank = 1}};
    analyze(&r, none, 2);
    assert_false(r.has_schedules);
    assert_false(r.schedules.diverge);
    assert_int_equal(r.schedules.n, 0);
}

static void test_meta_groups(void **state)
{
    (void)state;
    /* the fingerprints are sorted by graph before they are joined */
    struct tl_rank_meta m0[] = {{"-_0_1_0", "{\"ops\":[2]}"}, {"-_0_0_0", "{\"ops\":[1]}"}};
    struct tl_rank_meta m1[] = {{"-_0_0_0", "{\"ops\":[1]}"}, {"-_0_1_0", "{\"ops\":[2]}"}};
    struct tl_rank_meta m2[] = {{"-_0_0_0", "{\"ops\":[1]}"}};
    struct tl_rank_summary s[4] = {
        {.rank = 0, .meta = m0, .nmeta = 2},
        {.rank = 1, .meta = m1, .nmeta = 2},
        {.rank = 2, .meta = m2, .nmeta = 1},
        {.rank = 3}, /* no files: no part */
    };
    struct tl_ranks r;
    analyze(&r, s, 4);
    assert_true(r.meta.diverge);
    assert_int_equal(r.meta.n, 2);
    group_is(&r.meta.groups[0], "{\"ops\":[1]},{\"ops\":[2]}", "0, 1");
    group_is(&r.meta.groups[1], "{\"ops\":[1]}", "2");

    char *page = landing(&r, NULL, false);
    has(page, "<h3>Tensor Metadata Analysis</h3>");
    has(page, "Ranks exhibit divergent inductor tensor metadata across graphs.");
    has(page, "<li>Ranks: 0, 1</li>\n<li>Ranks: 2</li>");
    lacks(page, "matching tensor meta signatures");
    /* tensor meta alone: an otherwise empty warning box */
    has(page, "<div class=\"warning-box\">\n</div>\n");
    free(page);

    /* multi_rank_runtime: ranks 5 and 6 alike, 0-4 each different */
    struct tl_rank_meta mm[7][1] = {{{"g", "0"}}, {{"g", "1"}}, {{"g", "2"}}, {{"g", "3"}},
                                    {{"g", "4"}}, {{"g", "5"}}, {{"g", "5"}}};
    struct tl_rank_summary seven[7];
    memset(seven, 0, sizeof(seven));
    for (uint32_t i = 0; i < 7; i++) {
        seven[i].rank = i;
        seven[i].meta = mm[i];
        seven[i].nmeta = 1;
    }
    analyze(&r, seven, 7);
    assert_int_equal(r.meta.n, 6);
    assert_string_equal(r.meta.groups[5].ranks_text, "5, 6");
    page = landing(&r, NULL, false);
    has(page, "Ranks exhibit divergent inductor tensor meta");
    has(page, "<li>Ranks: 5, 6</li>");
    assert_int_equal(tu_count(page, "<li>Ranks: "), 6);
    free(page);

    analyze(&r, s, 2);
    assert_false(r.meta.diverge);
    page = landing(&r, NULL, false);
    has(page, "<h3>Tensor Metadata Analysis</h3>");
    has(page, "All ranks have matching tensor meta signatures.");
    lacks(page, "divergent");
    free(page);
}

/* ---- §1.13 execution order ------------------------------------------------------------------ */

static const char *ops_all_reduce[] = {"all_reduce"};
static const char *ops_all_gather[] = {"all_gather"};
static const char *ops_broadcast[] = {"broadcast"};

static void test_exec_order_library(void **state)
{
    (void)state;
    /* §5.3 test_execution_order_multi_rank_divergence: orders r0 [0/0,0/1,0/2],
     * r1 [0/1,0/0,0/2]; schedules (0,0/0) all_reduce, (0,0/1) all_gather, (1,0/0) all_reduce,
     * (1,0/1) broadcast; cache (0,0/0) hit, (0,0/1) miss, (1,0/0) hit, (1,0/1) hit */
    const char *o0[] = {"[0/0]", "[0/1]", "[0/2]"};
    const char *o1[] = {"[0/1]", "[0/0]", "[0/2]"};
    struct tl_rank_schedule s0[] = {{"-_0_0_0", ops_all_reduce, 1}, {"-_0_1_0", ops_all_gather, 1}};
    struct tl_rank_schedule s1[] = {{"-_0_0_0", ops_all_reduce, 1}, {"-_0_1_0", ops_broadcast, 1}};
    struct tl_rank_folder f0[] = {{"-_0_0_0", "[0/0]", "hit"}, {"-_0_1_0", "[0/1]", "miss"}};
    struct tl_rank_folder f1[] = {{"-_0_0_0", "[0/0]", "hit"}, {"-_0_1_0", "[0/1]", "hit"}};
    struct tl_rank_summary s[2] = {
        {.rank = 0,
         .has_exec_order = true,
         .exec_order = o0,
         .nexec_order = 3,
         .schedules = s0,
         .nschedules = 2,
         .folders = f0,
         .nfolders = 2},
        {.rank = 1,
         .has_exec_order = true,
         .exec_order = o1,
         .nexec_order = 3,
         .schedules = s1,
         .nschedules = 2,
         .folders = f1,
         .nfolders = 2},
    };
    struct tl_ranks r;
    analyze(&r, s, 2);
    const struct tl_exec_order *ex = &r.exec;
    assert_true(ex->available);
    assert_int_equal(ex->nrows, 3);
    assert_int_equal(ex->rows[0].index, 0);
    assert_true(ex->rows[0].order_differs);
    assert_true(ex->rows[0].schedule_mismatch); /* all_reduce vs broadcast */
    assert_false(ex->rows[0].cache_mismatch);   /* hit, hit */
    assert_true(ex->rows[1].order_differs);
    assert_true(ex->rows[1].cache_mismatch);    /* miss vs hit */
    assert_true(ex->rows[1].schedule_mismatch); /* all_gather vs all_reduce */
    assert_false(ex->rows[2].order_differs);
    assert_false(ex->rows[2].schedule_mismatch); /* no schedule for [0/2] */
    assert_false(ex->rows[2].cache_mismatch);
    assert_true(ex->order_differs);
    assert_string_equal(ex->ranks_schedule, "Rank 0, Rank 1");
    assert_string_equal(ex->ranks_cache, "Rank 0, Rank 1");

    char *page = landing(&r, NULL, false);
    has(page, "<h3>Graph Execution-Order Diagnostics</h3>");
    has(page, "torch._inductor.debug.record_and_log_graph_execution_order()");
    has(page, "Graph execution order differs across ranks.");
    has(page, "<strong>Warning:</strong> Schedule mismatch across ranks: Rank 0, Rank 1");
    has(page, "Warning:</strong> Cache hit/miss mismatch across ranks: Rank 0, Rank 1");
    lacks(page, "Consistent across ranks");
    assert_true(at(page, "order differs") < at(page, "Schedule mismatch"));
    assert_true(at(page, "Schedule mismatch") < at(page, "Cache hit/miss mismatch"));
    free(page);
}

static void test_exec_order_cases(void **state)
{
    (void)state;
    /* same orders, same schedules; all "miss": consistent everywhere */
    const char *o[] = {"[0/1]", "[0/0]"};
    struct tl_rank_schedule sc[] = {{"-_0_0_0", ops_all_reduce, 1}};
    struct tl_rank_folder f[] = {{"-_0_0_0", "[0/0]", "miss"}, {"-_0_1_0", "[0/1]", "miss"}};
    struct tl_rank_summary s[3] = {
        {.rank = 0,
         .has_exec_order = true,
         .exec_order = o,
         .nexec_order = 2,
         .schedules = sc,
         .nschedules = 1,
         .folders = f,
         .nfolders = 2},
        {.rank = 1,
         .has_exec_order = true,
         .exec_order = o,
         .nexec_order = 2,
         .schedules = sc,
         .nschedules = 1,
         .folders = f,
         .nfolders = 2},
        {.rank = 2, .has_exec_order = true, .exec_order = o, .nexec_order = 1},
    };
    struct tl_ranks r;
    analyze(&r, s, 2);
    assert_true(r.exec.available);
    assert_false(r.exec.order_differs);
    assert_string_equal(r.exec.ranks_schedule, "");
    assert_string_equal(r.exec.ranks_cache, "");
    char *page = landing(&r, NULL, false);
    has(page, "Graph execution order: Consistent across ranks.");
    has(page, "Collective schedule: Consistent across ranks.");
    has(page, "Cache hit/miss sequence: Consistent across ranks.");
    lacks(page, "Warning:</strong> Cache hit/miss mismatch across ranks");
    lacks(page, "differs across ranks");
    free(page);

    /* a shorter order: positions beyond it never differ; rank 2 has no schedule or cache for
     * [0/1], so only two ranks compare */
    analyze(&r, s, 3);
    assert_int_equal(r.exec.nrows, 2);
    assert_false(r.exec.order_differs);
    assert_string_equal(r.exec.ranks_schedule, "");

    /* an unmapped schedule folder stands for the key of its own name */
    const char *ou[] = {"-_9_9_9"};
    struct tl_rank_summary u[2] = {
        {.rank = 0,
         .has_exec_order = true,
         .exec_order = ou,
         .nexec_order = 1,
         .schedules = sc,
         .nschedules = 1},
        {.rank = 1,
         .has_exec_order = true,
         .exec_order = ou,
         .nexec_order = 1,
         .schedules = (struct tl_rank_schedule[]){{"-_9_9_9", ops_broadcast, 1}},
         .nschedules = 1},
    };
    u[0].schedules = (struct tl_rank_schedule[]){{"-_9_9_9", ops_all_reduce, 1}};
    analyze(&r, u, 2);
    assert_string_equal(r.exec.ranks_schedule, "Rank 0, Rank 1");

    /* schedules of two folders of one key are concatenated; cache: the highest status of the
     * key's folders (miss > hit > bypass), unknown statuses ignored */
    const char *ok[] = {"[0/0]"};
    struct tl_rank_schedule two[] = {{"a", ops_all_reduce, 1}, {"b", ops_all_gather, 1}};
    struct tl_rank_schedule one[] = {{"a", (const char *[]){"all_reduce", "all_gather"}, 2}};
    struct tl_rank_folder fa[] = {{"a", "[0/0]", "bypass"}, {"b", "[0/0]", "miss"}};
    struct tl_rank_folder fb[] = {{"a", "[0/0]", "miss"}, {"b", NULL, "hit"}};
    struct tl_rank_folder fc[] = {{"a", "[0/0]", "weird"}, {"b", "[0/0]", "hit"}};
    struct tl_rank_summary k[3] = {
        {.rank = 0,
         .has_exec_order = true,
         .exec_order = ok,
         .nexec_order = 1,
         .schedules = two,
         .nschedules = 2,
         .folders = fa,
         .nfolders = 2},
        {.rank = 1,
         .has_exec_order = true,
         .exec_order = ok,
         .nexec_order = 1,
         .schedules = one,
         .nschedules = 1,
         .folders = fb,
         .nfolders = 2},
        {.rank = 2,
         .has_exec_order = true,
         .exec_order = ok,
         .nexec_order = 1,
         .folders = fc,
         .nfolders = 2},
    };
    analyze(&r, k, 2);
    assert_string_equal(r.exec.ranks_schedule, "");
    assert_string_equal(r.exec.ranks_cache, "");
    analyze(&r, k, 3);
    assert_string_equal(r.exec.ranks_schedule, "");
    assert_string_equal(r.exec.ranks_cache, "Rank 0, Rank 1, Rank 2"); /* miss, miss, hit */

    /* fewer than two orders: unavailable */
    s[1].has_exec_order = false;
    analyze(&r, s, 2);
    assert_false(r.exec.available);
    assert_int_equal(r.exec.nrows, 0);
    page = landing(&r, NULL, false);
    has(page, "<h3>Graph Execution-Order Diagnostics</h3>");
    has(page, "Execution-order analysis unavailable");
    lacks(page, "Consistent across ranks");
    free(page);

    /* two empty orders are orders: available, nothing to compare */
    struct tl_rank_summary e[2] = {{.rank = 0, .has_exec_order = true},
                                   {.rank = 1, .has_exec_order = true}};
    analyze(&r, e, 2);
    assert_true(r.exec.available);
    assert_int_equal(r.exec.nrows, 0);
    assert_false(r.exec.order_differs);
}

/* ---- divergence of the diagnoses --------------------------------------------------------- */

static void test_divergences(void **state)
{
    (void)state;
    struct tl_rank_summary s[5] = {
        {.rank = 0, .diag = {.recompiles = 0, .graph_breaks = 2, .failures = 1, .limits = 1}},
        {.rank = 1,
         .diag = {.recompiles = 3,
                  .graph_breaks = 2,
                  .failures = 0,
                  .limits = 1,
                  .detail = {"step at m.py:9 [0/1]: tensor 'L['x']' size mismatch"}}},
        {.rank = 2, .diag = {.recompiles = 0, .graph_breaks = 2, .failures = 0, .limits = 1}},
        {.rank = 3,
         .diag = {.recompiles = 1,
                  .graph_breaks = 2,
                  .failures = 0,
                  .limits = 1,
                  .detail = {"step at m.py:9 [0/1]: tensor 'L['x']' size mismatch"}}},
        {.rank = 4, .error = "unreadable", .diag = {.graph_breaks = 0}},
    };
    struct tl_ranks r;
    analyze(&r, s, 5);
    assert_int_equal(r.ndivergences, 2);
    assert_string_equal(r.divergences[0].what, "recompiled");
    assert_string_equal(r.divergences[0].ranks, "Rank 1, Rank 3");
    assert_string_equal(r.divergences[0].others, "Rank 0, Rank 2");
    assert_string_equal(r.divergences[0].detail,
                        "Rank 1, Rank 3: step at m.py:9 [0/1]: tensor 'L['x']' size mismatch");
    assert_null(r.divergences[1].detail);
    assert_string_equal(r.divergences[1].what, "failed to compile");
    assert_string_equal(r.divergences[1].ranks, "Rank 0");
    assert_string_equal(r.divergences[1].others, "Rank 1, Rank 2, Rank 3");

    char *page = landing(&r, NULL, false);
    has(page, "<h3 id='diagnosis'>Diagnosis across ranks</h3>");
    has(page, "<a href='#diagnosis'>The diagnoses</a>");
    lacks(page, "#details");
    has(page, "<li><strong>Rank 1, Rank 3</strong> recompiled; Rank 0, Rank 2 did not.<ul "
              "class='detail'>\n<li>Rank 1, Rank 3: step at m.py:9 [0/1]: tensor "
              "'L['x']' size mismatch</li>\n</ul></li>");
    has(page, "<li><strong>Rank 0</strong> failed to compile; Rank 1, Rank 2, Rank 3 did "
              "not.</li>");
    assert_true(at(page, "Tensor Metadata Analysis") < at(page, "Diagnosis across ranks"));
    /* the rank without a report is listed, escaped, without a link */
    has(page, "<tr><td data-value='4'>Rank 4</td><td class='status bad' data-value='3'>no "
              "report</td><td colspan='6' class='why'>unreadable</td>");
    has(page, "<li class='bad'><strong>Missing:</strong> Rank 4: no report (unreadable)</li>");
    has(page, "<li class='note'><strong>Diagnosis differs:</strong> Rank 1, Rank 3 recompiled; "
              "the others did not.</li>");
    has(page, "<li class='note'><strong>Diagnosis differs:</strong> Rank 0 failed to compile; "
              "the others did not.</li>");
    lacks(page, "rank_4/");
    has(page, "<strong>5</strong> ranks. Click on a rank");
    free(page);

    /* the shorter list is said */
    s[0].diag.recompiles = 1;
    analyze(&r, s, 5);
    page = landing(&r, NULL, false);
    has(page, "<li class='note'><strong>Diagnosis differs:</strong> All ranks read but Rank 2 "
              "recompiled.</li>");
    free(page);
    analyze(&r, s, 4);
    page = landing(&r, NULL, false);
    has(page, "<strong>Diagnosis differs:</strong> All ranks but Rank 2 recompiled.</li>");
    free(page);
    s[0].diag.recompiles = 0;

    analyze(&r, s + 1, 3);
    assert_int_equal(r.ndivergences, 1);
    s[1].diag.limits = 0;
    analyze(&r, s, 4);
    assert_int_equal(r.ndivergences, 3);
    assert_string_equal(r.divergences[2].what, "hit the recompile limit");
    s[2].diag.graph_breaks = 0;
    analyze(&r, s, 4);
    assert_int_equal(r.ndivergences, 4);
    assert_string_equal(r.divergences[1].what, "broke graphs");
    assert_string_equal(r.divergences[1].others, "Rank 2");

    analyze(&r, s, 1);
    assert_int_equal(r.ndivergences, 0);
    page = landing(&r, NULL, false);
    lacks(page, "Diagnosis across ranks");
    free(page);
}

/* ---- where groups of ranks part ---------------------------------------------------------------
 */

static const char *op_reduce = "torch.ops._c10d_functional.all_reduce_.default";
static const char *op_gather = "torch.ops._c10d_functional.all_gather_into_tensor.default";
static const char *op_wait = "torch.ops._c10d_functional.wait_tensor.default";

static void test_first_collective(void **state)
{
    (void)state;
    /* 4 ranks, two graphs each; rank 3 all-gathers where the others all-reduce: the first graph
     * ([0/0]) and its first op. The folders are listed in another order than the compile ids
     * (the file system's): the first graph is the first compile id. */
    const char *reduce[] = {op_reduce, op_wait};
    const char *gather[] = {op_gather, op_wait};
    struct tl_rank_schedule sr[] = {{"-_0_1_0", reduce, 2}, {"-_0_0_0", reduce, 2}};
    struct tl_rank_schedule sg[] = {{"-_0_1_0", gather, 2}, {"-_0_0_0", gather, 2}};
    struct tl_rank_folder folders[] = {{"-_0_0_0", "[0/0]", "miss"}, {"-_0_1_0", "[0/1]", "miss"}};
    const char *ids[] = {"[0/0]", "[0/1]"};
    struct tl_rank_summary s[4];
    for (uint32_t i = 0; i < 4; i++)
        s[i] = (struct tl_rank_summary){.rank = i,
                                        .compile_ids = ids,
                                        .ncompile_ids = 2,
                                        .cache_sequence = "",
                                        .schedules = i == 3 ? sg : sr,
                                        .nschedules = 2,
                                        .folders = folders,
                                        .nfolders = 2};
    struct tl_ranks r;
    analyze(&r, s, 4);
    assert_true(r.schedules.diverge);
    assert_int_equal(r.schedules.main, 0);
    assert_null(r.schedules_first[0].where);
    const struct tl_rank_first *f = &r.schedules_first[1];
    assert_string_equal(f->where, "[0/0]");
    assert_int_equal(f->op, 1);
    assert_string_equal(f->mains, "all_reduce_");
    assert_string_equal(f->theirs, "all_gather_into_tensor");
    assert_int_equal(r.apart[3], TL_RANK_APART_COLLECTIVES);
    assert_int_equal(r.apart[0] | r.apart[1] | r.apart[2], 0);
    char *page = landing(&r, NULL, false);
    has(page, "<li class='bad'><strong>Collectives differ:</strong> Ranks 0-2 call "
              "<code>all_reduce_</code> where Rank 3 calls <code>all_gather_into_tensor</code>, "
              "first in graph <code>[0/0]</code>, op #1.</li>");
    has(page, "<td class='status bad' data-value='2'>differs: collectives</td>");
    assert_int_equal(tu_count(page, "<td class='status ok' data-value='0'>ok</td>"), 3);
    /* the verdict and the table come before the details */
    assert_true(at(page, "Collectives differ:") < at(page, "<table class='ranks sortable'>"));
    assert_true(at(page, "<table class='ranks sortable'>") < at(page, "class=\"warning-box\""));
    free(page);

    /* the second op of [0/1] differs on ranks 1 and 2 (no wait); rank 0 has no [0/1] at all;
     * a folder no compile id lists is named by itself */
    const char *no_wait[] = {op_reduce};
    struct tl_rank_schedule s1[] = {{"-_0_0_0", reduce, 2}, {"-_0_1_0", no_wait, 1}};
    struct tl_rank_schedule s0[] = {{"-_0_0_0", reduce, 2}};
    struct tl_rank_schedule s5[] = {
        {"-_0_0_0", reduce, 2}, {"-_0_1_0", reduce, 2}, {"odd", reduce, 2}};
    s[0].schedules = s0;
    s[0].nschedules = 1;
    s[1].schedules = s[2].schedules = s1;
    s[3].schedules = sr;
    struct tl_rank_summary five[5] = {s[0], s[1], s[2], s[3], s[3]};
    five[4].rank = 5;
    five[4].schedules = s5;
    five[4].nschedules = 3;
    analyze(&r, five, 5);
    assert_int_equal(r.schedules.n, 4);
    assert_int_equal(r.schedules.main, 1); /* ranks 1, 2: the largest; 3 alone like 0 and 5 */
    f = &r.schedules_first[0];
    assert_string_equal(f->where, "[0/1]");
    assert_int_equal(f->op, 1);
    assert_string_equal(f->mains, "all_reduce_");
    assert_null(f->theirs);
    f = &r.schedules_first[2];
    assert_string_equal(f->where, "[0/1]");
    assert_int_equal(f->op, 2);
    assert_null(f->mains);
    assert_string_equal(f->theirs, "wait_tensor");
    f = &r.schedules_first[3];
    assert_string_equal(f->where, "[0/1]"); /* before "odd", which comes last */
    page = landing(&r, NULL, false);
    has(page, "Ranks 1, 2 call <code>all_reduce_</code> where Rank 0 calls nothing, first in "
              "graph <code>[0/1]</code>, op #1.");
    has(page, "Ranks 1, 2 call nothing where Rank 3 calls <code>wait_tensor</code>, first in "
              "graph <code>[0/1]</code>, op #2.");
    free(page);
    five[4].schedules = (struct tl_rank_schedule[]){
        {"-_0_0_0", reduce, 2}, {"-_0_1_0", no_wait, 1}, {"odd", reduce, 2}};
    analyze(&r, five, 5);
    assert_string_equal(r.schedules_first[3].where, "odd");
    assert_int_equal(r.schedules_first[3].op, 1);
}

static void test_first_other_kinds(void **state)
{
    (void)state;
    /* ranks 0-4 and 6 alike; rank 5 compiles [0/1] only where the others compile [0/0] and
     * [0/1] too, its [0/1] hits the cache where the others' miss, and its tensor metadata of
     * [0/1] is another */
    const char *ids[] = {"[0/10]", "[0/1]", "[0/2]"};
    const char *ids5[] = {"[0/1]", "[0/2]"};
    struct tl_rank_folder folders[] = {
        {"-_0_10_0", "[0/10]", "miss"}, {"-_0_1_0", "[0/1]", "miss"}, {"-_0_2_0", "[0/2]", NULL}};
    struct tl_rank_folder folders5[] = {{"-_0_1_0", "[0/1]", "hit"}, {"-_0_2_0", "[0/2]", NULL}};
    struct tl_rank_meta meta[] = {{"-_0_10_0", "a"}, {"-_0_2_0", "c"}, {"-_0_1_0", "b"}};
    struct tl_rank_meta meta5[] = {{"-_0_2_0", "c"}, {"-_0_1_0", "B"}};
    struct tl_rank_summary s[7];
    for (uint32_t i = 0; i < 7; i++)
        s[i] = (struct tl_rank_summary){.rank = i,
                                        .compile_ids = i == 5 ? ids5 : ids,
                                        .ncompile_ids = i == 5 ? 2 : 3,
                                        .cache_sequence = i == 5 ? "h" : "mm",
                                        .folders = i == 5 ? folders5 : folders,
                                        .nfolders = i == 5 ? 2 : 3,
                                        .meta = i == 5 ? meta5 : meta,
                                        .nmeta = i == 5 ? 2 : 3};
    struct tl_ranks r;
    analyze(&r, s, 7);
    assert_true(r.cids.diverge && r.cache.diverge && r.meta.diverge);
    assert_string_equal(r.cids_first[1].where, "[0/10]");
    assert_string_equal(r.cids_first[1].mains, "compiled");
    assert_null(r.cids_first[1].theirs);
    assert_string_equal(r.cache_first[1].where, "[0/1]");
    assert_string_equal(r.cache_first[1].mains, "miss");
    assert_string_equal(r.cache_first[1].theirs, "hit");
    assert_string_equal(r.meta_first[1].where, "[0/1]");
    assert_int_equal(r.apart[5], TL_RANK_APART_CIDS | TL_RANK_APART_CACHE | TL_RANK_APART_META);
    char *page = landing(&r, NULL, false);
    has(page, "<li class='bad'><strong>Compile ids differ:</strong> Rank 5 did not compile "
              "<code>[0/10]</code>, which Ranks 0-4, 6 did (the first compile id where they "
              "differ).</li>");
    has(page, "<li class='note'><strong>Cache hits and misses differ:</strong> Rank 5 hit the "
              "cache where Ranks 0-4, 6 missed the cache, first in <code>[0/1]</code>.</li>");
    has(page, "<li class='note'><strong>Tensor metadata differs:</strong> Rank 5 from Ranks "
              "0-4, 6, first in graph <code>[0/1]</code>.</li>");
    has(page, "<td class='status bad' data-value='2'>differs: compile ids, cache, tensor "
              "meta</td>");
    free(page);

    /* cache and tensor meta alone: amber, not red */
    s[5].compile_ids = ids;
    s[5].ncompile_ids = 3;
    analyze(&r, s, 7);
    page = landing(&r, NULL, false);
    has(page, "<div class='verdict note' id='summary'>");
    has(page, "<td class='status note' data-value='1'>differs: cache, tensor meta</td>");
    lacks(page, "class='bad'");
    lacks(page, "status bad");
    free(page);
}

/* ---- the landing page ------------------------------------------------------------------------ */

static void test_landing_lead(void **state)
{
    (void)state;
    /* 8 ranks that agree: the verdict says so, every status is ok, nothing red; the footer
     * says what made the page */
    const char *ids[] = {"[0/0]", "[0/1]"};
    struct tl_rank_summary s[8];
    for (uint32_t i = 0; i < 8; i++)
        s[i] = (struct tl_rank_summary){.rank = i,
                                        .log = "dedicated_log_torch_trace_rank_0.log",
                                        .compile_ids = ids,
                                        .ncompile_ids = 2,
                                        .cache_sequence = "m"};
    struct tl_ranks r;
    analyze(&r, s, 8);
    struct tl_runinfo info = {.version = TL_VERSION,
                              .revision = "abc123",
                              .command_line = "tlparse --all-ranks-html 'my logs' -o out",
                              .input = "my logs"};
    struct tl_buf b = TL_BUF_INIT;
    struct tl_landing p = {.ranks = &r, .info = &info};
    tl_page_landing(&b, &p);
    char *page = tl_buf_detach(&b, NULL);
    has(page, "<div class='verdict ok' id='summary'>\n<p>The 8 ranks agree: the same compile "
              "ids, cache hits and misses, tensor metadata and diagnosis.</p>\n</div>\n"
              "<table class='ranks sortable'>");
    assert_int_equal(tu_count(page, "<td class='status ok' data-value='0'>ok</td>"), 8);
    lacks(page, "warning-box\"");
    lacks(page, "Divergence details");
    lacks(page, "class='bad'");
    size_t footer = at(page, "<footer class='runinfo'>\n<p>tlparse " TL_VERSION " (revision "
                             "<code>abc123</code>) · command: <code class='cmd'>tlparse "
                             "--all-ranks-html 'my logs' -o out</code> · input: "
                             "<code>my logs</code></p>\n</footer>\n");
    assert_true(at(page, "<h3>Tensor Metadata Analysis</h3>") < footer);
    assert_true(footer < at(page, "</div>\n<script>"));
    free(page);

    /* one rank: nothing to compare */
    analyze(&r, s, 1);
    page = landing(&r, NULL, false);
    has(page, "<p>One rank: nothing to compare.</p>");
    lacks(page, "<footer");
    free(page);
}

static void test_landing_layout(void **state)
{
    (void)state;
    /* compile ids, cache and collectives all diverge, and tensor meta: the three warnings in
     * order, inside one box, then the report */
    const char *ids0[] = {"[0/0]"};
    const char *ids1[] = {"[0/0]", "[0/1]"};
    struct tl_rank_schedule sa[] = {{"g", sched_four, 4}};
    struct tl_rank_schedule sb[] = {{"g", sched_six, 6}};
    struct tl_rank_meta ma[] = {{"g", "1"}};
    struct tl_rank_meta mb[] = {{"g", "2"}};
    struct tl_rank_summary s[3] = {
        {.rank = 0,
         .compile_ids = ids0,
         .ncompile_ids = 1,
         .cache_sequence = "x",
         .schedules = sa,
         .nschedules = 1,
         .meta = ma,
         .nmeta = 1},
        {.rank = 1,
         .compile_ids = ids1,
         .ncompile_ids = 2,
         .cache_sequence = "y",
         .schedules = sb,
         .nschedules = 1,
         .meta = mb,
         .nmeta = 1},
        {.rank = 10,
         .compile_ids = ids0,
         .ncompile_ids = 1,
         .cache_sequence = "x",
         .schedules = sa,
         .nschedules = 1,
         .meta = ma,
         .nmeta = 1},
    };
    struct tl_ranks r;
    analyze(&r, s, 3);
    char *page = landing(&r, "<b>my header</b>", true);
    assert_int_equal(tu_count(page, "class=\"warning-box\""), 1);
    size_t box = at(page, "<div class=\"warning-box\">");
    size_t ids = at(page, "<strong>Warning:</strong> Diverging Compilation IDs detected");
    size_t cache = at(page, "<strong>Warning:</strong> Diverging Cache hit/miss patterns detected");
    size_t coll = at(page, "<strong>Warning:</strong> Diverging collective operation sequences");
    size_t title = at(page, "<h2>Multi-Rank TLParse Report</h2>");
    size_t summary = at(page, "<div class='verdict bad' id='summary'>");
    size_t links = at(page, "<table class='ranks sortable'>");
    /* the page leads with the verdict and the table of ranks; the details come after them */
    assert_true(at(page, "<b>my header</b>") < title);
    assert_true(title < summary && summary < links && links < box);
    assert_true(box < ids && ids < cache && cache < coll);
    assert_true(at(page, "<h3 id='details'>Divergence details</h3>") < box);
    /* one list per group kind: cache then collectives, "Ranks: 0, 10" each */
    /* cache groups say their sequence; collective and meta groups their ranks */
    assert_int_equal(tu_count(page, "<li>Ranks: 0, 10</li>"), 2);
    assert_int_equal(tu_count(page, "<li>Ranks: 0, 10 &mdash; cache results in compile order"), 1);
    assert_true(cache < at(page, "<li>Ranks: 0, 10 &mdash; cache"));
    has(page, "<strong>3</strong> ranks. Click on a rank");
    size_t chromium = at(page, "<h3>Chromium Events</h3>");
    has(page, "href='chromium_events.json'");
    has(page, "https://ui.perfetto.dev/");
    assert_true(links < at(page, "<tr><td data-value='0'><a href=\"rank_0/index.html\">Rank "
                                 "0</a></td>"));
    assert_true(at(page, "<a href=\"rank_0/index.html\">") <
                at(page, "<a href=\"rank_1/index.html\">"));
    assert_true(at(page, "<a href=\"rank_1/index.html\">") <
                at(page, "<a href=\"rank_10/index.html\">"));
    size_t exec = at(page, "<h3>Graph Execution-Order Diagnostics</h3>");
    size_t meta = at(page, "<h3>Tensor Metadata Analysis</h3>");
    size_t end = at(page, "</div>\n<script>");
    assert_true(coll < chromium && chromium < exec && exec < meta && meta < end);
    has(page, "<style>\n");
    has(page, ".warning-box");
    has(page, "</script>\n</body>\n</html>\n");
    lacks(page, "collectives_parity.json");
    lacks(page, "Runtime Trace Visualization");
    free(page);

    /* cache alone */
    s[1].compile_ids = ids0;
    s[1].ncompile_ids = 1;
    s[1].schedules = sa;
    s[1].meta = ma;
    analyze(&r, s, 3);
    page = landing(&r, NULL, false);
    has(page, "<div class=\"warning-box\">\n<p><strong>Warning:</strong> Diverging Cache "
              "hit/miss patterns detected");
    has(page, "<ul>\n<li>Ranks: 0, 10 &mdash; cache results in compile order (✅ hit, ❌ miss): "
              "<code>x</code></li>\n<li>Ranks: 1 &mdash; cache results in compile order (✅ "
              "hit, ❌ miss): <code>y</code></li>\n</ul>\n</div>\n");
    lacks(page, "Diverging Compilation IDs detected");
    lacks(page, "Diverging collective operation sequences");
    lacks(page, "Chromium Events");
    lacks(page, "chromium_events.json");
    free(page);

    /* compile ids alone */
    s[1].cache_sequence = "x";
    s[1].compile_ids = ids1;
    s[1].ncompile_ids = 2;
    analyze(&r, s, 3);
    page = landing(&r, NULL, false);
    has(page, "<div class=\"warning-box\">\n<p><strong>Warning:</strong> Diverging Compilation "
              "IDs detected");
    lacks(page, "Diverging Cache hit/miss patterns detected");
    lacks(page, "<li>Ranks: ");
    free(page);

    /* nothing diverges: no box */
    s[1].compile_ids = ids0;
    s[1].ncompile_ids = 1;
    analyze(&r, s, 3);
    page = landing(&r, NULL, false);
    lacks(page, "warning-box\"");
    lacks(page, "Warning:");
    has(page, "All ranks have matching tensor meta signatures.");
    free(page);
}

static void test_landing_escaping(void **state)
{
    (void)state;
    const char *evil = "<script>alert('x')</script>&";
    struct tl_rank_runtime rt[] = {{evil, (struct tl_rank_op[]){{evil, 1e6}}, 1}};
    struct tl_rank_summary s[2] = {
        {.rank = 0, .runtime = rt, .nruntime = 1},
        {.rank = 1, .error = "bad <b>log</b> & \"name\""},
    };
    struct tl_ranks r;
    analyze(&r, s, 2);
    char *page = landing(&r, NULL, false);
    lacks(page, "<script>alert");
    has(page, "<strong>Graph &lt;script&gt;alert('x')&lt;/script&gt;&amp;:</strong> 0.0 ms delta");
    has(page, "<td colspan='6' class='why'>bad &lt;b&gt;log&lt;/b&gt; &amp; \"name\"</td>");
    has(page, "Rank 1: no report (bad &lt;b&gt;log&lt;/b&gt; &amp; \"name\")");
    free(page);

    /* the custom header is the one raw field */
    page = landing(&r, "<script>mine()</script>", false);
    has(page, "<div>\n<script>mine()</script>");
    free(page);
}

/* ---- the JSON files ------------------------------------------------------------------------- */

static void json_is(void (*fn)(struct tl_buf *, const struct tl_ranks *), const struct tl_ranks *r,
                    const char *want)
{
    struct tl_buf b = TL_BUF_INIT;
    fn(&b, r);
    if (strcmp(b.buf, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", b.buf, want);
    tl_buf_release(&b);
}

static void test_runtime_json(void **state)
{
    (void)state;
    struct tl_rank_op ops[] = {{"mm", 100}, {"a\"b", 2.5}};
    struct tl_rank_runtime r0[] = {{"-_0_0_0", ops, 2}, {"-_0_1_0", ops, 0}};
    struct tl_rank_runtime r2[] = {{"-_0_0_0", ops + 1, 1}};
    struct tl_rank_summary s[3] = {
        {.rank = 0, .runtime = r0, .nruntime = 2},
        {.rank = 1},
        {.rank = 2, .runtime = r2, .nruntime = 1},
    };
    struct tl_ranks r;
    analyze(&r, s, 3);
    json_is(tl_ranks_runtime_json, &r,
            "[\n"
            "  {\n"
            "    \"rank\": 0,\n"
            "    \"graph\": \"-_0_0_0\",\n"
            "    \"ops\": [\n"
            "      {\n"
            "        \"name\": \"mm\",\n"
            "        \"estimated_runtime_ns\": 100.0\n"
            "      },\n"
            "      {\n"
            "        \"name\": \"a\\\"b\",\n"
            "        \"estimated_runtime_ns\": 2.5\n"
            "      }\n"
            "    ]\n"
            "  },\n"
            "  {\n"
            "    \"rank\": 2,\n"
            "    \"graph\": \"-_0_0_0\",\n"
            "    \"ops\": [\n"
            "      {\n"
            "        \"name\": \"a\\\"b\",\n"
            "        \"estimated_runtime_ns\": 2.5\n"
            "      }\n"
            "    ]\n"
            "  }\n"
            "]");
    analyze(&r, s + 1, 1);
    json_is(tl_ranks_runtime_json, &r, "[]");
}

static void test_runtime_trace_json(void **state)
{
    (void)state;
    /* 2500 ns -> dur 3, 1e-7 -> 1, -5.5 -> dur 1 and runtime 0, 1000 -> 1 */
    struct tl_rank_op ops[] = {{"k1", 2500}, {"k2", 1e-7}, {"k3", -5.5}};
    struct tl_rank_op one[] = {{"k", 1000}};
    struct tl_rank_runtime r0[] = {{"-_0_1_0", ops, 3}, {"-_0_0_0", one, 1}};
    struct tl_rank_runtime r6[] = {{"-_0_0_0", one, 1}};
    struct tl_rank_summary s[3] = {
        {.rank = 0, .runtime = r0, .nruntime = 2},
        {.rank = 3},
        {.rank = 6, .runtime = r6, .nruntime = 1},
    };
    struct tl_ranks r;
    analyze(&r, s, 3);
    uint32_t t01 = tl_ranks_tid(0, "-_0_1_0");
    uint32_t t00 = tl_ranks_tid(0, "-_0_0_0");
    assert_int_equal(t01, 3096134113u);
    char want[8192];
    snprintf(
        want, sizeof(want),
        "[\n"
        "  {\n    \"args\": {\n      \"graph\": \"-_0_1_0\",\n      \"rank\": 0,\n"
        "      \"runtime_ns\": 2500\n    },\n    \"cat\": \"runtime\",\n    \"dur\": 3,\n"
        "    \"name\": \"k1\",\n    \"ph\": \"X\",\n    \"pid\": 0,\n    \"tid\": 3096134113,\n"
        "    \"ts\": 0\n  },\n"
        "  {\n    \"args\": {\n      \"graph\": \"-_0_1_0\",\n      \"rank\": 0,\n"
        "      \"runtime_ns\": 0\n    },\n    \"cat\": \"runtime\",\n    \"dur\": 1,\n"
        "    \"name\": \"k2\",\n    \"ph\": \"X\",\n    \"pid\": 0,\n    \"tid\": 3096134113,\n"
        "    \"ts\": 3\n  },\n"
        "  {\n    \"args\": {\n      \"graph\": \"-_0_1_0\",\n      \"rank\": 0,\n"
        "      \"runtime_ns\": 0\n    },\n    \"cat\": \"runtime\",\n    \"dur\": 1,\n"
        "    \"name\": \"k3\",\n    \"ph\": \"X\",\n    \"pid\": 0,\n    \"tid\": 3096134113,\n"
        "    \"ts\": 4\n  },\n"
        "  {\n    \"args\": {\n      \"graph\": \"-_0_0_0\",\n      \"rank\": 0,\n"
        "      \"runtime_ns\": 1000\n    },\n    \"cat\": \"runtime\",\n    \"dur\": 1,\n"
        "    \"name\": \"k\",\n    \"ph\": \"X\",\n    \"pid\": 0,\n    \"tid\": %u,\n"
        "    \"ts\": 0\n  },\n"
        "  {\n    \"args\": {\n      \"graph\": \"-_0_0_0\",\n      \"rank\": 6,\n"
        "      \"runtime_ns\": 1000\n    },\n    \"cat\": \"runtime\",\n    \"dur\": 1,\n"
        "    \"name\": \"k\",\n    \"ph\": \"X\",\n    \"pid\": 6,\n    \"tid\": 1904702005,\n"
        "    \"ts\": 0\n  },\n"
        "  {\n    \"args\": {\n      \"name\": \"Rank 0\"\n    },\n"
        "    \"name\": \"process_name\",\n    \"ph\": \"M\",\n    \"pid\": 0\n  },\n"
        "  {\n    \"args\": {\n      \"sort_index\": 0\n    },\n"
        "    \"name\": \"process_sort_index\",\n    \"ph\": \"M\",\n    \"pid\": 0\n  },\n"
        "  {\n    \"args\": {\n      \"name\": \"Rank 6\"\n    },\n"
        "    \"name\": \"process_name\",\n    \"ph\": \"M\",\n    \"pid\": 6\n  },\n"
        "  {\n    \"args\": {\n      \"sort_index\": 6\n    },\n"
        "    \"name\": \"process_sort_index\",\n    \"ph\": \"M\",\n    \"pid\": 6\n  },\n"
        "  {\n    \"args\": {\n      \"name\": \"graph -_0_1_0\"\n    },\n"
        "    \"name\": \"thread_name\",\n    \"ph\": \"M\",\n    \"pid\": 0,\n"
        "    \"tid\": 3096134113\n  },\n"
        "  {\n    \"args\": {\n      \"sort_index\": 0\n    },\n"
        "    \"name\": \"thread_sort_index\",\n    \"ph\": \"M\",\n    \"pid\": 0,\n"
        "    \"tid\": 3096134113\n  },\n"
        "  {\n    \"args\": {\n      \"name\": \"graph -_0_0_0\"\n    },\n"
        "    \"name\": \"thread_name\",\n    \"ph\": \"M\",\n    \"pid\": 0,\n"
        "    \"tid\": %u\n  },\n"
        "  {\n    \"args\": {\n      \"sort_index\": 1\n    },\n"
        "    \"name\": \"thread_sort_index\",\n    \"ph\": \"M\",\n    \"pid\": 0,\n"
        "    \"tid\": %u\n  },\n"
        "  {\n    \"args\": {\n      \"name\": \"graph -_0_0_0\"\n    },\n"
        "    \"name\": \"thread_name\",\n    \"ph\": \"M\",\n    \"pid\": 6,\n"
        "    \"tid\": 1904702005\n  },\n"
        "  {\n    \"args\": {\n      \"sort_index\": 0\n    },\n"
        "    \"name\": \"thread_sort_index\",\n    \"ph\": \"M\",\n    \"pid\": 6,\n"
        "    \"tid\": 1904702005\n  }\n"
        "]",
        t00, t00, t00);
    json_is(tl_ranks_runtime_trace_json, &r, want);

    /* huge runtimes saturate instead of overflowing */
    struct tl_rank_op big[] = {{"a", 1e30}, {"b", 1e30}};
    struct tl_rank_runtime rb[] = {{"g", big, 2}};
    struct tl_rank_summary sb[1] = {{.rank = 0, .runtime = rb, .nruntime = 1}};
    analyze(&r, sb, 1);
    struct tl_buf b = TL_BUF_INIT;
    tl_ranks_runtime_trace_json(&b, &r);
    has(b.buf, "\"runtime_ns\": 18446744073709551615\n");
    has(b.buf, "\"ts\": 18446744073709551615\n");
    tl_buf_release(&b);
}

/* The thread events in the order of the reference's hash map, here for the graphs of
 * multi_rank_runtime's ranks in the order its folders were listed (the order the reference's
 * own file shows, checked against its digest). */
static void test_trace_reference_order(void **state)
{
    (void)state;
    static const char *const listed[7][4] = {
        {"-_0_1_0", "-_0_0_0", "-_0_3_0", "-_0_2_0"},
        {"-_0_1_0", "-_0_0_0", "-_0_3_0", "-_0_2_0"},
        {"-_0_1_0", "-_0_0_0", "-_0_3_0", "-_0_2_0"},
        {"-_0_1_0", "-_0_0_0", "-_0_3_0", "-_0_2_0"},
        {"-_0_1_0", "-_0_3_0", "-_0_2_0"},
        {"-_0_1_0", "-_0_0_0"},
        {"-_0_1_0", "-_0_0_0"},
    };
    static const char *const want[7][4] = {
        {"-_0_0_0", "-_0_3_0", "-_0_2_0", "-_0_1_0"},
        {"-_0_3_0", "-_0_2_0", "-_0_1_0", "-_0_0_0"},
        {"-_0_1_0", "-_0_0_0", "-_0_3_0", "-_0_2_0"},
        {"-_0_1_0", "-_0_3_0", "-_0_0_0", "-_0_2_0"},
        {"-_0_2_0", "-_0_1_0", "-_0_3_0"},
        {"-_0_0_0", "-_0_1_0"},
        {"-_0_1_0", "-_0_0_0"},
    };
    struct tl_rank_op op[] = {{"mm", 1000}};
    struct tl_rank_runtime rt[7][4];
    struct tl_rank_summary s[7];
    memset(s, 0, sizeof(s));
    for (uint32_t k = 0; k < 7; k++) {
        s[k].rank = k;
        for (size_t g = 0; g < 4 && listed[k][g]; g++)
            rt[k][s[k].nruntime++] = (struct tl_rank_runtime){listed[k][g], op, 1};
        s[k].runtime = rt[k];
    }
    struct tl_ranks r;
    analyze(&r, s, 7);
    struct tl_buf b = TL_BUF_INIT;
    tl_ranks_runtime_trace_json(&b, &r);
    /* the thread names in the order written, per rank */
    const char *p = b.buf;
    for (uint32_t k = 0; k < 7; k++) {
        for (size_t g = 0; g < 4 && want[k][g]; g++) {
            char name[64];
            snprintf(name, sizeof(name), "\"graph %s\"", want[k][g]);
            p = strstr(p, name);
            if (!p)
                fail_msg("rank %u: %s is not thread %zu:\n%s", k, name, g, b.buf);
            char idx[64];
            snprintf(idx, sizeof(idx), "\"sort_index\": %zu\n", g);
            p = strstr(p, idx);
            assert_non_null(p);
        }
    }
    tl_buf_release(&b);
}

static void test_schedules_json(void **state)
{
    (void)state;
    struct tl_rank_schedule s0[] = {{"-_1_0_0", sched_pre, 2}, {"-_0_0_0", NULL, 0}};
    struct tl_rank_schedule s1[] = {{"-_0_0_0", sched_four, 1}};
    struct tl_rank_summary s[2] = {{.rank = 0, .schedules = s0, .nschedules = 2},
                                   {.rank = 1, .schedules = s1, .nschedules = 1}};
    struct tl_ranks r;
    analyze(&r, s, 2);
    json_is(tl_ranks_schedules_json, &r,
            "[\n"
            "  {\n"
            "    \"rank\": 0,\n"
            "    \"graph\": \"-_1_0_0\",\n"
            "    \"ops\": [\n"
            "      \"torch.ops._c10d_functional.all_reduce_.default\",\n"
            "      \"torch.ops._c10d_functional.wait_tensor.default\"\n"
            "    ]\n"
            "  },\n"
            "  {\n"
            "    \"rank\": 1,\n"
            "    \"graph\": \"-_0_0_0\",\n"
            "    \"ops\": [\n"
            "      \"a\"\n"
            "    ]\n"
            "  }\n"
            "]");
}

static void test_parity_json(void **state)
{
    (void)state;
    struct tl_parity_entry e[] = {{"-_0_0_0", "[0/0]", 0, 1}, {"-_0_1_0", NULL, 2, 3}};
    struct tl_buf b = TL_BUF_INIT;
    tl_parity_json(&b, e, 2);
    assert_string_equal(b.buf, "{\n"
                               "  \"description\": \"Difference of # of collectives in scheduler "
                               "and inductor output code and missing wait collectives\",\n"
                               "  \"graphs\": [\n"
                               "    {\n"
                               "      \"graph\": \"-_0_0_0\",\n"
                               "      \"compile_id\": \"[0/0]\",\n"
                               "      \"offset\": 0,\n"
                               "      \"missing_waits\": 1\n"
                               "    },\n"
                               "    {\n"
                               "      \"graph\": \"-_0_1_0\",\n"
                               "      \"compile_id\": \"unknown\",\n"
                               "      \"offset\": 2,\n"
                               "      \"missing_waits\": 3\n"
                               "    }\n"
                               "  ]\n"
                               "}");
    tl_buf_reset(&b);
    tl_parity_json(&b, NULL, 0);
    assert_string_equal(b.buf, "{\n"
                               "  \"description\": \"Difference of # of collectives in scheduler "
                               "and inductor output code and missing wait collectives\",\n"
                               "  \"graphs\": []\n"
                               "}");
    tl_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tid),
        cmocka_unit_test(test_ms),
        cmocka_unit_test(test_collective_names),
        cmocka_unit_test(test_parity_code_plain),
        cmocka_unit_test(test_parity_code_spacing),
        cmocka_unit_test(test_parity_code_html),
        cmocka_unit_test(test_parity_code_hostile),
        cmocka_unit_test(test_parity_schedule_compare),
        cmocka_unit_test(test_cid_order),
        cmocka_unit_test(test_compile_ids_and_cache),
        cmocka_unit_test(test_runtime_analysis),
        cmocka_unit_test(test_schedule_groups),
        cmocka_unit_test(test_meta_groups),
        cmocka_unit_test(test_exec_order_library),
        cmocka_unit_test(test_exec_order_cases),
        cmocka_unit_test(test_divergences),
        cmocka_unit_test(test_first_collective),
        cmocka_unit_test(test_first_other_kinds),
        cmocka_unit_test(test_landing_lead),
        cmocka_unit_test(test_landing_layout),
        cmocka_unit_test(test_landing_escaping),
        cmocka_unit_test(test_runtime_json),
        cmocka_unit_test(test_runtime_trace_json),
        cmocka_unit_test(test_trace_reference_order),
        cmocka_unit_test(test_schedules_json),
        cmocka_unit_test(test_parity_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
