/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_feed_*(): a log fed as bytes, in pieces of every size, makes the report tl_run() makes of
 * the same log as a file, file for file and byte for byte (the footer's input size and time
 * aside, which a feed does not know), and the same --json; a buffer that is no log, options
 * for several logs, and a run freed before its end leave nothing behind.
 */
#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/buf.h"
#include "capture.h"
#include "testutil.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

static char tmp[64];

static int setup(void **state)
{
    (void)state;
    return tu_mkdtemp(tmp, sizeof(tmp), "feed");
}

static int teardown(void **state)
{
    (void)state;
    tl_buf_release(&messages);
    return tu_rmtree(tmp);
}

/* text without what says where the input came from: the footer of an index page, the
 * "generated_by" member of a summary (its lines up to the closing brace). */
static void strip_runinfo(char *text)
{
    char *a = strstr(text, "<footer class='runinfo'>");
    if (a) {
        char *b = strstr(a, "</footer>");
        if (b)
            memmove(a, b + 9, strlen(b + 9) + 1);
    }
    a = strstr(text, "\"generated_by\": {");
    if (a) {
        char *b = strstr(a, "}");
        if (b)
            memmove(a, b + 1, strlen(b + 1) + 1);
    }
}

/* Every file of a (relative rel) equal to the same file of b, and b holding no other. */
static void same_tree(const char *a, const char *b, const char *rel, size_t *files)
{
    char pa[4200], pb[4200];
    snprintf(pa, sizeof(pa), "%s%s%s", a, *rel ? "/" : "", rel);
    snprintf(pb, sizeof(pb), "%s%s%s", b, *rel ? "/" : "", rel);
    DIR *d = opendir(pa);
    assert_non_null(d);
    size_t na = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        na++;
        char sub[2048], fa[4200];
        snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(fa, sizeof(fa), "%s/%s", a, sub);
        struct stat st;
        assert_int_equal(stat(fa, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            same_tree(a, b, sub, files);
            continue;
        }
        size_t la, lb;
        char *ta = tu_slurp_in(a, sub, &la), *tb = tu_slurp_in(b, sub, &lb);
        if (!tb)
            fail_msg("%s: missing from the fed report", sub);
        if (!strcmp(e->d_name, "index.html") || !strcmp(e->d_name, "summary.json")) {
            strip_runinfo(ta);
            strip_runinfo(tb);
            la = strlen(ta);
            lb = strlen(tb);
        }
        if (la != lb || memcmp(ta, tb, la) != 0)
            fail_msg("%s differs (%zu and %zu bytes)", sub, la, lb);
        free(ta);
        free(tb);
        (*files)++;
    }
    closedir(d);
    size_t nb = 0;
    d = opendir(pb);
    assert_non_null(d);
    while ((e = readdir(d)))
        nb += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    assert_int_equal(na, nb);
}

/* A fed run of the bytes of path in pieces of chunk bytes (0: sizes 1, 2, 3... cycling). */
static int feed_file(const struct tl_options *opt, const char *path, size_t chunk,
                     struct tl_result *res)
{
    size_t n;
    char *bytes = tu_slurp(path, &n);
    assert_non_null(bytes);
    struct tl_feed *f = tl_feed_new(opt);
    assert_non_null(f);
    size_t step = 1;
    for (size_t at = 0; at < n;) {
        size_t k = chunk ? chunk : step;
        step = step % 97 + 1;
        if (k > n - at)
            k = n - at;
        assert_int_equal(tl_feed_bytes(f, bytes + at, k), TL_EXIT_OK);
        at += k;
    }
    int rc = tl_feed_finish(f, res);
    tl_feed_free(f);
    free(bytes);
    return rc;
}

static struct tl_options options(const char *path, const char *out)
{
    struct tl_options o;
    memset(&o, 0, sizeof(o));
    o.path = path;
    o.out_dir = out;
    o.overwrite = true;
    o.year = 2024;
    o.no_threads = true;
    o.message = on_message;
    return o;
}

static void check_report(const char *log, bool export_mode, bool plain)
{
    static const size_t chunks[] = {0, 4096, 1 << 20};
    char want[128], got[128];
    snprintf(want, sizeof(want), "%s/want", tmp);
    struct tl_options o = options(log, want);
    o.export_mode = export_mode;
    o.plain_text = plain;
    struct tl_result rw, rg;
    int code = tl_run(&o, &rw);
    for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        snprintf(got, sizeof(got), "%s/got%zu", tmp, i);
        o.out_dir = got;
        assert_int_equal(feed_file(&o, log, chunks[i], &rg), code);
        assert_int_equal(rg.bytes_in, rw.bytes_in);
        assert_int_equal(rg.lines, rw.lines);
        assert_memory_equal(&rg.counts, &rw.counts, sizeof(rg.counts));
        size_t files = 0;
        same_tree(want, got, "", &files);
        assert_true(files >= 3);
        assert_non_null(rg.index_path);
        tl_result_release(&rg);
        o.out_dir = want;
    }
    tl_result_release(&rw);
}

static void test_reports(void **state)
{
    (void)state;
    check_report(TL_SOURCE_DIR "/tests/fixtures/demo.log", false, false);
    check_report(TL_SOURCE_DIR "/tests/fixtures/demo.log", false, true);
    check_report(TL_SOURCE_DIR "/tests/fixtures/edge.log", false, false);
    check_report(TL_SOURCE_DIR "/tests/fixtures/shapes.log", false, false);
    check_report(TL_SOURCE_DIR "/tests/fixtures/pt213_trace_limit.log", false, false);
    check_report(TL_SOURCE_DIR "/tests/fixtures/export_kinds.log", true, false);
    check_report(TL_SOURCE_DIR "/tests/fixtures/torch_logs/pt26_breaks_optimizer_suppressed.txt",
                 false, false);
}

/* --json of a fed log is tl_run()'s. */
static void test_json(void **state)
{
    (void)state;
    const char *log = TL_SOURCE_DIR "/tests/fixtures/pt213_trace_float.log";
    struct tl_options o = options(log, NULL);
    o.overwrite = false;
    o.summary = TL_SUMMARY_JSON;
    struct tl_result rw, rg;
    assert_int_equal(tl_run(&o, &rw), TL_EXIT_OK);
    assert_int_equal(feed_file(&o, log, 0, &rg), TL_EXIT_OK);
    assert_non_null(rg.summary);
    strip_runinfo(rw.summary);
    strip_runinfo(rg.summary);
    assert_string_equal(rg.summary, rw.summary);
    tl_result_release(&rw);
    tl_result_release(&rg);
}

/* Bytes that are no log: the error tl_run() gives, and no folder. Options for several logs
 * are refused. A feed freed before its end leaves nothing. */
static void test_refused(void **state)
{
    (void)state;
    char out[128];
    snprintf(out, sizeof(out), "%s/none", tmp);
    struct tl_options o = options("x.bin", out);
    tl_buf_reset(&messages);
    struct tl_feed *f = tl_feed_new(&o);
    assert_non_null(f);
    static const char junk[] = "\x01\x02\x03 not a log at all\n\x7f\x00\x00binary\n";
    assert_int_equal(tl_feed_bytes(f, junk, sizeof(junk)), TL_EXIT_OK);
    assert_int_equal(tl_feed_finish(f, NULL), TL_EXIT_ERROR);
    tl_feed_free(f);
    assert_non_null(strstr(messages.buf, "E tlparse: error: x.bin is not a TORCH_TRACE log"));
    struct stat st;
    assert_int_not_equal(stat(out, &st), 0);

    o.all_ranks_html = true;
    tl_buf_reset(&messages);
    assert_null(tl_feed_new(&o));
    assert_string_equal(messages.buf, "E tlparse: error: cannot use all_ranks_html with a log "
                                      "fed as bytes (tl_feed_new: one log)\n");

    o.all_ranks_html = false;
    o.serve = true;
    tl_buf_reset(&messages);
    assert_null(tl_feed_new(&o));
    assert_string_equal(messages.buf, "E tlparse: error: cannot use serve with a log fed as bytes "
                                      "(tl_feed_new): only tl_run() and tl_watch() serve a "
                                      "report\n");

    o.serve = false;
    f = tl_feed_new(&o);
    size_t n;
    char *demo = tu_slurp(TL_SOURCE_DIR "/tests/fixtures/demo.log", &n);
    assert_int_equal(tl_feed_bytes(f, demo, n), TL_EXIT_OK);
    tl_feed_free(f);
    free(demo);
    assert_int_not_equal(stat(out, &st), 0);
    DIR *d = opendir(tmp);
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            fail_msg("left behind: %s", e->d_name);
    closedir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reports),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
