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

#include "tlparse/version.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
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

/** What a message is; each message is one line without its newline, printable: what it
 * quotes of a log (names, reasons, file names) holds no control character (C0, DEL, C1) and
 * no byte outside a UTF-8 character, each shown as '?', so that it is safe on a terminal. */
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

struct tl_parser;

struct tl_result;

/* A file of the caller's in the report folder (tl_options.extra_files). */
struct tl_extra_file {
    const char *name;
    const char *data;
    size_t len;
};

/* A log the caller holds open (tl_options.open_logs). */
struct tl_open_log {
    const char *path; /* the path the run names it by: PATH, or FOLDER/NAME of a folder PATH */
    int fd;           /* read from its start; the descriptor is neither moved nor closed */
};

/*
 * A run's options. Start from TL_OPTIONS_INIT or tl_options_init() (all zero, and size set):
 * size tells the library how large the struct was in the header the caller was built with,
 * since fields are only ever added at its end; a library that is older than the header refuses
 * a larger one. A zeroed struct (size 0) is taken as this header's.
 */
struct tl_options {
    uint32_t size;                    /* sizeof(struct tl_options), as the caller knows it */
    const char *path;                 /* log file, or folder (newest log is taken) */
    const char *out_dir;              /* NULL: "tl_out" */
    const char *custom_header_html;   /* inserted raw at the top of index.html; NULL: none */
    const char *command_line;         /* recorded in the report's footer and summary.json;
                                         NULL: none (a library call) */
    const char *bundle;               /* the report as one file too: a .zip of the folder, or a
                                         single .html page holding every page and artifact;
                                         without out_dir, only the bundle is written */
    bool latest;                      /* PATH is a folder: take its newest log */
    bool overwrite;                   /* replace an existing out_dir (atomically, at the end) */
    bool redact;                      /* --redact: leave out what reveals the model (its code,
                                         names, constants, text); keep the structure */
    bool redact_paths;                /* with redact: hash file names too */
    const unsigned char *redact_salt; /* 16 bytes for the redaction's hashes; NULL: random */
    bool strict;                      /* bad lines make the exit code 1, and a log that holds
                                         nothing to check (as check_content) */
    bool strict_compile_id;           /* entries without compile id make it 1 */
    bool check_content;               /* a log that holds nothing to check (empty, blank, a
                                         string table alone, TORCH_LOGS text without a message
                                         or compile id) makes the exit code 1, its report or
                                         diagnosis written all the same (--fail-on) */
    bool verbose;                     /* print every unknown field */
    bool plain_text;                  /* inductor_output_code as .txt */
    bool export_mode;                 /* -e: the export report instead of the compile report */
    bool inductor_provenance;         /* -i: provenance_tracking_<folder>.html pages */
    bool all_ranks_html;              /* not supported yet */
    /* Told how far the reading of a log is, about ten times a second while it is read (the
     * first time at once): done bytes of total (0: unknown, a pipe). The library draws
     * nothing: a progress bar is the caller's (the CLI's is cleared by its messages). NULL:
     * not told. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    bool no_threads;     /* do all the work on the calling thread (same output) */
    bool complete_lines; /* logs still being written: read each plain log up to
                            its last newline as of its opening */
    /* Files written into the report folder beside the report's own, committed with it: plain
     * names (no '/', not hidden); a name the report uses holds the report's file. NULL: none. */
    const struct tl_extra_file *extra_files;
    size_t nextra_files;
    enum tl_summary_mode summary; /* not NONE: no report; the diagnosis in result.summary */
    unsigned jobs;                /* --all-ranks-html: ranks parsed at once; 0: one per core */
    bool rank_only;               /* --rank-only: one rank's report and summary, for a later
                                     --all-ranks-html --from-summaries */
    bool has_rank;                /* --rank given: */
    uint32_t rank;                /* the rank of a --rank-only log (else from its name) */
    const char *rank_failed;      /* --rank-only --rank N without a log: the rank has no report
                                     for this reason (a failed task), said by its summary.json */
    bool from_summaries;          /* --all-ranks-html: path holds rank_N/ reports already */
    bool name_order;              /* --all-ranks-html: take rank logs and compile folders in
                                     name order, not the file system's (the reference's) */
    bool all_ranks_counts;        /* a report of the newest log of a folder of rank logs:
                                     count every rank's findings too (result.folder_counts;
                                     what --fail-on judges) */
    bool color;                   /* the text summary with ANSI colours */
    int year;                     /* year of raw.jsonl timestamps; 0: this year (UTC) */
    const char *mem_input;        /* with mem_len: parse this buffer instead of path */
    uint64_t mem_len;
    /* Logs the caller holds open (tl_watch: the logs it followed), read from their descriptors
     * rather than looked up by path, so that a log deleted meanwhile is read whole: a listed
     * path is taken as it is, and a folder's rank logs include the listed ones in it (and the
     * folder may be gone). NULL: none. */
    const struct tl_open_log *open_logs;
    size_t nopen_logs;
    /* Where messages go; NULL: each is written to stderr followed by a newline. */
    void (*message)(void *ctx, enum tl_message_kind kind, const char *line);
    void *message_ctx;
    /* Set (to nonzero) by the caller, a signal handler for one, to stop the run: it then cleans
     * up (nothing is left behind) and returns TL_EXIT_INTERRUPTED. Read from every thread of
     * the run. tl_watch() ends at it and clears it for its final report. NULL: none. */
    volatile sig_atomic_t *cancel;
    /* Custom parsers (see "Custom parsers" below), run on every report written; their
     * files and links appear in the report beside the built-in ones. NULL: none. */
    const struct tl_parser *parsers;
    size_t nparsers;
    /* Serve the report over HTTP once it is written (tlparse --serve), until *cancel is set,
     * then return the report's exit code; tl_watch() serves the live report as it is rebuilt,
     * and, when the job ended by itself, the final one until *cancel. The socket listens
     * before the log is read, so a port in use fails at once. Only files under the report
     * folder are served (a single-page bundle: that page, at /), GET and HEAD only. */
    bool serve;
    const char *serve_bind; /* the address to listen on; NULL: 127.0.0.1 (this machine only).
                               Any other is warned about: the report holds the model's code */
    bool has_port;          /* false: the first free port of 8000..8099 */
    uint16_t port;          /* with has_port: this port; 0: any free one */
    /* Told once the report is served: its URL, the folder or file served, and the run's
     * result (NULL from tl_watch() for the live report; then again with the final one). */
    void (*serving)(void *ctx, const char *url, const char *root, const struct tl_result *res);
    void *serving_ctx;
};

#define TL_OPTIONS_INIT                                                                            \
    {                                                                                              \
        .size = sizeof(struct tl_options)                                                          \
    }

static inline void tl_options_init(struct tl_options *o)
{
    *o = (struct tl_options)TL_OPTIONS_INIT;
}

/** What the diagnosis found, counted; each occurrence counts (a graph break hit by two
 * compile ids counts 2). summary.json holds the details. */
struct tl_counts {
    uint64_t compile_ids;
    uint64_t graph_breaks;
    uint64_t recompiles;
    uint64_t specializations; /* dynamic dimensions specialized to a constant */
    uint64_t failures;        /* compilations that failed */
    uint64_t recompile_limits;
    uint64_t export_problems;
    double compile_time_s; /* summed; negative when the log recorded no compile times */
    uint64_t eager_frames; /* frames that ran in eager mode: the recompile limit hit, skipped */
};

/* What a run did (tl_run, tl_watch, tl_feed_finish): zeroed by the run, then filled; release
 * it with tl_result_release. */
struct tl_result {
    char *index_path;        /* the report's index.html, when one was written; else NULL */
    char *bundle_path;       /* options.bundle, when it was written; else NULL */
    uint64_t bytes_in;       /* log bytes read */
    uint64_t lines;          /* log lines read */
    char *summary;           /* options.summary: the diagnosis, text or JSON; else NULL */
    bool has_counts;         /* the log was read: counts holds its diagnosis (of every rank, */
    struct tl_counts counts; /* summed, for --all-ranks-html) */
    uint32_t ranks;          /* the ranks read: a folder of rank logs (--all-ranks-html, or
                                --summary and --json of one); 0 for one log */
    uint32_t ranks_left;     /* the ranks of that folder whose logs could not be read */
    uint32_t newest_of;      /* the report is of the newest log of a folder of rank logs: the
                                ranks the folder holds (2 or more); else 0 */
    /* options.all_ranks_counts, of a report of the newest log of a folder of rank logs
     * (newest_of) written without error: every rank of the folder diagnosed as --summary of
     * the folder would, each log read once (the newest is counted from its report) */
    bool has_folder_counts;
    int folder_exit; /* what tl_run() of the folder's --summary would return */
    struct tl_counts folder_counts;
    uint32_t folder_ranks; /* the ranks read */
};

/** Run the whole job. res may be NULL. */
TL_API int tl_run(const struct tl_options *opt, struct tl_result *res);

/** Free what res holds (its paths and summary) and zero it. */
TL_API void tl_result_release(struct tl_result *res);

/* ---- Feed: a log given as bytes ---------------------------------------------------------- */

/*
 * A log whose bytes the caller has rather than a file (a socket, a browser's file reader, a
 * decompressor of its own): fed in pieces of any size, and made into the report or diagnosis
 * that tl_run() makes of the same bytes as a file. As cmark_parser_feed/finish:
 *
 *     struct tl_feed *f = tl_feed_new(&opt);   (NULL: the options are wrong, said)
 *     while ((n = read(fd, buf, sizeof buf)) > 0)
 *         tl_feed_bytes(f, buf, n);
 *     int rc = tl_feed_finish(f, &res);
 *     tl_feed_free(f);
 *
 * The options are tl_run()'s for one log (not a folder of ranks, not --latest); opt->path, when
 * set, only names the log in messages and the report. The bytes are the log as written, not
 * compressed. Nothing is written before the first bytes tell a TORCH_TRACE log from TORCH_LOGS
 * text (256 KiB, or all of them at the end).
 */
struct tl_feed;

TL_API struct tl_feed *tl_feed_new(const struct tl_options *opt);
/** More bytes of the log. TL_EXIT_OK, or the exit code of a run that failed (said through
 * the options' messages; the bytes that follow are not read). */
TL_API int tl_feed_bytes(struct tl_feed *f, const void *p, size_t n);
/** The end of the log: the report committed (or the diagnosis in res->summary); the exit code
 * tl_run() would return. res may be NULL. */
TL_API int tl_feed_finish(struct tl_feed *f, struct tl_result *res);
/** Free f (after tl_feed_finish, or instead of it: nothing is left behind). */
TL_API void tl_feed_free(struct tl_feed *f);

/* ---- Watch: a job's compiler, live (tlparse --watch) ------------------------------------- */

/* Where the live view goes: the watch makes its text, the caller shows it (the CLI on a
 * terminal or a CI log, cli/screen.c). Each may be NULL. */
struct tl_watch_view {
    /* Lines of the watch as they come (a finding, a notice): whole lines, each ending with
     * '\n', printable (with ANSI colours when tl_watch.color). */
    void (*lines)(void *ctx, const char *p, size_t n);
    /* Bytes of the job's output (tl_watch.job_output_fd) as it wrote them. */
    void (*job_bytes)(void *ctx, const char *p, size_t n);
    /* With tl_watch.panel: what the panel says from now on (lines: what is watched, the counts
     * of each log), to keep below the lines; the last one is given at the end. */
    void (*panel)(void *ctx, const char *p, size_t n);
    /* With tl_watch.panel: a moment to show the panel when it changed (ten times a second). */
    void (*draw)(void *ctx);
    /* The live view ends, before the final report (whose messages follow): the panel given
     * last stays where it is. Lines may still come (the counts, without a panel). */
    void (*end)(void *ctx);
    void *ctx;
};

/* How a log is watched (tl_watch). Zeroed: nothing shown, the report folder kept current,
 * until the options' cancel flag is set. */
struct tl_watch {
    struct tl_watch_view view;
    unsigned width;      /* each event's lines wrapped to this width (a terminal's); 0: one line per
                            event (a CI log) */
    bool panel;          /* a panel of counts is kept (view.panel, view.draw); without one, the
                            counts of each log are said as lines at the end */
    bool color;          /* ANSI colours in the lines and the panel */
    bool no_report;      /* only the live view: no report folder kept current, none at the end */
    unsigned refresh_ms; /* at least this long between two rebuilds of the report; 0: 2000 */
    bool poll;           /* look for new bytes every half second (no inotify) */
    bool ranks_report;   /* a folder that holds several rank logs gets the multi-rank report
                            (as --all-ranks-html; what --run does) */
    /* The job, when there is one: polled a few times a second; returns 1 while it runs, 0
     * once it ended (*status: its exit status, said by the watch when not 0). NULL: the watch
     * ends at Ctrl-C. */
    int (*job)(void *ctx, int *status);
    void *job_ctx;
    /* The job's output, when the watch is to show it (on a terminal, above its panel): the
     * reading end of a pipe or pseudo-terminal the job writes to, read until it ends or the
     * job does. 0 or -1: none (the job writes where it likes). */
    int job_output_fd;
    /* What is watched, in words: the job's command (the title of live.html, the first line of
     * the panel). NULL: the path. */
    const char *title;
    /* Called with the counts so far after each change; nonzero ends the watch at once
     * (--fail-on), with the final report written. */
    int (*check)(void *ctx, const struct tl_counts *counts);
    void *check_ctx;
};

/**
 * Watch opt->path (a TORCH_TRACE log or folder of rank logs, or a TORCH_LOGS text file) while
 * a job writes it: every new finding printed once, as it comes; the report folder rebuilt
 * every few seconds (atomically, with live.html, a page that follows it); at the end (the job
 * ended, Ctrl-C, or check said stop) the report of what was written, as tl_run() would make
 * it, and its exit code. opt->cancel ends the watch (it is cleared for the final report).
 */
TL_API int tl_watch(const struct tl_options *opt, const struct tl_watch *w, struct tl_result *res);

/** The version the library was built as (TL_VERSION_STRING of the header it was built with;
 * a program built against another header may compare them). */
TL_API const char *tl_version(void);

/** The source revision it was built from ("a1b2c3d4e5f6", "-dirty" when the tree had
 * changes), or "" when unknown (built from a tree without git history). */
TL_API const char *tl_version_revision(void);

/** The rank of a log file named as TORCH_TRACE names a rank's log
 * (dedicated_log_torch_trace_rank_N_*.log), or -1 for any other name. */
TL_API long tl_rank_of_log_name(const char *name);

/* ---- Diff: two runs compared ----------------------------------------------------------- */

/*
 * tl_diff_run() compares two runs of a model: what got fixed and what is new among graph
 * breaks, recompiles, specializations and failures, frames compiled more or fewer times,
 * compile time per frame and in total, caches and graph sizes. Each side is a trace (file or
 * folder), a TORCH_LOGS text log, a summary.json, or a report folder holding one. Frames are
 * matched by code location and callers, not by compile id.
 */
struct tl_diff_options {
    uint32_t size; /* sizeof(struct tl_diff_options) as the caller knows it; 0: this header's */
    const char *before, *after;
    const char *out_dir;          /* NULL: "tl_diff" */
    bool overwrite;               /* replace an existing out_dir (atomically, at the end) */
    enum tl_summary_mode summary; /* not NONE: no folder; the diff, text or JSON, in
                                     result.summary */
    bool color;                   /* the text with ANSI colours */
    bool no_threads;              /* read the two sides one after the other */
    const char *command_line;     /* recorded in the page's footer; NULL: none */
    /* Where messages go; NULL: stderr. */
    void (*message)(void *ctx, enum tl_message_kind kind, const char *line);
    void *message_ctx;
    volatile sig_atomic_t *cancel; /* as tl_options.cancel */
};

#define TL_DIFF_OPTIONS_INIT                                                                       \
    {                                                                                              \
        .size = sizeof(struct tl_diff_options)                                                     \
    }

/* What the diff found, counted: entries (a finding at one place), not occurrences. "new"
 * counts the findings only after, and those more frequent after than before. */
struct tl_diff_tally {
    uint32_t new_failures, new_recompiles, new_graph_breaks, new_specializations;
    uint32_t fixed_failures, fixed_recompiles, fixed_graph_breaks, fixed_specializations;
    uint32_t frames_more, frames_fewer; /* frames compiled more (or newly) or fewer times */
    double before_s, after_s;           /* total compile time; negative when unknown */
};

struct tl_diff_result {
    char *index_path; /* the diff page, when one was written; else NULL */
    char *summary;    /* options.summary: the diff, text or JSON; else NULL */
    bool has_tally;   /* both sides were read: */
    struct tl_diff_tally tally;
};

/** Compare two runs. Returns an enum tl_exit; res may be NULL (else release it). */
TL_API int tl_diff_run(const struct tl_diff_options *opt, struct tl_diff_result *res);
/** Free what res holds and zero it. */
TL_API void tl_diff_result_release(struct tl_diff_result *res);

/* ---- Entries: a log, entry by entry ------------------------------------------------------ */

/**
 * One entry of a TORCH_TRACE log, decoded: its kind, its compile id and where the report puts
 * it, its JSON envelope and its payload. Everything is valid during the callback only: copy
 * what you keep. Strings are NUL-terminated; none is NULL.
 */
struct tl_entry {
    uint64_t line;          /* the envelope's line in the log, from 1 */
    const char *kind;       /* what it is: the envelope's first key that names an entry
                               ("dynamo_start", "artifact", "compilation_metrics", ...) or,
                               for keys this tlparse does not know, the first of them */
    const char *name;       /* the artifact's, graph's or file's name, when it has one; "" */
    const char *compile_id; /* "[0/1]", "[!0/0/1]", ...; "" when it has none */
    const char *folder;     /* the report's folder for it: "-_0_1_0", "unknown_12" */
    int64_t frame_id, frame_compile_id, attempt; /* -1 when absent */
    int64_t rank;                                /* -1 when the entry names none */
    const char *envelope;                        /* the JSON envelope as logged */
    size_t envelope_len;
    bool has_payload;    /* a payload followed (its md5 is checked; a mismatch is warned) */
    const char *payload; /* its lines, tabs stripped, joined by '\n'; "" when none */
    size_t payload_len;
};

/**
 * Read the log of opt->path (a file, a folder's newest log, "-") and call fn for each of its
 * entries, in order. Nothing is written: opt->out_dir and the report options are ignored,
 * warnings go to opt->message as in tl_run(). fn returns 0 to go on, anything else to stop
 * (tl_each_entry then returns TL_EXIT_OK). Returns an enum tl_exit; TORCH_LOGS text, which
 * has no entries, is TL_EXIT_USAGE.
 */
TL_API int tl_each_entry(const struct tl_options *opt,
                         int (*fn)(void *ctx, const struct tl_entry *e), void *ctx);

/* ---- Custom parsers ------------------------------------------------------------------------ */

/** Where a custom parser puts what it makes of an entry (tl_parser_add_*). */
struct tl_parser_output;

/**
 * A custom parser: the C counterpart of the reference's StructuredLogParser. For every entry
 * with one of its keys, parse() is called and adds files and links to the report; they are
 * numbered and listed under the entry's compile id on index.html like the built-in ones.
 */
struct tl_parser {
    const char *name;        /* for messages: "my_parser" */
    const char *const *keys; /* the envelope keys it takes (any of them, known to
                                tlparse or not), NULL-terminated; NULL: every entry */
    int (*parse)(void *ctx, const struct tl_entry *e, struct tl_parser_output *out);
    /* 0, or -1 when the entry could not be parsed: counted as a parser failure and warned
     * about with the parser's name and the line (the run goes on) */
    void *ctx;
};

/** A file of the entry's compile folder: name (a relative path; unsafe characters are
 * replaced) gets the report's "_N" number before its extension. 0, or -1 when it could not
 * be written (the run then stops with that error). */
TL_API int tl_parser_add_file(struct tl_parser_output *out, const char *name, const char *data,
                              size_t len);

/** The entry's payload as a file of its compile folder, named as tl_parser_add_file. */
TL_API int tl_parser_add_payload_file(struct tl_parser_output *out, const char *name);

/** A file at the top of the report (not numbered, not listed): name is relative and safe. */
TL_API int tl_parser_add_global_file(struct tl_parser_output *out, const char *name,
                                     const char *data, size_t len);

/** A link listed under the entry's compile id: text and target as given (escaped). */
TL_API int tl_parser_add_link(struct tl_parser_output *out, const char *text, const char *url);

#ifdef __cplusplus
}
#endif

#endif
