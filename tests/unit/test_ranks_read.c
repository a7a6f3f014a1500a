/* SPDX-License-Identifier: BSD-3-Clause */
/* A rank's summary written into summary.json (report/summary_ranks.c) and read back
 * (model/ranks_read.c): every field survives, floats exactly; bad files say what is wrong. */
#include "base/config.h"
#include "base/arena.h"
#include "base/buf.h"
#include "model/diagnosis.h"
#include "model/ranks.h"
#include "model/ranks_read.h"
#include "report/summary.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

static void write_summary(struct tl_buf *out, const struct tl_rank_summary *s)
{
    struct tl_diag d;
    tl_diag_init(&d);
    tl_diag_finish(&d);
    struct tl_summary_source src = {s->log, "torch_trace", s, NULL};
    tl_summary_json(out, &d, &src, true);
    tl_diag_release(&d);
}

static void assert_str_same(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct tl_rank_op ops0[] = {{"op \"one\"", 1715885247.9018195}, {"op2", 100.0}};
    struct tl_rank_op ops1[] = {{"x", 1e-7}};
    struct tl_rank_runtime rt[] = {{"-_0_1_0", ops0, 2}, {"-_0_0_0", ops1, 1}};
    struct tl_rank_meta meta[] = {{"-_0_1_0", "{\"ops\":[]}"}};
    const char *sops[] = {"torch.ops._c10d_functional.all_reduce_.default", "w\u00e9"};
    struct tl_rank_schedule sch[] = {{"-_1_0_0", sops, 2}};
    const char *ids[] = {"[0/0]", "[1/0]"};
    const char *order[] = {"[0/0]", "[1/0]", "[0/0]"};
    struct tl_rank_folder folders[] = {{"-_0_0_0", "[0/0]", "miss"}, {"payloads", NULL, NULL}};
    struct tl_rank_summary s = {
        .rank = 7,
        .log = "dedicated_log_torch_trace_rank_7.log",
        .notes = "a/b.json is not valid JSON",
        .compile_ids = ids,
        .ncompile_ids = 2,
        .cache_sequence = "\xe2\x9d\x8c\xe2\x9c\x85",
        .chromium_events = 12345678901ull,
        .runtime = rt,
        .nruntime = 2,
        .meta = meta,
        .nmeta = 1,
        .schedules = sch,
        .nschedules = 1,
        .has_exec_order = true,
        .exec_order = order,
        .nexec_order = 3,
        .folders = folders,
        .nfolders = 2,
        .diag = {.recompiles = 3,
                 .graph_breaks = 4,
                 .failures = 1,
                 .limits = 2,
                 .compile_ids = 5,
                 .has_time = true,
                 .compile_s = 1.25,
                 .detail = {"step at m.py:9 [0/1]: tensor 'L['x']' size mismatch", NULL,
                            "[0/0] BackendCompilerFailed", NULL}},
    };
    struct tl_buf b = TL_BUF_INIT;
    write_summary(&b, &s);
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    struct tl_rank_summary r;
    char why[256] = "";
    assert_int_equal(tl_rank_summary_parse(b.buf, b.len, &r, &arena, why, sizeof(why)), 0);
    assert_int_equal(r.rank, 7);
    assert_string_equal(r.log, s.log);
    assert_null(r.error);
    assert_string_equal(r.notes, s.notes);
    assert_int_equal(r.ncompile_ids, 2);
    assert_string_equal(r.compile_ids[1], "[1/0]");
    assert_string_equal(r.cache_sequence, s.cache_sequence);
    assert_true(r.chromium_events == 12345678901ull);
    assert_int_equal(r.nruntime, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(r.runtime[i].graph, rt[i].graph);
        assert_int_equal(r.runtime[i].nops, rt[i].nops);
        for (size_t j = 0; j < rt[i].nops; j++) {
            assert_string_equal(r.runtime[i].ops[j].name, rt[i].ops[j].name);
            /* bit for bit, also the value serde's reader does not round-trip */
            assert_memory_equal(&r.runtime[i].ops[j].estimated_runtime_ns,
                                &rt[i].ops[j].estimated_runtime_ns, sizeof(double));
        }
    }
    assert_int_equal(r.nmeta, 1);
    assert_string_equal(r.meta[0].fingerprint, "{\"ops\":[]}");
    assert_int_equal(r.nschedules, 1);
    assert_int_equal(r.schedules[0].nops, 2);
    assert_string_equal(r.schedules[0].ops[1], "w\u00e9");
    assert_true(r.has_exec_order);
    assert_int_equal(r.nexec_order, 3);
    assert_string_equal(r.exec_order[2], "[0/0]");
    assert_int_equal(r.nfolders, 2);
    assert_string_equal(r.folders[0].folder, "-_0_0_0");
    assert_string_equal(r.folders[0].key, "[0/0]");
    assert_string_equal(r.folders[0].cache_status, "miss");
    assert_str_same(r.folders[1].key, NULL);
    assert_str_same(r.folders[1].cache_status, NULL);
    assert_int_equal(r.diag.recompiles, 3);
    assert_int_equal(r.diag.graph_breaks, 4);
    assert_int_equal(r.diag.failures, 1);
    assert_int_equal(r.diag.limits, 2);
    assert_int_equal(r.diag.compile_ids, 5);
    assert_true(r.diag.has_time);
    assert_true(r.diag.compile_s == 1.25);
    assert_string_equal(r.diag.detail[0], "step at m.py:9 [0/1]: tensor 'L['x']' size mismatch");
    assert_null(r.diag.detail[1]);
    assert_string_equal(r.diag.detail[2], "[0/0] BackendCompilerFailed");
    assert_null(r.diag.detail[3]);

    assert_false(r.diag.ledger.present); /* the summary has no compile_time */

    /* written again from what was read: the same bytes */
    struct tl_buf b2 = TL_BUF_INIT;
    write_summary(&b2, &r);
    assert_string_equal(b.buf, b2.buf);

    /* the ledger's lines, from the summary's compile_time.ledger; a line that is no number of
     * seconds reads as 0 */
    const char *null_ledger = strstr(b.buf, "\"ledger\": null");
    assert_non_null(null_ledger);
    tl_buf_reset(&b2);
    tl_buf_add(&b2, b.buf, (size_t)(null_ledger - b.buf));
    tl_buf_adds(&b2, "\"ledger\": {\"span_s\": 2.5, \"compiling_s\": 2.0, \"runtime_s\": \"x\", "
                     "\"unaccounted_s\": 0.5}");
    tl_buf_adds(&b2, null_ledger + strlen("\"ledger\": null"));
    assert_int_equal(tl_rank_summary_parse(b2.buf, b2.len, &r, &arena, why, sizeof(why)), 0);
    assert_true(r.diag.ledger.present);
    assert_true(r.diag.ledger.span_s == 2.5 && r.diag.ledger.compiling_s == 2.0);
    assert_true(r.diag.ledger.runtime_s == 0 && r.diag.ledger.unaccounted_s == 0.5);
    tl_buf_release(&b2);

    /* no execution order, an error, nothing else */
    struct tl_rank_summary e = {.rank = 3, .log = "r3.log", .error = "cannot read r3.log"};
    tl_buf_reset(&b);
    write_summary(&b, &e);
    assert_int_equal(tl_rank_summary_parse(b.buf, b.len, &r, &arena, why, sizeof(why)), 0);
    assert_false(r.has_exec_order);
    assert_string_equal(r.error, "cannot read r3.log");
    assert_string_equal(r.cache_sequence, "");
    assert_int_equal(r.nruntime + r.nmeta + r.nschedules + r.nfolders + r.ncompile_ids, 0);
    tl_buf_release(&b);
    tl_arena_release(&arena);
}

/* A broken file: -1 and what is wrong, with the member's path. */
static void expect_error(const char *text, const char *message)
{
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    struct tl_rank_summary r;
    char why[256] = "";
    assert_int_equal(tl_rank_summary_parse(text, strlen(text), &r, &arena, why, sizeof(why)), -1);
    assert_string_equal(why, message);
    tl_arena_release(&arena);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("", "not JSON: unexpected end of input at byte 1");
    expect_error("[1]", "not a JSON object");
    expect_error("{\"schema\": \"tlparse-summary/1\"}",
                 "it has no \"rank\" member: it was not written for a rank of a multi-rank run");
    expect_error("{\"rank\": 3}", "rank is not an object");
    expect_error("{\"rank\": {}}", "rank has no \"number\"");
    expect_error("{\"rank\": {\"number\": -1}}", "rank.number is not a whole number");
    expect_error("{\"rank\": {\"number\": 4294967296}}", "rank.number is too large");
    const char *head = "{\"rank\": {\"number\": 1, \"log\": \"l\", \"error\": null, "
                       "\"notes\": null, \"compile_ids\": [], \"cache_sequence\": \"\", "
                       "\"chromium_events\": 0, ";
    char doc[1024];
    snprintf(doc, sizeof(doc), "%s\"runtime\": [{\"graph\": \"g\", \"ops\": []}]}}", head);
    expect_error(doc, "rank.runtime[0].ops is empty");
    snprintf(doc, sizeof(doc), "%s\"runtime\": [{\"graph\": \"g\", \"ops\": [{\"name\": 1}]}]}}",
             head);
    expect_error(doc, "rank.runtime[0].ops[0].name is not a string");
    snprintf(doc, sizeof(doc), "%s\"runtime\": [], \"tensor_meta\": [3]}}", head);
    expect_error(doc, "rank.tensor_meta[0] is not an object");
    snprintf(doc, sizeof(doc),
             "%s\"runtime\": [], \"tensor_meta\": [], \"collective_schedules\": "
             "[{\"graph\": \"g\", \"ops\": [1]}]}}",
             head);
    expect_error(doc, "rank.collective_schedules[0].ops[0] is not a string");
    snprintf(doc, sizeof(doc),
             "%s\"runtime\": [], \"tensor_meta\": [], \"collective_schedules\": [], "
             "\"execution_order\": \"x\"}}",
             head);
    expect_error(doc, "rank.execution_order is not a list");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
