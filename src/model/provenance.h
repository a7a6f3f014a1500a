/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inductor provenance tracking (spec modes.md §3.3-3.4): from a compile folder's pre-grad and
 * post-grad graphs, its generated code (Python for JIT, the C++ wrapper for AOT) and the
 * node-mapping JSON Inductor logs, the six line tables that tie each line of one to the lines
 * of the others: preToPost, postToPre, pyCodeToPost, postToPyCode, cppCodeToPost,
 * postToCppCode. Pure computation on texts the caller read: no file, no page.
 *
 * Line numbers are 1-based. Graph lines are numbered as the text splits on '\n' (a trailing
 * '\r' dropped, a final newline starting no extra line). Code texts are first stripped of
 * their leading empty lines (a browser ignores the newline after <pre>); C++ lines are then
 * numbered from 1, Python lines so that the "# AOT ID:" line is line 1 (lines above it get
 * numbers <= 0 and never appear in a table).
 *
 * Ownership: every pointer of the result lives in the arena given to tl_prov_compute(), and
 * the texts of struct tl_prov_input are borrowed (the result's py/cpp texts point into them).
 */
#ifndef TL_PROVENANCE_H
#define TL_PROVENANCE_H

#include "base/config.h"
#include "base/arena.h"
#include "base/json.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one compile folder offers (a role that is missing is an empty string). */
struct tl_prov_input {
    struct tl_str pre;      /* the pre-grad graph (before_pre_grad_graph, or the old name) */
    struct tl_str post;     /* the post-grad graph (after_post_grad_graph, or the old name) */
    struct tl_str py_code;  /* JIT output code as Python text (not the highlighted HTML) */
    struct tl_str cpp_code; /* AOT wrapper code (C++) */
    /* The node-mapping JSON, parsed; NULL when it is missing or does not parse. */
    const struct tl_json *mappings;
};

/* One row of a table: a source line and the target lines, in the spec's list order. */
struct tl_prov_row {
    int32_t line;
    const int32_t *to;
    size_t n;
};

/* A table: its rows in the order they are written, ascending by the line's decimal string
 * ("1060" < "8"), as the reference's sorted JSON objects are. Only rows with targets. */
struct tl_prov_table {
    const struct tl_prov_row *rows;
    size_t n;
};

enum tl_prov_table_id {
    TL_PROV_PRE_TO_POST,
    TL_PROV_POST_TO_PRE,
    TL_PROV_PY_TO_POST,
    TL_PROV_POST_TO_PY,
    TL_PROV_CPP_TO_POST,
    TL_PROV_POST_TO_CPP,
    TL_PROV__COUNT,
};

/** The JSON name of a table ("preToPost", ...). */
const char *tl_prov_table_name(enum tl_prov_table_id t);

struct tl_prov_result {
    /* false when the mapping JSON was missing or did not parse: the embedded value is then
     * just {} (spec §3.4), and every table is empty. */
    bool have_mappings;
    struct tl_prov_table t[TL_PROV__COUNT];
    /* The code texts as numbered: leading empty lines removed (slices of the inputs). */
    struct tl_str py_text, cpp_text;
    /* Lines of py_text before the "# AOT ID:" line (0 when it is the first or absent): line
     * index i of py_text has number i + 1 - py_skip. */
    uint32_t py_skip;
};

/*
 * Most targets one postTo...Code table holds; a longer concatenation is cut there. Only a
 * hostile mapping gets near (a post node listing a kernel that matches every code line
 * thousands of times), which would otherwise ask for gigabytes.
 */
#define TL_PROV_MAX_TARGETS ((size_t)1 << 22)

/**
 * Compute the tables of one compile folder (spec §3.4, exactly). Never fails: mapping values
 * of the wrong type (a non-object table, a non-array list, non-string elements) are ignored,
 * a key repeated in an object keeps its last value. Everything *out points to lives in arena
 * or in the input texts (borrowed); nothing needs freeing but the arena.
 */
void tl_prov_compute(const struct tl_prov_input *in, struct tl_arena *arena,
                     struct tl_prov_result *out);

#endif
