/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A run's messages: each line is made printable and goes to the options' callback; warnings name
 * the log and the line, and are capped per kind. Used by the engine, its sinks (through
 * tl_sink_warn) and the modes.
 */
#ifndef TL_ENGINE_MESSAGES_H
#define TL_ENGINE_MESSAGES_H

#include "base/config.h"
#include "tlparse/tlparse.h"
#include "base/err.h"

#include <stdint.h>

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
    const char *input;            /* the log's name, for warnings */
    uint64_t warned[TL_W__COUNT]; /* warnings printed per kind */
};

/**
 * The one way out of every message: line (ours, quoting log text) made printable (control
 * characters, C1, bytes of no UTF-8 character become '?': tl_buf_add_printable), then given
 * to fn, or written to stderr with a newline when fn is NULL.
 */
void tl_message_emit(void (*fn)(void *ctx, enum tl_message_kind kind, const char *line), void *ctx,
                     enum tl_message_kind kind, const char *line);

/** One message line (printf format; made printable as tl_message_emit does). */
void tl_say(struct tl_messages *m, enum tl_message_kind kind, const char *fmt, ...) TL_PRINTF(3, 4);
/** "tlparse: warning: INPUT:LINE: ..." (lineno 0: no line), at most 20 of each kind. */
void tl_warn_at(struct tl_messages *m, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                ...) TL_PRINTF(4, 5);
/** "tlparse: warning: INPUT is truncated ..." for a cut-off compressed log: msg is a struct
 * tl_messages (a tl_reader_truncated_fn). */
void tl_say_truncated(void *msg, const char *format, uint64_t lines);
/** "tlparse: error: ..." for err, and the exit code that goes with it (the one map from
 * error codes to exit codes). */
int tl_report_error(const struct tl_options *opt, const struct tl_err *err);

#endif
