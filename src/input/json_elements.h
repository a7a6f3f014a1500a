/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The top-level elements of a file that holds one JSON array, read element by element in
 * chunks: memory stays at the largest element, however large the file (a rank's
 * chromium_events.json). It finds where each element ends (strings, escapes and nesting
 * followed; a scalar ends before the next ',', ']' or white space) and leaves checking the
 * element itself to the JSON parser. Depends on buf and str.
 */
#ifndef TL_JSON_ELEMENTS_H
#define TL_JSON_ELEMENTS_H

#include "base/config.h"
#include "base/buf.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>

/* Where the bytes come from: up to n of them into p; the count, 0 at the end, -1 on an error. */
typedef long (*tl_json_elements_read)(void *ctx, void *p, size_t n);

struct tl_json_elements {
    tl_json_elements_read read; /* NULL: nothing can be read */
    void *ctx;
    size_t chunk; /* bytes read at a time (1 MiB; tests make it small) */
    struct tl_buf buf;
    size_t pos;     /* the next byte not taken */
    size_t scanned; /* bytes of the element at pos scanned without finding its end */
    int depth;      /* the scan's state after them: brackets open, */
    bool in_str;    /* inside a string, */
    bool escaped;   /* after a backslash there */
    bool started, ended, eof;
    bool need_sep;  /* an element was read: ',' or ']' comes next */
    bool after_sep; /* a ',' was read: an element comes next */
};

/** Read the array that read(ctx, ...) gives, from where it stands (a file of the report read
 * back through the output, a descriptor in the tests). */
void tl_json_elements_init(struct tl_json_elements *e, tl_json_elements_read read, void *ctx);

/**
 * The next element: 1 and its text in *v (borrowed, valid until the next call), 0 after the
 * last one, -1 when the file is not a JSON array (or cannot be read): no '[' first, bytes
 * after the closing ']', a missing or extra ',', or the end of the file inside the array.
 * Elements before the fault were returned as they were read.
 */
int tl_json_elements_next(struct tl_json_elements *e, struct tl_str *v);

void tl_json_elements_release(struct tl_json_elements *e);

#endif
