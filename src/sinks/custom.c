/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's two doors onto the record stream, as sinks:
 *   - custom parsers (tl_options.parsers): each record with one of a parser's keys is shown
 *     to it as a public struct tl_entry; the files and links it adds go into the report
 *     through the same numbering and listing as the built-in parsers' (files.c);
 *   - tl_each_entry(): every record of the log, as a struct tl_entry, to a callback.
 * Both see only the usable records of the log's rank (TL_REC_OK).
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "sinks/files.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- the public view of a record ------------------------------------------------------------ */

/* A NUL-terminated copy in the entry's scratch arena. */
static const char *scratch_str(struct tl_sink_ctx *ctx, struct tl_str s)
{
    return s.p ? tl_arena_memdupz(ctx->scratch, s.p, s.n) : "";
}

/* The name a record's kind gives it (artifact, graph dump, dump file, ...), or "". */
static struct tl_str record_name(const struct tl_record *r)
{
    const struct tl_str names[] = {r->artifact_name,  r->graph_dump_name,      r->split_child_name,
                                   r->dump_file_name, r->output_code_filename, r->link_name};
    for (size_t i = 0; i < TL_ARRAY_LEN(names); i++)
        if (names[i].p)
            return names[i];
    return TL_STR_LIT("");
}

static void entry_of(struct tl_entry *e, struct tl_sink_ctx *ctx, const struct tl_record *r)
{
    memset(e, 0, sizeof(*e));
    const struct tl_envelope *env = r->env;
    e->line = r->lineno;
    if (r->kind < TL_K__COUNT)
        e->kind = tl_key_name(r->kind);
    else if (env && env->n_unknown)
        e->kind = scratch_str(ctx, env->unknown[0]);
    else
        e->kind = "";
    e->name = scratch_str(ctx, record_name(r));
    e->compile_id = r->display && r->cid_ok && r->cid.has ? r->display : "";
    e->folder = r->folder ? r->folder : "";
    const struct tl_compile_id *c = &r->cid;
    bool cid = r->cid_ok;
    e->frame_id = cid && (c->has & TL_CID_FRAME) ? (int64_t)c->frame : -1;
    e->frame_compile_id = cid && (c->has & TL_CID_FCID) ? (int64_t)c->fcid : -1;
    e->attempt = cid && (c->has & TL_CID_ATTEMPT) ? (int64_t)c->attempt : -1;
    const struct tl_json *rank = env ? env->key[TL_K_RANK] : NULL;
    e->rank = rank ? (int64_t)rank->u.num.u : -1;
    e->envelope = scratch_str(ctx, r->glog->envelope);
    e->envelope_len = r->glog->envelope.n;
    e->has_payload = r->has_payload;
    e->payload = r->has_payload ? scratch_str(ctx, r->payload) : "";
    e->payload_len = r->has_payload ? r->payload.n : 0;
}

/* ---- custom parsers ------------------------------------------------------------------------- */

/* One parser's keys: known ones by their index, the others by name. */
struct parser_keys {
    bool all;                   /* keys == NULL: every record */
    bool known[TL_K__COUNT];    /* its keys this tlparse knows */
    const char *const *unknown; /* the parser's list (the ones it does not know are looked up) */
};

struct custom {
    const struct tl_parser *parsers;
    size_t n;
    struct parser_keys *keys;
};

struct tl_parser_output {
    struct tl_sink_ctx *ctx;
    struct tl_record *rec;
    struct tl_err *err;
    int rc; /* -1 once a write failed */
};

static bool takes(const struct parser_keys *k, const struct tl_record *r)
{
    if (k->all)
        return true;
    for (size_t i = 0; i < TL_K__COUNT; i++)
        if (k->known[i] && tl_record_has(r, (enum tl_key)i))
            return true;
    const struct tl_envelope *env = r->env;
    for (size_t u = 0; k->unknown && env && u < env->n_unknown; u++)
        for (const char *const *key = k->unknown; *key; key++)
            if (tl_str_eq_cstr(env->unknown[u], *key))
                return true;
    return false;
}

static void *custom_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)params;
    struct custom *c = tl_xcalloc(1, sizeof(*c));
    c->parsers = ctx->report->parsers;
    c->n = ctx->report->nparsers;
    c->keys = tl_xcalloc(c->n ? c->n : 1, sizeof(*c->keys));
    for (size_t i = 0; i < c->n; i++) {
        struct parser_keys *k = &c->keys[i];
        k->all = !c->parsers[i].keys;
        k->unknown = c->parsers[i].keys;
        for (const char *const *key = k->unknown; key && *key; key++)
            for (size_t j = 0; j < TL_K__COUNT; j++)
                if (!strcmp(*key, tl_key_name((enum tl_key)j)))
                    k->known[j] = true;
    }
    return c;
}

static bool custom_wants_payload(void *self, const struct tl_record *r)
{
    struct custom *c = self;
    for (size_t i = 0; i < c->n; i++)
        if (takes(&c->keys[i], r))
            return true;
    return false;
}

static int custom_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                         struct tl_err *err)
{
    struct custom *c = self;
    if (r->status != TL_REC_OK)
        return 0;
    struct tl_entry e;
    bool have_entry = false;
    for (size_t i = 0; i < c->n; i++) {
        const struct tl_parser *p = &c->parsers[i];
        if (!p->parse || !takes(&c->keys[i], r))
            continue;
        if (!have_entry) {
            entry_of(&e, ctx, r);
            have_entry = true;
        }
        struct tl_parser_output out = {ctx, r, err, 0};
        int rc = p->parse(p->ctx, &e, &out);
        if (out.rc < 0)
            return -1;
        if (rc != 0) {
            ctx->stats->fail_parser++;
            tl_sink_warn(ctx, TL_W_PARSER, r->lineno, "Parser %s failed on this entry",
                         p->name ? p->name : "(unnamed)");
        }
    }
    return 0;
}

static void custom_destroy(void *self)
{
    struct custom *c = self;
    free(c->keys);
    free(c);
}

const struct tl_sink_ops tl_sink_custom = {
    .name = "custom",
    .wants_payload = custom_wants_payload,
    .create = custom_create,
    .record = custom_record,
    .destroy = custom_destroy,
};

int tl_parser_add_file(struct tl_parser_output *out, const char *name, const char *data, size_t len)
{
    if (out->rc < 0 || !name || !*name)
        return -1;
    out->rc = tl_files_emit_named(out->ctx, out->rec, tl_str_make(name, strlen(name)), data, len,
                                  out->err);
    return out->rc;
}

int tl_parser_add_payload_file(struct tl_parser_output *out, const char *name)
{
    return tl_parser_add_file(out, name, out->rec->payload.p, out->rec->payload.n);
}

int tl_parser_add_global_file(struct tl_parser_output *out, const char *name, const char *data,
                              size_t len)
{
    if (out->rc < 0 || !name || !*name)
        return -1;
    struct tl_buf safe = TL_BUF_INIT;
    tl_path_safe(&safe, tl_str_make(name, strlen(name)), true);
    out->rc = tl_outdir_write(out->ctx->out, safe.buf, data, len, NULL, out->err);
    tl_buf_release(&safe);
    return out->rc;
}

int tl_parser_add_link(struct tl_parser_output *out, const char *text, const char *url)
{
    if (out->rc < 0 || !text || !url)
        return -1;
    tl_files_add_link(out->ctx, out->rec, tl_str_make(text, strlen(text)),
                      tl_str_make(url, strlen(url)));
    return 0;
}

/* ---- tl_each_entry() ------------------------------------------------------------------------ */

static void *entries_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx;
    struct tl_entries_params *p = tl_xmalloc(sizeof(*p));
    *p = *(const struct tl_entries_params *)params;
    return p;
}

static int entries_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                          struct tl_err *err)
{
    const struct tl_entries_params *p = self;
    if (r->status != TL_REC_OK)
        return 0;
    struct tl_entry e;
    entry_of(&e, ctx, r);
    if (p->fn(p->ctx, &e) != 0)
        return tl_error_code(err, TL_ERR_STOP, "stopped by the entry callback");
    return 0;
}

static void entries_destroy(void *self)
{
    free(self);
}

/* Every payload: the callback may want any. */
const struct tl_sink_ops tl_sink_entries = {
    .name = "entries",
    .create = entries_create,
    .record = entries_record,
    .destroy = entries_destroy,
};
