/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vLLM's compilation from its TORCH_TRACE entries (vllm.h): the config, the piecewise
 * subgraphs and the files attached to them.
 */
#include "base/config.h"
#include "model/vllm.h"
#include "base/buf.h"

#include <string.h>

const struct tl_vllm_field_info tl_vllm_fields[TL_VLLM_F__COUNT] = {
#define TL_X(id, key, label, table)                                                                \
    [TL_VLLM_F_##id] = {key, label, table,                                                         \
                        TL_VLLM_F_##id == TL_VLLM_F_USE_INDUCTOR_GRAPH_PARTITION ||                \
                            TL_VLLM_F_##id == TL_VLLM_F_DYNAMIC_SHAPES_EVALUATE_GUARDS},
    TL_VLLM_CONFIG_FIELDS(TL_X)
#undef TL_X
};

void tl_vllm_init(struct tl_vllm *v, struct tl_arena *arena)
{
    memset(v, 0, sizeof(*v));
    v->arena = arena;
}

static bool name_is(const struct tl_json *rec, const char *want)
{
    return rec && tl_str_eq_cstr(tl_env_str(rec, "name"), want);
}

enum tl_vllm_role tl_vllm_role_of(const struct tl_envelope *env)
{
    const struct tl_json *art = env->key[TL_K_ARTIFACT];
    if (name_is(art, "vllm_compilation_config"))
        return TL_VLLM_CONFIG;
    if (name_is(art, "vllm_piecewise_compile_start"))
        return TL_VLLM_COMPILE_START;
    if (name_is(art, "vllm_compile_event"))
        return TL_VLLM_COMPILE_EVENT;
    const struct tl_json *gd = env->key[TL_K_GRAPH_DUMP];
    if (name_is(gd, "vllm_piecewise_split_graph"))
        return TL_VLLM_SPLIT_GRAPH;
    struct tl_str n = gd ? tl_env_str(gd, "name") : (struct tl_str){0};
    if (n.p && (tl_str_has_prefix(n, "vllm_subgraph_") || tl_str_has_prefix(n, "vllm_submod_")))
        return TL_VLLM_SUBMOD;
    return TL_VLLM_NONE;
}

/* A C string of s: a NUL in it shows as U+FFFD (it would cut the string short). */
static const char *copy_str(struct tl_vllm *v, struct tl_str s)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_add_nonul(&b, s.p, s.n);
    const char *c = tl_arena_memdupz(v->arena, b.buf, b.len);
    tl_buf_release(&b);
    return c;
}

static struct tl_vllm_call *new_call(struct tl_vllm *v)
{
    struct tl_vllm_call *c = tl_arena_calloc(v->arena, 1, sizeof(*c));
    if (v->last)
        v->last->next = c;
    else
        v->first = c;
    v->last = c;
    v->ncalls++;
    return c;
}

/* The last compile call, made when there is none (entries of vLLM's before its config). */
static struct tl_vllm_call *current_call(struct tl_vllm *v)
{
    return v->last ? v->last : new_call(v);
}

void tl_vllm_set_config(struct tl_vllm *v, const struct tl_json *payload)
{
    if (!payload || payload->type != TL_JSON_OBJECT)
        return;
    const struct tl_json *val[TL_VLLM_F__COUNT];
    for (int f = 0; f < TL_VLLM_F__COUNT; f++) {
        const struct tl_json *x = tl_json_get(payload, tl_vllm_fields[f].key);
        if (f == TL_VLLM_F_COMPILE_RANGES_SPLIT_POINTS && tl_json_is_null(x))
            x = tl_json_get(payload, "compile_ranges_endpoints");
        if (!tl_json_is_null(x) &&
            x->type != (tl_vllm_fields[f].is_bool ? TL_JSON_BOOL : TL_JSON_STRING))
            return; /* the reference's typed read fails: no config */
        val[f] = tl_json_is_null(x) ? NULL : x;
    }
    struct tl_vllm_call *c = v->last && !v->last->has_config ? v->last : new_call(v);
    for (int f = 0; f < TL_VLLM_F__COUNT; f++) {
        const struct tl_json *x = val[f];
        if (!x)
            c->config[f] = NULL;
        else if (x->type == TL_JSON_BOOL)
            c->config[f] = x->u.b ? "true" : "false";
        else
            c->config[f] = copy_str(v, x->u.str);
    }
    c->has_config = true;
    if (v->pending_event) /* (a call's own event is kept when it had one) */
        c->cache_hit = !strcmp(v->pending_event, "aot_cache_hit");
    v->pending_event = NULL;
    v->seen = true;
}

bool tl_vllm_same_config(const struct tl_vllm_call *a, const struct tl_vllm_call *b)
{
    if (!a->has_config || !b->has_config)
        return false;
    for (int f = 0; f < TL_VLLM_F__COUNT; f++) {
        const char *x = a->config[f], *y = b->config[f];
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y)))
            return false;
    }
    return true;
}

void tl_vllm_compile_event(struct tl_vllm *v, const struct tl_json *payload)
{
    const struct tl_json *t = tl_json_get_type(payload, "type", TL_JSON_STRING);
    if (t)
        v->pending_event = copy_str(v, t->u.str);
}

/* An integer member of the payload that fits in [lo, hi]. */
static bool get_int(const struct tl_json *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const struct tl_json *x = tl_json_get(o, key);
    if (!x || x->type != TL_JSON_NUMBER)
        return false;
    if (x->u.num.kind == TL_JSON_UINT) {
        if (x->u.num.u > (uint64_t)hi)
            return false;
        *out = (int64_t)x->u.num.u;
    } else if (x->u.num.kind == TL_JSON_INT) {
        if (x->u.num.i < lo || x->u.num.i > hi)
            return false;
        *out = x->u.num.i;
    } else {
        return false;
    }
    return true;
}

static bool get_bool(const struct tl_json *o, const char *key, bool *out)
{
    const struct tl_json *x = tl_json_get(o, key);
    if (!x || x->type != TL_JSON_BOOL)
        return false;
    *out = x->u.b;
    return true;
}

void tl_vllm_start_subgraph(struct tl_vllm *v, const struct tl_json *payload)
{
    v->seen = true;
    if (!payload || payload->type != TL_JSON_OBJECT)
        return;
    int64_t index, start, end;
    bool single, cudagraph;
    if (!get_int(payload, "piecewise_index", INT32_MIN, INT32_MAX, &index) ||
        !get_int(payload, "compile_range_start", INT64_MIN, INT64_MAX, &start) ||
        !get_int(payload, "compile_range_end", INT64_MIN, INT64_MAX, &end) ||
        !get_bool(payload, "is_single_size", &single) ||
        !get_bool(payload, "is_cudagraph_capture_size", &cudagraph))
        return;
    const struct tl_json *sm = tl_json_get(payload, "submod_name");
    if (!tl_json_is_null(sm) && sm->type != TL_JSON_STRING)
        return;
    struct tl_vllm_subgraph *s = tl_arena_calloc(v->arena, 1, sizeof(*s));
    s->index = (int32_t)index;
    s->submod = tl_json_is_null(sm) ? NULL : copy_str(v, sm->u.str);
    s->start = start;
    s->end = end;
    s->single_size = single;
    s->cudagraph_size = cudagraph;
    struct tl_vllm_call *c = current_call(v);
    if (c->last)
        c->last->next = s;
    else
        c->first = s;
    c->last = s;
    c->nsubgraphs++;
}

/* The pre-subgraph files the summary shows (as "Dynamo Compilation"): the only ones kept, so
 * that a run that is not vLLM's keeps nothing. */
static const char *const dynamo_names[] = {
    "dynamo_side_effects",
    "dynamo_output_graph",
    "dynamo_cpp_guards_str",
    "compilation_metrics",
};

static bool has_prefix(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static bool kept_before_subgraphs(const char *url)
{
    const char *base = strrchr(url, '/');
    base = base ? base + 1 : url;
    if (has_prefix(base, "vllm_piecewise_split_graph"))
        return true;
    for (size_t i = 0; i < TL_ARRAY_LEN(dynamo_names); i++)
        if (has_prefix(base, dynamo_names[i]))
            return true;
    return false;
}

bool tl_vllm_dynamo_file(const struct tl_vllm_file *f)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(dynamo_names); i++)
        if (has_prefix(f->name, dynamo_names[i]))
            return true;
    return false;
}

void tl_vllm_add_file(struct tl_vllm *v, const char *url, uint8_t suffix)
{
    if ((!v->last || !v->last->last) && !kept_before_subgraphs(url))
        return;
    struct tl_vllm_call *c = current_call(v);
    struct tl_vllm_file *f = tl_arena_calloc(v->arena, 1, sizeof(*f));
    f->url = tl_arena_memdupz(v->arena, url, strlen(url));
    /* The file's stem: no folder, no extension (Rust's Path::file_stem). */
    const char *base = strrchr(f->url, '/');
    base = base ? base + 1 : f->url;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    f->name = tl_arena_memdupz(v->arena, base, n);
    f->suffix = suffix;
    if (has_prefix(f->name, "vllm_piecewise_split_graph"))
        c->split_graph_url = f->url;
    struct tl_vllm_files *list = c->last ? &c->last->files : &c->pre;
    if (list->last)
        list->last->next = f;
    else
        list->first = f;
    list->last = f;
    list->n++;
}

void tl_vllm_size_or_range(struct tl_buf *out, const struct tl_vllm_subgraph *s)
{
    if (s->single_size)
        tl_buf_addf(out, "size %lld", (long long)s->start);
    else
        tl_buf_addf(out, "range [%lld, %lld]", (long long)s->start, (long long)s->end);
}
