/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's entry in the web page (a WASI command, run in a Web Worker by worker.js), in
 * the folder DIR where the worker put the dropped files; each run writes BUNDLE.html, a
 * single-page bundle:
 *   tlweb [--all-ranks-html] [--redact[=SALT]] DIR LOG BUNDLE.html
 *       as `cd DIR && tlparse LOG --bundle BUNDLE.html [--all-ranks-html] [--redact]`: LOG is a
 *       TORCH_TRACE log (plain, .gz, .zst), a TORCH_LOGS text, or a folder of rank logs; SALT
 *       (32 hex digits, from the page's crypto.getRandomValues) salts the redaction's hashes
 *   tlweb diff DIR BEFORE AFTER BUNDLE.html
 *       as `cd DIR && tlparse diff BEFORE AFTER -o tl_diff`, its folder made into BUNDLE.html
 *       the way --bundle makes one of a report folder
 * The worker's WASI layer gives the inputs from the dropped files and keeps what is written in
 * memory; messages go to stderr (the worker passes them on) and the progress to the worker's
 * tlweb.progress import. The public header, and the bundle writer of modes/ for the diff
 * (tlparse diff writes only a folder).
 */
#include "tlparse/tlparse.h"

#include "base/config.h"
#include "base/err.h"
#include "modes/modes.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The worker's progress bar: done bytes of total, as the library tells them. */
__attribute__((import_module("tlweb"), import_name("progress"))) void tlweb_progress(double done,
                                                                                     double total);

static void progress(void *ctx, uint64_t done, uint64_t total)
{
    (void)ctx;
    tlweb_progress((double)done, (double)total);
}

static int usage(void)
{
    fprintf(stderr, "tlparse: error: usage: tlweb [--all-ranks-html] [--redact[=SALT]] DIR LOG "
                    "BUNDLE.html"
                    " | tlweb diff DIR BEFORE AFTER BUNDLE.html\n");
    return TL_EXIT_USAGE;
}

/* 32 hex digits into 16 bytes. */
static int parse_salt(const char *hex, unsigned char salt[16])
{
    if (strlen(hex) != 32)
        return -1;
    for (int i = 0; i < 16; i++) {
        unsigned v;
        if (!isxdigit((unsigned char)hex[2 * i]) || !isxdigit((unsigned char)hex[2 * i + 1]) ||
            sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        salt[i] = (unsigned char)v;
    }
    return 0;
}

static int enter(const char *dir)
{
    if (chdir(dir) == 0)
        return 0;
    fprintf(stderr, "tlparse: error: cannot enter %s: %s\n", dir, strerror(errno));
    return -1;
}

/* tlparse diff BEFORE AFTER -o tl_diff, then tl_diff as one page at BUNDLE. */
static int diff(const char *before, const char *after, const char *bundle)
{
    struct tl_diff_options opt = TL_DIFF_OPTIONS_INIT;
    opt.before = before;
    opt.after = after;
    opt.out_dir = "tl_diff";
    opt.no_threads = true;
    struct tl_diff_result res;
    int rc = tl_diff_run(&opt, &res);
    bool written = rc == TL_EXIT_OK && res.index_path;
    tl_diff_result_release(&res);
    if (!written)
        return rc;
    static struct tl_err err; /* 8 KiB: not on the stack */
    if (tl_bundle_write("tl_diff", bundle, false, NULL, &err) < 0) {
        fprintf(stderr, "tlparse: error: %s\n", err.msg);
        return TL_EXIT_ERROR;
    }
    return TL_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc == 6 && !strcmp(argv[1], "diff"))
        return enter(argv[2]) < 0 ? TL_EXIT_ERROR : diff(argv[3], argv[4], argv[5]);
    struct tl_options opt = TL_OPTIONS_INIT;
    unsigned char salt[16];
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--all-ranks-html")) {
            opt.all_ranks_html = true;
        } else if (!strcmp(argv[i], "--redact")) {
            opt.redact = true;
        } else if (!strncmp(argv[i], "--redact=", 9) && parse_salt(argv[i] + 9, salt) == 0) {
            opt.redact = true;
            opt.redact_salt = salt;
        } else {
            return usage();
        }
    }
    if (argc - i != 3)
        return usage();
    if (enter(argv[i]) < 0)
        return TL_EXIT_ERROR;
    opt.path = argv[i + 1];
    opt.bundle = argv[i + 2];
    opt.no_threads = true; /* no threads in wasm32-wasi */
    opt.progress = progress;
    struct tl_result res;
    int rc = tl_run(&opt, &res);
    tl_result_release(&res);
    return rc;
}
