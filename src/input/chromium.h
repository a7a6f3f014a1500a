/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The few fields of a chromium event (a chromium_event record's payload) that the compile-time
 * ledger reads, taken off the JSON text without building its tree: the parser thread reads
 * every event for them, and the largest events (the end of a "dynamo" span) carry kilobytes of
 * arguments no one needs here. Members are found at the top level (and "cache_state" in
 * "args"); other values are skipped by their brackets and strings. Not a validator: text that
 * is not such an object gives false. Depends on base/str.
 */
#ifndef TL_CHROMIUM_H
#define TL_CHROMIUM_H

#include "base/config.h"
#include "base/str.h"

#include <stdbool.h>
#include <stdint.h>

struct tl_chromium_peek {
    char ph;                   /* "B", "E", "X", "i", ...: its one byte; 0 when absent or longer */
    struct tl_str name;        /* as written between its quotes (escapes left); .p NULL: absent */
    bool has_ts, has_dur;      /* numbers given */
    double ts, dur;            /* microseconds */
    int64_t pid, tid;          /* 0 when absent or not whole numbers */
    struct tl_str cache_state; /* args.cache_state as written; .p NULL: absent */
};

/** Read the fields off text, an event's JSON object; false when it is no object. */
bool tl_chromium_peek(struct tl_str text, struct tl_chromium_peek *out);

#endif
