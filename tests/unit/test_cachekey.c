/* SPDX-License-Identifier: BSD-3-Clause */
/* Why a cache missed: key components, the nearest earlier entry, the differences in words. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/arena.h"
#include "base/json.h"
#include "model/cachekey.h"
#include "report/cache_miss.h"

#include <stdio.h>
#include <string.h>

#define T32                                                                                        \
    "TensorMetadata(dtype=torch.float32, shape=torch.Size([4, 4]), stride=(4, 1), "                \
    "device=device(type='cpu'), requires_grad=False)"
#define T64                                                                                        \
    "TensorMetadata(dtype=torch.float64, shape=torch.Size([4, 4]), stride=(4, 1), "                \
    "device=device(type='cpu'), requires_grad=False)"
#define T32T                                                                                       \
    "TensorMetadata(dtype=torch.float32, shape=torch.Size([4, 4]), stride=(1, 4), "                \
    "device=device(type='cpu'), requires_grad=False)"

static void comp(struct tl_cachekey *ck, struct tl_ck_entry *e, const char *line)
{
    tl_cachekey_component(ck, e, tl_str_cstr(line));
}

/* An FX graph entry: the same graph and config, input 0 as given. */
static struct tl_ck_entry *fx(struct tl_cachekey *ck, int state, const char *cid, const char *key,
                              const char *input_hash, const char *input)
{
    struct tl_ck_entry *e = tl_cachekey_entry(ck, TL_CK_FX_GRAPH, state, cid, key);
    char line[400];
    comp(ck, e, "[gmhash0000000] gm: GraphModule()\n\ndef forward(self, arg0_1):\n    pass");
    snprintf(line, sizeof(line), "[%s] example_inputs[0]: %s", input_hash, input);
    comp(ck, e, line);
    comp(ck, e, "[falsehash] fx_kwargs[is_backward]: False");
    comp(ck, e, "[falsehash] inductor_config[max_autotune]: False");
    return e;
}

static void test_component_parse(void **state)
{
    (void)state;
    struct tl_cachekey ck;
    tl_cachekey_init(&ck);
    struct tl_ck_entry *e = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_HIT, "[0/0]", "fkey");
    comp(&ck, e, "[abc] inductor_config[cuda.arch]: None");
    comp(&ck, e, "[def] cache_key_tag: ");
    comp(&ck, e, "[ghi] a: b: c");
    comp(&ck, e, "no brackets at all");
    assert_int_equal(e->ncomps, 4);
    assert_string_equal(e->comps[0].name, "inductor_config[cuda.arch]");
    assert_string_equal(e->comps[0].hash, "abc");
    assert_string_equal(e->comps[0].value, "None");
    /* "cache_key_tag: " with an empty value: the name keeps no colon */
    assert_string_equal(e->comps[1].name, "cache_key_tag");
    assert_string_equal(e->comps[1].value, "");
    /* the first ": " ends the name; the value keeps the rest */
    assert_string_equal(e->comps[2].name, "a");
    assert_string_equal(e->comps[2].value, "b: c");
    /* not PyTorch's form: the whole line names it, and is its own hash */
    assert_string_equal(e->comps[3].name, "no brackets at all");
    assert_string_equal(e->comps[3].hash, "no brackets at all");
    /* interned: the same text is the same pointer */
    struct tl_ck_entry *f = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_MISS, "[1/0]", "fkey");
    comp(&ck, f, "[abc] inductor_config[cuda.arch]: None");
    assert_ptr_equal(f->comps[0].hash, ck.entries[0].comps[0].hash);
    assert_ptr_equal(f->key, ck.entries[0].key);
    tl_cachekey_release(&ck);
}

static void test_nearest_by_fields(void **state)
{
    (void)state;
    struct tl_cachekey ck;
    tl_cachekey_init(&ck);
    /* [0/0] float32, [0/1] float64, [0/2] float32 transposed: [0/2] shares as many component
     * hashes with [0/1] as with [0/0] (all but input 0), but its input differs from [0/0]'s in
     * the stride only, from [0/1]'s in the dtype and stride: [0/0] is the nearest. */
    fx(&ck, TL_CK_MISS, "[0/0]", "fa", "h32", T32);
    fx(&ck, TL_CK_MISS, "[0/1]", "fb", "h64", T64);
    fx(&ck, TL_CK_MISS, "[0/2]", "fc", "h32t", T32T);
    tl_cachekey_finish(&ck);
    uint32_t shared, cost;
    tl_cachekey_distance(&ck.entries[2], &ck.entries[0], &shared, &cost);
    assert_int_equal(shared, 3);
    assert_int_equal(cost, 1);
    tl_cachekey_distance(&ck.entries[2], &ck.entries[1], &shared, &cost);
    assert_int_equal(shared, 3);
    assert_int_equal(cost, 2);
    assert_int_equal(ck.nmisses, 3);
    /* the first has nothing before it: a cold cache */
    assert_null(ck.misses[0].nearest);
    assert_null(ck.misses[0].note);
    assert_int_equal(ck.misses[0].ndiffs, 0);
    assert_string_equal(ck.misses[1].nearest->cid, "[0/0]");
    assert_int_equal(ck.misses[1].ndiffs, 1);
    assert_string_equal(ck.misses[1].diffs[0].component, "example_inputs[0]");
    assert_string_equal(ck.misses[1].diffs[0].words,
                        "input 0's dtype changed (torch.float32 -> torch.float64)");
    assert_string_equal(ck.misses[1].diffs[0].before, T32);
    assert_string_equal(ck.misses[1].diffs[0].after, T64);
    assert_false(ck.misses[1].new_graph);
    assert_string_equal(ck.misses[2].nearest->cid, "[0/0]");
    assert_int_equal(ck.misses[2].ndiffs, 1);
    assert_string_equal(ck.misses[2].diffs[0].words, "input 0's stride changed ((4, 1) -> (1, 4))");
    assert_string_equal(tl_cachekey_role(ck.misses[2].e), "forward");
    tl_cachekey_release(&ck);
}

static void test_config_and_hashes(void **state)
{
    (void)state;
    struct tl_cachekey ck;
    tl_cachekey_init(&ck);
    struct tl_ck_entry *a = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_HIT, "[0/0]", "k1");
    comp(&ck, a, "[aaaaaaaaaaaaaaaa] torch_version: <bytes>");
    comp(&ck, a, "[f] inductor_config[max_autotune]: False");
    comp(&ck, a, "[g] gm: x");
    comp(&ck, a, "[r] fx_kwargs[removed_one]: 1");
    /* a bypass is never stored: not a candidate */
    tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_BYPASS, "[1/0]", NULL)->reason = "why";
    /* another cache's entries are not candidates */
    struct tl_ck_entry *o = tl_cachekey_entry(&ck, TL_CK_AOTAUTOGRAD, TL_CK_MISS, "[0/0]", "ak");
    comp(&ck, o, "[bbbbbbbbbbbbbbbb] torch_version: <bytes>");
    comp(&ck, o, "[t] inductor_config[max_autotune]: True");
    comp(&ck, o, "[g] gm: x");
    struct tl_ck_entry *b = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_MISS, "[0/0]", "k2");
    comp(&ck, b, "[bbbbbbbbbbbbbbbb] torch_version: <bytes>");
    comp(&ck, b, "[t] inductor_config[max_autotune]: True");
    comp(&ck, b, "[g] gm: x");
    comp(&ck, b, "[n] system_info[version]: {'triton': '3.1.0'}");
    tl_cachekey_finish(&ck);
    assert_int_equal(ck.nmisses, 2);
    assert_int_equal(ck.nbypasses, 1);
    assert_null(ck.misses[0].nearest); /* the AOT miss: no AOT entry before it */
    const struct tl_ck_miss *m = &ck.misses[1];
    assert_ptr_equal(m->nearest, &ck.entries[0]);
    assert_int_equal(m->ndiffs, 4); /* by name: fx_kwargs, inductor_config, system_info, torch */
    assert_string_equal(m->diffs[0].words, "compile argument `removed_one` removed");
    assert_string_equal(m->diffs[0].before, "1");
    assert_null(m->diffs[0].after);
    assert_string_equal(m->diffs[1].words,
                        "inductor config `max_autotune` changed (False -> True)");
    assert_string_equal(m->diffs[2].words, "system info `version` added");
    /* a value that says nothing: its hashes, shortened */
    assert_string_equal(m->diffs[3].component, "torch_version");
    assert_string_equal(m->diffs[3].before, "aaaaaaaaaa");
    assert_string_equal(m->diffs[3].after, "bbbbbbbbbb");
    assert_string_equal(m->diffs[3].words, "PyTorch version differs (aaaaaaaaaa -> bbbbbbbbbb)");
    assert_false(m->new_graph);
    tl_cachekey_release(&ck);
}

static void test_notes(void **state)
{
    (void)state;
    struct tl_cachekey ck;
    tl_cachekey_init(&ck);
    /* PyTorch 2.13's AOT autograd entries: a key and no components */
    tl_cachekey_entry(&ck, TL_CK_AOTAUTOGRAD, TL_CK_MISS, "[0/0]", "ak");
    /* the same key missing again because its guards failed */
    struct tl_ck_entry *g = tl_cachekey_entry(&ck, TL_CK_AOTAUTOGRAD, TL_CK_MISS, "[0/1]", "ak");
    g->detail = "guard_miss";
    g->guard_expr = "Eq(s0, 4)";
    /* a different graph: gm differs */
    struct tl_ck_entry *a = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_MISS, "[1/0]", "f1");
    comp(&ck, a, "[g1] gm: one");
    comp(&ck, a, "[c] inductor_config[x]: 1");
    struct tl_ck_entry *b = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_MISS, "[2/0]", "f2");
    comp(&ck, b, "[g2] gm: two");
    comp(&ck, b, "[c] inductor_config[x]: 1");
    /* equal components, yet a miss: the entry was not stored */
    struct tl_ck_entry *c = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_MISS, "[3/0]", "f2");
    comp(&ck, c, "[g2] gm: two");
    comp(&ck, c, "[c] inductor_config[x]: 1");
    tl_cachekey_finish(&ck);
    assert_int_equal(ck.nmisses, 5);
    assert_null(ck.misses[0].nearest);
    assert_non_null(strstr(ck.misses[0].note, "DEBUG logging"));
    assert_string_equal(ck.misses[1].nearest->cid, "[0/0]");
    assert_string_equal(ck.misses[1].note, "an entry with the same key is stored, but its shape "
                                           "guards failed: Eq(s0, 4)");
    assert_true(ck.misses[3].new_graph);
    assert_string_equal(ck.misses[3].diffs[0].words, "the graph (gm) changed (g1 -> g2)");
    assert_string_equal(ck.misses[4].nearest->cid, "[2/0]");
    assert_int_equal(ck.misses[4].ndiffs, 0);
    assert_non_null(strstr(ck.misses[4].note, "not stored"));
    tl_cachekey_release(&ck);
}

static void test_same_role(void **state)
{
    (void)state;
    struct tl_cachekey ck;
    tl_cachekey_init(&ck);
    /* A backward graph's miss is not compared with a forward graph's entry. */
    fx(&ck, TL_CK_MISS, "[0/0]", "fa", "h32", T32);
    struct tl_ck_entry *b = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_MISS, "[0/0]", "fb");
    comp(&ck, b, "[gmhash0000000] gm: GraphModule()");
    comp(&ck, b, "[truehash] fx_kwargs[is_backward]: True");
    comp(&ck, b, "[falsehash] inductor_config[max_autotune]: False");
    tl_cachekey_finish(&ck);
    assert_int_equal(ck.nmisses, 2);
    assert_string_equal(ck.misses[1].role, "backward");
    assert_false(ck.misses[1].has_nearest);
    assert_null(ck.misses[1].note);
    tl_cachekey_release(&ck);
}

static void test_alike_values(void **state)
{
    (void)state;
    struct tl_cachekey ck;
    tl_cachekey_init(&ck);
    /* The hashes differ, the values print alike: the hashes say it. */
    struct tl_ck_entry *a = tl_cachekey_entry(&ck, TL_CK_AOTAUTOGRAD, TL_CK_HIT, "[0/0]", "a1");
    comp(&ck, a, "[d1d1d1d1d1d1d1] disable_amp: False");
    comp(&ck, a, "[t1] example_inputs[0]: " T32);
    struct tl_ck_entry *b = tl_cachekey_entry(&ck, TL_CK_AOTAUTOGRAD, TL_CK_MISS, "[0/1]", "a2");
    comp(&ck, b, "[d2d2d2d2d2d2d2] disable_amp: False");
    comp(&ck, b, "[t2] example_inputs[0]: " T32);
    tl_cachekey_finish(&ck);
    const struct tl_ck_miss *m = &ck.misses[0];
    assert_int_equal(m->ndiffs, 2);
    assert_string_equal(m->diffs[0].words, "`disable_amp` changed (d1d1d1d1d1 -> d2d2d2d2d2)");
    assert_string_equal(m->diffs[0].before, "d1d1d1d1d1");
    assert_string_equal(m->diffs[1].words, "input 0 changed (t1 -> t2)");
    tl_cachekey_release(&ck);
}

static void test_payload(void **state)
{
    (void)state;
    struct tl_arena a;
    tl_arena_init(&a, 4096);
    struct tl_cachekey ck;
    tl_cachekey_init(&ck);
    int cache, st;
    assert_true(tl_cachekey_artifact(tl_str_cstr("fx_graph_cache_bypass"), &cache, &st));
    assert_int_equal(cache, TL_CK_FX_GRAPH);
    assert_int_equal(st, TL_CK_BYPASS);
    assert_true(tl_cachekey_artifact(tl_str_cstr("aotautograd_cache_hash"), &cache, &st));
    assert_int_equal(st, -1);
    assert_false(tl_cachekey_artifact(tl_str_cstr("fx_graph_cache_hash"), &cache, &st));
    assert_false(tl_cachekey_artifact(tl_str_cstr("inductor_output_code"), &cache, &st));
    static const char *const payloads[][2] = {
        {"aotautograd_cache_hash",
         "{\"key\": \"a1\", \"cache_state\": \"miss\", \"components\": [\"[x] grad_enabled: "
         "True\", 7]}"},
        {"aotautograd_cache_hash", "{\"key\": null, \"cache_state\": \"bypass\", "
                                   "\"cache_bypass_reason\": \"<b>no</b>\", \"components\": []}"},
        {"aotautograd_cache_hash", "{\"cache_state\": \"weird\"}"},
        {"fx_graph_cache_miss", "[1, 2]"},
        {"aotautograd_cache_miss",
         "{\"key\": \"a2\", \"components\": [\"[y] grad_enabled: False\"]}"},
    };
    for (size_t i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
        struct tl_json v;
        assert_int_equal(tl_json_parse(&a, payloads[i][1], strlen(payloads[i][1]), &v, NULL), 0);
        tl_cachekey_add(&ck, tl_str_cstr(payloads[i][0]), "[0/0]", &v);
    }
    assert_int_equal(ck.nentries, 3); /* the unknown state and the list are skipped */
    assert_int_equal(ck.entries[0].state, TL_CK_MISS);
    assert_int_equal(ck.entries[0].ncomps, 1); /* the number is no component */
    assert_int_equal(ck.entries[1].state, TL_CK_BYPASS);
    assert_string_equal(ck.entries[1].reason, "<b>no</b>");
    assert_null(ck.entries[1].key);
    tl_cachekey_finish(&ck);
    assert_int_equal(ck.nmisses, 2);
    assert_ptr_equal(ck.misses[1].nearest, &ck.entries[0]);
    assert_string_equal(ck.misses[1].diffs[0].words, "`grad_enabled` changed (True -> False)");
    tl_cachekey_release(&ck);
    tl_arena_release(&a);
}

static void test_words(void **state)
{
    (void)state;
    struct tl_buf b = TL_BUF_INIT;
    tl_cachekey_words(&b, "system_info[version]", "{'triton': '3.0.0'}", "{'triton': '3.1.0'}");
    assert_string_equal(b.buf, "Triton version differs");
    tl_buf_reset(&b);
    tl_cachekey_words(&b, "example_inputs[2]", NULL, T32);
    assert_string_equal(b.buf, "input 2 added");
    tl_buf_reset(&b);
    tl_cachekey_words(&b, "example_inputs[1]", "('s0',)", "('s1',)");
    assert_string_equal(b.buf, "input 1 changed (('s0',) -> ('s1',))");
    tl_buf_reset(&b);
    /* two fields differ */
    tl_cachekey_words(&b, "example_inputs[0]", T64, T32T);
    assert_string_equal(b.buf, "input 0's dtype and stride changed (dtype torch.float64 -> "
                               "torch.float32; stride (4, 1) -> (1, 4))");
    tl_buf_reset(&b);
    /* cut short or odd metadata: no crash, no field read past its end */
    tl_cachekey_words(&b, "example_inputs[0]", "TensorMetadata(dtype=torch.fl", "TensorMetadata(");
    assert_string_equal(b.buf,
                        "input 0 changed (TensorMetadata(dtype=torch.fl -> TensorMetadata()");
    tl_buf_release(&b);
}

/* One log of one lookup: the graph, input 0, and max_autotune as given. */
static const struct tl_ck_digest *log_of(struct tl_cachekey *ck, struct tl_arena *arena, int state,
                                         const char *key, const char *autotune)
{
    tl_cachekey_init(ck);
    struct tl_ck_entry *e = tl_cachekey_entry(ck, TL_CK_FX_GRAPH, state, "[0/0]", key);
    char line[128];
    comp(ck, e, "[gmhash0000000] gm: GraphModule()\n\ndef forward(self, arg0_1):\n    pass");
    comp(ck, e, "[in0] example_inputs[0]: " T32);
    comp(ck, e, "[falsehash] fx_kwargs[is_backward]: False");
    snprintf(line, sizeof(line), "[%s] inductor_config[max_autotune]: %s", autotune, autotune);
    comp(ck, e, line);
    comp(ck, e, "[tv] torch_version: <bytes>");
    tl_cachekey_finish(ck);
    return tl_cachekey_digest(ck, arena);
}

static void test_digest(void **state)
{
    (void)state;
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    struct tl_cachekey ck;
    const struct tl_ck_digest *dg = log_of(&ck, &arena, TL_CK_MISS, "k0", "False");
    assert_non_null(dg);
    assert_int_equal(dg->nentries, 1);
    assert_int_equal(dg->dropped, 0);
    assert_int_equal(dg->ncomps, 5);
    /* by the text of their names; the graph's code and <bytes> kept by hash only */
    const char *names[5] = {"example_inputs[0]", "fx_kwargs[is_backward]", "gm",
                            "inductor_config[max_autotune]", "torch_version"};
    const char *values[5] = {T32, "False", "", "False", ""};
    for (int i = 0; i < 5; i++) {
        const struct tl_ck_comp *c = &dg->comps[dg->entries[0].comps[i]];
        assert_string_equal(c->name, names[i]);
        assert_string_equal(c->value, values[i]);
    }
    assert_string_equal(dg->entries[0].role, "forward");
    /* written as summary.json's cache.keys and read back: the same digest */
    struct tl_buf out = TL_BUF_INIT;
    struct tl_json_doc w;
    tl_json_doc_init(&w, &out, TL_JSON_DOC_PRETTY);
    tl_json_doc_object(&w);
    tl_cachemiss_json(&w, &ck);
    tl_json_doc_end(&w, '}');
    struct tl_json root;
    assert_int_equal(tl_json_parse(&arena, out.buf, out.len, &root, NULL), 0);
    const struct tl_ck_digest *back = tl_cachekey_digest_read(tl_json_get(&root, "keys"), &arena);
    assert_non_null(back);
    assert_int_equal(back->nentries, 1);
    assert_int_equal(back->ncomps, 5);
    assert_string_equal(back->entries[0].cid, "[0/0]");
    assert_string_equal(back->entries[0].key, "k0");
    assert_string_equal(back->entries[0].role, "forward");
    assert_int_equal(back->entries[0].state, TL_CK_MISS);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(back->entries[0].comps[i], dg->entries[0].comps[i]);
        assert_string_equal(back->comps[i].hash, dg->comps[i].hash);
    }
    tl_buf_release(&out);
    tl_cachekey_release(&ck);
    /* over the cap: the first TL_CK_DIGEST_MAX keys kept, the others counted */
    tl_cachekey_init(&ck);
    for (int i = 0; i < TL_CK_DIGEST_MAX + 6; i++) {
        char key[16], line[64];
        snprintf(key, sizeof(key), "k%d", i);
        struct tl_ck_entry *e = tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_MISS, "[0/0]", key);
        snprintf(line, sizeof(line), "[h%d] inductor_config[x]: %d", i, i);
        comp(&ck, e, line);
    }
    /* the same key and state again adds nothing; a bypass is never kept */
    comp(&ck, tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_MISS, "[1/0]", "k0"),
         "[h0] inductor_config[x]: 0");
    tl_cachekey_entry(&ck, TL_CK_FX_GRAPH, TL_CK_BYPASS, "[2/0]", NULL);
    tl_cachekey_finish(&ck);
    dg = tl_cachekey_digest(&ck, &arena);
    assert_int_equal(dg->nentries, TL_CK_DIGEST_MAX);
    assert_int_equal(dg->dropped, 6);
    tl_cachekey_release(&ck);
    /* what is not a digest reads as none, and bad members are skipped */
    static const char bad[] =
        "{\"keys\": {\"components\": [[\"a\", \"h\", \"v\"], 3], \"lookups\": "
        "[{\"cache\": \"fx_graph\", \"state\": \"miss\", \"components\": "
        "[0, 1, 7, -1, \"x\"]}, {\"cache\": \"other\", \"state\": \"hit\", "
        "\"components\": []}, 5]}}";
    assert_int_equal(tl_json_parse(&arena, bad, sizeof(bad) - 1, &root, NULL), 0);
    back = tl_cachekey_digest_read(tl_json_get(&root, "keys"), &arena);
    assert_int_equal(back->nentries, 1);
    assert_int_equal(back->entries[0].ncomps, 1);
    assert_null(back->entries[0].key);
    assert_null(tl_cachekey_digest_read(&root, &arena));
    tl_arena_release(&arena);
}

static void test_across_ranks(void **state)
{
    (void)state;
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    struct tl_cachekey c0, c1, c2;
    const struct tl_ck_digest *dg[3] = {log_of(&c0, &arena, TL_CK_MISS, "kA", "False"),
                                        log_of(&c1, &arena, TL_CK_MISS, "kB", "True"),
                                        log_of(&c2, &arena, TL_CK_MISS, "kA", "False")};
    const uint32_t ranks[3] = {0, 1, 2};
    struct tl_ck_across a;
    /* ranks 0 and 2 missed a cold cache with key A, rank 1 with key B: each key against the
     * other, the ranks that missed with it together */
    tl_cachekey_across(&a, dg, ranks, 3, TL_CK_ACROSS_ANY, &arena);
    assert_int_equal(a.nmisses, 2);
    assert_int_equal(a.misses[0].nlogs, 2);
    assert_int_equal(a.misses[0].origins[0], 0);
    assert_int_equal(a.misses[0].origins[1], 2);
    assert_int_equal(a.misses[0].against, 1);
    assert_int_equal(a.misses[1].nlogs, 1);
    assert_int_equal(a.misses[1].origins[0], 1);
    assert_int_equal(a.misses[1].against, 0);
    assert_int_equal(a.misses[1].against_state, TL_CK_MISS);
    assert_string_equal(a.misses[1].against_key, "kA");
    assert_int_equal(a.misses[1].ndiffs, 1);
    assert_string_equal(a.misses[1].diffs[0].words,
                        "inductor config `max_autotune` changed (False -> True)");
    struct tl_buf out = TL_BUF_INIT;
    tl_cachemiss_across_text(&out, &a, true, false);
    assert_string_equal(out.buf, "  Cache miss on ranks 0 [0/0], 2 [0/0] (FX graph, forward) "
                                 "against rank 1's [0/0] (stored): inductor config "
                                 "`max_autotune` changed (True -> False)\n"
                                 "  Cache miss on rank 1 [0/0] (FX graph, forward) against rank "
                                 "0's [0/0] (stored): inductor config `max_autotune` changed "
                                 "(False -> True)\n");
    tl_buf_reset(&out);
    tl_cachemiss_across_html(&out, &a, true);
    assert_non_null(strstr(out.buf, "<li>inductor config `max_autotune` changed (False -&gt; "
                                    "True)</li>"));
    tl_cachekey_release(&c0);
    tl_cachekey_release(&c2);
    /* rank 0 hit key A (a warm cache), rank 2 missed it: only rank 1's miss is a difference */
    dg[0] = log_of(&c0, &arena, TL_CK_HIT, "kA", "False");
    dg[2] = log_of(&c2, &arena, TL_CK_MISS, "kA", "False");
    tl_cachekey_across(&a, dg, ranks, 3, TL_CK_ACROSS_ANY, &arena);
    assert_int_equal(a.nmisses, 1);
    assert_int_equal(a.misses[0].origins[0], 1);
    assert_int_equal(a.misses[0].against_state, TL_CK_HIT);
    tl_buf_reset(&out);
    tl_cachemiss_across_text(&out, &a, true, false);
    assert_string_equal(out.buf, "  Cache miss on rank 1 [0/0] (FX graph, forward) against rank "
                                 "0's [0/0] (hit): inductor config `max_autotune` changed "
                                 "(False -> True)\n");
    /* rank 1 recompiled for a new stride: its own [0/0] is nearer than rank 0's entry (one
     * field apart, not two), so its log explains that miss; the two cold misses stay */
    {
        struct tl_cachekey r0, r1;
        tl_cachekey_init(&r0);
        tl_cachekey_init(&r1);
        fx(&r0, TL_CK_MISS, "[0/0]", "k64", "h64", T64);
        fx(&r1, TL_CK_MISS, "[0/0]", "k32", "h32", T32);
        fx(&r1, TL_CK_MISS, "[0/1]", "k32t", "h32t", T32T);
        tl_cachekey_finish(&r0);
        tl_cachekey_finish(&r1);
        const struct tl_ck_digest *two[2] = {tl_cachekey_digest(&r0, &arena),
                                             tl_cachekey_digest(&r1, &arena)};
        tl_cachekey_across(&a, two, ranks, 2, TL_CK_ACROSS_ANY, &arena);
        assert_int_equal(a.nmisses, 2);
        for (uint32_t k = 0; k < a.nmisses; k++)
            assert_string_equal(a.misses[k].cids[0], "[0/0]");
        tl_cachekey_release(&r0);
        tl_cachekey_release(&r1);
    }
    /* the two sides of a diff: only the after side's misses, against the before side */
    tl_cachekey_across(&a, dg, ranks, 2, TL_CK_ACROSS_FIRST, &arena);
    assert_int_equal(a.nmisses, 1);
    assert_int_equal(a.misses[0].origins[0], 1);
    tl_buf_reset(&out);
    tl_cachemiss_across_text(&out, &a, false, false);
    assert_string_equal(out.buf, "  Cache miss [0/0] (FX graph, forward) against the before "
                                 "side's [0/0] (hit): inductor config `max_autotune` changed "
                                 "(False -> True)\n");
    /* the after side with the before side's key: no difference to name */
    const struct tl_ck_digest *same[2] = {dg[0], dg[2]};
    tl_cachekey_across(&a, same, ranks, 2, TL_CK_ACROSS_FIRST, &arena);
    assert_int_equal(a.nmisses, 0);
    /* no digest on a side: nothing, nothing unexplained */
    const struct tl_ck_digest *none[2] = {NULL, dg[1]};
    tl_cachekey_across(&a, none, ranks, 2, TL_CK_ACROSS_FIRST, &arena);
    assert_int_equal(a.nmisses, 0);
    assert_int_equal(a.unexplained, 1);
    tl_buf_release(&out);
    tl_cachekey_release(&c0);
    tl_cachekey_release(&c1);
    tl_cachekey_release(&c2);
    /* a key per log, more than are compared: the first TL_CK_ACROSS_MAX, the rest counted */
    enum { N = TL_CK_ACROSS_MAX + 2 };
    const struct tl_ck_digest *many[N];
    uint32_t numbers[N];
    for (int i = 0; i < N; i++) {
        struct tl_cachekey ck;
        char key[16], value[16];
        snprintf(key, sizeof(key), "k%d", i);
        snprintf(value, sizeof(value), "v%d", i);
        many[i] = log_of(&ck, &arena, TL_CK_MISS, key, value);
        numbers[i] = (uint32_t)i;
        tl_cachekey_release(&ck); /* the digest lives in the arena */
    }
    tl_cachekey_across(&a, many, numbers, N, TL_CK_ACROSS_ANY, &arena);
    assert_int_equal(a.nmisses, TL_CK_ACROSS_MAX);
    assert_int_equal(a.uncompared, 2);
    assert_int_equal(a.misses[1].against, 0);
    assert_string_equal(a.misses[1].diffs[0].words,
                        "inductor config `max_autotune` changed (v0 -> v1)");
    tl_arena_release(&arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_component_parse),
        cmocka_unit_test(test_nearest_by_fields),
        cmocka_unit_test(test_config_and_hashes),
        cmocka_unit_test(test_notes),
        cmocka_unit_test(test_alike_values),
        cmocka_unit_test(test_payload),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_same_role),
        cmocka_unit_test(test_digest),
        cmocka_unit_test(test_across_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
