/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inductor provenance tracking (-i, spec modes.md §3), as a consumer of records: at the end
 * of the log, for every compile-directory key, provenance_tracking_<folder>.html at the top
 * of the report. Its inputs are files the report already wrote (spec §3.1): for each role
 * the most recent file of the folder whose name starts with the role's pattern, read back
 * from the report folder, one folder at a time, so memory holds one compile's texts at most.
 * The generated Python is taken from the raw payload (payloads/<md5>.txt, or the .txt of
 * --plain-text), not from the highlighted page, so both modes give the same mappings. This
 * consumer comes after the payloads consumer, which names that file.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "model/provenance.h"
#include "report/pages.h"

#include <stdlib.h>
#include <string.h>

/* The files a page is made of. */
enum role {
    ROLE_PRE,
    ROLE_POST,
    ROLE_PY,
    ROLE_CPP,
    ROLE_MAPPINGS,
    ROLE__COUNT,
};

/* File-name patterns per role, the first with any file wins (spec §3.1 table). */
static const char *const patterns[ROLE__COUNT][2] = {
    [ROLE_PRE] = {"before_pre_grad_graph", "inductor_pre_grad_graph"},
    [ROLE_POST] = {"after_post_grad_graph", "inductor_post_grad_graph"},
    [ROLE_PY] = {"inductor_output_code", NULL},
    [ROLE_CPP] = {"inductor_aot_wrapper_code", NULL},
    [ROLE_MAPPINGS] = {"inductor_provenance_tracking_node_mappings", NULL},
};

/* A folder's most recent file per role and pattern. */
struct found {
    const struct tl_artifact *a[ROLE__COUNT][2];
};

/* Texts bigger than this are left out of a page (a warning says so). */
#define MAX_TEXT ((size_t)512 << 20)

struct prov {
    struct tl_buf page; /* the page being written */
    struct tl_arena arena;
    struct tl_map raw_code; /* highlighted output-code page -> its raw payload's path */
};

static void *prov_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx, (void)params;
    struct prov *p = tl_xcalloc(1, sizeof(*p));
    tl_buf_init(&p->page, 0);
    tl_arena_init(&p->arena, 16 * 1024);
    tl_map_init(&p->raw_code, &p->arena);
    return p;
}

static bool prov_wants_payload(void *self, const struct tl_record *r)
{
    (void)self, (void)r;
    return false; /* it reads files of the report, not payloads */
}

/* An output-code record: the page the report wrote (the key's last file) and the file that
 * holds the raw code (set by the payloads consumer). */
static int prov_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_err *err)
{
    (void)err;
    struct prov *p = self;
    if (ctx->opt->plain_text || !tl_record_has(r, TL_K_INDUCTOR_OUTPUT_CODE) || !r->key ||
        !r->key->last || !r->payload_file.len)
        return 0;
    const char *page = r->key->last->url;
    struct tl_map_entry *e = tl_map_upsert(&p->raw_code, tl_str_make(page, strlen(page)), NULL);
    e->value = tl_arena_memdupz(&p->arena, r->payload_file.buf, r->payload_file.len);
    return 0;
}

/* The folder of a file ("-_0_0_0" of "-_0_0_0/x.txt") and the name within it. */
static bool split_url(const char *url, struct tl_str *folder, const char **name)
{
    const char *slash = strchr(url, '/');
    if (!slash)
        return false;
    *folder = tl_str_make(url, (size_t)(slash - url));
    *name = slash + 1;
    return true;
}

/* For every folder, its most recent file of each role. */
static void find_files(const struct tl_directory *dir, struct tl_map *folders,
                       struct tl_arena *arena)
{
    size_t nkeys = tl_map_len(&dir->keys);
    for (size_t i = 0; i < nkeys; i++) {
        const struct tl_dirkey *k = tl_map_at(&dir->keys, i)->value;
        for (const struct tl_artifact *a = k->first; a; a = a->next) {
            struct tl_str folder;
            const char *name;
            if (a->is_link || !split_url(a->url, &folder, &name))
                continue;
            for (int role = 0; role < ROLE__COUNT; role++)
                for (int pat = 0; pat < 2 && patterns[role][pat]; pat++) {
                    const char *want = patterns[role][pat];
                    if (strncmp(name, want, strlen(want)))
                        continue;
                    struct tl_map_entry *e = tl_map_upsert(folders, folder, NULL);
                    if (!e->value)
                        e->value = tl_arena_calloc(arena, 1, sizeof(struct found));
                    struct found *f = e->value;
                    if (!f->a[role][pat] || f->a[role][pat]->number < a->number)
                        f->a[role][pat] = a;
                }
        }
    }
}

/* The file of a role: the first pattern's most recent one, else the second's. */
static const char *role_file(struct prov *p, const struct found *f, enum role role)
{
    if (!f)
        return NULL;
    const struct tl_artifact *a = f->a[role][0] ? f->a[role][0] : f->a[role][1];
    if (!a)
        return NULL;
    if (role == ROLE_PY) {
        const char *raw = tl_map_get(&p->raw_code, tl_str_make(a->url, strlen(a->url)));
        if (raw)
            return raw;
    }
    return a->url;
}

/* Read a role's file into buf (left empty when there is none or it cannot be read). */
static void read_role(struct prov *p, struct tl_sink_ctx *ctx, const struct found *f,
                      enum role role, struct tl_buf *buf)
{
    const char *rel = role_file(p, f, role);
    struct tl_err err = {TL_ERR_NONE, ""};
    if (rel && tl_outdir_read(ctx->out, rel, buf, MAX_TEXT, &err) < 0) {
        tl_buf_reset(buf);
        tl_sink_warn(ctx, TL_W_OTHER, 0, "provenance tracking: %s", err.msg);
    }
}

/* provenance_tracking_<folder>.html of one key. */
static int folder_page(struct prov *p, struct tl_sink_ctx *ctx, const char *folder,
                       const struct found *f, struct tl_err *err)
{
    struct tl_buf text[ROLE__COUNT];
    for (int i = 0; i < ROLE__COUNT; i++) {
        tl_buf_init(&text[i], 0);
        read_role(p, ctx, f, (enum role)i, &text[i]);
    }
    struct tl_arena arena;
    tl_arena_init(&arena, 64 * 1024);
    struct tl_json mappings;
    bool have =
        text[ROLE_MAPPINGS].len && tl_json_parse(&arena, text[ROLE_MAPPINGS].buf,
                                                 text[ROLE_MAPPINGS].len, &mappings, NULL) == 0;
    struct tl_prov_input in = {
        .pre = tl_buf_str(&text[ROLE_PRE]),
        .post = tl_buf_str(&text[ROLE_POST]),
        .py_code = tl_buf_str(&text[ROLE_PY]),
        .cpp_code = tl_buf_str(&text[ROLE_CPP]),
        .mappings = have ? &mappings : NULL,
    };
    struct tl_prov_result res;
    tl_prov_compute(&in, &arena, &res);
    struct tl_prov_page page = {folder, in.pre, in.post, &res};
    tl_buf_reset(&p->page);
    tl_page_provenance(&p->page, &page);
    struct tl_buf name = TL_BUF_INIT;
    tl_buf_adds(&name, "provenance_tracking_");
    tl_path_safe(&name, tl_str_make(folder, strlen(folder)), false);
    tl_buf_adds(&name, ".html");
    int rc = tl_outdir_write(ctx->out, name.buf, p->page.buf, p->page.len, NULL, err);
    tl_buf_release(&name);
    tl_arena_release(&arena);
    for (int i = 0; i < ROLE__COUNT; i++)
        tl_buf_release(&text[i]);
    return rc;
}

/* A page for every key of the directory, in its order (spec §3.2). */
static int prov_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct prov *p = self;
    const struct tl_directory *dir = &ctx->model->dir;
    struct tl_map folders;
    tl_map_init(&folders, &p->arena);
    find_files(dir, &folders, &p->arena);
    struct tl_buf folder = TL_BUF_INIT;
    int rc = 0;
    size_t nkeys = tl_map_len(&dir->keys);
    for (size_t i = 0; rc == 0 && i < nkeys; i++) {
        const struct tl_dirkey *k = tl_map_at(&dir->keys, i)->value;
        tl_buf_reset(&folder);
        tl_dirkey_folder(&folder, k);
        const struct found *f = tl_map_get(&folders, tl_buf_str(&folder));
        rc = folder_page(p, ctx, folder.buf, f, err);
    }
    tl_buf_release(&folder);
    tl_map_release(&folders);
    return rc;
}

static void prov_destroy(void *self)
{
    struct prov *p = self;
    tl_map_release(&p->raw_code);
    tl_buf_release(&p->page);
    tl_arena_release(&p->arena);
    free(p);
}

const struct tl_sink_ops tl_sink_provenance = {
    .name = "provenance",
    .wants_payload = prov_wants_payload,
    .create = prov_create,
    .record = prov_record,
    .finish = prov_finish,
    .destroy = prov_destroy,
};
