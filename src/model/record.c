/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed records: where an entry's outputs go (compile folder, display id and directory key,
 * spec core.md §1.8) and the typed views of the envelope keys the sinks read.
 */
#include "base/config.h"
#include "model/record.h"

#include <string.h>

void tl_record_init(struct tl_record *r)
{
    memset(r, 0, sizeof(*r));
    r->kind = TL_K__COUNT;
    tl_buf_init(&r->payload_file, 0);
}

void tl_record_release(struct tl_record *r)
{
    tl_buf_release(&r->payload_file);
}

const struct tl_json *tl_record_payload_json(const struct tl_record *r, struct tl_arena *scratch)
{
    struct tl_record *m = (struct tl_record *)r; /* the memo only */
    if (m->payload_parsed == 0)
        m->payload_parsed =
            r->has_payload && r->payload.n &&
                    tl_json_parse(scratch, r->payload.p, r->payload.n, &m->payload_value, NULL) == 0
                ? 1
                : -1;
    return m->payload_parsed > 0 ? &r->payload_value : NULL;
}

static const char *scratch_cstr(struct tl_arena *a, const struct tl_buf *b)
{
    return tl_arena_memdupz(a, b->buf, b->len);
}

static void place(struct tl_record *r, struct tl_directory *dir, struct tl_arena *scratch)
{
    struct tl_buf b = TL_BUF_INIT;
    r->cid_ok = r->env->cid_ok;
    r->cid = r->env->cid;
    if (r->cid_ok) {
        tl_cid_folder(&b, &r->cid);
        r->folder = scratch_cstr(scratch, &b);
        tl_buf_reset(&b);
        tl_cid_display(&b, &r->cid);
        r->display = scratch_cstr(scratch, &b);
        struct tl_compile_id dk = tl_cid_dir_key(r->cid);
        r->key = tl_directory_key(dir, &dk);
    } else {
        tl_buf_addf(&b, "unknown_%llu", (unsigned long long)r->lineno);
        r->folder = scratch_cstr(scratch, &b);
        r->display = NULL;
        r->key = tl_directory_key(dir, NULL);
    }
    tl_buf_release(&b);
}

void tl_record_decode(struct tl_record *r, struct tl_directory *dir, struct tl_arena *scratch)
{
    const struct tl_envelope *env = r->env;
    place(r, dir, scratch);
    r->kind = TL_K__COUNT;
    for (int k = 0; k < TL_K__COUNT; k++) {
        if (k != TL_K_RANK && k != TL_K_HAS_PAYLOAD && k != TL_K_STACK && k != TL_K_SUBGRAPH_NAME &&
            env->key[k]) {
            r->kind = (enum tl_key)k;
            break;
        }
    }
    const struct tl_json *v;
    if ((v = env->key[TL_K_COMPILATION_METRICS])) {
        struct tl_metrics *m = tl_arena_alloc(scratch, sizeof(*m));
        tl_metrics_decode(m, v, scratch);
        r->metrics = m;
    }
    if ((v = env->key[TL_K_BWD_COMPILATION_METRICS])) {
        struct tl_bwd_metrics *m = tl_arena_alloc(scratch, sizeof(*m));
        tl_bwd_metrics_decode(m, v);
        r->bwd_metrics = m;
    }
    if ((v = env->key[TL_K_AOT_AUTOGRAD_BACKWARD_COMPILATION_METRICS])) {
        struct tl_aot_bwd_metrics *m = tl_arena_alloc(scratch, sizeof(*m));
        tl_aot_bwd_metrics_decode(m, v);
        r->aot_bwd_metrics = m;
    }
    if ((v = env->key[TL_K_ARTIFACT])) {
        r->artifact_name = tl_env_str(v, "name");
        r->artifact_encoding = tl_env_str(v, "encoding");
    }
    if ((v = env->key[TL_K_LINK])) {
        r->link_name = tl_env_str(v, "name");
        r->link_url = tl_env_str(v, "url");
    }
    if ((v = env->key[TL_K_GRAPH_DUMP]))
        r->graph_dump_name = tl_env_str(v, "name");
    if ((v = env->key[TL_K_OPTIMIZE_DDP_SPLIT_CHILD]))
        r->split_child_name = tl_env_str(v, "name");
    if ((v = env->key[TL_K_DUMP_FILE]))
        r->dump_file_name = tl_env_str(v, "name");
    if ((v = env->key[TL_K_INDUCTOR_OUTPUT_CODE]))
        r->output_code_filename = tl_env_str(v, "filename");
}

void tl_record_wrote(struct tl_record *r, const struct tl_artifact *a, enum tl_key kind,
                     struct tl_str bytes, struct tl_arena *scratch)
{
    struct tl_record_file *f = tl_arena_calloc(scratch, 1, sizeof(*f));
    f->a = a;
    f->kind = kind;
    f->bytes = bytes;
    if (r->files_last)
        r->files_last->next = f;
    else
        r->files = f;
    r->files_last = f;
}
