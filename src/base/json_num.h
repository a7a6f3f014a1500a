/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON number literals to values exactly as serde_json (default features,
 * no float_roundtrip) reads them, which is what the reference tlparse uses.
 * Its float conversion is not correctly rounded (significand as f64, then one
 * multiply or divide by a power of ten), so a correctly rounded strtod would
 * write some floats back one ulp apart from the reference, e.g.
 * 1715885247.9018195 (spec core.md §11.8). Depends on nothing.
 */
#ifndef TL_JSON_NUM_H
#define TL_JSON_NUM_H

#include "base/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tl_num_kind {
    TL_NUM_UINT,  /* fits u64, no fraction or exponent */
    TL_NUM_INT,   /* negative, fits i64 */
    TL_NUM_FLOAT, /* everything else */
};

struct tl_num {
    enum tl_num_kind kind;
    uint64_t u;
    int64_t i;
    double d; /* the value as a double, for every kind */
};

/**
 * Convert a JSON number literal p[0..n) (already checked against the JSON
 * grammar) the way serde_json does. Returns 0, or -1 when serde_json
 * rejects it as out of range (a float overflowing to infinity).
 */
int tl_json_num_parse(const char *p, size_t n, struct tl_num *out);

#endif
