/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The analyses of a multi-rank run (spec modes.md §1.5-1.13): compile-id divergence, the
 * cache, collective and tensor-meta groups, the graph runtime analysis, the execution-order
 * summary and the divergence of the ranks' diagnoses; also the runtime trace's thread id and
 * the collectives-parity counts of one compile folder. Pure functions of the rank summaries:
 * no file, no page. Depends on base only.
 */
#include "base/config.h"
#include "model/ranks.h"
#include "model/cachekey.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *nz(const char *s)
{
    return s ? s : "";
}

static bool usable(const struct tl_rank_summary *s)
{
    return s->error == NULL;
}

/* ---- small helpers ------------------------------------------------------------------------- */

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- compile keys as numbers --------------------------------------------------------------- */

struct cid_parts {
    bool has_ca, has_frame, has_fcid;
    uint64_t ca, frame, fcid, attempt;
};

/* A number or '-' at p: past it, or NULL when neither is there. */
static const char *cid_part(const char *p, bool *has, uint64_t *v)
{
    *has = false;
    *v = 0;
    if (*p == '-')
        return p + 1;
    if (*p < '0' || *p > '9')
        return NULL;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (*v > (UINT64_MAX - 9) / 10)
            return NULL;
        *v = *v * 10 + (uint64_t)(*p - '0');
    }
    *has = true;
    return p;
}

/* "[!ca/frame/fcid_attempt]" as tl_cid_display writes it ('-' for a missing part). */
static bool cid_parse(const char *p, struct cid_parts *c)
{
    memset(c, 0, sizeof(*c));
    if (*p++ != '[')
        return false;
    if (*p == '!' && (!(p = cid_part(p + 1, &c->has_ca, &c->ca)) || !c->has_ca || *p++ != '/'))
        return false;
    if (!(p = cid_part(p, &c->has_frame, &c->frame)) || *p++ != '/' ||
        !(p = cid_part(p, &c->has_fcid, &c->fcid)))
        return false;
    bool has_attempt = false;
    if (*p == '_' && (!(p = cid_part(p + 1, &has_attempt, &c->attempt)) || !has_attempt))
        return false;
    return p[0] == ']' && p[1] == '\0';
}

/* A part that is there before one that is not, then by value. */
static int cmp_part(bool has_a, uint64_t a, bool has_b, uint64_t b)
{
    if (has_a != has_b)
        return has_a ? -1 : 1;
    return a < b ? -1 : a > b;
}

int tl_ranks_cid_cmp(const char *a, const char *b)
{
    a = nz(a);
    b = nz(b);
    struct cid_parts x, y;
    bool kx = cid_parse(a, &x), ky = cid_parse(b, &y);
    if (kx != ky)
        return kx ? -1 : 1;
    int c = 0;
    if (kx && !(c = cmp_part(x.has_frame, x.frame, y.has_frame, y.frame)) &&
        !(c = cmp_part(x.has_fcid, x.fcid, y.has_fcid, y.fcid)) &&
        !(c = cmp_part(true, x.attempt, true, y.attempt)))
        c = cmp_part(!x.has_ca, x.ca, !y.has_ca, y.ca); /* none first */
    return c ? c : strcmp(a, b);
}

static int cmp_cid_ptr(const void *a, const void *b)
{
    return tl_ranks_cid_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* "<prefix>a, <prefix>b" of the ranks list[0..n) (ascending), repeated numbers once. */
static const char *rank_list(struct tl_arena *arena, const uint32_t *list, size_t n,
                             const char *prefix, bool dedupe)
{
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (dedupe && i > 0 && list[i] == list[i - 1])
            continue;
        if (b.len)
            tl_buf_adds(&b, ", ");
        tl_buf_adds(&b, prefix);
        tl_buf_addu(&b, list[i]);
    }
    const char *s = tl_arena_memdupz(arena, b.buf, b.len);
    tl_buf_release(&b);
    return s;
}

/*
 * Group the ranks by value: values[i] is rank i's value, NULL when it takes no part. Groups
 * come in order of their lowest rank (the summaries are ascending), ranks ascending in each.
 */
static void group_ranks(struct tl_rank_groups *out, const struct tl_rank_summary *ranks,
                        const char *const *values, size_t n, struct tl_arena *arena)
{
    struct tl_arena tmp;
    struct tl_map map;
    tl_arena_init(&tmp, 0);
    tl_map_init(&map, &tmp);
    size_t *group_of = tl_arena_calloc(arena, n ? n : 1, sizeof(*group_of));
    size_t ngroups = 0;
    for (size_t i = 0; i < n; i++) {
        if (!values[i])
            continue;
        int created = 0;
        struct tl_map_entry *e = tl_map_upsert(&map, tl_str_cstr(values[i]), &created);
        if (created)
            e->value = (void *)(uintptr_t)++ngroups;
        group_of[i] = (size_t)(uintptr_t)e->value;
    }
    out->groups = tl_arena_calloc(arena, ngroups ? ngroups : 1, sizeof(*out->groups));
    out->n = ngroups;
    out->diverge = ngroups > 1;
    size_t *count = tl_arena_calloc(&tmp, ngroups + 1, sizeof(*count));
    for (size_t i = 0; i < n; i++)
        count[group_of[i]]++;
    uint32_t **lists = tl_arena_calloc(&tmp, ngroups + 1, sizeof(*lists));
    for (size_t g = 1; g <= ngroups; g++)
        lists[g] = tl_arena_calloc(arena, count[g], sizeof(uint32_t));
    for (size_t i = 0; i < n; i++) {
        size_t g = group_of[i];
        if (!g)
            continue;
        struct tl_rank_group *grp = &out->groups[g - 1];
        if (!grp->nranks)
            grp->value = values[i];
        lists[g][grp->nranks++] = ranks[i].rank;
    }
    out->main = 0;
    for (size_t g = 1; g <= ngroups; g++) {
        struct tl_rank_group *grp = &out->groups[g - 1];
        grp->ranks = lists[g];
        grp->ranks_text = rank_list(arena, lists[g], grp->nranks, "", false);
        if (grp->nranks > out->groups[out->main].nranks)
            out->main = g - 1;
    }
    out->of = group_of;
    tl_map_release(&map);
    tl_arena_release(&tmp);
}

/* ---- §1.5 compile-id divergence ---------------------------------------------------------- */

/* The rank's compile ids sorted, each once. */
static const char **id_set(struct tl_arena *tmp, const struct tl_rank_summary *s, size_t *len)
{
    const char **v = tl_arena_calloc(tmp, s->ncompile_ids ? s->ncompile_ids : 1, sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < s->ncompile_ids; i++)
        v[n++] = nz(s->compile_ids[i]);
    tl_sort(v, n, sizeof(*v), cmp_cstr);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || strcmp(v[m - 1], v[i]) != 0)
            v[m++] = v[i];
    *len = m;
    return v;
}

static bool compile_ids_diverge(const struct tl_rank_summary *ranks, size_t n)
{
    struct tl_arena tmp;
    tl_arena_init(&tmp, 0);
    const char **base = NULL;
    size_t nbase = 0;
    bool diverge = false;
    for (size_t i = 0; i < n && !diverge; i++) {
        if (!usable(&ranks[i]))
            continue;
        size_t len = 0;
        const char **set = id_set(&tmp, &ranks[i], &len);
        if (!base) {
            base = set;
            nbase = len;
            continue;
        }
        if (len != nbase) {
            diverge = true;
            break;
        }
        for (size_t k = 0; k < len; k++)
            if (strcmp(set[k], base[k]) != 0) {
                diverge = true;
                break;
            }
    }
    tl_arena_release(&tmp);
    return diverge;
}

/* ---- §1.9 graph runtime analysis --------------------------------------------------------- */

double tl_ranks_ms(double ns)
{
    return round(ns / 1e6 * 1000.0) / 1000.0;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct tl_runtime_row *x = a;
    const struct tl_runtime_row *y = b;
    int c = strcmp(x->graph_id, y->graph_id);
    if (c)
        return c;
    return x->graph_index < y->graph_index ? -1 : x->graph_index > y->graph_index;
}

static size_t runtime_records(const struct tl_rank_summary *s)
{
    size_t k = 0;
    for (size_t j = 0; j < s->nruntime; j++)
        k += s->runtime[j].nops > 0;
    return k;
}

static void runtime_analysis(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                             struct tl_arena *arena)
{
    size_t len = 0;
    size_t nwith = 0;
    for (size_t i = 0; i < n; i++) {
        if (!usable(&ranks[i]))
            continue;
        size_t k = runtime_records(&ranks[i]);
        if (!k)
            continue;
        if (nwith++ == 0)
            len = k;
        else if (k != len)
            out->runtime_mismatch = true;
    }
    out->has_runtime = nwith > 0;
    if (!nwith || out->runtime_mismatch)
        return;

    /* Per rank with records: its graphs and their totals, in lookup order. */
    struct tl_arena tmp;
    tl_arena_init(&tmp, 0);
    double **totals = tl_arena_calloc(&tmp, n, sizeof(*totals));
    const char ***graphs = tl_arena_calloc(&tmp, n, sizeof(*graphs));
    for (size_t i = 0; i < n; i++) {
        const struct tl_rank_summary *s = &ranks[i];
        if (!usable(s) || !runtime_records(s))
            continue;
        totals[i] = tl_arena_calloc(&tmp, len, sizeof(double));
        graphs[i] = tl_arena_calloc(&tmp, len, sizeof(char *));
        size_t k = 0;
        for (size_t j = 0; j < s->nruntime; j++) {
            const struct tl_rank_runtime *r = &s->runtime[j];
            if (!r->nops)
                continue;
            double t = 0;
            for (size_t o = 0; o < r->nops; o++)
                t += r->ops[o].estimated_runtime_ns;
            totals[i][k] = t;
            graphs[i][k] = nz(r->graph);
            k++;
        }
    }
    out->rows = tl_arena_calloc(arena, len, sizeof(*out->rows));
    out->nrows = len;
    for (size_t g = 0; g < len; g++) {
        struct tl_runtime_row *row = &out->rows[g];
        bool first = true;
        double fast = 0, slow = 0;
        row->graph_index = g;
        for (size_t i = 0; i < n; i++) {
            if (!totals[i])
                continue;
            double t = totals[i][g];
            if (first) {
                row->graph_id = graphs[i][g];
                fast = slow = t;
                row->fastest_rank = row->slowest_rank = ranks[i].rank;
                first = false;
                continue;
            }
            /* <= and >= over ascending ranks: ties go to the higher rank (§1.9) */
            if (t <= fast) {
                fast = t;
                row->fastest_rank = ranks[i].rank;
            }
            if (t >= slow) {
                slow = t;
                row->slowest_rank = ranks[i].rank;
            }
        }
        row->delta_ms = tl_ranks_ms(slow - fast);
        row->fastest_ms = tl_ranks_ms(fast);
        row->slowest_ms = tl_ranks_ms(slow);
    }
    tl_sort(out->rows, len, sizeof(*out->rows), cmp_rows);
    tl_arena_release(&tmp);
}

/* ---- §1.10 collective sequences, §1.12 tensor meta --------------------------------------- */

static void schedule_groups(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                            struct tl_arena *arena)
{
    for (size_t i = 0; i < n && !out->has_schedules; i++)
        for (size_t j = 0; usable(&ranks[i]) && j < ranks[i].nschedules; j++)
            if (ranks[i].schedules[j].nops)
                out->has_schedules = true;
    if (!out->has_schedules)
        return;
    const char **values = tl_arena_calloc(arena, n, sizeof(*values));
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (!usable(&ranks[i]))
            continue;
        tl_buf_reset(&b);
        bool any = false;
        for (size_t j = 0; j < ranks[i].nschedules; j++) {
            const struct tl_rank_schedule *r = &ranks[i].schedules[j];
            for (size_t o = 0; o < r->nops; o++) {
                if (any)
                    tl_buf_addch(&b, ',');
                tl_buf_adds(&b, nz(r->ops[o]));
                any = true;
            }
        }
        values[i] = tl_arena_memdupz(arena, b.buf, b.len);
    }
    tl_buf_release(&b);
    group_ranks(&out->schedules, ranks, values, n, arena);
}

static int cmp_meta(const void *a, const void *b)
{
    const struct tl_rank_meta *const *x = a;
    const struct tl_rank_meta *const *y = b;
    int c = strcmp(nz((*x)->graph), nz((*y)->graph));
    if (c)
        return c;
    return *x < *y ? -1 : *x > *y; /* stable: the summary's order */
}

static void meta_groups(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                        struct tl_arena *arena)
{
    const char **values = tl_arena_calloc(arena, n ? n : 1, sizeof(*values));
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const struct tl_rank_summary *s = &ranks[i];
        if (!usable(s) || !s->nmeta)
            continue;
        const struct tl_rank_meta **v = tl_xcalloc(s->nmeta, sizeof(*v));
        for (size_t j = 0; j < s->nmeta; j++)
            v[j] = &s->meta[j];
        tl_sort(v, s->nmeta, sizeof(*v), cmp_meta);
        tl_buf_reset(&b);
        for (size_t j = 0; j < s->nmeta; j++) {
            if (j)
                tl_buf_addch(&b, ',');
            tl_buf_adds(&b, nz(v[j]->fingerprint));
        }
        free(v);
        values[i] = tl_arena_memdupz(arena, b.buf, b.len);
    }
    tl_buf_release(&b);
    group_ranks(&out->meta, ranks, values, n, arena);
}

/* ---- §1.13 execution order ---------------------------------------------------------------- */

/* What one rank knows of its keys: schedule (ops each followed by a NUL) and cache status. */
struct key_info {
    struct tl_buf schedule;
    bool has_schedule;
    int cache; /* 0 none, 1 bypass, 2 hit, 3 miss */
};

struct rank_keys {
    struct tl_map keys; /* key -> struct key_info */
};

static int cache_priority(const char *s)
{
    if (!s)
        return 0;
    if (!strcmp(s, "miss"))
        return 3;
    if (!strcmp(s, "hit"))
        return 2;
    if (!strcmp(s, "bypass"))
        return 1;
    return 0;
}

static struct key_info *key_info(struct rank_keys *rk, struct tl_arena *tmp, const char *key)
{
    int created = 0;
    struct tl_map_entry *e = tl_map_upsert(&rk->keys, tl_str_cstr(key), &created);
    if (created) {
        struct key_info *k = tl_arena_calloc(tmp, 1, sizeof(*k));
        tl_buf_init(&k->schedule, 0);
        e->value = k;
    }
    return e->value;
}

static void rank_keys_build(struct rank_keys *rk, const struct tl_rank_summary *s,
                            struct tl_arena *tmp)
{
    struct tl_map folders; /* folder -> key, the first one listed */
    tl_map_init(&folders, tmp);
    tl_map_init(&rk->keys, tmp);
    for (size_t j = 0; j < s->nfolders; j++) {
        const struct tl_rank_folder *f = &s->folders[j];
        if (!f->key)
            continue;
        int created = 0;
        struct tl_map_entry *e = tl_map_upsert(&folders, tl_str_cstr(nz(f->folder)), &created);
        if (created)
            e->value = (void *)f->key;
    }
    for (size_t j = 0; j < s->nschedules; j++) {
        const struct tl_rank_schedule *r = &s->schedules[j];
        if (!r->nops)
            continue;
        const char *key = tl_map_get(&folders, tl_str_cstr(nz(r->graph)));
        struct key_info *k = key_info(rk, tmp, key ? key : nz(r->graph));
        for (size_t o = 0; o < r->nops; o++) {
            const char *op = nz(r->ops[o]);
            tl_buf_add(&k->schedule, op, strlen(op) + 1);
        }
        k->has_schedule = true;
    }
    for (size_t j = 0; j < s->nfolders; j++) {
        const struct tl_rank_folder *f = &s->folders[j];
        int p = cache_priority(f->cache_status);
        if (!f->key || !p)
            continue;
        struct key_info *k = key_info(rk, tmp, f->key);
        if (p > k->cache)
            k->cache = p;
    }
    tl_map_release(&folders);
}

static void rank_keys_release(struct rank_keys *rk)
{
    for (size_t i = 0; i < tl_map_len(&rk->keys); i++) {
        struct key_info *k = tl_map_at(&rk->keys, i)->value;
        tl_buf_release(&k->schedule);
    }
    tl_map_release(&rk->keys);
}

/* The ranks compared by exec_order (those with an execution order) and what it learns of them;
 * all in exec_order's scratch arena. */
struct exec_ranks {
    size_t m;
    const struct tl_rank_summary **ord;
    struct rank_keys *rk;
    bool *mark_schedule, *mark_cache; /* the rank has a row that mismatches */
    const char **key_at; /* per rank, for the current row: its key, NULL past its end */
    struct key_info **info_at;
};

static void exec_ranks_init(struct exec_ranks *e, const struct tl_rank_summary *ranks, size_t n,
                            size_t nordered, struct tl_arena *tmp)
{
    e->ord = tl_arena_calloc(tmp, nordered, sizeof(*e->ord));
    e->rk = tl_arena_calloc(tmp, nordered, sizeof(*e->rk));
    e->mark_schedule = tl_arena_calloc(tmp, nordered, sizeof(bool));
    e->mark_cache = tl_arena_calloc(tmp, nordered, sizeof(bool));
    e->key_at = tl_arena_calloc(tmp, nordered, sizeof(*e->key_at));
    e->info_at = tl_arena_calloc(tmp, nordered, sizeof(*e->info_at));
    e->m = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(&ranks[i]) && ranks[i].has_exec_order) {
            e->ord[e->m] = &ranks[i];
            rank_keys_build(&e->rk[e->m], &ranks[i], tmp);
            e->m++;
        }
}

/* Compares the ranks' keys at row idx: their order, collective schedules and cache results. */
static void exec_row(struct tl_exec_row *row, size_t idx, struct exec_ranks *e)
{
    row->index = idx;
    for (size_t r = 0; r < e->m; r++) {
        if (idx >= e->ord[r]->nexec_order) {
            e->key_at[r] = NULL;
            continue;
        }
        e->key_at[r] = nz(e->ord[r]->exec_order[idx]);
        e->info_at[r] = tl_map_get(&e->rk[r].keys, tl_str_cstr(e->key_at[r]));
    }
    const char *first_key = NULL;
    const struct tl_buf *first_schedule = NULL;
    int first_cache = 0;
    size_t nschedule = 0, ncache = 0;
    bool schedule_differs = false, cache_differs = false;
    for (size_t r = 0; r < e->m; r++) {
        if (!e->key_at[r])
            continue;
        if (!first_key)
            first_key = e->key_at[r];
        else if (strcmp(first_key, e->key_at[r]) != 0)
            row->order_differs = true;
        const struct key_info *k = e->info_at[r];
        if (k && k->has_schedule) {
            if (nschedule++ == 0)
                first_schedule = &k->schedule;
            else if (first_schedule->len != k->schedule.len ||
                     memcmp(first_schedule->buf, k->schedule.buf, k->schedule.len) != 0)
                schedule_differs = true;
        }
        if (k && k->cache) {
            if (ncache++ == 0)
                first_cache = k->cache;
            else if (k->cache != first_cache)
                cache_differs = true;
        }
    }
    row->schedule_mismatch = nschedule >= 2 && schedule_differs;
    row->cache_mismatch = ncache >= 2 && cache_differs;
}

/* Marks the ranks that reach a row whose schedules or caches mismatch. */
static void exec_mark(const struct tl_exec_row *row, struct exec_ranks *e)
{
    for (size_t r = 0; r < e->m; r++) {
        if (!e->key_at[r])
            continue;
        if (row->schedule_mismatch)
            e->mark_schedule[r] = true;
        if (row->cache_mismatch)
            e->mark_cache[r] = true;
    }
}

/* "Rank 0, Rank 3": the marked ranks; list is room for e->m of them. */
static const char *marked_ranks(struct tl_arena *arena, const struct exec_ranks *e,
                                const bool *marks, uint32_t *list)
{
    size_t k = 0;
    for (size_t r = 0; r < e->m; r++)
        if (marks[r])
            list[k++] = e->ord[r]->rank;
    return rank_list(arena, list, k, "Rank ", true);
}

static void exec_order(struct tl_exec_order *ex, const struct tl_rank_summary *ranks, size_t n,
                       struct tl_arena *arena)
{
    size_t nordered = 0;
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(&ranks[i]) && ranks[i].has_exec_order) {
            nordered++;
            if (ranks[i].nexec_order > longest)
                longest = ranks[i].nexec_order;
        }
    if (nordered < 2)
        return;
    ex->available = true;

    struct tl_arena tmp;
    tl_arena_init(&tmp, 0);
    struct exec_ranks e;
    exec_ranks_init(&e, ranks, n, nordered, &tmp);

    ex->rows = tl_arena_calloc(arena, longest ? longest : 1, sizeof(*ex->rows));
    ex->nrows = longest;
    for (size_t idx = 0; idx < longest; idx++) {
        struct tl_exec_row *row = &ex->rows[idx];
        exec_row(row, idx, &e);
        if (row->order_differs)
            ex->order_differs = true;
        exec_mark(row, &e);
    }

    uint32_t *list = tl_arena_calloc(&tmp, e.m, sizeof(*list));
    ex->ranks_schedule = marked_ranks(arena, &e, e.mark_schedule, list);
    ex->ranks_cache = marked_ranks(arena, &e, e.mark_cache, list);

    for (size_t r = 0; r < e.m; r++)
        rank_keys_release(&e.rk[r]);
    tl_arena_release(&tmp);
}

/* ---- the diagnosis across ranks ----------------------------------------------------------- */

/* At most this many lines say what the diverging ranks did. */
#define MAX_DETAIL_LINES 8

/* "Rank 1, Rank 3: what they did" per distinct detail w of the ranks that have one. */
static const char *divergence_detail(const struct tl_rank_summary *ranks, size_t n, size_t w,
                                     struct tl_arena *arena)
{
    struct tl_buf b = TL_BUF_INIT;
    uint32_t *same = tl_xcalloc(n ? n : 1, sizeof(*same));
    bool *done = tl_xcalloc(n ? n : 1, sizeof(*done));
    size_t lines = 0, more = 0;
    for (size_t i = 0; i < n; i++) {
        const char *di = usable(&ranks[i]) ? ranks[i].diag.detail[w] : NULL;
        if (!di || done[i])
            continue;
        size_t ns = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && usable(&ranks[j]) && ranks[j].diag.detail[w] &&
                !strcmp(ranks[j].diag.detail[w], di)) {
                done[j] = true;
                same[ns++] = ranks[j].rank;
            }
        if (lines == MAX_DETAIL_LINES) {
            more++;
            continue;
        }
        if (b.len)
            tl_buf_addch(&b, '\n');
        tl_buf_adds(&b, rank_list(arena, same, ns, "Rank ", true));
        tl_buf_adds(&b, ": ");
        tl_buf_adds(&b, di);
        lines++;
    }
    if (more)
        tl_buf_addf(&b, "\n... and %zu more", more);
    const char *r = b.len ? tl_arena_memdupz(arena, b.buf, b.len) : NULL;
    tl_buf_release(&b);
    free(same);
    free(done);
    return r;
}

/* The rank's compile ids but [-/-] in the order of tl_ranks_cid_cmp, each once (in tmp);
 * *idless: it has [-/-]. */
static const char **real_ids(struct tl_arena *tmp, const struct tl_rank_summary *s, size_t *len,
                             bool *idless)
{
    const char **v = tl_arena_calloc(tmp, s->ncompile_ids ? s->ncompile_ids : 1, sizeof(*v));
    size_t n = 0;
    *idless = false;
    for (size_t i = 0; i < s->ncompile_ids; i++) {
        const char *id = nz(s->compile_ids[i]);
        if (!strcmp(id, TL_RANKS_NO_CID))
            *idless = true;
        else
            v[n++] = id;
    }
    tl_sort(v, n, sizeof(*v), cmp_cid_ptr);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || strcmp(v[m - 1], v[i]) != 0)
            v[m++] = v[i];
    *len = m;
    return v;
}

/* The ranks by their compile ids ([-/-] left out); which ranks have entries without one. */
static void cid_groups(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                       struct tl_arena *arena)
{
    struct tl_arena tmp;
    tl_arena_init(&tmp, 0);
    const char **values = tl_arena_calloc(arena, n ? n : 1, sizeof(*values));
    uint32_t *with = tl_arena_calloc(&tmp, n ? n : 1, sizeof(*with));
    uint32_t *without = tl_arena_calloc(&tmp, n ? n : 1, sizeof(*without));
    size_t nwith = 0, nwithout = 0;
    struct tl_buf b = TL_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (!usable(&ranks[i]))
            continue;
        size_t len;
        bool idless;
        const char **ids = real_ids(&tmp, &ranks[i], &len, &idless);
        tl_buf_reset(&b);
        for (size_t k = 0; k < len; k++) {
            tl_buf_adds(&b, ids[k]);
            tl_buf_addch(&b, ',');
        }
        values[i] = tl_arena_memdupz(arena, b.buf, b.len);
        if (idless)
            with[nwith++] = ranks[i].rank;
        else
            without[nwithout++] = ranks[i].rank;
    }
    tl_buf_release(&b);
    group_ranks(&out->cids, ranks, values, n, arena);
    if (nwith && nwithout) {
        out->idless_ranks = rank_list(arena, with, nwith, "Rank ", true);
        out->idless_others = rank_list(arena, without, nwithout, "Rank ", true);
    }
    tl_arena_release(&tmp);
}

/* The compile ids some ranks compiled and others did not, each with the ranks without it, in
 * the order of tl_ranks_cid_cmp. */
#define MAX_GAPS 20

static void cid_gaps(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                     struct tl_arena *arena)
{
    struct tl_arena tmp;
    tl_arena_init(&tmp, 0);
    const char ***sets = tl_arena_calloc(&tmp, n ? n : 1, sizeof(*sets));
    size_t *lens = tl_arena_calloc(&tmp, n ? n : 1, sizeof(*lens));
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(&ranks[i])) {
            bool idless;
            sets[i] = real_ids(&tmp, &ranks[i], &lens[i], &idless);
            total += lens[i];
        }
    const char **all = tl_arena_calloc(&tmp, total ? total : 1, sizeof(*all));
    size_t nall = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < lens[i]; k++)
            all[nall++] = sets[i][k];
    tl_sort(all, nall, sizeof(*all), cmp_cid_ptr);
    uint32_t *missing = tl_arena_calloc(&tmp, n ? n : 1, sizeof(*missing));
    out->gaps = tl_arena_calloc(arena, MAX_GAPS, sizeof(*out->gaps));
    for (size_t a = 0; a < nall; a++) {
        if (a && !strcmp(all[a], all[a - 1]))
            continue;
        size_t nm = 0;
        for (size_t i = 0; i < n; i++)
            if (usable(&ranks[i]) &&
                !bsearch(&all[a], sets[i], lens[i], sizeof(*sets[i]), cmp_cid_ptr))
                missing[nm++] = ranks[i].rank;
        if (!nm)
            continue;
        out->ngaps_all++;
        if (out->ngaps < MAX_GAPS)
            out->gaps[out->ngaps++] =
                (struct tl_rank_cid_gap){tl_arena_memdupz(arena, all[a], strlen(all[a])),
                                         rank_list(arena, missing, nm, "Rank ", true)};
    }
    tl_arena_release(&tmp);
}

static void divergences(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                        struct tl_arena *arena)
{
    static const char *const what[] = {"recompiled", "broke graphs", "failed to compile",
                                       "hit the recompile limit"};
    out->divergences = tl_arena_calloc(arena, TL_ARRAY_LEN(what), sizeof(*out->divergences));
    uint32_t *with = tl_arena_calloc(arena, n ? n : 1, sizeof(*with));
    uint32_t *without = tl_arena_calloc(arena, n ? n : 1, sizeof(*without));
    for (size_t w = 0; w < TL_ARRAY_LEN(what); w++) {
        size_t nwith = 0, nwithout = 0;
        for (size_t i = 0; i < n; i++) {
            if (!usable(&ranks[i]))
                continue;
            const struct tl_rank_diag *d = &ranks[i].diag;
            uint32_t v = w == 0   ? d->recompiles
                         : w == 1 ? d->graph_breaks
                         : w == 2 ? d->failures
                                  : d->limits;
            if (v)
                with[nwith++] = ranks[i].rank;
            else
                without[nwithout++] = ranks[i].rank;
        }
        if (!nwith || !nwithout)
            continue;
        struct tl_rank_divergence *dv = &out->divergences[out->ndivergences++];
        dv->what = what[w];
        dv->ranks = rank_list(arena, with, nwith, "Rank ", true);
        dv->others = rank_list(arena, without, nwithout, "Rank ", true);
        dv->detail = divergence_detail(ranks, n, w, arena);
    }
}

/* ---- where a group of ranks parts from the main group -------------------------------------- */

/* A graph of a rank, by its compile id: a schedule, a cache result or a tensor meta record. */
struct graph_item {
    const char *key; /* the compile id of its folder, or the folder */
    size_t order;    /* its place in the summary: a stable sort */
    const struct tl_rank_schedule *schedule;
    int cache; /* cache_priority */
    const char *fingerprint;
};

static int cmp_item(const void *a, const void *b)
{
    const struct graph_item *x = a, *y = b;
    int c = tl_ranks_cid_cmp(x->key, y->key);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_folder(const void *a, const void *b)
{
    const struct tl_rank_folder *const *x = a, *const *y = b;
    int c = strcmp(nz((*x)->folder), nz((*y)->folder));
    return c ? c : *x < *y ? -1 : *x > *y; /* of two alike, the first listed */
}

/* The folders of s that a compile id lists, by name (in tmp), for key_of. */
static const struct tl_rank_folder **keyed_folders(const struct tl_rank_summary *s, size_t *len,
                                                   struct tl_arena *tmp)
{
    const struct tl_rank_folder **v =
        tl_arena_calloc(tmp, s->nfolders ? s->nfolders : 1, sizeof(*v));
    size_t n = 0;
    for (size_t j = 0; j < s->nfolders; j++)
        if (s->folders[j].key)
            v[n++] = &s->folders[j];
    tl_sort(v, n, sizeof(*v), cmp_folder);
    *len = n;
    return v;
}

/* The compile id a folder belongs to (the first listed of folders[0..n), keyed_folders), or
 * the folder itself. */
static const char *key_of(const struct tl_rank_folder **folders, size_t n, const char *folder)
{
    folder = nz(folder);
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first folder named so */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(nz(folders[mid]->folder), folder) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && !strcmp(nz(folders[lo]->folder), folder) ? folders[lo]->key : folder;
}

enum item_kind { ITEMS_SCHEDULES, ITEMS_CACHE, ITEMS_META };

/* The graphs of s that the kind compares, in compile-id order (in tmp); the cache: one item
 * per compile id with its highest result. */
static struct graph_item *items_of(const struct tl_rank_summary *s, enum item_kind kind,
                                   size_t *len, struct tl_arena *tmp)
{
    size_t cap = kind == ITEMS_SCHEDULES ? s->nschedules
                 : kind == ITEMS_CACHE   ? s->nfolders
                                         : s->nmeta;
    struct graph_item *v = tl_arena_calloc(tmp, cap ? cap : 1, sizeof(*v));
    size_t n = 0, nkeyed;
    const struct tl_rank_folder **keyed = keyed_folders(s, &nkeyed, tmp);
    for (size_t j = 0; j < cap; j++) {
        struct graph_item it = {.order = j};
        if (kind == ITEMS_SCHEDULES) {
            if (!s->schedules[j].nops)
                continue;
            it.key = key_of(keyed, nkeyed, s->schedules[j].graph);
            it.schedule = &s->schedules[j];
        } else if (kind == ITEMS_CACHE) {
            it.cache = cache_priority(s->folders[j].cache_status);
            if (!s->folders[j].key || !it.cache)
                continue;
            it.key = s->folders[j].key;
        } else {
            it.key = key_of(keyed, nkeyed, s->meta[j].graph);
            it.fingerprint = nz(s->meta[j].fingerprint);
        }
        v[n++] = it;
    }
    tl_sort(v, n, sizeof(*v), cmp_item);
    if (kind == ITEMS_CACHE) { /* one per compile id, its highest result */
        size_t m = 0;
        for (size_t j = 0; j < n; j++) {
            if (m && !strcmp(v[m - 1].key, v[j].key)) {
                if (v[j].cache > v[m - 1].cache)
                    v[m - 1].cache = v[j].cache;
                continue;
            }
            v[m++] = v[j];
        }
        n = m;
    }
    *len = n;
    return v;
}

static const char *cache_name(int priority)
{
    static const char *const names[] = {NULL, "bypass", "hit", "miss"};
    return priority > 0 && priority < 4 ? names[priority] : NULL;
}

/* "torch.ops._c10d_functional.all_reduce_.default" -> "all_reduce_"; other names as they are. */
static const char *op_name(const char *op, struct tl_arena *arena)
{
    op = nz(op);
    const char *ns = strncmp(op, "torch.ops.", 10) == 0 ? strchr(op + 10, '.') : NULL;
    if (!ns || !ns[1])
        return op;
    const char *end = strchr(ns + 1, '.');
    return tl_arena_memdupz(arena, ns + 1, end ? (size_t)(end - ns - 1) : strlen(ns + 1));
}

/* Where b (a rank of a group) first parts from a (a rank of the main group) in the kind. */
static void first_of_items(struct tl_rank_first *f, const struct tl_rank_summary *a,
                           const struct tl_rank_summary *b, enum item_kind kind,
                           struct tl_arena *arena)
{
    struct tl_arena tmp;
    tl_arena_init(&tmp, 0);
    size_t na, nb;
    const struct graph_item *x = items_of(a, kind, &na, &tmp);
    const struct graph_item *y = items_of(b, kind, &nb, &tmp);
    for (size_t i = 0; i < na || i < nb; i++) {
        /* a graph only one of them has (the first of the two in compile-id order) */
        int c = i >= na ? 1 : i >= nb ? -1 : tl_ranks_cid_cmp(x[i].key, y[i].key);
        const struct graph_item *mine = c <= 0 ? &x[i] : NULL, *theirs = c >= 0 ? &y[i] : NULL;
        const char *key = c <= 0 ? x[i].key : y[i].key;
        f->where = tl_arena_memdupz(arena, key, strlen(key));
        if (kind == ITEMS_SCHEDULES) {
            size_t nx = mine ? mine->schedule->nops : 0, ny = theirs ? theirs->schedule->nops : 0;
            size_t o = 0;
            while (o < nx && o < ny &&
                   !strcmp(nz(mine->schedule->ops[o]), nz(theirs->schedule->ops[o])))
                o++;
            if (o == nx && o == ny)
                continue;
            f->op = o + 1;
            f->mains = o < nx ? op_name(mine->schedule->ops[o], arena) : NULL;
            f->theirs = o < ny ? op_name(theirs->schedule->ops[o], arena) : NULL;
        } else if (kind == ITEMS_CACHE) {
            int p = mine ? mine->cache : 0, q = theirs ? theirs->cache : 0;
            if (p == q)
                continue;
            f->mains = cache_name(p);
            f->theirs = cache_name(q);
        } else {
            if (mine && theirs && !strcmp(mine->fingerprint, theirs->fingerprint))
                continue;
            f->mains = mine ? "present" : NULL;
            f->theirs = theirs ? "present" : NULL;
        }
        tl_arena_release(&tmp);
        return;
    }
    f->where = NULL; /* the same graphs, only in another order */
    tl_arena_release(&tmp);
}

/* Where b first parts from a in its compile ids: the first id only one of them compiled. */
static void first_of_cids(struct tl_rank_first *f, const struct tl_rank_summary *a,
                          const struct tl_rank_summary *b, struct tl_arena *arena)
{
    struct tl_arena tmp;
    tl_arena_init(&tmp, 0);
    size_t na, nb;
    bool idless;
    const char **x = real_ids(&tmp, a, &na, &idless);
    const char **y = real_ids(&tmp, b, &nb, &idless);
    for (size_t i = 0, j = 0; i < na || j < nb;) {
        int c = i >= na ? 1 : j >= nb ? -1 : tl_ranks_cid_cmp(x[i], y[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        const char *id = c < 0 ? x[i] : y[j];
        f->where = tl_arena_memdupz(arena, id, strlen(id));
        f->mains = c < 0 ? "compiled" : NULL;
        f->theirs = c > 0 ? "compiled" : NULL;
        break;
    }
    tl_arena_release(&tmp);
}

/* The summary of a group's lowest rank. */
static const struct tl_rank_summary *first_rank(const struct tl_rank_groups *g, size_t group,
                                                const struct tl_rank_summary *ranks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (g->of[i] == group + 1)
            return &ranks[i];
    return NULL;
}

/* For each group of g but the main one, where it parts from the main group; and the ranks
 * outside the main group get the bit. */
static struct tl_rank_first *groups_apart(struct tl_ranks *out, const struct tl_rank_groups *g,
                                          int kind, int bit, const struct tl_rank_summary *ranks,
                                          size_t n, struct tl_arena *arena)
{
    struct tl_rank_first *f = tl_arena_calloc(arena, g->n ? g->n : 1, sizeof(*f));
    if (g->n < 2)
        return f;
    const struct tl_rank_summary *main = first_rank(g, g->main, ranks, n);
    for (size_t k = 0; k < g->n; k++) {
        if (k == g->main)
            continue;
        const struct tl_rank_summary *other = first_rank(g, k, ranks, n);
        if (kind < 0)
            first_of_cids(&f[k], main, other, arena);
        else
            first_of_items(&f[k], main, other, (enum item_kind)kind, arena);
    }
    for (size_t i = 0; i < n; i++)
        if (g->of[i] && g->of[i] != g->main + 1)
            out->apart[i] |= (uint8_t)bit;
    return f;
}

static void where_apart(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                        struct tl_arena *arena)
{
    out->apart = tl_arena_calloc(arena, n ? n : 1, sizeof(*out->apart));
    out->cids_first = groups_apart(out, &out->cids, -1, TL_RANK_APART_CIDS, ranks, n, arena);
    out->cache_first =
        groups_apart(out, &out->cache, ITEMS_CACHE, TL_RANK_APART_CACHE, ranks, n, arena);
    if (out->has_schedules)
        out->schedules_first = groups_apart(out, &out->schedules, ITEMS_SCHEDULES,
                                            TL_RANK_APART_COLLECTIVES, ranks, n, arena);
    out->meta_first =
        groups_apart(out, &out->meta, ITEMS_META, TL_RANK_APART_META, ranks, n, arena);
}

void tl_ranks_analyze(struct tl_ranks *out, const struct tl_rank_summary *ranks, size_t n,
                      struct tl_arena *arena)
{
    memset(out, 0, sizeof(*out));
    out->ranks = ranks;
    out->nranks = n;
    out->cache_across = tl_ranks_cache_across(ranks, n, arena);
    out->exec.ranks_schedule = "";
    out->exec.ranks_cache = "";
    if (!ranks)
        n = out->nranks = 0;

    for (size_t i = 0; i < n; i++)
        if (usable(&ranks[i]))
            out->chromium_events += ranks[i].chromium_events;

    out->compile_ids_diverge = compile_ids_diverge(ranks, n);
    cid_groups(out, ranks, n, arena);
    if (out->cids.diverge)
        cid_gaps(out, ranks, n, arena);

    const char **cache = tl_arena_calloc(arena, n ? n : 1, sizeof(*cache));
    for (size_t i = 0; i < n; i++)
        if (usable(&ranks[i]))
            cache[i] = nz(ranks[i].cache_sequence);
    group_ranks(&out->cache, ranks, cache, n, arena);

    runtime_analysis(out, ranks, n, arena);
    schedule_groups(out, ranks, n, arena);
    meta_groups(out, ranks, n, arena);
    exec_order(&out->exec, ranks, n, arena);
    divergences(out, ranks, n, arena);
    where_apart(out, ranks, n, arena);
}

/* ---- §1.8 the runtime trace's thread id --------------------------------------------------- */

/* rustc-hash 1.x FxHasher: one word at a time. */
static uint64_t fx(uint64_t h, uint64_t w)
{
    return (((h << 5) | (h >> 59)) ^ w) * UINT64_C(0x517cc1b727220a95);
}

uint32_t tl_ranks_tid(uint32_t rank, const char *graph)
{
    const unsigned char *p = (const unsigned char *)nz(graph);
    size_t n = strlen((const char *)p);
    uint64_t h = fx(0, rank);
    while (n >= 8) {
        uint64_t w = 0;
        for (int i = 7; i >= 0; i--)
            w = (w << 8) | p[i];
        h = fx(h, w);
        p += 8;
        n -= 8;
    }
    if (n >= 4) {
        uint64_t w =
            (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
        h = fx(h, w);
        p += 4;
        n -= 4;
    }
    while (n) {
        h = fx(h, *p++);
        n--;
    }
    h = fx(h, 0xff); /* str's Hash ends with a 0xFF byte */
    return (uint32_t)h;
}

/* ---- §1.11 collectives parity ------------------------------------------------------------- */

static const char *const coll_names[TL_COLL__COUNT] = {
    [TL_COLL_ALL_REDUCE] = "all_reduce", [TL_COLL_REDUCE_SCATTER] = "reduce_scatter",
    [TL_COLL_ALL_GATHER] = "all_gather", [TL_COLL_BROADCAST] = "broadcast",
    [TL_COLL_ALL_TO_ALL] = "all_to_all", [TL_COLL_REDUCE] = "reduce",
};

static int collective_index(const char *op, size_t n)
{
    if (!op)
        return -1;
    while (n && op[n - 1] == '_')
        n--;
    /* the first name of the list found anywhere, then "reduce" on its own */
    for (int i = 0; i < TL_COLL__COUNT; i++) {
        size_t k = strlen(coll_names[i]);
        if (n >= k && memmem(op, n, coll_names[i], k))
            return i;
    }
    return -1;
}

const char *tl_ranks_collective(const char *op, size_t n)
{
    int i = collective_index(op, n);
    return i < 0 ? NULL : coll_names[i];
}

void tl_parity_schedule(struct tl_parity_counts *c, const char *const *ops, size_t n)
{
    for (size_t i = 0; ops && i < n; i++) {
        if (!ops[i])
            continue;
        int k = collective_index(ops[i], strlen(ops[i]));
        if (k >= 0)
            c->n[k]++;
    }
}

/* Copy src[0..n) to dst without the `<[^>]*>` matches; returns the length. */
static size_t strip_tags(char *dst, const char *src, size_t n)
{
    size_t o = 0, i = 0;
    while (i < n) {
        const char *lt = memchr(src + i, '<', n - i);
        size_t j = lt ? (size_t)(lt - src) : n;
        memcpy(dst + o, src + i, j - i);
        o += j - i;
        if (!lt)
            break;
        const char *gt = j + 1 < n ? memchr(src + j + 1, '>', n - j - 1) : NULL;
        if (!gt) { /* no '>' after this '<', so none after any later one: keep the rest */
            memcpy(dst + o, src + j, n - j);
            o += n - j;
            break;
        }
        i = (size_t)(gt - src) + 1;
    }
    return o;
}

/* Delete `#...` and `//...` up to the newline and the shortest block comments, left to right
 * (one regex alternation would do the same), in place; returns the new length. */
static size_t strip_comments(char *b, size_t n)
{
    size_t o = 0, i = 0;
    bool unclosed = false; /* a block comment found no end: no later one will */
    while (i < n) {
        size_t j = i;
        while (j < n && b[j] != '#' && b[j] != '/')
            j++;
        memmove(b + o, b + i, j - i);
        o += j - i;
        i = j;
        if (i >= n)
            break;
        if (b[i] == '#' || (i + 1 < n && b[i + 1] == '/')) {
            const char *nl = memchr(b + i, '\n', n - i);
            i = nl ? (size_t)(nl - b) : n;
            continue;
        }
        if (i + 1 < n && b[i + 1] == '*' && !unclosed) {
            const char *end = memmem(b + i + 2, n - i - 2, "*/", 2);
            if (end) {
                i = (size_t)(end - b) + 2;
                continue;
            }
            unclosed = true;
        }
        b[o++] = b[i++];
    }
    return o;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static size_t skip_space(const char *b, size_t i, size_t n)
{
    while (i < n && is_space(b[i]))
        i++;
    return i;
}

/* b[*i..] starts with lit: move past it. */
static bool eat(const char *b, size_t *i, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    if (n - *i < k || memcmp(b + *i, lit, k) != 0)
        return false;
    *i += k;
    return true;
}

/* `\s*\.\s*` */
static bool dot(const char *b, size_t *i, size_t n)
{
    size_t j = skip_space(b, *i, n);
    if (j >= n || b[j] != '.')
        return false;
    *i = skip_space(b, j + 1, n);
    return true;
}

/* torch\s*\.\s*ops\s*\.\s*_?c10d_functional\s*\.\s*(\w+)\s*\.\s*default\s*\( at b[i]; on a match
 * sets the name and *end (past the parenthesis). */
static bool call_at(const char *b, size_t i, size_t n, size_t *name, size_t *name_len, size_t *end)
{
    if (!eat(b, &i, n, "torch") || !dot(b, &i, n) || !eat(b, &i, n, "ops") || !dot(b, &i, n))
        return false;
    eat(b, &i, n, "_");
    if (!eat(b, &i, n, "c10d_functional") || !dot(b, &i, n))
        return false;
    size_t s = i;
    while (i < n && is_word(b[i]))
        i++;
    if (i == s)
        return false;
    *name = s;
    *name_len = i - s;
    if (!dot(b, &i, n) || !eat(b, &i, n, "default"))
        return false;
    i = skip_space(b, i, n);
    if (i >= n || b[i] != '(')
        return false;
    *end = i + 1;
    return true;
}

void tl_parity_code(struct tl_parity_counts *c, const char *text, size_t n)
{
    if (!text || !n)
        return;
    char *b = tl_xmalloc(n);
    n = strip_comments(b, strip_tags(b, text, n));
    size_t i = 0;
    while (i < n) {
        const char *t = memmem(b + i, n - i, "torch", 5);
        if (!t)
            break;
        size_t at = (size_t)(t - b);
        size_t name = 0, len = 0, end = 0;
        if (!call_at(b, at, n, &name, &len, &end)) {
            i = at + 1;
            continue;
        }
        if (len == 11 && memcmp(b + name, "wait_tensor", 11) == 0) {
            c->waits++;
        } else {
            int k = collective_index(b + name, len);
            if (k >= 0)
                c->n[k]++;
        }
        i = end;
    }
    free(b);
}

void tl_parity_compare(const struct tl_parity_counts *schedule, const struct tl_parity_counts *code,
                       uint64_t *offset, uint64_t *missing_waits)
{
    uint64_t off = 0, total = 0;
    for (int i = 0; i < TL_COLL__COUNT; i++) {
        uint64_t s = schedule->n[i], k = code->n[i];
        off += s > k ? s - k : k - s;
        total += k;
    }
    *offset = off;
    *missing_waits = total > code->waits ? total - code->waits : 0;
}

const struct tl_ck_across *tl_ranks_cache_across(const struct tl_rank_summary *ranks, size_t n,
                                                 struct tl_arena *arena)
{
    const struct tl_ck_digest **dg = tl_xcalloc(n ? n : 1, sizeof(*dg));
    uint32_t *numbers = tl_xcalloc(n ? n : 1, sizeof(*numbers));
    for (size_t i = 0; i < n; i++) {
        dg[i] = usable(&ranks[i]) ? ranks[i].cache_keys : NULL;
        numbers[i] = ranks[i].rank;
    }
    struct tl_ck_across *out = tl_arena_calloc(arena, 1, sizeof(*out));
    tl_cachekey_across(out, dg, numbers, n, TL_CK_ACROSS_ANY, arena);
    free(dg);
    free(numbers);
    return out;
}
