/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stack tries: insertion with interned frames (a hash map from (parent, frame) to the child),
 * counted runs of unknown terminals, and the reference's frame file-name rules.
 */
#include "base/config.h"
#include "model/stack_trie.h"
#include "base/xalloc.h"
#include "input/envelope.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void tl_trie_init(struct tl_trie *t, struct tl_arena *arena)
{
    memset(t, 0, sizeof(*t));
    t->arena = arena;
    tl_map_init(&t->children, arena);
    tl_map_init(&t->strings, arena);
}

static void free_terms(struct tl_trie_node *n)
{
    /* Terminal arrays are malloc'd (they grow); nodes live in the arena. */
    struct tl_trie_node **stack = NULL;
    size_t len = 0, alloc = 0;
    TL_GROW(stack, 1, alloc);
    stack[len++] = n;
    while (len) {
        struct tl_trie_node *x = stack[--len];
        free(x->terms);
        x->terms = NULL;
        for (struct tl_trie_node *c = x->first_child; c; c = c->next_sibling) {
            TL_GROW(stack, len + 1, alloc);
            stack[len++] = c;
        }
    }
    free(stack);
}

void tl_trie_release(struct tl_trie *t)
{
    free_terms(&t->root);
    tl_map_release(&t->children);
    tl_map_release(&t->strings);
}

const char *tl_trie_intern(struct tl_trie *t, struct tl_str s)
{
    if (!s.p)
        return NULL;
    struct tl_buf fixed = TL_BUF_INIT;
    if (memchr(s.p, '\0', s.n)) {
        /* Interned strings are C strings: a NUL from the log must not cut them. */
        tl_buf_add_nonul(&fixed, s.p, s.n);
        s = tl_buf_str(&fixed);
    }
    struct tl_map_entry *e = tl_map_upsert(&t->strings, s, NULL);
    tl_buf_release(&fixed);
    /* The map's own key copy is NUL-terminated and lives in the arena. */
    return e->key.p;
}

struct child_key {
    const struct tl_trie_node *parent;
    const char *name, *loc, *uninterned;
    uint32_t filename;
    int32_t line;
};

struct tl_trie_node *tl_trie_insert(struct tl_trie *t, const struct tl_frame *frames, size_t n,
                                    const struct tl_terminal *term)
{
    struct tl_trie_node *node = &t->root;
    for (size_t i = 0; i < n; i++) {
        struct child_key k;
        memset(&k, 0, sizeof(k));
        k.parent = node;
        k.filename = frames[i].filename;
        k.line = frames[i].line;
        k.name = tl_trie_intern(t, frames[i].name.p ? frames[i].name : TL_STR_LIT(""));
        k.loc = tl_trie_intern(t, frames[i].loc);
        k.uninterned = tl_trie_intern(t, frames[i].uninterned_filename);
        int created;
        struct tl_map_entry *e =
            tl_map_upsert(&t->children, tl_str_make((const char *)&k, sizeof(k)), &created);
        if (created) {
            struct tl_trie_node *c = tl_arena_calloc(t->arena, 1, sizeof(*c));
            c->frame.filename = k.filename;
            c->frame.line = k.line;
            c->frame.name = k.name;
            c->frame.loc = k.loc;
            c->frame.uninterned = k.uninterned;
            c->parent = node;
            if (node->last_child)
                node->last_child->next_sibling = c;
            else
                node->first_child = c;
            node->last_child = c;
            node->nchildren++;
            t->nnodes++;
            e->value = c;
        }
        node = e->value;
    }
    if (term) {
        /* Runs of "(unknown)" (every entry with a top-level stack adds one)
         * are counted, so memory does not grow with the log. */
        if (!term->compile && node->nterms && !node->terms[node->nterms - 1].compile &&
            node->terms[node->nterms - 1].repeat < UINT32_MAX) {
            node->terms[node->nterms - 1].repeat++;
        } else {
            TL_GROW(node->terms, node->nterms + 1, node->terms_alloc);
            node->terms[node->nterms] = *term;
            node->terms[node->nterms++].repeat = 1;
        }
    }
    return node;
}

struct tl_iframe *tl_trie_frames(struct tl_trie *t, const struct tl_frame *f, size_t n)
{
    if (!n)
        return NULL;
    struct tl_iframe *out = tl_arena_alloc(t->arena, n * sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        out[i].filename = f[i].filename;
        out[i].line = f[i].line;
        out[i].name = tl_trie_intern(t, f[i].name.p ? f[i].name : TL_STR_LIT(""));
        out[i].loc = tl_trie_intern(t, f[i].loc);
        out[i].uninterned = tl_trie_intern(t, f[i].uninterned_filename);
    }
    return out;
}

/* ---- frame text ----------------------------------------------------------- */

bool tl_find_eval_with_key(struct tl_str s, struct tl_str *k)
{
    static const char pat[] = "<eval_with_key>.";
    const size_t pn = sizeof(pat) - 1;
    const char *p = s.p, *end = s.p + s.n;
    while (p && (size_t)(end - p) > pn) {
        const char *m = memmem(p, (size_t)(end - p), pat, pn);
        if (!m)
            return false;
        const char *d = m + pn, *e = d;
        while (e < end && *e >= '0' && *e <= '9')
            e++;
        if (e > d) {
            *k = tl_str_make(d, (size_t)(e - d));
            return true;
        }
        p = m + 1;
    }
    return false;
}

struct tl_str tl_frame_simplify(struct tl_str file)
{
    long i = tl_str_find(file, "#link-tree/");
    if (i >= 0) {
        struct tl_str rest = tl_str_make(file.p + i + 11, file.n - (size_t)i - 11);
        long j = tl_str_find(rest, "#link-tree/");
        if (j >= 0)
            rest.n = (size_t)j;
        return rest;
    }
    /* A path component "<x>-seed-nspid<y>/": keep what follows it. */
    static const char pat[] = "-seed-nspid";
    const size_t pn = sizeof(pat) - 1;
    const char *p = file.p, *end = file.p + file.n;
    while ((size_t)(end - p) >= pn) {
        const char *m = memmem(p, (size_t)(end - p), pat, pn);
        if (!m)
            break;
        bool before = m > file.p && m[-1] != '/';
        const char *q = m + pn;
        const char *slash = memchr(q, '/', (size_t)(end - q));
        if (before && slash && slash > q)
            return tl_str_make(slash + 1, (size_t)(end - slash - 1));
        p = m + 1;
    }
    return file;
}
