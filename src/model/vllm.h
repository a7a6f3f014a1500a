/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vLLM's compilation, as its TORCH_TRACE entries tell it (the reference tlparse 0.4.8's vLLM
 * mode): vLLM logs its compilation config (artifact vllm_compilation_config), the piecewise
 * split graph (graph_dump vllm_piecewise_split_graph), and for every piecewise compile of a
 * submodule for a compile size or range an artifact vllm_piecewise_compile_start followed by
 * what the compile wrote (graph_dump vllm_<submod_name> once per submodule, inductor's files).
 * When any of these is seen, the report's index.html becomes a vLLM compilation summary and
 * the classic index moves to tlparse_index.html.
 *
 * vLLM calls its backend once per model it compiles (a drafter beside the model, a recompile),
 * and each call logs its config: as the reference 0.4.8 does, each config read starts a new
 * compile call, unless the last call has none yet (entries before the first config make a call
 * without one). The files of the report are attached, in log order, to the last subgraph the
 * last call started (before its first one: to the call's "pre-subgraph" files, of which the
 * summary shows dynamo's). Every string is copied into the arena given to tl_vllm_init.
 * Depends on base and the envelope's keys only.
 */
#ifndef TL_VLLM_H
#define TL_VLLM_H

#include "base/config.h"
#include "base/arena.h"
#include "base/json.h"
#include "base/str.h"
#include "input/envelope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an entry is to vLLM mode (tl_vllm_role_of): the one table of vLLM's names. */
enum tl_vllm_role {
    TL_VLLM_NONE,
    TL_VLLM_CONFIG,        /* artifact vllm_compilation_config: the config, and its file */
    TL_VLLM_COMPILE_START, /* artifact vllm_piecewise_compile_start: a subgraph starts */
    TL_VLLM_SPLIT_GRAPH,   /* graph_dump vllm_piecewise_split_graph, and its file */
    TL_VLLM_SUBMOD,        /* graph_dump vllm_subgraph_* or vllm_submod_*, and its file */
    TL_VLLM_COMPILE_EVENT, /* artifact vllm_compile_event: how the next call compiles */
};

/* The config's fields the summary shows, in its order; the values are strings or booleans
 * (vLLM joins its lists with ", "). */
#define TL_VLLM_CONFIG_FIELDS(X)                                                                   \
    X(MODEL, "model", "Model", 0)                                                                  \
    X(MODE, "mode", "Mode", 0)                                                                     \
    X(BACKEND, "backend", "Backend", 0)                                                            \
    X(PREFIX, "prefix", "Prefix", 0)                                                               \
    X(CUSTOM_OPS, "custom_ops", "Custom Ops", 0)                                                   \
    X(SPLITTING_OPS, "splitting_ops", "Splitting Ops", 0)                                          \
    X(CUDAGRAPH_MODE, "cudagraph_mode", "CUDAGraph Mode", 1)                                       \
    X(USE_INDUCTOR_GRAPH_PARTITION, "use_inductor_graph_partition",                                \
      "Use Inductor Graph Partition", 1)                                                           \
    X(COMPILE_SIZES, "compile_sizes", "Compile Sizes", 1)                                          \
    X(COMPILE_RANGES_SPLIT_POINTS, "compile_ranges_split_points", "Compile Ranges Split Points",   \
      1)                                                                                           \
    X(INDUCTOR_PASSES, "inductor_passes", "Inductor Passes", 1)                                    \
    X(ENABLED_PASSES, "enabled_passes", "Enabled Passes", 1)                                       \
    X(DYNAMIC_SHAPES_TYPE, "dynamic_shapes_type", "Dynamic Shapes Type", 1)                        \
    X(DYNAMIC_SHAPES_EVALUATE_GUARDS, "dynamic_shapes_evaluate_guards",                            \
      "Dynamic Shapes Evaluate Guards", 1)

enum tl_vllm_field {
#define TL_X(id, key, label, table) TL_VLLM_F_##id,
    TL_VLLM_CONFIG_FIELDS(TL_X)
#undef TL_X
        TL_VLLM_F__COUNT
};

struct tl_vllm_field_info {
    const char *key, *label;
    int table; /* 0: "Core Settings", 1: "Compile Settings" */
    bool is_bool;
};
extern const struct tl_vllm_field_info tl_vllm_fields[TL_VLLM_F__COUNT];

/* A file of the report, as the summary links it. */
struct tl_vllm_file {
    struct tl_vllm_file *next;
    const char *url;  /* its path in the report */
    const char *name; /* its name without folder and extension */
    uint8_t suffix;   /* enum tl_cache_suffix */
};

struct tl_vllm_files {
    struct tl_vllm_file *first, *last;
    size_t n;
};

/* A piecewise compile: one submodule for one compile size or range. */
struct tl_vllm_subgraph {
    struct tl_vllm_subgraph *next;
    int32_t index;       /* piecewise_index */
    const char *submod;  /* submod_name, or NULL */
    int64_t start, end;  /* compile_range_start, _end */
    bool single_size;    /* is_single_size */
    bool cudagraph_size; /* is_cudagraph_capture_size */
    struct tl_vllm_files files;
};

/* A compile call: one call of vLLM's backend, from its config to the next call's. */
struct tl_vllm_call {
    struct tl_vllm_call *next;
    bool has_config;
    const char *config[TL_VLLM_F__COUNT]; /* text as shown; NULL when absent or null */
    const char *split_graph_url;          /* the last vllm_piecewise_split_graph file, or NULL */
    struct tl_vllm_files pre;             /* the files before the first subgraph */
    struct tl_vllm_subgraph *first, *last;
    size_t nsubgraphs;
    bool cache_hit; /* the vllm_compile_event before its config said "aot_cache_hit" */
};

struct tl_vllm {
    struct tl_arena *arena;            /* borrowed */
    bool seen;                         /* an entry of vLLM's was seen: the summary is the index */
    struct tl_vllm_call *first, *last; /* the compile calls, in log order */
    size_t ncalls;
    const char *pending_event; /* a vllm_compile_event's type, for the next config; or NULL */
};

void tl_vllm_init(struct tl_vllm *v, struct tl_arena *arena);

/** The role of an entry whose known keys are env (artifact and graph_dump names). */
enum tl_vllm_role tl_vllm_role_of(const struct tl_envelope *env);

/**
 * The config of a vllm_compilation_config payload (parsed JSON, or NULL when it was not JSON):
 * when it is an object whose fields of the table are absent, null or of their type (strings;
 * booleans for the two flags), as the reference reads it, it starts a compile call (or is the
 * config of the last one, when that has none) and marks the run as vLLM's; otherwise nothing
 * changes. A newer vLLM's compile_ranges_endpoints stands for compile_ranges_split_points when
 * that is absent.
 */
void tl_vllm_set_config(struct tl_vllm *v, const struct tl_json *payload);

/**
 * A vllm_piecewise_compile_start payload (or NULL): marks the run as vLLM's; when the payload
 * holds piecewise_index (a 32-bit integer), compile_range_start and _end (integers),
 * is_single_size and is_cudagraph_capture_size (booleans) and an optional string
 * submod_name, a new subgraph of the last compile call starts, to which the files after it
 * are attached.
 */
void tl_vllm_start_subgraph(struct tl_vllm *v, const struct tl_json *payload);

/** A vllm_compile_event payload (or NULL): its string "type" ("aot_cache_hit",
 * "fresh_compile") is kept for the next config, which comes after it. */
void tl_vllm_compile_event(struct tl_vllm *v, const struct tl_json *payload);

/** Whether two calls' configs show the same (both have one). */
bool tl_vllm_same_config(const struct tl_vllm_call *a, const struct tl_vllm_call *b);

/** A file of the report (its path), attached to the last compile call's last subgraph or to
 * its pre-subgraph files; a vllm_piecewise_split_graph file is also the call's split graph. */
void tl_vllm_add_file(struct tl_vllm *v, const char *url, uint8_t suffix);

/** f is one of dynamo's files (its name starts with dynamo_side_effects, dynamo_output_graph,
 * dynamo_cpp_guards_str or compilation_metrics): the summary lists these of the pre-subgraph
 * files. */
bool tl_vllm_dynamo_file(const struct tl_vllm_file *f);

/** "size 4" or "range [1, 8192]": the group a subgraph is shown in. */
void tl_vllm_size_or_range(struct tl_buf *out, const struct tl_vllm_subgraph *s);

#endif
