/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's entry in the web page (a WASI command, run in a Web Worker by worker.js):
 * `tlweb DIR LOG BUNDLE.html` makes the single-page bundle of DIR/LOG, as `cd DIR && tlparse
 * LOG --bundle BUNDLE.html` does (the report names the log as LOG), on one thread. The worker's
 * WASI layer gives LOG from the dropped file and keeps BUNDLE.html in memory; messages go to stderr
 * (the worker passes them on) and the progress to the worker's tlweb.progress import. At the CLI's
 * level: only the public header.
 */
#include "tlparse/tlparse.h"

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

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "tlparse: error: usage: tlweb DIR LOG BUNDLE.html\n");
        return TL_EXIT_USAGE;
    }
    if (chdir(argv[1]) != 0) {
        fprintf(stderr, "tlparse: error: cannot enter %s: %s\n", argv[1], strerror(errno));
        return TL_EXIT_ERROR;
    }
    struct tl_options opt = TL_OPTIONS_INIT;
    opt.path = argv[2];
    opt.bundle = argv[3];
    opt.no_threads = true; /* no threads in wasm32-wasi */
    opt.progress = progress;
    struct tl_result res;
    int rc = tl_run(&opt, &res);
    tl_result_release(&res);
    return rc;
}
