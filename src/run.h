/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's own interface (not public), shared by run.c, log.c and the consumers:
 *   - a run's messages (a callback, capped per kind, kept off the progress bar);
 *   - one log parsed into one report folder: tl_log_run(), the stage a multi-rank run calls
 *     once per rank, which decodes every entry into a typed record, hands it to the
 *     consumers the options chose, updates the model, and returns a small summary;
 *   - the consumers: a small struct of callbacks each (the HTML report, raw.jsonl, ...).
 */
#ifndef TL_RUN_H
#define TL_RUN_H

#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/progress.h"
#include "input/md5q.h"
#include "input/reader.h"
#include "input/sniff.h"
#include "model/diagnosis.h"
#include "model/model.h"
#include "model/redact.h"
#include "model/ranks.h"
#include "model/record.h"
#include "model/runinfo.h"
#include "model/stats.h"
#include "output/outdir.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- messages ---------------------------------------------------------------------------- */

/* Kinds of warnings, for capping repeated ones. */
enum tl_warn_kind {
    TL_W_GLOG,
    TL_W_JSON,
    TL_W_MD5,
    TL_W_UTF8,
    TL_W_PARSER,
    TL_W_GUARDS,
    TL_W_RAWJSONL,
    TL_W_TRUNCATED,
    TL_W_STRTAB,
    TL_W_FAILREASON,
    TL_W_LONG,
    TL_W_OTHER,
    TL_W__COUNT,
};

/* Where a run's messages go. */
struct tl_messages {
    const struct tl_options *opt; /* its message callback */
    struct tl_progress *progress; /* cleared before each message; may be NULL */
    const char *input;            /* the log's name, for warnings */
    uint64_t warned[TL_W__COUNT]; /* warnings printed per kind */
};

/** One message line (printf format; control characters of log text made printable). */
void tl_say(struct tl_messages *m, enum tl_message_kind kind, const char *fmt, ...) TL_PRINTF(3, 4);
/** "tlparse: warning: INPUT:LINE: ..." (lineno 0: no line), at most 20 of each kind. */
void tl_warn_at(struct tl_messages *m, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                ...) TL_PRINTF(4, 5);
/** "tlparse: warning: INPUT is truncated ..." for a cut-off compressed log: msg is a struct
 * tl_messages (a tl_reader_truncated_fn). */
void tl_say_truncated(void *msg, const char *format, uint64_t lines);
/** "tlparse: error: ..." for err, and the exit code that goes with it. */
int tl_report_error(const struct tl_options *opt, const struct tl_err *err);

/* ---- one log into one folder --------------------------------------------------------------- */

struct tl_log;

/* Records a consumer is given besides the usable ones (TL_REC_OK). */
enum {
    TL_WANT_OTHER_RANK = 1, /* entries of another rank */
    TL_WANT_BAD = 2,        /* entries whose envelope failed its type checks */
};

/*
 * A consumer of records. Each callback returns 0, or -1 with err filled (an I/O error: the
 * run stops). Consumers see the records in log order, in the order of the list, and the
 * model as it was before each record (the driver updates it after them). A record's
 * payload_file, set by one consumer, is seen by the ones after it.
 */
struct tl_consumer_ops {
    const char *name;
    unsigned wants; /* TL_WANT_* */
    /* Whether it needs the payload of this record (decoded, payload not read yet); NULL:
     * every payload. Payloads nobody needs are skipped unread. */
    bool (*wants_payload)(void *self, const struct tl_record *r);
    void *(*create)(struct tl_log *log);
    int (*start)(void *self, struct tl_log *log, struct tl_err *err); /* may be NULL */
    int (*record)(void *self, struct tl_log *log, struct tl_record *r, struct tl_err *err);
    int (*finish)(void *self, struct tl_log *log, struct tl_err *err); /* may be NULL */
    void (*destroy)(void *self); /* also after a failed run: closes what is open */
};

#define TL_MAX_CONSUMERS 10

/* One log being parsed into one report folder. */
struct tl_log {
    const struct tl_options *opt;
    const char *path; /* the log file; NULL for opt->mem_input */
    struct tl_outdir *out;
    bool threads; /* helper threads (md5 checks, writes, the raw.log copy) */
    int year;     /* of raw.jsonl timestamps */
    struct tl_messages msg;
    struct tl_progress progress;
    struct tl_reader *reader;
    struct tl_arena arena;   /* run lifetime */
    struct tl_arena scratch; /* reset after every entry */
    struct tl_model model;
    struct tl_stats stats;
    struct tl_map unknown_keys; /* names of unknown fields seen (at most 1000) */
    bool have_rank;
    uint32_t rank;
    bool saw_unknown_cid;
    struct tl_buf page;       /* a page buffer the consumers share, one page at a time */
    struct tl_runinfo info;   /* what made the report, for its footer and summary.json */
    struct tl_diag diag;      /* the diagnosis, filled by its consumer */
    bool diag_ready;          /* tl_diag_finish() was called */
    uint64_t chromium_events; /* written to chromium_events.json (by the report) */
    /* a rank of a multi-rank run: its summary, allocated in rank_arena (the caller's) */
    struct tl_rank_summary *rank_summary;
    struct tl_arena *rank_arena;
    bool all_payloads; /* some consumer reads every payload */
    /* --redact: every envelope and payload goes through it before any consumer */
    bool redacting;
    struct tl_redact redact;
    char *redacted_input, *redacted_command; /* runinfo's, with --redact=paths */

    /* tl_each_entry(): where each record goes */
    int (*entry_fn)(void *ctx, const struct tl_entry *e);
    void *entry_ctx;

    /* the entry being read */
    struct tl_buf env_text; /* its envelope, copied out of the reader */
    struct tl_buf payload;  /* its payload */
    struct tl_buf redacted; /* its payload as --redact leaves it */
    struct tl_buf utf8_fix; /* its line, with invalid UTF-8 repaired */
    struct tl_md5q *md5q;   /* payload checks, on a worker thread */
    bool md5_due;           /* the payload awaits its check */
    bool md5_truncated;
    struct tl_str md5_want; /* has_payload, borrowed until the entry is done */

    struct {
        const struct tl_consumer_ops *ops;
        void *self;
    } cons[TL_MAX_CONSUMERS];
    size_t ncons;
};

/* What tl_log_run() tells its caller about the log. */
struct tl_log_summary {
    uint64_t bytes_in, lines;
    struct tl_stats stats;
    bool saw_unknown_cid;    /* an entry had no usable compile id (--strict-compile-id) */
    size_t compile_ids;      /* keys of the compile directory */
    char *summary;           /* with opt->summary: the diagnosis as text or JSON (malloc'd) */
    struct tl_counts counts; /* the diagnosis, counted */
    bool no_entries;         /* a trace that had lines, and not one TORCH_TRACE entry in them */
    bool truncated;          /* a compressed log cut off: read up to there (--strict fails) */
};

/** The public counts of a diagnosis (tl_diag_finish() done). */
void tl_counts_of(struct tl_counts *out, const struct tl_diag *d);

/* One log to parse (tl_log_run). */
struct tl_log_job {
    const struct tl_options *opt;
    struct tl_reader *reader; /* the open log, taken over: freed by tl_log_run */
    const char *path;         /* its file; NULL for opt->mem_input */
    const char *name;         /* its name in messages */
    struct tl_outdir *out;    /* NULL: no report (--summary, --json) */
    /* A rank of a multi-rank run: its summary is computed into *rank_summary, allocated in
     * rank_arena, and its string table copied into *strtab_out (when not NULL), for the
     * driver to carry to the ranks after it. */
    struct tl_rank_summary *rank_summary;
    struct tl_arena *rank_arena;
    struct tl_strtab *strtab_out;
    /* tl_each_entry(): the callback each record goes to (out is NULL) */
    int (*entry_fn)(void *ctx, const struct tl_entry *e);
    void *entry_ctx;
};

/**
 * Parse one log into the report folder job->out, with the consumers the options choose,
 * write its summary.json and print its Stats line. The folder is neither committed nor
 * aborted: the caller does that; with opt->summary there is none and the diagnosis comes back
 * in sum->summary. *sum is filled either way.
 */
int tl_log_run(const struct tl_log_job *job, struct tl_log_summary *sum, struct tl_err *err);

/**
 * The same for TORCH_LOGS text (textlog.c): the diagnosis of its messages, and with a folder
 * its pages (index.html, log.html), summary.json and raw.log.
 */
int tl_textlog_run(const struct tl_options *opt, struct tl_reader *reader, const char *name,
                   struct tl_outdir *out, struct tl_log_summary *sum, struct tl_err *err);

/** The log to read, opened: opt->path (a folder gives its newest log, and msg says which;
 * "-" is standard input) or opt->mem_input. *path: the file read (malloc'd), NULL for a
 * buffer. */
int tl_open_log(const struct tl_options *opt, struct tl_messages *msg, char **path,
                struct tl_reader **reader, struct tl_err *err);
/** Whether the log is TORCH_LOGS text rather than a trace, told by its first 256 KiB. */
int tl_log_is_text(struct tl_reader *reader, bool *text, struct tl_err *err);
/**
 * What the log is, told by its first 256 KiB (input/sniff.h): a trace, TORCH_LOGS text or an
 * empty file; anything else is an error (TL_ERR_INPUT, "NAME is not a TORCH_TRACE log or
 * TORCH_LOGS text: WHY"). Call it before reading lines.
 */
int tl_log_sniff(struct tl_reader *reader, const char *name, enum tl_sniff_kind *kind,
                 struct tl_err *err);
/** The same error, after tl_log_run(), for a trace none of whose lines was an entry. */
int tl_log_check_entries(const char *name, const struct tl_log_summary *sum, struct tl_err *err);
/* ---- --bundle (bundle.c) ---- */
enum { TL_BUNDLE_ZIP = 1, TL_BUNDLE_HTML = 2 };
/** What kind of bundle path names, by its extension (.zip, .html), or -1 (a usage error). */
int tl_bundle_kind(const char *path, struct tl_err *err);
/** Whether path may be written: a known kind, and not there yet unless overwrite (and then a
 * file, not a folder). */
int tl_bundle_check(const char *path, bool overwrite, struct tl_err *err);
/** The report folder as one file at path, written beside it and renamed into place; a .zip
 * holds it in one folder named after the file (r.zip: r/...). */
int tl_bundle_write(const char *folder, const char *path, bool overwrite, struct tl_err *err);

/**
 * One log into out (NULL: no folder, the diagnosis in sum->summary as opt->summary says): a
 * structured trace or TORCH_LOGS text, told apart by its first 256 KiB. Takes the reader (it
 * is freed). The folder is neither committed nor aborted.
 */
int tl_run_log(const struct tl_options *opt, struct tl_reader *reader, const char *path,
               struct tl_outdir *out, struct tl_log_summary *sum, struct tl_err *err);

/** What made a report of the log at path (NULL: a buffer) named name: the version, the
 * revision, opt->command_line, and the file's size and modification time. */
void tl_runinfo_fill(struct tl_runinfo *ri, const struct tl_options *opt, const char *path,
                     const char *name);

/** Whether --strict or --strict-compile-id fail on the log (the report is written anyway). */
bool tl_strict_failed(const struct tl_options *opt, const struct tl_log_summary *sum);
/** Say so when they do: the exit code (TL_EXIT_ERROR or TL_EXIT_OK). */
int tl_strict_exit(const struct tl_options *opt, struct tl_messages *msg,
                   const struct tl_log_summary *sum);

/* ---- multi-rank runs (multirank.c) ------------------------------------------------------- */

/** --all-ranks-html (with or without --from-summaries), and --summary or --json of a folder of
 * rank logs (every rank's diagnosis, and across them, in result.summary): the exit code. */
int tl_ranks_run(const struct tl_options *opt, struct tl_result *res);
/** The number of ranks whose logs path (a folder) holds (rankfiles.h); 0: not a folder. */
size_t tl_rank_folder_ranks(const char *path);
/** --rank-only: one rank's report and its summary.json; the exit code. */
int tl_rank_only_run(const struct tl_options *opt, struct tl_result *res);

/** A warning about the log being parsed, in line order with the payload checks. */
void tl_log_warn(struct tl_log *log, enum tl_warn_kind kind, uint64_t lineno, const char *fmt, ...)
    TL_PRINTF(4, 5);

/* ---- the consumers (consumer_*.c) ---------------------------------------------------------- */

extern const struct tl_consumer_ops tl_consumer_diagnosis;  /* log->diag */
extern const struct tl_consumer_ops tl_consumer_rank;       /* a rank's summary, parity */
extern const struct tl_consumer_ops tl_consumer_report;     /* pages, artifacts, chromium */
extern const struct tl_consumer_ops tl_consumer_payloads;   /* payloads/<md5>.txt */
extern const struct tl_consumer_ops tl_consumer_rawjsonl;   /* raw.jsonl */
extern const struct tl_consumer_ops tl_consumer_rawlog;     /* raw.log */
extern const struct tl_consumer_ops tl_consumer_provenance; /* provenance_tracking_*.html */
extern const struct tl_consumer_ops tl_consumer_export;     /* export mode's report */

extern const struct tl_consumer_ops tl_consumer_custom;  /* options' custom parsers */
extern const struct tl_consumer_ops tl_consumer_entries; /* tl_each_entry()'s callback */

/**
 * A file of the record's compile folder, as the report's parsers add them: fname (made safe)
 * gets the next "_N" number, is written and listed under the record's compile id.
 */
int tl_report_emit_file(struct tl_log *log, struct tl_record *r, struct tl_str fname,
                        const char *data, size_t n, struct tl_err *err);
/** A link listed under the record's compile id (it takes the next number, as a file). */
void tl_report_add_link(struct tl_log *log, struct tl_record *r, struct tl_str text,
                        struct tl_str url);

/** The public view of a record (tl_each_entry, custom parsers); strings go to log->scratch. */
void tl_entry_of(struct tl_entry *e, struct tl_log *log, const struct tl_record *r);

/** raw.jsonl's first line: {"string_table":[...]} and a newline. */
void tl_rawjsonl_header(struct tl_buf *out, const struct tl_strtab *st);

#endif
