/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON writer that reproduces serde_json's output byte for byte (spec
 * core.md §0.3): object keys sorted bytewise with the last duplicate
 * winning, compact or pretty (2-space indent, "key": value, [] and {} for
 * empty containers, no trailing newline), strings escaping only '"', '\\'
 * and control characters (\n \r \t \b \f short, others \u00XX lowercase),
 * integers as written, floats in shortest round-trip digits with serde's
 * layout (1.0, 1e-7, 1.2345678901234567e19, 0.00003910064697265625).
 * Depends on buf and json.
 */
#ifndef TL_JSON_WRITE_H
#define TL_JSON_WRITE_H

#include "base/config.h"
#include "base/buf.h"
#include "base/json.h"

#include <stdbool.h>

/** Append v compactly ({"a":1,"b":[1,2]}). */
void tl_json_write_compact(struct tl_buf *out, const struct tl_json *v);

/**
 * Append v pretty-printed as if it stood at nesting level `level` (0 for a
 * top-level value): the first line is not indented, inner lines are indented
 * by 2 * (level + 1) spaces, the closing bracket by 2 * level.
 */
void tl_json_write_pretty(struct tl_buf *out, const struct tl_json *v, int level);

/** Append a quoted, escaped JSON string. */
void tl_json_write_string(struct tl_buf *out, const char *p, size_t n);

/**
 * Append a JSON string of a document of our own (summary.json, --json): as
 * tl_json_write_string, but also DEL and the C1 controls as \u007f, \u0080 ..
 * \u009f (which a terminal obeys; serde_json leaves them raw), and ill-formed
 * UTF-8 as U+FFFD (raw bytes of a log make no invalid JSON). Valid JSON that
 * holds no byte a terminal acts on; it reads back as the same text.
 */
void tl_json_write_text(struct tl_buf *out, const char *p, size_t n);

/** Append a double in serde_json's float layout (always looks like a float). */
void tl_json_write_double(struct tl_buf *out, double d);

/** Append a number node: integers as integers, floats via tl_json_write_double. */
void tl_json_write_number(struct tl_buf *out, const struct tl_json *num);

#endif
