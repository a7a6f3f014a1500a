/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sinks a mode can hand the engine, each with its own parameters. A sink knows the sink
 * interface (engine/sink.h), the model it reads and the report pages it writes; it knows no
 * other sink and no mode.
 */
#ifndef TL_SINKS_SINKS_H
#define TL_SINKS_SINKS_H

#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"
#include "engine/sink.h"
#include "model/ranks.h"
#include "model/strtab.h"

/* The HTML report: pages, artifacts, chromium_events.json, index.html at the end. */
struct tl_report_params {
    bool collectives_parity; /* a rank's collectives_parity.json is written: link it */
    /* When not NULL: each chromium event that chromium_events.json holds, as it is written
     * (a multi-rank run's combined file); event is valid during the call only. */
    int (*chromium)(void *ctx, const struct tl_json *event, struct tl_err *err);
    void *chromium_ctx;
};
extern const struct tl_sink_ops tl_sink_report;
/* tlparse's custom parsers (opt->parsers): files numbered in the report's own sequence (add
 * it right after the report). */
extern const struct tl_sink_ops tl_sink_custom;
/* payloads/<md5>.txt: the payloads no other sink wrote. */
extern const struct tl_sink_ops tl_sink_payloads;
/* raw.jsonl: every entry as a JSON line. */
struct tl_rawjsonl_params {
    /* When not NULL: writes the first line (the string table) into out, from the log's own
     * table (a multi-rank run carries the tables of the ranks before it); NULL: own table. */
    void (*header)(void *ctx, const struct tl_strtab *own, struct tl_buf *out);
    void *header_ctx;
};
extern const struct tl_sink_ops tl_sink_rawjsonl;
/* raw.log: the log as it was read. */
struct tl_rawlog_params {
    const char *copy_path; /* a plain file: copied by the kernel on a thread of its own;
                            * NULL: the bytes as the engine reads them (decompressed) */
    const char *mem;       /* a log in memory: written whole (mem_len bytes); NULL: none */
    uint64_t mem_len;
};
extern const struct tl_sink_ops tl_sink_rawlog;
/* provenance_tracking_*.html (--inductor-provenance). */
extern const struct tl_sink_ops tl_sink_provenance;
/* Export mode's report (-e). */
extern const struct tl_sink_ops tl_sink_export;
/* A TORCH_LOGS text log's report: log.html, line by line, and index.html. */
extern const struct tl_sink_ops tl_sink_textlog;
/* summary.json (the diagnosis) and dynamic_shapes.html, at the end. */
extern const struct tl_sink_ops tl_sink_summary;

/* A rank of a multi-rank run: what the landing page needs from it, into *summary (allocated
 * in arena), its collectives_parity.json, and its summary.json with the rank in it (add it
 * instead of tl_sink_summary). */
struct tl_rank_params {
    struct tl_rank_summary *summary;
    struct tl_arena *arena;
};
extern const struct tl_sink_ops tl_sink_rank;

/* tl_each_entry(): each record, as the public struct tl_entry, to fn. */
struct tl_entries_params {
    int (*fn)(void *ctx, const struct tl_entry *e);
    void *ctx;
};
extern const struct tl_sink_ops tl_sink_entries;

/** summary.json of a trace (rank: NULL, or a rank's summary) and, when the diagnosis found
 * dynamic shapes and this is no export report, dynamic_shapes.html. */
int tl_sink_write_summary(struct tl_sink_ctx *ctx, const struct tl_rank_summary *rank,
                          struct tl_err *err);

#endif
