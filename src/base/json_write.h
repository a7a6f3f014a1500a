/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writing JSON: the one module that turns values into JSON text. Two writers share its string
 * escaper and its number formatter, so that a string or a float reads the same in every file:
 *
 *   - tl_json_write_*: scalars, and the re-serializer of parsed values (struct tl_json) that
 *     reproduces serde_json's output byte for byte (spec core.md §0.3): object keys sorted
 *     bytewise with the last duplicate winning, compact or pretty (2-space indent,
 *     "key": value, [] and {} for empty containers, no trailing newline), strings escaping
 *     only '"', '\\' and control characters (\n \r \t \b \f short, others \u00XX lowercase),
 *     integers as written, floats in shortest round-trip digits with serde's layout (1.0,
 *     1e-7, 1.2345678901234567e19, 0.00003910064697265625).
 *   - tl_json_doc_*: the streaming writer of documents we build ourselves (summary.json,
 *     compile_directory.json, the multi-rank files, --json): objects, arrays and scalars
 *     emitted in order, fields in the order they are written, in the same layouts.
 *
 * One header rather than one per writer: the document writer is the re-serializer's layout
 * and scalars driven by calls instead of by a tree, and its values may be parsed ones
 * (tl_json_doc_value); which one a file uses is a matter of where its data comes from.
 * Depends on buf, json (the value type) and json_num (serde's number reader, to check that a
 * float reads back).
 */
#ifndef TL_JSON_WRITE_H
#define TL_JSON_WRITE_H

#include "base/config.h"
#include "base/buf.h"
#include "base/json.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- strings ----------------------------------------------------------------------------- */

/** Append a quoted JSON string escaped as serde_json escapes it. */
void tl_json_write_string(struct tl_buf *out, const char *p, size_t n);

/**
 * Append a JSON string of a document of our own (summary.json, --json): as
 * tl_json_write_string, but also DEL and the C1 controls as \u007f, \u0080 ..
 * \u009f (which a terminal obeys; serde_json leaves them raw), and ill-formed
 * UTF-8 as U+FFFD (raw bytes of a log make no invalid JSON). Valid JSON that
 * holds no byte a terminal acts on; it reads back as the same text.
 */
void tl_json_write_text(struct tl_buf *out, const char *p, size_t n);

/**
 * Append a JSON string that is also safe inside any <script> and in any encoding (live.js):
 * as tl_json_write_string, but also '<', '>' and '&' as \u003c \u003e \u0026 (no "</script"
 * or "<!--" can form) and every non-ASCII character as \uXXXX, beyond the BMP as a surrogate
 * pair (U+2028 and U+2029 end a line in older JavaScript); ill-formed UTF-8 first made U+FFFD
 * as tl_utf8_sanitize does. The output is ASCII.
 */
void tl_json_write_script(struct tl_buf *out, const char *p, size_t n);

/* ---- numbers ----------------------------------------------------------------------------- */

/** Append a double in serde_json's float layout (always looks like a float); null when not
 * finite. */
void tl_json_write_double(struct tl_buf *out, double d);

/**
 * Append a double that reads back as this very double through serde_json's reader
 * (json_num.h), which is not correctly rounded: the shortest form when it does, else the
 * closest decimal of up to 19 digits that does. For values written to be read again.
 */
void tl_json_write_double_exact(struct tl_buf *out, double d);

/** Append a number node: integers as integers, floats via tl_json_write_double. */
void tl_json_write_number(struct tl_buf *out, const struct tl_json *num);

/* ---- parsed values ------------------------------------------------------------------------ */

/** Append v compactly ({"a":1,"b":[1,2]}). */
void tl_json_write_compact(struct tl_buf *out, const struct tl_json *v);

/**
 * Append v pretty-printed as if it stood at nesting level `level` (0 for a
 * top-level value): the first line is not indented, inner lines are indented
 * by 2 * (level + 1) spaces, the closing bracket by 2 * level.
 */
void tl_json_write_pretty(struct tl_buf *out, const struct tl_json *v, int level);

/* ---- documents of our own ------------------------------------------------------------------ */

/* Containers nest at most TL_JSON_DOC_MAX_DEPTH - 1 deep (our documents: a handful). */
#define TL_JSON_DOC_MAX_DEPTH 64

enum {
    /* serde_json's pretty layout (else compact) */
    TL_JSON_DOC_PRETTY = 1,
    /* string values escaped as serde_json escapes them (tl_json_write_string), for files the
     * reference writes too; else as text (tl_json_write_text). Keys are always serde's. */
    TL_JSON_DOC_SERDE_STRINGS = 2,
    /* string values safe inside a <script> (tl_json_write_script), for a document loaded as
     * a script; takes precedence over TL_JSON_DOC_SERDE_STRINGS. */
    TL_JSON_DOC_SCRIPT_STRINGS = 4,
};

/* A document being written: a comma and, when pretty, a newline and indent before each item;
 * a container's closing bracket on its own line unless it is empty (or inline). */
struct tl_json_doc {
    struct tl_buf *out; /* borrowed */
    unsigned flags;     /* TL_JSON_DOC_* */
    int depth;
    bool has_items[TL_JSON_DOC_MAX_DEPTH]; /* the container at each depth has an item already */
    bool inline_[TL_JSON_DOC_MAX_DEPTH];   /* ... is an inline array (tl_json_doc_array_inline) */
    bool after_key; /* a key was written (or an item's separator): its value comes next */
};

/** Start a document written to out (which may be emptied between items: the writer keeps
 * no position in it). */
void tl_json_doc_init(struct tl_json_doc *w, struct tl_buf *out, unsigned flags);

/**
 * Continue the items of an array at nesting level depth whose opening bracket and first
 * item's separator are written by someone else (tl_json_doc_next there): the first item is
 * written bare, the next ones after their separators. For an array written in pieces, such
 * as a spool that is copied into it.
 */
void tl_json_doc_init_items(struct tl_json_doc *w, struct tl_buf *out, unsigned flags, int depth);

void tl_json_doc_object(struct tl_json_doc *w);
void tl_json_doc_array(struct tl_json_doc *w);
/** An array of scalars on one line even when pretty: [1, 3] (", " between items). */
void tl_json_doc_array_inline(struct tl_json_doc *w);
/** Close the innermost object or array. */
void tl_json_doc_end(struct tl_json_doc *w, char close);
void tl_json_doc_key(struct tl_json_doc *w, const char *key);
/** A string (NULL writes null). */
void tl_json_doc_str(struct tl_json_doc *w, const char *s);
void tl_json_doc_strn(struct tl_json_doc *w, const char *p, size_t n);
void tl_json_doc_u64(struct tl_json_doc *w, uint64_t v);
void tl_json_doc_i64(struct tl_json_doc *w, int64_t v);
/** A float in serde_json's form (1.0, 0.5, 1e-7). */
void tl_json_doc_f64(struct tl_json_doc *w, double v);
/** A float that reads back as this very double (tl_json_write_double_exact). For values
 * written to be read again (summary.json). */
void tl_json_doc_f64_exact(struct tl_json_doc *w, double v);
void tl_json_doc_bool(struct tl_json_doc *w, bool v);
void tl_json_doc_null(struct tl_json_doc *w);
/** A parsed value, re-serialized (tl_json_write_pretty or _compact) at the current depth. */
void tl_json_doc_value(struct tl_json_doc *w, const struct tl_json *v);
/**
 * A value already written as JSON text (pretty at level 0, or compact): its lines after the
 * first indented to the current depth, its trailing newlines dropped. The text must hold no
 * newline inside a string (JSON strings escape theirs).
 */
void tl_json_doc_raw(struct tl_json_doc *w, const char *text);
/** The separator of the next item only: the caller writes the item's bytes itself. */
void tl_json_doc_next(struct tl_json_doc *w);

/* key + value in one call */
static inline void tl_json_doc_kstr(struct tl_json_doc *w, const char *k, const char *v)
{
    tl_json_doc_key(w, k);
    tl_json_doc_str(w, v);
}
static inline void tl_json_doc_ku64(struct tl_json_doc *w, const char *k, uint64_t v)
{
    tl_json_doc_key(w, k);
    tl_json_doc_u64(w, v);
}
static inline void tl_json_doc_ki64(struct tl_json_doc *w, const char *k, int64_t v)
{
    tl_json_doc_key(w, k);
    tl_json_doc_i64(w, v);
}
static inline void tl_json_doc_kbool(struct tl_json_doc *w, const char *k, bool v)
{
    tl_json_doc_key(w, k);
    tl_json_doc_bool(w, v);
}

#endif
