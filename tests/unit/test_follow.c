/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Following logs as they are written (input/follow.c), with inotify alone (its safety poll off,
 * so that what comes, inotify saw) and with TL_FOLLOW_POLL: appended bytes come exactly and in
 * order, a half-written line as written then its rest; in a folder, a rank file created later
 * is picked up and other files are ignored; truncation, replacement (renamed over, removed and
 * made again, the whole folder made again) restart from byte 0; compressed, unreadable and odd
 * files are refused once; links to one file each get its bytes; a file or folder not there yet
 * is waited for; chunks are bounded and files served in turn. The files are written between
 * calls (or by a writer thread): no timing is asserted beyond "within a generous timeout".
 */
#include "base/config.h"
#include "input/follow.h"
#include "base/buf.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* An awaited event comes well before this. */
#define WAIT_MS 10000

#define R(n) "dedicated_log_torch_trace_rank_" #n ".log"

/* ---- helpers ------------------------------------------------------------------------------- */

/* dir/rel in one of a few rotating buffers (enough for the paths of one statement; dir must not
 * be one of them). */
static const char *at(const char *dir, const char *rel)
{
    static char bufs[8][1024];
    static unsigned next;
    char *b = bufs[next++ % 8];
    int n = snprintf(b, sizeof(bufs[0]), "%s/%s", dir, rel);
    assert_true(n > 0 && (size_t)n < sizeof(bufs[0]));
    return b;
}

static void append(const char *path, const char *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, p, n), (ssize_t)n);
    assert_int_equal(close(fd), 0);
}

static void appends(const char *path, const char *s)
{
    append(path, s, strlen(s));
}

/* Replace path by a new file with s, as a job that writes a temporary file and renames it. */
static void replace(const char *path, const char *s)
{
    char tmp[1100];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    appends(tmp, s);
    assert_int_equal(rename(tmp, path), 0);
}

static struct tl_follow *open_follow(const char *path, unsigned flags)
{
    struct tl_follow *f;
    struct tl_err err = {TL_ERR_NONE, ""};
    if (tl_follow_open(&f, path, flags, &err) != 0)
        fail_msg("tl_follow_open %s: %s", path, err.msg);
    if (flags & TL_FOLLOW_POLL)
        assert_false(tl_follow_inotify(f));
    else if (!tl_follow_inotify(f))
        print_message("note: no inotify here (inotify_init1 failed): polled instead\n");
    return f;
}

/* The next event, which must come within WAIT_MS. */
static void next_ev(struct tl_follow *f, struct tl_follow_event *ev)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    if (tl_follow_next(f, WAIT_MS, ev, &err) != 0)
        fail_msg("tl_follow_next: %s", err.msg);
    if (ev->kind == TL_FOLLOW_IDLE)
        fail_msg("nothing came within %d ms", WAIT_MS);
}

static const char *kind_name(enum tl_follow_kind k)
{
    static const char *names[] = {"FILE", "DATA", "RESTART", "REFUSED", "IDLE"};
    return (size_t)k < TL_ARRAY_LEN(names) ? names[k] : "?";
}

static void expect_kind(const struct tl_follow_event *ev, enum tl_follow_kind kind)
{
    if (ev->kind != kind)
        fail_msg("got %s (%s) where %s was expected", kind_name(ev->kind), ev->why ? ev->why : "",
                 kind_name(kind));
}

/* A FILE event for dir/name (name NULL: any) with the given rank; returns the file's index. */
static size_t expect_file(struct tl_follow *f, const char *path, long rank)
{
    struct tl_follow_event ev;
    next_ev(f, &ev);
    expect_kind(&ev, TL_FOLLOW_FILE);
    assert_string_equal(ev.path, path);
    assert_string_equal(ev.name, strrchr(path, '/') + 1);
    assert_int_equal(ev.rank, rank);
    return ev.file;
}

/* DATA events of file until exactly want[0..n) came, at offsets from `from` on. */
static void expect_bytes(struct tl_follow *f, size_t file, uint64_t from, const char *want,
                         size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct tl_follow_event ev;
        next_ev(f, &ev);
        expect_kind(&ev, TL_FOLLOW_DATA);
        assert_int_equal(ev.file, file);
        assert_int_equal(ev.off, from + got);
        assert_true(ev.n > 0 && ev.n <= TL_FOLLOW_CHUNK);
        if (ev.n > n - got)
            fail_msg("%zu bytes more than the %zu expected", ev.n - (n - got), n);
        if (memcmp(ev.p, want + got, ev.n) != 0)
            fail_msg("bytes %zu..%zu differ", got, got + ev.n);
        got += ev.n;
    }
}

static void expect_data(struct tl_follow *f, size_t file, uint64_t from, const char *want)
{
    expect_bytes(f, file, from, want, strlen(want));
}

static void expect_why(struct tl_follow *f, size_t file, enum tl_follow_kind kind, const char *why)
{
    struct tl_follow_event ev;
    next_ev(f, &ev);
    expect_kind(&ev, kind);
    assert_int_equal(ev.file, file);
    assert_non_null(ev.why);
    assert_string_equal(ev.why, why);
}

/* Nothing more is there, even when every file is looked at again. */
static void expect_nothing(struct tl_follow *f)
{
    struct tl_follow_event ev;
    struct tl_err err = {TL_ERR_NONE, ""};
    tl_follow_rescan(f);
    assert_int_equal(tl_follow_next(f, 0, &ev, &err), 0);
    if (ev.kind != TL_FOLLOW_IDLE)
        fail_msg("got %s of %s where nothing was expected", kind_name(ev.kind),
                 ev.path ? ev.path : "?");
}

/* Every event there is now, as lines "name KIND detail" (DATA: the bytes), until IDLE. */
static void drain(struct tl_follow *f, struct tl_buf *log)
{
    struct tl_follow_event ev;
    struct tl_err err = {TL_ERR_NONE, ""};
    tl_follow_rescan(f);
    for (;;) {
        assert_int_equal(tl_follow_next(f, 0, &ev, &err), 0);
        if (ev.kind == TL_FOLLOW_IDLE)
            return;
        tl_buf_addf(log, "%s %s ", ev.name, kind_name(ev.kind));
        if (ev.kind == TL_FOLLOW_FILE)
            tl_buf_addf(log, "%ld", ev.rank);
        else if (ev.kind == TL_FOLLOW_DATA)
            tl_buf_add(log, ev.p, ev.n);
        else
            tl_buf_adds(log, ev.why);
        tl_buf_addch(log, '\n');
    }
}

/* The lines of log about file name, without the name. */
static char *events_of(const char *log, const char *name)
{
    struct tl_buf out = TL_BUF_INIT;
    size_t nl = strlen(name);
    for (const char *p = log; *p;) {
        const char *end = strchr(p, '\n');
        end = end ? end + 1 : p + strlen(p);
        if ((size_t)(end - p) > nl && strncmp(p, name, nl) == 0 && p[nl] == ' ')
            tl_buf_add(&out, p + nl + 1, (size_t)(end - p - nl - 1));
        p = end;
    }
    return tl_buf_detach(&out, NULL);
}

static void assert_events(const char *log, const char *name, const char *want)
{
    char *got = events_of(log, name);
    if (strcmp(got, want) != 0)
        fail_msg("events of %s:\n%s\nwant:\n%s\nall:\n%s", name, got, want, log);
    free(got);
}

/* Run body(dir, flags) in a fresh folder, with inotify and with polling. With inotify, the safety
 * poll is off: what comes, inotify saw. */
#define BOTH(name)                                                                                 \
    static void name##_inotify(void **state)                                                       \
    {                                                                                              \
        (void)state;                                                                               \
        in_scratch(#name, name, TL_FOLLOW_NO_SAFETY);                                              \
    }                                                                                              \
    static void name##_poll(void **state)                                                          \
    {                                                                                              \
        (void)state;                                                                               \
        in_scratch(#name, name, TL_FOLLOW_POLL);                                                   \
    }

static void in_scratch(const char *name, void (*body)(const char *dir, unsigned flags),
                       unsigned flags)
{
    char dir[512];
    assert_int_equal(tu_mkdtemp(dir, sizeof(dir), name), 0);
    body(dir, flags);
    assert_int_equal(tu_rmtree(dir), 0);
}

/* ---- one file ------------------------------------------------------------------------------ */

static void append_in_writes(const char *dir, unsigned flags)
{
    const char *log = at(dir, "job.log");
    appends(log, "first\n");
    struct tl_follow *f = open_follow(log, flags);
    size_t i = expect_file(f, log, -1);
    assert_int_equal(i, 0);
    expect_data(f, i, 0, "first\n");
    expect_nothing(f);

    /* Several writes between two calls: their bytes in order, however they are chunked. */
    appends(log, "sec");
    appends(log, "ond\nthi");
    appends(log, "rd\n");
    expect_data(f, i, 6, "second\nthird\n");

    /* A line half written comes as written, then its rest. */
    appends(log, "fourth is half");
    expect_data(f, i, 19, "fourth is half");
    expect_nothing(f);
    appends(log, " written\n");
    expect_data(f, i, 33, " written\n");
    expect_nothing(f);
    tl_follow_free(f);
}
BOTH(append_in_writes)

struct writer {
    const char *path;
    struct tl_buf all; /* what it wrote */
};

/* The k-th piece the writer writes: lines cut anywhere, sometimes several at once. */
static size_t piece(int k, char *buf, size_t size)
{
    int n = snprintf(buf, size, "line %d %.*s\n%s", k, k % 40,
                     "........................................", k % 3 ? "" : "cut-");
    assert_true(n > 0 && (size_t)n < size);
    return (size_t)n;
}

#define PIECES 150

static void *write_slowly(void *arg)
{
    struct writer *w = arg;
    for (int k = 0; k < PIECES; k++) {
        char buf[96];
        size_t n = piece(k, buf, sizeof(buf));
        append(w->path, buf, n);
        tl_buf_add(&w->all, buf, n);
        struct timespec ts = {0, 300000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void writer_thread(const char *dir, unsigned flags)
{
    struct writer w = {at(dir, "job.log"), TL_BUF_INIT};
    appends(w.path, "");
    struct tl_follow *f = open_follow(w.path, flags);
    size_t i = expect_file(f, w.path, -1);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, write_slowly, &w), 0);
    struct tl_buf got = TL_BUF_INIT;
    size_t want = 0;
    for (int k = 0; k < PIECES; k++) {
        char buf[96];
        want += piece(k, buf, sizeof(buf));
    }
    while (got.len < want) {
        struct tl_follow_event ev;
        next_ev(f, &ev);
        expect_kind(&ev, TL_FOLLOW_DATA);
        assert_int_equal(ev.file, i);
        assert_int_equal(ev.off, got.len);
        tl_buf_add(&got, ev.p, ev.n);
    }
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(got.len, w.all.len);
    assert_memory_equal(got.buf, w.all.buf, got.len);
    expect_nothing(f);
    tl_buf_release(&got);
    tl_buf_release(&w.all);
    tl_follow_free(f);
}
BOTH(writer_thread)

/* The same as --watch runs it: inotify and the safety poll. */
static void writer_thread_default(void **state)
{
    (void)state;
    in_scratch("writer_thread", writer_thread, 0);
}

static void truncated(const char *dir, unsigned flags)
{
    const char *log = at(dir, "job.log");
    appends(log, "0123456789\n");
    struct tl_follow *f = open_follow(log, flags);
    size_t i = expect_file(f, log, -1);
    expect_data(f, i, 0, "0123456789\n");
    expect_nothing(f); /* from now on, only the watch or the poll can see a change */
    assert_int_equal(truncate(log, 0), 0);
    char why[1200];
    snprintf(why, sizeof(why), "%s was truncated (11 -> 0 bytes): starting over", log);
    expect_why(f, i, TL_FOLLOW_RESTART, why);
    expect_nothing(f);
    appends(log, "new\n");
    expect_data(f, i, 0, "new\n");
    expect_nothing(f);

    /* Opened again with O_TRUNC and written at once: one restart (at 0 or 3 bytes), then the
     * new bytes from 0. */
    int fd = open(log, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "ab\n", 3), 3);
    assert_int_equal(close(fd), 0);
    struct tl_follow_event ev;
    next_ev(f, &ev);
    expect_kind(&ev, TL_FOLLOW_RESTART);
    assert_non_null(strstr(ev.why, " was truncated (4 -> "));
    expect_data(f, i, 0, "ab\n");
    expect_nothing(f);
    tl_follow_free(f);
}
BOTH(truncated)

static void replaced(const char *dir, unsigned flags)
{
    const char *log = at(dir, "job.log");
    appends(log, "old line\n");
    struct tl_follow *f = open_follow(log, flags);
    size_t i = expect_file(f, log, -1);
    expect_data(f, i, 0, "old line\n");
    expect_nothing(f);
    char why[1200];
    snprintf(why, sizeof(why), "%s was replaced: starting over", log);

    /* Renamed over: longer than the old one, so only its identity tells. */
    replace(log, "a new and longer line\n");
    expect_why(f, i, TL_FOLLOW_RESTART, why);
    expect_data(f, i, 0, "a new and longer line\n");
    expect_nothing(f);
    appends(log, "more\n");
    expect_data(f, i, 22, "more\n");
    expect_nothing(f);

    /* Removed and made again. */
    assert_int_equal(unlink(log), 0);
    appends(log, "third file, also longer than the others\n");
    expect_why(f, i, TL_FOLLOW_RESTART, why);
    expect_data(f, i, 0, "third file, also longer than the others\n");
    expect_nothing(f);

    /* Removed, seen gone (the bytes written to the open file after that still come), then made
     * again: only the folder tells. */
    int fd = open(log, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(unlink(log), 0);
    expect_nothing(f);
    assert_int_equal(write(fd, "late\n", 5), 5);
    assert_int_equal(close(fd), 0);
    expect_data(f, i, 40, "late\n");
    expect_nothing(f);
    appends(log, "fourth file, longer than the third one was\n");
    expect_why(f, i, TL_FOLLOW_RESTART, why);
    expect_data(f, i, 0, "fourth file, longer than the third one was\n");
    expect_nothing(f);
    tl_follow_free(f);
}
BOTH(replaced)

/* ---- a folder of rank logs ----------------------------------------------------------------- */

static void folder(const char *dir, unsigned flags)
{
    appends(at(dir, R(0)), "r0\n");
    appends(at(dir, "notes.txt"), "not a log\n");
    appends(at(dir, "torch_trace_rank_x.log"), "bad rank\n");
    appends(at(dir, R(4) ".gz"), "not named .log\n");
    assert_int_equal(mkdir(at(dir, R(7)), 0755), 0); /* a folder with a rank log's name */
    struct tl_follow *f = open_follow(dir, flags);
    size_t r0 = expect_file(f, at(dir, R(0)), 0);
    assert_int_equal(r0, 0);
    expect_data(f, r0, 0, "r0\n");
    expect_nothing(f);

    /* Ranks whose file appears later, one with a suffix after its number. */
    appends(at(dir, R(1)), "r1 first\n");
    size_t r1 = expect_file(f, at(dir, R(1)), 1);
    assert_int_equal(r1, 1);
    expect_data(f, r1, 0, "r1 first\n");
    expect_nothing(f);
    appends(at(dir, "dedicated_log_torch_trace_rank_12_host-3.log"), "r12\n");
    size_t r12 = expect_file(f, at(dir, "dedicated_log_torch_trace_rank_12_host-3.log"), 12);
    assert_int_equal(r12, 2);
    expect_data(f, r12, 0, "r12\n");

    /* The other files are never followed, however they change. */
    appends(at(dir, "notes.txt"), "more\n");
    appends(at(dir, "torch_trace_rank_x.log"), "more\n");
    appends(at(dir, "other.log"), "new file\n");
    appends(at(dir, R(7) "/" R(8)), "in a subfolder\n");
    expect_nothing(f);

    /* Appends to both ranks: each file's bytes, whatever the order between them. */
    appends(at(dir, R(1)), "r1 second\n");
    appends(at(dir, R(0)), "r0 second\n");
    struct tl_buf log = TL_BUF_INIT;
    for (int k = 0; k < 2; k++) {
        struct tl_follow_event ev;
        next_ev(f, &ev);
        expect_kind(&ev, TL_FOLLOW_DATA);
        tl_buf_addf(&log, "%zu ", ev.file);
        tl_buf_add(&log, ev.p, ev.n);
    }
    if (strcmp(log.buf, "0 r0 second\n1 r1 second\n") != 0 &&
        strcmp(log.buf, "1 r1 second\n0 r0 second\n") != 0)
        fail_msg("got %s", log.buf);
    tl_buf_release(&log);
    expect_nothing(f);

    /* A rank log replaced by a rename in the folder. */
    replace(at(dir, R(0)), "r0 again\n");
    char why[1200];
    snprintf(why, sizeof(why), "%s was replaced: starting over", at(dir, R(0)));
    expect_why(f, r0, TL_FOLLOW_RESTART, why);
    expect_data(f, r0, 0, "r0 again\n");
    expect_nothing(f);
    tl_follow_free(f);
}
BOTH(folder)

/* The folder of a job of one process: its log has no rank in its name (TORCH_TRACE names it
 * dedicated_log_torch_trace_<random>.log); other .log files are not followed. */
static void one_process(const char *dir, unsigned flags)
{
    appends(at(dir, "train.log"), "not the trace\n");
    struct tl_follow *f = open_follow(dir, flags);
    expect_nothing(f);
    appends(at(dir, "dedicated_log_torch_trace_k2j9x.log"), "entry\n");
    size_t i = expect_file(f, at(dir, "dedicated_log_torch_trace_k2j9x.log"), -1);
    expect_data(f, i, 0, "entry\n");
    appends(at(dir, "dedicated_log_torch_trace_.log"), "no name\n");
    appends(at(dir, "dedicated_log_torch_trace_k2j9x.txt"), "not a log\n");
    expect_nothing(f);
    tl_follow_free(f);
}
BOTH(one_process)

/* The folder removed with its files (which stay open: the kernel says nothing of the folder
 * then) and made again: its files are new ones, and it is watched again. */
static void folder_again(const char *dir, unsigned flags)
{
    char logs[600];
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    assert_int_equal(mkdir(logs, 0755), 0);
    appends(at(logs, R(0)), "first r0\n");
    struct tl_follow *f = open_follow(logs, flags);
    size_t r0 = expect_file(f, at(logs, R(0)), 0);
    expect_data(f, r0, 0, "first r0\n");
    expect_nothing(f);

    /* Removed and made again between two calls. */
    assert_int_equal(tu_rmtree(logs), 0);
    assert_int_equal(mkdir(logs, 0755), 0);
    appends(at(logs, R(0)), "second r0, longer\n");
    char why[1200];
    snprintf(why, sizeof(why), "%s was replaced: starting over", at(logs, R(0)));
    expect_why(f, r0, TL_FOLLOW_RESTART, why);
    expect_data(f, r0, 0, "second r0, longer\n");
    appends(at(logs, R(1)), "r1\n");
    size_t r1 = expect_file(f, at(logs, R(1)), 1);
    expect_data(f, r1, 0, "r1\n");
    expect_nothing(f);

    /* Removed, seen gone, made again. */
    assert_int_equal(tu_rmtree(logs), 0);
    expect_nothing(f);
    assert_int_equal(mkdir(logs, 0755), 0);
    appends(at(logs, R(2)), "r2\n");
    size_t r2 = expect_file(f, at(logs, R(2)), 2);
    expect_data(f, r2, 0, "r2\n");
    expect_nothing(f);
    appends(at(logs, R(3)), "r3\n");
    size_t r3 = expect_file(f, at(logs, R(3)), 3);
    expect_data(f, r3, 0, "r3\n");
    appends(at(logs, R(1)), "r1 again\n");
    snprintf(why, sizeof(why), "%s was replaced: starting over", at(logs, R(1)));
    expect_why(f, r1, TL_FOLLOW_RESTART, why);
    expect_data(f, r1, 0, "r1 again\n");
    expect_nothing(f);
    tl_follow_free(f);
}
BOTH(folder_again)

static void compressed(const char *dir, unsigned flags)
{
    append(at(dir, R(0)), "\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
    append(at(dir, R(1)), "\x28\xb5\x2f\xfd\x00\x58", 6);
    appends(at(dir, R(2)), "plain\n");
    append(at(dir, R(3)), "\x1f", 1);     /* gzip's first byte only, so far */
    append(at(dir, R(4)), "\x28\xb5", 2); /* zstd's first two */
    struct tl_follow *f = open_follow(dir, flags);
    struct tl_buf log = TL_BUF_INIT;
    drain(f, &log);
    char want[1300];
    snprintf(want, sizeof(want),
             "FILE 0\nREFUSED %s is gzip-compressed: --watch follows plain logs only; run tlparse "
             "on it when the job ends\n",
             at(dir, R(0)));
    assert_events(log.buf, R(0), want);
    snprintf(want, sizeof(want),
             "FILE 1\nREFUSED %s is zstd-compressed: --watch follows plain logs only; run tlparse "
             "on it when the job ends\n",
             at(dir, R(1)));
    assert_events(log.buf, R(1), want);
    assert_events(log.buf, R(2), "FILE 2\nDATA plain\n");
    assert_events(log.buf, R(3), "FILE 3\n"); /* held back until the magic is whole or broken */
    assert_events(log.buf, R(4), "FILE 4\n");

    /* Refused once: what is written to them later is not read. */
    append(at(dir, R(0)), "\x01\x02", 2);
    appends(at(dir, R(1)), "more\n");
    append(at(dir, R(3)), "\x8b\x08", 2);
    appends(at(dir, R(4)), "x\n"); /* not zstd after all: all of it is data */
    tl_buf_reset(&log);
    drain(f, &log);
    snprintf(want, sizeof(want),
             "REFUSED %s is gzip-compressed: --watch follows plain logs only; run tlparse on it "
             "when the job ends\n",
             at(dir, R(3)));
    assert_events(log.buf, R(3), want);
    assert_events(log.buf, R(4), "DATA \x28\xb5x\n");
    assert_events(log.buf, R(0), "");
    assert_events(log.buf, R(1), "");
    expect_nothing(f);
    tl_buf_release(&log);
    tl_follow_free(f);
}
BOTH(compressed)

static void refused(const char *dir, unsigned flags)
{
    /* A FIFO given as PATH is refused, not opened (an open would wait for a writer). */
    const char *fifo = at(dir, "pipe.log");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    struct tl_follow *f = open_follow(fifo, flags);
    size_t i = expect_file(f, fifo, -1);
    char why[1200];
    snprintf(why, sizeof(why), "%s is not a regular file: --watch follows plain log files only",
             fifo);
    expect_why(f, i, TL_FOLLOW_REFUSED, why);
    expect_nothing(f);
    tl_follow_free(f);

    if (geteuid() == 0)
        return; /* root reads anything */
    const char *log = at(dir, R(0));
    appends(log, "secret\n");
    assert_int_equal(chmod(log, 0), 0);
    f = open_follow(dir, flags);
    i = expect_file(f, log, 0);
    snprintf(why, sizeof(why), "cannot read %s: Permission denied", log);
    expect_why(f, i, TL_FOLLOW_REFUSED, why);
    assert_int_equal(chmod(log, 0644), 0);
    appends(log, "more\n");
    expect_nothing(f); /* refused for good */
    tl_follow_free(f);
}
BOTH(refused)

/* Two events, whatever their order, as "name KIND bytes-or-why" lines sorted. */
static char *two_events(struct tl_follow *f)
{
    char *line[2];
    for (int k = 0; k < 2; k++) {
        struct tl_follow_event ev;
        next_ev(f, &ev);
        struct tl_buf b = TL_BUF_INIT;
        tl_buf_addf(&b, "%s %s ", ev.name, kind_name(ev.kind));
        if (ev.kind == TL_FOLLOW_DATA)
            tl_buf_add(&b, ev.p, ev.n);
        line[k] = tl_buf_detach(&b, NULL);
    }
    bool swap = strcmp(line[0], line[1]) > 0;
    struct tl_buf out = TL_BUF_INIT;
    tl_buf_adds(&out, line[swap]);
    tl_buf_adds(&out, line[!swap]);
    free(line[0]);
    free(line[1]);
    return tl_buf_detach(&out, NULL);
}

/* Rank logs that are links: two names of one file (one watch for both), one to a file
 * elsewhere. */
static void links(const char *dir, unsigned flags)
{
    appends(at(dir, R(0)), "shared\n");
    assert_int_equal(link(at(dir, R(0)), at(dir, R(1))), 0);
    assert_int_equal(mkdir(at(dir, "elsewhere"), 0755), 0);
    appends(at(dir, "elsewhere/target.txt"), "target\n");
    assert_int_equal(symlink("elsewhere/target.txt", at(dir, R(2))), 0);
    struct tl_follow *f = open_follow(dir, flags);
    struct tl_buf log = TL_BUF_INIT;
    drain(f, &log);
    assert_events(log.buf, R(0), "FILE 0\nDATA shared\n");
    assert_events(log.buf, R(1), "FILE 1\nDATA shared\n");
    assert_events(log.buf, R(2), "FILE 2\nDATA target\n");
    tl_buf_release(&log);

    appends(at(dir, R(1)), "both\n");
    char *got = two_events(f);
    assert_string_equal(got, R(0) " DATA both\n" R(1) " DATA both\n");
    free(got);
    expect_nothing(f);
    appends(at(dir, "elsewhere/target.txt"), "more\n");
    expect_data(f, 2, 7, "more\n");
    expect_nothing(f);

    /* One of the two names replaced: the other still has its watch. */
    replace(at(dir, R(1)), "alone\n");
    char why[1200];
    snprintf(why, sizeof(why), "%s was replaced: starting over", at(dir, R(1)));
    expect_why(f, 1, TL_FOLLOW_RESTART, why);
    expect_data(f, 1, 0, "alone\n");
    expect_nothing(f);
    appends(at(dir, R(0)), "still\n");
    expect_data(f, 0, 12, "still\n");
    expect_nothing(f);
    tl_follow_free(f);
}
BOTH(links)

/* ---- waiting ------------------------------------------------------------------------------- */

static void waits(const char *dir, unsigned flags)
{
    /* A file not there yet. */
    const char *log = at(dir, "later.log");
    struct tl_follow *f = open_follow(log, flags);
    struct tl_follow_event ev;
    struct tl_err err = {TL_ERR_NONE, ""};
    assert_int_equal(tl_follow_next(f, 0, &ev, &err), 0);
    assert_int_equal(ev.kind, TL_FOLLOW_IDLE);
    assert_null(ev.path);
    assert_int_equal(tl_follow_next(f, 50, &ev, &err), 0);
    assert_int_equal(ev.kind, TL_FOLLOW_IDLE);
    appends(log, "hello\n");
    size_t i = expect_file(f, log, -1);
    expect_data(f, i, 0, "hello\n");
    tl_follow_free(f);

    /* A folder of rank logs not there yet, nor its parent. */
    const char *sub = at(dir, "job/logs/");
    f = open_follow(sub, flags);
    assert_int_equal(tl_follow_next(f, 50, &ev, &err), 0);
    assert_int_equal(ev.kind, TL_FOLLOW_IDLE);
    assert_int_equal(mkdir(at(dir, "job"), 0755), 0);
    assert_int_equal(tl_follow_next(f, 0, &ev, &err), 0);
    assert_int_equal(ev.kind, TL_FOLLOW_IDLE);
    assert_int_equal(mkdir(at(dir, "job/logs"), 0755), 0);
    appends(at(dir, "job/logs/" R(3)), "r3\n");
    i = expect_file(f, at(dir, "job/logs/" R(3)), 3);
    expect_data(f, i, 0, "r3\n");
    expect_nothing(f);
    appends(at(dir, "job/logs/" R(5)), "r5\n");
    i = expect_file(f, at(dir, "job/logs/" R(5)), 5);
    expect_data(f, i, 0, "r5\n");
    expect_nothing(f);
    tl_follow_free(f);
}
BOTH(waits)

static void idle(const char *dir, unsigned flags)
{
    const char *log = at(dir, "quiet.log");
    appends(log, "");
    struct tl_follow *f = open_follow(log, flags);
    expect_file(f, log, -1);
    struct tl_follow_event ev;
    struct tl_err err = {TL_ERR_NONE, ""};
    assert_int_equal(tl_follow_next(f, 50, &ev, &err), 0);
    assert_int_equal(ev.kind, TL_FOLLOW_IDLE);
    assert_int_equal(tl_follow_next(f, 0, &ev, &err), 0);
    assert_int_equal(ev.kind, TL_FOLLOW_IDLE);
    /* Past the poll interval too. */
    assert_int_equal(tl_follow_next(f, TL_FOLLOW_POLL_MS + 100, &ev, &err), 0);
    assert_int_equal(ev.kind, TL_FOLLOW_IDLE);
    tl_follow_free(f);
}
BOTH(idle)

/* ---- bounded chunks, files in turn --------------------------------------------------------- */

static void fill(char *p, size_t n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t k = 0; k < n; k++) {
        x = x * 1103515245u + 12345u;
        p[k] = (x >> 16) % 7 ? (char)('a' + (x >> 20) % 26) : '\n';
    }
}

static void fair(const char *dir, unsigned flags)
{
    const size_t big = 5 * TL_FOLLOW_CHUNK / 2;
    char *want[2];
    for (unsigned r = 0; r < 2; r++) {
        want[r] = malloc(big);
        assert_non_null(want[r]);
        fill(want[r], big, r);
        append(at(dir, r ? R(1) : R(0)), want[r], big);
    }
    struct tl_follow *f = open_follow(dir, flags);
    size_t got[2] = {0, 0};
    size_t announced = 0;
    long last = -1;
    while (got[0] < big || got[1] < big) {
        struct tl_follow_event ev;
        next_ev(f, &ev);
        if (ev.kind == TL_FOLLOW_FILE) {
            assert_int_equal(ev.file, announced);
            assert_int_equal(ev.rank, (long)announced);
            announced++;
            continue;
        }
        expect_kind(&ev, TL_FOLLOW_DATA);
        assert_true(ev.file < 2);
        assert_true(ev.n > 0 && ev.n <= TL_FOLLOW_CHUNK);
        assert_int_equal(ev.off, got[ev.file]);
        assert_true(got[ev.file] + ev.n <= big);
        assert_memory_equal(ev.p, want[ev.file] + got[ev.file], ev.n);
        /* In turn: never two chunks of a file in a row while the other has bytes left. */
        if ((long)ev.file == last && announced == 2 && got[1 - ev.file] < big)
            fail_msg("file %zu twice in a row", ev.file);
        last = (long)ev.file;
        got[ev.file] += ev.n;
    }
    assert_int_equal(announced, 2);
    expect_nothing(f);
    tl_follow_free(f);
    free(want[0]);
    free(want[1]);
}
BOTH(fair)

/* ---- errors -------------------------------------------------------------------------------- */

static void errors(const char *dir, unsigned flags)
{
    struct tl_follow *f = NULL;
    struct tl_err err = {TL_ERR_NONE, ""};
    assert_int_equal(tl_follow_open(&f, "", flags, &err), -1);
    assert_int_equal(err.code, TL_ERR_USAGE);

    /* Under a file: it can never appear. */
    const char *file = at(dir, "file");
    appends(file, "x");
    const char *under = at(dir, "file/x.log");
    assert_int_equal(tl_follow_open(&f, under, flags, &err), -1);
    assert_int_equal(err.code, TL_ERR_INPUT);
    assert_non_null(strstr(err.msg, under));

    if (geteuid() == 0)
        return;
    const char *closed = at(dir, "closed");
    assert_int_equal(mkdir(closed, 0), 0);
    assert_int_equal(tl_follow_open(&f, closed, flags, &err), -1);
    assert_int_equal(err.code, TL_ERR_INPUT);
    assert_non_null(strstr(err.msg, closed));
    assert_int_equal(chmod(closed, 0755), 0);
}
BOTH(errors)

int main(void)
{
#define T(name) cmocka_unit_test(name##_inotify), cmocka_unit_test(name##_poll)
    const struct CMUnitTest tests[] = {
        T(append_in_writes),
        T(writer_thread),
        cmocka_unit_test(writer_thread_default),
        T(truncated),
        T(replaced),
        T(folder),
        T(one_process),
        T(folder_again),
        T(compressed),
        T(refused),
        T(links),
        T(waits),
        T(idle),
        T(fair),
        T(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
