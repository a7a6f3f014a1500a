/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's public doors beyond tl_run(): tl_each_entry() (every entry of a log, typed,
 * in order; stopping early; TORCH_LOGS text refused) and custom parsers (their files are
 * numbered in the report's sequence and listed under their compile id; payload files, global
 * files, links; a parser that fails is warned about by name and line; names from parsers
 * cannot leave the report folder); the counts tl_run() returns; and tl_diff_run() (a run
 * against itself, as JSON and as a folder; a missing side, two standard inputs).
 */
#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/buf.h"
#include "capture.h"
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
#include <sys/stat.h>
#include <unistd.h>

static char tmp[64];
static char out[4200];

static int setup(void **state)
{
    (void)state;
    if (tu_mkdtemp(tmp, sizeof(tmp), "api") != 0)
        return -1;
    snprintf(out, sizeof(out), "%s/out", tmp);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tu_rmtree(tmp);
}

static struct tl_options mem_options(const char *text)
{
    struct tl_options o;
    memset(&o, 0, sizeof(o));
    o.mem_input = text;
    o.mem_len = strlen(text);
    o.out_dir = out;
    o.overwrite = true;
    o.year = 2024;
    o.message = on_message;
    tl_buf_release(&messages);
    return o;
}

static void expect_text(const char *got, const char *want)
{
    if (!got || strcmp(got, want) != 0) {
        print_error("got:\n%s\nwant:\n%s\n", got ? got : "(null)", want);
        fail();
    }
}

#define P "V1121 10:00:00.000123 7 torch/x.py:1] "
#define CID(f, c) "\"frame_id\": " #f ", \"frame_compile_id\": " #c ", \"attempt\": 0"
/* md5("graph()") and md5("hello\nworld") */
#define MD5_GRAPH "c44ce4fac8005fd0fa04c1eb22ea05c6"
#define MD5_HELLO "9195d0beb2a889e1be05ed6bb1954837"

/* A small trace: a known entry with a payload, one of a kind tlparse does not know (a user's
 * own trace_structured call), one of another compile id, and one without a compile id. */
#define R ", \"rank\": 5"
/* clang-format off */
static const char trace[] =
    P "{\"dynamo_start\": {\"stack\": []}, " CID(0, 0) R "}\n"
    P "{\"dynamo_output_graph\": {\"sizes\": {}}, " CID(0, 0) R ", \"has_payload\": \"" MD5_GRAPH "\"}\n"
    "\tgraph()\n"
    P "{\"my_model_stats\": {\"layers\": 3}, " CID(1, 2) R ", \"has_payload\": \"" MD5_HELLO "\"}\n"
    "\thello\n\tworld\n"
    P "{\"artifact\": {\"name\": \"notes\", \"encoding\": \"string\"}" R ", \"has_payload\": \"" MD5_HELLO "\"}\n"
    "\thello\n\tworld\n";
/* clang-format on */

struct seen {
    struct tl_buf text;
    int n, stop_after;
};

static int record_entry(void *ctx, const struct tl_entry *e)
{
    struct seen *s = ctx;
    tl_buf_addf(&s->text, "%llu|%s|%s|%s|%s|%lld/%lld/%lld|%lld|%d|%.*s|%s\n",
                (unsigned long long)e->line, e->kind, e->name, e->compile_id, e->folder,
                (long long)e->frame_id, (long long)e->frame_compile_id, (long long)e->attempt,
                (long long)e->rank, e->has_payload, (int)e->payload_len, e->payload,
                e->envelope_len == strlen(e->envelope) ? "len-ok" : "len-bad");
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

/* Every entry, typed and in order, with exact fields. */
static void test_each_entry(void **state)
{
    (void)state;
    struct tl_options o = mem_options(trace);
    struct seen s = {TL_BUF_INIT, 0, 0};
    assert_int_equal(tl_each_entry(&o, record_entry, &s), TL_EXIT_OK);
    expect_text(s.text.buf, "1|dynamo_start||[0/0]|-_0_0_0|0/0/0|5|0||len-ok\n"
                            "2|dynamo_output_graph||[0/0]|-_0_0_0|0/0/0|5|1|graph()|len-ok\n"
                            "4|my_model_stats||[1/2]|-_1_2_0|1/2/0|5|1|hello\nworld|len-ok\n"
                            "7|artifact|notes||-_-_-_-|-1/-1/-1|5|1|hello\nworld|len-ok\n");
    /* Nothing was written. */
    struct stat st;
    assert_int_equal(stat(out, &st), -1);
    tl_buf_release(&s.text);
}

/* The callback stops the walk: no more calls, and that is not an error. */
static void test_each_entry_stops(void **state)
{
    (void)state;
    struct tl_options o = mem_options(trace);
    struct seen s = {TL_BUF_INIT, 0, 2};
    assert_int_equal(tl_each_entry(&o, record_entry, &s), TL_EXIT_OK);
    assert_int_equal(s.n, 2);
    tl_buf_release(&s.text);
}

/* TORCH_LOGS text has no entries: refused with a message that says so. */
static void test_each_entry_text_log(void **state)
{
    (void)state;
    const char *text = "V1121 10:00:00.000123 7 torch/_dynamo/guards.py:2] [0/1] [__recompiles] "
                       "Recompiling function forward in /m.py:15\n"
                       "    triggered by the following guard failure(s):\n"
                       "    - 0/0: tensor 'x' size mismatch at index 0. expected 8, actual 4\n";
    struct tl_options o = mem_options(text);
    struct seen s = {TL_BUF_INIT, 0, 0};
    assert_int_equal(tl_each_entry(&o, record_entry, &s), TL_EXIT_USAGE);
    assert_int_equal(s.n, 0);
    expect_text(messages.buf, "E tlparse: error: <memory> is TORCH_LOGS text, not a TORCH_TRACE "
                              "log: it has no entries\n");
}

/* A parser of the user's own entry kind: a file, the payload as a file, a link, a global
 * file; one that fails on every entry; names that try to leave the folder. */
static int stats_parser(void *ctx, const struct tl_entry *e, struct tl_parser_output *po)
{
    int *calls = ctx;
    (*calls)++;
    char text[256];
    int n = snprintf(text, sizeof(text), "%s at line %llu: %s", e->compile_id,
                     (unsigned long long)e->line, e->envelope);
    if (tl_parser_add_file(po, "model_stats.txt", text, (size_t)n) < 0 ||
        tl_parser_add_payload_file(po, "../../escape/payload.txt") < 0 ||
        tl_parser_add_link(po, "docs <b>", "https://example.com/?a=1&b=2") < 0 ||
        tl_parser_add_global_file(po, "/stats_all.txt", "all\n", 4) < 0)
        return -1;
    return 0;
}

static int failing_parser(void *ctx, const struct tl_entry *e, struct tl_parser_output *po)
{
    (void)ctx, (void)e, (void)po;
    return -1;
}

static void test_custom_parsers(void **state)
{
    (void)state;
    int calls = 0;
    static const char *const keys[] = {"my_model_stats", NULL};
    static const char *const graph_keys[] = {"dynamo_output_graph", NULL};
    struct tl_parser parsers[] = {
        {"model_stats", keys, stats_parser, &calls},
        {"always_fails", graph_keys, failing_parser, NULL},
    };
    struct tl_options o = mem_options(trace);
    o.parsers = parsers;
    o.nparsers = 2;
    struct tl_result res;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_OK);
    assert_non_null(res.index_path);
    assert_int_equal(calls, 1);
    /* Numbered in the report's own sequence: the output graph is _0, the parser's files _1
     * and _2 (the link takes _3). */
    char *f = tu_slurp_in(out, "-_1_2_0/model_stats_1.txt", NULL);
    expect_text(f, "[1/2] at line 4: {\"my_model_stats\": {\"layers\": 3}, \"frame_id\": 1, "
                   "\"frame_compile_id\": 2, \"attempt\": 0, \"rank\": 5, \"has_payload\": "
                   "\"" MD5_HELLO "\"}");
    free(f);
    /* ".." parts are neutralised (tl_path_safe): the file stays in the compile folder. */
    f = tu_slurp_in(out, "-_1_2_0/_../_../escape/payload_2.txt", NULL);
    expect_text(f, "hello\nworld");
    free(f);
    struct stat st;
    char esc[4400];
    snprintf(esc, sizeof(esc), "%s/escape", tmp);
    assert_int_equal(stat(esc, &st), -1);
    f = tu_slurp_in(out, "stats_all.txt", NULL);
    expect_text(f, "all\n");
    free(f);
    char *index = tu_slurp_in(out, "index.html", NULL);
    assert_non_null(index);
    assert_non_null(strstr(index, "-_1_2_0/model_stats_1.txt"));
    assert_non_null(strstr(index, "https://example.com/?a=1&amp;b=2"));
    assert_non_null(strstr(index, "docs &lt;b&gt;"));
    assert_null(strstr(index, "docs <b>"));
    free(index);
    char *dir = tu_slurp_in(out, "compile_directory.json", NULL);
    assert_non_null(strstr(dir, "model_stats_1.txt"));
    free(dir);
    /* The failing parser: named, with its line; counted on the Stats line. */
    assert_non_null(strstr(messages.buf,
                           "W tlparse: warning: <memory>:2: Parser always_fails failed on "
                           "this entry\n"));
    assert_non_null(strstr(messages.buf, "fail_parser: 1"));
    /* The counts of the diagnosis come back. */
    assert_true(res.has_counts);
    /* [0/0] and [1/2]; the artifact's [-/-] belongs to no compilation */
    assert_int_equal(res.counts.compile_ids, 2);
    assert_int_equal(res.counts.graph_breaks, 0);
    assert_true(res.counts.compile_time_s < 0);
    tl_result_release(&res);
    assert_null(res.index_path);
}

/* Parsers with no keys take every entry of the log's rank. */
static int count_parser(void *ctx, const struct tl_entry *e, struct tl_parser_output *po)
{
    (void)e, (void)po;
    (*(int *)ctx)++;
    return 0;
}

static void test_parser_without_keys(void **state)
{
    (void)state;
    int calls = 0;
    struct tl_parser p = {"all", NULL, count_parser, &calls};
    struct tl_options o = mem_options(trace);
    o.parsers = &p;
    o.nparsers = 1;
    assert_int_equal(tl_run(&o, NULL), TL_EXIT_OK);
    assert_int_equal(calls, 4);
}

/* The counts of a trace with a graph break, a recompile and a failure (the demo). */
static void test_counts_of_demo(void **state)
{
    (void)state;
    struct tl_options o;
    memset(&o, 0, sizeof(o));
    o.path = TL_SOURCE_DIR "/tests/fixtures/demo.log";
    o.summary = TL_SUMMARY_JSON;
    o.message = on_message;
    struct tl_result res;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_OK);
    free(res.summary);
    assert_true(res.has_counts);
    /* [0/0], [0/1], [1/0] (its restart [1/0_1] is the same compilation), [2/0], [3/0] */
    assert_int_equal(res.counts.compile_ids, 5);
    assert_int_equal(res.counts.graph_breaks, 1);
    assert_int_equal(res.counts.recompiles, 1);
    assert_int_equal(res.counts.failures, 1);
    assert_int_equal(res.counts.specializations, 1);
    assert_int_equal(res.counts.export_problems, 0);
    assert_true(res.counts.compile_time_s > 1.63 && res.counts.compile_time_s < 1.65);
}

/* Options that do not go together are named as the caller names them: a library call by the
 * fields of struct tl_options, a command line (command_line set) by its flags; the first
 * clash of the table is said. */
static void test_option_clash_names(void **state)
{
    (void)state;
    struct tl_options o = mem_options("");
    o.rank_only = true;
    o.all_ranks_html = true;
    o.summary = TL_SUMMARY_JSON;
    struct tl_result res;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_USAGE);
    expect_text(messages.buf, "E tlparse: error: cannot use rank_only with all_ranks_html\n");
    tl_buf_release(&messages);
    o.command_line = "tlparse --rank-only --all-ranks-html --json";
    assert_int_equal(tl_run(&o, &res), TL_EXIT_USAGE);
    expect_text(messages.buf, "E tlparse: error: cannot use --rank-only with --all-ranks-html\n");
    tl_buf_release(&messages);
    o = mem_options("");
    o.plain_text = true;
    o.summary = TL_SUMMARY_TEXT;
    o.out_dir = NULL;
    o.overwrite = false;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_USAGE);
    expect_text(messages.buf, "E tlparse: error: cannot use plain_text with summary (they write "
                              "no report)\n");
    tl_buf_release(&messages);
    o = mem_options("");
    o.rank_failed = "oom";
    o.rank_only = true;
    o.out_dir = NULL;
    o.overwrite = false;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_USAGE);
    expect_text(messages.buf, "E tlparse: error: cannot use rank_failed without has_rank\n");
    tl_buf_release(&messages);
    o = mem_options("");
    o.has_port = true;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_USAGE);
    expect_text(messages.buf, "E tlparse: error: cannot use has_port without serve\n");
    tl_buf_release(&messages);
    o = mem_options("");
    o.serve = true;
    o.summary = TL_SUMMARY_JSON;
    o.out_dir = NULL;
    o.overwrite = false;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_USAGE);
    expect_text(messages.buf, "E tlparse: error: cannot use serve with summary (they write no "
                              "report)\n");
}

struct served {
    char url[128], root[256];
    bool had_index;
    int calls;
    volatile sig_atomic_t *cancel;
};

static void on_serving(void *ctx, const char *url, const char *root, const struct tl_result *res)
{
    struct served *s = ctx;
    s->calls++;
    snprintf(s->url, sizeof(s->url), "%s", url);
    snprintf(s->root, sizeof(s->root), "%s", root);
    s->had_index = res && res->index_path && res->has_counts;
    *s->cancel = 1; /* stops the serving at once */
}

/* serve: the report is written, then the caller told its URL, the folder and the result; the
 * cancel flag that stopped the serving is cleared, and the exit code is the report's. */
static void test_serve(void **state)
{
    (void)state;
    volatile sig_atomic_t cancel = 0;
    struct served s = {.cancel = &cancel};
    struct tl_options o = mem_options(P "{\"dynamo_start\": {\"stack\": []}, " CID(0, 0) "}\n");
    o.serve = true;
    o.has_port = true;
    o.port = 0;
    o.serving = on_serving;
    o.serving_ctx = &s;
    o.cancel = &cancel;
    struct tl_result res;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_OK);
    assert_int_equal(s.calls, 1);
    assert_int_equal(strncmp(s.url, "http://127.0.0.1:", 17), 0);
    assert_string_equal(s.url + strlen(s.url) - 1, "/");
    assert_string_equal(s.root, out);
    assert_true(s.had_index);
    assert_int_equal(cancel, 0);
    assert_non_null(res.index_path);
    tl_result_release(&res);
    /* no report written: nothing served */
    s.calls = 0;
    o.mem_input = "\x01\x02 not a log\n";
    o.mem_len = strlen(o.mem_input);
    assert_int_equal(tl_run(&o, &res), TL_EXIT_ERROR);
    assert_int_equal(s.calls, 0);
    tl_result_release(&res);
}

/* The options' size: a struct of an older, shorter header is read up to its size (the fields
 * after it are taken as zero: rank_only set past it is not seen); one larger than this
 * library's is refused, and so is a diff's. */
static void test_options_size(void **state)
{
    (void)state;
    struct tl_options o;
    tl_options_init(&o);
    assert_int_equal(o.size, sizeof(o));
    o.path = TL_SOURCE_DIR "/tests/fixtures/demo.log";
    o.summary = TL_SUMMARY_JSON;
    o.rank_only = true; /* clashes with summary, when read */
    o.message = on_message;
    tl_buf_release(&messages);
    struct tl_result res;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_USAGE);
    o.size = (uint32_t)(offsetof(struct tl_options, summary) + sizeof(o.summary));
    assert_int_equal(tl_run(&o, &res), TL_EXIT_OK);
    assert_non_null(res.summary);
    assert_int_equal(res.counts.compile_ids, 5);
    tl_result_release(&res);
    tl_buf_release(&messages);
    o.size = (uint32_t)sizeof(o) + 8;
    assert_int_equal(tl_run(&o, &res), TL_EXIT_USAGE);
    assert_null(res.summary);
    assert_non_null(strstr(messages.buf, "E tlparse: error: struct tl_options of "));
    assert_null(tl_feed_new(&o));
    struct tl_diff_options d = TL_DIFF_OPTIONS_INIT;
    d.before = d.after = TL_SOURCE_DIR "/tests/fixtures/demo.log";
    d.summary = TL_SUMMARY_JSON;
    d.size += 8;
    d.message = on_message;
    struct tl_diff_result dr;
    assert_int_equal(tl_diff_run(&d, &dr), TL_EXIT_USAGE);
    assert_null(dr.summary);
}

/* ---- tl_diff_run() ---------------------------------------------------------------------- */

#define DEMO TL_SOURCE_DIR "/tests/fixtures/demo.log"

static struct tl_diff_options diff_options(const char *before, const char *after)
{
    struct tl_diff_options o;
    memset(&o, 0, sizeof(o));
    o.before = before;
    o.after = after;
    o.message = on_message;
    tl_buf_release(&messages);
    return o;
}

static bool exists_in(const char *dir, const char *rel)
{
    char path[4400];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* The demo against itself, as JSON: no change, nothing counted, the same compile time. */
static void test_diff_same_json(void **state)
{
    (void)state;
    struct tl_diff_options o = diff_options(DEMO, DEMO);
    o.summary = TL_SUMMARY_JSON;
    struct tl_diff_result res;
    assert_int_equal(tl_diff_run(&o, &res), TL_EXIT_OK);
    assert_non_null(res.summary);
    assert_non_null(strstr(res.summary, "\"schema\": \"tlparse-diff/1\""));
    assert_non_null(strstr(res.summary, "\"changes\": 0,"));
    assert_null(res.index_path);
    assert_true(res.has_tally);
    const struct tl_diff_tally *t = &res.tally;
    assert_int_equal(t->new_failures, 0);
    assert_int_equal(t->new_recompiles, 0);
    assert_int_equal(t->new_graph_breaks, 0);
    assert_int_equal(t->new_specializations, 0);
    assert_int_equal(t->fixed_failures, 0);
    assert_int_equal(t->fixed_recompiles, 0);
    assert_int_equal(t->fixed_graph_breaks, 0);
    assert_int_equal(t->fixed_specializations, 0);
    assert_int_equal(t->frames_more, 0);
    assert_int_equal(t->frames_fewer, 0);
    assert_true(t->before_s > 0);
    assert_true(t->before_s == t->after_s);
    tl_diff_result_release(&res);
}

/* A folder: the page, diff.json and each side's report. */
static void test_diff_folder(void **state)
{
    (void)state;
    char dir[4300];
    snprintf(dir, sizeof(dir), "%s/diff", tmp);
    struct tl_diff_options o = diff_options(DEMO, DEMO);
    o.out_dir = dir;
    o.overwrite = true;
    struct tl_diff_result res;
    assert_int_equal(tl_diff_run(&o, &res), TL_EXIT_OK);
    assert_null(res.summary);
    assert_true(res.has_tally);
    char index[4400];
    snprintf(index, sizeof(index), "%s/index.html", dir);
    assert_string_equal(res.index_path, index);
    tl_diff_result_release(&res);
    assert_true(exists_in(dir, "index.html"));
    assert_true(exists_in(dir, "diff.json"));
    assert_true(exists_in(dir, "before/index.html"));
    assert_true(exists_in(dir, "before/summary.json"));
    assert_true(exists_in(dir, "after/index.html"));
    assert_true(exists_in(dir, "after/summary.json"));
}

/* A side that does not exist: an error naming it, and no folder left. Standard input on both
 * sides: a usage error. */
static void test_diff_errors(void **state)
{
    (void)state;
    const char *missing = TL_SOURCE_DIR "/tests/fixtures/no-such-run.log";
    char dir[4300];
    snprintf(dir, sizeof(dir), "%s/diff-missing", tmp);
    struct tl_diff_options o = diff_options(missing, DEMO);
    o.out_dir = dir;
    struct tl_diff_result res;
    assert_int_equal(tl_diff_run(&o, &res), TL_EXIT_ERROR);
    assert_false(res.has_tally);
    assert_null(res.summary);
    assert_null(res.index_path);
    assert_non_null(strstr(messages.buf, "E tlparse: error: "));
    assert_non_null(strstr(messages.buf, missing));
    struct stat st;
    assert_int_not_equal(stat(dir, &st), 0);

    o = diff_options(DEMO, missing);
    o.summary = TL_SUMMARY_TEXT;
    assert_int_equal(tl_diff_run(&o, &res), TL_EXIT_ERROR);
    assert_null(res.summary);
    assert_non_null(strstr(messages.buf, missing));

    o = diff_options("-", "-");
    o.summary = TL_SUMMARY_JSON;
    assert_int_equal(tl_diff_run(&o, &res), TL_EXIT_USAGE);
    assert_false(res.has_tally);
    assert_null(res.summary);
    assert_non_null(strstr(messages.buf, "E tlparse: error: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_entry),
        cmocka_unit_test(test_each_entry_stops),
        cmocka_unit_test(test_each_entry_text_log),
        cmocka_unit_test(test_custom_parsers),
        cmocka_unit_test(test_parser_without_keys),
        cmocka_unit_test(test_counts_of_demo),
        cmocka_unit_test(test_diff_same_json),
        cmocka_unit_test(test_diff_folder),
        cmocka_unit_test(test_diff_errors),
        cmocka_unit_test(test_option_clash_names),
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_options_size),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    tl_buf_release(&messages);
    return rc;
}
