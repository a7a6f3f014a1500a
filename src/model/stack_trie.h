/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stack tries (spec core.md §4.6): every stack that triggered a compilation
 * is inserted frame by frame; children keep first-insertion order, nodes
 * carry terminals (the compile ids whose stack ends there). Frames are
 * interned, so equal frames share pointers and the trie of a log with
 * millions of identical stacks stays small. Also the reference's rules for a
 * frame's file name. The model only: the pages render it (report/page_trie.c).
 * Depends on arena, map, buf, strtab; frames come from input/envelope.h.
 */
#ifndef TL_STACK_TRIE_H
#define TL_STACK_TRIE_H

#include "base/config.h"
#include "base/arena.h"
#include "base/map.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_frame;   /* a decoded frame of an envelope (input/envelope.h) */
struct tl_compile; /* model/model.h */

/* An interned frame: strings are NUL-terminated and owned by the trie's
 * arena; loc / uninterned are NULL when absent. */
struct tl_iframe {
    uint32_t filename; /* string-table id */
    int32_t line;
    const char *name;
    const char *loc;
    const char *uninterned;
};

struct tl_terminal {
    const struct tl_compile *compile; /* NULL: "(unknown)", no usable compile id */
    uint32_t repeat;                  /* unknown terminals in a row are counted, not stored */
};

struct tl_trie_node {
    struct tl_iframe frame; /* unused for the root */
    struct tl_trie_node *parent;
    struct tl_trie_node *first_child, *last_child, *next_sibling;
    size_t nchildren;
    struct tl_terminal *terms;
    size_t nterms, terms_alloc;
};

struct tl_trie {
    struct tl_trie_node root;
    struct tl_arena *arena; /* nodes and interned strings; borrowed */
    struct tl_map children; /* (parent, frame) -> child node */
    struct tl_map strings;  /* interned frame strings */
    size_t nnodes;
};

void tl_trie_init(struct tl_trie *t, struct tl_arena *arena);
void tl_trie_release(struct tl_trie *t);
static inline bool tl_trie_empty(const struct tl_trie *t)
{
    return t->root.nchildren == 0;
}

/** Intern a string view into the trie's string pool (NULL stays NULL). */
const char *tl_trie_intern(struct tl_trie *t, struct tl_str s);

/**
 * Insert frames[0..n) (outermost first) and return the last node (the root
 * when n == 0). With term non-NULL, append it to that node's terminals.
 */
struct tl_trie_node *tl_trie_insert(struct tl_trie *t, const struct tl_frame *frames, size_t n,
                                    const struct tl_terminal *term);

/** Interned copies of frames[0..n) in the trie's arena (NULL when n is 0). */
struct tl_iframe *tl_trie_frames(struct tl_trie *t, const struct tl_frame *frames, size_t n);

/** The frame's file name after the reference's simplification rules. */
struct tl_str tl_frame_simplify(struct tl_str file);

/** Find `<eval_with_key>.<digits>` in s; returns true and the digits in *k. */
bool tl_find_eval_with_key(struct tl_str s, struct tl_str *k);

#endif
