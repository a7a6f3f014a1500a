/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the report wrote, taken from the records as they pass (written.c), so that a sink
 * that needs a file of the report (the provenance pages, a rank's summary) computes it from
 * the record instead of reading the file back. Such a sink comes after every sink that
 * writes files (report, custom parsers, payloads).
 */
#ifndef TL_SINKS_WRITTEN_H
#define TL_SINKS_WRITTEN_H

#include "base/config.h"
#include "base/buf.h"
#include "base/map.h"
#include "engine/sink.h"

#include <stdbool.h>
#include <stdint.h>

/* Which files of the directory the sink has seen: the ones listed since are a record's. */
struct tl_written {
    struct tl_map seen; /* struct tl_dirkey * -> its last struct tl_artifact seen */
};

/** Start with no file seen; arena holds the map (the run's). */
void tl_written_init(struct tl_written *w, struct tl_arena *arena);
void tl_written_release(struct tl_written *w);

/**
 * Call fn for every file (not a link) listed under r's key since the last call: the files
 * the report made of r. fn's artifact is the model's (valid for the run).
 */
void tl_written_each(struct tl_written *w, const struct tl_record *r,
                     void (*fn)(void *arg, const struct tl_artifact *a), void *arg);

/** Whether the record may have files whose bytes tl_written_bytes() needs its payload for. */
bool tl_written_wants_payload(const struct tl_record *r);

/**
 * Append to out the bytes of a, a file the report made of r: the payload, its pretty JSON, or
 * the page rendered from it, as the report sink wrote them. Returns false (out unchanged)
 * when they are not known: a page that is not a rendering of the payload (metrics, guards)
 * or a custom parser's file. scratch holds a parsed JSON payload (the entry's).
 */
bool tl_written_bytes(const struct tl_sink_ctx *ctx, const struct tl_record *r,
                      const struct tl_artifact *a, struct tl_buf *out);

/** The last path component of a file of the report. */
const char *tl_written_base(const char *url);

#endif
