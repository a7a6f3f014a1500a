/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_run(): the options made a plan (plan.h), handed to its mode: the ranks (ranks.c), one
 * rank (--rank-only), a report folder's diagnosis (stored.c), one log (single.c). A bundle
 * with a folder is the folder's run, then the bundle made of it; --serve serves what it wrote
 * (serve.h) until the run's cancel flag is set.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "modes/plan.h"
#include "modes/serve.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char tl_revision[]; /* revision.c, written by cmake/Revision.cmake */

const char *tl_version(void)
{
    return TL_VERSION;
}

const char *tl_version_revision(void)
{
    return tl_revision;
}

/* A plan's run, by its mode. */
static int run_plan(const struct tl_plan *p, struct tl_result *res)
{
    switch (p->mode) {
    case TL_PLAN_RANKS:
    case TL_PLAN_RANKS_SUMMARY:
    case TL_PLAN_LANDING:
        return tl_ranks_run(&p->opt, res);
    case TL_PLAN_RANK_ONLY:
        return tl_rank_only_run(&p->opt, res);
    case TL_PLAN_STORED:
        return tl_stored_run(&p->opt, res);
    case TL_PLAN_LOG:
    case TL_PLAN_LOG_SUMMARY:
        break;
    }
    /* A report of a folder's newest log: every rank counted as well (--fail-on), the newest
     * from its report */
    char *log_read = NULL;
    int code = tl_single_run(&p->opt, p->folder_ranks, res, &log_read);
    if (log_read)
        tl_ranks_counts(&p->opt, log_read, &res->counts, res);
    free(log_read);
    return code;
}

/*
 * --bundle with -o, or of a --from-summaries landing page (whose folder is PATH, the ranks'
 * reports): the folder is written, then bundled. (Without them the bundle is written
 * straight, with no folder on disk: tl_bundle_open.)
 */
static int run_folder_bundle(const struct tl_plan *p, struct tl_result *res)
{
    struct tl_plan sub;
    tl_plan_unbundled(&sub, p);
    int code = run_plan(&sub, res);
    if (code == TL_EXIT_OK || (code == TL_EXIT_ERROR && res->index_path)) {
        /* a report was written (--strict failures too): bundle it */
        struct tl_err err = {TL_ERR_NONE, ""};
        if (tl_bundle_write(p->folder, p->opt.bundle, p->opt.overwrite, p->opt.cancel, &err) < 0)
            code = tl_report_error(&p->opt, &err);
        else
            res->bundle_path = tl_xstrdup(p->opt.bundle);
    }
    return code;
}

void tl_result_release(struct tl_result *res)
{
    if (!res)
        return;
    free(res->index_path);
    free(res->bundle_path);
    free(res->summary);
    memset(res, 0, sizeof(*res));
}

int tl_run(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_result ignored;
    bool drop = !res;
    res = res ? res : &ignored;
    memset(res, 0, sizeof(*res)); /* whatever fails first, the caller reads a clean result */
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_plan p;
    struct tl_serving srv = {0};
    int rc;
    /* the server listens first: a port in use is said before the log is read */
    if (tl_plan_make(&p, opt, &err) < 0 ||
        (p.opt.bundle && tl_bundle_check(p.opt.bundle, p.opt.overwrite, &err) < 0) ||
        (p.serve.root && tl_serving_open(&srv, &p.serve, false, &p.opt, &err) < 0))
        rc = tl_report_error(opt, &err);
    else if (p.output == TL_PLAN_OUT_FOLDER_BUNDLE)
        rc = run_folder_bundle(&p, res);
    else
        rc = run_plan(&p, res);
    /* a report was written (--strict failures too): served */
    if (srv.h && (rc == TL_EXIT_OK || rc == TL_EXIT_ERROR) &&
        (res->index_path || res->bundle_path)) {
        tl_serving_tell(&srv, res);
        tl_serving_run(&srv, p.opt.cancel);
    }
    tl_serving_release(&srv);
    tl_plan_release(&p);
    if (drop)
        tl_result_release(res);
    return rc;
}
