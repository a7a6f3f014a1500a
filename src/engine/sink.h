/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sink interface: what a sink of records (the HTML report, raw.jsonl, a rank's summary...)
 * is, and all it sees of a run. The engine feeds each sink the typed records of the log, in
 * log order; a sink reads the model, writes through the output, says what went wrong through
 * tl_sink_warn(), and never sees the engine's internals nor another sink. What one sink makes
 * for the others (the files the report lists under a compile id) goes through an explicit
 * call here, into the model, never through a shared struct's fields.
 */
#ifndef TL_ENGINE_SINK_H
#define TL_ENGINE_SINK_H

#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/str.h"
#include "engine/messages.h"
#include "model/directory.h"
#include "model/model.h"
#include "model/record.h"
#include "model/runinfo.h"
#include "model/stats.h"
#include "output/outdir.h"

#include <stdbool.h>

struct tl_engine;

/* How the report is made: all a sink reads of the run's options (the engine fills it from them;
 * sinks never see the options themselves). */
struct tl_report_settings {
    const char *custom_header_html;  /* inserted raw at the top of index.html; NULL: none */
    bool plain_text;                 /* inductor output code as .txt, not highlighted */
    bool provenance;                 /* -i: provenance pages are written, and linked */
    bool export_mode;                /* the export report (-e) */
    bool name_order;                 /* folders listed in name order, not the file system's */
    const struct tl_parser *parsers; /* custom parsers; NULL: none */
    size_t nparsers;
};

/* What a sink sees of the run. */
struct tl_sink_ctx {
    const struct tl_report_settings *report;
    struct tl_outdir *out;         /* the output; NULL when there is none (--summary) */
    const struct tl_model *model;  /* as before the current record; whole at finish, with the
                                    * diagnosis */
    const struct tl_runinfo *info; /* what made the report, for footers (redacted as asked) */
    const char *input;             /* the log's name, as messages give it */
    bool text;                     /* the log is TORCH_LOGS text: lines, no records */
    struct tl_stats *stats;        /* counters of what was wrong in the log (the Stats line) */
    struct tl_arena *arena;        /* the run's lifetime */
    struct tl_arena *scratch;      /* reset after every entry */
    bool threads;                  /* helper threads allowed (not for in-memory runs) */
    bool redacting;                /* --redact: the records are redacted already */
    int year;                      /* of raw.jsonl's timestamps (glog prefixes have none) */
    struct tl_engine *engine;      /* for the calls below */
};

/* Records a sink is given besides the usable ones (TL_REC_OK). */
enum {
    TL_WANT_OTHER_RANK = 1, /* entries of another rank */
    TL_WANT_BAD = 2,        /* entries whose envelope failed its type checks */
};

/* A line of TORCH_LOGS text, as the text source gives it. */
struct tl_text_line {
    uint64_t lineno;
    struct tl_str text; /* without its newline; a placeholder for a line too long to read */
    const char *cid;    /* its compile id ("[0/1]"), or NULL */
    bool first_of_cid;  /* the first line of that compile id */
};

/*
 * A sink of records. Each callback returns 0, or -1 with err filled (an I/O error: the run
 * stops). Sinks see the records in log order, and the model as it was before each record (the
 * engine updates it after them). A record's payload_file, set by the sink that wrote the
 * payload, and the files the report made of it with their bytes (tl_record_wrote), are seen by
 * the sinks added after it.
 */
struct tl_sink_ops {
    const char *name;
    unsigned wants; /* TL_WANT_* */
    /* Whether it needs the payload of this record (decoded, payload not read yet); NULL:
     * every payload. Payloads nobody needs are skipped unread. */
    bool (*wants_payload)(void *self, const struct tl_record *r);
    /* params: the sink's own, from the mode that added it (may be NULL). */
    void *(*create)(struct tl_sink_ctx *ctx, const void *params);
    int (*start)(void *self, struct tl_sink_ctx *ctx, struct tl_err *err); /* may be NULL */
    /* The log's bytes as they are read (decompressed), before their records; may be NULL. */
    int (*bytes)(void *self, struct tl_sink_ctx *ctx, const char *p, size_t n, struct tl_err *err);
    int (*record)(void *self, struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_err *err);
    /* A line of a TORCH_LOGS text log (the text source gives lines, not records); may be
     * NULL. */
    int (*text_line)(void *self, struct tl_sink_ctx *ctx, const struct tl_text_line *l,
                     struct tl_err *err);
    int (*finish)(void *self, struct tl_sink_ctx *ctx, struct tl_err *err); /* may be NULL */
    /* A live report's generation: the files that show the log so far (the index, the
     * directory, the summary), written through ctx->out as finish writes them, the model
     * finished as for finish. It runs on a copy of the run that nothing feeds afterwards (see
     * tl_engine_publish), so it may change the sink's state; the files finish streams stay as
     * they are. NULL: the sink shows nothing before its finish. */
    int (*publish)(void *self, struct tl_sink_ctx *ctx, struct tl_err *err);
    void (*destroy)(void *self); /* also after a failed run: closes what is open */
};

/** A warning about the log, in line order with the payload checks (lineno 0: no line). */
void tl_sink_warn(struct tl_sink_ctx *ctx, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                  ...) TL_PRINTF(4, 5);
/** An informational line (verbose output). */
void tl_sink_say(struct tl_sink_ctx *ctx, const char *fmt, ...) TL_PRINTF(2, 3);

/**
 * List a file (or a link, link true) of the report under a compile id's key, with the
 * next number of the report's sequence: what the index shows, what compile_directory.json
 * holds and what later sinks read in the model's directory. url and name are copied.
 * Returns the listing, valid for the run.
 */
struct tl_artifact *tl_sink_list_file(struct tl_sink_ctx *ctx, struct tl_dirkey *key,
                                      const char *url, const char *name, bool link);
/** Take the next number of the report's sequence without listing anything (a page that a
 * file's readable view is written as). */
uint32_t tl_sink_take_number(struct tl_sink_ctx *ctx);
/** The number the next listed file will get. */
uint32_t tl_sink_next_number(const struct tl_sink_ctx *ctx);

#endif
