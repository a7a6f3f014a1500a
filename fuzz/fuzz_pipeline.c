/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for the whole pipeline: the input is one log, parsed from
 * memory by tl_run() into a report in a scratch folder (under $TLFUZZ_SCRATCH
 * if set, else /dev/shm, else $TMPDIR, else /tmp; one per process, removed
 * at exit, or by the next process when a crash skipped that), replaced on
 * every run (--overwrite). A few options come from the input's length, so
 * every input also runs in other modes once the fuzzer changes its size.
 *
 * Checks: the exit code is 0 (1 only under --strict/--strict-compile-id);
 * the report is in place with a non-empty index.html; nothing else is left
 * in the scratch folder (no `.out.tlparse-*` temporary, nothing written
 * outside the report); no HTML page holds the canary tag "<fz", which only a
 * log can bring (the dictionary has it), so an unescaped log byte shows up.
 *
 * For long campaigns while a bug found here is open, TLFUZZ_SKIP=TEXT makes
 * the target ignore every input that contains TEXT.
 *
 * tlparse's warnings go to stderr; they are sent to /dev/null once at
 * initialisation, while libFuzzer and the sanitizers keep reporting on the
 * real stderr (see quiet_stderr()).
 */
#include "base/config.h"
#include "output/outdir.h"
#include "tlparse/tlparse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The real stderr, for our own messages once stderr is quiet. */
static FILE *report_to;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(report_to ? report_to : stderr, "fuzz_pipeline: check failed: %s (line %d)\n", \
                    #cond, __LINE__);                                                              \
            fflush(report_to ? report_to : stderr);                                                \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static char scratch[4096];
static const char *skip; /* $TLFUZZ_SKIP: inputs holding it are not run */
static char out_dir[4096 + 8];
static pid_t owner;

static void cleanup(void)
{
    if (scratch[0] && getpid() == owner)
        tl_remove_tree(scratch);
}

/*
 * Send what the library prints to /dev/null, once. With glibc, stderr is a
 * plain variable: pointing it at /dev/null silences every fprintf(stderr)
 * while fd 2 stays open for libFuzzer (which keeps the FILE it saw at
 * start-up) and the sanitizers. Elsewhere fd 2 itself is redirected, and
 * the sanitizers are told to report on a copy of it.
 */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static void quiet_stderr(void)
{
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    CHECK(null >= 0);
#if defined(__GLIBC__)
    FILE *f = fdopen(null, "w");
    CHECK(f != NULL);
    report_to = stderr;
    stderr = f;
#else
    int keep = dup(2);
    CHECK(keep >= 0);
    report_to = fdopen(keep, "w");
    CHECK(report_to != NULL);
    CHECK(dup2(null, 2) == 2);
    close(null);
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)keep);
#endif
}

/* Remove the scratch folders of processes that died (a crash skips atexit). */
static void remove_stale(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        static const char pre[] = "tlfuzz-pipeline-";
        if (strncmp(e->d_name, pre, sizeof(pre) - 1) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + sizeof(pre) - 1, &end, 10);
        if (pid <= 0 || *end != '-' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
        tl_remove_tree(path);
    }
    closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *base = getenv("TLFUZZ_SCRATCH");
    if (!base || !*base)
        base = "/dev/shm";
    if (access(base, W_OK | X_OK) != 0) {
        base = getenv("TMPDIR");
        if (!base || !*base)
            base = "/tmp";
    }
    remove_stale(base);
    snprintf(scratch, sizeof(scratch), "%s/tlfuzz-pipeline-%ld-XXXXXX", base, (long)getpid());
    CHECK(mkdtemp(scratch) != NULL);
    snprintf(out_dir, sizeof(out_dir), "%s/out", scratch);
    owner = getpid();
    atexit(cleanup);
    skip = getenv("TLFUZZ_SKIP");
    if (skip && !*skip)
        skip = NULL;
    quiet_stderr();
    return 0;
}

/* Whether any .html file under the folder fd holds the canary. */
static bool canary_in_html(int dfd)
{
    DIR *d = fdopendir(dfd);
    CHECK(d != NULL);
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        CHECK(fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0);
        CHECK(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)); /* no links, no fifos */
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            CHECK(sub >= 0);
            found = canary_in_html(sub);
            continue;
        }
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".html") != 0 || st.st_size == 0)
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        char *p = malloc((size_t)st.st_size);
        CHECK(p != NULL);
        CHECK(read(fd, p, (size_t)st.st_size) == st.st_size);
        close(fd);
        if (memmem(p, (size_t)st.st_size, "<fz", 3)) {
            fprintf(report_to, "fuzz_pipeline: unescaped canary in %s\n", e->d_name);
            found = true;
        }
        free(p);
    }
    closedir(d);
    return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!scratch[0])
        LLVMFuzzerInitialize(NULL, NULL);
    if (skip && memmem(data, size, skip, strlen(skip)))
        return 0;

    struct tl_options opt;
    memset(&opt, 0, sizeof(opt));
    opt.out_dir = out_dir;
    opt.overwrite = true;
    opt.progress = false;
    opt.mem_input = (const char *)data;
    opt.mem_len = size;
    opt.plain_text = size & 1;
    opt.strict = (size >> 1) & 1;
    opt.verbose = (size >> 2) & 1;
    opt.strict_compile_id = (size >> 3) & 1;
    opt.custom_header_html = (size >> 4) & 1 ? "<b>custom header</b>" : NULL;
    /* a quarter of the inputs redacted, half of those with paths (a fixed salt: the same
     * input gives the same report) */
    static const unsigned char salt[16] = "fuzz-redact-salt";
    opt.redact = ((size >> 5) & 3) == 3;
    opt.redact_paths = opt.redact && ((size >> 7) & 1);
    opt.redact_salt = salt;

    struct tl_result res;
    int rc = tl_run(&opt, &res);
    if (opt.redact && rc == TL_EXIT_USAGE) {
        tl_result_release(&res);
        return 0;
    } /* TORCH_LOGS text: --redact refuses it, with a message */
    /* Input that is no log (no glog prefix nor TORCH_LOGS message in its first lines, or no
     * TORCH_TRACE entry in them) is refused: exit 1, no report, nothing left behind. */
    bool refused = rc == TL_EXIT_ERROR && !res.index_path;
    if (opt.strict || opt.strict_compile_id || refused)
        CHECK(rc == TL_EXIT_OK || rc == TL_EXIT_ERROR);
    else
        CHECK(rc == TL_EXIT_OK);

    /* The report is in place. */
    struct stat st;
    if (!refused) {
        CHECK(res.bytes_in == size);
        char index[sizeof(out_dir) + 16];
        snprintf(index, sizeof(index), "%s/index.html", out_dir);
        CHECK(stat(out_dir, &st) == 0 && S_ISDIR(st.st_mode));
        CHECK(stat(index, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0);
        CHECK(res.index_path && strcmp(res.index_path, index) == 0);
    }
    tl_result_release(&res);

    /* Nothing but the report (of this input, or of an earlier one when this one was refused)
     * in the scratch folder. */
    DIR *d = opendir(scratch);
    CHECK(d != NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (strcmp(e->d_name, "out") != 0) {
            fprintf(report_to, "fuzz_pipeline: left behind: %s/%s\n", scratch, e->d_name);
            CHECK(strncmp(e->d_name, ".out.tlparse-", 13) != 0);
            CHECK(!"a stray file in the scratch folder");
        }
    }
    closedir(d);
    if (refused)
        return 0;

    int dfd = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(dfd >= 0);
    CHECK(!canary_in_html(dfd));
    return 0;
}
