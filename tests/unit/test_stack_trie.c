/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for stack_trie.c (spec core.md §4.6): insertion order, shared
 * prefixes, frame identity, terminals and their run-length "(unknown)"
 * counting, the exact HTML of report/page_trie.c's tl_page_trie (flat list,
 * diverging stacks, status classes), a 100 000-frame stack, the file-name
 * simplification rules, eval_with_key links, frame text and the one-path
 * renderers.
 */
#include "base/config.h"
#include "model/stack_trie.h"
#include "base/arena.h"
#include "base/buf.h"
#include "input/envelope.h"
#include "model/model.h"
#include "model/strtab.h"
#include "report/pages.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tl_arena arena;
static struct tl_strtab strtab;
static struct tl_model model; /* the compile ids of terminals */

static int setup(void **state)
{
    (void)state;
    tl_arena_init(&arena, 0);
    tl_model_init(&model, &arena);
    tl_strtab_init(&strtab, &arena);
    tl_strtab_set(&strtab, 0, TL_STR_LIT("a.py"));
    tl_strtab_set(&strtab, 1, TL_STR_LIT("b.py"));
    tl_strtab_set(&strtab, 2, TL_STR_LIT("dir/c<x>.py"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tl_strtab_release(&strtab);
    tl_model_release(&model);
    tl_arena_release(&arena);
    return 0;
}

static struct tl_frame fr(uint32_t file, int32_t line, const char *name, const char *loc)
{
    struct tl_frame f;
    memset(&f, 0, sizeof(f));
    f.filename = file;
    f.line = line;
    f.name = tl_str_cstr(name);
    f.loc = loc ? tl_str_cstr(loc) : TL_STR_NULL;
    f.uninterned_filename = TL_STR_NULL;
    return f;
}

/* A terminal for compile id [frame/fcid_attempt]: status-ok for frame 0, status-break
 * (metrics with restarts) for others. */
static struct tl_terminal term_id(int frame, int fcid, int attempt)
{
    struct tl_compile_id id;
    memset(&id, 0, sizeof(id));
    id.has = TL_CID_FRAME | TL_CID_FCID | (attempt >= 0 ? TL_CID_ATTEMPT : 0);
    id.frame = (uint32_t)frame;
    id.fcid = (uint32_t)fcid;
    id.attempt = attempt >= 0 ? (uint32_t)attempt : 0;
    struct tl_compile *c = tl_model_compile(&model, &id);
    c->status = frame == 0 ? TL_CS_METRICS : TL_CS_METRICS | TL_CS_RESTART;
    struct tl_terminal t = {c, 0};
    return t;
}

static struct tl_terminal term_unknown(void)
{
    struct tl_terminal t = {NULL, 0};
    return t;
}

static void expect_buf(const struct tl_buf *b, const char *want)
{
    if (b->len != strlen(want) || memcmp(b->buf, want, b->len) != 0) {
        print_error("got:\n%s\nwant:\n%s\n", b->buf, want);
        fail();
    }
}

#define HEAD(cap) "<details><summary>" cap "</summary><div class='stack-trie'><ul>"
#define TAIL "</ul></div></details>"
#define LOC "<br>&nbsp;&nbsp;&nbsp;&nbsp;"
#define MARK "<li><span onclick='toggleList(this)' class='marker'></span>"

/* ---- structure
 * ----------------------------------------------------------------------------------- */

static void test_insert_structure(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    assert_true(tl_trie_empty(&t));
    struct tl_frame s1[] = {fr(0, 1, "f", "x()"), fr(1, 2, "g", NULL), fr(0, 3, "h", NULL)};
    struct tl_frame s2[] = {fr(0, 1, "f", "x()"), fr(1, 2, "g", NULL), fr(0, 4, "k", NULL)};
    struct tl_frame s3[] = {fr(0, 1, "f", "x()"), fr(1, 9, "z", NULL)};
    struct tl_trie_node *n1 = tl_trie_insert(&t, s1, 3, NULL);
    assert_false(tl_trie_empty(&t));
    assert_int_equal(t.nnodes, 3);
    struct tl_trie_node *n2 = tl_trie_insert(&t, s2, 3, NULL);
    assert_int_equal(t.nnodes, 4);
    struct tl_trie_node *n3 = tl_trie_insert(&t, s3, 2, NULL);
    assert_int_equal(t.nnodes, 5);
    /* The same stack again: same node, nothing new. */
    assert_ptr_equal(tl_trie_insert(&t, s1, 3, NULL), n1);
    assert_int_equal(t.nnodes, 5);
    /* A prefix ends on an inner node. */
    struct tl_trie_node *mid = tl_trie_insert(&t, s1, 2, NULL);
    assert_ptr_equal(n1->parent, mid);
    assert_ptr_equal(n2->parent, mid);
    assert_ptr_equal(n3->parent, mid->parent);
    /* Empty stack: the root. */
    assert_ptr_equal(tl_trie_insert(&t, s1, 0, NULL), &t.root);

    /* Children in first-insertion order. */
    const struct tl_trie_node *a = t.root.first_child;
    assert_int_equal(t.root.nchildren, 1);
    assert_int_equal(a->nchildren, 2);
    assert_ptr_equal(a->first_child, mid);
    assert_ptr_equal(a->first_child->next_sibling, n3);
    assert_ptr_equal(a->last_child, n3);
    assert_ptr_equal(mid->first_child, n1);
    assert_ptr_equal(mid->first_child->next_sibling, n2);
    assert_null(n2->next_sibling);
    assert_string_equal(n1->frame.name, "h");
    assert_int_equal(n1->frame.line, 3);
    assert_string_equal(a->frame.loc, "x()");
    assert_null(n1->frame.loc);
    assert_null(n1->frame.uninterned);
    tl_trie_release(&t);
}

static void test_frame_identity(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_frame base = fr(0, 1, "f", NULL);
    tl_trie_insert(&t, &base, 1, NULL);
    struct tl_frame v[7];
    for (int i = 0; i < 7; i++)
        v[i] = base;
    v[0].filename = 1;                         /* file id */
    v[1].line = 2;                             /* line */
    v[2].name = TL_STR_LIT("g");               /* name */
    v[3].loc = TL_STR_LIT("");                 /* loc absent vs "" */
    v[4].loc = TL_STR_LIT("x");                /* loc */
    v[5].uninterned_filename = TL_STR_LIT(""); /* uninterned absent vs "" */
    v[6].uninterned_filename = TL_STR_LIT("a.py");
    for (int i = 0; i < 7; i++)
        tl_trie_insert(&t, &v[i], 1, NULL);
    assert_int_equal(t.root.nchildren, 8);
    assert_int_equal(t.nnodes, 8);
    /* Equal content from different buffers is the same frame. */
    char name[] = "f";
    struct tl_frame copy = base;
    copy.name = tl_str_make(name, 1);
    tl_trie_insert(&t, &copy, 1, NULL);
    assert_int_equal(t.nnodes, 8);
    tl_trie_release(&t);
}

static void test_intern(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    assert_null(tl_trie_intern(&t, TL_STR_NULL));
    char a[] = "hello", b[] = "hello";
    const char *p = tl_trie_intern(&t, tl_str_make(a, 5));
    const char *q = tl_trie_intern(&t, tl_str_make(b, 5));
    assert_ptr_equal(p, q);
    assert_ptr_not_equal(p, a);
    assert_string_equal(p, "hello");
    const char *e = tl_trie_intern(&t, tl_str_make("", 0));
    assert_non_null(e);
    assert_string_equal(e, "");
    tl_trie_release(&t);
}

/* ---- rendering
 * ----------------------------------------------------------------------------------- */

static void test_render_single_stack(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_frame s[] = {fr(0, 1, "f", "x()"), fr(1, 2, "g", "y = a < b & c"),
                           fr(0, 3, "<lambda>", NULL)};
    struct tl_terminal term = term_id(0, 0, 0);
    tl_trie_insert(&t, s, 3, &term);
    struct tl_buf b = TL_BUF_INIT;
    tl_page_trie(&b, &t, "Stack", &strtab, true);
    expect_buf(&b, HEAD("Stack") "<li>a.py:1 in f" LOC "x()</li>\n"
                                 "<li>b.py:2 in g" LOC "y = a &lt; b &amp; c</li>\n"
                                 "<li><a href='#[0/0]' class='status-ok'>[0/0]</a> "
                                 "a.py:3 in &lt;lambda&gt;" LOC "</li>\n" TAIL);
    /* Without a status callback the terminals are not shown. */
    tl_buf_reset(&b);
    tl_page_trie(&b, &t, "Stack", &strtab, false);
    expect_buf(&b, HEAD("Stack") "<li>a.py:1 in f" LOC "x()</li>\n"
                                 "<li>b.py:2 in g" LOC "y = a &lt; b &amp; c</li>\n"
                                 "<li>a.py:3 in &lt;lambda&gt;" LOC "</li>\n" TAIL);
    tl_buf_release(&b);
    tl_trie_release(&t);
}

static void test_render_empty(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_adds(&b, "pre|");
    tl_page_trie(&b, &t, "Empty", &strtab, false);
    expect_buf(&b, "pre|" HEAD("Empty") TAIL);
    tl_buf_release(&b);
    tl_trie_release(&t);
}

static void test_render_diverging(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_frame s1[] = {fr(0, 1, "main", NULL), fr(1, 2, "g", NULL), fr(1, 3, "h", NULL)};
    struct tl_frame s2[] = {fr(0, 1, "main", NULL), fr(0, 5, "k", NULL)};
    struct tl_terminal t1 = term_id(0, 0, 0), t2 = term_id(1, 0, 0);
    tl_trie_insert(&t, s1, 3, &t1);
    tl_trie_insert(&t, s2, 2, &t2);
    struct tl_buf b = TL_BUF_INIT;
    tl_page_trie(&b, &t, "Stack trie", &strtab, true);
    expect_buf(&b, HEAD("Stack trie") "<li>a.py:1 in main" LOC "</li>\n"
               /* first branch: g then (single child) h inside its ul */
               MARK "\n"
                                      "b.py:2 in g" LOC "<ul>\n"
                                      "<li><a href='#[0/0]' class='status-ok'>[0/0]</a> "
                                      "b.py:3 in h" LOC "</li>\n"
                                      "</ul></li>"
               /* second branch: k carries [1/0] on its marker line */
               MARK "<a href='#[1/0]' class='status-break'>[1/0]</a> \n"
                                      "a.py:5 in k" LOC "<ul>\n"
                                      "</ul></li>" TAIL);
    tl_buf_release(&b);
    tl_trie_release(&t);
}

static void test_render_nested_divergence(void **state)
{
    (void)state;
    /* Root with two children, one of which again has two children. */
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_frame s1[] = {fr(0, 1, "a", NULL), fr(0, 2, "b", NULL)};
    struct tl_frame s2[] = {fr(0, 1, "a", NULL), fr(0, 3, "c", NULL)};
    struct tl_frame s3[] = {fr(1, 1, "d", NULL)};
    tl_trie_insert(&t, s1, 2, NULL);
    tl_trie_insert(&t, s2, 2, NULL);
    tl_trie_insert(&t, s3, 1, NULL);
    struct tl_buf b = TL_BUF_INIT;
    tl_page_trie(&b, &t, "C", &strtab, false);
    expect_buf(&b, HEAD("C") MARK "\n"
                                  "a.py:1 in a" LOC "<ul>\n" MARK "\n"
                                  "a.py:2 in b" LOC "<ul>\n"
                                  "</ul></li>" MARK "\n"
                                  "a.py:3 in c" LOC "<ul>\n"
                                  "</ul></li>"
                                  "</ul></li>" MARK "\n"
                                  "b.py:1 in d" LOC "<ul>\n"
                                  "</ul></li>" TAIL);
    tl_buf_release(&b);
    tl_trie_release(&t);
}

static void test_render_terminals(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_frame s[] = {fr(0, 1, "f", NULL), fr(0, 2, "g", NULL)};
    struct tl_terminal a = term_id(0, 0, 0), br = term_id(1, 0, 2), c = term_id(5, 2, -1);
    struct tl_terminal u = term_unknown();
    /* Terminals on the inner node and on the leaf, in insertion order. */
    tl_trie_insert(&t, s, 1, &br);
    tl_trie_insert(&t, s, 2, &a);
    tl_trie_insert(&t, s, 2, &u);
    tl_trie_insert(&t, s, 2, &c);
    tl_trie_insert(&t, s, 2, &u);
    tl_trie_insert(&t, s, 2, &u);
    /* A compile-id terminal inserted twice is listed twice. */
    tl_trie_insert(&t, s, 2, &a);
    struct tl_buf b = TL_BUF_INIT;
    tl_page_trie(&b, &t, "T", &strtab, true);
    expect_buf(&b, HEAD("T") "<li><a href='#[1/0_2]' class='status-break'>[1/0_2]</a> "
                             "a.py:1 in f" LOC "</li>\n"
                             "<li><a href='#[0/0]' class='status-ok'>[0/0]</a> (unknown) "
                             "<a href='#[5/2]' class='status-break'>[5/2]</a> (unknown) (unknown) "
                             "<a href='#[0/0]' class='status-ok'>[0/0]</a> "
                             "a.py:2 in g" LOC "</li>\n" TAIL);
    /* Runs of unknown are counted, not stored. */
    const struct tl_trie_node *leaf = t.root.first_child->first_child;
    assert_int_equal(leaf->nterms, 5);
    assert_int_equal(leaf->terms[3].repeat, 2);
    tl_buf_release(&b);
    tl_trie_release(&t);
}

static void test_unknown_run_length(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_frame s[] = {fr(0, 1, "f", NULL)};
    struct tl_terminal u = term_unknown();
    for (int i = 0; i < 3; i++)
        tl_trie_insert(&t, s, 1, &u);
    const struct tl_trie_node *n = t.root.first_child;
    assert_int_equal(n->nterms, 1);
    assert_int_equal(n->terms[0].repeat, 3);
    struct tl_buf b = TL_BUF_INIT;
    tl_page_trie(&b, &t, "U", &strtab, true);
    expect_buf(&b, HEAD("U") "<li>(unknown) (unknown) (unknown) a.py:1 in f" LOC "</li>\n" TAIL);
    /* A million unknowns take no memory per insert. */
    for (int i = 0; i < 1000000; i++)
        tl_trie_insert(&t, s, 1, &u);
    assert_int_equal(n->nterms, 1);
    assert_int_equal(n->terms[0].repeat, 1000003);
    tl_buf_release(&b);
    tl_trie_release(&t);
}

/* Length of "<li>a.py:<i> in f<br>&nbsp;x4</li>\n" for line i. */
static size_t flat_item_len(int32_t line)
{
    char tmp[32];
    int d = snprintf(tmp, sizeof(tmp), "%d", line);
    return strlen("<li>a.py:") + (size_t)d + strlen(" in f" LOC "</li>\n");
}

static void test_deep_stack(void **state)
{
    (void)state;
    enum { N = 100000 };
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_frame *s = malloc(N * sizeof(*s));
    assert_non_null(s);
    for (int i = 0; i < N; i++)
        s[i] = fr(0, i, "f", NULL);
    struct tl_terminal term = term_id(0, 0, 0);
    struct tl_trie_node *leaf = tl_trie_insert(&t, s, N, &term);
    assert_int_equal(t.nnodes, N);
    assert_ptr_equal(tl_trie_insert(&t, s, N, NULL), leaf);
    struct tl_buf b = TL_BUF_INIT;
    tl_page_trie(&b, &t, "Deep", &strtab, true);
    size_t want =
        strlen(HEAD("Deep") TAIL) + strlen("<a href='#[0/0]' class='status-ok'>[0/0]</a> ");
    for (int i = 0; i < N; i++)
        want += flat_item_len(i);
    assert_int_equal(b.len, want);
    assert_memory_equal(b.buf + b.len - strlen(TAIL), TAIL, strlen(TAIL));

    /* Diverge at the very bottom: 2 nested ul at depth N - 1. */
    s[N - 1].line = -1;
    tl_trie_insert(&t, s, N, NULL);
    assert_int_equal(t.nnodes, N + 1);
    tl_buf_reset(&b);
    tl_page_trie(&b, &t, "Deep", &strtab, false);
    want = strlen(HEAD("Deep") TAIL);
    for (int i = 0; i < N - 1; i++)
        want += flat_item_len(i);
    want += 2 * (strlen(MARK "\n"
                             "a.py:") +
                 strlen(" in f" LOC "<ul>\n"
                        "</ul></li>"));
    want += strlen("99999") + strlen("-1");
    assert_int_equal(b.len, want);

    /* A branch at every level: nested <ul>s as deep as the stack. Each
     * branch insert walks the whole prefix, so keep this one smaller. */
    enum { W = 3000 };
    struct tl_trie t2;
    tl_trie_init(&t2, &arena);
    for (int i = 0; i < W; i++)
        s[i] = fr(0, 1, "f", NULL);
    tl_trie_insert(&t2, s, W, NULL);
    for (int i = 0; i < W; i++) {
        s[i].line = 2;
        tl_trie_insert(&t2, s, (size_t)i + 1, NULL);
        s[i].line = 1;
    }
    assert_int_equal(t2.nnodes, 2 * W);
    tl_buf_reset(&b);
    tl_page_trie(&b, &t2, "Wide", &strtab, false);
    size_t opens = 0, closes = 0, marks = 0;
    for (const char *p = b.buf; (p = strstr(p, "<ul>")); p++)
        opens++;
    for (const char *p = b.buf; (p = strstr(p, "</ul>")); p++)
        closes++;
    for (const char *p = b.buf; (p = strstr(p, "class='marker'")); p++)
        marks++;
    assert_int_equal(opens, 2 * W + 1);
    assert_int_equal(closes, 2 * W + 1);
    assert_int_equal(marks, 2 * W);
    tl_trie_release(&t2);
    free(s);
    tl_buf_release(&b);
    tl_trie_release(&t);
}

/* ---- frame text
 * ----------------------------------------------------------------------------------- */

static void expect_simplify(const char *in, const char *want)
{
    /* An exactly sized heap copy: the function works on views. */
    size_t n = strlen(in);
    char *c = malloc(n ? n : 1);
    assert_non_null(c);
    memcpy(c, in, n);
    struct tl_str r = tl_frame_simplify(tl_str_make(c, n));
    bool ok = r.n == strlen(want) && (r.n == 0 || memcmp(r.p, want, r.n) == 0);
    if (!ok)
        print_error("simplify(%s) = \"%.*s\", want \"%s\"\n", in, (int)r.n, r.p, want);
    free(c);
    assert_true(ok);
}

static void test_simplify(void **state)
{
    (void)state;
    expect_simplify("torch/_dynamo/eval_frame.py", "torch/_dynamo/eval_frame.py");
    expect_simplify("", "");
    /* #link-tree/ */
    expect_simplify("/data/users/me/fbsource/buck-out/v2/gen/fbcode/abc/x.par#link-tree/torch/"
                    "_dynamo/convert_frame.py",
                    "torch/_dynamo/convert_frame.py");
    expect_simplify("a#link-tree/b#link-tree/c", "b");
    expect_simplify("#link-tree/", "");
    expect_simplify("x#link-tree/", "");
    expect_simplify("#link-tree/#link-tree/", "");
    expect_simplify("#link-tree", "#link-tree");
    /* -seed-nspid */
    expect_simplify("/tmp/abc-seed-nspid4026531836_cgpid123-ns-4026531840/torch/x.py",
                    "torch/x.py");
    expect_simplify("a/x-seed-nspidY/b/c.py", "b/c.py");
    expect_simplify("x-seed-nspidY/", "");
    expect_simplify("-seed-nspidY/b.py", "-seed-nspidY/b.py");
    expect_simplify("/-seed-nspidY/b.py", "/-seed-nspidY/b.py");
    expect_simplify("x-seed-nspid/b.py", "x-seed-nspid/b.py");
    expect_simplify("x-seed-nspidY", "x-seed-nspidY");
    expect_simplify("a/x-seed-nspidY/z-seed-nspidW/c.py", "z-seed-nspidW/c.py");
    expect_simplify("/x-seed-nspid/y-seed-nspidZ/c.py", "c.py");
    expect_simplify("ab-seed-nspid-seed-nspidX/c.py", "c.py");
    expect_simplify("-seed-nspid", "-seed-nspid");
    /* link-tree wins over seed-nspid */
    expect_simplify("p-seed-nspidq/r#link-tree/s.py", "s.py");
}

static void expect_ewk(const char *in, const char *want)
{
    size_t n = strlen(in);
    char *c = malloc(n ? n : 1);
    assert_non_null(c);
    memcpy(c, in, n);
    struct tl_str k = TL_STR_NULL;
    bool found = tl_find_eval_with_key(tl_str_make(c, n), &k);
    bool ok = want ? found && tl_str_eq_cstr(k, want) : !found;
    if (!ok)
        print_error("eval_with_key(%s): found %d \"%.*s\", want %s\n", in, found,
                    found ? (int)k.n : 0, found ? k.p : "", want ? want : "(none)");
    free(c);
    assert_true(ok);
}

static void test_eval_with_key(void **state)
{
    (void)state;
    expect_ewk("<eval_with_key>.12", "12");
    expect_ewk("<eval_with_key>.0", "0");
    expect_ewk("x <eval_with_key>.5 y", "5");
    expect_ewk("<eval_with_key>.12a", "12");
    expect_ewk("<eval_with_key>.a <eval_with_key>.7", "7");
    expect_ewk("<eval_with_key>.<eval_with_key>.3", "3");
    expect_ewk("<eval_with_key>.", NULL);
    expect_ewk("<eval_with_key>.x", NULL);
    expect_ewk("<eval_with_key>", NULL);
    expect_ewk("<eval_with_key>5", NULL);
    expect_ewk("eval_with_key.5", NULL);
    expect_ewk("", NULL);
}

static void expect_frame(const struct tl_iframe *f, const char *want)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_page_frame(&b, f, &strtab);
    bool ok = b.len == strlen(want) && memcmp(b.buf, want, b.len) == 0;
    if (!ok)
        print_error("got  %s\nwant %s\n", b.buf, want);
    tl_buf_release(&b);
    assert_true(ok);
}

static void test_frame_render(void **state)
{
    (void)state;
    struct tl_iframe f = {0, 10, "f", "return x", NULL};
    expect_frame(&f, "a.py:10 in f" LOC "return x");
    /* Escaping: esc-text (quotes stay). */
    struct tl_iframe g = {2, -3, "<lambda>", "a < b && c > 'd' \"e\"", NULL};
    expect_frame(&g, "dir/c&lt;x&gt;.py:-3 in &lt;lambda&gt;" LOC
                     "a &lt; b &amp;&amp; c &gt; 'd' \"e\"");
    /* No loc: the break and spaces are still there. */
    struct tl_iframe h = {1, 0, "h", NULL, NULL};
    expect_frame(&h, "b.py:0 in h" LOC);
    /* Missing string-table id. */
    struct tl_iframe m = {77, 5, "f", NULL, NULL};
    expect_frame(&m, "(unknown):5 in f" LOC);
    struct tl_iframe m2 = {4000000000u, 5, "f", NULL, NULL};
    expect_frame(&m2, "(unknown):5 in f" LOC);
    /* uninterned_filename wins over the table and is simplified. */
    struct tl_iframe u = {0, 1, "f", NULL, "/x/y.par#link-tree/torch/z.py"};
    expect_frame(&u, "torch/z.py:1 in f" LOC);
    /* eval_with_key: a link to the dump_file page, no loc. */
    struct tl_iframe e = {0, 10, "forward", "ignored", "<eval_with_key>.3"};
    expect_frame(&e, "<a href='dump_file/eval_with_key_3.html#L10'>&lt;eval_with_key&gt;.3:10</a>"
                     " in forward");
    struct tl_iframe e2 = {0, 7, "<lambda>", NULL, "/p#link-tree/<eval_with_key>.42 extra"};
    expect_frame(&e2, "<a href='dump_file/eval_with_key_42.html#L7'>&lt;eval_with_key&gt;.42 "
                      "extra:7</a> in &lt;lambda&gt;");
}

static void test_eval_with_key_from_table(void **state)
{
    (void)state;
    tl_strtab_set(&strtab, 9, TL_STR_LIT("<eval_with_key>.8"));
    struct tl_iframe e = {9, 2, "forward", "x", NULL};
    expect_frame(&e, "<a href='dump_file/eval_with_key_8.html#L2'>&lt;eval_with_key&gt;.8:2</a>"
                     " in forward");
}

static void test_path_renderers(void **state)
{
    (void)state;
    struct tl_trie t;
    tl_trie_init(&t, &arena);
    struct tl_frame s1[] = {fr(0, 1, "f", "x()"), fr(1, 2, "g", NULL)};
    struct tl_frame s2[] = {fr(0, 1, "f", "x()"), fr(1, 3, "h", NULL)};
    struct tl_trie_node *n1 = tl_trie_insert(&t, s1, 2, NULL);
    tl_trie_insert(&t, s2, 2, NULL);
    struct tl_buf b = TL_BUF_INIT;
    /* Only the one path, flat, although the trie branches. */
    tl_page_trie_path(&b, n1, "P", &strtab);
    expect_buf(&b, HEAD("P") "<li>a.py:1 in f" LOC "x()</li>\n"
                             "<li>b.py:2 in g" LOC "</li>\n" TAIL);
    tl_buf_reset(&b);
    tl_page_trie_path(&b, &t.root, "R", &strtab);
    expect_buf(&b, HEAD("R") TAIL);

    struct tl_iframe fs[] = {{0, 1, "f", "x()", NULL}, {5, 2, "g", NULL, "u.py"}};
    tl_buf_reset(&b);
    tl_page_stack(&b, fs, 2, "S", &strtab);
    expect_buf(&b, HEAD("S") "<li>a.py:1 in f" LOC "x()</li>\n"
                             "<li>u.py:2 in g" LOC "</li>\n" TAIL);
    tl_buf_reset(&b);
    tl_page_stack(&b, fs, 0, "S", &strtab);
    expect_buf(&b, HEAD("S") TAIL);
    tl_buf_release(&b);
    tl_trie_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_insert_structure),
        cmocka_unit_test(test_frame_identity),
        cmocka_unit_test(test_intern),
        cmocka_unit_test(test_render_single_stack),
        cmocka_unit_test(test_render_empty),
        cmocka_unit_test(test_render_diverging),
        cmocka_unit_test(test_render_nested_divergence),
        cmocka_unit_test(test_render_terminals),
        cmocka_unit_test(test_unknown_run_length),
        cmocka_unit_test(test_deep_stack),
        cmocka_unit_test(test_simplify),
        cmocka_unit_test(test_eval_with_key),
        cmocka_unit_test(test_frame_render),
        cmocka_unit_test(test_eval_with_key_from_table),
        cmocka_unit_test(test_path_renderers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
