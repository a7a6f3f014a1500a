/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files of a report's compile folders (files.c): shared by the report and the custom
 * parsers, whose files are numbered in one sequence.
 */
#ifndef TL_SINKS_FILES_H
#define TL_SINKS_FILES_H

#include "base/config.h"
#include "base/buf.h"
#include "engine/sink.h"
#include "report/pages.h"

/**
 * A file of the record's compile folder: fname gets the _N suffix, is written and listed.
 * payload_file: it holds the record's payload (r->payload_file is set, for raw.jsonl). The
 * path written (which differs from the one wanted when it collides) is appended to *used
 * when not NULL.
 */
int tl_files_emit(struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_str fname,
                  const char *data, size_t n, bool payload_file, struct tl_buf *used,
                  struct tl_err *err);
/** The same for a name from the log or a custom parser: made safe first. */
int tl_files_emit_named(struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_str fname,
                        const char *data, size_t n, struct tl_err *err);
/** A link listed under the record's compile id (it takes the next number, as a file). */
void tl_files_add_link(struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_str text,
                       struct tl_str url);

/** A page streamed into the file name of the report as render writes it (into sink's buffer,
 * flushing as it goes): 0, or -1 with err (render's -1: a flush failed). */
int tl_files_stream_page(struct tl_sink_ctx *ctx, const char *name,
                         int (*render)(const struct tl_page_sink *sink, const void *arg),
                         const void *arg, struct tl_err *err);

#endif
