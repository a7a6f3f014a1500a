/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One rank's open message of the TORCH_LOGS reader, shared by its parts: the first line of
 * each kind (tlog_open.c), the lines after it (tlog_take.c) and the emitting (torchlogs.c).
 * A field is a span of the slot's buffer, so a message costs one buffer however many fields
 * it has; every copy goes through tl_tlog_keep(), which holds the caps of torchlogs.h
 * (TL_TLOG_MAX_*) and marks the message truncated past them. Internal to src/input.
 */
#ifndef TL_TLOG_SLOT_H
#define TL_TLOG_SLOT_H

#include "base/config.h"
#include "base/buf.h"
#include "base/str.h"
#include "input/pytext.h"
#include "input/tlog_msg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A field: at is its offset in the slot's buffer plus one (0: not set), n its length. */
struct tl_tlog_span {
    uint32_t at, n;
};

struct tl_tlog_lsp {
    struct tl_tlog_span file, function, code;
    uint32_t line;
};

struct tl_tlog_gsp {
    bool has_cid;
    struct tl_compile_id cid;
    struct tl_tlog_span text;
};

/* Everything about the open message but its arrays and bytes; zeroed when a message opens. */
struct tl_tlog_state {
    enum tl_tlog_kind kind;
    int rank;
    uint32_t key;
    uint64_t first, last, nlines, pending;
    bool has_cid, complete, truncated;
    struct tl_compile_id cid;

    /* reading state */
    bool guard_seen, in_block, block_has_cid;
    struct tl_compile_id block_cid;
    bool reason_seen, tail_ok, await_inner, await_reason2, in_user_tb, in_internal_tb;
    bool code_pending, await_error, name_seen, class_seen, returned, reason_open;
    bool guard_stack; /* in the "User stack trace:" a guard failure is followed by (2.13) */

    /* fields */
    struct tl_tlog_span function, reason, reason2, url, limit_name, symbol, value, source, range,
        expr;
    struct tl_tlog_span graph_name, kernel;
    /* GRAPH_BREAK: the type (the line before the first "Explanation:"), the candidate for it,
     * the developer debug context; which labelled note the indented lines that follow go on */
    struct tl_tlog_span type, type_cand, context, url2;
    enum { NOTE_NONE, NOTE_EXPL, NOTE_HINT, NOTE_CONTEXT } open_note;
    struct tl_tlog_lsp where;
    uint64_t limit;
    uint32_t nodes;
    bool nested, fallback, suppressed, warning;
    bool loose; /* lines without prefix went on it (a failure's error, see feed_line) */
    size_t nexpl2, nhints2;
};

/* One rank's open message. */
struct tl_tlog_slot {
    bool open;
    bool early; /* open, and emitted already at a pause (tl_tlog_settle) */
    struct tl_tlog_state st;
    struct tl_buf buf;
    struct tl_tlog_gsp *guards;
    size_t nguards, aguards;
    struct tl_tlog_span *expl, *hints;
    size_t nexpl, aexpl, nhints, ahints;
    struct tl_tlog_lsp *frames;
    size_t nframes, aframes;
    /* the compile id of the last line of this rank that had one, and whether its guards were
     * printed (its compilation succeeded) */
    bool lcid_has, lcid_done;
    struct tl_compile_id lcid;
};

/** Copy t into s's buffer, within the caps (a cut never splits a UTF-8 sequence). */
struct tl_tlog_span tl_tlog_keep(struct tl_tlog_slot *s, struct tl_str t);

/** A field's text: a view into s's buffer, valid until the buffer grows; empty when unset. */
static inline struct tl_str tl_tlog_view(const struct tl_tlog_slot *s, struct tl_tlog_span sp)
{
    if (!sp.at)
        return tl_str_make("", 0);
    return tl_str_make(s->buf.buf + sp.at - 1, sp.n);
}

/** Append "\n" and t to the field *sp (moved to the end of the buffer first when other fields
 * were kept after it). */
void tl_tlog_extend(struct tl_tlog_slot *s, struct tl_tlog_span *sp, struct tl_str t);
/** "FILE:LINE" into *loc; "..." or nothing is an unknown place; "x.py:N" has line 0. */
void tl_tlog_file_line(struct tl_tlog_slot *s, struct tl_str t, struct tl_tlog_lsp *loc);
/** The user code after a symbol or a guard: " at F:N in FN (INTERNAL), for more info ..." or
 * " CODE  # F:N in FN (INTERNAL), for more info ..." into *loc. */
void tl_tlog_user_loc(struct tl_tlog_slot *s, struct tl_str r, struct tl_tlog_lsp *loc);
/** A failing guard "0/0: TEXT" (or "TEXT"), without what PyTorch appends when it prints it. */
void tl_tlog_add_guard(struct tl_tlog_slot *s, struct tl_str text);
/** An explanation or a hint of a graph break, into *arr (n2 counts a nested break's). */
void tl_tlog_add_note(struct tl_tlog_slot *s, struct tl_tlog_span **arr, size_t *n, size_t *alloc,
                      size_t *n2, struct tl_str text);
/** A user frame; its line of code may follow (st.code_pending). */
void tl_tlog_add_frame(struct tl_tlog_slot *s, const struct tl_pytext_frame *fr);

#endif
