/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The glog prefix of a structured-trace line (spec core.md §1.2):
 *   V1206 15:18:15.925000 1500233 torch/_logging/structured.py:22] {...}
 * found anywhere in the line (the reference's regex is unanchored). Works on
 * views; depends on str only.
 */
#ifndef TL_GLOG_H
#define TL_GLOG_H

#include "base/config.h"
#include "base/str.h"

#include <stdbool.h>
#include <stdint.h>

struct tl_glog {
    char level; /* V I W E C */
    char month[2], day[2];
    char time[8]; /* HH:MM:SS */
    char micros[6];
    uint64_t thread;
    struct tl_str pathname; /* as captured, normally with a leading space */
    uint64_t lineno;        /* the logging call's source line */
    struct tl_str envelope; /* the rest of the line, at least one byte */
};

/** Scan line for the prefix. Returns true and fills *g on a match. */
bool tl_glog_parse(struct tl_str line, struct tl_glog *g);

#endif
