/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_run(): check the options, and hand them to the mode they ask for: the ranks (ranks.c),
 * one rank (--rank-only), one log (single.c); --bundle runs one log straight into the bundle
 * (bundle.c), and the others into a folder and makes the bundle of it.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "base/str.h"
#include "input/reportdir.h"
#include "base/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const char tl_revision[]; /* revision.c, written by cmake/Revision.cmake */

const char *tl_version(void)
{
    return TL_VERSION;
}

const char *tl_version_revision(void)
{
    return tl_revision;
}

/* Options that do not go together. */
static int check_modes(const struct tl_options *opt, struct tl_err *err)
{
    if (opt->all_ranks_html && opt->latest)
        return tl_error_code(err, TL_ERR_INPUT, "--latest cannot be used with --all-ranks-html");
    const char *clash =
        opt->all_ranks_html && opt->rank_only         ? "--rank-only with --all-ranks-html"
        : opt->from_summaries && !opt->all_ranks_html ? "--from-summaries without --all-ranks-html"
        : opt->from_summaries && opt->out_dir
            ? "-o with --from-summaries (the landing page goes into PATH)"
        : opt->has_rank && !opt->rank_only    ? "--rank without --rank-only"
        : opt->rank_failed && !opt->rank_only ? "--rank-failed without --rank-only"
        : opt->rank_failed && !opt->has_rank  ? "--rank-failed without --rank N"
        : opt->rank_failed && opt->path
            ? "--rank-failed with a PATH (it says why rank N has no log to read)"
        : opt->rank_only && opt->latest ? "--latest with --rank-only"
        : opt->rank_only && opt->summary
            ? "--summary or --json with --rank-only (it writes summary.json)"
        : opt->from_summaries && opt->summary
            ? "--summary or --json with --from-summaries (it writes the landing "
              "page)"
        : opt->summary && opt->out_dir ? "-o with --summary or --json (they write no report)"
        : opt->summary && opt->overwrite
            ? "--overwrite with --summary or --json (they write no report)"
        : opt->summary && opt->custom_header_html
            ? "--custom-header-html with --summary or --json (they write no "
              "report)"
        : opt->summary && opt->plain_text
            ? "--plain-text with --summary or --json (they write no report)"
        : opt->summary && opt->inductor_provenance
            ? "--inductor-provenance with --summary or --json (they write no "
              "report)"
        : (opt->all_ranks_html || opt->rank_only) && opt->export_mode
            ? "--export with a multi-rank run (an export trace is one process's)"
            : NULL;
    if (clash)
        return tl_error_code(err, TL_ERR_USAGE, "cannot use %s", clash);
    return 0;
}

static int run(const struct tl_options *opt, struct tl_result *res);

/* The folder a run writes its report to: out_dir, or PATH itself with --from-summaries. */
static const char *report_folder(const struct tl_options *opt)
{
    return opt->from_summaries ? opt->path : opt->out_dir ? opt->out_dir : "tl_out";
}

/*
 * --bundle: the report as one file, written straight into it (tl_bundle_open: no folder on
 * disk), of one log or of several ranks. With -o as well, or for a --from-summaries landing
 * page (whose folder is PATH, the ranks' reports), the folder is written, then bundled.
 */
static int run_bundled(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    if (opt->summary != TL_SUMMARY_NONE)
        tl_error_code(&err, TL_ERR_USAGE, "cannot use --bundle with --summary or --json");
    else if (opt->rank_only)
        tl_error_code(&err, TL_ERR_USAGE, "cannot use --bundle with --rank-only");
    if (err.code != TL_ERR_NONE || tl_bundle_check(opt->bundle, opt->overwrite, &err) < 0)
        return tl_report_error(opt, &err);
    if (!opt->out_dir && !opt->from_summaries)
        return run(opt, res);
    struct tl_options o = *opt;
    o.bundle = NULL;
    int code = run(&o, res);
    if (code == TL_EXIT_OK || (code == TL_EXIT_ERROR && res->index_path[0])) {
        /* a report was written (--strict failures too): bundle it */
        if (tl_bundle_write(report_folder(&o), opt->bundle, opt->overwrite, &err) < 0)
            code = tl_report_error(opt, &err);
        else
            snprintf(res->bundle_path, sizeof(res->bundle_path), "%s", opt->bundle);
    }
    return code;
}

/* path without its trailing slashes, in *copy (malloc'd) when it had some; else path. */
static const char *trimmed(const char *path, char **copy)
{
    *copy = NULL;
    if (!path || tl_path_len(path) == strlen(path))
        return path;
    return *copy = tl_xmemdupz(path, tl_path_len(path));
}

int tl_run(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_result ignored;
    res = res ? res : &ignored;
    memset(res, 0, sizeof(*res)); /* whatever fails first, the caller reads a clean result */
    /* "trace/" and "out/" name the folders "trace" and "out": their files are "out/index.html"
     * in every message, not "out//index.html" */
    struct tl_options o = *opt;
    char *path, *out_dir;
    o.path = trimmed(opt->path, &path);
    o.out_dir = trimmed(opt->out_dir, &out_dir);
    int rc = o.bundle ? run_bundled(&o, res) : run(&o, res);
    free(path);
    free(out_dir);
    return rc;
}

static int run(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_result ignored;
    res = res ? res : &ignored;
    memset(res, 0, sizeof(*res));
    if (check_modes(opt, &err) < 0)
        return tl_report_error(opt, &err);
    if (opt->all_ranks_html)
        return tl_ranks_run(opt, res);
    if (opt->rank_only)
        return tl_rank_only_run(opt, res);
    /* A report folder: --summary and --json give the diagnosis it holds (its summary.json),
     * not that of a log it has (raw.log) */
    if (opt->summary != TL_SUMMARY_NONE && opt->path && !opt->mem_input && !opt->latest &&
        tl_report_dir_is(opt->path))
        return tl_stored_run(opt, res);
    /* A folder of rank logs: --summary and --json answer for every rank; a report is of its
     * newest log, and says so. */
    size_t ranks = opt->latest || opt->mem_input ? 0 : tl_rank_folder_ranks(opt->path);
    if (ranks > 1 && opt->summary != TL_SUMMARY_NONE)
        return tl_ranks_run(opt, res);
    return tl_single_run(opt, ranks, res);
}
