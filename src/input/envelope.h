/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decoding a parsed JSON envelope against the reference's typed Envelope
 * record (spec core.md §1.3-1.4, §2): known keys must have the right types
 * (a type error fails the whole line), unknown keys are counted, the four
 * compile-id keys form a group that yields a compile id or "absent".
 * Works on the DOM from json.h; allocates only in the given scratch arena.
 */
#ifndef TL_ENVELOPE_H
#define TL_ENVELOPE_H

#include "base/config.h"
#include "base/arena.h"
#include "input/compile_id.h"
#include "base/json.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>

/* Known top-level keys, in the order of spec §2.1; then the ones newer PyTorch writes that the
 * reference does not know: the metrics of a compiled graph's first runs (2.13 logs them as
 * compilation_metrics_runtime, with a frame id and no attempt) and the regional-inductor
 * subgraph an entry belongs to (a string beside the compile id, like rank). */
#define TL_ENVELOPE_KEYS(X)                                                                        \
    X(RANK, "rank")                                                                                \
    X(HAS_PAYLOAD, "has_payload")                                                                  \
    X(STACK, "stack")                                                                              \
    X(STR, "str")                                                                                  \
    X(DYNAMO_START, "dynamo_start")                                                                \
    X(DYNAMO_OUTPUT_GRAPH, "dynamo_output_graph")                                                  \
    X(OPTIMIZE_DDP_SPLIT_GRAPH, "optimize_ddp_split_graph")                                        \
    X(COMPILED_AUTOGRAD_GRAPH, "compiled_autograd_graph")                                          \
    X(DYNAMO_GUARDS, "dynamo_guards")                                                              \
    X(AOT_FORWARD_GRAPH, "aot_forward_graph")                                                      \
    X(AOT_BACKWARD_GRAPH, "aot_backward_graph")                                                    \
    X(AOT_INFERENCE_GRAPH, "aot_inference_graph")                                                  \
    X(AOT_JOINT_GRAPH, "aot_joint_graph")                                                          \
    X(INDUCTOR_PRE_GRAD_GRAPH, "inductor_pre_grad_graph")                                          \
    X(INDUCTOR_POST_GRAD_GRAPH, "inductor_post_grad_graph")                                        \
    X(DYNAMO_CPP_GUARDS_STR, "dynamo_cpp_guards_str")                                              \
    X(CHROMIUM_EVENT, "chromium_event")                                                            \
    X(EXPORTED_PROGRAM, "exported_program")                                                        \
    X(OPTIMIZE_DDP_SPLIT_CHILD, "optimize_ddp_split_child")                                        \
    X(INDUCTOR_OUTPUT_CODE, "inductor_output_code")                                                \
    X(GRAPH_DUMP, "graph_dump")                                                                    \
    X(LINK, "link")                                                                                \
    X(ARTIFACT, "artifact")                                                                        \
    X(DUMP_FILE, "dump_file")                                                                      \
    X(COMPILATION_METRICS, "compilation_metrics")                                                  \
    X(BWD_COMPILATION_METRICS, "bwd_compilation_metrics")                                          \
    X(AOT_AUTOGRAD_BACKWARD_COMPILATION_METRICS, "aot_autograd_backward_compilation_metrics")      \
    X(SYMBOLIC_SHAPE_SPECIALIZATION, "symbolic_shape_specialization")                              \
    X(GUARD_ADDED_FAST, "guard_added_fast")                                                        \
    X(GUARD_ADDED, "guard_added")                                                                  \
    X(PROPAGATE_REAL_TENSORS_PROVENANCE, "propagate_real_tensors_provenance")                      \
    X(CREATE_UNBACKED_SYMBOL, "create_unbacked_symbol")                                            \
    X(CREATE_SYMBOL, "create_symbol")                                                              \
    X(EXPRESSION_CREATED, "expression_created")                                                    \
    X(MISSING_FAKE_KERNEL, "missing_fake_kernel")                                                  \
    X(MISMATCHED_FAKE_KERNEL, "mismatched_fake_kernel")                                            \
    X(DESCRIBE_STORAGE, "describe_storage")                                                        \
    X(DESCRIBE_SOURCE, "describe_source")                                                          \
    X(DESCRIBE_TENSOR, "describe_tensor")                                                          \
    X(COMPILATION_METRICS_RUNTIME, "compilation_metrics_runtime")                                  \
    X(BWD_COMPILATION_METRICS_RUNTIME, "bwd_compilation_metrics_runtime")                          \
    X(SUBGRAPH_NAME, "subgraph_name")

enum tl_key {
#define TL_X(id, name) TL_K_##id,
    TL_ENVELOPE_KEYS(TL_X)
#undef TL_X
        TL_K__COUNT
};

/** The JSON name of a known key. */
const char *tl_key_name(enum tl_key k);

struct tl_envelope {
    /* Value of each known key; NULL when absent or JSON null. Borrowed from the DOM. */
    const struct tl_json *key[TL_K__COUNT];
    bool cid_ok; /* false: the compile id is absent ("unknown") */
    struct tl_compile_id cid;
    struct tl_str *unknown; /* names of unknown top-level keys (scratch arena) */
    size_t n_unknown;
};

/**
 * Decode root into *env. Returns 0, or -1 with a one-line reason in msg
 * (e.g. `invalid type for "frame_id": expected u32`).
 */
int tl_envelope_decode(const struct tl_json *root, struct tl_envelope *env,
                       struct tl_arena *scratch, char *msg, size_t msglen);

/* A decoded stack frame (spec §2.2). */
struct tl_frame {
    uint32_t filename; /* string-table id */
    int32_t line;
    struct tl_str name;
    struct tl_str loc;                 /* loc.p == NULL: absent */
    struct tl_str uninterned_filename; /* .p == NULL: absent */
};

/**
 * Frames of a stack value, in the scratch arena. *n receives the count; an absent stack, or
 * one that is not an array, gives 0; a frame's member of the wrong type reads as absent (a
 * stack the decoder checked has none).
 */
struct tl_frame *tl_envelope_frames(const struct tl_json *stack, struct tl_arena *scratch,
                                    size_t *n);

/* Typed readers for members of validated records; absent/null give the default. */
struct tl_str tl_env_str(const struct tl_json *rec, const char *field); /* .p NULL if absent */
const struct tl_json *tl_env_get(const struct tl_json *rec, const char *field); /* NULL if null */

#endif
