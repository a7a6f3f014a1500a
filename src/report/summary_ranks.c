/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The summaries of multi-rank runs (summary.h): the "rank" member of a rank's summary.json,
 * the summary.json of the landing page (schema tlparse-ranks/1), and --json and --summary of
 * a folder of rank logs.
 */
#include "base/config.h"
#include "report/summary.h"
#include "base/json_write.h"
#include "report/cache_miss.h"
#include "base/xalloc.h"
#include "report/terminal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void j_names(struct tl_json_doc *w, const char *key, const char *const *v, size_t n)
{
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (size_t i = 0; i < n; i++)
        tl_json_doc_str(w, v[i]);
    tl_json_doc_end(w, ']');
}

/* The "rank" member: everything the landing page reads (model/ranks.h), so that it can be
 * made from the summaries alone (`--all-ranks-html --from-summaries`). */
void tl_summary_json_rank(struct tl_json_doc *w, const struct tl_rank_summary *r)
{
    tl_json_doc_key(w, "rank");
    tl_json_doc_object(w);
    tl_json_doc_ku64(w, "number", r->rank);
    tl_json_doc_kstr(w, "log", r->log ? r->log : "");
    tl_json_doc_kstr(w, "error", r->error);
    tl_json_doc_kstr(w, "notes", r->notes);
    j_names(w, "compile_ids", r->compile_ids, r->ncompile_ids);
    tl_json_doc_kstr(w, "cache_sequence", r->cache_sequence ? r->cache_sequence : "");
    tl_json_doc_ku64(w, "chromium_events", r->chromium_events);
    tl_json_doc_key(w, "runtime");
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nruntime; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "graph", r->runtime[i].graph);
        tl_json_doc_key(w, "ops");
        tl_json_doc_array(w);
        for (size_t j = 0; j < r->runtime[i].nops; j++) {
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "name", r->runtime[i].ops[j].name);
            tl_json_doc_key(w, "estimated_runtime_ns");
            tl_json_doc_f64_exact(w, r->runtime[i].ops[j].estimated_runtime_ns);
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_key(w, "tensor_meta");
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nmeta; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "graph", r->meta[i].graph);
        tl_json_doc_kstr(w, "fingerprint", r->meta[i].fingerprint);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_key(w, "collective_schedules");
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nschedules; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "graph", r->schedules[i].graph);
        j_names(w, "ops", r->schedules[i].ops, r->schedules[i].nops);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    if (r->has_exec_order) {
        j_names(w, "execution_order", r->exec_order, r->nexec_order);
    } else {
        tl_json_doc_key(w, "execution_order");
        tl_json_doc_null(w);
    }
    tl_json_doc_key(w, "folders");
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nfolders; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "folder", r->folders[i].folder);
        tl_json_doc_kstr(w, "compile_id", r->folders[i].key);
        tl_json_doc_kstr(w, "cache_status", r->folders[i].cache_status);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_key(w, "diagnosis");
    tl_json_doc_object(w);
    tl_json_doc_ku64(w, "recompiles", r->diag.recompiles);
    tl_json_doc_ku64(w, "graph_breaks", r->diag.graph_breaks);
    tl_json_doc_ku64(w, "failures", r->diag.failures);
    tl_json_doc_ku64(w, "limits", r->diag.limits);
    tl_json_doc_ku64(w, "compile_ids", r->diag.compile_ids);
    tl_json_doc_key(w, "compile_time_s");
    if (r->diag.has_time)
        tl_json_doc_f64(w, r->diag.compile_s);
    else
        tl_json_doc_null(w);
    static const char *const details[4] = {"recompiled", "broke_graphs", "failed", "limit_hit"};
    for (int k = 0; k < 4; k++)
        tl_json_doc_kstr(w, details[k], r->diag.detail[k]);
    tl_json_doc_end(w, '}');
    tl_json_doc_end(w, '}');
}

/* The diagnosis counts that ranks may differ in, as the landing page says them: their name,
 * what a rank did, and where the rank folder's counts hold them; by index k of rank_count()
 * (the order of the divergences of model/ranks.h). */
static const struct {
    const char *kind, *what;
    size_t at; /* of struct tl_summary_counts */
} rank_counts[] = {
    {"recompiles", "recompiled", offsetof(struct tl_summary_counts, recompiles)},
    {"graph_breaks", "broke graphs", offsetof(struct tl_summary_counts, graph_breaks)},
    {"failures", "failed to compile", offsetof(struct tl_summary_counts, failures)},
    {"recompile_limits", "hit the recompile limit",
     offsetof(struct tl_summary_counts, recompile_limits)},
};

static uint32_t rank_count(const struct tl_rank_summary *s, size_t k)
{
    const uint32_t v[] = {s->diag.recompiles, s->diag.graph_breaks, s->diag.failures,
                          s->diag.limits};
    return v[k];
}

/* The ranks (with a report) whose count k is non-zero (on) or zero. */
static size_t j_ranks_with(struct tl_json_doc *w, const char *key, const struct tl_ranks *r,
                           size_t k, bool on)
{
    size_t n = 0;
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (size_t i = 0; i < r->nranks; i++) {
        if (r->ranks[i].error || (rank_count(&r->ranks[i], k) > 0) != on)
            continue;
        tl_json_doc_u64(w, r->ranks[i].rank);
        n++;
    }
    tl_json_doc_end(w, ']');
    return n;
}

static void j_groups(struct tl_json_doc *w, const char *key, const char *value_key,
                     const struct tl_rank_groups *g)
{
    tl_json_doc_key(w, key);
    tl_json_doc_array(w);
    for (size_t i = 0; i < g->n; i++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, value_key, g->groups[i].value);
        tl_json_doc_key(w, "ranks");
        tl_json_doc_array(w);
        for (size_t k = 0; k < g->groups[i].nranks; k++)
            tl_json_doc_u64(w, g->groups[i].ranks[k]);
        tl_json_doc_end(w, ']');
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

/* ---- where each rank's time went ------------------------------------------------------------ */

/* "ledger": each rank's compile-time ledger lines (model/ledger.h; ranks without one left
 * out), the same numbers as its own summary.json's compile_time.ledger, and the straggler: the
 * rank that compiled longest (null when fewer than two ranks have a ledger, or all compiled
 * as long). v[i] is rank ranks[i]'s (NULL: none). */
static void j_rank_ledgers(struct tl_json_doc *w, const uint32_t *ranks,
                           const struct tl_ledger_lines *const *v, size_t n)
{
    tl_json_doc_key(w, "ledger");
    tl_json_doc_object(w);
    tl_json_doc_key(w, "ranks");
    tl_json_doc_array(w);
    for (size_t i = 0; i < n; i++) {
        if (!v[i] || !v[i]->present)
            continue;
        tl_json_doc_object(w);
        tl_json_doc_ku64(w, "rank", ranks[i]);
        tl_json_doc_key(w, "span_s");
        tl_json_doc_f64(w, v[i]->span_s);
        tl_json_doc_key(w, "compiling_s");
        tl_json_doc_f64(w, v[i]->compiling_s);
        tl_json_doc_key(w, "runtime_s");
        tl_json_doc_f64(w, v[i]->runtime_s);
        tl_json_doc_key(w, "unaccounted_s");
        tl_json_doc_f64(w, v[i]->unaccounted_s);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    long top = tl_ledger_straggler(v, n);
    tl_json_doc_key(w, "straggler");
    if (top < 0)
        tl_json_doc_null(w);
    else
        tl_json_doc_u64(w, ranks[top]);
    tl_json_doc_end(w, '}');
}

/* " 1.23 s (45%)" */
static void share(struct tl_buf *b, double s, double whole)
{
    tl_buf_addf(b, " %.2f s", s);
    if (whole > 0)
        tl_buf_addf(b, " (%.0f%%)", 100 * s / whole);
}

/* --summary's lines of the same: a line per rank with a ledger, then the straggler. */
static void text_rank_ledgers(struct tl_buf *b, const uint32_t *ranks,
                              const struct tl_ledger_lines *const *v, size_t n)
{
    size_t with = 0;
    for (size_t i = 0; i < n; i++)
        with += v[i] && v[i]->present;
    if (!with)
        return;
    tl_buf_adds(b, "\n  Where the time went, per rank:\n");
    for (size_t i = 0; i < n; i++) {
        const struct tl_ledger_lines *l = v[i];
        if (!l || !l->present)
            continue;
        tl_buf_addf(b, "    Rank %u: the log spans %.2f s; compiling", ranks[i], l->span_s);
        share(b, l->compiling_s, l->span_s);
        if (l->runtime_s > 0) {
            tl_buf_adds(b, ", first runs");
            share(b, l->runtime_s, l->span_s);
        }
        tl_buf_adds(b, ", unaccounted");
        share(b, l->unaccounted_s, l->span_s);
        tl_buf_adds(b, "\n");
    }
    long top = tl_ledger_straggler(v, n);
    if (top < 0)
        return;
    size_t least = (size_t)top;
    for (size_t i = 0; i < n; i++)
        if (v[i] && v[i]->present && v[i]->compiling_s < v[least]->compiling_s)
            least = i;
    tl_buf_addf(b, "  Rank %u compiled longest: %.2f s, %.2f s more than Rank %u.\n", ranks[top],
                v[top]->compiling_s, v[top]->compiling_s - v[least]->compiling_s, ranks[least]);
}

/* The ranks' numbers and their ledgers' lines, as j_rank_ledgers takes them (free both). */
static void folder_ledgers(const struct tl_summary_rank_folder *f, uint32_t **ranks,
                           const struct tl_ledger_lines ***v)
{
    *ranks = tl_xcalloc(f->n ? f->n : 1, sizeof(**ranks));
    *v = tl_xcalloc(f->n ? f->n : 1, sizeof(**v));
    for (size_t i = 0; i < f->n; i++) {
        (*ranks)[i] = f->ranks[i].rank;
        (*v)[i] = f->ranks[i].read ? &f->ranks[i].ledger : NULL;
    }
}

void tl_summary_json_ranks(struct tl_buf *out, const struct tl_ranks *r)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY);
    tl_json_doc_object(&w);
    tl_json_doc_kstr(&w, "schema", "tlparse-ranks/1");
    tl_json_doc_key(&w, "ranks");
    tl_json_doc_array(&w);
    for (size_t i = 0; i < r->nranks; i++) {
        const struct tl_rank_summary *s = &r->ranks[i];
        char report[48];
        snprintf(report, sizeof(report), "rank_%u/index.html", s->rank);
        tl_json_doc_object(&w);
        tl_json_doc_ku64(&w, "rank", s->rank);
        tl_json_doc_kstr(&w, "log", s->log);
        tl_json_doc_kstr(&w, "report", s->error ? NULL : report);
        tl_json_doc_kstr(&w, "error", s->error);
        tl_json_doc_kstr(&w, "notes", s->notes);
        /* as the rank's own summary counts them: [-/-] is no compile id */
        tl_json_doc_ku64(&w, "compile_ids", s->diag.compile_ids);
        for (size_t k = 0; k < TL_ARRAY_LEN(rank_counts); k++)
            tl_json_doc_ku64(&w, rank_counts[k].kind, rank_count(s, k));
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, ']');
    /* A finding per count that some ranks have and others do not. */
    tl_json_doc_key(&w, "divergences");
    tl_json_doc_array(&w);
    for (size_t k = 0; k < TL_ARRAY_LEN(rank_counts); k++) {
        size_t on = 0, off = 0;
        for (size_t i = 0; i < r->nranks; i++) {
            if (r->ranks[i].error)
                continue;
            if (rank_count(&r->ranks[i], k))
                on++;
            else
                off++;
        }
        if (!on || !off)
            continue;
        tl_json_doc_object(&w);
        tl_json_doc_kstr(&w, "kind", rank_counts[k].kind);
        tl_json_doc_kstr(&w, "what", rank_counts[k].what);
        j_ranks_with(&w, "ranks", r, k, true);
        j_ranks_with(&w, "others", r, k, false);
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, ']');
    tl_json_doc_kbool(&w, "compile_ids_diverge", r->compile_ids_diverge);
    j_groups(&w, "cache_groups", "sequence", &r->cache);
    j_groups(&w, "collective_groups", "ops", &r->schedules);
    j_groups(&w, "tensor_meta_groups", "signature", &r->meta);
    tl_json_doc_key(&w, "execution_order");
    if (r->exec.available) {
        tl_json_doc_object(&w);
        tl_json_doc_kbool(&w, "order_differs", r->exec.order_differs);
        tl_json_doc_kstr(&w, "schedule_mismatch", r->exec.ranks_schedule);
        tl_json_doc_kstr(&w, "cache_mismatch", r->exec.ranks_cache);
        tl_json_doc_end(&w, '}');
    } else {
        tl_json_doc_null(&w);
    }
    /* the cache misses that another rank's entries explain, when there are some */
    if (r->cache_across && r->cache_across->nmisses) {
        tl_json_doc_key(&w, "cache_misses");
        tl_json_doc_array(&w);
        tl_cachemiss_across_json(&w, r->cache_across, true);
        tl_json_doc_end(&w, ']');
        tl_json_doc_ku64(&w, "cache_lookups_dropped", r->cache_across->dropped);
    }
    uint32_t *numbers = tl_xcalloc(r->nranks ? r->nranks : 1, sizeof(*numbers));
    const struct tl_ledger_lines **lines = tl_xcalloc(r->nranks ? r->nranks : 1, sizeof(*lines));
    for (size_t i = 0; i < r->nranks; i++) {
        numbers[i] = r->ranks[i].rank;
        lines[i] = r->ranks[i].error ? NULL : &r->ranks[i].diag.ledger;
    }
    j_rank_ledgers(&w, numbers, lines, r->nranks);
    free(numbers);
    free(lines);
    tl_json_doc_end(&w, '}');
    tl_buf_addch(out, '\n');
}

/* ---- --summary, --json of a folder of rank logs ------------------------------------------- */

static uint64_t counter(const struct tl_summary_counts *c, size_t at)
{
    uint64_t v;
    memcpy(&v, (const char *)c + at, sizeof(v));
    return v;
}

/* Whether rank r was read and its counter at is (not) zero. */
static bool has_counter(const struct tl_summary_rank_diag *r, size_t at, bool nonzero)
{
    return r->read && (counter(&r->counts, at) != 0) == nonzero;
}

/* Whether the ranks read differ in the counter at: some have it, some not. */
static bool diverges(const struct tl_summary_rank_folder *f, size_t at)
{
    bool some = false, none = false;
    for (size_t i = 0; i < f->n; i++) {
        some |= has_counter(&f->ranks[i], at, true);
        none |= has_counter(&f->ranks[i], at, false);
    }
    return some && none;
}

/* The ranks read whose counter at is (not) zero: "Rank 1, Rank 3". */
static void ranks_with(struct tl_buf *b, const struct tl_summary_rank_folder *f, size_t at,
                       bool nonzero)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++)
        if (has_counter(&f->ranks[i], at, nonzero))
            tl_buf_addf(b, "%sRank %u", k++ ? ", " : "", f->ranks[i].rank);
}

/* The same as a member: "key": [1, 3]. */
static void j_folder_ranks_with(struct tl_json_doc *w, const char *key,
                                const struct tl_summary_rank_folder *f, size_t at, bool nonzero)
{
    tl_json_doc_key(w, key);
    tl_json_doc_array_inline(w);
    for (size_t i = 0; i < f->n; i++)
        if (has_counter(&f->ranks[i], at, nonzero))
            tl_json_doc_u64(w, f->ranks[i].rank);
    tl_json_doc_end(w, ']');
}

/* "5 compile ids, 2 graph breaks, 1 recompile, 0 failures" */
static void counts_text(struct tl_buf *b, const struct tl_summary_counts *c)
{
    tl_buf_addf(b, "%llu compile id%s, %llu graph break%s, %llu recompile%s, %llu failure%s",
                (unsigned long long)c->compile_ids, c->compile_ids == 1 ? "" : "s",
                (unsigned long long)c->graph_breaks, c->graph_breaks == 1 ? "" : "s",
                (unsigned long long)c->recompiles, c->recompiles == 1 ? "" : "s",
                (unsigned long long)c->failures, c->failures == 1 ? "" : "s");
}

void tl_summary_text_rank_folder(struct tl_buf *b, const struct tl_summary_rank_folder *f)
{
    tl_buf_addf(b, "tlparse diagnosis of %zu ranks in ", f->n);
    tl_term_safe(b, f->path);
    tl_buf_adds(b, ": ");
    counts_text(b, &f->total);
    tl_buf_adds(b, "\n\n");
    bool any = false;
    for (size_t k = 0; k < TL_ARRAY_LEN(rank_counts); k++) {
        if (!diverges(f, rank_counts[k].at))
            continue;
        tl_buf_adds(b, "  ");
        ranks_with(b, f, rank_counts[k].at, true);
        tl_buf_addf(b, " %s; ", rank_counts[k].what);
        ranks_with(b, f, rank_counts[k].at, false);
        tl_buf_adds(b, " did not.\n");
        any = true;
    }
    if (!any)
        tl_buf_adds(b, "  No rank differs from the others in whether it recompiled, broke graphs, "
                       "failed or hit the recompile limit.\n");
    tl_cachemiss_across_text(b, f->cache_across, true, false);
    for (size_t i = 0; i < f->n; i++)
        if (f->ranks[i].error) {
            tl_buf_addf(b, "  Rank %u was not read: ", f->ranks[i].rank);
            tl_term_safe(b, f->ranks[i].error);
            tl_buf_addch(b, '\n');
        }
    uint32_t *numbers;
    const struct tl_ledger_lines **lines;
    folder_ledgers(f, &numbers, &lines);
    text_rank_ledgers(b, numbers, lines, f->n);
    free(numbers);
    free(lines);
    for (size_t i = 0; i < f->n; i++) {
        const struct tl_summary_rank_diag *r = &f->ranks[i];
        if (!r->diagnosis)
            continue;
        tl_buf_addf(b, "\n=== rank %u (", r->rank);
        tl_term_safe(b, r->log);
        tl_buf_adds(b, ") ===\n");
        tl_buf_adds(b, r->diagnosis);
    }
}

void tl_summary_json_rank_folder(struct tl_buf *b, const struct tl_summary_rank_folder *f)
{
    const struct tl_summary_counts *c = &f->total;
    struct tl_json_doc w;
    tl_json_doc_init(&w, b, TL_JSON_DOC_PRETTY);
    tl_json_doc_object(&w);
    tl_json_doc_kstr(&w, "schema", "tlparse-ranks-diagnosis/1");
    tl_json_doc_key(&w, "source");
    tl_json_doc_object(&w);
    tl_json_doc_kstr(&w, "path", f->path);
    tl_json_doc_kstr(&w, "kind", "torch_trace_ranks");
    tl_json_doc_end(&w, '}');
    tl_json_doc_key(&w, "totals");
    tl_json_doc_object(&w);
    tl_json_doc_ku64(&w, "ranks", f->n);
    size_t read = 0;
    for (size_t i = 0; i < f->n; i++)
        read += f->ranks[i].read;
    tl_json_doc_ku64(&w, "ranks_read", read);
    tl_json_doc_ku64(&w, "compile_ids", c->compile_ids);
    tl_json_doc_ku64(&w, "graph_breaks", c->graph_breaks);
    tl_json_doc_ku64(&w, "recompiles", c->recompiles);
    tl_json_doc_ku64(&w, "specializations", c->specializations);
    tl_json_doc_ku64(&w, "failures", c->failures);
    tl_json_doc_ku64(&w, "recompile_limits", c->recompile_limits);
    tl_json_doc_ku64(&w, "export_problems", c->export_problems);
    tl_json_doc_end(&w, '}');
    tl_json_doc_key(&w, "divergences");
    tl_json_doc_array(&w);
    for (size_t k = 0; k < TL_ARRAY_LEN(rank_counts); k++) {
        if (!diverges(f, rank_counts[k].at))
            continue;
        tl_json_doc_object(&w);
        tl_json_doc_kstr(&w, "what", rank_counts[k].what);
        j_folder_ranks_with(&w, "ranks", f, rank_counts[k].at, true);
        j_folder_ranks_with(&w, "others", f, rank_counts[k].at, false);
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, ']');
    if (f->cache_across && f->cache_across->nmisses) {
        tl_json_doc_key(&w, "cache_misses");
        tl_json_doc_array(&w);
        tl_cachemiss_across_json(&w, f->cache_across, true);
        tl_json_doc_end(&w, ']');
        tl_json_doc_ku64(&w, "cache_lookups_dropped", f->cache_across->dropped);
    }
    tl_json_doc_key(&w, "ranks");
    tl_json_doc_array(&w);
    for (size_t i = 0; i < f->n; i++) {
        const struct tl_summary_rank_diag *r = &f->ranks[i];
        tl_json_doc_object(&w);
        tl_json_doc_ku64(&w, "rank", r->rank);
        tl_json_doc_kstr(&w, "log", r->log);
        tl_json_doc_kstr(&w, "error", r->error);
        tl_json_doc_key(&w, "diagnosis");
        if (r->diagnosis)
            tl_json_doc_raw(&w, r->diagnosis); /* the rank's own --json, pretty */
        else
            tl_json_doc_null(&w);
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, ']');
    uint32_t *numbers;
    const struct tl_ledger_lines **lines;
    folder_ledgers(f, &numbers, &lines);
    j_rank_ledgers(&w, numbers, lines, f->n);
    free(numbers);
    free(lines);
    tl_json_doc_end(&w, '}');
    tl_buf_addch(b, '\n');
}
