/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for directory.c (spec core.md §3.1, §5.4): keys in
 * first-appearance order, the unknown key, artifact lists, the cache suffix
 * and the exact compile_directory.json text (keys sorted bytewise,
 * readable_url null vs string, link names and URLs).
 */
#include "base/config.h"
#include "model/directory.h"
#include "base/arena.h"
#include "base/buf.h"
#include "report/pages.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* compile_directory.json into a buffer (report/directory_json.c, no flushing). */
static void write_json(struct tl_buf *b, const struct tl_directory *d)
{
    struct tl_page_sink sink = {b, NULL, NULL};
    assert_int_equal(tl_page_directory_json(&sink, d), 0);
}

static struct tl_compile_id cid(int ca, int frame, int fcid, int attempt)
{
    struct tl_compile_id id;
    memset(&id, 0, sizeof(id));
    if (ca >= 0)
        id.has |= TL_CID_CA, id.ca = (uint32_t)ca;
    if (frame >= 0)
        id.has |= TL_CID_FRAME, id.frame = (uint32_t)frame;
    if (fcid >= 0)
        id.has |= TL_CID_FCID, id.fcid = (uint32_t)fcid;
    if (attempt >= 0)
        id.has |= TL_CID_ATTEMPT, id.attempt = (uint32_t)attempt;
    return id;
}

static void expect_buf(const struct tl_buf *b, const char *want)
{
    if (b->len != strlen(want) || memcmp(b->buf, want, b->len) != 0) {
        print_error("got:\n%s\nwant:\n%s\n", b->buf, want);
        fail();
    }
}

static void test_keys_first_appearance(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 0);
    struct tl_directory d;
    tl_directory_init(&d, &a);
    struct tl_compile_id ids[] = {cid(-1, 2, 0, 0), cid(-1, 0, 0, 0), cid(-1, -1, -1, -1),
                                  cid(-1, 0, 0, 1), cid(3, -1, -1, -1)};
    struct tl_dirkey *k[5];
    for (int i = 0; i < 5; i++)
        k[i] = tl_directory_key(&d, &ids[i]);
    struct tl_dirkey *unk = tl_directory_key(&d, NULL);
    /* Again, in another order: the same entries, nothing new. */
    assert_ptr_equal(tl_directory_key(&d, NULL), unk);
    for (int i = 4; i >= 0; i--)
        assert_ptr_equal(tl_directory_key(&d, &ids[i]), k[i]);
    struct tl_compile_id copy = cid(-1, 0, 0, 0);
    assert_ptr_equal(tl_directory_key(&d, &copy), k[1]);
    /* No normalisation here: attempt missing is another key than 0. */
    struct tl_compile_id nomiss = cid(-1, 0, 0, -1);
    struct tl_dirkey *k6 = tl_directory_key(&d, &nomiss);
    assert_ptr_not_equal(k6, k[1]);

    static const char *const want[] = {"[2/0]",    "[0/0]",     "[-/-]", "[0/0_1]",
                                       "[!3/-/-]", "(unknown)", "[0/0]"};
    assert_int_equal(tl_map_len(&d.keys), 7);
    for (size_t i = 0; i < 7; i++) {
        const struct tl_dirkey *e = tl_map_at(&d.keys, i)->value;
        assert_string_equal(e->display, want[i]);
        assert_int_equal(e->unknown, i == 5);
        assert_null(e->first);
        assert_int_equal(e->n, 0);
    }
    assert_true(tl_cid_eq(&k[0]->id, &ids[0]));
    tl_directory_release(&d);
    tl_arena_release(&a);
}

static void test_add(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 0);
    struct tl_directory d;
    tl_directory_init(&d, &a);
    struct tl_compile_id id = cid(-1, 0, 0, 0);
    struct tl_dirkey *k = tl_directory_key(&d, &id);
    char url[64];
    strcpy(url, "-_0_0_0/x_cache_hit_0.json");
    struct tl_artifact *a1 = tl_directory_add(&d, k, url, url, 0, false);
    strcpy(url, "changed");
    assert_string_equal(a1->url, "-_0_0_0/x_cache_hit_0.json"); /* copied */
    assert_ptr_equal(a1->name, a1->url);
    assert_int_equal(a1->suffix, TL_SUFFIX_HIT);
    assert_null(a1->readable_url);
    struct tl_artifact *a2 = tl_directory_add(&d, k, "https://h/cache_miss", "my/link", 7, true);
    assert_string_equal(a2->name, "my/link");
    assert_int_equal(a2->suffix, TL_SUFFIX_NONE); /* links never get a suffix */
    assert_int_equal(a2->number, 7);
    /* Same text in a different buffer is shared too. */
    struct tl_artifact *a3 = tl_directory_add(&d, k, "p/q.txt", "p/q.txt", 8, false);
    assert_ptr_equal(a3->name, a3->url);
    assert_int_equal(k->n, 3);
    assert_ptr_equal(k->first, a1);
    assert_ptr_equal(a1->next, a2);
    assert_ptr_equal(a2->next, a3);
    assert_ptr_equal(k->last, a3);
    assert_null(a3->next);
    tl_directory_release(&d);
    tl_arena_release(&a);
}

static void test_cache_suffix(void **state)
{
    (void)state;
    assert_int_equal(tl_cache_suffix_of(""), TL_SUFFIX_NONE);
    assert_int_equal(tl_cache_suffix_of("-_0_0_0/dynamo_output_graph_0.txt"), TL_SUFFIX_NONE);
    assert_int_equal(tl_cache_suffix_of("-_0_0_0/fx_graph_cache_miss_5.json"), TL_SUFFIX_MISS);
    assert_int_equal(tl_cache_suffix_of("-_0_0_0/fx_graph_cache_hit_5.json"), TL_SUFFIX_HIT);
    assert_int_equal(tl_cache_suffix_of("-_0_0_0/fx_graph_cache_bypass_5.json"), TL_SUFFIX_BYPASS);
    /* Anywhere in the path, folders included; priority miss > hit > bypass. */
    assert_int_equal(tl_cache_suffix_of("cache_hit/cache_miss"), TL_SUFFIX_MISS);
    assert_int_equal(tl_cache_suffix_of("cache_bypass_cache_hit"), TL_SUFFIX_HIT);
    assert_int_equal(tl_cache_suffix_of("cache_bypass/cache_miss/cache_hit"), TL_SUFFIX_MISS);
    /* Case-sensitive, exact substrings. */
    assert_int_equal(tl_cache_suffix_of("CACHE_MISS"), TL_SUFFIX_NONE);
    assert_int_equal(tl_cache_suffix_of("cache-miss"), TL_SUFFIX_NONE);
    assert_int_equal(tl_cache_suffix_of("cache_mis"), TL_SUFFIX_NONE);

    assert_string_equal(tl_cache_suffix_text(TL_SUFFIX_NONE), "");
    assert_string_equal(tl_cache_suffix_text(TL_SUFFIX_MISS), "\xE2\x9D\x8C");
    assert_string_equal(tl_cache_suffix_text(TL_SUFFIX_HIT), "\xE2\x9C\x85");
    assert_string_equal(tl_cache_suffix_text(TL_SUFFIX_BYPASS), "\xE2\x9D\x93");
    assert_string_equal(tl_cache_suffix_text(99), "");
}

static void test_json_empty(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 0);
    struct tl_directory d;
    tl_directory_init(&d, &a);
    struct tl_buf b = TL_BUF_INIT;
    write_json(&b, &d);
    expect_buf(&b, "{}");
    /* One key with no artifacts (simple.log's "[-/-]"). */
    struct tl_compile_id none = cid(-1, -1, -1, -1);
    tl_directory_key(&d, &none);
    tl_buf_reset(&b);
    write_json(&b, &d);
    expect_buf(&b, "{\n"
                   "  \"[-/-]\": {\n"
                   "    \"artifacts\": []\n"
                   "  }\n"
                   "}");
    tl_buf_release(&b);
    tl_directory_release(&d);
    tl_arena_release(&a);
}

static void test_json_small_directory(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 0);
    struct tl_directory d;
    tl_directory_init(&d, &a);
    /* Keys created in an order unrelated to the sorted one. */
    struct tl_compile_id c2 = cid(-1, 2, 0, 0), c10 = cid(-1, 10, 0, 0), c1 = cid(-1, 1, 0, 0);
    struct tl_compile_id c00 = cid(-1, 0, 0, 0), c001 = cid(-1, 0, 0, 1);
    struct tl_compile_id cnone = cid(-1, -1, -1, -1), cca = cid(1, 0, 0, 0);
    struct tl_dirkey *k2 = tl_directory_key(&d, &c2);
    struct tl_dirkey *ku = tl_directory_key(&d, NULL);
    struct tl_dirkey *k10 = tl_directory_key(&d, &c10);
    struct tl_dirkey *k00 = tl_directory_key(&d, &c00);
    tl_directory_key(&d, &c1);
    tl_directory_key(&d, &cnone);
    struct tl_dirkey *k001 = tl_directory_key(&d, &c001);
    tl_directory_key(&d, &cca);

    tl_directory_add(&d, k00, "-_0_0_0/dynamo_output_graph_0.txt",
                     "-_0_0_0/dynamo_output_graph_0.txt", 0, false);
    struct tl_artifact *miss = tl_directory_add(&d, k00, "-_0_0_0/fx_graph_cache_miss_1.json",
                                                "-_0_0_0/fx_graph_cache_miss_1.json", 1, false);
    miss->readable_url = "-_0_0_0/fx_graph_cache_miss_1_readable.html";
    tl_directory_add(&d, k00, "https://example.com/a/b?x=\"1\"&cache_hit", "Some \"link\"/x\\y", 2,
                     true);
    tl_directory_add(&d, k001, "-_0_0_1/artifact/sub/fx_graph_cache_hit_3.json",
                     "-_0_0_1/artifact/sub/fx_graph_cache_hit_3.json", 3, false);
    struct tl_artifact *by = tl_directory_add(&d, k2, "-_2_0_0/x_cache_bypass_4.txt",
                                              "-_2_0_0/x_cache_bypass_4.txt", 4, false);
    by->readable_url = ""; /* a readable page that failed */
    tl_directory_add(&d, ku, "unknown_17/caf\xC3\xA9\t.txt", "unknown_17/caf\xC3\xA9\t.txt", 5,
                     false);
    tl_directory_add(&d, k10, "noslash", "noslash", 4294967295u, false);

    struct tl_buf b = TL_BUF_INIT;
    write_json(&b, &d);
    expect_buf(&b, "{\n"
                   "  \"[!1/0/0]\": {\n"
                   "    \"artifacts\": []\n"
                   "  },\n"
                   "  \"[-/-]\": {\n"
                   "    \"artifacts\": []\n"
                   "  },\n"
                   "  \"[0/0]\": {\n"
                   "    \"artifacts\": [\n"
                   "      {\n"
                   "        \"name\": \"dynamo_output_graph_0.txt\",\n"
                   "        \"number\": 0,\n"
                   "        \"readable_url\": null,\n"
                   "        \"suffix\": \"\",\n"
                   "        \"url\": \"-_0_0_0/dynamo_output_graph_0.txt\"\n"
                   "      },\n"
                   "      {\n"
                   "        \"name\": \"fx_graph_cache_miss_1.json\",\n"
                   "        \"number\": 1,\n"
                   "        \"readable_url\": \"-_0_0_0/fx_graph_cache_miss_1_readable.html\",\n"
                   "        \"suffix\": \"\xE2\x9D\x8C\",\n"
                   "        \"url\": \"-_0_0_0/fx_graph_cache_miss_1.json\"\n"
                   "      },\n"
                   "      {\n"
                   "        \"name\": \"x\\\\y\",\n"
                   "        \"number\": 2,\n"
                   "        \"readable_url\": null,\n"
                   "        \"suffix\": \"\",\n"
                   "        \"url\": \"https://example.com/a/b?x=\\\"1\\\"&cache_hit\"\n"
                   "      }\n"
                   "    ]\n"
                   "  },\n"
                   "  \"[0/0_1]\": {\n"
                   "    \"artifacts\": [\n"
                   "      {\n"
                   "        \"name\": \"fx_graph_cache_hit_3.json\",\n"
                   "        \"number\": 3,\n"
                   "        \"readable_url\": null,\n"
                   "        \"suffix\": \"\xE2\x9C\x85\",\n"
                   "        \"url\": \"-_0_0_1/artifact/sub/fx_graph_cache_hit_3.json\"\n"
                   "      }\n"
                   "    ]\n"
                   "  },\n"
                   "  \"[1/0]\": {\n"
                   "    \"artifacts\": []\n"
                   "  },\n"
                   "  \"[10/0]\": {\n"
                   "    \"artifacts\": [\n"
                   "      {\n"
                   "        \"name\": \"noslash\",\n"
                   "        \"number\": 4294967295,\n"
                   "        \"readable_url\": null,\n"
                   "        \"suffix\": \"\",\n"
                   "        \"url\": \"noslash\"\n"
                   "      }\n"
                   "    ]\n"
                   "  },\n"
                   "  \"[2/0]\": {\n"
                   "    \"artifacts\": [\n"
                   "      {\n"
                   "        \"name\": \"x_cache_bypass_4.txt\",\n"
                   "        \"number\": 4,\n"
                   "        \"readable_url\": \"\",\n"
                   "        \"suffix\": \"\xE2\x9D\x93\",\n"
                   "        \"url\": \"-_2_0_0/x_cache_bypass_4.txt\"\n"
                   "      }\n"
                   "    ]\n"
                   "  },\n"
                   "  \"unknown\": {\n"
                   "    \"artifacts\": [\n"
                   "      {\n"
                   "        \"name\": \"caf\xC3\xA9\\t.txt\",\n"
                   "        \"number\": 5,\n"
                   "        \"readable_url\": null,\n"
                   "        \"suffix\": \"\",\n"
                   "        \"url\": \"unknown_17/caf\xC3\xA9\\t.txt\"\n"
                   "      }\n"
                   "    ]\n"
                   "  }\n"
                   "}");
    /* Writing does not reorder the keys themselves. */
    const struct tl_dirkey *first = tl_map_at(&d.keys, 0)->value;
    assert_string_equal(first->display, "[2/0]");
    tl_buf_release(&b);
    tl_directory_release(&d);
    tl_arena_release(&a);
}

static void test_json_only_unknown(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 0);
    struct tl_directory d;
    tl_directory_init(&d, &a);
    struct tl_dirkey *k = tl_directory_key(&d, NULL);
    tl_directory_add(&d, k, "a/", "a/", 0, false); /* name after the last '/' is empty */
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_adds(&b, "X");
    write_json(&b, &d);
    expect_buf(&b, "X{\n"
                   "  \"unknown\": {\n"
                   "    \"artifacts\": [\n"
                   "      {\n"
                   "        \"name\": \"\",\n"
                   "        \"number\": 0,\n"
                   "        \"readable_url\": null,\n"
                   "        \"suffix\": \"\",\n"
                   "        \"url\": \"a/\"\n"
                   "      }\n"
                   "    ]\n"
                   "  }\n"
                   "}");
    tl_buf_release(&b);
    tl_directory_release(&d);
    tl_arena_release(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_first_appearance), cmocka_unit_test(test_add),
        cmocka_unit_test(test_cache_suffix),          cmocka_unit_test(test_json_empty),
        cmocka_unit_test(test_json_small_directory),  cmocka_unit_test(test_json_only_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
