/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plan of a run (plan.h): which options go together is one table, read in order (the
 * first rule broken is the one said); the mode and the output follow from the options that
 * passed it.
 */
#include "base/config.h"
#include "modes/plan.h"
#include "base/str.h"
#include "base/xalloc.h"
#include "input/rankfiles.h"
#include "input/reportdir.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The options the table speaks of, each one bit. */
enum {
    F_BUNDLE = 1u << 0,
    F_SUMMARY = 1u << 1,
    F_ALL_RANKS = 1u << 2,
    F_LATEST = 1u << 3,
    F_RANK_ONLY = 1u << 4,
    F_FROM_SUMMARIES = 1u << 5,
    F_OUT = 1u << 6,
    F_RANK = 1u << 7,
    F_RANK_FAILED = 1u << 8,
    F_PATH = 1u << 9,
    F_OVERWRITE = 1u << 10,
    F_HEADER = 1u << 11,
    F_PLAIN = 1u << 12,
    F_PROVENANCE = 1u << 13,
    F_EXPORT = 1u << 14,
    F_SERVE = 1u << 15,
    F_PORT = 1u << 16,
    F_BIND = 1u << 17,
    F_ZIP_ONLY = 1u << 18, /* the report only as a .zip: no page on disk to serve */
};

/* How each is named: on a command line, and as a field of struct tl_options. */
static const struct flag_name {
    unsigned flag;
    const char *cli, *field;
} flag_names[] = {
    {F_BUNDLE, "--bundle", "bundle"},
    {F_SUMMARY, "--summary or --json", "summary"},
    {F_ALL_RANKS, "--all-ranks-html", "all_ranks_html"},
    {F_LATEST, "--latest", "latest"},
    {F_RANK_ONLY, "--rank-only", "rank_only"},
    {F_FROM_SUMMARIES, "--from-summaries", "from_summaries"},
    {F_OUT, "-o", "out_dir"},
    {F_RANK, "--rank", "has_rank"},
    {F_RANK_FAILED, "--rank-failed", "rank_failed"},
    {F_PATH, "a PATH", "path"},
    {F_OVERWRITE, "--overwrite", "overwrite"},
    {F_HEADER, "--custom-header-html", "custom_header_html"},
    {F_PLAIN, "--plain-text", "plain_text"},
    {F_PROVENANCE, "--inductor-provenance", "inductor_provenance"},
    {F_EXPORT, "--export", "export_mode"},
    {F_SERVE, "--serve", "serve"},
    {F_PORT, "--port", "has_port"},
    {F_BIND, "--bind", "serve_bind"},
    {F_ZIP_ONLY, "--bundle FILE.zip without -o", "a .zip bundle without out_dir"},
};

/*
 * A rule: option a cannot be used with any of `with`, or without all of `without`. other:
 * what the second half is called on a command line when it is not one flag's name; why: the
 * reason, said after it. Read in order: a run with several clashes hears of the first.
 */
static const struct rule {
    unsigned a, with, without;
    const char *other, *why;
} rules[] = {
    {F_BUNDLE, F_SUMMARY, 0, NULL, NULL},
    {F_BUNDLE, F_RANK_ONLY, 0, NULL, NULL},
    {F_RANK_ONLY, F_ALL_RANKS, 0, NULL, NULL},
    {F_FROM_SUMMARIES, 0, F_ALL_RANKS, NULL, NULL},
    {F_OUT, F_FROM_SUMMARIES, 0, NULL, "the landing page goes into PATH"},
    {F_RANK, 0, F_RANK_ONLY, NULL, NULL},
    {F_RANK_FAILED, 0, F_RANK_ONLY, NULL, NULL},
    {F_RANK_FAILED, 0, F_RANK, "--rank N", NULL},
    {F_RANK_FAILED, F_PATH, 0, NULL, "it says why rank N has no log to read"},
    {F_LATEST, F_RANK_ONLY, 0, NULL, NULL},
    {F_SUMMARY, F_RANK_ONLY, 0, NULL, "it writes summary.json"},
    {F_SUMMARY, F_FROM_SUMMARIES, 0, NULL, "it writes the landing page"},
    {F_OUT, F_SUMMARY, 0, NULL, "they write no report"},
    {F_OVERWRITE, F_SUMMARY, 0, NULL, "they write no report"},
    {F_HEADER, F_SUMMARY, 0, NULL, "they write no report"},
    {F_PLAIN, F_SUMMARY, 0, NULL, "they write no report"},
    {F_PROVENANCE, F_SUMMARY, 0, NULL, "they write no report"},
    {F_EXPORT, F_ALL_RANKS | F_RANK_ONLY, 0, "a multi-rank run",
     "an export trace is one process's"},
    {F_PORT, 0, F_SERVE, NULL, NULL},
    {F_BIND, 0, F_SERVE, NULL, NULL},
    {F_SERVE, F_SUMMARY, 0, NULL, "they write no report"},
    {F_SERVE, F_RANK_ONLY, 0, NULL, "it writes one rank's part of a report, for --from-summaries"},
    {F_SERVE, F_ZIP_ONLY, 0, NULL, "a zip is not served: add -o OUT to serve the folder"},
};

/* Whether path ends with suffix, in any case. */
static bool ends_with(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    return n > m && !strcasecmp(path + n - m, suffix);
}

static unsigned flags_of(const struct tl_options *opt)
{
    return (opt->bundle ? F_BUNDLE : 0) | (opt->summary != TL_SUMMARY_NONE ? F_SUMMARY : 0) |
           (opt->all_ranks_html ? F_ALL_RANKS : 0) | (opt->latest ? F_LATEST : 0) |
           (opt->rank_only ? F_RANK_ONLY : 0) | (opt->from_summaries ? F_FROM_SUMMARIES : 0) |
           (opt->out_dir ? F_OUT : 0) | (opt->has_rank ? F_RANK : 0) |
           (opt->rank_failed ? F_RANK_FAILED : 0) | (opt->path ? F_PATH : 0) |
           (opt->overwrite ? F_OVERWRITE : 0) | (opt->custom_header_html ? F_HEADER : 0) |
           (opt->plain_text ? F_PLAIN : 0) | (opt->inductor_provenance ? F_PROVENANCE : 0) |
           (opt->export_mode ? F_EXPORT : 0) | (opt->serve ? F_SERVE : 0) |
           (opt->has_port ? F_PORT : 0) | (opt->serve_bind ? F_BIND : 0) |
           (opt->bundle && ends_with(opt->bundle, ".zip") && !opt->out_dir && !opt->from_summaries
                ? F_ZIP_ONLY
                : 0);
}

static const char *name_of(unsigned flag, bool cli)
{
    for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
        if (flag_names[i].flag & flag)
            return cli ? flag_names[i].cli : flag_names[i].field;
    return "?";
}

/* The first rule opt breaks, said as the caller names options (cli: a command line's flags). */
static int check_rules(const struct tl_options *opt, bool cli, struct tl_err *err)
{
    unsigned f = flags_of(opt);
    /* the reference's own message and exit code (spec modes.md 1.1) */
    if ((f & F_ALL_RANKS) && (f & F_LATEST))
        return tl_error_code(err, TL_ERR_INPUT, "%s cannot be used with %s", name_of(F_LATEST, cli),
                             name_of(F_ALL_RANKS, cli));
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        const struct rule *r = &rules[i];
        if (!(f & r->a) || (r->with && !(f & r->with)) || (r->without && (f & r->without)))
            continue;
        unsigned b = r->with ? r->with & f : r->without;
        const char *other = cli && r->other ? r->other : name_of(b, cli);
        return tl_error_code(err, TL_ERR_USAGE, "cannot use %s %s %s%s%s%s", name_of(r->a, cli),
                             r->with ? "with" : "without", other, r->why ? " (" : "",
                             r->why ? r->why : "", r->why ? ")" : "");
    }
    return 0;
}

/* path without its trailing slashes, in *copy (malloc'd) when it had some; else path:
 * "trace/" and "out/" name the folders "trace" and "out", and messages say "out/index.html". */
static const char *trimmed(const char *path, char **copy)
{
    *copy = NULL;
    if (!path || tl_path_len(path) == strlen(path))
        return path;
    return *copy = tl_xmemdupz(path, tl_path_len(path));
}

static enum tl_plan_mode mode_of(const struct tl_options *opt, size_t *folder_ranks)
{
    *folder_ranks = 0;
    bool summary = opt->summary != TL_SUMMARY_NONE;
    if (opt->all_ranks_html)
        return opt->from_summaries ? TL_PLAN_LANDING
               : summary           ? TL_PLAN_RANKS_SUMMARY
                                   : TL_PLAN_RANKS;
    if (opt->rank_only)
        return TL_PLAN_RANK_ONLY;
    /* A report folder: --summary and --json give the diagnosis it holds (its summary.json),
     * not that of a log it has (raw.log) */
    if (summary && opt->path && !opt->mem_input && !opt->latest && tl_report_dir_is(opt->path))
        return TL_PLAN_STORED;
    /* A folder of rank logs: --summary and --json answer for every rank; a report is of its
     * newest log, and says so. */
    *folder_ranks = opt->latest || opt->mem_input ? 0 : tl_rank_folder_ranks(opt->path);
    if (summary)
        return *folder_ranks > 1 ? TL_PLAN_RANKS_SUMMARY : TL_PLAN_LOG_SUMMARY;
    return TL_PLAN_LOG;
}

int tl_options_take(struct tl_options *dst, const struct tl_options *opt, struct tl_err *err)
{
    size_t n = opt->size ? opt->size : sizeof(*dst);
    memset(dst, 0, sizeof(*dst));
    if (n > sizeof(*dst) || n < sizeof(dst->size))
        return tl_error_code(err, TL_ERR_USAGE,
                             "struct tl_options of %zu bytes: this libtlparse %s knows %zu (the "
                             "program was built against another tlparse.h)",
                             n, TL_VERSION, sizeof(*dst));
    memcpy(dst, opt, n);
    dst->size = (uint32_t)sizeof(*dst);
    return 0;
}

int tl_plan_make(struct tl_plan *p, const struct tl_options *opt, struct tl_err *err)
{
    memset(p, 0, sizeof(*p));
    if (tl_options_take(&p->opt, opt, err) < 0)
        return -1;
    opt = &p->opt;
    p->opt.path = trimmed(opt->path, &p->own[0]);
    p->opt.out_dir = trimmed(opt->out_dir, &p->own[1]);
    if (check_rules(&p->opt, opt->command_line != NULL, err) < 0)
        return -1;
    p->mode = mode_of(&p->opt, &p->folder_ranks);
    if (p->opt.summary != TL_SUMMARY_NONE)
        p->output = TL_PLAN_OUT_NONE;
    else if (p->opt.bundle)
        p->output = p->opt.out_dir || p->opt.from_summaries ? TL_PLAN_OUT_FOLDER_BUNDLE
                                                            : TL_PLAN_OUT_BUNDLE;
    else
        p->output = TL_PLAN_OUT_FOLDER;
    if (p->output != TL_PLAN_OUT_NONE)
        p->folder = p->opt.from_summaries ? p->opt.path
                    : p->opt.out_dir      ? p->opt.out_dir
                                          : "tl_out";
    /* the bundle's page when it is the only output, else the folder */
    tl_plan_take_serve(&p->serve, &p->opt,
                       p->output == TL_PLAN_OUT_BUNDLE ? p->opt.bundle : p->folder);
    return 0;
}

void tl_plan_take_serve(struct tl_plan_serve *s, struct tl_options *opt, const char *root)
{
    *s = (struct tl_plan_serve){
        .root = opt->serve ? root : NULL,
        .bind = opt->serve_bind,
        .has_port = opt->has_port,
        .port = opt->port,
        .serving = opt->serving,
        .ctx = opt->serving_ctx,
    };
    opt->serve = opt->has_port = false;
    opt->serve_bind = NULL;
    opt->port = 0;
    opt->serving = NULL;
    opt->serving_ctx = NULL;
}

int tl_plan_check(const struct tl_options *opt, struct tl_err *err)
{
    return check_rules(opt, opt->command_line != NULL, err);
}

int tl_plan_make_stream(struct tl_plan *p, const struct tl_options *opt, struct tl_err *err)
{
    memset(p, 0, sizeof(*p));
    if (tl_options_take(&p->opt, opt, err) < 0)
        return -1;
    opt = &p->opt;
    const char *many = opt->all_ranks_html ? "all_ranks_html"
                       : opt->rank_only    ? "rank_only"
                       : opt->latest       ? "latest"
                       : opt->mem_input    ? "mem_input"
                       : opt->nopen_logs   ? "open_logs"
                                           : NULL;
    if (many)
        return tl_error_code(err, TL_ERR_USAGE,
                             "cannot use %s with a log fed as bytes (tl_feed_new: one log)", many);
    if (opt->serve || opt->has_port || opt->serve_bind)
        return tl_error_code(err, TL_ERR_USAGE,
                             "cannot use serve with a log fed as bytes (tl_feed_new): only "
                             "tl_run() and tl_watch() serve a report");
    p->opt.out_dir = trimmed(opt->out_dir, &p->own[1]);
    if (check_rules(&p->opt, false, err) < 0)
        return -1;
    bool summary = opt->summary != TL_SUMMARY_NONE;
    p->mode = summary ? TL_PLAN_LOG_SUMMARY : TL_PLAN_LOG;
    p->output = summary                        ? TL_PLAN_OUT_NONE
                : opt->bundle && !opt->out_dir ? TL_PLAN_OUT_BUNDLE
                                               : TL_PLAN_OUT_FOLDER;
    if (opt->bundle && opt->out_dir)
        return tl_error_code(err, TL_ERR_USAGE,
                             "cannot use out_dir with bundle for a log fed as bytes: one of them");
    if (!summary)
        p->folder = p->opt.out_dir = p->opt.out_dir ? p->opt.out_dir : "tl_out";
    return 0;
}

void tl_plan_release(struct tl_plan *p)
{
    free(p->own[0]);
    free(p->own[1]);
    p->own[0] = p->own[1] = NULL;
}

void tl_plan_unbundled(struct tl_plan *sub, const struct tl_plan *p)
{
    *sub = *p;
    sub->own[0] = sub->own[1] = NULL; /* borrowed from p */
    sub->opt.bundle = NULL;
    sub->output = TL_PLAN_OUT_FOLDER;
}

void tl_plan_rank_options(struct tl_options *o, const struct tl_options *opt, bool side_by_side,
                          struct tl_plan_messages msg)
{
    *o = *opt;
    if (side_by_side) {
        o->progress = NULL;
        o->message = msg.fn;
        o->message_ctx = msg.ctx;
    }
}

void tl_plan_live_options(struct tl_options *o, const struct tl_options *opt,
                          struct tl_plan_messages msg)
{
    *o = *opt;
    o->message = msg.fn;
    o->message_ctx = msg.ctx;
    o->progress = NULL;
    o->no_threads = true;
    o->summary = TL_SUMMARY_NONE;
    o->bundle = NULL;
}

void tl_plan_diff_side_options(struct tl_options *o, const struct tl_diff_options *d,
                               const char *path, bool report, struct tl_plan_messages msg)
{
    tl_options_init(o);
    o->path = path;
    o->command_line = d->command_line;
    o->no_threads = d->no_threads;
    o->message = msg.fn;
    o->message_ctx = msg.ctx;
    o->cancel = d->cancel;
    o->summary = report ? TL_SUMMARY_NONE : TL_SUMMARY_JSON;
}

void tl_plan_diagnosis_options(struct tl_options *o, const struct tl_options *opt,
                               enum tl_summary_mode summary)
{
    *o = *opt;
    o->summary = summary;
    o->out_dir = NULL;
    o->overwrite = false;
    o->bundle = NULL;
    o->custom_header_html = NULL;
    o->plain_text = o->inductor_provenance = false;
    o->progress = NULL;
    o->extra_files = NULL;
    o->nextra_files = 0;
}
