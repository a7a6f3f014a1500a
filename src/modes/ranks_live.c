/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ranks of a folder fed as their logs come (--watch with --all-ranks-html, or what --run
 * gives a multi-rank job): one engine per rank log with a rank's sinks into rank_N/; a
 * generation renders every rank's pages and the landing page; at the end the ranks finish in
 * the order a batch run takes them (the folder's listing), so that the files are the batch
 * run's. The steps are the batch run's (ranks_impl.h).
 */
#include "base/config.h"
#include "modes/modes.h"
#include "modes/plan.h"
#include "modes/ranks_impl.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tl_ranks_live {
    struct multi m;
    struct tl_options opt; /* the run's */
    bool diverged;         /* a log of a rank already fed sorts first: the batch run reads it */
};

struct tl_ranks_live *tl_ranks_live_new(const struct tl_options *opt, struct tl_err *err)
{
    struct tl_ranks_live *rl = tl_xcalloc(1, sizeof(*rl));
    rl->opt = *opt;
    tl_ranks_multi_init(&rl->m, &rl->opt);
    if (tl_outdir_open(&rl->m.root, rl->m.out_name, opt->overwrite, err) < 0) {
        tl_ranks_multi_release(&rl->m);
        free(rl);
        return NULL;
    }
    tl_outdir_keep_failures(&rl->m.root);
    if (tl_output_extras(opt, &rl->m.root, err) < 0) {
        tl_outdir_abort(&rl->m.root);
        tl_ranks_multi_release(&rl->m);
        free(rl);
        return NULL;
    }
    return rl;
}

struct tl_engine *tl_ranks_live_add(struct tl_ranks_live *rl, uint32_t rank, const char *path,
                                    void *user, struct tl_err *err)
{
    struct multi *m = &rl->m;
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    for (size_t i = 0; i < m->n; i++) {
        if (m->ranks[i]->log.rank != rank)
            continue;
        rl->diverged |= strcmp(name, m->ranks[i]->log.name) < 0;
        tl_error_code(err, TL_ERR_USAGE, "%s is rank %u too; only %s is used", path, rank,
                      m->ranks[i]->log.path);
        return NULL;
    }
    struct tl_rank_log log = {rank, (char *)name, (char *)path};
    struct rank *r = tl_ranks_new_rank(m);
    tl_ranks_rank_init(r, &log);
    r->user = user;
    /* its messages kept for the end, said in the ranks' order; no helper thread (a live
     * report's generations are made by a forked copy of the process) */
    tl_plan_rank_options(&r->opt, &rl->opt, true, (struct tl_plan_messages){tl_ranks_capture, r});
    r->opt.no_threads = true;
    struct tl_messages msg = {.opt = &r->opt, .input = r->log.path};
    tl_say(&msg, TL_MSG_INFO, "Processing rank %u \xe2\x86\x92 %s/rank_%u", rank, m->out_name,
           rank);
    if (tl_ranks_rank_begin(m, r, NULL) < 0) {
        *err = m->err;
        return NULL;
    }
    tl_outdir_keep_failures(&r->sub_out);
    r->eng = tl_engine_new(&r->job);
    if (tl_engine_start(r->eng, 0, err) < 0)
        return NULL;
    return r->eng;
}

int tl_ranks_live_forget(struct tl_ranks_live *rl, void *user, struct tl_err *err)
{
    struct multi *m = &rl->m;
    size_t i = 0;
    while (i < m->n && m->ranks[i]->user != user)
        i++;
    if (i == m->n)
        return 0;
    struct rank *r = m->ranks[i];
    tl_engine_free(r->eng); /* its sinks first: they write into its folder and spool */
    tl_outfile_close(&r->events, NULL);
    if (r->sub)
        tl_outdir_abort(r->sub);
    char name[32];
    snprintf(name, sizeof(name), "rank_%u", r->log.rank);
    int rc = 0;
    if (tl_outdir_remove_folder(&m->root, name) < 0)
        rc = tl_error(err, "cannot remove %s/%s: %s", m->out_name, name, strerror(errno));
    free(r->log.name);
    free(r->log.path);
    tl_ranks_rank_release(r);
    memmove(&m->ranks[i], &m->ranks[i + 1], (m->n - i - 1) * sizeof(*m->ranks));
    m->n--;
    for (size_t k = 0; k < m->n; k++)
        m->ranks[k]->index = k;
    return rc;
}

bool tl_ranks_live_matches(struct tl_ranks_live *rl)
{
    struct multi *m = &rl->m;
    if (rl->diverged)
        return false;
    for (size_t i = 0; i < m->n; i++)
        if (!m->ranks[i]->eng || tl_engine_diverged(m->ranks[i]->eng))
            return false;
    /* the rank logs a batch run would read now (the first of each rank by name): fed, each */
    struct tl_rank_log *logs;
    size_t nlogs;
    struct tl_err err;
    if (tl_rank_logs_find(rl->opt.path, !rl->opt.name_order, &logs, &nlogs, &err) < 0)
        return false;
    bool same = true;
    for (size_t k = 0; k < nlogs && same; k++) {
        bool first = true;
        for (size_t j = 0; j < nlogs; j++)
            first &= logs[j].rank != logs[k].rank || strcmp(logs[j].name, logs[k].name) >= 0;
        if (!first)
            continue;
        bool fed = false;
        for (size_t i = 0; i < m->n && !fed; i++)
            fed = !strcmp(m->ranks[i]->log.name, logs[k].name);
        same = fed;
    }
    tl_rank_logs_free(logs, nlogs);
    return same;
}

int tl_ranks_live_snapshot(struct tl_ranks_live *rl, struct tl_err *err)
{
    struct multi *m = &rl->m;
    for (size_t i = 0; i < m->n; i++)
        if (m->ranks[i]->eng && tl_live_pages(&m->ranks[i]->sub_out, m->ranks[i]->eng, err) < 0)
            return -1;
    struct tl_outdir mem, over;
    tl_outdir_open_memory(&mem);
    tl_outdir_open_overlay(&over, &m->root, &mem);
    int rc = tl_ranks_landing(m, &over, true, err);
    if (rc == 0)
        rc = tl_outdir_commit(&over, err);
    else
        tl_outdir_abort(&over);
    rc = tl_live_put(&m->root, &mem, rc, err);
    if (rc == 0 && tl_outdir_failed(&m->root, err))
        rc = -1;
    return rc;
}

int tl_ranks_live_go_live(struct tl_ranks_live *rl, struct tl_err *err)
{
    return tl_outdir_publish(&rl->m.root, err);
}

int tl_ranks_live_replace(struct tl_ranks_live *rl, const char *name, const void *p, size_t n,
                          struct tl_err *err)
{
    return tl_outdir_replace(&rl->m.root, name, p, n, err);
}

void tl_ranks_live_drop(struct tl_ranks_live *rl)
{
    for (size_t i = 0; i < rl->m.n; i++)
        tl_outdir_detach(&rl->m.ranks[i]->sub_out);
    tl_outdir_detach(&rl->m.root);
}

/* The position of a rank's log in the order a batch run takes them: the folder's listing. */
static int cmp_index(const void *a, const void *b)
{
    size_t x = (*(struct rank *const *)a)->index, y = (*(struct rank *const *)b)->index;
    return x < y ? -1 : x > y;
}

int tl_ranks_live_finish(struct tl_ranks_live *rl, const struct tl_ranks_live_hooks *h,
                         struct tl_result *res)
{
    struct multi *m = &rl->m;
    struct tl_err err = {TL_ERR_NONE, ""};
    /* The ranks in the batch run's order (the folder's listing; a log deleted meanwhile last). */
    struct tl_rank_log *logs = NULL;
    size_t nlogs = 0;
    if (tl_rank_logs_find(rl->opt.path, !rl->opt.name_order, &logs, &nlogs, &err) < 0)
        nlogs = 0;
    for (size_t i = 0; i < m->n; i++) {
        struct rank *r = m->ranks[i];
        r->index = nlogs + i;
        for (size_t k = 0; k < nlogs; k++)
            if (!strcmp(logs[k].name, r->log.name))
                r->index = k;
    }
    tl_rank_logs_free(logs, nlogs);
    tl_sort(m->ranks, m->n, sizeof(*m->ranks), cmp_index);
    for (size_t i = 0; i < m->n; i++)
        m->ranks[i]->index = i;
    for (size_t i = 0; i < m->n; i++) {
        struct rank *r = m->ranks[i];
        struct tl_engine_result sum;
        struct tl_err rerr = {TL_ERR_NONE, ""};
        int rc = -1;
        if (r->eng) {
            tl_engine_restat(r->eng);
            rc = tl_engine_finish(r->eng, NULL, 0, &sum, &rerr);
            if (h && h->rank_ended)
                h->rank_ended(r->user);
            free(sum.summary);
            tl_ranks_rank_end(m, r, rc, &sum, &rerr);
        }
        tl_ranks_settle(m, r);
        tl_ranks_rank_done(m, r);
    }
    int rc = 0;
    if (m->fatal) {
        err = m->err;
        rc = -1;
    }
    if (rc == 0 && !tl_stop_asked(m->opt->cancel))
        rc = tl_ranks_landing(m, &m->root, false, &err);
    if (h && h->before_commit)
        h->before_commit(h->ctx);
    return tl_ranks_finish_run(m, rc, &err, res);
}

void tl_ranks_live_free(struct tl_ranks_live *rl)
{
    if (!rl)
        return;
    for (size_t i = 0; i < rl->m.n; i++) {
        struct rank *r = rl->m.ranks[i];
        tl_engine_free(r->eng);
        if (r->sub)
            tl_outdir_abort(r->sub);
        free(r->log.name);
        free(r->log.path);
    }
    tl_outdir_abort(&rl->m.root);
    tl_ranks_multi_release(&rl->m);
    free(rl);
}
