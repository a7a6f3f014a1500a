/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON DOM parser (RFC 8259), arena-backed and zero-copy where it can be.
 *
 * Written by hand because the packaged C parsers are 2-5x slower for this
 * workload (many small envelopes) or lose number precision (json-c turns
 * big integers and floats into doubles); ours keeps every number's literal
 * kind, which the serde_json-compatible writer needs. It is cross-checked
 * against json-c in tests/unit/test_json.c.
 *
 * Ownership: every node, array and decoded string lives in the arena passed
 * to tl_json_parse(); strings without escapes point into the input text, so
 * the tree is valid while both the arena (until reset) and the input live.
 * Depends on arena and str only.
 */
#ifndef TL_JSON_H
#define TL_JSON_H

#include "base/config.h"
#include "base/arena.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** serde_json's default recursion limit; deeper input is an error. */
#define TL_JSON_MAX_DEPTH 128

enum tl_json_type {
    TL_JSON_NULL,
    TL_JSON_BOOL,
    TL_JSON_NUMBER,
    TL_JSON_STRING,
    TL_JSON_ARRAY,
    TL_JSON_OBJECT,
};

/*
 * Number kinds, as serde_json decides them: a literal with no '.', 'e' or 'E'
 * that fits u64 is UINT; a negative one that fits i64 is INT; everything else
 * (fractions, exponents, integers out of range) is FLOAT, converted exactly
 * as serde_json converts it (see json_num.h: not always correctly rounded,
 * which is what the reference writes back).
 */
enum tl_json_num_kind {
    TL_JSON_UINT,
    TL_JSON_INT,
    TL_JSON_FLOAT,
};

struct tl_json_member;

struct tl_json {
    enum tl_json_type type;
    union {
        bool b;
        struct {
            enum tl_json_num_kind kind;
            uint64_t u; /* valid for UINT */
            int64_t i;  /* valid for INT */
            double d;   /* valid for every kind (the value as a double) */
        } num;
        struct {
            struct tl_str str; /* decoded UTF-8; may contain NUL bytes */
            /* Where the parser read str, between its quotes, when those bytes are exactly
             * str escaped as json_write.h escapes it (only the escapes that writer makes):
             * the writers copy them. .p NULL otherwise; set str by tl_json_set_string. */
            struct tl_str src;
        };
        struct {
            struct tl_json *items;
            size_t n;
        } arr;
        struct {
            struct tl_json_member *items; /* document order, duplicates kept */
            size_t n;
        } obj;
    } u;
};

struct tl_json_member {
    struct tl_str key; /* decoded */
    struct tl_json value;
};

struct tl_json_error {
    size_t offset;   /* byte offset in the input where the error was found */
    const char *msg; /* static text, e.g. "expected ',' or '}'" */
};

/**
 * Parse text[0..n) as exactly one JSON value, surrounded by optional
 * whitespace. Returns 0 and fills *out, or -1 and fills *err (err may be
 * NULL). Rejects: trailing garbage, invalid UTF-8 inside strings, control
 * characters in strings, invalid escapes, lone surrogates in \u escapes,
 * leading zeros, nesting deeper than TL_JSON_MAX_DEPTH.
 */
int tl_json_parse(struct tl_arena *a, const char *text, size_t n, struct tl_json *out,
                  struct tl_json_error *err);

/** The value of the last member named key[0..n) in an object, or NULL. */
const struct tl_json *tl_json_get_n(const struct tl_json *obj, const char *key, size_t n);

/** The value of the last member named key in an object, or NULL. Inline, so that a literal
 * key's length is known when compiled (most callers look up a few members of every record). */
static inline const struct tl_json *tl_json_get(const struct tl_json *obj, const char *key)
{
    return tl_json_get_n(obj, key, strlen(key));
}

/** The member key of obj when it is of type t, else NULL. */
static inline const struct tl_json *tl_json_get_type(const struct tl_json *obj, const char *key,
                                                     enum tl_json_type t)
{
    const struct tl_json *v = tl_json_get(obj, key);
    return v && v->type == t ? v : NULL;
}
/** The member key of obj as an unsigned integer, or dflt (absent, not one, negative). */
uint64_t tl_json_get_u64(const struct tl_json *obj, const char *key, uint64_t dflt);
/** The member key of obj as a number of seconds: finite and at most 1e12 in size (30 000
 * years: no compile takes longer, and sums of such could overflow). False when it is not. */
bool tl_json_get_seconds(const struct tl_json *obj, const char *key, double *out);

/** Make v the string s (not read from any source: written escaped). */
static inline void tl_json_set_string(struct tl_json *v, struct tl_str s)
{
    v->type = TL_JSON_STRING;
    v->u.str = s;
    v->u.src = TL_STR_NULL;
}

/** True for NULL pointers and JSON null. */
static inline bool tl_json_is_null(const struct tl_json *v)
{
    return !v || v->type == TL_JSON_NULL;
}

#endif
