/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The summaries of multi-rank runs (summary.h): the "rank" member of a rank's summary.json,
 * and the summary.json of the landing page (schema tlparse-ranks/1).
 */
#include "base/config.h"
#include "report/summary.h"
#include "base/json_write.h"

#include <stdio.h>

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

/* The diagnosis counts of a rank, by index (the order of the divergences of ranks.h). */
static const struct {
    const char *kind, *what;
} rank_counts[] = {
    {"recompiles", "recompiled"},
    {"graph_breaks", "broke graphs"},
    {"failures", "failed to compile"},
    {"recompile_limits", "hit the recompile limit"},
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
    tl_json_doc_end(&w, '}');
    tl_buf_addch(out, '\n');
}
