/* SPDX-License-Identifier: BSD-3-Clause */
/* The compile-time ledger: spans to phases, per compile id and for the run. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/arena.h"
#include "base/json.h"
#include "model/ledger.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct fixture {
    struct tl_arena arena, scratch;
    struct tl_ledger l;
};

static int setup(void **state)
{
    static struct fixture f;
    tl_arena_init(&f.arena, 4096);
    tl_arena_init(&f.scratch, 4096);
    tl_ledger_init(&f.l, &f.arena);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    tl_ledger_release(&f->l);
    tl_arena_release(&f->scratch);
    tl_arena_release(&f->arena);
    return 0;
}

static const struct tl_compile_id cid00 = {
    .frame = 0, .fcid = 0, .has = TL_CID_FRAME | TL_CID_FCID};
static const struct tl_compile_id cid10 = {
    .frame = 1, .fcid = 0, .has = TL_CID_FRAME | TL_CID_FCID};

/* A chromium event as PyTorch writes it; cid NULL: the envelope gave none. */
static void ev(struct fixture *f, const struct tl_compile_id *cid, const char *ph, const char *name,
               double ts, int tid, const char *args)
{
    char text[512];
    snprintf(text, sizeof(text),
             "{\"name\": \"%s\", \"ts\": %.1f, \"args\": %s, \"ph\": \"%s\", \"cat\": "
             "\"dynamo_timed\", \"tid\": %d, \"pid\": 0}",
             name, ts, args ? args : "{}", ph, tid);
    struct tl_chromium_peek e;
    assert_true(tl_chromium_peek(tl_str_cstr(text), &e));
    tl_ledger_event(&f->l, cid, &e);
}

static const struct tl_ledger_cid *find(const struct tl_ledger *l, const char *cid)
{
    for (uint32_t i = 0; i < l->ncids; i++)
        if (!strcmp(l->cids[i]->cid, cid))
            return l->cids[i];
    fail_msg("no ledger entry %s", cid);
    return NULL;
}

static void test_phases_of_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        enum tl_ledger_phase p;
    } cases[] = {
        {"dynamo", TL_LP_DYNAMO},
        {"compile_attempt_1", TL_LP_DYNAMO},
        {"bytecode_tracing", TL_LP_DYNAMO},
        {"backend_compile", TL_LP_BACKEND},
        {"create_aot_dispatcher_function", TL_LP_AOT},
        {"aot_trace_joint_graph", TL_LP_AOT},
        {"min_cut_rematerialization_partition", TL_LP_AOT},
        {"entire_backward_compile", TL_LP_AOT},
        {"_recursive_joint_graph_passes", TL_LP_INDUCTOR},
        {"pass.post_grad_passes.remove_noop_ops", TL_LP_INDUCTOR},
        {"fx_codegen_and_compile", TL_LP_INDUCTOR}, /* not code generation */
        {"compile_fx.<locals>.fw_compiler_base", TL_LP_INDUCTOR},
        {"GraphLowering.run", TL_LP_INDUCTOR},
        {"GraphLowering.compile_to_fn", TL_LP_CODEGEN},
        {"Scheduler.codegen", TL_LP_CODEGEN},
        {"PythonWrapperCodegen.generate", TL_LP_CODEGEN},
        {"code_gen", TL_LP_CODEGEN},
        {"compile_file", TL_LP_COMPILE},
        {"async_compile.wait", TL_LP_COMPILE},
        {"PyCodeCache.load_by_key_path", TL_LP_COMPILE}, /* waits for the compiler */
        {"inductor_codecache_torch_key", TL_LP_CACHE},
        {"CacheBase.get_system.triton_key", TL_LP_CACHE},
        {"TritonBundler.collect", TL_LP_CACHE},
        {"select_algorithm_autotune", TL_LP_AUTOTUNE},
        {"CachingAutotuner.benchmark_all_configs", TL_LP_AUTOTUNE},
        {"remote_fx_graph_cache_get", TL_LP_REMOTE},
        {"gc", TL_LP_GC},
        {"something_new", TL_LP_COUNT}, /* its parent's */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum tl_ledger_phase p = tl_ledger_phase_of(tl_str_cstr(cases[i].name));
        if (p != cases[i].p)
            fail_msg("%s: phase %d, want %d", cases[i].name, p, cases[i].p);
    }
}

/* Nested spans: each span's own time to its phase; the compile id's phases add up to its
 * outermost span; a worker span without a compile id is its parent's; a name none knows takes
 * its parent's phase. */
static void test_nesting(void **state)
{
    struct fixture *f = *state;
    ev(f, &cid00, "B", "dynamo", 1000, 0, NULL);
    ev(f, &cid00, "B", "bytecode_tracing", 1100, 0, NULL);
    ev(f, &cid00, "E", "bytecode_tracing", 1400, 0, NULL);
    ev(f, &cid00, "B", "inductor_compile", 1500, 0, NULL);
    ev(f, &cid00, "B", "something_new", 1600, 0, NULL);
    ev(f, &cid00, "E", "something_new", 1700, 0, NULL);
    ev(f, NULL, "B", "compile_file", 1800, 0, NULL);
    ev(f, NULL, "E", "compile_file", 2800, 0, NULL);
    ev(f, &cid00, "E", "inductor_compile", 2900, 0, "{\"cache_state\": \"miss\"}");
    ev(f, &cid00, "E", "dynamo", 3000, 0, NULL);
    tl_ledger_time(&f->l, "11", "27", "12:00:00", "000000");
    tl_ledger_time(&f->l, "11", "27", "12:00:00", "005000"); /* 5 ms */
    tl_ledger_finish(&f->l);
    const struct tl_ledger_cid *c = find(&f->l, "[0/0]");
    assert_true(f->l.present);
    assert_true(c->has_events);
    /* dynamo: 2000 - 300 (tracing) - 1400 (inductor) = 300 own + 300 tracing */
    assert_float_equal(c->us[TL_LP_DYNAMO], 600, 1e-6);
    /* inductor: 1400 - 1000 (compile_file) = 400, with its unknown child's 100 */
    assert_float_equal(c->us[TL_LP_INDUCTOR], 400, 1e-6);
    assert_float_equal(c->us[TL_LP_COMPILE], 1000, 1e-6);
    assert_float_equal(tl_ledger_cid_seconds(c), 0.002, 1e-12);
    assert_int_equal(c->cache, TL_LEDGER_MISS);
    const struct tl_ledger_run *r = &f->l.run;
    assert_float_equal(r->span_s, 0.005, 1e-9);
    assert_float_equal(r->compiling_s, 0.002, 1e-12);
    assert_float_equal(r->unaccounted_s, 0.003, 1e-9);
    assert_int_equal(r->cold_n, 1);
    assert_int_equal(r->warm_n, 0);
}

/* Two threads compiling at once: the run counts their union as compiling and the rest as
 * overlap, so that its lines still add up to the span. */
static void test_overlap(void **state)
{
    struct fixture *f = *state;
    ev(f, &cid00, "B", "dynamo", 0, 0, NULL);
    ev(f, &cid10, "B", "dynamo", 500, 7, NULL);
    ev(f, &cid00, "E", "dynamo", 1000, 0, NULL);
    ev(f, &cid10, "E", "dynamo", 1500, 7, NULL);
    tl_ledger_finish(&f->l);
    const struct tl_ledger_run *r = &f->l.run;
    assert_float_equal(r->compiling_s, 0.0015, 1e-12);
    assert_float_equal(r->phases_s[TL_LP_DYNAMO], 0.002, 1e-12);
    assert_float_equal(r->overlap_s, 0.0005, 1e-12);
    /* no record times: the span is what the events cover */
    assert_float_equal(r->span_s, 0.0015, 1e-12);
    assert_float_equal(r->unaccounted_s, 0, 1e-12);
}

/* A log that ends mid-compile: its open spans count up to the last time seen, and summing
 * again after more events comes out right (the open spans are not closed for good). */
static void test_open_spans(void **state)
{
    struct fixture *f = *state;
    ev(f, &cid00, "B", "dynamo", 0, 0, NULL);
    ev(f, &cid00, "B", "backend_compile", 100, 0, NULL);
    ev(f, &cid00, "B", "gc", 300, 0, NULL);
    ev(f, &cid00, "E", "gc", 400, 0, NULL);
    tl_ledger_finish(&f->l);
    const struct tl_ledger_cid *c = find(&f->l, "[0/0]");
    assert_float_equal(tl_ledger_cid_seconds(c), 0.0004, 1e-12);
    assert_float_equal(tl_ledger_cid_phase_s(c, TL_LP_BACKEND), 0.0002, 1e-12);
    assert_float_equal(f->l.run.compiling_s, 0.0004, 1e-12);
    ev(f, &cid00, "E", "backend_compile", 600, 0, NULL);
    ev(f, &cid00, "E", "dynamo", 700, 0, NULL);
    tl_ledger_finish(&f->l);
    assert_float_equal(tl_ledger_cid_seconds(c), 0.0007, 1e-12);
    assert_float_equal(tl_ledger_cid_phase_s(c, TL_LP_BACKEND), 0.0004, 1e-12);
    assert_float_equal(tl_ledger_cid_phase_s(c, TL_LP_DYNAMO), 0.0002, 1e-12);
    assert_float_equal(f->l.run.compiling_s, 0.0007, 1e-12);
    assert_int_equal(f->l.nroots, 1);
}

/* An "E" closes the innermost open span of its name and what was left open inside it; an "E"
 * of no open span closes nothing; an "X" is a leaf of the span it falls in. */
static void test_unbalanced(void **state)
{
    struct fixture *f = *state;
    ev(f, &cid00, "B", "dynamo", 0, 0, NULL);
    ev(f, &cid00, "B", "code_gen", 100, 0, NULL); /* never ended */
    ev(f, &cid00, "E", "not_open", 150, 0, NULL);
    ev(f, &cid00, "X", "compile_file", 120, 0, NULL); /* no dur: ignored */
    ev(f, &cid00, "E", "dynamo", 500, 0, NULL);
    tl_ledger_finish(&f->l);
    const struct tl_ledger_cid *c = find(&f->l, "[0/0]");
    assert_float_equal(c->us[TL_LP_CODEGEN], 400, 1e-6);
    assert_float_equal(c->us[TL_LP_DYNAMO], 100, 1e-6);
    struct tl_chromium_peek e;
    const char *x = "{\"name\": \"compile_file\", \"ph\": \"X\", \"ts\": 600, \"dur\": 50}";
    assert_true(tl_chromium_peek(tl_str_cstr(x), &e));
    tl_ledger_event(&f->l, &cid00, &e);
    tl_ledger_finish(&f->l);
    assert_float_equal(c->us[TL_LP_COMPILE], 50, 1e-6);
    assert_float_equal(f->l.run.compiling_s, 0.00055, 1e-12);
}

/* A compile id with metrics and no events: its phases are the metrics' nested times. */
static void test_metrics_only(void **state)
{
    struct fixture *f = *state;
    tl_ledger_metrics(&f->l, &cid00, 10.0, 8.0, 6.0, 4.0);
    tl_ledger_cache(&f->l, &cid00, TL_LEDGER_HIT);
    tl_ledger_runtime(&f->l, &cid00, 500000);
    tl_ledger_finish(&f->l);
    const struct tl_ledger_cid *c = find(&f->l, "[0/0]");
    assert_false(c->has_events);
    assert_float_equal(tl_ledger_cid_phase_s(c, TL_LP_DYNAMO), 2.0, 1e-12);
    assert_float_equal(tl_ledger_cid_phase_s(c, TL_LP_BACKEND), 2.0, 1e-12);
    assert_float_equal(tl_ledger_cid_phase_s(c, TL_LP_INDUCTOR), 2.0, 1e-12);
    assert_float_equal(tl_ledger_cid_phase_s(c, TL_LP_CODEGEN), 4.0, 1e-12);
    assert_float_equal(tl_ledger_cid_seconds(c), 10.0, 1e-12);
    const struct tl_ledger_run *r = &f->l.run;
    assert_false(r->from_events);
    assert_float_equal(r->compiling_s, 10.0, 1e-12);
    assert_float_equal(r->runtime_s, 0.5, 1e-12);
    assert_float_equal(r->span_s, 10.5, 1e-12);
    assert_int_equal(r->warm_n, 1);
}

/* Nothing timed: no ledger to show. Record times alone do not make one. */
static void test_nothing(void **state)
{
    struct fixture *f = *state;
    tl_ledger_time(&f->l, "01", "01", "00:00:00", "000000");
    tl_ledger_event(&f->l, &cid00, NULL);
    struct tl_chromium_peek e;
    assert_true(
        tl_chromium_peek(tl_str_cstr("{\"name\": \"dynamo\", \"ph\": \"i\", \"ts\": 1}"), &e));
    tl_ledger_event(&f->l, &cid00, &e); /* an instant: no span */
    tl_ledger_finish(&f->l);
    assert_false(f->l.present);
}

/* A summary's ledger read back gives the same lines. */
static void test_read(void **state)
{
    struct fixture *f = *state;
    const char *text =
        "{\"source\": \"chromium_events\", \"span_s\": 29.437, \"compiling_s\": 29.3, "
        "\"runtime_s\": 0.0, \"unaccounted_s\": 0.137, \"overlap_s\": 0.0, \"metrics_s\": 25.0, "
        "\"backward_s\": 4.3, \"phases\": {\"dynamo\": 0.8, \"compile_code\": 22.4}, "
        "\"cold\": {\"compile_ids\": 2, \"s\": 29.3}, \"warm\": {\"compile_ids\": 0, \"s\": 0}, "
        "\"compile_ids\": [{\"compile_id\": \"[0/0]\", \"s\": 28.9, \"phases\": {\"dynamo\": "
        "0.7}, \"metrics_s\": 24.6, \"backward_s\": 4.3, \"runtime_s\": 0, \"cache\": \"miss\"}]}";
    struct tl_json v;
    assert_int_equal(tl_json_parse(&f->scratch, text, strlen(text), &v, NULL), 0);
    tl_ledger_read(&f->l, &v);
    assert_true(f->l.present);
    const struct tl_ledger_run *r = &f->l.run;
    assert_true(r->from_events);
    assert_float_equal(r->span_s, 29.437, 1e-12);
    assert_float_equal(r->phases_s[TL_LP_COMPILE], 22.4, 1e-12);
    assert_float_equal(r->backward_s, 4.3, 1e-12);
    assert_int_equal(r->cold_n, 2);
    const struct tl_ledger_cid *c = find(&f->l, "[0/0]");
    assert_float_equal(tl_ledger_cid_seconds(c), 28.9, 1e-9);
    assert_float_equal(tl_ledger_cid_phase_s(c, TL_LP_DYNAMO), 0.7, 1e-9);
    assert_int_equal(c->cache, TL_LEDGER_MISS);
}

/* The lines a view of many logs shows: the run's, to the microsecond; none when nothing was
 * timed. */
static void test_lines(void **state)
{
    struct fixture *f = *state;
    struct tl_ledger_lines x;
    tl_ledger_lines_of(&x, &f->l);
    assert_false(x.present);
    f->l.present = true;
    f->l.run.span_s = 2.00000049;
    f->l.run.compiling_s = 1.2345675;
    f->l.run.runtime_s = -1e-9; /* rounds to 0, never -0 */
    f->l.run.unaccounted_s = 0.7654321;
    tl_ledger_lines_of(&x, &f->l);
    assert_true(x.present);
    assert_true(x.span_s == 2.0);
    assert_true(x.compiling_s == 1.234568 || x.compiling_s == 1.234567);
    assert_true(x.runtime_s == 0.0 && !signbit(x.runtime_s));
    assert_true(x.unaccounted_s == 0.765432);
}

/* The straggler: the log that compiled longest, of two or more with lines that differ. */
static void test_straggler(void **state)
{
    (void)state;
    struct tl_ledger_lines a = {true, 3, 1.5, 0, 1.5}, b = {true, 5, 4.5, 0, 0.5},
                           c = {true, 5, 4.5, 0, 0.5}, none = {false, 9, 9, 0, 0};
    const struct tl_ledger_lines *v[] = {&a, NULL, &none, &b, &c};
    assert_int_equal(tl_ledger_straggler(v, 5), 3);  /* of two as long, the first */
    assert_int_equal(tl_ledger_straggler(v, 3), -1); /* one log with lines */
    const struct tl_ledger_lines *same[] = {&b, &c};
    assert_int_equal(tl_ledger_straggler(same, 2), -1); /* all compiled as long */
    assert_int_equal(tl_ledger_straggler(v, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phases_of_names),
        cmocka_unit_test_setup_teardown(test_nesting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_spans, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unbalanced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metrics_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lines, setup, teardown),
        cmocka_unit_test(test_straggler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
