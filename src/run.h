/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state of one run, shared by run.c (the pipeline: lines -> envelopes ->
 * parsers -> model -> pages) and parsers.c (the parser table). Not public.
 */
#ifndef TL_RUN_H
#define TL_RUN_H

#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/arena.h"
#include "base/buf.h"
#include "model/directory.h"
#include "input/envelope.h"
#include "base/err.h"
#include "input/glog.h"
#include "base/map.h"
#include "output/outdir.h"
#include "report/pages.h"
#include "base/progress.h"
#include "model/stack_trie.h"
#include "model/stats.h"
#include "model/strtab.h"

#include <stdbool.h>
#include <stdint.h>

/* Status bits of a metrics key (spec §4.6). */
enum {
    TL_MS_PRESENT = 1,
    TL_MS_FAIL = 2,
    TL_MS_EMPTY = 4,
    TL_MS_RESTART = 8,
};

struct tl_ctx {
    const struct tl_options *opt;
    const char *input_name; /* for messages */
    struct tl_outdir out;
    struct tl_arena arena;   /* run lifetime */
    struct tl_arena scratch; /* reset after every entry */
    struct tl_stats stats;
    struct tl_strtab strtab;
    struct tl_directory dir;
    struct tl_trie trie, unknown_trie;
    struct tl_map metrics;      /* metrics key -> (uintptr_t) TL_MS_* bits */
    struct tl_map starts;       /* raw cid key -> struct tl_trie_node (dynamo_start) */
    struct tl_map specs;        /* raw cid key -> struct tl_shape_rec list */
    struct tl_map fast_guards;  /* raw cid key -> struct tl_shape_rec list */
    struct tl_map unknown_keys; /* names of unknown fields seen */
    uint32_t counter;           /* the output number N */
    uint64_t nfailures;         /* failures + restarts rows */
    uint64_t nchromium;
    bool have_rank;
    uint32_t rank;
    bool saw_unknown_cid; /* for --strict-compile-id */
    int year;
    uint64_t warned[32]; /* messages printed per kind, to cap floods */
    struct tl_progress progress;
    struct tl_outfile failures, chromium, raw_body;
    struct tl_buf page;     /* reusable page buffer */
    struct tl_buf env_text; /* the current envelope, copied out of the reader */
    struct tl_buf payload;  /* the current payload */
    struct tl_buf utf8_fix; /* a line with invalid UTF-8, repaired */
    struct tl_md5q *md5q;   /* payload checks, on a worker thread */
    bool md5_due;           /* the current entry's payload awaits its check */
    bool md5_truncated;
    struct tl_str md5_want; /* has_payload, borrowed until the entry is done */
};

/* One envelope being processed. */
struct tl_line {
    uint64_t lineno;
    const struct tl_glog *glog;
    struct tl_envelope env;
    const struct tl_json *root;
    struct tl_str payload;
    const char *folder;    /* compile folder */
    struct tl_dirkey *key; /* compile-directory key */
    const char *display;   /* display id, NULL when absent */
    struct tl_buf payload_filename;
};

/* Kinds of messages, for capping repeated ones. */
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
};

/** Print "tlparse: warning: FILE:LINE: ..." (capped per kind). lineno 0: no line. */
void tl_warn(struct tl_ctx *c, enum tl_warn_kind kind, uint64_t lineno, const char *fmt, ...)
    TL_PRINTF(4, 5);

/**
 * Add a file of the envelope's compile folder: fname gets the _N suffix
 * (spec §3.1), is written and listed. payload_file: it is the line's payload
 * file for raw.jsonl. Returns -1 only on write errors.
 */
int tl_emit_file(struct tl_ctx *c, struct tl_line *l, struct tl_str fname, const char *data,
                 size_t n, bool payload_file, struct tl_err *err);

/** Run the parser table (spec §3.2) on one envelope. */
int tl_parsers_run(struct tl_ctx *c, struct tl_line *l, struct tl_err *err);

/** compilation_metrics processing (spec §3.4), after the parsers. */
int tl_metrics_process(struct tl_ctx *c, struct tl_line *l, struct tl_err *err);

#endif
