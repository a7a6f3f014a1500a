/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vLLM mode of the report: vLLM's extra files and the summary's facts, record by record
 * (vllm.h). The reference runs its vLLM parsers after its ordinary ones on every entry, so an
 * entry of vLLM's gets the ordinary file first and vLLM's copy next; every file of the report
 * is then attached to the vLLM compile it belongs to.
 */
#include "base/config.h"
#include "sinks/vllm.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/json_write.h"
#include "output/outdir.h"
#include "sinks/files.h"

#include <string.h>

static int emit_copy(struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                     const struct tl_buf *name, struct tl_str bytes, struct tl_err *err)
{
    if (tl_files_emit(ctx, r, tl_buf_str(name), bytes.p, bytes.n, true, NULL, err) < 0)
        return -1;
    tl_record_wrote(r, r->key->last, k, bytes, ctx->scratch);
    return 0;
}

/* What an entry of vLLM's says, to the summary. */
static void apply(struct tl_vllm *v, enum tl_vllm_role role, const struct tl_json *payload)
{
    switch (role) {
    case TL_VLLM_CONFIG:
        tl_vllm_set_config(v, payload);
        break;
    case TL_VLLM_COMPILE_START:
        tl_vllm_start_subgraph(v, payload);
        break;
    case TL_VLLM_COMPILE_EVENT:
        tl_vllm_compile_event(v, payload);
        break;
    case TL_VLLM_SPLIT_GRAPH:
    case TL_VLLM_SUBMOD:
        v->seen = true;
        break;
    default:
        break;
    }
}

int tl_vllm_record(struct tl_vllm *v, struct tl_sink_ctx *ctx, struct tl_record *r,
                   const struct tl_artifact *before, struct tl_err *err)
{
    if (!r->env || !r->key)
        return 0;
    const enum tl_vllm_role role = tl_vllm_role_of(r->env);
    struct tl_json parsed;
    const struct tl_json *payload = NULL;
    if ((role == TL_VLLM_CONFIG || role == TL_VLLM_COMPILE_START ||
         role == TL_VLLM_COMPILE_EVENT) &&
        tl_json_parse(ctx->scratch, r->payload.p, r->payload.n, &parsed, NULL) == 0)
        payload = &parsed;
    struct tl_buf name = TL_BUF_INIT, text = TL_BUF_INIT;
    int rc = 0;
    bool emitted = false; /* vLLM's copy was written: the entry's last file */
    switch (role) {
    case TL_VLLM_CONFIG:
        tl_buf_adds(&name, "vllm_compilation_config.json");
        if (payload) {
            tl_json_write_pretty(&text, payload, 0);
            rc = emit_copy(ctx, r, TL_K_ARTIFACT, &name, tl_buf_str(&text), err);
            emitted = true;
        } else {
            ctx->stats->fail_parser++;
            tl_sink_warn(ctx, TL_W_PARSER, r->lineno,
                         "Failed to format payload for vllm_compilation_config.json: not JSON");
        }
        break;
    case TL_VLLM_SPLIT_GRAPH:
        tl_buf_adds(&name, "vllm_piecewise_split_graph.txt");
        rc = emit_copy(ctx, r, TL_K_GRAPH_DUMP, &name, r->payload, err);
        emitted = true;
        break;
    case TL_VLLM_SUBMOD:
        tl_path_safe(&name, tl_env_str(r->env->key[TL_K_GRAPH_DUMP], "name"), true);
        tl_buf_adds(&name, ".txt");
        rc = emit_copy(ctx, r, TL_K_GRAPH_DUMP, &name, r->payload, err);
        emitted = true;
        break;
    default:
        break;
    }
    tl_buf_release(&name);
    tl_buf_release(&text);
    if (rc < 0)
        return -1;
    /* Every file the entry listed, in order (links are no files). What the entry says applies
     * before vLLM's copy is attached, as the reference's vLLM parser runs after the ordinary
     * ones: a config's copy goes to the call it starts. */
    const struct tl_artifact *copy = emitted ? r->key->last : NULL;
    bool applied = false;
    for (const struct tl_artifact *a = before ? before->next : r->key->first; a; a = a->next) {
        if (a == copy && !applied) {
            apply(v, role, payload);
            applied = true;
        }
        if (!a->is_link)
            tl_vllm_add_file(v, a->url, a->suffix);
    }
    if (!applied)
        apply(v, role, payload);
    return 0;
}
