/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bytes the report sink wrote for a record's files, made again from the record: the
 * payload verbatim, its JSON pretty-printed, the output-code or dump_file page rendered, as
 * report.c does; and which files of the directory a record added. It reads no file.
 */
#include "base/config.h"
#include "sinks/written.h"
#include "base/json.h"
#include "base/json_write.h"
#include "report/pages.h"

#include <string.h>

void tl_written_init(struct tl_written *w, struct tl_arena *arena)
{
    tl_map_init(&w->seen, arena);
}

void tl_written_release(struct tl_written *w)
{
    tl_map_release(&w->seen);
}

void tl_written_each(struct tl_written *w, const struct tl_record *r,
                     void (*fn)(void *arg, const struct tl_artifact *a), void *arg)
{
    if (r->status != TL_REC_OK || !r->key || !r->key->first)
        return;
    const struct tl_dirkey *key = r->key;
    struct tl_map_entry *e =
        tl_map_upsert(&w->seen, tl_str_make((const char *)&key, sizeof(key)), NULL);
    const struct tl_artifact *a =
        e->value ? ((const struct tl_artifact *)e->value)->next : key->first;
    for (; a; a = a->next) {
        if (!a->is_link)
            fn(arg, a);
        e->value = (void *)a;
    }
}

bool tl_written_wants_payload(const struct tl_record *r)
{
    static const enum tl_key keys[] = {
        TL_K_OPTIMIZE_DDP_SPLIT_GRAPH,
        TL_K_COMPILED_AUTOGRAD_GRAPH,
        TL_K_AOT_FORWARD_GRAPH,
        TL_K_AOT_BACKWARD_GRAPH,
        TL_K_AOT_INFERENCE_GRAPH,
        TL_K_AOT_JOINT_GRAPH,
        TL_K_INDUCTOR_POST_GRAD_GRAPH,
        TL_K_INDUCTOR_PRE_GRAD_GRAPH,
        TL_K_DYNAMO_CPP_GUARDS_STR,
        TL_K_GRAPH_DUMP,
        TL_K_DYNAMO_OUTPUT_GRAPH,
        TL_K_INDUCTOR_OUTPUT_CODE,
        TL_K_OPTIMIZE_DDP_SPLIT_CHILD,
        TL_K_ARTIFACT,
        TL_K_DUMP_FILE,
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(keys); i++)
        if (tl_record_has(r, keys[i]))
            return true;
    return false;
}

const char *tl_written_base(const char *url)
{
    const char *slash = strrchr(url, '/');
    return slash ? slash + 1 : url;
}

static bool starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static bool ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

bool tl_written_bytes(const struct tl_sink_ctx *ctx, const struct tl_record *r,
                      const struct tl_artifact *a, struct tl_buf *out)
{
    const char *base = tl_written_base(a->url);
    if (ctx->opt->nparsers)
        return false; /* a custom parser's file is not ours to know */
    if (starts(a->url, "dump_file/") && tl_record_has(r, TL_K_DUMP_FILE)) {
        tl_page_dump_file(out, r->payload.p, r->payload.n);
        return true;
    }
    if (tl_record_has(r, TL_K_INDUCTOR_OUTPUT_CODE) && starts(base, "inductor_output_code")) {
        if (ctx->opt->plain_text)
            tl_buf_add(out, r->payload.p, r->payload.n);
        else
            tl_page_output_code(out, r->payload.p, r->payload.n, r->display);
        return true;
    }
    if (tl_record_has(r, TL_K_ARTIFACT) && tl_str_eq_cstr(r->artifact_encoding, "json") &&
        ends(base, ".json")) {
        struct tl_json v;
        if (tl_json_parse(ctx->scratch, r->payload.p, r->payload.n, &v, NULL) < 0)
            tl_buf_add(out, r->payload.p, r->payload.n);
        else
            tl_json_write_pretty(out, &v, 0);
        return true;
    }
    if (starts(base, "dynamo_guards") || starts(base, "compilation_metrics") ||
        starts(base, "bwd_compilation_metrics") ||
        starts(base, "aot_autograd_backward_compilation_metrics") || ends(base, "_readable.html"))
        return false;
    tl_buf_add(out, r->payload.p, r->payload.n); /* written verbatim */
    return true;
}
