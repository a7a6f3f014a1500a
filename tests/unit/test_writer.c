/* SPDX-License-Identifier: BSD-3-Clause */
/* Write-behind: files written in order with their exact bytes, threaded or
 * not; the first failure kept and reported by every later call; open files
 * in flight bounded. */
#include "base/config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "output/writer.h"
#include "testutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
    (void)state;
    return tu_mkdtemp(dir, sizeof(dir), "writer");
}

static int teardown(void **state)
{
    (void)state;
    return tu_rmtree(dir);
}

/* The file name of dir, opened with flags. */
static int open_in_dir(const char *name, int flags)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, flags | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    return fd;
}

static int create(const char *name)
{
    return open_in_dir(name, O_WRONLY | O_CREAT | O_TRUNC);
}

/* The bytes of the file name of dir, NUL-terminated; valid until the next call. */
static const char *slurp(const char *name)
{
    static char *last;
    free(last);
    last = tu_slurp_in(dir, name, NULL);
    assert_non_null(last);
    return last;
}

static void files_in_order(bool threads)
{
    /* max_inflight of 16 bytes: nearly every call waits for room */
    struct tl_writer *w = tl_writer_new("T", 16, threads);
    assert_int_equal(tl_writer_threaded(w), threads);
    struct tl_err err = {0};
    struct tl_buf b = TL_BUF_INIT;
    int stream = create("stream.txt");
    for (int i = 0; i < 300; i++) {
        char name[32], text[64];
        snprintf(name, sizeof(name), "f%03d.txt", i);
        int n = snprintf(text, sizeof(text), "file %d\n", i);
        assert_int_equal(tl_writer_write(w, create(name), true, text, (size_t)n, name, &err), 0);
        /* a stream: many appends to one file, the last one closes it */
        tl_buf_reset(&b);
        tl_buf_addf(&b, "%d,", i);
        assert_int_equal(tl_writer_give(w, stream, i == 299, &b, "stream.txt", &err), 0);
        /* handed over: the caller's buffer is empty again */
        assert_int_equal(b.len, 0);
    }
    assert_int_equal(tl_writer_sync(w, &err), 0);
    assert_string_equal(slurp("f000.txt"), "file 0\n");
    assert_string_equal(slurp("f299.txt"), "file 299\n");
    const char *s = slurp("stream.txt");
    assert_int_equal(strncmp(s, "0,1,2,3,", 8), 0);
    assert_non_null(strstr(s, ",298,299,"));
    assert_int_equal(s[strlen(s) - 1], ',');
    tl_buf_release(&b);
    tl_writer_free(w);
}

static void test_files_in_order_threaded(void **state)
{
    (void)state;
    files_in_order(true);
}

static void test_files_in_order_sync(void **state)
{
    (void)state;
    files_in_order(false);
}

static void first_failure_kept(bool threads)
{
    struct tl_writer *w = tl_writer_new("out/dir", 1 << 20, threads);
    struct tl_err err = {0};
    assert_int_equal(tl_writer_write(w, create("a.txt"), true, "a", 1, "a.txt", &err), 0);
    /* a file open for reading only: writing it fails with EBADF */
    char path[256];
    snprintf(path, sizeof(path), "%s/a.txt", dir);
    int ro = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(ro >= 0);
    int rc = tl_writer_write(w, ro, true, "bad", 3, "x/bad.txt", &err);
    if (threads) {
        /* reported later */
        assert_int_equal(rc, 0);
        assert_int_equal(tl_writer_sync(w, &err), -1);
    } else {
        assert_int_equal(rc, -1);
    }
    assert_string_equal(err.msg, "cannot write out/dir/x/bad.txt: Bad file descriptor");
    /* every later call says the same, and writes nothing */
    memset(&err, 0, sizeof(err));
    int fd = create("later.txt");
    assert_int_equal(tl_writer_write(w, fd, true, "later", 5, "later.txt", &err), -1);
    assert_string_equal(err.msg, "cannot write out/dir/x/bad.txt: Bad file descriptor");
    assert_string_equal(slurp("later.txt"), "");
    /* the fd was closed all the same */
    assert_int_equal(fcntl(fd, F_GETFD), -1);
    memset(&err, 0, sizeof(err));
    assert_int_equal(tl_writer_sync(w, &err), -1);
    assert_string_equal(err.msg, "cannot write out/dir/x/bad.txt: Bad file descriptor");
    assert_string_equal(slurp("a.txt"), "a");
    tl_writer_free(w);
}

static void test_first_failure_kept_threaded(void **state)
{
    (void)state;
    first_failure_kept(true);
}

static void test_first_failure_kept_sync(void **state)
{
    (void)state;
    first_failure_kept(false);
}

static void *drain_later(void *arg)
{
    int fd = *(int *)arg;
    usleep(1000 * 1000); /* longer than queueing 2000 files takes */
    char buf[4096];
    while (read(fd, buf, sizeof(buf)) > 0) {
    }
    return NULL;
}

static void test_sync_file(void **state)
{
    (void)state;
    struct tl_writer *w = tl_writer_new("T", 1 << 20, true);
    struct tl_err err = {0};
    /* The worker is held up by a full pipe first: the files below are still
     * queued when sync_file is called, so it must wait for them. */
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pthread_t reader;
    assert_int_equal(pthread_create(&reader, NULL, drain_later, &pfd[0]), 0);
    static char big[1 << 18];
    assert_int_equal(tl_writer_write(w, pfd[1], true, big, sizeof(big), "pipe", &err), 0);
    for (int i = 0; i < 20; i++) {
        char name[32];
        snprintf(name, sizeof(name), "s%02d.txt", i);
        assert_int_equal(tl_writer_write(w, create(name), true, name, 7, name, &err), 0);
    }
    /* once sync_file returns, the file is complete and closed */
    assert_int_equal(tl_writer_sync_file(w, "s19.txt", &err), 0);
    assert_string_equal(slurp("s19.txt"), "s19.txt");
    assert_int_equal(tl_writer_sync_file(w, "never-written.txt", &err), 0);
    tl_writer_free(w);
    pthread_join(reader, NULL);
    close(pfd[0]);
}

static void test_open_files_bounded(void **state)
{
    (void)state;
    /* 2000 small files under a limit of 400 open files: the queue must not
     * hold them all open */
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = 400;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    struct tl_writer *w = tl_writer_new("T", 64u << 20, true);
    struct tl_err err = {0};
    /* The worker's first job blocks on a full pipe that a reader drains
     * only later: meanwhile the files pile up in the queue. */
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pthread_t reader;
    assert_int_equal(pthread_create(&reader, NULL, drain_later, &pfd[0]), 0);
    static char big[1 << 18];
    assert_int_equal(tl_writer_write(w, pfd[1], true, big, sizeof(big), "pipe", &err), 0);
    for (int i = 0; i < 2000; i++) {
        char name[32];
        snprintf(name, sizeof(name), "n%04d.txt", i);
        int fd = create(name);
        assert_int_equal(tl_writer_write(w, fd, true, "x", 1, name, &err), 0);
    }
    assert_int_equal(tl_writer_sync(w, &err), 0);
    assert_string_equal(slurp("n1999.txt"), "x");
    tl_writer_free(w);
    pthread_join(reader, NULL);
    close(pfd[0]);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
}

static void test_free_drops_queued(void **state)
{
    (void)state;
    /* freeing without a sync closes what is queued (no fd leaks); whatever
     * was written is whole */
    struct tl_writer *w = tl_writer_new("T", 1 << 20, true);
    struct tl_err err = {0};
    int fds[50];
    for (int i = 0; i < 50; i++) {
        char name[32];
        snprintf(name, sizeof(name), "d%02d.txt", i);
        fds[i] = create(name);
        assert_int_equal(tl_writer_write(w, fds[i], true, "abc", 3, name, &err), 0);
    }
    tl_writer_free(w);
    for (int i = 0; i < 50; i++)
        assert_int_equal(fcntl(fds[i], F_GETFD), -1);
    for (int i = 0; i < 50; i++) {
        char name[32];
        snprintf(name, sizeof(name), "d%02d.txt", i);
        const char *s = slurp(name);
        assert_true(!strcmp(s, "") || !strcmp(s, "abc"));
    }
}

/* ---- tl_copy_fd ---------------------------------------------------------------------------- */

/* A file of n pseudo-random bytes (seeded), written to dir/name; its bytes returned. */
static unsigned char *random_file(const char *name, size_t n, uint32_t seed)
{
    unsigned char *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (unsigned char)(seed >> 24);
    }
    int fd = create(name);
    assert_int_equal(tl_write_all(fd, p, n), 0);
    close(fd);
    return p;
}

/*
 * Copy in's bytes from in_at to out, after out_head bytes already in out (as the combined
 * chromium_events.json after its "[" and the ranks before), then write a tail after the copy
 * through the same descriptor: the file must hold head, copy, tail exactly, and both offsets
 * must end past the copy.
 */
static void copy_case(size_t size, size_t in_at, size_t out_head)
{
    unsigned char *src = random_file("in.bin", size, (uint32_t)(size + in_at + out_head));
    int in = open_in_dir("in.bin", O_RDONLY);
    assert_int_equal(lseek(in, (off_t)in_at, SEEK_SET), (off_t)in_at);
    int out = create("out.bin");
    char *head = malloc(out_head + 1);
    assert_non_null(head);
    memset(head, 'h', out_head);
    assert_int_equal(tl_write_all(out, head, out_head), 0);
    assert_int_equal(tl_copy_fd(in, out), 0);
    assert_int_equal(lseek(in, 0, SEEK_CUR), (off_t)size);
    assert_int_equal(lseek(out, 0, SEEK_CUR), (off_t)(out_head + size - in_at));
    assert_int_equal(tl_write_all(out, "tail", 4), 0);
    close(out);
    close(in);
    size_t n;
    char *got = tu_slurp_in(dir, "out.bin", &n);
    assert_non_null(got);
    assert_int_equal(n, out_head + size - in_at + 4);
    assert_memory_equal(got, head, out_head);
    assert_memory_equal(got + out_head, src + in_at, size - in_at);
    assert_memory_equal(got + n - 4, "tail", 4);
    free(got);
    free(head);
    free(src);
}

static void test_copy_files(void **state)
{
    (void)state;
    size_t cases[][3] = {{0, 0, 0},
                         {100000, 0, 0},
                         {100000, 777, 13},
                         {(3u << 20) + 1234, 4097, 4},
                         {4u << 20, 1, 4095}};
    for (size_t i = 0; i < TL_ARRAY_LEN(cases); i++)
        copy_case(cases[i][0], cases[i][1], cases[i][2]);
}

/* A pipe: no copy_file_range, the copy through a buffer, every byte. */
static void test_copy_from_pipe(void **state)
{
    (void)state;
    unsigned char *src = random_file("in.bin", 3u << 20, 7);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        _exit(tl_write_all(p[1], src, 3u << 20) < 0);
    }
    close(p[1]);
    int out = create("out.bin");
    assert_int_equal(tl_copy_fd(p[0], out), 0);
    close(out);
    close(p[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(status, 0);
    size_t n;
    char *got = tu_slurp_in(dir, "out.bin", &n);
    assert_int_equal(n, 3u << 20);
    assert_memory_equal(got, src, n);
    free(got);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_files_in_order_threaded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_files_in_order_sync, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_failure_kept_threaded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_failure_kept_sync, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_files_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_drops_queued, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_from_pipe, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
