/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A typed record: one entry of the log, decoded once by the driver and handed to every
 * sink (the HTML report, raw.jsonl, the diagnosis, ...). It holds what the input layer
 * read (the glog prefix, the JSON envelope with its type-checked keys, the payload) and what
 * the model makes of it (compile folder and key, typed views of the keys the sinks use).
 *
 * Lifetime: everything a record points to lives in the entry's scratch arena or the reader's
 * buffers and is valid during the entry only; a sink that keeps anything copies it.
 * A sink that writes the payload as a file names it in payload_file, for the sinks
 * after it (raw.jsonl says which file holds each payload); the report says which files it made
 * of the record, with their bytes, in files (tl_record_wrote), for the sinks after it that read
 * them (a rank's summary, the provenance pages): nobody reads a file back or makes it again.
 */
#ifndef TL_RECORD_H
#define TL_RECORD_H

#include "base/config.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/str.h"
#include "input/compile_id.h"
#include "input/envelope.h"
#include "input/glog.h"
#include "model/directory.h"
#include "model/metrics.h"

#include <stdbool.h>
#include <stdint.h>

enum tl_record_status {
    TL_REC_OK,         /* a usable entry of this log's rank */
    TL_REC_OTHER_RANK, /* an entry of another rank: only raw.jsonl lists it */
    TL_REC_BAD,        /* its envelope failed the type checks: env is NULL */
};

/* A file the report made of a record. */
struct tl_record_file {
    struct tl_record_file *next;
    const struct tl_artifact *a; /* its listing (the model's, valid for the run) */
    enum tl_key kind;            /* the kind whose page it is */
    struct tl_str bytes;         /* what the file holds: borrowed from the writer, valid during
                                    the entry */
};

struct tl_record {
    enum tl_record_status status;
    uint64_t lineno;
    const struct tl_glog *glog;
    const struct tl_json *root;    /* the envelope, a JSON object */
    const struct tl_envelope *env; /* known keys (NULL for TL_REC_BAD) */
    enum tl_key kind;              /* its first key in table order other than rank,
                                      has_payload and stack; TL_K__COUNT when none */
    bool has_payload;              /* has_payload was given (payload may still be empty) */
    struct tl_str payload;         /* the payload lines, tabs stripped, joined by '\n' */

    /* TL_REC_OK only: where its outputs go (spec core.md §1.8) */
    bool cid_ok;              /* false: no usable compile id ("unknown") */
    struct tl_compile_id cid; /* as logged */
    struct tl_dirkey *key;    /* its compile-directory key */
    const char *folder;       /* its compile folder, "-_0_0_0" or "unknown_<line>" */
    const char *display;      /* "[0/0]"; NULL without a compile id */

    /* typed views of its keys (NULL or empty when absent) */
    const struct tl_metrics *metrics;
    const struct tl_bwd_metrics *bwd_metrics;
    const struct tl_aot_bwd_metrics *aot_bwd_metrics;
    struct tl_str artifact_name, artifact_encoding; /* artifact */
    struct tl_str link_name, link_url;              /* link */
    struct tl_str graph_dump_name;                  /* graph_dump */
    struct tl_str split_child_name;                 /* optimize_ddp_split_child */
    struct tl_str dump_file_name;                   /* dump_file */
    struct tl_str output_code_filename;             /* inductor_output_code */

    /* Set by the sink that wrote the payload as a file (its path in the report). */
    struct tl_buf payload_file;
    /* The files the report made of it, in the order it listed them (scratch). */
    struct tl_record_file *files, *files_last;
    /* Its payload parsed as JSON once, by the first reader that asks (tl_record_payload_json):
     * 0 not yet, 1 parsed into payload_value (in the entry's scratch), -1 not JSON. */
    int8_t payload_parsed;
    struct tl_json payload_value;
};

/** A record with nothing in it (payload_file an empty buffer); release with the next call. */
void tl_record_init(struct tl_record *r);
void tl_record_release(struct tl_record *r);

/**
 * For a TL_REC_OK record with env set: its compile folder, display id and directory key (the
 * key is created in dir if new), and the typed views of its keys. Strings go to scratch.
 */
void tl_record_decode(struct tl_record *r, struct tl_directory *dir, struct tl_arena *scratch);

/**
 * Say that a file of r, listed as a, holds bytes (which stay valid, as the record, during the
 * entry: the caller keeps them). The note goes to scratch.
 */
void tl_record_wrote(struct tl_record *r, const struct tl_artifact *a, enum tl_key kind,
                     struct tl_str bytes, struct tl_arena *scratch);

/**
 * The payload as JSON, parsed on the first call and kept for the entry's other readers (a
 * chromium event is read by the report and the diagnosis); NULL when there is none or it is
 * not JSON. The tree lives in scratch, the entry's memory. The record is not const to this
 * memo: its readers get it as const, and the parse of the same bytes gives the same tree.
 */
const struct tl_json *tl_record_payload_json(const struct tl_record *r, struct tl_arena *scratch);

/** Whether the record has the key k. */
static inline bool tl_record_has(const struct tl_record *r, enum tl_key k)
{
    return r->env && r->env->key[k];
}

#endif
