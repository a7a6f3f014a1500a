/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `str` string table (spec core.md §1.5): id -> file name, later entries
 * overwrite earlier ones, lives for the whole run. Ids are bounded so that a
 * hostile id cannot make raw.jsonl's table line (one slot per id) explode.
 * Depends on arena, buf.
 */
#ifndef TL_STRTAB_H
#define TL_STRTAB_H

#include "base/config.h"
#include "base/buf.h"
#include "base/arena.h"
#include "base/str.h"

#include <stdbool.h>
#include <stdint.h>

/** Largest id accepted; larger ones are refused (the reference would write
 * gigabytes of nulls for them). */
#define TL_STRTAB_MAX_ID (1u << 20)

struct tl_strtab {
    struct tl_str *s; /* s[id].p == NULL: unused */
    size_t len;       /* highest id + 1 */
    size_t alloc;
    struct tl_arena *arena;
};

void tl_strtab_init(struct tl_strtab *t, struct tl_arena *arena);
void tl_strtab_release(struct tl_strtab *t);
/** Store a copy of s under id. Returns false if id is above TL_STRTAB_MAX_ID. */
bool tl_strtab_set(struct tl_strtab *t, uint32_t id, struct tl_str s);
/** The string under id, or .p == NULL when there is none. */
struct tl_str tl_strtab_get(const struct tl_strtab *t, uint32_t id);

/** raw.jsonl's first line: {"string_table":[...]} and a newline (null for ids not set). */
void tl_strtab_json(struct tl_buf *out, const struct tl_strtab *st);

#endif
