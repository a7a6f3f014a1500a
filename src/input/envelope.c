/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The envelope decoder: every known top-level key type-checked against the reference's
 * record types (a table of fields per record), unknown keys collected once, and the compile-id
 * group decoded as serde decodes a flattened Option<CompileId>.
 */
#include "base/config.h"
#include "input/envelope.h"
#include "base/map.h"

#include <stdio.h>
#include <string.h>

static const char *const key_names[TL_K__COUNT] = {
#define TL_X(id, name) name,
    TL_ENVELOPE_KEYS(TL_X)
#undef TL_X
};

const char *tl_key_name(enum tl_key k)
{
    return (unsigned)k < TL_K__COUNT ? key_names[k] : "?";
}

/* ---- schema ------------------------------------------------------------ */

enum ty {
    T_U32,
    T_U64,
    T_I32,
    T_F64,
    T_STR,
    T_BOOL,
    T_SYMINT,      /* i64 integer or string */
    T_STACK,       /* [frame] */
    T_STR_LIST,    /* [str] */
    T_U64_LIST,    /* [u64] */
    T_SYMINT_LIST, /* [symint] */
    T_STR_MAP_STR, /* {str: str} */
    T_STR_MAP_OPT, /* {str: str|null} */
    T_STR_MAP_U64, /* {str: u64} */
    T_OBJ,         /* any object, members ignored */
    T_REC,         /* a record with its own field list */
    T_STR_PAIR,    /* [str, u32] */
};

struct field {
    const char *name;
    enum ty ty;
    bool required;
    const struct field *sub; /* for T_REC; terminated by a NULL name */
};

static const struct field F_FRAME[] = {
    {"filename", T_U32, true, NULL},
    {"line", T_I32, true, NULL},
    {"name", T_STR, true, NULL},
    {"loc", T_STR, false, NULL},
    {"uninterned_filename", T_STR, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_DYNAMO_START[] = {{"stack", T_STACK, false, NULL}, {NULL, 0, 0, NULL}};
static const struct field F_NAME[] = {{"name", T_STR, true, NULL}, {NULL, 0, 0, NULL}};
static const struct field F_OUTPUT_CODE[] = {{"filename", T_STR, false, NULL}, {NULL, 0, 0, NULL}};
static const struct field F_LINK[] = {
    {"name", T_STR, true, NULL}, {"url", T_STR, true, NULL}, {NULL, 0, 0, NULL}};
static const struct field F_ARTIFACT[] = {
    {"name", T_STR, true, NULL}, {"encoding", T_STR, true, NULL}, {NULL, 0, 0, NULL}};
static const struct field F_METRICS[] = {
    {"co_name", T_STR, false, NULL},
    {"co_filename", T_STR, false, NULL},
    {"co_firstlineno", T_I32, false, NULL},
    {"cache_size", T_U64, false, NULL},
    {"accumulated_cache_size", T_U64, false, NULL},
    {"guard_count", T_U64, false, NULL},
    {"shape_env_guard_count", T_U64, false, NULL},
    {"graph_op_count", T_U64, false, NULL},
    {"graph_node_count", T_U64, false, NULL},
    {"graph_input_count", T_U64, false, NULL},
    {"start_time", T_F64, false, NULL},
    {"entire_frame_compile_time_s", T_F64, false, NULL},
    {"backend_compile_time_s", T_F64, false, NULL},
    {"inductor_compile_time_s", T_F64, false, NULL},
    {"code_gen_time_s", T_F64, false, NULL},
    {"fail_type", T_STR, false, NULL},
    {"fail_reason", T_STR, false, NULL},
    {"fail_user_frame_filename", T_STR, false, NULL},
    {"fail_user_frame_lineno", T_U32, false, NULL},
    {"non_compliant_ops", T_STR_LIST, false, NULL},
    {"compliant_custom_ops", T_STR_LIST, false, NULL},
    {"restart_reasons", T_STR_LIST, false, NULL},
    {"dynamo_time_before_restart_s", T_F64, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_BWD_METRICS[] = {
    {"inductor_compile_time_s", T_F64, false, NULL},
    {"code_gen_time_s", T_F64, false, NULL},
    {"fail_type", T_STR, false, NULL},
    {"fail_reason", T_STR, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_AOT_BWD_METRICS[] = {
    {"start_time", T_F64, false, NULL},
    {"elapsed_time", T_F64, false, NULL},
    {"fail_type", T_STR, false, NULL},
    {"fail_reason", T_STR, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_SPECIALIZATION[] = {
    {"symbol", T_STR, false, NULL},
    {"sources", T_STR_LIST, false, NULL},
    {"value", T_STR, false, NULL},
    {"reason", T_STR, false, NULL},
    {"stack", T_STACK, false, NULL},
    {"user_stack", T_STACK, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_GUARD_ADDED_FAST[] = {
    {"expr", T_STR, false, NULL},
    {"stack", T_STACK, false, NULL},
    {"user_stack", T_STACK, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_FRAME_LOCALS[] = {
    {"locals", T_STR_MAP_OPT, false, NULL},
    {"symbols", T_STR_MAP_OPT, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_GUARD_ADDED[] = {
    {"expr", T_STR, false, NULL},
    {"result", T_STR, false, NULL},
    {"user_stack", T_STACK, false, NULL},
    {"stack", T_STACK, false, NULL},
    {"expr_node_id", T_U64, false, NULL},
    {"symbol_to_sources", T_STR_MAP_STR, false, NULL},
    {"frame_locals", T_REC, false, F_FRAME_LOCALS},
    {"prefix", T_STR, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_UNBACKED[] = {
    {"symbol", T_STR, false, NULL},       {"node_id", T_U64, false, NULL},
    {"user_stack", T_STACK, false, NULL}, {"stack", T_STACK, false, NULL},
    {"vr", T_STR, false, NULL},           {NULL, 0, 0, NULL},
};
/* PyTorch 2.6's create_symbol: a dynamic size got a symbol (s0 for L['x'].size()[0]). */
static const struct field F_CREATE_SYMBOL[] = {
    {"symbol", T_STR, false, NULL},
    {"val", T_STR, false, NULL},
    {"vr", T_STR, false, NULL},
    {"source", T_STR, false, NULL},
    {"user_stack", T_STACK, false, NULL},
    {"stack", T_STACK, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_EXPRESSION[] = {
    {"method", T_STR, false, NULL},
    {"result", T_STR, false, NULL},
    {"result_id", T_U64, false, NULL},
    {"arguments", T_STR_LIST, false, NULL},
    {"argument_ids", T_U64_LIST, false, NULL},
    {"user_stack", T_STACK, false, NULL},
    {"stack", T_STACK, false, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_FAKE_KERNEL[] = {
    {"op", T_STR, false, NULL}, {"reason", T_STR, false, NULL}, {NULL, 0, 0, NULL}};
static const struct field F_STORAGE[] = {
    {"id", T_U64, true, NULL},
    {"describer_id", T_U64, true, NULL},
    {"size", T_U64, true, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_SOURCE[] = {
    {"describer_id", T_U64, true, NULL},
    {"id", T_U64, true, NULL},
    {"source", T_STR, true, NULL},
    {NULL, 0, 0, NULL},
};
static const struct field F_TENSOR[] = {
    {"id", T_U64, true, NULL},
    {"describer_id", T_U64, true, NULL},
    {"ndim", T_U64, true, NULL},
    {"dtype", T_STR, true, NULL},
    {"device", T_STR, true, NULL},
    {"size", T_SYMINT_LIST, true, NULL},
    {"dynamo_dynamic_indices", T_U64_LIST, false, NULL},
    {"layout", T_STR, false, NULL},
    {"is_inference", T_BOOL, false, NULL},
    {"is_leaf", T_BOOL, false, NULL},
    {"requires_grad", T_BOOL, false, NULL},
    {"is_sparse", T_BOOL, false, NULL},
    {"is_mkldnn", T_BOOL, false, NULL},
    {"is_functorch_wrapped", T_BOOL, false, NULL},
    {"is_batchedtensor", T_BOOL, false, NULL},
    {"is_legacy_batchedtensor", T_BOOL, false, NULL},
    {"is_gradtrackingtensor", T_BOOL, false, NULL},
    {"is_view", T_BOOL, false, NULL},
    {"is_nested", T_BOOL, false, NULL},
    {"is_traceable_wrapper_subclass", T_BOOL, false, NULL},
    {"is_functional", T_BOOL, false, NULL},
    {"is_conj", T_BOOL, false, NULL},
    {"is_neg", T_BOOL, false, NULL},
    {"is_parameter", T_BOOL, false, NULL},
    {"stride", T_SYMINT_LIST, false, NULL},
    {"storage_offset", T_SYMINT, false, NULL},
    {"storage", T_U64, false, NULL},
    {"sparse_dim", T_U64, false, NULL},
    {"dense_dim", T_U64, false, NULL},
    {"is_coalesced", T_BOOL, false, NULL},
    {"crow_indices", T_U64, false, NULL},
    {"col_indices", T_U64, false, NULL},
    {"ccol_indices", T_U64, false, NULL},
    {"row_indices", T_U64, false, NULL},
    {"values", T_U64, false, NULL},
    {"unwrapped", T_U64, false, NULL},
    {"base", T_U64, false, NULL},
    {"grad", T_U64, false, NULL},
    {"bdim", T_U64, false, NULL},
    {"attrs", T_STR_MAP_U64, false, NULL},
    {"creation_meta", T_STR, false, NULL},
    {"dynamo_hint_overrides", T_OBJ, false, NULL}, /* 2.13 */
    {"view_func", T_STR, false, NULL},             /* 2.13 */
    {NULL, 0, 0, NULL},
};

struct top {
    enum ty ty;
    const struct field *sub;
};

/* Type of each known top-level key, indexed by enum tl_key. */
static const struct top top_types[TL_K__COUNT] = {
    [TL_K_RANK] = {T_U32, NULL},
    [TL_K_HAS_PAYLOAD] = {T_STR, NULL},
    [TL_K_STACK] = {T_STACK, NULL},
    [TL_K_STR] = {T_STR_PAIR, NULL},
    [TL_K_DYNAMO_START] = {T_REC, F_DYNAMO_START},
    [TL_K_DYNAMO_OUTPUT_GRAPH] = {T_OBJ, NULL},
    [TL_K_OPTIMIZE_DDP_SPLIT_GRAPH] = {T_OBJ, NULL},
    [TL_K_COMPILED_AUTOGRAD_GRAPH] = {T_OBJ, NULL},
    [TL_K_DYNAMO_GUARDS] = {T_OBJ, NULL},
    [TL_K_AOT_FORWARD_GRAPH] = {T_OBJ, NULL},
    [TL_K_AOT_BACKWARD_GRAPH] = {T_OBJ, NULL},
    [TL_K_AOT_INFERENCE_GRAPH] = {T_OBJ, NULL},
    [TL_K_AOT_JOINT_GRAPH] = {T_OBJ, NULL},
    [TL_K_INDUCTOR_PRE_GRAD_GRAPH] = {T_OBJ, NULL},
    [TL_K_INDUCTOR_POST_GRAD_GRAPH] = {T_OBJ, NULL},
    [TL_K_DYNAMO_CPP_GUARDS_STR] = {T_OBJ, NULL},
    [TL_K_CHROMIUM_EVENT] = {T_OBJ, NULL},
    [TL_K_EXPORTED_PROGRAM] = {T_OBJ, NULL},
    [TL_K_OPTIMIZE_DDP_SPLIT_CHILD] = {T_REC, F_NAME},
    [TL_K_INDUCTOR_OUTPUT_CODE] = {T_REC, F_OUTPUT_CODE},
    [TL_K_GRAPH_DUMP] = {T_REC, F_NAME},
    [TL_K_LINK] = {T_REC, F_LINK},
    [TL_K_ARTIFACT] = {T_REC, F_ARTIFACT},
    [TL_K_DUMP_FILE] = {T_REC, F_NAME},
    [TL_K_COMPILATION_METRICS] = {T_REC, F_METRICS},
    [TL_K_BWD_COMPILATION_METRICS] = {T_REC, F_BWD_METRICS},
    [TL_K_AOT_AUTOGRAD_BACKWARD_COMPILATION_METRICS] = {T_REC, F_AOT_BWD_METRICS},
    [TL_K_SYMBOLIC_SHAPE_SPECIALIZATION] = {T_REC, F_SPECIALIZATION},
    [TL_K_GUARD_ADDED_FAST] = {T_REC, F_GUARD_ADDED_FAST},
    [TL_K_GUARD_ADDED] = {T_REC, F_GUARD_ADDED},
    [TL_K_PROPAGATE_REAL_TENSORS_PROVENANCE] = {T_REC, F_GUARD_ADDED},
    [TL_K_CREATE_UNBACKED_SYMBOL] = {T_REC, F_UNBACKED},
    [TL_K_CREATE_SYMBOL] = {T_REC, F_CREATE_SYMBOL},
    [TL_K_EXPRESSION_CREATED] = {T_REC, F_EXPRESSION},
    [TL_K_MISSING_FAKE_KERNEL] = {T_REC, F_FAKE_KERNEL},
    [TL_K_MISMATCHED_FAKE_KERNEL] = {T_REC, F_FAKE_KERNEL},
    [TL_K_DESCRIBE_STORAGE] = {T_REC, F_STORAGE},
    [TL_K_DESCRIBE_SOURCE] = {T_REC, F_SOURCE},
    [TL_K_DESCRIBE_TENSOR] = {T_REC, F_TENSOR},
    [TL_K_COMPILATION_METRICS_RUNTIME] = {T_OBJ, NULL},
    [TL_K_BWD_COMPILATION_METRICS_RUNTIME] = {T_OBJ, NULL},
    [TL_K_SUBGRAPH_NAME] = {T_STR, NULL},
};

/* ---- type checks --------------------------------------------------------- */

static const char *const ty_names[] = {
    [T_U32] = "u32",
    [T_U64] = "u64",
    [T_I32] = "i32",
    [T_F64] = "a number",
    [T_STR] = "a string",
    [T_BOOL] = "a boolean",
    [T_SYMINT] = "an integer or a string",
    [T_STACK] = "a list of stack frames",
    [T_STR_LIST] = "a list of strings",
    [T_U64_LIST] = "a list of u64",
    [T_SYMINT_LIST] = "a list of integers or strings",
    [T_STR_MAP_STR] = "a map of strings",
    [T_STR_MAP_OPT] = "a map of strings or nulls",
    [T_STR_MAP_U64] = "a map of u64",
    [T_OBJ] = "an object",
    [T_REC] = "an object",
    [T_STR_PAIR] = "a [string, u32] pair",
};

static bool is_u64(const struct tl_json *v)
{
    return v->type == TL_JSON_NUMBER && v->u.num.kind == TL_JSON_UINT;
}

static bool is_u32(const struct tl_json *v)
{
    return is_u64(v) && v->u.num.u <= UINT32_MAX;
}

static bool is_i32(const struct tl_json *v)
{
    if (v->type != TL_JSON_NUMBER)
        return false;
    if (v->u.num.kind == TL_JSON_UINT)
        return v->u.num.u <= INT32_MAX;
    if (v->u.num.kind == TL_JSON_INT)
        return v->u.num.i >= INT32_MIN;
    return false;
}

static bool is_i64(const struct tl_json *v)
{
    if (v->type != TL_JSON_NUMBER)
        return false;
    return v->u.num.kind == TL_JSON_INT ||
           (v->u.num.kind == TL_JSON_UINT && v->u.num.u <= INT64_MAX);
}

struct ctx {
    char *msg;
    size_t msglen;
};

static int fail(struct ctx *c, const char *path, const char *what)
{
    snprintf(c->msg, c->msglen, "invalid type for \"%s\": expected %s", path, what);
    return -1;
}

static int check(struct ctx *c, const char *path, const struct tl_json *v, enum ty ty,
                 const struct field *sub);

static int check_record(struct ctx *c, const char *path, const struct tl_json *v,
                        const struct field *fields)
{
    if (v->type != TL_JSON_OBJECT)
        return fail(c, path, "an object");
    /* Few fields per record: a bitmask of the ones seen finds duplicates. */
    uint64_t seen = 0;
    for (size_t i = 0; i < v->u.obj.n; i++) {
        const struct tl_json_member *m = &v->u.obj.items[i];
        for (size_t f = 0; fields[f].name; f++) {
            /* The first byte first: most names differ there (no name is empty). */
            if (!m->key.n || m->key.p[0] != fields[f].name[0] ||
                !tl_str_eq_cstr(m->key, fields[f].name))
                continue;
            if (seen & (1ULL << f)) {
                snprintf(c->msg, c->msglen, "duplicate field \"%s\" in \"%s\"", fields[f].name,
                         path);
                return -1;
            }
            seen |= 1ULL << f;
            if (m->value.type == TL_JSON_NULL) {
                if (fields[f].required)
                    return fail(c, fields[f].name, ty_names[fields[f].ty]);
            } else if (check(c, fields[f].name, &m->value, fields[f].ty, fields[f].sub) < 0) {
                return -1;
            }
            break;
        }
    }
    for (size_t f = 0; fields[f].name; f++) {
        if (fields[f].required && !(seen & (1ULL << f))) {
            snprintf(c->msg, c->msglen, "missing field \"%s\" in \"%s\"", fields[f].name, path);
            return -1;
        }
    }
    return 0;
}

static int check_list(struct ctx *c, const char *path, const struct tl_json *v, enum ty elem,
                      const struct field *sub, enum ty whole)
{
    if (v->type != TL_JSON_ARRAY)
        return fail(c, path, ty_names[whole]);
    for (size_t i = 0; i < v->u.arr.n; i++)
        if (check(c, path, &v->u.arr.items[i], elem, sub) < 0)
            return -1;
    return 0;
}

static int check_map(struct ctx *c, const char *path, const struct tl_json *v, enum ty ty)
{
    if (v->type != TL_JSON_OBJECT)
        return fail(c, path, ty_names[ty]);
    for (size_t i = 0; i < v->u.obj.n; i++) {
        const struct tl_json *e = &v->u.obj.items[i].value;
        bool ok = ty == T_STR_MAP_U64   ? is_u64(e)
                  : ty == T_STR_MAP_OPT ? (e->type == TL_JSON_STRING || e->type == TL_JSON_NULL)
                                        : e->type == TL_JSON_STRING;
        if (!ok)
            return fail(c, path, ty_names[ty]);
    }
    return 0;
}

static int check(struct ctx *c, const char *path, const struct tl_json *v, enum ty ty,
                 const struct field *sub)
{
    bool ok;
    switch (ty) {
    case T_U32:
        ok = is_u32(v);
        break;
    case T_U64:
        ok = is_u64(v);
        break;
    case T_I32:
        ok = is_i32(v);
        break;
    case T_F64:
        ok = v->type == TL_JSON_NUMBER;
        break;
    case T_STR:
        ok = v->type == TL_JSON_STRING;
        break;
    case T_BOOL:
        ok = v->type == TL_JSON_BOOL;
        break;
    case T_SYMINT:
        ok = is_i64(v) || v->type == TL_JSON_STRING;
        break;
    case T_STACK:
        return check_list(c, path, v, T_REC, F_FRAME, T_STACK);
    case T_STR_LIST:
        return check_list(c, path, v, T_STR, NULL, T_STR_LIST);
    case T_U64_LIST:
        return check_list(c, path, v, T_U64, NULL, T_U64_LIST);
    case T_SYMINT_LIST:
        return check_list(c, path, v, T_SYMINT, NULL, T_SYMINT_LIST);
    case T_STR_MAP_STR:
    case T_STR_MAP_OPT:
    case T_STR_MAP_U64:
        return check_map(c, path, v, ty);
    case T_OBJ:
        ok = v->type == TL_JSON_OBJECT;
        break;
    case T_REC:
        return check_record(c, path, v, sub);
    case T_STR_PAIR:
        ok = v->type == TL_JSON_ARRAY && v->u.arr.n == 2 &&
             v->u.arr.items[0].type == TL_JSON_STRING && is_u32(&v->u.arr.items[1]);
        break;
    default:
        ok = false;
    }
    return ok ? 0 : fail(c, path, ty_names[ty]);
}

/* ---- top level ------------------------------------------------------------ */

static int lookup_key(struct tl_str k)
{
    static const unsigned char key_lens[TL_K__COUNT] = {
#define TL_X(id, name) sizeof(name) - 1,
        TL_ENVELOPE_KEYS(TL_X)
#undef TL_X
    };
    /* A switch on length and first byte would be faster still; a linear
     * scan over 38 names with a length check first is cheap enough. */
    for (int i = 0; i < TL_K__COUNT; i++)
        if (key_lens[i] == k.n && memcmp(key_names[i], k.p, k.n) == 0)
            return i;
    return -1;
}

static int cid_part(struct tl_str k)
{
    if (tl_str_eq_cstr(k, "compiled_autograd_id"))
        return TL_CID_CA;
    if (tl_str_eq_cstr(k, "frame_id"))
        return TL_CID_FRAME;
    if (tl_str_eq_cstr(k, "frame_compile_id"))
        return TL_CID_FCID;
    if (tl_str_eq_cstr(k, "attempt"))
        return TL_CID_ATTEMPT;
    return 0;
}

/* The state of one envelope's decoding: which keys were seen, how the compile id fares. */
struct decoder {
    struct ctx c;
    struct tl_envelope *env;
    struct tl_arena *scratch;
    size_t n; /* members of the envelope: bounds the unknown keys */
    bool seen[TL_K__COUNT];
    uint8_t cid_seen;
    bool cid_broken;
    struct tl_map seen_unknown;
};

/* A key of the flattened compile id. False when it counts as unknown instead. */
static inline bool cid_member(struct decoder *d, int part, const struct tl_json *v)
{
    struct tl_envelope *env = d->env;
    if (d->cid_broken) {
        /* The reference's flattened compile id stops consuming its
         * keys after a bad one: later ones count as unknown. */
        return false;
    }
    if (d->cid_seen & part) {
        /* serde's flattened Option<CompileId> stops at its first
         * error, a duplicate as much as a bad type: later group
         * keys stay unconsumed and count as unknown. */
        env->cid_ok = false;
        d->cid_broken = true;
        return true;
    }
    d->cid_seen |= (uint8_t)part;
    if (v->type == TL_JSON_NULL)
        return true;
    if (!is_u32(v)) {
        env->cid_ok = false;
        d->cid_broken = true;
        return true;
    }
    uint32_t x = (uint32_t)v->u.num.u;
    env->cid.has |= (uint8_t)part;
    if (part == TL_CID_CA)
        env->cid.ca = x;
    else if (part == TL_CID_FRAME)
        env->cid.frame = x;
    else if (part == TL_CID_FCID)
        env->cid.fcid = x;
    else
        env->cid.attempt = x;
    return true;
}

/* A known top-level key: once only, of its type (null is as absent). */
static inline int known_member(struct decoder *d, int k, const struct tl_json *v)
{
    if (d->seen[k]) {
        snprintf(d->c.msg, d->c.msglen, "duplicate field \"%s\"", key_names[k]);
        return -1;
    }
    d->seen[k] = true;
    if (v->type == TL_JSON_NULL)
        return 0;
    if (check(&d->c, key_names[k], v, top_types[k].ty, top_types[k].sub) < 0)
        return -1;
    d->env->key[k] = v;
    return 0;
}

static void unknown_member(struct decoder *d, struct tl_str key)
{
    struct tl_envelope *env = d->env;
    if (!env->unknown)
        env->unknown = tl_arena_alloc(d->scratch, d->n * sizeof(*env->unknown));
    /* The reference collects unknown keys in a map: a repeated one counts
     * once. A scan for the few usual ones, a hash set for many. */
    if (env->n_unknown < 16) {
        bool dup = false;
        for (size_t j = 0; j < env->n_unknown && !dup; j++)
            dup = tl_str_eq(env->unknown[j], key);
        if (!dup)
            env->unknown[env->n_unknown++] = key;
    } else {
        if (!d->seen_unknown.arena) {
            tl_map_init(&d->seen_unknown, d->scratch);
            for (size_t j = 0; j < env->n_unknown; j++)
                tl_map_put(&d->seen_unknown, env->unknown[j], (void *)1);
        }
        int created;
        tl_map_upsert(&d->seen_unknown, key, &created);
        if (created)
            env->unknown[env->n_unknown++] = key;
    }
}

/* One member of the envelope: a compile id part, a known key or an unknown one. */
static inline int decode_member(struct decoder *d, const struct tl_json_member *m)
{
    int part = cid_part(m->key);
    if (part) {
        if (cid_member(d, part, &m->value))
            return 0;
    } else {
        int k = lookup_key(m->key);
        if (k >= 0)
            return known_member(d, k, &m->value);
    }
    unknown_member(d, m->key);
    return 0;
}

int tl_envelope_decode(const struct tl_json *root, struct tl_envelope *env,
                       struct tl_arena *scratch, char *msg, size_t msglen)
{
    memset(env, 0, sizeof(*env));
    if (root->type != TL_JSON_OBJECT) {
        snprintf(msg, msglen, "the envelope is not a JSON object");
        return -1;
    }
    struct decoder d = {{msg, msglen}, env, scratch, root->u.obj.n, {false}, 0, false, {0}};
    env->cid_ok = true;
    int rc = 0;
    for (size_t i = 0; i < d.n && rc == 0; i++)
        rc = decode_member(&d, &root->u.obj.items[i]);
    tl_map_release(&d.seen_unknown);
    if (rc < 0)
        return -1;
    if (!env->cid_ok)
        memset(&env->cid, 0, sizeof(env->cid));
    return 0;
}

struct tl_frame *tl_envelope_frames(const struct tl_json *stack, struct tl_arena *scratch,
                                    size_t *n)
{
    *n = 0;
    if (tl_json_is_null(stack) || stack->type != TL_JSON_ARRAY || stack->u.arr.n == 0)
        return NULL;
    size_t cnt = stack->u.arr.n;
    struct tl_frame *fr = tl_arena_alloc(scratch, cnt * sizeof(*fr));
    for (size_t i = 0; i < cnt; i++) {
        const struct tl_json *f = &stack->u.arr.items[i];
        const struct tl_json *v;
        memset(&fr[i], 0, sizeof(fr[i]));
        /* Members of another type read as absent: a frame the decoder checked has none, and
         * so a stack of a record it does not know can be read too. */
        if ((v = tl_env_get(f, "filename")) && v->type == TL_JSON_NUMBER &&
            v->u.num.kind == TL_JSON_UINT)
            fr[i].filename = (uint32_t)v->u.num.u;
        if ((v = tl_env_get(f, "line")) && v->type == TL_JSON_NUMBER &&
            v->u.num.kind != TL_JSON_FLOAT)
            fr[i].line = v->u.num.kind == TL_JSON_INT ? (int32_t)v->u.num.i : (int32_t)v->u.num.u;
        fr[i].name = tl_env_str(f, "name");
        fr[i].loc = tl_env_str(f, "loc");
        fr[i].uninterned_filename = tl_env_str(f, "uninterned_filename");
    }
    *n = cnt;
    return fr;
}

const struct tl_json *tl_env_get(const struct tl_json *rec, const char *field)
{
    const struct tl_json *v = rec ? tl_json_get(rec, field) : NULL;
    return tl_json_is_null(v) ? NULL : v;
}

struct tl_str tl_env_str(const struct tl_json *rec, const char *field)
{
    const struct tl_json *v = tl_env_get(rec, field);
    if (!v || v->type != TL_JSON_STRING)
        return TL_STR_NULL;
    struct tl_str s = v->u.str;
    if (!s.p)
        s.p = ""; /* present but empty */
    return s;
}
