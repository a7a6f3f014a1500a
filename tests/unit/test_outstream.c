/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * output/outstream.c: the memory and zip backends behind the tl_outdir_* front. Names are made
 * unique as the folder makes them, write_once keeps one copy of the same bytes, streamed files
 * (tl_outfile) land whole, sub-outputs written on two threads at once give contiguous entries,
 * and a zip is read back by python3's zipfile (every CRC checked); a failed run leaves nothing.
 */
#include "base/config.h"
#include "base/buf.h"
#include "output/outdir.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

/* Writes files of its own, as a sink does, into an output (a rank's on a worker thread). */
static void *write_some(void *arg)
{
    struct tl_outdir *o = arg;
    struct tl_err err;
    char big[70000];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (char)('a' + i % 23);
    struct tl_outfile f;
    assert_int_equal(tl_outfile_open(&f, o, "stream.txt", &err), 0);
    for (int i = 0; i < 50; i++) {
        char name[32];
        snprintf(name, sizeof(name), "d/f%d.txt", i);
        assert_int_equal(tl_outdir_write(o, name, big, (size_t)i * 1000, NULL, &err), 0);
        tl_buf_add(&f.buf, big, 1000);
        assert_int_equal(tl_outfile_maybe_flush(&f, &err), 0);
    }
    assert_int_equal(tl_outfile_close(&f, &err), 0);
    return NULL;
}

static const struct tl_buf *find(struct tl_outdir *o, const char *name)
{
    const char *const *names;
    const struct tl_buf *const *data;
    size_t n;
    assert_int_equal(tl_outdir_memory_files(o, &names, &data, &n), 0);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return data[i];
    return NULL;
}

/* The writes every backend gets: names as the folder gives them. */
static void common_writes(struct tl_outdir *o)
{
    struct tl_err err;
    struct tl_buf used = TL_BUF_INIT;
    assert_int_equal(tl_outdir_write(o, "index.html", "<html>", 6, NULL, &err), 0);
    assert_int_equal(tl_outdir_write_once(o, "payloads/a.txt", "one", 3, &used, &err), 0);
    assert_string_equal(used.buf, "payloads/a.txt");
    tl_buf_reset(&used);
    assert_int_equal(tl_outdir_write_once(o, "payloads/a.txt", "one", 3, &used, &err), 0);
    assert_string_equal(used.buf, "payloads/a.txt"); /* the same bytes: one copy */
    tl_buf_reset(&used);
    assert_int_equal(tl_outdir_write_once(o, "payloads/a.txt", "two", 3, &used, &err), 0);
    assert_true(strncmp(used.buf, "payloads/a~", 11) == 0 && strstr(used.buf, ".txt"));
    tl_buf_reset(&used);
    /* a file where a folder is, a folder where a file is: flat names in the top folder */
    assert_int_equal(tl_outdir_write(o, "top/a", "1", 1, &used, &err), 0);
    tl_buf_reset(&used);
    assert_int_equal(tl_outdir_write(o, "top/a/b.txt", "2", 1, &used, &err), 0);
    assert_string_equal(used.buf, "top/a_b.txt");
    tl_buf_reset(&used);
    assert_int_equal(tl_outdir_write(o, "top/a/b.txt", "3", 1, &used, &err), 0);
    assert_string_equal(used.buf, "top/a_b~1.txt");
    tl_buf_release(&used);
    /* two sub-outputs written at once */
    struct tl_outdir sub[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tl_outdir_open_sub(o, i ? "rank_1" : "rank_0", &sub[i], &err), 0);
        tl_outdir_write_behind(&sub[i], true);
        assert_int_equal(pthread_create(&t[i], NULL, write_some, &sub[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(tl_outdir_commit(&sub[i], &err), 0);
    }
}

static void test_memory(void **state)
{
    (void)state;
    struct tl_outdir o;
    struct tl_err err;
    tl_outdir_open_memory(&o);
    common_writes(&o);
    const struct tl_buf *b = find(&o, "index.html");
    assert_non_null(b);
    assert_memory_equal(b->buf, "<html>", 6);
    assert_int_equal(find(&o, "payloads/a.txt")->len, 3);
    assert_int_equal(find(&o, "top/a_b~1.txt")->buf[0], '3');
    assert_int_equal(find(&o, "rank_1/d/f49.txt")->len, 49000);
    /* a streamed file lands whole when its output is committed */
    b = find(&o, "rank_0/stream.txt");
    assert_non_null(b);
    assert_int_equal(b->len, 50000);
    /* read back works on memory; list does not (no folder) */
    struct tl_buf r = TL_BUF_INIT;
    assert_int_equal(tl_outdir_read(&o, "top/a", &r, 10, &err), 0);
    assert_string_equal(r.buf, "1");
    assert_int_equal(tl_outdir_read(&o, "rank_0/d/f2.txt", &r, 10, &err), -1);
    tl_buf_release(&r);
    /* the names the output gave, from its table, in name order */
    char **names;
    size_t n;
    assert_int_equal(tl_outdir_list(&o, "", true, &names, &n), 0);
    assert_int_equal(n, 5);
    const char *top[] = {"index.html", "payloads", "rank_0", "rank_1", "top"};
    for (size_t i = 0; i < n; i++)
        assert_string_equal(names[i], top[i]);
    tl_outdir_list_free(names, n);
    assert_int_equal(tl_outdir_list(&o, "top/", false, &names, &n), 0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "a_b.txt");
    assert_string_equal(names[2], "a_b~1.txt");
    tl_outdir_list_free(names, n);
    assert_int_equal(tl_outdir_list(&o, "rank_1/d", false, &names, &n), 0);
    assert_int_equal(n, 50);
    assert_string_equal(names[0], "f0.txt");
    tl_outdir_list_free(names, n);
    assert_int_equal(tl_outdir_list(&o, "index.html", false, &names, &n), -1);
    assert_int_equal(tl_outdir_list(&o, "nothing", false, &names, &n), -1);
    assert_true(tl_outdir_is_dir(&o, "top"));
    assert_true(tl_outdir_is_dir(&o, "rank_0/d"));
    assert_false(tl_outdir_is_dir(&o, "top/a"));
    assert_false(tl_outdir_is_dir(&o, "nothing"));
    assert_false(tl_outdir_is_dir(&o, ""));
    /* a sub-output aborted: none of its files is in the output */
    struct tl_outdir gone;
    assert_int_equal(tl_outdir_open_sub(&o, "rank_2", &gone, &err), 0);
    assert_int_equal(tl_outdir_write(&gone, "index.html", "<p>", 3, NULL, &err), 0);
    struct tl_outfile g;
    assert_int_equal(tl_outfile_open(&g, &gone, "raw.jsonl", &err), 0);
    tl_buf_adds(&g.buf, "{}");
    assert_int_equal(tl_outfile_close(&g, &err), 0);
    tl_outdir_abort(&gone);
    assert_null(find(&o, "rank_2/index.html"));
    assert_null(find(&o, "rank_2/raw.jsonl"));
    /* a spool outside the output: not a file of it */
    struct tl_outfile f;
    assert_int_equal(tl_outfile_open_spool(&f, &o, "spool", &err), 0);
    tl_buf_adds(&f.buf, "body");
    assert_int_equal(tl_outfile_close(&f, &err), 0);
    assert_null(find(&o, "spool"));
    /* a file replaced at once (a live report's status), read back in pieces */
    assert_int_equal(tl_outdir_replace(&o, "live.js", "old", 3, &err), 0);
    assert_int_equal(tl_outdir_replace(&o, "live.js", "new!", 4, &err), 0);
    struct tl_outread rd;
    char piece[8];
    assert_int_equal(tl_outdir_read_open(&o, "live.js", &rd, &err), 0);
    assert_int_equal(tl_outread_some(&rd, piece, sizeof(piece)), 4);
    assert_memory_equal(piece, "new!", 4);
    assert_int_equal(tl_outread_some(&rd, piece, sizeof(piece)), 0);
    tl_outread_close(&rd);
    assert_int_equal(tl_outdir_commit(&o, &err), 0);
}

static void test_zip(void **state)
{
    (void)state;
    char dir[] = "/tmp/tl-outstream-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct tl_buf path = TL_BUF_INIT;
    tl_buf_addf(&path, "%s/r.zip", dir);
    struct tl_outdir o;
    struct tl_err err;
    assert_int_equal(tl_outdir_open_zip(&o, path.buf, false, &err), 0);
    common_writes(&o);
    /* read back is refused with a clear message */
    struct tl_buf r = TL_BUF_INIT;
    assert_int_equal(tl_outdir_read(&o, "index.html", &r, 100, &err), -1);
    assert_non_null(strstr(err.msg, "cannot read index.html back from the archive"));
    tl_buf_release(&r);
    struct stat st;
    assert_int_equal(lstat(path.buf, &st), -1); /* not there until committed */
    assert_int_equal(tl_outdir_commit(&o, &err), 0);
    struct tl_buf cmd = TL_BUF_INIT;
    tl_buf_addf(&cmd,
                "python3 -c 'import sys, zipfile\n"
                "z = zipfile.ZipFile(sys.argv[1])\n"
                "assert z.testzip() is None\n"
                "n = z.namelist()\n"
                "assert all(x.startswith(\"r/\") for x in n), n\n"
                "assert len(n) == len(set(n)), n\n"
                "assert z.read(\"r/index.html\") == b\"<html>\"\n"
                "assert z.read(\"r/payloads/a.txt\") == b\"one\"\n"
                "assert z.read(\"r/top/a_b~1.txt\") == b\"3\"\n"
                "for k in (0, 1):\n"
                "    s = z.read(\"r/rank_%%d/stream.txt\" %% k)\n"
                "    assert len(s) == 50000 and s[:3] == b\"abc\", len(s)\n"
                "    assert len(z.read(\"r/rank_%%d/d/f49.txt\" %% k)) == 49000\n"
                "assert len(n) == 6 + 2 * 51, len(n)\n"
                "' '%s'",
                path.buf);
    assert_int_equal(system(cmd.buf), 0);
    /* an existing bundle: refused without overwrite; an aborted run leaves the old one alone */
    assert_int_equal(tl_outdir_open_zip(&o, path.buf, false, &err), -1);
    assert_int_equal(err.code, TL_ERR_EXISTS);
    assert_int_equal(tl_outdir_open_zip(&o, path.buf, true, &err), 0);
    assert_int_equal(tl_outdir_write(&o, "index.html", "x", 1, NULL, &err), 0);
    tl_outdir_abort(&o);
    tl_outdir_abort(&o); /* twice is safe */
    assert_int_equal(system(cmd.buf), 0);
    tl_buf_reset(&cmd);
    tl_buf_addf(&cmd, "test \"$(ls -A '%s')\" = r.zip && rm -rf '%s'", dir, dir);
    assert_int_equal(system(cmd.buf), 0);
    tl_buf_release(&cmd);
    tl_buf_release(&path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_zip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
