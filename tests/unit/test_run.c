/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the engine, sinks and modes through tl_run() on logs held in
 * memory: every message goes to the callback, in line order and with exact text; options
 * replace the environment (year, threads); files of the report have their exact contents;
 * a failures row links the metrics page that was written even when its name had to change;
 * an existing folder, an interruption and the leftovers of a killed run.
 */
#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/buf.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[64];
static char out[4200];

/* Every message of a run: one line each, with its kind as a one-letter prefix. */
struct messages {
    struct tl_buf text;
    int n;
};

static void on_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    struct messages *m = ctx;
    tl_buf_addch(&m->text, kind == TL_MSG_INFO ? 'I' : kind == TL_MSG_WARNING ? 'W' : 'E');
    tl_buf_addch(&m->text, ' ');
    tl_buf_adds(&m->text, line);
    tl_buf_addch(&m->text, '\n');
    m->n++;
}

static int setup(void **state)
{
    (void)state;
    if (tu_mkdtemp(tmp, sizeof(tmp), "run") != 0)
        return -1;
    snprintf(out, sizeof(out), "%s/out", tmp);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tu_rmtree(tmp);
}

static void clean_out(void)
{
    char cmd[4300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'/.out.tlparse-*", out, tmp);
    assert_int_equal(system(cmd), 0);
}

/* Run tl_run on text with the messages captured; returns the exit code. */
static int run(const char *text, struct messages *m, struct tl_options *extra)
{
    struct tl_options o;
    memset(&o, 0, sizeof(o));
    if (extra)
        o = *extra;
    o.mem_input = text;
    o.mem_len = strlen(text);
    o.out_dir = out;
    o.year = o.year ? o.year : 2024;
    o.message = on_message;
    o.message_ctx = m;
    tl_buf_init(&m->text, 0);
    m->n = 0;
    return tl_run(&o, NULL);
}

static void expect_text(const char *got, const char *want)
{
    if (!got || strcmp(got, want) != 0) {
        print_error("got:\n%s\nwant:\n%s\n", got ? got : "(null)", want);
        fail();
    }
}

#define P "V1121 10:00:00.000123 7 torch/x.py:1] "
#define CID "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0"

/* Warnings name the log and line, in line order, before the Stats line. */
static void test_messages_in_order(void **state)
{
    (void)state;
    clean_out();
    const char *log = "not a trace line\n" P "{\"dynamo_start\": {}, " CID "}\n" P "{bad json\n" P
                      "{\"dynamo_output_graph\": {}, " CID ", \"has_payload\": \"0000\"}\n"
                      "\tgraph()\n" P "{\"str\": [\"x.py\", 2000000]}\n";
    struct messages m;
    assert_int_equal(run(log, &m, NULL), TL_EXIT_OK);
    expect_text(m.text.buf,
                "W tlparse: warning: <memory>:1: Failed to parse glog prefix\n"
                "W tlparse: warning: <memory>:3: Failed to parse metadata JSON: key must be a "
                "string at column 2\n"
                "W tlparse: warning: <memory>:4: payload md5 mismatch (has_payload 0000, "
                "payload c44ce4fac8005fd0fa04c1eb22ea05c6)\n"
                "W tlparse: warning: <memory>:6: string table id 2000000 is too large; entry "
                "ignored\n"
                "I Stats { ok: 2, fail_glog: 1, fail_json: 1, fail_payload_md5: 1, "
                "fail_str_table: 1 }\n");
    tl_buf_release(&m.text);
}

/* The year of raw.jsonl timestamps is an option (the CLI reads TLPARSE_YEAR). */
static void test_year_option(void **state)
{
    (void)state;
    clean_out();
    struct tl_options o;
    memset(&o, 0, sizeof(o));
    o.year = 1999;
    o.no_threads = true;
    struct messages m;
    assert_int_equal(run(P "{\"dynamo_start\": {}, " CID "}\n", &m, &o), TL_EXIT_OK);
    char *raw = tu_slurp_in(out, "raw.jsonl", NULL);
    expect_text(raw, "{\"string_table\":[null]}\n"
                     "{\"attempt\":0,\"dynamo_start\":{},\"frame_compile_id\":0,\"frame_id\":0,"
                     "\"lineno\":1,\"pathname\":\" torch/x.py\",\"thread\":7,\"timestamp\":"
                     "\"1999-11-21T10:00:00.000123Z\"}\n");
    free(raw);
    tl_buf_release(&m.text);
}

/* A metrics page whose name is taken by a folder gets another name; the failures row links
 * the page that was written. */
static void test_failure_row_links_page_written(void **state)
{
    (void)state;
    clean_out();
    const char *log =
        P "{\"artifact\": {\"name\": \"compilation_metrics_1.html/x\", "
          "\"encoding\": \"string\"}, " CID ", \"has_payload\": "
          "\"9dd4e461268c8034f5c8564e155c67a6\"}\n"
          "\tx\n" P "{\"compilation_metrics\": {\"restart_reasons\": [\"r<1>\"]}, " CID "}\n";
    struct messages m;
    assert_int_equal(run(log, &m, NULL), TL_EXIT_OK);
    char *dir = tu_slurp_in(out, "compile_directory.json", NULL);
    assert_non_null(dir);
    /* the page's name: the wanted one was a folder */
    const char *url = strstr(dir, "\"url\": \"-_0_0_0/compilation_metrics_1~");
    assert_non_null(url);
    char page[128];
    assert_int_equal(sscanf(url, "\"url\": \"%127[^\"]\"", page), 1);
    char *failures = tu_slurp_in(out, "failures_and_restarts.html", NULL);
    char want[400];
    snprintf(want, sizeof(want),
             "<tr> <td> <a href='%s'>[0/0]</a>  </td><td> RestartAnalysis </td><td><pre>"
             "r&lt;1&gt;</pre></td>",
             page);
    if (!strstr(failures, want)) {
        print_error("no row %s in\n%s\n", want, failures);
        fail();
    }
    free(failures);
    free(dir);
    tl_buf_release(&m.text);
}

/* An existing folder is refused without --overwrite, with the reference's message. */
static void test_existing_folder(void **state)
{
    (void)state;
    clean_out();
    assert_int_equal(mkdir(out, 0755), 0);
    struct messages m;
    assert_int_equal(run(P "{\"dynamo_start\": {}, " CID "}\n", &m, NULL), TL_EXIT_ERROR);
    char want[4400];
    snprintf(want, sizeof(want),
             "E tlparse: error: Directory %s already exists; pass --overwrite to replace it or "
             "use -o OUTDIR\n",
             out);
    expect_text(m.text.buf, want);
    tl_buf_release(&m.text);
}

/* An interrupted run writes nothing and says so. */
static void test_interrupted(void **state)
{
    (void)state;
    clean_out();
    volatile sig_atomic_t cancel = 1;
    struct tl_options o;
    memset(&o, 0, sizeof(o));
    o.cancel = &cancel;
    struct messages m;
    int rc = run(P "{\"dynamo_start\": {}, " CID "}\n", &m, &o);
    assert_int_equal(rc, TL_EXIT_INTERRUPTED);
    expect_text(m.text.buf, "E tlparse: interrupted; no report written\n");
    struct stat st;
    assert_int_equal(stat(out, &st), -1);
    tl_buf_release(&m.text);
}

/* The temporary folder of a run whose process is gone is removed by the next run. */
static void test_leftover_removed(void **state)
{
    (void)state;
    clean_out();
    char dead[4400], owner[4500], host[256];
    snprintf(dead, sizeof(dead), "%s/.out.tlparse-Zz9Zz9", tmp);
    assert_int_equal(mkdir(dead, 0700), 0);
    snprintf(owner, sizeof(owner), "%s/.tlparse-owner", dead);
    assert_int_equal(gethostname(host, sizeof(host)), 0);
    FILE *f = fopen(owner, "w");
    assert_non_null(f);
    /* pid 2^22 + 1 is above the kernel's pid_max: no process has it. */
    fprintf(f, "%s 4194305 12345\n", host);
    fclose(f);
    struct messages m;
    assert_int_equal(run(P "{\"dynamo_start\": {}, " CID "}\n", &m, NULL), TL_EXIT_OK);
    char want[4500];
    snprintf(want, sizeof(want),
             "W tlparse: warning: removed 1 unfinished report folder of killed runs into %s: "
             ".out.tlparse-Zz9Zz9\nI Stats { ok: 1 }\n",
             out);
    expect_text(m.text.buf, want);
    struct stat st;
    assert_int_equal(stat(dead, &st), -1);
    tl_buf_release(&m.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_messages_in_order),
        cmocka_unit_test(test_year_option),
        cmocka_unit_test(test_failure_row_links_page_written),
        cmocka_unit_test(test_existing_folder),
        cmocka_unit_test(test_interrupted),
        cmocka_unit_test(test_leftover_removed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
