/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank of a multi-rank run (spec modes.md §1), as a consumer: at the end of the rank's log
 * it computes what the landing page needs from it (struct tl_rank_summary) from the rank's
 * own report, as the reference reads it back: the compile directory (compile ids, cache
 * sequence, which folder belongs to which compile id, cache status, the execution order)
 * and, folder by folder, the runtime, tensor-metadata and collective-schedule artifacts; and
 * it writes the rank's collectives_parity.json (§1.11). A malformed artifact is noted in the
 * summary and skipped, never fatal.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "base/json.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "report/landing.h"
#include "report/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest artifact file read back (output code included). */
#define MAX_READ ((size_t)256 << 20)

struct rank {
    struct tl_arena *arena; /* the summary's: the caller's */
    struct tl_rank_summary *s;
    struct tl_buf notes;      /* what could not be read, for the landing page */
    uint64_t chromium_events; /* the rank's chromium events that are JSON */
};

static const char *sdup(struct rank *rk, const char *p, size_t n)
{
    return tl_arena_memdupz(rk->arena, p, n);
}

static const char *sdupc(struct rank *rk, const char *s)
{
    return s ? sdup(rk, s, strlen(s)) : NULL;
}

/* "folder/file what", for the landing page. */
static void note(struct rank *rk, const char *folder, const char *file, const char *what)
{
    if (rk->notes.len)
        tl_buf_adds(&rk->notes, "; ");
    tl_buf_addf(&rk->notes, "%s/%s %s", folder, file, what);
}

/* ---- from the compile directory ------------------------------------------------------------ */

struct key_ref {
    const char *name; /* "unknown" or the display form */
    const struct tl_dirkey *key;
};

static int cmp_key(const void *a, const void *b)
{
    return strcmp(((const struct key_ref *)a)->name, ((const struct key_ref *)b)->name);
}

/* compile_directory.json's keys in ascending byte order (§1.11 step 1). */
static struct key_ref *sorted_keys(const struct tl_directory *dir, size_t *n)
{
    *n = tl_map_len(&dir->keys);
    struct key_ref *v = tl_xcalloc(*n ? *n : 1, sizeof(*v));
    for (size_t i = 0; i < *n; i++) {
        v[i].key = tl_map_at(&dir->keys, i)->value;
        v[i].name = v[i].key->unknown ? "unknown" : v[i].key->display;
    }
    qsort(v, *n, sizeof(*v), cmp_key);
    return v;
}

static void compile_ids(struct rank *rk, const struct key_ref *keys, size_t n)
{
    const char **ids = tl_arena_alloc(rk->arena, (n ? n : 1) * sizeof(*ids));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(keys[i].name, "unknown", 7) != 0)
            ids[k++] = sdupc(rk, keys[i].name);
    rk->s->compile_ids = ids;
    rk->s->ncompile_ids = k;
}

struct numbered {
    uint32_t number;
    uint8_t suffix;
    size_t order; /* for a stable sort */
};

static int cmp_numbered(const void *a, const void *b)
{
    const struct numbered *x = a, *y = b;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Every suffix of every artifact, by number (§1.6). */
static void cache_sequence(struct rank *rk, const struct tl_directory *dir)
{
    struct numbered *v = NULL;
    size_t len = 0, alloc = 0;
    for (size_t i = 0; i < tl_map_len(&dir->keys); i++) {
        const struct tl_dirkey *k = tl_map_at(&dir->keys, i)->value;
        for (const struct tl_artifact *a = k->first; a; a = a->next) {
            if (a->suffix == TL_SUFFIX_NONE)
                continue;
            TL_GROW(v, len + 1, alloc);
            v[len] = (struct numbered){a->number, a->suffix, len};
            len++;
        }
    }
    if (len)
        qsort(v, len, sizeof(*v), cmp_numbered);
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = 0; i < len; i++)
        tl_buf_adds(&b, tl_cache_suffix_text(v[i].suffix));
    rk->s->cache_sequence = sdup(rk, b.buf, b.len);
    tl_buf_release(&b);
    free(v);
}

/* The folder of an artifact url: the text before its first '/'. */
static struct tl_str folder_of(const char *url)
{
    const char *slash = strchr(url, '/');
    return slash ? tl_str_make(url, (size_t)(slash - url)) : TL_STR_NULL;
}

static const char *last_segment(const char *name)
{
    const char *slash = strrchr(name, '/');
    return slash ? slash + 1 : name;
}

static int cmp_folder(const void *a, const void *b)
{
    return strcmp(((const struct tl_rank_folder *)a)->folder,
                  ((const struct tl_rank_folder *)b)->folder);
}

/* Which key each folder belongs to (first key in byte order wins), and the folder's cache
 * status (the highest of miss 3, hit 2, bypass 1 among its artifacts' names). */
static void folders(struct rank *rk, const struct key_ref *keys, size_t nkeys, char **names,
                    size_t nnames, struct tl_outdir *out)
{
    struct tl_rank_folder *f = tl_arena_calloc(rk->arena, nnames ? nnames : 1, sizeof(*f));
    int *prio = tl_xcalloc(nnames ? nnames : 1, sizeof(*prio));
    size_t k = 0;
    for (size_t i = 0; i < nnames; i++)
        if (tl_outdir_is_dir(out, names[i]))
            f[k++].folder = sdupc(rk, names[i]);
    for (size_t i = 0; i < nkeys; i++) {
        for (const struct tl_artifact *a = keys[i].key->first; a; a = a->next) {
            struct tl_str fo = folder_of(a->url);
            if (!fo.p || a->is_link)
                continue;
            for (size_t j = 0; j < k; j++) {
                if (!tl_str_eq_cstr(fo, f[j].folder))
                    continue;
                if (!f[j].key)
                    f[j].key = sdupc(rk, keys[i].name);
                const char *nm = last_segment(a->name);
                int p = strstr(nm, "cache_miss")     ? 3
                        : strstr(nm, "cache_hit")    ? 2
                        : strstr(nm, "cache_bypass") ? 1
                                                     : 0;
                if (p > prio[j]) {
                    prio[j] = p;
                    f[j].cache_status = p == 3 ? "miss" : p == 2 ? "hit" : "bypass";
                }
            }
        }
    }
    free(prio);
    qsort(f, k, sizeof(*f), cmp_folder); /* the listing's order does not matter here */
    rk->s->folders = f;
    rk->s->nfolders = k;
}

/* The order of the graph_execution artifact with the largest number (§1.13 step 1). */
static void exec_order(struct rank *rk, const struct tl_directory *dir, struct tl_outdir *out,
                       struct tl_arena *scratch)
{
    const struct tl_artifact *best = NULL;
    for (size_t i = 0; i < tl_map_len(&dir->keys); i++) {
        const struct tl_dirkey *k = tl_map_at(&dir->keys, i)->value;
        for (const struct tl_artifact *a = k->first; a; a = a->next) {
            const char *nm = last_segment(a->name);
            size_t n = strlen(nm);
            if (!a->is_link && strstr(nm, "graph_execution") && n >= 5 &&
                !strcmp(nm + n - 5, ".json") && (!best || a->number > best->number))
                best = a;
        }
    }
    struct tl_buf text = TL_BUF_INIT;
    struct tl_json v;
    const struct tl_json *order;
    if (!best || tl_outdir_read(out, best->url, &text, MAX_READ, NULL) < 0 ||
        tl_json_parse(scratch, text.buf, text.len, &v, NULL) < 0 || v.type != TL_JSON_OBJECT ||
        !(order = tl_json_get(&v, "graph_execution_order")) || order->type != TL_JSON_ARRAY) {
        tl_buf_release(&text);
        return;
    }
    const char **ids =
        tl_arena_alloc(rk->arena, (order->u.arr.n ? order->u.arr.n : 1) * sizeof(*ids));
    size_t k = 0;
    for (size_t i = 0; i < order->u.arr.n; i++) {
        const struct tl_json *e = &order->u.arr.items[i];
        if (e->type == TL_JSON_OBJECT)
            e = tl_json_get(e, "compile_id");
        if (!e || e->type != TL_JSON_STRING)
            continue;
        struct tl_buf w = TL_BUF_INIT;
        tl_buf_addch(&w, '[');
        tl_buf_add_nonul(&w, e->u.str.p, e->u.str.n);
        tl_buf_addch(&w, ']');
        ids[k++] = sdup(rk, w.buf, w.len);
        tl_buf_release(&w);
    }
    rk->s->has_exec_order = true;
    rk->s->exec_order = ids;
    rk->s->nexec_order = k;
    tl_buf_release(&text);
}

/* ---- folder by folder ---------------------------------------------------------------------- */

/* Whether name is "<prefix>....json" (a stem starting with prefix). */
static bool json_with_stem(const char *name, const char *prefix)
{
    size_t n = strlen(name), pl = strlen(prefix);
    return n > 5 && !strcmp(name + n - 5, ".json") && !strncmp(name, prefix, pl) && n - 5 >= pl;
}

static bool stem_starts(const char *name, const char *prefix)
{
    return !strncmp(name, prefix, strlen(prefix));
}

struct found {
    const char *runtime, *schedule, *parity_schedule, *code;
};

static void find_files(char **names, size_t n, struct found *f)
{
    memset(f, 0, sizeof(*f));
    for (size_t i = 0; i < n; i++) {
        if (!f->runtime && json_with_stem(names[i], "inductor_runtime_and_tensor_meta"))
            f->runtime = names[i];
        if (json_with_stem(names[i], "inductor_collective_schedule")) {
            if (!f->schedule)
                f->schedule = names[i];
            f->parity_schedule = names[i]; /* the last */
        }
        if (!f->code && stem_starts(names[i], "inductor_output_code"))
            f->code = names[i];
    }
}

static int read_json(struct tl_outdir *out, const char *folder, const char *file,
                     struct tl_arena *scratch, struct tl_buf *text, struct tl_json *v)
{
    char rel[4200];
    snprintf(rel, sizeof(rel), "%s/%s", folder, file);
    tl_buf_reset(text);
    if (tl_outdir_read(out, rel, text, MAX_READ, NULL) < 0)
        return -1;
    return tl_json_parse(scratch, text->buf, text->len, v, NULL);
}

/* inductor_runtime_and_tensor_meta: a runtime record (ops not empty) and a fingerprint. */
static void runtime_file(struct rank *rk, const char *folder, const struct tl_json *v,
                         struct tl_rank_runtime *rt, size_t *nrt, struct tl_rank_meta *meta,
                         size_t *nmeta, const char *file)
{
    struct tl_buf fp = TL_BUF_INIT;
    tl_json_write_compact(&fp, v);
    meta[*nmeta].graph = sdupc(rk, folder);
    meta[*nmeta].fingerprint = sdup(rk, fp.buf, fp.len);
    (*nmeta)++;
    tl_buf_release(&fp);
    const struct tl_json *ops = v->type == TL_JSON_OBJECT ? tl_json_get(v, "ops") : NULL;
    if (!ops || ops->type != TL_JSON_ARRAY) {
        note(rk, folder, file, "has no ops list");
        return;
    }
    if (!ops->u.arr.n)
        return;
    struct tl_rank_op *o = tl_arena_calloc(rk->arena, ops->u.arr.n, sizeof(*o));
    size_t k = 0;
    for (size_t i = 0; i < ops->u.arr.n; i++) {
        const struct tl_json *op = &ops->u.arr.items[i];
        const struct tl_json *name = op->type == TL_JSON_OBJECT ? tl_json_get(op, "name") : NULL;
        const struct tl_json *ns =
            op->type == TL_JSON_OBJECT ? tl_json_get(op, "estimated_runtime_ns") : NULL;
        if (!name || name->type != TL_JSON_STRING || !ns || ns->type != TL_JSON_NUMBER) {
            note(rk, folder, file, "has an op without name or estimated_runtime_ns");
            return; /* the reference rejects the whole file */
        }
        struct tl_buf nm = TL_BUF_INIT;
        tl_buf_add_nonul(&nm, name->u.str.p, name->u.str.n);
        o[k].name = sdup(rk, nm.buf, nm.len);
        o[k].estimated_runtime_ns = ns->u.num.d;
        k++;
        tl_buf_release(&nm);
    }
    rt[*nrt].graph = sdupc(rk, folder);
    rt[*nrt].ops = o;
    rt[*nrt].nops = k;
    (*nrt)++;
}

/* inductor_collective_schedule: an array of op names (§1.10); returns -1 when malformed. */
static int string_list(struct rank *rk, const struct tl_json *v, const char ***ops, size_t *n)
{
    if (v->type != TL_JSON_ARRAY)
        return -1;
    const char **o = tl_arena_alloc(rk->arena, (v->u.arr.n ? v->u.arr.n : 1) * sizeof(*o));
    for (size_t i = 0; i < v->u.arr.n; i++) {
        const struct tl_json *e = &v->u.arr.items[i];
        if (e->type != TL_JSON_STRING)
            return -1;
        struct tl_buf nm = TL_BUF_INIT;
        tl_buf_add_nonul(&nm, e->u.str.p, e->u.str.n);
        o[i] = sdup(rk, nm.buf, nm.len);
        tl_buf_release(&nm);
    }
    *ops = o;
    *n = v->u.arr.n;
    return 0;
}

/* The collectives parity of a folder (§1.11 steps 2-7). */
static bool parity(struct tl_outdir *out, const char *folder, const struct found *f,
                   struct tl_arena *scratch, struct tl_buf *text, uint64_t *offset,
                   uint64_t *missing)
{
    if (!f->parity_schedule || !f->code)
        return false;
    struct tl_parity_counts sched, code;
    memset(&sched, 0, sizeof(sched));
    memset(&code, 0, sizeof(code));
    struct tl_json v;
    if (read_json(out, folder, f->parity_schedule, scratch, text, &v) == 0 &&
        v.type == TL_JSON_ARRAY) {
        for (size_t i = 0; i < v.u.arr.n; i++) {
            const struct tl_json *e = &v.u.arr.items[i];
            if (e->type != TL_JSON_STRING)
                continue;
            struct tl_buf nm = TL_BUF_INIT;
            tl_buf_add_nonul(&nm, e->u.str.p, e->u.str.n);
            const char *p = nm.buf;
            tl_parity_schedule(&sched, &p, 1);
            tl_buf_release(&nm);
        }
    }
    char rel[4200];
    snprintf(rel, sizeof(rel), "%s/%s", folder, f->code);
    tl_buf_reset(text);
    if (tl_outdir_read(out, rel, text, MAX_READ, NULL) == 0)
        tl_parity_code(&code, text->buf, text->len);
    tl_parity_compare(&sched, &code, offset, missing);
    return *offset > 0 || *missing > 0;
}

static const char *key_of(const struct tl_rank_summary *s, const char *folder)
{
    for (size_t i = 0; i < s->nfolders; i++)
        if (!strcmp(s->folders[i].folder, folder))
            return s->folders[i].key;
    return NULL;
}

/* Folder by folder: runtime, tensor meta, schedules, parity. */
static int artifacts(struct rank *rk, struct tl_sink_ctx *ctx, char **names, size_t nnames,
                     struct tl_err *err)
{
    struct tl_rank_summary *s = rk->s;
    size_t cap = nnames ? nnames : 1;
    struct tl_rank_runtime *rt = tl_arena_calloc(rk->arena, cap, sizeof(*rt));
    struct tl_rank_meta *meta = tl_arena_calloc(rk->arena, cap, sizeof(*meta));
    struct tl_rank_schedule *sch = tl_arena_calloc(rk->arena, cap, sizeof(*sch));
    struct tl_parity_entry *par = tl_xcalloc(cap, sizeof(*par));
    size_t nrt = 0, nmeta = 0, nsch = 0, npar = 0;
    struct tl_buf text = TL_BUF_INIT;
    bool fs_order = !ctx->opt->name_order;
    for (size_t i = 0; i < nnames; i++) {
        if (!tl_outdir_is_dir(ctx->out, names[i]))
            continue;
        char **files;
        size_t nfiles;
        if (tl_outdir_list(ctx->out, names[i], fs_order, &files, &nfiles) < 0)
            continue;
        struct found f;
        find_files(files, nfiles, &f);
        struct tl_json v;
        if (f.runtime) {
            if (read_json(ctx->out, names[i], f.runtime, ctx->scratch, &text, &v) == 0)
                runtime_file(rk, names[i], &v, rt, &nrt, meta, &nmeta, f.runtime);
            else
                note(rk, names[i], f.runtime, "is not valid JSON");
        }
        if (f.schedule) {
            if (read_json(ctx->out, names[i], f.schedule, ctx->scratch, &text, &v) == 0 &&
                string_list(rk, &v, &sch[nsch].ops, &sch[nsch].nops) == 0) {
                if (sch[nsch].nops)
                    sch[nsch++].graph = sdupc(rk, names[i]);
            } else {
                note(rk, names[i], f.schedule, "is not a list of op names");
            }
        }
        uint64_t off, miss;
        if (parity(ctx->out, names[i], &f, ctx->scratch, &text, &off, &miss)) {
            const char *key = key_of(s, names[i]);
            par[npar++] =
                (struct tl_parity_entry){sdupc(rk, names[i]), key ? key : "unknown", off, miss};
        }
        tl_outdir_list_free(files, nfiles);
        tl_arena_reset(ctx->scratch);
    }
    s->runtime = rt;
    s->nruntime = nrt;
    s->meta = meta;
    s->nmeta = nmeta;
    s->schedules = sch;
    s->nschedules = nsch;
    tl_buf_reset(&text);
    tl_parity_json(&text, par, npar);
    int rc = tl_outdir_write(ctx->out, "collectives_parity.json", text.buf, text.len, NULL, err);
    tl_buf_release(&text);
    free(par);
    return rc;
}

/* " fn at file:line [0/1]" into b: where a finding of a rank was. */
static void where_of(struct tl_buf *b, const char *function, const struct tl_diag_loc *l,
                     const char *cid)
{
    struct tl_buf at = TL_BUF_INIT;
    tl_summary_loc(&at, l);
    if (function)
        tl_buf_addf(b, "%s", function);
    if (at.len)
        tl_buf_addf(b, "%sat %s", function ? " " : "", at.buf);
    if (cid)
        tl_buf_addf(b, " %s", cid);
    tl_buf_release(&at);
}

/* The first (most counted) recompile, break, failure and limit of the rank, in a line each:
 * what the landing page says a diverging rank did. */
static void diag_details(struct rank *rk, struct tl_rank_diag *c, const struct tl_diag *d)
{
    struct tl_buf b = TL_BUF_INIT;
    const struct tl_diag_recompile *rc = NULL;
    for (uint32_t i = 0; i < d->nrecompiles; i++)
        if (!rc || d->recompiles[i].count > rc->count)
            rc = &d->recompiles[i];
    if (rc) {
        where_of(&b, rc->function, &rc->where, rc->cids.kept ? rc->cids.s[0] : NULL);
        if (rc->nguards) {
            /* the most frequent reason: they are sorted only once the diagnosis is finished */
            const struct tl_diag_guard *g = &rc->guards[0];
            for (uint32_t k = 1; k < rc->nguards; k++)
                if (rc->guards[k].count > g->count)
                    g = &rc->guards[k];
            tl_buf_addf(&b, ": %s", g->example ? g->example : g->guard);
        }
        c->detail[0] = sdup(rk, b.buf, b.len);
    }
    const struct tl_diag_break *br = NULL;
    for (uint32_t i = 0; i < d->nbreaks; i++)
        if (!br || d->breaks[i].count > br->count)
            br = &d->breaks[i];
    if (br) {
        tl_buf_reset(&b);
        tl_buf_addf(&b, "%s", br->reason);
        if (br->nlocs) {
            tl_buf_adds(&b, " (");
            where_of(&b, br->locs[0].function, &br->locs[0], br->cids.kept ? br->cids.s[0] : NULL);
            tl_buf_addch(&b, ')');
        }
        c->detail[1] = sdup(rk, b.buf, b.len);
    }
    if (d->nfailures) {
        const struct tl_diag_failure *f = &d->failures[0];
        tl_buf_reset(&b);
        tl_buf_addf(&b, "%s %s", f->cid ? f->cid : "", f->type ? f->type : "failure");
        if (f->where.file) {
            tl_buf_adds(&b, " ");
            where_of(&b, f->where.function, &f->where, NULL);
        }
        c->detail[2] = sdup(rk, b.buf, b.len);
    }
    if (d->nlimits) {
        const struct tl_diag_limit *l = &d->limits[0];
        tl_buf_reset(&b);
        where_of(&b, l->function, &l->where, l->cid);
        tl_buf_addf(&b, ": %s", l->limit_name ? l->limit_name : "recompile limit");
        if (l->limit)
            tl_buf_addf(&b, " (%llu)", (unsigned long long)l->limit);
        c->detail[3] = sdup(rk, b.buf, b.len);
    }
    tl_buf_release(&b);
}

static void diag_counts(struct rank *rk, struct tl_rank_diag *c, const struct tl_diag *d)
{
    struct tl_diag_counts n;
    tl_diag_counts(d, &n);
    c->recompiles = (uint32_t)n.recompiles;
    c->graph_breaks = (uint32_t)n.graph_breaks;
    c->failures = (uint32_t)n.failures;
    c->limits = (uint32_t)n.limits;
    c->compile_ids = (uint32_t)n.compile_ids;
    c->has_time = n.have_times;
    c->compile_s = n.total_s;
    diag_details(rk, c, d);
}

/* ---- the consumer --------------------------------------------------------------------------- */

/* Only chromium events: it counts the ones the report writes (those that are JSON). */
static bool rank_wants_payload(void *self, const struct tl_record *r)
{
    (void)self;
    return tl_record_has(r, TL_K_CHROMIUM_EVENT);
}

static void *rank_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx;
    const struct tl_rank_params *p = params;
    struct rank *rk = tl_xcalloc(1, sizeof(*rk));
    rk->arena = p->arena;
    rk->s = p->summary;
    tl_buf_init(&rk->notes, 0);
    return rk;
}

static int rank_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_err *err)
{
    (void)err;
    struct rank *rk = self;
    struct tl_json v;
    if (r->status == TL_REC_OK && tl_record_has(r, TL_K_CHROMIUM_EVENT) &&
        tl_json_parse(ctx->scratch, r->payload.p, r->payload.n, &v, NULL) == 0)
        rk->chromium_events++;
    return 0;
}

static int rank_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct rank *rk = self;
    struct tl_rank_summary *s = rk->s;
    const struct tl_directory *dir = &ctx->model->dir;
    size_t nkeys;
    struct key_ref *keys = sorted_keys(dir, &nkeys);
    compile_ids(rk, keys, nkeys); /* sorted, as the keys are */
    cache_sequence(rk, dir);
    s->chromium_events = rk->chromium_events;
    char **names = NULL;
    size_t nnames = 0;
    tl_outdir_list(ctx->out, "", !ctx->opt->name_order, &names, &nnames);
    folders(rk, keys, nkeys, names, nnames, ctx->out);
    exec_order(rk, dir, ctx->out, ctx->scratch);
    tl_arena_reset(ctx->scratch);
    int rc = artifacts(rk, ctx, names, nnames, err);
    tl_outdir_list_free(names, nnames);
    free(keys);
    diag_counts(rk, &s->diag, &ctx->model->diag);
    if (rk->notes.len)
        s->notes = sdup(rk, rk->notes.buf, rk->notes.len);
    if (rc == 0)
        rc = tl_sink_write_summary(ctx, s, err);
    return rc;
}

static void rank_destroy(void *self)
{
    struct rank *rk = self;
    tl_buf_release(&rk->notes);
    free(rk);
}

const struct tl_sink_ops tl_sink_rank = {
    .name = "rank",
    .wants_payload = rank_wants_payload,
    .create = rank_create,
    .record = rank_record,
    .finish = rank_finish,
    .destroy = rank_destroy,
};
