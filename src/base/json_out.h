/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A streaming JSON writer for documents we build ourselves (summary.json, the multi-rank
 * files): objects, arrays and scalars emitted in order, compact or pretty in serde_json's
 * layout (2-space indent, "key": value, [] and {} for empty containers), strings escaped as
 * json_write.h's tl_json_write_text does (no control, C1 or ill-formed UTF-8 left raw: they
 * quote the log, and --json goes to a terminal) and floats in its shortest round-trip form.
 * Fields keep the order they are written in. Depends on buf, json_write and json_num.
 */
#ifndef TL_JSON_OUT_H
#define TL_JSON_OUT_H

#include "base/config.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TL_JW_MAX_DEPTH 64

struct tl_jw {
    struct tl_buf *out; /* borrowed */
    bool pretty;
    int depth;
    bool has_items[TL_JW_MAX_DEPTH]; /* the container at each depth has an item already */
    bool after_key;                  /* a key was written: its value comes next */
};

void tl_jw_init(struct tl_jw *w, struct tl_buf *out, bool pretty);
void tl_jw_object(struct tl_jw *w);
void tl_jw_array(struct tl_jw *w);
/** Close the innermost object or array. */
void tl_jw_end(struct tl_jw *w, char close);
void tl_jw_key(struct tl_jw *w, const char *key);
/** A string (NULL writes null). */
void tl_jw_str(struct tl_jw *w, const char *s);
void tl_jw_strn(struct tl_jw *w, const char *p, size_t n);
void tl_jw_u64(struct tl_jw *w, uint64_t v);
/** A float in serde_json's form (1.0, 0.5, 1e-7). */
void tl_jw_f64(struct tl_jw *w, double v);
/**
 * A float that reads back as this very double through serde_json's reader (json_num.h),
 * which is not correctly rounded: the shortest form when it does, else the closest decimal
 * of up to 19 digits that does. For values written to be read again (summary.json).
 */
void tl_jw_f64_exact(struct tl_jw *w, double v);
void tl_jw_bool(struct tl_jw *w, bool v);
void tl_jw_null(struct tl_jw *w);

/* key + value in one call */
static inline void tl_jw_kstr(struct tl_jw *w, const char *k, const char *v)
{
    tl_jw_key(w, k);
    tl_jw_str(w, v);
}
static inline void tl_jw_ku64(struct tl_jw *w, const char *k, uint64_t v)
{
    tl_jw_key(w, k);
    tl_jw_u64(w, v);
}
static inline void tl_jw_kbool(struct tl_jw *w, const char *k, bool v)
{
    tl_jw_key(w, k);
    tl_jw_bool(w, v);
}

#endif
