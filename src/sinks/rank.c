/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank of a multi-rank run (spec modes.md §1), as a sink: it computes what the landing page
 * needs from the rank (struct tl_rank_summary) from what the rank's report holds, as the
 * reference reads it back: the compile directory (compile ids, cache sequence, which folder
 * belongs to which compile id, cache status, the execution order) and, folder by folder, the
 * runtime, tensor-metadata and collective-schedule artifacts; and it writes the rank's
 * collectives_parity.json (§1.11). The files' contents are what the report says it wrote of
 * each record as it passes (tl_record_wrote), never read back; at the end only the folder
 * names are listed, for the order the reference picks files in. A malformed artifact is noted in
 * the summary and skipped, never fatal.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "base/json.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "model/cachekey.h"
#include "model/kind.h"
#include "report/landing.h"
#include "report/summary.h"
#include "base/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rank {
    struct tl_arena *arena; /* the summary's: the caller's */
    struct tl_rank_summary *s;
    struct tl_buf notes;      /* what could not be read, for the landing page */
    uint64_t chromium_events; /* the rank's chromium events that are JSON */
    struct tl_arena own;      /* files below */
    struct tl_map files;      /* url -> struct seen *: the files the summary may need */
    bool have_exec;           /* a graph_execution file was seen: */
    uint32_t exec_number;     /* the largest number, */
    bool exec_ok;             /* whether its file is an order, */
    const char **exec_order;  /* and the order */
    size_t nexec_order;
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
    tl_sort(v, *n, sizeof(*v), cmp_key);
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
        tl_sort(v, len, sizeof(*v), cmp_numbered);
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
    tl_sort(f, k, sizeof(*f), cmp_folder); /* the listing's order does not matter here */
    rk->s->folders = f;
    rk->s->nfolders = k;
}

/* ---- the files the summary needs, from their records ------------------------------------------
 */

/*
 * What the summary needs of a file of the rank's report, computed from the bytes the report
 * says it wrote as the record passes (no file is read back). Which of a folder's files counts is
 * only known at the end, from the order the file system lists them (the reference's), so every
 * candidate is kept, in its summarised form.
 */
enum file_kind { F_RUNTIME, F_SCHEDULE, F_CODE };

struct seen {
    enum file_kind kind;
    bool json;                     /* its bytes are JSON (runtime, schedule) */
    bool list;                     /* a schedule that is a list of op names */
    const char *fingerprint;       /* runtime: the JSON, compact */
    const char *bad;               /* runtime: why it is rejected ("has no ops list") */
    struct tl_rank_op *ops;        /* runtime */
    const char **names;            /* schedule: its op names */
    size_t nops;                   /* of ops or names */
    struct tl_parity_counts count; /* schedule (its strings) or output code (its calls) */
};

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

/* inductor_runtime_and_tensor_meta: a fingerprint, and the ops (or why they are rejected). */
static void runtime_seen(struct rank *rk, const struct tl_json *v, struct seen *sn)
{
    struct tl_buf fp = TL_BUF_INIT;
    tl_json_write_compact(&fp, v);
    sn->fingerprint = sdup(rk, fp.buf, fp.len);
    tl_buf_release(&fp);
    const struct tl_json *ops = v->type == TL_JSON_OBJECT ? tl_json_get(v, "ops") : NULL;
    if (!ops || ops->type != TL_JSON_ARRAY) {
        sn->bad = "has no ops list";
        return;
    }
    struct tl_rank_op *o = tl_arena_calloc(rk->arena, ops->u.arr.n ? ops->u.arr.n : 1, sizeof(*o));
    for (size_t i = 0; i < ops->u.arr.n; i++) {
        const struct tl_json *op = &ops->u.arr.items[i];
        const struct tl_json *name = op->type == TL_JSON_OBJECT ? tl_json_get(op, "name") : NULL;
        const struct tl_json *ns =
            op->type == TL_JSON_OBJECT ? tl_json_get(op, "estimated_runtime_ns") : NULL;
        if (!name || name->type != TL_JSON_STRING || !ns || ns->type != TL_JSON_NUMBER) {
            sn->bad = "has an op without name or estimated_runtime_ns";
            return; /* the reference rejects the whole file */
        }
        struct tl_buf nm = TL_BUF_INIT;
        tl_buf_add_nonul(&nm, name->u.str.p, name->u.str.n);
        o[i].name = sdup(rk, nm.buf, nm.len);
        o[i].estimated_runtime_ns = ns->u.num.d;
        tl_buf_release(&nm);
    }
    sn->ops = o;
    sn->nops = ops->u.arr.n;
}

/* inductor_collective_schedule: an array of op names (§1.10), and its collectives counted
 * (its strings, whatever else it holds: §1.11). */
static void schedule_seen(struct rank *rk, const struct tl_json *v, struct seen *sn)
{
    if (v->type != TL_JSON_ARRAY)
        return;
    const char **o = tl_arena_alloc(rk->arena, (v->u.arr.n ? v->u.arr.n : 1) * sizeof(*o));
    sn->list = true;
    for (size_t i = 0; i < v->u.arr.n; i++) {
        const struct tl_json *e = &v->u.arr.items[i];
        if (e->type != TL_JSON_STRING) {
            sn->list = false;
            continue;
        }
        struct tl_buf nm = TL_BUF_INIT;
        tl_buf_add_nonul(&nm, e->u.str.p, e->u.str.n);
        o[i] = sdup(rk, nm.buf, nm.len);
        tl_parity_schedule(&sn->count, &o[i], 1);
        tl_buf_release(&nm);
    }
    if (sn->list) {
        sn->names = o;
        sn->nops = v->u.arr.n;
    }
}

/* Output code: its collective calls, counted in the file as written. tl_parity_code finds
 * nothing in a text without "c10d_functional", and the file is made of the record's payload
 * and display name: a record without it in either is passed over. */
static void code_seen(const struct tl_record *r, struct tl_str bytes, struct seen *sn)
{
    const char *needle = "c10d_functional";
    if (memmem(r->payload.p, r->payload.n, needle, strlen(needle)) ||
        (r->display && strstr(r->display, needle)))
        tl_parity_code(&sn->count, bytes.p, bytes.n);
}

/* graph_execution: the order of the artifact with the largest number (§1.13 step 1); NULL
 * when its file is not such a JSON object. */
static void exec_order_seen(struct rank *rk, const struct tl_json *v)
{
    const struct tl_json *order =
        v && v->type == TL_JSON_OBJECT ? tl_json_get(v, "graph_execution_order") : NULL;
    rk->exec_ok = order && order->type == TL_JSON_ARRAY;
    if (!rk->exec_ok)
        return;
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
    rk->exec_order = ids;
    rk->nexec_order = k;
}

/* The JSON of a file's bytes, parsed into the scratch arena; NULL when they are not JSON. */
static const struct tl_json *file_json(struct tl_sink_ctx *ctx, const struct tl_record_file *f,
                                       struct tl_json *v)
{
    if (tl_json_parse(ctx->scratch, f->bytes.p, f->bytes.n, v, NULL) < 0)
        return NULL;
    return v;
}

/* A file the report made of the record. */
static void file_seen(struct rank *rk, struct tl_sink_ctx *ctx, const struct tl_record *r,
                      const struct tl_record_file *f)
{
    const struct tl_artifact *a = f->a;
    const char *base = last_segment(a->url);
    struct tl_json v;
    const char *nm = last_segment(a->name);
    if (strstr(nm, "graph_execution") && json_with_stem(nm, "") &&
        (!rk->have_exec || a->number > rk->exec_number)) {
        rk->have_exec = true;
        rk->exec_number = a->number;
        exec_order_seen(rk, file_json(ctx, f, &v));
    }
    enum file_kind kind;
    if (json_with_stem(base, "inductor_runtime_and_tensor_meta"))
        kind = F_RUNTIME;
    else if (json_with_stem(base, "inductor_collective_schedule"))
        kind = F_SCHEDULE;
    else if (stem_starts(base, tl_kind_stem(TL_K_INDUCTOR_OUTPUT_CODE)))
        kind = F_CODE;
    else
        return;
    struct seen *sn = tl_arena_calloc(rk->arena, 1, sizeof(*sn));
    sn->kind = kind;
    tl_map_upsert(&rk->files, tl_str_cstr(a->url), NULL)->value = sn;
    if (kind == F_CODE) {
        code_seen(r, f->bytes, sn);
        return;
    }
    if (!file_json(ctx, f, &v))
        return;
    sn->json = true;
    if (kind == F_RUNTIME)
        runtime_seen(rk, &v, sn);
    else
        schedule_seen(rk, &v, sn);
}

/* ---- folder by folder ---------------------------------------------------------------------- */

struct found {
    const struct seen *runtime, *schedule, *parity_schedule, *code;
    const char *runtime_name, *schedule_name;
};

static const struct seen *seen_of(const struct rank *rk, const char *folder, const char *file)
{
    struct tl_buf url = TL_BUF_INIT;
    tl_buf_addf(&url, "%s/%s", folder, file);
    const struct seen *sn = tl_map_get(&rk->files, tl_buf_str(&url));
    tl_buf_release(&url);
    return sn;
}

/* The files of a folder the summary uses, as the reference picks them: the first runtime and
 * schedule, the last schedule (parity) and the first output code in the listing's order. A
 * file the rank's records did not make (a custom parser's) is not one of them. */
static void find_files(const struct rank *rk, const char *folder, char **names, size_t n,
                       struct found *f)
{
    memset(f, 0, sizeof(*f));
    for (size_t i = 0; i < n; i++) {
        const struct seen *sn = seen_of(rk, folder, names[i]);
        if (!sn)
            continue;
        if (sn->kind == F_RUNTIME && !f->runtime) {
            f->runtime = sn;
            f->runtime_name = names[i];
        }
        if (sn->kind == F_SCHEDULE) {
            if (!f->schedule) {
                f->schedule = sn;
                f->schedule_name = names[i];
            }
            f->parity_schedule = sn; /* the last */
        }
        if (sn->kind == F_CODE && !f->code)
            f->code = sn;
    }
}

static const char *key_of(const struct tl_rank_summary *s, const char *folder)
{
    for (size_t i = 0; i < s->nfolders; i++)
        if (!strcmp(s->folders[i].folder, folder))
            return s->folders[i].key;
    return NULL;
}

/* Folder by folder, in the listing's order: runtime, tensor meta, schedules, parity. */
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
    bool fs_order = !ctx->report->name_order;
    for (size_t i = 0; i < nnames; i++) {
        char **files;
        size_t nfiles;
        if (!tl_outdir_is_dir(ctx->out, names[i]) ||
            tl_outdir_list(ctx->out, names[i], fs_order, &files, &nfiles) < 0)
            continue;
        struct found f;
        find_files(rk, names[i], files, nfiles, &f);
        const char *folder = sdupc(rk, names[i]);
        if (f.runtime && !f.runtime->json) {
            note(rk, folder, f.runtime_name, "is not valid JSON");
        } else if (f.runtime) {
            meta[nmeta++] = (struct tl_rank_meta){folder, f.runtime->fingerprint};
            if (f.runtime->bad)
                note(rk, folder, f.runtime_name, f.runtime->bad);
            else if (f.runtime->nops)
                rt[nrt++] = (struct tl_rank_runtime){folder, f.runtime->ops, f.runtime->nops};
        }
        if (f.schedule && f.schedule->list) {
            if (f.schedule->nops)
                sch[nsch++] =
                    (struct tl_rank_schedule){folder, f.schedule->names, f.schedule->nops};
        } else if (f.schedule) {
            note(rk, folder, f.schedule_name, "is not a list of op names");
        }
        uint64_t off, miss;
        if (f.parity_schedule && f.code) {
            tl_parity_compare(&f.parity_schedule->count, &f.code->count, &off, &miss);
            if (off > 0 || miss > 0) {
                const char *key = key_of(s, folder);
                par[npar++] = (struct tl_parity_entry){folder, key ? key : "unknown", off, miss};
            }
        }
        tl_outdir_list_free(files, nfiles);
    }
    s->runtime = rt;
    s->nruntime = nrt;
    s->meta = meta;
    s->nmeta = nmeta;
    s->schedules = sch;
    s->nschedules = nsch;
    struct tl_buf text = TL_BUF_INIT;
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
    tl_ledger_lines_of(&c->ledger, &d->ledger);
    diag_details(rk, c, d);
}

/* ---- the consumer --------------------------------------------------------------------------- */

/* Chromium events: it counts the ones the report writes (those that are JSON). The files
 * come from the report, which reads every payload. */
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
    tl_arena_init(&rk->own, 16 * 1024);
    tl_map_init(&rk->files, &rk->own);
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
    for (const struct tl_record_file *f = r->files; f; f = f->next)
        file_seen(rk, ctx, r, f);
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
    if (rk->exec_ok) {
        s->has_exec_order = true;
        s->exec_order = rk->exec_order;
        s->nexec_order = rk->nexec_order;
    }
    /* The reference takes a folder's files in the order the file system lists them: the
     * names are listed (no file is read). */
    char **names = NULL;
    size_t nnames = 0;
    tl_outdir_list(ctx->out, "", !ctx->report->name_order, &names, &nnames);
    folders(rk, keys, nkeys, names, nnames, ctx->out);
    int rc = artifacts(rk, ctx, names, nnames, err);
    tl_outdir_list_free(names, nnames);
    free(keys);
    diag_counts(rk, &s->diag, &ctx->model->diag);
    /* the cache lookups' keys, for the misses across ranks (model/cachekey.h) */
    if (ctx->model->diag.cachekey)
        s->cache_keys = tl_cachekey_digest(ctx->model->diag.cachekey, rk->arena);
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
    tl_map_release(&rk->files);
    tl_arena_release(&rk->own);
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
