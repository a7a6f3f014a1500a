/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * output/zip.c: archives checked by another implementation (python3's zipfile, which reads as
 * unzip does and checks every CRC): small files, an empty one, bytes of every value, names in
 * UTF-8; more files than 16 bits count (the ZIP64 end records); a file over 4 GiB (ZIP64
 * sizes in its local header, data descriptor and central directory entry); a name written
 * twice (the last kept, as in a folder: unzip extracts it without asking); a failed write.
 */
#include "base/config.h"
#include "output/zip.h"
#include "base/buf.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

static char *tmp_path(void)
{
    char *p = strdup("/tmp/tl-zip-test-XXXXXX");
    int fd = mkstemp(p);
    assert_true(fd >= 0);
    close(fd);
    return p;
}

/* python3 checks the archive: every CRC, then the script's own assertions (exit 0). */
static int python_check(const char *zip, const char *script)
{
    struct tl_buf cmd = TL_BUF_INIT;
    tl_buf_addf(&cmd,
                "python3 -c 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n"
                "assert z.testzip() is None\n%s' '%s'",
                script, zip);
    int rc = system(cmd.buf);
    tl_buf_release(&cmd);
    return rc;
}

static void add(struct tl_zip *z, const char *name, const void *p, size_t n)
{
    struct tl_err err;
    assert_int_equal(tl_zip_file_begin(z, name, 1700000000, n, &err), 0);
    /* in two pieces, as a file is read */
    assert_int_equal(tl_zip_file_data(z, p, n / 2, &err), 0);
    assert_int_equal(tl_zip_file_data(z, (const char *)p + n / 2, n - n / 2, &err), 0);
    assert_int_equal(tl_zip_file_end(z, &err), 0);
}

static void test_small(void **state)
{
    (void)state;
    char *path = tmp_path();
    int fd = open(path, O_WRONLY | O_TRUNC);
    struct tl_zip *z = tl_zip_new(fd);
    unsigned char all[256 * 4];
    for (size_t i = 0; i < sizeof(all); i++)
        all[i] = (unsigned char)i;
    add(z, "index.html", "<html>hi</html>\n", 16);
    add(z, "empty.txt", "", 0);
    add(z, "-_0_0_0/bytes.bin", all, sizeof(all));
    add(z, "caf\xc3\xa9/\xe2\x86\x92.txt", "utf-8\n", 6);
    struct tl_err err;
    assert_int_equal(tl_zip_close(z, &err), 0);
    tl_zip_free(z);
    close(fd);
    assert_int_equal(
        python_check(
            path, "assert z.namelist() == [\"index.html\", \"empty.txt\", \"-_0_0_0/bytes.bin\", "
                  "\"caf\\u00e9/\\u2192.txt\"], z.namelist()\n"
                  "assert z.read(\"index.html\") == b\"<html>hi</html>\\n\"\n"
                  "assert z.read(\"empty.txt\") == b\"\"\n"
                  "assert z.read(\"-_0_0_0/bytes.bin\") == bytes(range(256)) * 4\n"
                  "assert z.getinfo(\"index.html\").date_time == (2023, 11, 14, 22, 13, 20)\n"),
        0);
    unlink(path);
    free(path);
}

/* 70 000 files: the count does not fit the plain end record's 16 bits. */
static void test_many(void **state)
{
    (void)state;
    char *path = tmp_path();
    int fd = open(path, O_WRONLY | O_TRUNC);
    struct tl_zip *z = tl_zip_new(fd);
    for (int i = 0; i < 70000; i++) {
        char name[32], body[16];
        snprintf(name, sizeof(name), "x/%05d.txt", i);
        int n = snprintf(body, sizeof(body), "%d\n", i);
        add(z, name, body, (size_t)n);
    }
    struct tl_err err;
    assert_int_equal(tl_zip_close(z, &err), 0);
    tl_zip_free(z);
    close(fd);
    assert_int_equal(python_check(path, "n = z.namelist()\nassert len(n) == 70000\n"
                                        "assert z.read(\"x/69999.txt\") == b\"69999\\n\"\n"),
                     0);
    unlink(path);
    free(path);
}

/* A file of 4 GiB + 1 MiB of zeros: ZIP64 sizes (it compresses to about 4 MiB). */
static void test_big(void **state)
{
    (void)state;
    char *path = tmp_path();
    int fd = open(path, O_WRONLY | O_TRUNC);
    struct tl_zip *z = tl_zip_new(fd);
    struct tl_err err;
    const uint64_t size = (4ull << 30) + (1u << 20);
    add(z, "before.txt", "a\n", 2);
    assert_int_equal(tl_zip_file_begin(z, "raw.log", 0, size, &err), 0);
    size_t chunk = 8u << 20;
    char *zeros = calloc(1, chunk);
    for (uint64_t done = 0; done < size; done += chunk)
        assert_int_equal(
            tl_zip_file_data(z, zeros, (size_t)(size - done < chunk ? size - done : chunk), &err),
            0);
    free(zeros);
    assert_int_equal(tl_zip_file_end(z, &err), 0);
    add(z, "after.txt", "b\n", 2);
    assert_int_equal(tl_zip_close(z, &err), 0);
    tl_zip_free(z);
    close(fd);
    /* the sizes as read back; CRCs were checked by testzip() */
    assert_int_equal(python_check(path, "i = z.getinfo(\"raw.log\")\n"
                                        "assert i.file_size == 4 * 2**30 + 2**20, i.file_size\n"
                                        "assert z.read(\"after.txt\") == b\"b\\n\"\n"),
                     0);
    unlink(path);
    free(path);
}

/* A name given twice: the archive lists it once, with the later bytes (as the folder keeps the
 * file written last), and unzip extracts it without asking whether to replace it. */
static void test_twice(void **state)
{
    (void)state;
    char *path = tmp_path();
    int fd = open(path, O_WRONLY | O_TRUNC);
    struct tl_zip *z = tl_zip_new(fd);
    add(z, "dump_file/f.html", "first\n", 6);
    add(z, "index.html", "i\n", 2);
    add(z, "dump_file/f.html", "second\n", 7);
    add(z, "dump_file/f.html", "third\n", 6);
    struct tl_err err;
    assert_int_equal(tl_zip_close(z, &err), 0);
    tl_zip_free(z);
    close(fd);
    assert_int_equal(python_check(path, "assert z.namelist() == [\"index.html\", "
                                        "\"dump_file/f.html\"], z.namelist()\n"
                                        "assert z.read(\"dump_file/f.html\") == b\"third\\n\"\n"),
                     0);
    struct tl_buf cmd = TL_BUF_INIT;
    tl_buf_addf(&cmd,
                "d=$(mktemp -d) && cd \"$d\" && unzip -q '%s' </dev/null >/dev/null 2>&1 && "
                "[ \"$(cat dump_file/f.html)\" = third ]; rc=$?; rm -rf \"$d\"; exit $rc",
                path);
    assert_int_equal(system(cmd.buf), 0);
    tl_buf_release(&cmd);
    unlink(path);
    free(path);
}

/* A write that fails is an error with a message, not a short file (the archive's fd is open
 * for reading only, so every write fails). */
static void test_write_error(void **state)
{
    (void)state;
    char *path = tmp_path();
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct tl_zip *z = tl_zip_new(fd);
    struct tl_err err = {TL_ERR_NONE, ""};
    char big[4096];
    memset(big, 'x', sizeof(big));
    int rc = tl_zip_file_begin(z, "a.txt", 0, sizeof(big), &err);
    for (int i = 0; rc == 0 && i < 2000; i++)
        rc = tl_zip_file_data(z, big, sizeof(big), &err);
    if (rc == 0)
        rc = tl_zip_file_end(z, &err);
    if (rc == 0)
        rc = tl_zip_close(z, &err);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.msg, "cannot write the archive: Bad file descriptor"));
    tl_zip_free(z);
    close(fd);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),       cmocka_unit_test(test_many),
        cmocka_unit_test(test_big),         cmocka_unit_test(test_twice),
        cmocka_unit_test(test_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
