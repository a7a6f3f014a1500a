/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inductor provenance tracking (-i, spec modes.md §3), as a sink of records: at the end of
 * the log, for every compile-directory key, provenance_tracking_<folder>.html at the top of
 * the report. Its inputs are the files the report wrote (spec §3.1): for each role the most
 * recent file of the folder whose name starts with the role's pattern. Their texts are what
 * the report says it wrote of each record as it passes (tl_record_wrote), never read back. The
 * generated Python is the raw payload, not the highlighted page, so both modes give the same
 * mappings. This sink comes after the ones that write files.
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

/* Texts bigger than this are left out of a page (a warning says so). */
#define MAX_TEXT ((size_t)512 << 20)

/*
 * A folder's latest text per role and pattern, as the report wrote it (or, for the generated
 * Python, its raw payload). What this costs: for every compile folder that has provenance
 * inputs, one text per role (the second pattern's only until the first pattern has a file),
 * i.e. its latest pre- and post-grad graphs, output code, wrapper code and node mappings;
 * older versions of a role are freed as newer ones pass. Nothing else of the log is kept.
 */
struct slot {
    struct tl_buf text[ROLE__COUNT][2];
    uint32_t number[ROLE__COUNT][2];
    bool have[ROLE__COUNT][2];
};

struct prov {
    struct tl_buf page; /* the page being written */
    struct tl_arena arena;
    struct tl_map folders; /* url folder -> struct slot */
};

static void *prov_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx, (void)params;
    struct prov *p = tl_xcalloc(1, sizeof(*p));
    tl_buf_init(&p->page, 0);
    tl_arena_init(&p->arena, 16 * 1024);
    tl_map_init(&p->folders, &p->arena);
    return p;
}

/* The generated Python (role_text); the files come from the report, which reads every
 * payload. */
static bool prov_wants_payload(void *self, const struct tl_record *r)
{
    (void)self;
    return tl_record_has(r, TL_K_INDUCTOR_OUTPUT_CODE);
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

struct seen_arg {
    struct prov *p;
    struct tl_sink_ctx *ctx;
    const struct tl_record *r;
};

/* The text of a role's file: the generated Python's raw payload when the report wrote it
 * highlighted (the key's last file of an output-code record whose payload has a file of its
 * own), else what the report wrote. */
static void role_text(const struct seen_arg *s, const struct tl_record_file *f, enum role role,
                      struct tl_buf *out)
{
    const struct tl_record *r = s->r;
    if (role == ROLE_PY && !s->ctx->report->plain_text &&
        tl_record_has(r, TL_K_INDUCTOR_OUTPUT_CODE) && r->key->last == f->a &&
        r->payload_file.len) {
        tl_buf_add(out, r->payload.p, r->payload.n);
        return;
    }
    tl_buf_add(out, f->bytes.p, f->bytes.n);
}

/* A file of the record: the latest of its folder for the roles whose pattern it starts with. */
static void seen_file(struct seen_arg *s, const struct tl_record_file *f)
{
    const struct tl_artifact *a = f->a;
    struct tl_str folder;
    const char *name;
    if (!split_url(a->url, &folder, &name))
        return;
    for (int role = 0; role < ROLE__COUNT; role++)
        for (int pat = 0; pat < 2 && patterns[role][pat]; pat++) {
            const char *want = patterns[role][pat];
            if (strncmp(name, want, strlen(want)))
                continue;
            struct tl_map_entry *e = tl_map_upsert(&s->p->folders, folder, NULL);
            if (!e->value) {
                struct slot *sl = tl_arena_calloc(&s->p->arena, 1, sizeof(*sl));
                for (int i = 0; i < ROLE__COUNT; i++) {
                    tl_buf_init(&sl->text[i][0], 0);
                    tl_buf_init(&sl->text[i][1], 0);
                }
                e->value = sl;
            }
            struct slot *sl = e->value;
            if (pat == 1 && sl->have[role][0])
                continue; /* the first pattern wins */
            if (sl->have[role][pat] && sl->number[role][pat] >= a->number)
                continue;
            sl->have[role][pat] = true;
            sl->number[role][pat] = a->number;
            tl_buf_reset(&sl->text[role][pat]);
            role_text(s, f, (enum role)role, &sl->text[role][pat]);
            if (sl->text[role][pat].len > MAX_TEXT) {
                tl_buf_release(&sl->text[role][pat]);
                tl_sink_warn(s->ctx, TL_W_OTHER, 0, "provenance tracking: %s is too big", a->url);
            }
            if (pat == 0)
                tl_buf_release(&sl->text[role][1]);
        }
}

static int prov_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_err *err)
{
    (void)err;
    struct seen_arg s = {self, ctx, r};
    for (const struct tl_record_file *f = r->files; f; f = f->next)
        seen_file(&s, f);
    return 0;
}

/* The text of a role: the first pattern's latest, else the second's (empty: none). */
static struct tl_str role_of(const struct slot *sl, enum role role)
{
    if (!sl)
        return tl_str_make("", 0);
    const struct tl_buf *b = sl->have[role][0] ? &sl->text[role][0] : &sl->text[role][1];
    return tl_buf_str(b);
}

/* provenance_tracking_<folder>.html of one key. */
static int folder_page(struct prov *p, struct tl_sink_ctx *ctx, const char *folder,
                       const struct slot *sl, struct tl_err *err)
{
    struct tl_arena arena;
    tl_arena_init(&arena, 64 * 1024);
    struct tl_json mappings;
    struct tl_str map = role_of(sl, ROLE_MAPPINGS);
    bool have = map.n && tl_json_parse(&arena, map.p, map.n, &mappings, NULL) == 0;
    struct tl_prov_input in = {
        .pre = role_of(sl, ROLE_PRE),
        .post = role_of(sl, ROLE_POST),
        .py_code = role_of(sl, ROLE_PY),
        .cpp_code = role_of(sl, ROLE_CPP),
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
    return rc;
}

/* A page for every key of the directory, in its order (spec §3.2). */
static int prov_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct prov *p = self;
    const struct tl_directory *dir = &ctx->model->dir;
    struct tl_buf folder = TL_BUF_INIT;
    int rc = 0;
    size_t nkeys = tl_map_len(&dir->keys);
    for (size_t i = 0; rc == 0 && i < nkeys; i++) {
        const struct tl_dirkey *k = tl_map_at(&dir->keys, i)->value;
        tl_buf_reset(&folder);
        tl_dirkey_folder(&folder, k);
        const struct slot *sl = tl_map_get(&p->folders, tl_buf_str(&folder));
        rc = folder_page(p, ctx, folder.buf, sl, err);
    }
    tl_buf_release(&folder);
    return rc;
}

static void prov_destroy(void *self)
{
    struct prov *p = self;
    for (size_t i = 0; i < tl_map_len(&p->folders); i++) {
        struct slot *sl = tl_map_at(&p->folders, i)->value;
        for (int r = 0; r < ROLE__COUNT; r++) {
            tl_buf_release(&sl->text[r][0]);
            tl_buf_release(&sl->text[r][1]);
        }
    }
    tl_map_release(&p->folders);
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
