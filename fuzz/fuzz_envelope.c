/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for envelope.c: parse the input as JSON, decode it as an
 * envelope twice (the two results must agree: decoding is deterministic and
 * reads nothing but the tree), check that each known key points at its
 * member's value, that the envelope's stack is type-checked, and read the
 * frames of every stack-typed value (any JSON: mistyped members read as absent).
 */
#include "base/config.h"
#include "base/arena.h"
#include "input/envelope.h"
#include "base/json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_envelope: check failed: %s (line %d)\n", #cond, __LINE__);       \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Records that hold stack-typed fields, and those fields. */
static const enum tl_key stack_records[] = {
    TL_K_DYNAMO_START,       TL_K_SYMBOLIC_SHAPE_SPECIALIZATION,     TL_K_GUARD_ADDED_FAST,
    TL_K_GUARD_ADDED,        TL_K_PROPAGATE_REAL_TENSORS_PROVENANCE, TL_K_CREATE_UNBACKED_SYMBOL,
    TL_K_EXPRESSION_CREATED,
};
static const char *const stack_fields[] = {"stack", "user_stack"};

static bool str_same(struct tl_str a, struct tl_str b)
{
    if ((a.p == NULL) != (b.p == NULL))
        return false;
    return tl_str_eq(a, b);
}

/* Frames of any stack value, against tl_envelope_frames()'s contract: a value that is not an
 * array gives none; each member of the right type is read as in the tree, a member of
 * another type (or absent) reads as absent: 0 or a NULL view. */
static void check_frames(const struct tl_json *stack, struct tl_arena *scratch)
{
    size_t n = 12345;
    struct tl_frame *fr = tl_envelope_frames(stack, scratch, &n);
    if (!stack || stack->type != TL_JSON_ARRAY) {
        CHECK(n == 0 && fr == NULL);
        return;
    }
    CHECK(n == stack->u.arr.n);
    CHECK(n == 0 || fr != NULL);
    for (size_t i = 0; i < n; i++) {
        const struct tl_json *f = &stack->u.arr.items[i];
        bool obj = f->type == TL_JSON_OBJECT;
        const struct tl_json *fn = obj ? tl_json_get(f, "filename") : NULL;
        const struct tl_json *ln = obj ? tl_json_get(f, "line") : NULL;
        if (fn && fn->type == TL_JSON_NUMBER && fn->u.num.kind == TL_JSON_UINT)
            CHECK(fr[i].filename == (uint32_t)fn->u.num.u);
        else
            CHECK(fr[i].filename == 0);
        if (ln && ln->type == TL_JSON_NUMBER && ln->u.num.kind != TL_JSON_FLOAT)
            CHECK(fr[i].line ==
                  (ln->u.num.kind == TL_JSON_INT ? (int32_t)ln->u.num.i : (int32_t)ln->u.num.u));
        else
            CHECK(fr[i].line == 0);
        const char *names[] = {"name", "loc", "uninterned_filename"};
        struct tl_str got[] = {fr[i].name, fr[i].loc, fr[i].uninterned_filename};
        for (size_t k = 0; k < 3; k++) {
            const struct tl_json *v = obj ? tl_json_get(f, names[k]) : NULL;
            if (tl_json_is_null(v) || v->type != TL_JSON_STRING) {
                CHECK(got[k].p == NULL);
            } else {
                CHECK(got[k].p != NULL);
                CHECK(tl_str_eq(got[k], v->u.str));
            }
        }
    }
}

/* A stack the decoder checked: an array of objects whose members all have their types. */
static void check_validated_stack(const struct tl_json *stack)
{
    if (!stack)
        return;
    CHECK(stack->type == TL_JSON_ARRAY);
    for (size_t i = 0; i < stack->u.arr.n; i++) {
        const struct tl_json *f = &stack->u.arr.items[i];
        CHECK(f->type == TL_JSON_OBJECT);
        const struct tl_json *fn = tl_json_get(f, "filename");
        const struct tl_json *ln = tl_json_get(f, "line");
        const struct tl_json *nm = tl_json_get(f, "name");
        CHECK(fn && fn->type == TL_JSON_NUMBER && fn->u.num.kind == TL_JSON_UINT &&
              fn->u.num.u <= UINT32_MAX);
        CHECK(ln && ln->type == TL_JSON_NUMBER && ln->u.num.kind != TL_JSON_FLOAT);
        CHECK(nm && nm->type == TL_JSON_STRING);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tl_arena a;
    struct tl_arena scratch;
    struct tl_json root;
    struct tl_json_error jerr;
    tl_arena_init(&a, 4096);
    tl_arena_init(&scratch, 4096);
    if (tl_json_parse(&a, (const char *)data, size, &root, &jerr) != 0) {
        tl_arena_release(&a);
        tl_arena_release(&scratch);
        return 0;
    }

    struct tl_envelope e1, e2;
    char m1[160], m2[160];
    memset(m1, 'x', sizeof(m1));
    memset(m2, 'y', sizeof(m2));
    int r1 = tl_envelope_decode(&root, &e1, &scratch, m1, sizeof(m1));
    int r2 = tl_envelope_decode(&root, &e2, &scratch, m2, sizeof(m2));
    CHECK(r1 == 0 || r1 == -1);
    CHECK(r1 == r2);
    if (r1 < 0) {
        /* A one-line reason, NUL-terminated inside the buffer. */
        CHECK(memchr(m1, '\0', sizeof(m1)) != NULL);
        CHECK(m1[0] != '\0' && strcmp(m1, m2) == 0 && !strchr(m1, '\n'));
        tl_arena_release(&a);
        tl_arena_release(&scratch);
        return 0;
    }

    CHECK(root.type == TL_JSON_OBJECT);
    CHECK(memcmp(e1.key, e2.key, sizeof(e1.key)) == 0);
    CHECK(e1.cid_ok == e2.cid_ok && e1.n_unknown == e2.n_unknown);
    CHECK(memcmp(&e1.cid, &e2.cid, sizeof(e1.cid)) == 0);
    CHECK(e1.n_unknown <= root.u.obj.n);
    for (size_t i = 0; i < e1.n_unknown; i++)
        CHECK(str_same(e1.unknown[i], e2.unknown[i]));
    if (!e1.cid_ok) {
        static const struct tl_compile_id zero;
        CHECK(memcmp(&e1.cid, &zero, sizeof(zero)) == 0);
    }

    /* Each known key is its member's value, or NULL when absent or null. */
    for (int k = 0; k < TL_K__COUNT; k++) {
        const struct tl_json *v = tl_json_get(&root, tl_key_name((enum tl_key)k));
        if (tl_json_is_null(v))
            CHECK(e1.key[k] == NULL);
        else
            CHECK(e1.key[k] == v);
    }

    /* Every stack-typed value; the envelope's own stack is type-checked by the decoder. */
    check_validated_stack(e1.key[TL_K_STACK]);
    check_frames(e1.key[TL_K_STACK], &scratch);
    for (size_t r = 0; r < TL_ARRAY_LEN(stack_records); r++) {
        const struct tl_json *rec = e1.key[stack_records[r]];
        if (!rec)
            continue;
        CHECK(rec->type == TL_JSON_OBJECT);
        for (size_t f = 0; f < TL_ARRAY_LEN(stack_fields); f++)
            check_frames(tl_env_get(rec, stack_fields[f]), &scratch);
    }

    tl_arena_release(&a);
    tl_arena_release(&scratch);
    return 0;
}
