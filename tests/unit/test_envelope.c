/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for envelope.c (spec core.md §1.3-1.5, §2): every known key with
 * a wrong type, missing required fields, duplicates, null as absent, unknown
 * keys, the compile-id group and its quirks, number ranges, the `str` pair,
 * describe_tensor's symints, frame decoding and the typed member readers.
 * Each JSON text is parsed with tl_json_parse into a scratch arena first.
 */
#include "base/config.h"
#include "input/envelope.h"
#include "base/arena.h"
#include "base/json.h"
#include "base/buf.h"
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

static struct tl_arena arena;
static struct tl_json root;
static char msg[256];

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

/* Parse text (which must be valid JSON and outlive the result) and decode it. */
static int decode(const char *text, struct tl_envelope *env)
{
    struct tl_json_error jerr = {0, NULL};
    if (tl_json_parse(&arena, text, strlen(text), &root, &jerr) != 0)
        fail_msg("test input is not JSON: %s (%s at %zu)", text, jerr.msg, jerr.offset);
    strcpy(msg, "(untouched)");
    return tl_envelope_decode(&root, env, &arena, msg, sizeof(msg));
}

static void expect_ok(const char *text, struct tl_envelope *env)
{
    int rc = decode(text, env);
    if (rc != 0)
        fail_msg("decode of %s failed: %s", text, msg);
}

static void expect_fail(const char *text, const char *want)
{
    struct tl_envelope env;
    int rc = decode(text, &env);
    if (rc != -1)
        fail_msg("decode of %s succeeded, want failure \"%s\"", text, want);
    if (strcmp(msg, want) != 0)
        fail_msg("decode of %s: message \"%s\", want \"%s\"", text, msg, want);
}

static void expect_unknown(const struct tl_envelope *env, const char *const *names, size_t n)
{
    if (env->n_unknown != n)
        fail_msg("%zu unknown keys, want %zu", env->n_unknown, n);
    for (size_t i = 0; i < n; i++) {
        if (!tl_str_eq_cstr(env->unknown[i], names[i]))
            fail_msg("unknown[%zu] = \"%.*s\", want \"%s\"", i, (int)env->unknown[i].n,
                     env->unknown[i].p, names[i]);
    }
}

/* ---- key names -------------------------------------------------------------------------- */

static void test_key_names(void **state)
{
    (void)state;
    assert_string_equal(tl_key_name(TL_K_RANK), "rank");
    assert_string_equal(tl_key_name(TL_K_HAS_PAYLOAD), "has_payload");
    assert_string_equal(tl_key_name(TL_K_DESCRIBE_TENSOR), "describe_tensor");
    assert_string_equal(tl_key_name(TL_K_AOT_AUTOGRAD_BACKWARD_COMPILATION_METRICS),
                        "aot_autograd_backward_compilation_metrics");
    assert_string_equal(tl_key_name(TL_K_COMPILATION_METRICS_RUNTIME),
                        "compilation_metrics_runtime");
    assert_string_equal(tl_key_name(TL_K_BWD_COMPILATION_METRICS_RUNTIME),
                        "bwd_compilation_metrics_runtime");
    assert_string_equal(tl_key_name(TL_K_SUBGRAPH_NAME), "subgraph_name");
    assert_string_equal(tl_key_name(TL_K__COUNT), "?");
    assert_int_equal(TL_K__COUNT, 42);
}

/* ---- known keys, types -------------------------------------------------------------------- */

struct bad_case {
    const char *json;
    const char *msg;
};

static void run_cases(const struct bad_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        expect_fail(cases[i].json, cases[i].msg);
}

#define OBJ_FAIL(key)                                                                              \
    {                                                                                              \
        "{\"" key "\": \"x\"}", "invalid type for \"" key "\": expected an object"                 \
    }

static void test_top_level_wrong_types(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"{\"rank\": \"0\"}", "invalid type for \"rank\": expected u32"},
        {"{\"rank\": -1}", "invalid type for \"rank\": expected u32"},
        {"{\"rank\": 4294967296}", "invalid type for \"rank\": expected u32"},
        {"{\"rank\": 1.0}", "invalid type for \"rank\": expected u32"},
        {"{\"rank\": true}", "invalid type for \"rank\": expected u32"},
        {"{\"has_payload\": 1}", "invalid type for \"has_payload\": expected a string"},
        {"{\"has_payload\": false}", "invalid type for \"has_payload\": expected a string"},
        {"{\"stack\": {}}", "invalid type for \"stack\": expected a list of stack frames"},
        {"{\"stack\": \"s\"}", "invalid type for \"stack\": expected a list of stack frames"},
        {"{\"str\": \"s\"}", "invalid type for \"str\": expected a [string, u32] pair"},
        {"{\"dynamo_start\": 1}", "invalid type for \"dynamo_start\": expected an object"},
        OBJ_FAIL("dynamo_output_graph"),
        OBJ_FAIL("optimize_ddp_split_graph"),
        OBJ_FAIL("compiled_autograd_graph"),
        OBJ_FAIL("dynamo_guards"),
        OBJ_FAIL("aot_forward_graph"),
        OBJ_FAIL("aot_backward_graph"),
        OBJ_FAIL("aot_inference_graph"),
        OBJ_FAIL("aot_joint_graph"),
        OBJ_FAIL("inductor_pre_grad_graph"),
        OBJ_FAIL("inductor_post_grad_graph"),
        OBJ_FAIL("dynamo_cpp_guards_str"),
        OBJ_FAIL("chromium_event"),
        OBJ_FAIL("exported_program"),
        OBJ_FAIL("optimize_ddp_split_child"),
        OBJ_FAIL("inductor_output_code"),
        OBJ_FAIL("graph_dump"),
        OBJ_FAIL("link"),
        OBJ_FAIL("artifact"),
        OBJ_FAIL("dump_file"),
        OBJ_FAIL("compilation_metrics"),
        OBJ_FAIL("bwd_compilation_metrics"),
        OBJ_FAIL("aot_autograd_backward_compilation_metrics"),
        OBJ_FAIL("symbolic_shape_specialization"),
        OBJ_FAIL("guard_added_fast"),
        OBJ_FAIL("guard_added"),
        OBJ_FAIL("propagate_real_tensors_provenance"),
        OBJ_FAIL("create_unbacked_symbol"),
        OBJ_FAIL("expression_created"),
        OBJ_FAIL("missing_fake_kernel"),
        OBJ_FAIL("mismatched_fake_kernel"),
        OBJ_FAIL("describe_storage"),
        OBJ_FAIL("describe_source"),
        OBJ_FAIL("describe_tensor"),
        {"{\"dynamo_output_graph\": 3}",
         "invalid type for \"dynamo_output_graph\": expected an object"},
        {"{\"chromium_event\": true}", "invalid type for \"chromium_event\": expected an object"},
    };
    run_cases(cases, TL_ARRAY_LEN(cases));
}

static void test_member_wrong_types(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"{\"compilation_metrics\": {\"graph_op_count\": \"x\"}}",
         "invalid type for \"graph_op_count\": expected u64"},
        {"{\"compilation_metrics\": {\"graph_op_count\": -1}}",
         "invalid type for \"graph_op_count\": expected u64"},
        {"{\"compilation_metrics\": {\"cache_size\": 1.5}}",
         "invalid type for \"cache_size\": expected u64"},
        {"{\"compilation_metrics\": {\"co_firstlineno\": 2147483648}}",
         "invalid type for \"co_firstlineno\": expected i32"},
        {"{\"compilation_metrics\": {\"co_firstlineno\": -2147483649}}",
         "invalid type for \"co_firstlineno\": expected i32"},
        {"{\"compilation_metrics\": {\"co_firstlineno\": -0}}",
         "invalid type for \"co_firstlineno\": expected i32"},
        {"{\"compilation_metrics\": {\"co_name\": 1}}",
         "invalid type for \"co_name\": expected a string"},
        {"{\"compilation_metrics\": {\"start_time\": \"1\"}}",
         "invalid type for \"start_time\": expected a number"},
        {"{\"compilation_metrics\": {\"fail_user_frame_lineno\": -3}}",
         "invalid type for \"fail_user_frame_lineno\": expected u32"},
        {"{\"compilation_metrics\": {\"restart_reasons\": \"r\"}}",
         "invalid type for \"restart_reasons\": expected a list of strings"},
        {"{\"compilation_metrics\": {\"restart_reasons\": [\"a\", 1]}}",
         "invalid type for \"restart_reasons\": expected a string"},
        {"{\"compilation_metrics\": {\"non_compliant_ops\": [null]}}",
         "invalid type for \"non_compliant_ops\": expected a string"},
        {"{\"bwd_compilation_metrics\": {\"code_gen_time_s\": [1]}}",
         "invalid type for \"code_gen_time_s\": expected a number"},
        {"{\"aot_autograd_backward_compilation_metrics\": {\"elapsed_time\": {}}}",
         "invalid type for \"elapsed_time\": expected a number"},
        {"{\"inductor_output_code\": {\"filename\": 7}}",
         "invalid type for \"filename\": expected a string"},
        {"{\"dynamo_start\": {\"stack\": {}}}",
         "invalid type for \"stack\": expected a list of stack frames"},
        {"{\"dynamo_start\": {\"stack\": [1]}}", "invalid type for \"stack\": expected an object"},
        {"{\"stack\": [{\"filename\": -1, \"line\": 1, \"name\": \"f\"}]}",
         "invalid type for \"filename\": expected u32"},
        {"{\"stack\": [{\"filename\": 1, \"line\": 2147483648, \"name\": \"f\"}]}",
         "invalid type for \"line\": expected i32"},
        {"{\"stack\": [{\"filename\": 1, \"line\": 1, \"name\": 5}]}",
         "invalid type for \"name\": expected a string"},
        {"{\"stack\": [{\"filename\": 1, \"line\": 1, \"name\": \"f\", \"loc\": 1}]}",
         "invalid type for \"loc\": expected a string"},
        {"{\"stack\": [{\"filename\": 1, \"line\": 1, \"name\": \"f\", "
         "\"uninterned_filename\": []}]}",
         "invalid type for \"uninterned_filename\": expected a string"},
        {"{\"symbolic_shape_specialization\": {\"sources\": [1]}}",
         "invalid type for \"sources\": expected a string"},
        {"{\"symbolic_shape_specialization\": {\"user_stack\": 1}}",
         "invalid type for \"user_stack\": expected a list of stack frames"},
        {"{\"guard_added_fast\": {\"expr\": null, \"stack\": [{}]}}",
         "missing field \"filename\" in \"stack\""},
        {"{\"guard_added\": {\"expr_node_id\": -5}}",
         "invalid type for \"expr_node_id\": expected u64"},
        {"{\"guard_added\": {\"symbol_to_sources\": {\"s0\": null}}}",
         "invalid type for \"symbol_to_sources\": expected a map of strings"},
        {"{\"guard_added\": {\"symbol_to_sources\": []}}",
         "invalid type for \"symbol_to_sources\": expected a map of strings"},
        {"{\"guard_added\": {\"frame_locals\": {\"locals\": {\"x\": 1}}}}",
         "invalid type for \"locals\": expected a map of strings or nulls"},
        {"{\"guard_added\": {\"frame_locals\": []}}",
         "invalid type for \"frame_locals\": expected an object"},
        {"{\"propagate_real_tensors_provenance\": {\"prefix\": 0}}",
         "invalid type for \"prefix\": expected a string"},
        {"{\"create_unbacked_symbol\": {\"node_id\": \"n\"}}",
         "invalid type for \"node_id\": expected u64"},
        {"{\"expression_created\": {\"argument_ids\": [1, -1]}}",
         "invalid type for \"argument_ids\": expected u64"},
        {"{\"expression_created\": {\"argument_ids\": 1}}",
         "invalid type for \"argument_ids\": expected a list of u64"},
        {"{\"missing_fake_kernel\": {\"op\": 1}}", "invalid type for \"op\": expected a string"},
        {"{\"mismatched_fake_kernel\": {\"reason\": false}}",
         "invalid type for \"reason\": expected a string"},
        {"{\"describe_storage\": {\"id\": 1, \"describer_id\": 2, \"size\": -4}}",
         "invalid type for \"size\": expected u64"},
        {"{\"describe_source\": {\"describer_id\": 1, \"id\": 2, \"source\": 3}}",
         "invalid type for \"source\": expected a string"},
        {"{\"link\": {\"name\": \"n\", \"url\": 1}}",
         "invalid type for \"url\": expected a string"},
        {"{\"artifact\": {\"name\": \"n\", \"encoding\": null}}",
         "invalid type for \"encoding\": expected a string"},
    };
    run_cases(cases, TL_ARRAY_LEN(cases));
}

static void test_missing_required(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"{\"link\": {\"url\": \"u\"}}", "missing field \"name\" in \"link\""},
        {"{\"link\": {\"name\": \"n\"}}", "missing field \"url\" in \"link\""},
        {"{\"link\": {}}", "missing field \"name\" in \"link\""},
        {"{\"artifact\": {\"name\": \"n\"}}", "missing field \"encoding\" in \"artifact\""},
        {"{\"graph_dump\": {}}", "missing field \"name\" in \"graph_dump\""},
        {"{\"dump_file\": {\"nam\": \"x\"}}", "missing field \"name\" in \"dump_file\""},
        {"{\"optimize_ddp_split_child\": {}}",
         "missing field \"name\" in \"optimize_ddp_split_child\""},
        {"{\"describe_storage\": {\"id\": 1, \"describer_id\": 2}}",
         "missing field \"size\" in \"describe_storage\""},
        {"{\"describe_source\": {\"describer_id\": 1, \"id\": 2}}",
         "missing field \"source\" in \"describe_source\""},
        {"{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 1, \"dtype\": \"f\", "
         "\"size\": [1]}}",
         "missing field \"device\" in \"describe_tensor\""},
        {"{\"stack\": [{\"filename\": 1, \"line\": 2}]}", "missing field \"name\" in \"stack\""},
        {"{\"stack\": [{\"filename\": 1, \"name\": \"f\"}]}",
         "missing field \"line\" in \"stack\""},
        /* A null required member is a type error, not a missing one. */
        {"{\"link\": {\"name\": null, \"url\": \"u\"}}",
         "invalid type for \"name\": expected a string"},
    };
    run_cases(cases, TL_ARRAY_LEN(cases));
}

static void test_duplicates(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"{\"rank\": 0, \"rank\": 1}", "duplicate field \"rank\""},
        {"{\"rank\": 0, \"x\": 1, \"rank\": 0}", "duplicate field \"rank\""},
        /* null still counts as the first occurrence */
        {"{\"rank\": null, \"rank\": 1}", "duplicate field \"rank\""},
        {"{\"rank\": 1, \"rank\": null}", "duplicate field \"rank\""},
        {"{\"dynamo_output_graph\": {}, \"dynamo_output_graph\": {}}",
         "duplicate field \"dynamo_output_graph\""},
        {"{\"link\": {\"name\": \"a\", \"name\": \"b\", \"url\": \"u\"}}",
         "duplicate field \"name\" in \"link\""},
        /* A key spelled with an escape is the same key. */
        {"{\"rank\": 0, \"r\\u0061nk\": 0}", "duplicate field \"rank\""},
    };
    run_cases(cases, TL_ARRAY_LEN(cases));
    /* Duplicate unknown members of a record are fine. */
    struct tl_envelope env;
    expect_ok("{\"link\": {\"name\": \"a\", \"url\": \"u\", \"z\": 1, \"z\": 2}}", &env);
    expect_ok("{\"dynamo_guards\": {\"a\": 1, \"a\": 2}}", &env);
}

static void test_not_an_object(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"[]", "the envelope is not a JSON object"},
        {"[{\"rank\": 0}]", "the envelope is not a JSON object"},
        {"\"rank\"", "the envelope is not a JSON object"},
        {"1", "the envelope is not a JSON object"},
        {"null", "the envelope is not a JSON object"},
    };
    run_cases(cases, TL_ARRAY_LEN(cases));
}

static void test_escaped_key_is_known(void **state)
{
    (void)state;
    expect_fail("{\"r\\u0061nk\": \"0\"}", "invalid type for \"rank\": expected u32");
    struct tl_envelope env;
    expect_ok("{\"r\\u0061nk\": 3}", &env);
    assert_non_null(env.key[TL_K_RANK]);
    assert_int_equal(env.key[TL_K_RANK]->u.num.u, 3);
    assert_int_equal(env.n_unknown, 0);
    /* Key names are case-sensitive. */
    expect_ok("{\"Rank\": \"x\"}", &env);
    assert_null(env.key[TL_K_RANK]);
    static const char *const u[] = {"Rank"};
    expect_unknown(&env, u, 1);
}

static void test_message_truncation(void **state)
{
    (void)state;
    static const char text[] = "{\"compilation_metrics\": {\"graph_op_count\": \"x\"}}";
    struct tl_json_error jerr;
    assert_int_equal(tl_json_parse(&arena, text, strlen(text), &root, &jerr), 0);
    char small[9];
    memset(small, 'Z', sizeof(small));
    struct tl_envelope env;
    assert_int_equal(tl_envelope_decode(&root, &env, &arena, small, 8), -1);
    assert_string_equal(small, "invalid");
    assert_int_equal(small[8], 'Z');
}

/* ---- values that decode ------------------------------------------------------------------------
 */

static void test_valid_envelope(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"rank\": 4294967295, \"has_payload\": \"abc\", \"dynamo_output_graph\": "
              "{\"sizes\": {\"l_x_\": [1, 2]}}, \"frame_id\": 0, \"frame_compile_id\": 0, "
              "\"attempt\": 0}",
              &env);
    assert_non_null(env.key[TL_K_RANK]);
    assert_true(env.key[TL_K_RANK]->u.num.u == UINT32_MAX);
    assert_non_null(env.key[TL_K_HAS_PAYLOAD]);
    assert_true(tl_str_eq_cstr(env.key[TL_K_HAS_PAYLOAD]->u.str, "abc"));
    assert_non_null(env.key[TL_K_DYNAMO_OUTPUT_GRAPH]);
    assert_int_equal(env.key[TL_K_DYNAMO_OUTPUT_GRAPH]->type, TL_JSON_OBJECT);
    for (int k = 0; k < TL_K__COUNT; k++)
        if (k != TL_K_RANK && k != TL_K_HAS_PAYLOAD && k != TL_K_DYNAMO_OUTPUT_GRAPH)
            assert_null(env.key[k]);
    assert_true(env.cid_ok);
    assert_int_equal(env.cid.has, TL_CID_FRAME | TL_CID_FCID | TL_CID_ATTEMPT);
    assert_int_equal(env.n_unknown, 0);
    assert_null(env.unknown);

    /* A full compilation_metrics with every type, plus unknown members. */
    expect_ok("{\"compilation_metrics\": {\"co_name\": \"f\", \"co_filename\": \"a.py\", "
              "\"co_firstlineno\": -2147483648, \"cache_size\": 18446744073709551615, "
              "\"accumulated_cache_size\": 0, \"guard_count\": 1, \"shape_env_guard_count\": 2, "
              "\"graph_op_count\": 3, \"graph_node_count\": 4, \"graph_input_count\": 5, "
              "\"start_time\": 1, \"entire_frame_compile_time_s\": 1.5, "
              "\"backend_compile_time_s\": -2e10, \"inductor_compile_time_s\": null, "
              "\"code_gen_time_s\": 0.0, \"fail_type\": null, \"fail_reason\": \"r\", "
              "\"fail_user_frame_filename\": \"u.py\", \"fail_user_frame_lineno\": 4294967295, "
              "\"non_compliant_ops\": [], \"compliant_custom_ops\": [\"a\", \"b\"], "
              "\"restart_reasons\": [\"x\"], \"dynamo_time_before_restart_s\": 3, "
              "\"frame_key\": \"1\", \"whatever\": {\"deep\": [1, {\"x\": null}]}}}",
              &env);
    assert_non_null(env.key[TL_K_COMPILATION_METRICS]);
    assert_int_equal(env.n_unknown, 0);

    /* describe_tensor with symints given as strings and negatives. */
    expect_ok("{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 2, \"dtype\": "
              "\"torch.float32\", \"device\": \"cpu\", \"size\": [2, \"s0\", -3], \"stride\": "
              "[\"s0\", 1], \"storage_offset\": \"s1\", \"is_leaf\": true, \"requires_grad\": "
              "false, \"attrs\": {\"a\": 1}, \"dynamo_dynamic_indices\": [0], \"unknown_m\": 1}}",
              &env);
    assert_non_null(env.key[TL_K_DESCRIBE_TENSOR]);
    expect_ok("{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 0, \"dtype\": "
              "\"f\", \"device\": \"cpu\", \"size\": [], \"storage_offset\": "
              "-9223372036854775808}}",
              &env);
    static const struct bad_case cases[] = {
        {"{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 1, \"dtype\": \"f\", "
         "\"device\": \"cpu\", \"size\": [1.5]}}",
         "invalid type for \"size\": expected an integer or a string"},
        {"{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 1, \"dtype\": \"f\", "
         "\"device\": \"cpu\", \"size\": [9223372036854775808]}}",
         "invalid type for \"size\": expected an integer or a string"},
        {"{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 1, \"dtype\": \"f\", "
         "\"device\": \"cpu\", \"size\": \"s0\"}}",
         "invalid type for \"size\": expected a list of integers or strings"},
        {"{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 1, \"dtype\": \"f\", "
         "\"device\": \"cpu\", \"size\": [1], \"is_leaf\": 1}}",
         "invalid type for \"is_leaf\": expected a boolean"},
        {"{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 1, \"dtype\": \"f\", "
         "\"device\": \"cpu\", \"size\": [1], \"storage_offset\": [1]}}",
         "invalid type for \"storage_offset\": expected an integer or a string"},
        {"{\"describe_tensor\": {\"id\": 1, \"describer_id\": 2, \"ndim\": 1, \"dtype\": \"f\", "
         "\"device\": \"cpu\", \"size\": [1], \"attrs\": {\"a\": \"b\"}}}",
         "invalid type for \"attrs\": expected a map of u64"},
    };
    run_cases(cases, TL_ARRAY_LEN(cases));

    /* frame_locals with nulls, symbol_to_sources with strings. */
    expect_ok("{\"guard_added\": {\"frame_locals\": {\"locals\": {\"x\": null, \"y\": \"1\"}, "
              "\"symbols\": {}}, \"symbol_to_sources\": {\"s0\": \"L['x']\"}, \"expr_node_id\": "
              "7}}",
              &env);
    assert_non_null(env.key[TL_K_GUARD_ADDED]);
}

static void test_null_is_absent(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"rank\": null, \"has_payload\": null, \"link\": null, \"str\": null, "
              "\"stack\": null, \"describe_tensor\": null}",
              &env);
    for (int k = 0; k < TL_K__COUNT; k++)
        assert_null(env.key[k]);
    assert_int_equal(env.n_unknown, 0);
    assert_true(env.cid_ok);
    assert_int_equal(env.cid.has, 0);
    /* Optional members may be null too. */
    expect_ok("{\"inductor_output_code\": {\"filename\": null}, \"dynamo_start\": {\"stack\": "
              "null}}",
              &env);
    assert_non_null(env.key[TL_K_INDUCTOR_OUTPUT_CODE]);
    assert_non_null(env.key[TL_K_DYNAMO_START]);
}

static void test_unknown_keys(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"zeta\": 1, \"rank\": 0, \"alpha\": null, \"frame_idx\": [1], "
              "\"compilation_metrics_later\": {}}",
              &env);
    static const char *const want[] = {"zeta", "alpha", "frame_idx", "compilation_metrics_later"};
    expect_unknown(&env, want, 4);
    assert_non_null(env.key[TL_K_RANK]);
    assert_true(env.cid_ok);
    /* Views point at the decoded key text. */
    assert_int_equal(env.unknown[0].n, 4);
    expect_ok("{}", &env);
    assert_int_equal(env.n_unknown, 0);
    /* Unknown keys never fail, whatever their value. */
    expect_ok("{\"x\": {\"rank\": \"no\"}, \"y\": [[[]]], \"\": 1}", &env);
    static const char *const w2[] = {"x", "y", ""};
    expect_unknown(&env, w2, 3);
}

/* PyTorch 2.13's keys: runtime metrics (any object, a frame id and no attempt), subgraph_name
 * (a string), describe_tensor's dynamo_hint_overrides and view_func. */
static void test_pytorch_213_keys(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"compilation_metrics_runtime\": {\"duration_us\": 5, \"fail_type\": null}, "
              "\"frame_id\": 0, \"frame_compile_id\": 0, \"subgraph_name\": \"subgraph_0\"}",
              &env);
    assert_int_equal(env.n_unknown, 0);
    assert_non_null(env.key[TL_K_COMPILATION_METRICS_RUNTIME]);
    assert_non_null(env.key[TL_K_SUBGRAPH_NAME]);
    assert_true(env.cid_ok);
    assert_int_equal(env.cid.has & TL_CID_ATTEMPT, 0);
    expect_ok("{\"bwd_compilation_metrics_runtime\": {}}", &env);
    assert_int_equal(env.n_unknown, 0);
    expect_ok("{\"describe_tensor\": {\"id\": 0, \"describer_id\": 0, \"ndim\": 1, "
              "\"dtype\": \"torch.float32\", \"device\": \"cpu\", \"size\": [4], "
              "\"dynamo_hint_overrides\": {}, \"view_func\": \"_CustomViewFunc()\"}}",
              &env);
    assert_int_equal(env.n_unknown, 0);
    expect_fail("{\"subgraph_name\": 1}", "invalid type for \"subgraph_name\": expected a string");
    expect_fail("{\"compilation_metrics_runtime\": []}",
                "invalid type for \"compilation_metrics_runtime\": expected an object");
}

/* ---- the compile-id group ----------------------------------------------------------------------
 */

static void test_cid_all_and_none(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"compiled_autograd_id\": 1, \"frame_id\": 5, \"frame_compile_id\": 2, "
              "\"attempt\": 3}",
              &env);
    assert_true(env.cid_ok);
    assert_int_equal(env.cid.has, TL_CID_CA | TL_CID_FRAME | TL_CID_FCID | TL_CID_ATTEMPT);
    assert_int_equal(env.cid.ca, 1);
    assert_int_equal(env.cid.frame, 5);
    assert_int_equal(env.cid.fcid, 2);
    assert_int_equal(env.cid.attempt, 3);
    assert_int_equal(env.n_unknown, 0);

    expect_ok("{\"rank\": 0}", &env);
    assert_true(env.cid_ok);
    assert_int_equal(env.cid.has, 0);
    assert_int_equal(env.cid.frame, 0);

    /* Null parts are missing parts. */
    expect_ok("{\"frame_id\": null, \"frame_compile_id\": 0, \"attempt\": null}", &env);
    assert_true(env.cid_ok);
    assert_int_equal(env.cid.has, TL_CID_FCID);
    /* Order does not matter. */
    expect_ok("{\"attempt\": 9, \"x\": 0, \"frame_id\": 4294967295}", &env);
    assert_true(env.cid_ok);
    assert_int_equal(env.cid.has, TL_CID_FRAME | TL_CID_ATTEMPT);
    assert_true(env.cid.frame == UINT32_MAX);
    assert_int_equal(env.cid.attempt, 9);
    static const char *const u[] = {"x"};
    expect_unknown(&env, u, 1);
}

static void test_cid_bad_values(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{\"frame_id\": -1}",
        "{\"frame_id\": 4294967296}",
        "{\"frame_id\": 1.0}",
        "{\"frame_id\": 1e0}",
        "{\"frame_id\": \"1\"}",
        "{\"frame_id\": true}",
        "{\"frame_id\": []}",
        "{\"frame_id\": {}}",
        "{\"attempt\": -0}",
        "{\"compiled_autograd_id\": 18446744073709551616}",
        "{\"frame_compile_id\": -9223372036854775808}",
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(texts); i++) {
        struct tl_envelope env;
        int rc = decode(texts[i], &env);
        if (rc != 0)
            fail_msg("%s: a bad compile id must not fail the line (%s)", texts[i], msg);
        if (env.cid_ok)
            fail_msg("%s: compile id should be absent", texts[i]);
        assert_int_equal(env.cid.has, 0);
        assert_int_equal(env.n_unknown, 0);
    }
}

static void test_cid_quirk_later_keys_unknown(void **state)
{
    (void)state;
    struct tl_envelope env;
    /* Keys after the bad one are unknown; keys before it are consumed. */
    expect_ok("{\"frame_id\": \"x\", \"frame_compile_id\": 2, \"attempt\": 0, \"zz\": 1}", &env);
    assert_false(env.cid_ok);
    assert_int_equal(env.cid.has, 0);
    assert_int_equal(env.cid.fcid, 0);
    static const char *const w1[] = {"frame_compile_id", "attempt", "zz"};
    expect_unknown(&env, w1, 3);

    expect_ok("{\"frame_compile_id\": 2, \"compiled_autograd_id\": 0, \"frame_id\": -1, "
              "\"attempt\": 0}",
              &env);
    assert_false(env.cid_ok);
    static const char *const w2[] = {"attempt"};
    expect_unknown(&env, w2, 1);

    /* The bad key last: nothing is unknown. */
    expect_ok("{\"frame_id\": 1, \"frame_compile_id\": 2, \"attempt\": 1.5}", &env);
    assert_false(env.cid_ok);
    assert_int_equal(env.n_unknown, 0);
    assert_int_equal(env.cid.has, 0);
    assert_int_equal(env.cid.frame, 0);

    /* After a bad key, a repeated group key is just another unknown key. */
    expect_ok("{\"attempt\": \"a\", \"attempt\": 1, \"frame_id\": 3}", &env);
    assert_false(env.cid_ok);
    static const char *const w3[] = {"attempt", "frame_id"};
    expect_unknown(&env, w3, 2);
}

static void test_cid_duplicate(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"frame_id\": 1, \"frame_id\": 1}", &env);
    assert_false(env.cid_ok);
    assert_int_equal(env.cid.has, 0);
    assert_int_equal(env.n_unknown, 0);
    expect_ok("{\"attempt\": null, \"frame_compile_id\": 0, \"attempt\": 0}", &env);
    assert_false(env.cid_ok);
    assert_int_equal(env.cid.has, 0);
    expect_ok("{\"compiled_autograd_id\": 1, \"frame_id\": 0, \"compiled_autograd_id\": 2}", &env);
    assert_false(env.cid_ok);
    assert_int_equal(env.n_unknown, 0);
}

static void test_cid_duplicate_then_more_keys(void **state)
{
    (void)state;
    /* In the reference the group is a flattened Option<CompileId>: serde's
     * FlatStructAccess takes entries in document order and stops at the
     * first error, which for a repeated key is duplicate_field raised when
     * the second occurrence is taken, exactly as for a wrongly typed value
     * (spec §1.4 quirk). Group keys after the duplicate therefore stay in
     * the `_other` map and count as unknown. */
    struct tl_envelope env;
    expect_ok("{\"frame_id\": 1, \"frame_id\": 1, \"frame_compile_id\": 0, \"attempt\": 0}", &env);
    assert_false(env.cid_ok);
    static const char *const w[] = {"frame_compile_id", "attempt"};
    expect_unknown(&env, w, 2);
    /* Keys before the duplicate were consumed. */
    expect_ok("{\"attempt\": 0, \"frame_id\": 1, \"frame_id\": 2, \"x\": 1}", &env);
    assert_false(env.cid_ok);
    static const char *const w2[] = {"x"};
    expect_unknown(&env, w2, 1);
}

static void test_unknown_keys_counted_once(void **state)
{
    (void)state;
    /* The reference collects unknown keys in a map (`_other`): a repeated
     * name is one unknown field. */
    struct tl_envelope env;
    expect_ok("{\"a\": 1, \"b\": 2, \"a\": 3, \"c\": null, \"b\": 4, \"a\": 5}", &env);
    static const char *const w[] = {"a", "b", "c"};
    expect_unknown(&env, w, 3);
    /* A broken compile-id group key repeated after the break is one key too. */
    expect_ok("{\"frame_id\": \"x\", \"attempt\": 1, \"attempt\": 2}", &env);
    static const char *const w2[] = {"attempt"};
    expect_unknown(&env, w2, 1);
}

static void test_many_unknown_keys(void **state)
{
    (void)state;
    /* A 400 KB envelope with 20 000 distinct unknown keys (and every key
     * twice) decodes in linear-ish time: milliseconds. */
    enum { N = 20000 };
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_addch(&b, '{');
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < N; i++)
            tl_buf_addf(&b, "%s\"k%d\":%d", rep || i ? "," : "", i, i);
    tl_buf_addch(&b, '}');
    struct tl_json_error jerr;
    assert_int_equal(tl_json_parse(&arena, b.buf, b.len, &root, &jerr), 0);
    struct tl_envelope env;
    double t0 = tu_now_s();
    int rc = tl_envelope_decode(&root, &env, &arena, msg, sizeof(msg));
    double dt = tu_now_s() - t0;
    size_t nu = env.n_unknown;
    tl_buf_release(&b);
    assert_int_equal(rc, 0);
    assert_int_equal(nu, N);
    /* Regression (fixed): envelope.c tl_envelope_decode finds repeated unknown keys with a
     * linear scan over the ones seen so far, which is quadratic in the number
     * of unknown keys: 6e8 comparisons here (seconds), and 88 s under ASan
     * for 100 000 keys in one 2 MB log line. A hash set (map.c) keeps it
     * linear. */
    if (dt > 0.5)
        print_error("decode took %.2f s\n", dt);
    assert_true(dt <= 0.5);
}

/* ---- str ------------------------------------------------------------------------------------- */

static void test_str_pair(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"str\": [\"torch/_dynamo/eval_frame.py\", 1]}", &env);
    const struct tl_json *s = env.key[TL_K_STR];
    assert_non_null(s);
    assert_int_equal(s->type, TL_JSON_ARRAY);
    assert_true(tl_str_eq_cstr(s->u.arr.items[0].u.str, "torch/_dynamo/eval_frame.py"));
    assert_int_equal(s->u.arr.items[1].u.num.u, 1);
    expect_ok("{\"str\": [\"\", 0]}", &env);
    assert_non_null(env.key[TL_K_STR]);
    expect_ok("{\"str\": [\"a\", 4294967295]}", &env);
    assert_non_null(env.key[TL_K_STR]);

    static const char *const bad[] = {
        "{\"str\": [\"a\"]}",
        "{\"str\": [\"a\", 1, 2]}",
        "{\"str\": [1, \"a\"]}",
        "{\"str\": [\"a\", -1]}",
        "{\"str\": [\"a\", 4294967296]}",
        "{\"str\": [\"a\", 1.5]}",
        "{\"str\": [\"a\", null]}",
        "{\"str\": [null, 1]}",
        "{\"str\": {\"a\": 1}}",
        "{\"str\": []}",
        "{\"str\": 1}",
        "{\"str\": [\"a\", \"1\"]}",
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(bad); i++)
        expect_fail(bad[i], "invalid type for \"str\": expected a [string, u32] pair");
}

/* ---- frames ---------------------------------------------------------------------------------- */

static void test_frames(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"stack\": [{\"line\": -7, \"name\": \"f\", \"filename\": 4294967295, \"loc\": "
              "\"x = 1\", \"uninterned_filename\": \"/tmp/a.py\"}, {\"filename\": 2, \"line\": "
              "2147483647, \"name\": \"<module>\"}, {\"filename\": 0, \"line\": 0, \"name\": \"\", "
              "\"loc\": null, \"uninterned_filename\": null, \"extra\": 5}, {\"filename\": 1, "
              "\"line\": 1, \"name\": \"g\", \"loc\": \"\"}]}",
              &env);
    size_t n = 99;
    struct tl_frame *fr = tl_envelope_frames(env.key[TL_K_STACK], &arena, &n);
    assert_int_equal(n, 4);
    assert_non_null(fr);
    assert_true(fr[0].filename == UINT32_MAX);
    assert_int_equal(fr[0].line, -7);
    assert_true(tl_str_eq_cstr(fr[0].name, "f"));
    assert_true(tl_str_eq_cstr(fr[0].loc, "x = 1"));
    assert_true(tl_str_eq_cstr(fr[0].uninterned_filename, "/tmp/a.py"));

    assert_int_equal(fr[1].filename, 2);
    assert_int_equal(fr[1].line, INT32_MAX);
    assert_true(tl_str_eq_cstr(fr[1].name, "<module>"));
    assert_null(fr[1].loc.p);
    assert_int_equal(fr[1].loc.n, 0);
    assert_null(fr[1].uninterned_filename.p);

    assert_int_equal(fr[2].filename, 0);
    assert_int_equal(fr[2].line, 0);
    assert_non_null(fr[2].name.p); /* present but empty */
    assert_int_equal(fr[2].name.n, 0);
    assert_null(fr[2].loc.p); /* null = absent */
    assert_null(fr[2].uninterned_filename.p);

    assert_non_null(fr[3].loc.p); /* "" is present */
    assert_int_equal(fr[3].loc.n, 0);

    /* Negative line at the i32 limit. */
    expect_ok("{\"stack\": [{\"filename\": 1, \"line\": -2147483648, \"name\": \"m\"}]}", &env);
    fr = tl_envelope_frames(env.key[TL_K_STACK], &arena, &n);
    assert_int_equal(n, 1);
    assert_int_equal(fr[0].line, INT32_MIN);

    /* A stack inside dynamo_start. */
    expect_ok("{\"dynamo_start\": {\"stack\": [{\"filename\": 3, \"line\": 9, \"name\": \"h\", "
              "\"loc\": \"y()\"}]}}",
              &env);
    fr = tl_envelope_frames(tl_env_get(env.key[TL_K_DYNAMO_START], "stack"), &arena, &n);
    assert_int_equal(n, 1);
    assert_int_equal(fr[0].filename, 3);
    assert_true(tl_str_eq_cstr(fr[0].loc, "y()"));

    /* Absent, null and empty stacks. */
    n = 5;
    assert_null(tl_envelope_frames(NULL, &arena, &n));
    assert_int_equal(n, 0);
    expect_ok("{\"stack\": []}", &env);
    n = 5;
    assert_null(tl_envelope_frames(env.key[TL_K_STACK], &arena, &n));
    assert_int_equal(n, 0);
    expect_ok("{\"dynamo_start\": {\"stack\": null}}", &env);
    n = 5;
    assert_null(tl_envelope_frames(tl_env_get(env.key[TL_K_DYNAMO_START], "stack"), &arena, &n));
    assert_int_equal(n, 0);
}

static void test_member_readers(void **state)
{
    (void)state;
    struct tl_envelope env;
    expect_ok("{\"dynamo_guards\": {\"a\": \"x\", \"b\": null, \"c\": 1, \"e\": \"\", \"d\": "
              "\"first\", \"d\": \"last\"}}",
              &env);
    const struct tl_json *rec = env.key[TL_K_DYNAMO_GUARDS];
    assert_non_null(rec);
    struct tl_str s = tl_env_str(rec, "a");
    assert_true(tl_str_eq_cstr(s, "x"));
    s = tl_env_str(rec, "b");
    assert_null(s.p);
    s = tl_env_str(rec, "c"); /* not a string */
    assert_null(s.p);
    s = tl_env_str(rec, "e");
    assert_non_null(s.p);
    assert_int_equal(s.n, 0);
    s = tl_env_str(rec, "missing");
    assert_null(s.p);
    s = tl_env_str(rec, "d"); /* last duplicate wins */
    assert_true(tl_str_eq_cstr(s, "last"));
    s = tl_env_str(NULL, "a");
    assert_null(s.p);

    assert_non_null(tl_env_get(rec, "a"));
    assert_null(tl_env_get(rec, "b"));
    assert_non_null(tl_env_get(rec, "c"));
    assert_null(tl_env_get(rec, "zzz"));
    assert_null(tl_env_get(NULL, "a"));

    assert_null(tl_env_get(rec, "b"));
    const struct tl_json *c = tl_env_get(rec, "c");
    assert_non_null(c);
    assert_int_equal(c->type, TL_JSON_NUMBER);
    assert_int_equal(c->u.num.u, 1);
    assert_null(tl_env_get(NULL, "c"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_names),
        cmocka_unit_test(test_top_level_wrong_types),
        cmocka_unit_test(test_member_wrong_types),
        cmocka_unit_test(test_missing_required),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_not_an_object),
        cmocka_unit_test(test_escaped_key_is_known),
        cmocka_unit_test(test_message_truncation),
        cmocka_unit_test(test_valid_envelope),
        cmocka_unit_test(test_null_is_absent),
        cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_pytorch_213_keys),
        cmocka_unit_test(test_cid_all_and_none),
        cmocka_unit_test(test_cid_bad_values),
        cmocka_unit_test(test_cid_quirk_later_keys_unknown),
        cmocka_unit_test(test_cid_duplicate),
        cmocka_unit_test(test_cid_duplicate_then_more_keys),
        cmocka_unit_test(test_unknown_keys_counted_once),
        cmocka_unit_test(test_many_unknown_keys),
        cmocka_unit_test(test_str_pair),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_member_readers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
