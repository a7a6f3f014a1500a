/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libtlparse: turn a TORCH_TRACE structured log into an HTML report.
 * The CLI, the tests, the fuzzers and the benchmarks all go through tl_run().
 * Messages (warnings, the Stats line, errors) go to the options' message
 * callback, by default to stderr; nothing is printed on stdout. The library
 * reads no environment variable: the CLI turns them into options.
 */
#ifndef TLPARSE_H
#define TLPARSE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TL_API __attribute__((visibility("default")))
#else
#define TL_API
#endif

/** Exit codes of the CLI; tl_run() returns one of them. */
enum tl_exit {
    TL_EXIT_OK = 0,
    TL_EXIT_ERROR = 1,        /* runtime error, --strict failure, output exists */
    TL_EXIT_USAGE = 2,        /* bad arguments, unsupported mode */
    TL_EXIT_INTERRUPTED = 130 /* SIGINT/SIGTERM: nothing was left behind */
};

/** What a message is; each message is one line without its newline. */
enum tl_message_kind {
    TL_MSG_INFO,    /* "tlparse: parsing ...", the Stats line, verbose notes */
    TL_MSG_WARNING, /* "tlparse: warning: FILE:LINE: ..." */
    TL_MSG_ERROR,   /* "tlparse: error: ..." */
};

/** --summary / --json: print the diagnosis instead of writing a report. */
enum tl_summary_mode {
    TL_SUMMARY_NONE,
    TL_SUMMARY_TEXT,
    TL_SUMMARY_JSON,
};

struct tl_options {
    const char *path;               /* log file, or folder (newest log is taken) */
    const char *out_dir;            /* NULL: "tl_out" */
    const char *custom_header_html; /* inserted raw at the top of index.html; NULL: none */
    const char *command_line;       /* recorded in the report's footer and summary.json;
                                       NULL: none (a library call) */
    bool latest;                    /* PATH is a folder: take its newest log */
    bool overwrite;                 /* replace an existing out_dir (atomically, at the end) */
    bool strict;                    /* bad lines make the exit code 1 */
    bool strict_compile_id;         /* entries without compile id make it 1 */
    bool verbose;                   /* print every unknown field */
    bool plain_text;                /* inductor_output_code as .txt */
    bool export_mode;               /* -e: the export report instead of the compile report */
    bool inductor_provenance;       /* -i: provenance_tracking_<folder>.html pages */
    bool all_ranks_html;            /* not supported yet */
    bool progress;                  /* draw a progress bar on stderr */
    bool no_threads;                /* do all the work on the calling thread (same output) */
    enum tl_summary_mode summary;   /* not NONE: no report; the diagnosis in result.summary */
    unsigned jobs;                  /* --all-ranks-html: ranks parsed at once; 0: one per core */
    bool rank_only;                 /* --rank-only: one rank's report and summary, for a later
                                       --all-ranks-html --from-summaries */
    bool has_rank;                  /* --rank given: */
    uint32_t rank;                  /* the rank of a --rank-only log (else from its name) */
    bool from_summaries;            /* --all-ranks-html: path holds rank_N/ reports already */
    bool name_order;                /* --all-ranks-html: take rank logs and compile folders in
                                       name order, not the file system's (the reference's) */
    bool color;                     /* the text summary with ANSI colours */
    int year;                       /* year of raw.jsonl timestamps; 0: this year (UTC) */
    const char *mem_input;          /* with mem_len: parse this buffer instead of path */
    uint64_t mem_len;
    /* Where messages go; NULL: each is written to stderr followed by a newline. */
    void (*message)(void *ctx, enum tl_message_kind kind, const char *line);
    void *message_ctx;
};

struct tl_result {
    char index_path[4096]; /* the report's index.html, when one was written */
    uint64_t bytes_in;     /* log bytes read */
    uint64_t lines;        /* log lines read */
    char *summary;         /* options.summary: the diagnosis, text or JSON; free() it */
};

/** Set by a signal handler to stop a run; tl_run() then cleans up and returns 130. */
extern TL_API volatile sig_atomic_t tl_interrupted;

/** Run the whole job. res may be NULL. */
TL_API int tl_run(const struct tl_options *opt, struct tl_result *res);

/** "0.4.3" */
TL_API const char *tl_version(void);

/** The source revision it was built from ("a1b2c3d4e5f6", "-dirty" when the tree had
 * changes), or "" when unknown (built from a tree without git history). */
TL_API const char *tl_version_revision(void);

#ifdef __cplusplus
}
#endif

#endif
