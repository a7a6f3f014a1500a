/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis's findings (diagnosis.h): at the end of a log, the facts that
 * diagnosis.c grouped are finished (frames skipped applied to their breaks and failures, file
 * names cut short made whole, limits, parameter shapes, expected recompiles) and ranked by cost
 * into one list of findings; and the counts of a diagnosis.
 */
#include "base/config.h"
#include "model/diagnosis.h"
#include "base/buf.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <stdlib.h>
#include <string.h>

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The log is of PyTorch 2.7 or later (as diagnosis.c's tl_diag_last_reason asks too). */
static bool torch_2_7_on(const struct tl_diag *d)
{
    return d->torch_major > 2 || (d->torch_major == 2 && d->torch_minor >= 7);
}

/* ---- frames skipped --------------------------------------------------------------------- */

static unsigned skipped_of(const struct tl_diag *d, const char *cid)
{
    return cid ? (unsigned)(uintptr_t)tl_map_get(&d->skipped, tl_str_cstr(cid)) : 0;
}

/* What the frames skipped say of their breaks and failures: a break of a frame skipped for it
 * made the frame run in eager mode (inside a loop: that is its advice); a failure of a skipped
 * frame ran in eager mode too (not the error fullgraph=True makes of a break), and the failure
 * of a frame skipped for a break in a loop is that break's, no failure of its own. */
static void apply_skipped(struct tl_diag *d)
{
    for (uint32_t i = 0; i < d->nbreaks && tl_map_len(&d->skipped); i++) {
        struct tl_diag_break *b = &d->breaks[i];
        unsigned flags = 0;
        for (uint32_t k = 0; k < b->cids.kept; k++)
            flags |= skipped_of(d, b->cids.s[k]);
        if (!flags)
            continue;
        b->fell_back = true;
        if ((flags & TL_DIAG_SKIPPED_LOOP) && !b->in_framework)
            b->advice = tl_advice_match(TL_ADVICE_GRAPH_BREAK, tl_str_cstr(TL_ADVICE_LOOP_BREAK));
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < d->nfailures; i++) {
        struct tl_diag_failure *x = &d->failures[i];
        unsigned flags = x->backward ? 0 : skipped_of(d, x->cid);
        if ((flags & TL_DIAG_SKIPPED_LOOP) && x->type && !strcmp(x->type, "Unsupported"))
            continue;
        if (flags)
            x->fell_back_to_eager = true;
        /* an Unsupported error that ran in eager mode was no fullgraph=True error */
        if (x->fell_back_to_eager && !strcmp(x->advice->category, "unsupported_fullgraph"))
            x->advice = tl_advice_match(TL_ADVICE_FAILURE, tl_str_cstr(TL_ADVICE_SKIPPED_FRAME));
        d->failures[kept++] = *x;
    }
    d->nfailures = kept;
}

/* ---- findings ----------------------------------------------------------------------------- */

const struct tl_diag_ranks *tl_diag_finding_ranks(const struct tl_diag *d,
                                                  const struct tl_diag_finding *f)
{
    switch (f->kind) {
    case TL_FIND_FAILURE:
        return &d->failures[f->index].ranks;
    case TL_FIND_LIMIT:
        return &d->limits[f->index].ranks;
    case TL_FIND_RECOMPILE:
        return &d->recompiles[f->index].ranks;
    case TL_FIND_BREAK:
        return &d->breaks[f->index].ranks;
    case TL_FIND_SPEC:
        return &d->specs[f->index].ranks;
    case TL_FIND_EXPORT:
        return &d->exports[f->index].ranks;
    case TL_FIND_RESTART:
        return &d->restarts[f->index].ranks;
    case TL_FIND_FRAME:
        break;
    }
    return NULL;
}

static void add_finding(struct tl_diag *d, enum tl_diag_finding_kind kind, uint32_t index,
                        double cost, uint32_t *alloc)
{
    TL_GROW(d->findings, d->nfindings + 1, *alloc);
    d->findings[d->nfindings].kind = kind;
    d->findings[d->nfindings].index = index;
    d->findings[d->nfindings].cost = cost;
    d->findings[d->nfindings].normal = false;
    d->nfindings++;
}

static int cmp_finding(const void *a, const void *b)
{
    const struct tl_diag_finding *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
    return (int)x->index - (int)y->index;
}

static int cmp_guard(const void *a, const void *b)
{
    const struct tl_diag_guard *x = a, *y = b;
    return x->count != y->count ? (x->count < y->count ? 1 : -1) : 0;
}

/* The cost of the findings of frames that ran in eager mode: above every other. */
#define EAGER 1.3e9

/*
 * The cost of a finding orders the list: a frame that ran in eager mode first (the limit hit,
 * a frame skipped, a failure suppress_errors ran in eager mode), then an export problem (the
 * export the user asked for produced no sound graph), then a failure (a function not compiled
 * at all), then recompiles and graph breaks by how often they happened, then the
 * specializations and the functions compiled many times.
 */
/* A guard on dynamic sizes that PyTorch adds as a matter of course, or that holds for every
 * size the code can take: nothing to do. */
static bool routine_guard(const struct tl_advice *a)
{
    static const char *const routine[] = {"shape_guard", "zero_one_specialization",
                                          "dimensions_equal", "divisibility_guard"};
    for (size_t i = 0; a && i < sizeof(routine) / sizeof(routine[0]); i++)
        if (!strcmp(a->category, routine[i]))
            return true;
    return false;
}

bool tl_diag_spec_routine(const struct tl_diag_spec *x)
{
    return x->kind == TL_SPEC_GUARD && routine_guard(x->advice);
}

/* The dimension or number guard g is on, as a symbol's source says it: "L['x'].size()[0]" of
 * "tensor 'L['x']' size mismatch at index 0" (2.6) or "tensor 'x' ..." (2.13, which names an
 * argument without L[...]), "L['n']" of "L['n'] == 1" or "n == 1". Appends nothing for
 * other guards. */
static void guard_source(struct tl_buf *src, const struct tl_diag_guard *g)
{
    struct tl_str text = tl_str_cstr(g->guard);
    struct tl_str name = TL_STR_NULL, index = TL_STR_NULL;
    if (!strcmp(g->advice->category, "shape_changed")) {
        long mis = tl_str_find(text, "' size mismatch at index ");
        if (!tl_str_has_prefix(text, "tensor '") || mis < 8)
            return;
        name = tl_str_make(text.p + 8, (size_t)mis - 8);
        index = tl_str_make(text.p + mis + 25, text.n - (size_t)mis - 25);
    } else if (!strcmp(g->advice->category, "constant_number")) {
        long eq = tl_str_find(text, " == <value>");
        if (eq <= 0 || (size_t)eq + 11 != text.n)
            return;
        name = tl_str_make(text.p, (size_t)eq);
    } else {
        return;
    }
    /* PyTorch 2.13 names a local as the code does: x, args[0], self.w; its symbols' sources
     * still say L['x'], L['args'][0], L['self'].w */
    size_t id = 0;
    while (id < name.n && ident_char(name.p[id]))
        id++;
    bool local =
        id && !(name.p[0] >= '0' && name.p[0] <= '9') &&
        (id == name.n || name.p[id] == '[' || name.p[id] == '.') &&
        !(id == 1 && (name.p[0] == 'L' || name.p[0] == 'G') && id < name.n && name.p[id] == '[');
    if (local)
        tl_buf_addf(src, "L['%.*s']%.*s", (int)id, name.p, (int)(name.n - id), name.p + id);
    else
        tl_buf_addstr(src, name);
    if (index.p)
        tl_buf_addf(src, ".size()[%.*s]", (int)index.n, index.p);
}

/* r is automatic dynamic shapes at work: the function recompiled once, because sizes changed,
 * and (when the log records the symbols made) the recompile made those dimensions dynamic; or
 * because a Python number changed, and the recompile made it a symbol (an int or a float
 * becomes dynamic as a size does). */
static bool automatic_dynamic(const struct tl_diag *d, const struct tl_diag_recompile *r,
                              bool *number, bool *floating)
{
    *number = false;
    *floating = false;
    if (r->count != 1 || !r->nguards || r->cids.kept != 1 || !d->automatic_dynamic)
        return false;
    for (uint32_t g = 0; g < r->nguards; g++) {
        const struct tl_diag_guard *x = &r->guards[g];
        if (!x->advice)
            return false;
        bool size = !strcmp(x->advice->category, "shape_changed");
        if (!size && strcmp(x->advice->category, "constant_number"))
            return false;
        *number = *number || !size;
        if (size && !d->ndynamic_all) /* symbols not logged: the size change alone says it */
            continue;
        struct tl_buf src = TL_BUF_INIT;
        guard_source(&src, x);
        bool made = false;
        for (uint32_t i = 0; i < d->ndynamic && !made && src.len; i++) {
            made = d->dynamic[i].cid == r->cids.s[0] && d->dynamic[i].source &&
                   !strcmp(d->dynamic[i].source, src.buf);
            /* zf0: a float's symbol */
            *floating = *floating ||
                        (made && d->dynamic[i].symbol && !strncmp(d->dynamic[i].symbol, "zf", 2));
        }
        tl_buf_release(&src);
        if (!made)
            return false;
    }
    return true;
}

/* x bounds a size with a constant (s77 <= 8, from `if x.shape[0] > 8:`) and a recompile failed
 * on that size's range: it is the branch that compiled both sides, not a guard to pass over. */
static bool branch_taken(const struct tl_diag *d, const struct tl_diag_spec *x)
{
    if (x->kind != TL_SPEC_GUARD || x->nsyms != 1 || !x->syms[0].source || !x->expr || !x->advice ||
        strcmp(x->advice->category, "shape_guard") ||
        (!strchr(x->expr, '<') && !strchr(x->expr, '>')))
        return false;
    /* the source as 2.6 names it in a guard (L['x'].size()[0]) and as 2.13 does (x.size()[0]) */
    const char *src = x->syms[0].source;
    struct tl_buf bare = TL_BUF_INIT;
    struct tl_str s = tl_str_cstr(src);
    long close = tl_str_find(s, "']");
    if (tl_str_has_prefix(s, "L['") && close > 3)
        tl_buf_addf(&bare, "%.*s%s", (int)(close - 3), src + 3, src + close + 2);
    bool hit = false;
    for (uint32_t i = 0; i < d->nrecompiles && !hit; i++)
        for (uint32_t g = 0; g < d->recompiles[i].nguards && !hit; g++) {
            const struct tl_diag_guard *y = &d->recompiles[i].guards[g];
            if (!y->advice || strcmp(y->advice->category, "size_branch"))
                continue;
            struct tl_str t = tl_str_cstr(y->guard);
            long at = bare.len ? tl_str_find(t, bare.buf) : -1;
            hit = tl_str_find(t, src) >= 0 ||
                  (at == 0 || (at > 0 && !ident_char(t.p[at - 1]) && t.p[at - 1] != '\''));
        }
    tl_buf_release(&bare);
    return hit;
}

/* ---- file names cut short ------------------------------------------------------------------ */

/* At most this many distinct full paths are matched against. */
#define MAX_PATHS 64

struct paths {
    const char *full[MAX_PATHS];
    uint32_t n;
};

static bool absolute(const char *f)
{
    return f[0] == '/' || f[0] == '\\' || (f[0] && f[1] == ':');
}

/* A place a finding names: collect its file when it is a full path; with fix, replace a file
 * cut short by the one full path it ends. */
static void visit(struct paths *p, struct tl_diag_loc *l, bool fix)
{
    if (!l->file || !l->file[0] || l->file[0] == '<')
        return;
    if (!fix) {
        if (!absolute(l->file))
            return;
        for (uint32_t i = 0; i < p->n; i++)
            if (p->full[i] == l->file)
                return;
        if (p->n < MAX_PATHS)
            p->full[p->n++] = l->file;
        return;
    }
    if (absolute(l->file))
        return;
    /* PyTorch 2.13's TORCH_LOGS cuts a path's start ("mp/x/model.py" of "/tmp/x/model.py"):
     * the one full path it ends is the file */
    size_t n = strlen(l->file);
    const char *found = NULL;
    for (uint32_t i = 0; i < p->n; i++) {
        size_t m = strlen(p->full[i]);
        if (m > n && !strcmp(p->full[i] + m - n, l->file)) {
            if (found)
                return; /* two files end so: cannot tell */
            found = p->full[i];
        }
    }
    if (found)
        l->file = found;
}

/* Visit every place a finding names. */
static void each_loc(struct tl_diag *d, struct paths *p, bool fix)
{
    for (uint32_t i = 0; i < d->nbreaks; i++) {
        for (uint32_t k = 0; k < d->breaks[i].nlocs; k++)
            visit(p, &d->breaks[i].locs[k], fix);
        visit(p, &d->breaks[i].inside, fix);
    }
    for (uint32_t i = 0; i < d->nrecompiles; i++) {
        visit(p, &d->recompiles[i].where, fix);
        visit(p, &d->recompiles[i].called_from, fix);
    }
    for (uint32_t i = 0; i < d->nspecs; i++)
        visit(p, &d->specs[i].where, fix);
    for (uint32_t i = 0; i < d->ndynamic; i++)
        visit(p, &d->dynamic[i].where, fix);
    for (uint32_t i = 0; i < d->nfailures; i++) {
        visit(p, &d->failures[i].where, fix);
        visit(p, &d->failures[i].forward_where, fix);
    }
    for (uint32_t i = 0; i < d->nlimits; i++)
        visit(p, &d->limits[i].where, fix);
    for (uint32_t i = 0; i < d->nframes; i++)
        visit(p, &d->frames[i].where, fix);
    for (uint32_t i = 0; i < d->nexports; i++) {
        visit(p, &d->exports[i].where, fix);
        for (uint32_t k = 0; k < d->exports[i].nunbacked; k++)
            visit(p, &d->exports[i].unbacked[k].where, fix);
    }
    for (uint32_t i = 0; i < d->nrestarts; i++) {
        visit(p, &d->restarts[i].where, fix);
        visit(p, &d->restarts[i].called_from, fix);
    }
    for (uint32_t i = 0; i < d->nearly; i++)
        visit(p, &d->early[i].where, fix);
}

/* Files the log names cut short get the full path another of its messages gives. The
 * grouping keys keep the name as logged, so that a fact that comes later still finds its
 * finding. */
static void full_paths(struct tl_diag *d)
{
    struct paths p;
    p.n = 0;
    each_loc(d, &p, false);
    if (p.n)
        each_loc(d, &p, true);
}

bool tl_diag_limit_listed(const struct tl_diag *d, const struct tl_diag_limit *l)
{
    if (!l->reason_advice)
        return false;
    for (uint32_t i = 0; i < d->nrecompiles; i++) {
        const struct tl_diag_recompile *r = &d->recompiles[i];
        if (!r->function || !l->function || strcmp(r->function, l->function))
            continue;
        for (uint32_t g = 0; g < r->nguards; g++)
            if (r->guards[g].advice &&
                !strcmp(r->guards[g].advice->category, l->reason_advice->category))
                return true;
    }
    return false;
}

/* What the whole log says of a limit: the name of the setting in its PyTorch, whether the
 * log's config is the cause (automatic dynamic shapes off while sizes or numbers changed),
 * whether a recompile of the function gives its last reason's advice already. */
static void finish_limit(struct tl_diag *d, struct tl_diag_limit *l)
{
    if (!l->limit_name)
        l->limit_name = tl_diag_limit_setting(d);
    l->reason_listed = tl_diag_limit_listed(d, l);
    bool changed = false; /* a size or a number changed */
    for (uint32_t i = 0; i < d->nrecompiles; i++) {
        const struct tl_diag_recompile *r = &d->recompiles[i];
        if (r->function != l->function)
            continue;
        for (uint32_t g = 0; g < r->nguards; g++) {
            const struct tl_advice *a = r->guards[g].advice;
            changed = changed || (a && (!strcmp(a->category, "shape_changed") ||
                                        !strcmp(a->category, "constant_number")));
        }
    }
    l->advice = tl_advice_match(
        TL_ADVICE_LIMIT,
        tl_str_cstr(d->automatic_dynamic == 0 && changed ? TL_ADVICE_LIMIT_STATIC : ""));
}

/* x specialized a dimension inside PyTorch's nn.Module code (Eq(s27, 16) at
 * torch/nn/modules/linear.py): the size met a parameter, whose shape is static (PyTorch's
 * force_parameter_static_shapes, on by default). */
static bool parameter_spec(const struct tl_diag_spec *x)
{
    return x->advice && !strcmp(x->advice->category, "dimension_specialized") && x->where.file &&
           (strstr(x->where.file, "/torch/nn/modules/") ||
            /* TORCH_LOGS names PyTorch's files from its folder: nn/modules/linear.py */
            !strncmp(x->where.file, "nn/modules/", 11) ||
            strstr(x->where.file, "\\torch\\nn\\modules\\"));
}

/* Whether the size guard text ("tensor 'x' size mismatch at index 1", with or without
 * ". expected 8, actual 16" after it) is on a dimension a parameter fixes (parameter_spec). */
static bool parameter_dim(const struct tl_diag *d, const char *text, const struct tl_advice *a)
{
    if (!text || !a || strcmp(a->category, "shape_changed"))
        return false;
    struct tl_str t = tl_str_cstr(text);
    long cut = tl_str_find(t, ". expected");
    struct tl_buf g = TL_BUF_INIT, src = TL_BUF_INIT;
    tl_buf_addf(&g, "%.*s", (int)(cut >= 0 ? (size_t)cut : t.n), t.p);
    struct tl_diag_guard tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.guard = g.buf;
    tmp.advice = a;
    guard_source(&src, &tmp);
    bool hit = false;
    for (uint32_t i = 0; i < d->nspecs && !hit && src.len; i++)
        hit = d->specs[i].advice && !strcmp(d->specs[i].advice->category, "parameter_shape") &&
              d->specs[i].source && !strcmp(d->specs[i].source, src.buf);
    tl_buf_release(&g);
    tl_buf_release(&src);
    return hit;
}

/* A dimension a module's parameter fixes: its specializations, the recompiles on its size and
 * a limit they led to say so, not "mark it dynamic". */
static void parameter_shapes(struct tl_diag *d)
{
    const struct tl_advice *spec = NULL, *guard = NULL;
    for (uint32_t i = 0; i < d->nspecs; i++)
        if (parameter_spec(&d->specs[i])) {
            spec = tl_advice_match(TL_ADVICE_SHAPE, tl_str_cstr(TL_ADVICE_PARAMETER_SHAPE));
            d->specs[i].advice = spec;
        }
    if (!spec)
        return;
    guard = tl_advice_match(TL_ADVICE_GUARD, tl_str_cstr(TL_ADVICE_PARAMETER_SHAPE));
    for (uint32_t i = 0; i < d->nrecompiles; i++)
        for (uint32_t g = 0; g < d->recompiles[i].nguards; g++) {
            struct tl_diag_guard *x = &d->recompiles[i].guards[g];
            if (parameter_dim(d, x->guard, x->advice))
                x->advice = guard;
        }
    for (uint32_t i = 0; i < d->nlimits; i++) {
        struct tl_diag_limit *l = &d->limits[i];
        if (parameter_dim(d, l->last_reason, l->reason_advice))
            l->reason_advice = guard;
    }
}

/* Whether compile ids a and b ("[0/2]", "[0/1]") are of the same frame. */
static bool same_frame(const char *a, const char *b)
{
    const char *sa = a ? strchr(a, '/') : NULL, *sb = b ? strchr(b, '/') : NULL;
    return sa && sb && sa - a == sb - b && !memcmp(a, b, (size_t)(sa - a));
}

/* Whether one of g's values ("expected 8, actual 3") expected `value`. */
static bool expected_value(const struct tl_diag_guard *g, const char *value)
{
    size_t n = strlen(value);
    for (uint32_t i = 0; i < g->values.kept; i++) {
        const char *v = g->values.s[i];
        if (v && !strncmp(v, "expected ", 9) && !strncmp(v + 9, value, n) && v[9 + n] == ',')
            return true;
    }
    return false;
}

/* The dimension specialization (not a parameter's) of r's frame that g's size change is on:
 * the same source, specialized to the size g expected. */
static bool specialized_dim(const struct tl_diag *d, const struct tl_diag_recompile *r,
                            const struct tl_diag_guard *g)
{
    if (!g->advice || strcmp(g->advice->category, "shape_changed"))
        return false;
    struct tl_buf src = TL_BUF_INIT;
    guard_source(&src, g);
    bool hit = false;
    for (uint32_t i = 0; i < d->nspecs && !hit && src.len; i++) {
        const struct tl_diag_spec *x = &d->specs[i];
        if (!x->advice || strcmp(x->advice->category, "dimension_specialized") || !x->source ||
            !x->value || strcmp(x->source, src.buf) || !expected_value(g, x->value))
            continue;
        for (uint32_t c = 0; c < r->cids.kept && !hit; c++)
            hit = same_frame(r->cids.s[c], x->cid);
    }
    tl_buf_release(&src);
    return hit;
}

/* A size change on a dimension a compile had specialized: the specialization is what to fix;
 * "mark it dynamic" alone would make it an error. */
static void specialized_shapes(struct tl_diag *d)
{
    const struct tl_advice *a = NULL;
    for (uint32_t i = 0; i < d->nrecompiles; i++)
        for (uint32_t g = 0; g < d->recompiles[i].nguards; g++) {
            struct tl_diag_guard *x = &d->recompiles[i].guards[g];
            if (!specialized_dim(d, &d->recompiles[i], x))
                continue;
            if (!a)
                a = tl_advice_match(TL_ADVICE_GUARD, tl_str_cstr(TL_ADVICE_SPECIALIZED_SHAPE));
            x->advice = a;
        }
}

/* r is what a model used as intended costs: one more graph for eval() after train(), for a
 * call under torch.no_grad() after training, or for a call without an optional argument (or
 * a dict without a key) after one with it. Said once, it is no problem. */
static bool expected_recompile(const struct tl_diag_recompile *r)
{
    static const char *const expected[] = {"train_eval_mode", "optional_argument",
                                           "grad_mode_changed", "dict_keys_changed"};
    if (r->count != 1 || !r->nguards || !r->advice)
        return false;
    for (size_t i = 0; i < TL_ARRAY_LEN(expected); i++)
        if (!strcmp(r->advice->category, expected[i]))
            return true;
    return false;
}

void tl_diag_finish(struct tl_diag *d)
{
    uint32_t alloc = 0;
    full_paths(d);
    free(d->findings);
    d->findings = NULL;
    d->nfindings = 0;
    apply_skipped(d);
    parameter_shapes(d);
    specialized_shapes(d);
    for (uint32_t i = 0; i < d->nexports; i++)
        add_finding(d, TL_FIND_EXPORT, i, 1.2e9 + d->exports[i].count, &alloc);
    /* A frame that ran in eager mode loses its speed silently: first of all (EAGER). */
    for (uint32_t i = 0; i < d->nfailures; i++)
        add_finding(d, TL_FIND_FAILURE, i, d->failures[i].fell_back_to_eager ? EAGER + 1e7 : 1e9,
                    &alloc);
    for (uint32_t i = 0; i < d->nlimits; i++) {
        finish_limit(d, &d->limits[i]);
        add_finding(d, TL_FIND_LIMIT, i, EAGER + 3e7, &alloc);
    }
    for (uint32_t i = 0; i < d->nrecompiles; i++) {
        struct tl_diag_recompile *r = &d->recompiles[i];
        if (r->nguards)
            tl_sort(r->guards, r->nguards, sizeof(*r->guards), cmp_guard);
        r->advice =
            r->nguards ? r->guards[0].advice : tl_advice_match(TL_ADVICE_GUARD, tl_str_cstr(""));
        bool number;
        bool floating;
        if (automatic_dynamic(d, r, &number, &floating)) {
            /* compile(dynamic=True) makes a float dynamic from the start in 2.13, not in 2.6 */
            bool new_torch = torch_2_7_on(d);
            r->advice = tl_advice_match(TL_ADVICE_GUARD,
                                        tl_str_cstr(!number ? TL_ADVICE_AUTOMATIC_DYNAMIC
                                                    : floating && !new_torch
                                                        ? TL_ADVICE_AUTOMATIC_DYNAMIC_FLOAT
                                                        : TL_ADVICE_AUTOMATIC_DYNAMIC_NUMBER));
            add_finding(d, TL_FIND_RECOMPILE, i, 20 + r->count, &alloc);
            d->findings[d->nfindings - 1].normal = true;
            continue;
        }
        if (expected_recompile(r)) {
            add_finding(d, TL_FIND_RECOMPILE, i, 20 + r->count, &alloc);
            d->findings[d->nfindings - 1].normal = true;
            continue;
        }
        add_finding(d, TL_FIND_RECOMPILE, i, 1e6 + 1e3 * r->count, &alloc);
    }
    for (uint32_t i = 0; i < d->nbreaks; i++)
        add_finding(d, TL_FIND_BREAK, i,
                    d->breaks[i].fell_back ? EAGER + 2e7 + d->breaks[i].count
                                           : 1e6 + 1e3 * d->breaks[i].count - 1,
                    &alloc);
    for (uint32_t i = 0; i < d->nspecs; i++) {
        struct tl_diag_spec *x = &d->specs[i];
        if (branch_taken(d, x))
            x->advice = tl_advice_match(TL_ADVICE_SHAPE, tl_str_cstr(TL_ADVICE_SIZE_BRANCH));
        bool normal = tl_diag_spec_routine(x);
        add_finding(d, TL_FIND_SPEC, i,
                    normal                           ? 10 + x->count
                    : x->kind == TL_SPEC_SPECIALIZED ? 1e5 + x->count
                                                     : 1e4 + x->count,
                    &alloc);
        d->findings[d->nfindings - 1].normal = normal;
    }
    /* A restart is how dynamo works, not a problem: last. */
    for (uint32_t i = 0; i < d->nrestarts; i++)
        add_finding(d, TL_FIND_RESTART, i, 1e3 + d->restarts[i].count, &alloc);
    for (uint32_t i = 0; i < d->nframes; i++) {
        const struct tl_diag_frame *f = &d->frames[i];
        if (f->compiles < TL_DIAG_MANY_COMPILES)
            continue;
        /* Its recompiles, with their reasons, say it already. */
        bool said = false;
        for (uint32_t k = 0; k < d->nrecompiles && !said; k++)
            said = d->recompiles[k].function == f->function &&
                   d->recompiles[k].where.file == f->where.file &&
                   d->recompiles[k].where.line == f->where.line;
        if (!said)
            add_finding(d, TL_FIND_FRAME, i, 5e5 + f->compiles, &alloc);
    }
    if (d->nfindings)
        tl_sort(d->findings, d->nfindings, sizeof(*d->findings), cmp_finding);
    tl_diag_forecast_finish(d, tl_diag_limit_setting(d));
}

void tl_diag_counts(const struct tl_diag *d, struct tl_diag_counts *c)
{
    memset(c, 0, sizeof(*c));
    c->compile_ids = d->compile_ids;
    for (uint32_t i = 0; i < d->nbreaks; i++)
        c->graph_breaks += d->breaks[i].count;
    for (uint32_t i = 0; i < d->nrecompiles; i++)
        c->recompiles += d->recompiles[i].count;
    for (uint32_t i = 0; i < d->nspecs; i++)
        if (d->specs[i].kind == TL_SPEC_SPECIALIZED)
            c->specializations += d->specs[i].count;
    c->failures = d->nfailures;
    c->limits = d->nlimits;
    for (uint32_t i = 0; i < d->nrestarts; i++)
        c->restarts += d->restarts[i].count;
    for (uint32_t i = 0; i < d->nexports; i++)
        c->export_problems += d->exports[i].count;
    for (uint32_t i = 0; i < d->nfframes; i++)
        c->eager_frames += d->fframes[i].eager != TL_EAGER_NO;
    c->total_s = d->total_s;
    c->have_times = d->have_times;
}
