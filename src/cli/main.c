/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tlparse command: parse options (the reference's CLI, spec core.md §8, and ours, from
 * one table that also writes --help) and the environment (TLPARSE_YEAR, TLPARSE_NO_THREADS,
 * NO_COLOR), call tl_run(), print a summary on stdout when asked, map the
 * result to an exit code, open the report.
 */
#include "base/config.h"
#include "tlparse/tlparse.h"
#include "cli/cli.h"
#include "cli/screen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

enum opt_id {
    O_LATEST,
    O_OUT,
    O_BUNDLE,
    O_REDACT,
    O_OVERWRITE,
    O_STRICT,
    O_STRICT_CID,
    O_NO_BROWSER,
    O_HEADER,
    O_VERBOSE,
    O_PLAIN,
    O_EXPORT,
    O_PROVENANCE,
    O_ALL_RANKS,
    O_JOBS,
    O_RANK_ONLY,
    O_RANK,
    O_RANK_FAILED,
    O_FROM_SUMMARIES,
    O_NAME_ORDER,
    O_SUMMARY,
    O_JSON,
    O_PROGRESS,
    O_NO_PROGRESS,
    O_FAIL_ON,
    O_RUN,
    O_WATCH,
    O_SERVE,
    O_PORT,
    O_BIND,
    O_HELP,
    O_VERSION,
};

struct option_spec {
    enum opt_id id;
    char short_name;       /* 0: none */
    const char *long_name; /* NULL: none */
    const char *value;     /* the value's name, NULL for a flag */
    const char *help;
};

static const struct option_spec specs[] = {
    {O_LATEST, 0, "latest", NULL, "PATH is a folder: parse its newest log"},
    {O_OUT, 'o', NULL, "OUT", "output folder [default: tl_out]"},
    {O_BUNDLE, 0, "bundle", "FILE",
     "also write the report as one file to attach or publish: FILE.zip (the folder zipped) or "
     "FILE.html (one page holding every page, opened offline); without -o, only FILE"},
    {O_REDACT, 0, "redact", NULL,
     "leave the model out of the report, to share it: source lines, generated code, dumped "
     "files, names and constants are hashed or dropped, raw.log and raw.jsonl left out; "
     "--redact=paths hashes file names too"},
    {O_OVERWRITE, 0, "overwrite", NULL,
     "replace OUT if it exists (once the new report is complete)"},
    {O_STRICT, 0, "strict", NULL,
     "exit 1 if any line could not be parsed, or the log holds nothing to check (empty)"},
    {O_STRICT_CID, 0, "strict-compile-id", NULL, "exit 1 if any entry has no compile id"},
    {O_NO_BROWSER, 0, "no-browser", NULL, "do not open the report in a browser"},
    {O_HEADER, 0, "custom-header-html", "HTML",
     "HTML inserted at the top of index.html (not escaped)"},
    {O_VERBOSE, 'v', "verbose", NULL, "print every unknown field"},
    {O_PLAIN, 'p', "plain-text", NULL, "write inductor output code as plain text"},
    {O_EXPORT, 'e', "export", NULL,
     "PATH is a torch.export trace: a report of what kept export from producing a sound graph"},
    {O_PROVENANCE, 'i', "inductor-provenance", NULL,
     "a page per compilation linking each line of inductor's code to the graph nodes it came "
     "from"},
    {O_ALL_RANKS, 0, "all-ranks-html", NULL,
     "PATH is a folder of rank logs (dedicated_log_torch_trace_rank_N*.log): a report per rank "
     "in OUT/rank_N and a landing page across them; with --summary or --json, each rank's "
     "diagnosis and what differs across them, and no report"},
    {O_JOBS, 'j', "jobs", "N",
     "with a folder of rank logs: parse N ranks at once [default: cores]"},
    {O_RANK_ONLY, 0, "rank-only", NULL,
     "PATH is one rank's log: write its report and summary to OUT (OUT/rank_N on any machine), "
     "for --from-summaries"},
    {O_RANK, 0, "rank", "N", "with --rank-only: the log's rank [default: from its name]"},
    {O_RANK_FAILED, 0, "rank-failed", "REASON",
     "with --rank-only --rank N and no PATH: rank N has no report because of REASON (its task "
     "failed); the landing page lists it as missing with REASON"},
    {O_FROM_SUMMARIES, 0, "from-summaries", NULL,
     "with --all-ranks-html: PATH holds rank_N/ reports of --rank-only runs; add the landing "
     "page to it"},
    {O_NAME_ORDER, 0, "name-order", NULL,
     "with --all-ranks-html: take rank logs and compile folders in name order, not in the order "
     "the file system lists them (the reference's): the same output on any file system"},
    {O_SUMMARY, 0, "summary", NULL,
     "print the diagnosis (graph breaks, recompiles, specializations, failures) and write no "
     "report; of a folder of rank logs, every rank's"},
    {O_JSON, 0, "json", NULL,
     "print the diagnosis as JSON (tlparse-summary/1; tlparse-ranks-diagnosis/1 for a folder of "
     "rank logs) and write no report"},
    {O_PROGRESS, 0, "progress", NULL, "draw a progress bar on stderr (default: on a terminal)"},
    {O_NO_PROGRESS, 0, "no-progress", NULL, "no progress bar"},
    {O_FAIL_ON, 0, "fail-on", "KINDS",
     "exit 1 when the trace has any of KINDS (comma-separated: graph-breaks, recompiles, "
     "failures, specializations, export, eager, any), with or without a report; a folder of rank "
     "logs fails when any rank does, or could not be read; a log with nothing to check "
     "(empty) fails it"},
    {O_RUN, 0, "run", NULL,
     "--run [OPTIONS] -- CMD [ARGS]: run CMD with TORCH_TRACE set to a new folder, then "
     "report on the trace it wrote; options before \"--\" (or before CMD) are tlparse's, "
     "everything after is the command's"},
    {O_WATCH, 0, "watch", NULL,
     "follow PATH (a log, a folder of rank logs, TORCH_LOGS text) while a job writes it, or "
     "with --run the command's trace: each new recompile, graph break, specialization and "
     "failure printed once as it comes (a live screen on a terminal), OUT/live.html kept "
     "current, and the report when the job ends or at Ctrl-C; with --fail-on, exit 1 (and stop "
     "the command) as soon as one of KINDS appears"},
    {O_SERVE, 0, "serve", NULL,
     "serve the report over HTTP once it is written (with --watch, the live report, then the "
     "final one), on 127.0.0.1 only, and open it at its URL; Ctrl-C stops"},
    {O_PORT, 0, "port", "N",
     "with --serve: the port [default: the first free one from 8000]; 0: any free port"},
    {O_BIND, 0, "bind", "ADDR",
     "with --serve: the address to listen on [default: 127.0.0.1]; any other (0.0.0.0: every "
     "interface) lets other machines read the report, and the model's code in it"},
    {O_HELP, 'h', "help", NULL, "print this help"},
    {O_VERSION, 'V', "version", NULL, "print the version and the source revision"},
};

/* text from column indent to column 100, in words; lines after the first indented. */
static void wrap(FILE *f, const char *text, int indent)
{
    const int width = 100 - indent;
    const char *p = text;
    while (*p) {
        int n = (int)strlen(p);
        if (n > width) {
            n = width;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = (int)strcspn(p, " ");
        }
        fprintf(f, "%.*s\n", n, p);
        p += n;
        while (*p == ' ')
            p++;
        if (*p)
            fprintf(f, "%*s", indent, "");
    }
}

static void usage(FILE *f)
{
    fputs("Usage: tlparse [OPTIONS] <PATH>\n"
          "       tlparse [OPTIONS] --run [OPTIONS] -- CMD [ARGS...]\n"
          "       tlparse diff [OPTIONS] <BEFORE> <AFTER>   (see tlparse diff --help)\n\n"
          "Turn a TORCH_TRACE structured log (or TORCH_LOGS text) into an HTML report, or\n"
          "say what is wrong with the compilation it records.\n\n"
          "Arguments:\n"
          "  <PATH>  the log file, a folder of logs (its newest log is parsed; of a folder of\n"
          "          rank logs, --summary, --json and --fail-on read every rank), a report\n"
          "          folder (--summary and --json: its summary.json), or - for standard input\n\n"
          "Options:\n",
          f);
    for (size_t i = 0; i < TL_ARRAY_LEN(specs); i++) {
        const struct option_spec *s = &specs[i];
        char left[64];
        int n = snprintf(left, sizeof(left), "%c%c%s%s%s%s%s", s->short_name ? '-' : ' ',
                         s->short_name ? s->short_name : ' ',
                         s->short_name && s->long_name ? ", "
                         : s->long_name                ? "  "
                                                       : "",
                         s->long_name ? "--" : "", s->long_name ? s->long_name : "",
                         s->value ? " <" : "", s->value ? s->value : "");
        if (s->value && n > 0 && (size_t)n + 1 < sizeof(left))
            strcat(left, ">");
        fprintf(f, "  %-34s ", left);
        wrap(f, s->help, 37);
    }
    fputs("\nLogs may be plain, gzip (.gz) or zstd (.zst) compressed, TORCH_TRACE traces or\n"
          "TORCH_LOGS text. The report opens in $BROWSER (else xdg-open) when there is a display.\n"
          "Exit codes: 0 ok, 1 error (or --strict or --fail-on found problems), 2 bad arguments,\n"
          "130 interrupted; with --run, the command's own status when it failed.\n"
          "See tlparse(1) for more.\n",
          f);
}

static int usage_error(const char *what, const char *arg)
{
    tl_cli_say("tlparse: error: %s%s%s", what, arg ? " " : "", arg ? arg : "");
    fputs("\nUsage: tlparse [OPTIONS] <PATH>\nFor more information, try '--help'.\n", stderr);
    return TL_EXIT_USAGE;
}

/* What --fail-on can fail on. */
enum fail_kind {
    F_GRAPH_BREAKS = 1 << 0,
    F_RECOMPILES = 1 << 1,
    F_FAILURES = 1 << 2,
    F_SPECIALIZATIONS = 1 << 3,
    F_EXPORT = 1 << 4,
    F_EAGER = 1 << 5, /* frames that ran in eager mode (the recompile limit, a skipped frame) */
    F_ANY = (1 << 6) - 1,
};

static const struct {
    const char *name;
    unsigned kind;
} fail_names[] = {
    {"graph-breaks", F_GRAPH_BREAKS},
    {"recompiles", F_RECOMPILES},
    {"failures", F_FAILURES},
    {"specializations", F_SPECIALIZATIONS},
    {"export", F_EXPORT},
    {"eager", F_EAGER},
    {"any", F_ANY},
};

/* ---- --fail-on ------------------------------------------------------------------------------ */

/* Say what of kinds the counts of ranks ranks (0: one log) hold; TL_EXIT_ERROR when any, else
 * TL_EXIT_OK. */
static int fail_on(unsigned kinds, const struct tl_counts *c, uint32_t ranks)
{
    const struct {
        unsigned kind;
        uint64_t n;
        const char *one, *many;
    } found[] = {
        {F_EAGER, c->eager_frames, "frame run in eager mode", "frames run in eager mode"},
        {F_FAILURES, c->failures, "failed compilation", "failed compilations"},
        {F_GRAPH_BREAKS, c->graph_breaks, "graph break", "graph breaks"},
        {F_RECOMPILES, c->recompiles, "recompile", "recompiles"},
        {F_SPECIALIZATIONS, c->specializations, "specialization", "specializations"},
        {F_EXPORT, c->export_problems, "export problem", "export problems"},
    };
    char msg[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < TL_ARRAY_LEN(found); i++) {
        if (!(kinds & found[i].kind) || !found[i].n)
            continue;
        int k = snprintf(msg + len, sizeof(msg) - len, "%s%llu %s", len ? ", " : "",
                         (unsigned long long)found[i].n,
                         found[i].n == 1 ? found[i].one : found[i].many);
        if (k > 0 && (size_t)k < sizeof(msg) - len)
            len += (size_t)k;
    }
    if (!len)
        return TL_EXIT_OK;
    if (ranks)
        tl_cli_say("tlparse: --fail-on: the %u ranks have %s", ranks, msg);
    else
        tl_cli_say("tlparse: --fail-on: the trace has %s", msg);
    return TL_EXIT_ERROR;
}

/* The last line of a run that wrote a report: where it is and what it found. */
static void say_done(const struct tl_options *opt, const struct tl_result *res)
{
    char where[8300];
    if (res->index_path && res->bundle_path)
        snprintf(where, sizeof(where), "%s and %s", res->index_path, res->bundle_path);
    else
        snprintf(where, sizeof(where), "%s", res->index_path ? res->index_path : res->bundle_path);
    if (!res->has_counts) {
        tl_cli_say("tlparse: the report is %s", where);
        return;
    }
    const struct tl_counts *c = &res->counts;
    char ranks[128] = "";
    if (res->newest_of)
        snprintf(ranks, sizeof(ranks), "the newest of the logs of %u ranks, ", res->newest_of);
    else if (res->ranks_left)
        snprintf(ranks, sizeof(ranks), "%u rank%s (and %u not read), ", res->ranks,
                 res->ranks == 1 ? "" : "s", res->ranks_left);
    else if (res->ranks)
        snprintf(ranks, sizeof(ranks), "%u rank%s, ", res->ranks, res->ranks == 1 ? "" : "s");
    if (opt->export_mode) {
        tl_cli_say("tlparse: %s: %s%llu export problem%s", where, ranks,
                   (unsigned long long)c->export_problems, c->export_problems == 1 ? "" : "s");
        return;
    }
    tl_cli_say("tlparse: %s: %s%llu compile id%s, %llu graph break%s, %llu recompile%s, %llu "
               "failure%s",
               where, ranks, (unsigned long long)c->compile_ids, c->compile_ids == 1 ? "" : "s",
               (unsigned long long)c->graph_breaks, c->graph_breaks == 1 ? "" : "s",
               (unsigned long long)c->recompiles, c->recompiles == 1 ? "" : "s",
               (unsigned long long)c->failures, c->failures == 1 ? "" : "s");
}

struct cli {
    struct tl_options opt;
    bool no_browser;
    int progress; /* -1: on a terminal */
    struct tl_cli_bar bar;
    int exit_now;     /* >= 0: --help, --version or an error said so */
    unsigned fail_on; /* enum fail_kind */
    char **run;       /* --run: the command and its arguments (NULL-terminated) */
    bool watch;       /* --watch */
    bool said_done;   /* --serve said where the report is, and what it found */
};

/* A whole number of at most 2^32 - 1, digits only. */
static bool parse_u32(const char *s, unsigned *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
        return false;
    unsigned long long v = strtoull(s, NULL, 10);
    *out = (unsigned)v;
    return v <= 0xffffffffu;
}

/* "graph-breaks,recompiles": the kinds, or false for a name it does not know. */
static bool parse_fail_on(const char *value, unsigned *kinds)
{
    *kinds = 0;
    const char *p = value;
    for (;;) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        while (i < TL_ARRAY_LEN(fail_names) &&
               !(strlen(fail_names[i].name) == n && !strncmp(fail_names[i].name, p, n)))
            i++;
        if (i == TL_ARRAY_LEN(fail_names))
            return false;
        *kinds |= fail_names[i].kind;
        if (!p[n])
            return true;
        p += n + 1;
    }
}

/* Apply one option; value is its argument (NULL for flags). */
static void apply(struct cli *c, enum opt_id id, const char *value)
{
    struct tl_options *o = &c->opt;
    switch (id) {
    case O_LATEST:
        o->latest = true;
        break;
    case O_REDACT:
        o->redact = true;
        o->redact_paths = value != NULL;
        break;
    case O_BUNDLE:
        o->bundle = value;
        break;
    case O_OUT:
        o->out_dir = value;
        break;
    case O_OVERWRITE:
        o->overwrite = true;
        break;
    case O_STRICT:
        o->strict = true;
        break;
    case O_STRICT_CID:
        o->strict_compile_id = true;
        break;
    case O_NO_BROWSER:
        c->no_browser = true;
        break;
    case O_HEADER:
        o->custom_header_html = value;
        break;
    case O_VERBOSE:
        o->verbose = true;
        break;
    case O_PLAIN:
        o->plain_text = true;
        break;
    case O_EXPORT:
        o->export_mode = true;
        break;
    case O_PROVENANCE:
        o->inductor_provenance = true;
        break;
    case O_ALL_RANKS:
        o->all_ranks_html = true;
        break;
    case O_JOBS:
        if (!parse_u32(value, &o->jobs) || o->jobs == 0)
            c->exit_now = usage_error("-j wants a number of threads (1 or more), not", value);
        break;
    case O_RANK_ONLY:
        o->rank_only = true;
        break;
    case O_RANK: {
        unsigned r;
        if (!parse_u32(value, &r))
            c->exit_now = usage_error("--rank wants a rank number, not", value);
        o->rank = r;
        o->has_rank = true;
        break;
    }
    case O_RANK_FAILED:
        o->rank_failed = value;
        break;
    case O_FROM_SUMMARIES:
        o->from_summaries = true;
        break;
    case O_NAME_ORDER:
        o->name_order = true;
        break;
    case O_SUMMARY:
        o->summary = TL_SUMMARY_TEXT;
        break;
    case O_JSON:
        o->summary = TL_SUMMARY_JSON;
        break;
    case O_PROGRESS:
        c->progress = 1;
        break;
    case O_NO_PROGRESS:
        c->progress = 0;
        break;
    case O_FAIL_ON:
        if (!parse_fail_on(value, &c->fail_on))
            c->exit_now = usage_error("--fail-on wants a comma-separated list of graph-breaks, "
                                      "recompiles, failures, specializations, export, eager or "
                                      "any, not",
                                      value);
        o->check_content = true;    /* a trace with nothing in it passes no check */
        o->all_ranks_counts = true; /* of a folder's newest log: every rank is judged */
        break;
    case O_RUN:
        break; /* parse_args takes the command */
    case O_WATCH:
        c->watch = true;
        break;
    case O_SERVE:
        o->serve = true;
        break;
    case O_PORT: {
        unsigned port;
        if (!parse_u32(value, &port) || port > 65535)
            c->exit_now = usage_error("--port wants a port number (0 to 65535), not", value);
        o->port = (uint16_t)port;
        o->has_port = true;
        break;
    }
    case O_BIND:
        o->serve_bind = value;
        break;
    case O_HELP:
        usage(stdout);
        c->exit_now = TL_EXIT_OK;
        break;
    case O_VERSION:
        if (*tl_version_revision())
            printf("tlparse %s (revision %s)\n", tl_version(), tl_version_revision());
        else
            printf("tlparse %s\n", tl_version());
        c->exit_now = TL_EXIT_OK;
        break;
    }
}

static const struct option_spec *find_long(const char *name, size_t n)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(specs); i++)
        if (specs[i].long_name && strlen(specs[i].long_name) == n &&
            !strncmp(specs[i].long_name, name, n))
            return &specs[i];
    return NULL;
}

static const struct option_spec *find_short(char c)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(specs); i++)
        if (specs[i].short_name == c)
            return &specs[i];
    return NULL;
}

static int missing_value(const struct option_spec *s)
{
    char what[80];
    if (s->long_name)
        snprintf(what, sizeof(what), "--%s <%s>", s->long_name, s->value);
    else
        snprintf(what, sizeof(what), "-%c <%s>", s->short_name, s->value);
    return usage_error("a value is required for", what);
}

/* "--name", "--name=V", "--name V". Returns -1 or an exit code. */
static int long_option(struct cli *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i] + 2;
    const char *eq = strchr(a, '=');
    const struct option_spec *s = find_long(a, eq ? (size_t)(eq - a) : strlen(a));
    if (!s)
        return usage_error("unexpected argument", argv[*i]);
    const char *value = NULL;
    if (s->id == O_REDACT && eq) {
        /* --redact takes one optional value, and only as --redact=paths */
        if (strcmp(eq + 1, "paths"))
            return usage_error("--redact takes no value but =paths, not", argv[*i]);
        apply(c, s->id, eq + 1);
        return c->exit_now;
    }
    if (s->value) {
        value = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!value)
            return missing_value(s);
    } else if (eq) {
        return usage_error("unexpected value for", argv[*i]);
    }
    apply(c, s->id, value);
    return c->exit_now;
}

/* "-vp", "-oX", "-o=X", "-o X". Returns -1 or an exit code. */
static int short_options(struct cli *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    for (const char *f = a + 1; *f; f++) {
        const struct option_spec *s = find_short(*f);
        if (!s)
            return usage_error("unexpected argument", a);
        if (!s->value) {
            apply(c, s->id, NULL);
            if (c->exit_now >= 0)
                return c->exit_now;
            continue;
        }
        const char *v = f[1] ? f + 1 + (f[1] == '=') : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!v || !*v)
            return missing_value(s);
        apply(c, s->id, v);
        return c->exit_now;
    }
    return -1;
}

/*
 * With --run, the command is what follows "--", or else the first word that is not an option
 * of tlparse (as env(1) and time(1) take theirs): options before it are tlparse's, in either
 * order ("tlparse --run --no-browser -o out -- python train.py"), everything after it is the
 * command's.
 */
static int parse_args(struct cli *c, int argc, char **argv)
{
    bool only_positional = false, run = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = -1;
        if (run && (only_positional || a[0] != '-' || !strcmp(a, "-"))) {
            c->run = argv + i;
            break;
        } else if (only_positional || a[0] != '-' || !strcmp(a, "-")) {
            if (c->opt.path)
                return usage_error("unexpected argument", a);
            c->opt.path = a;
        } else if (!strcmp(a, "--")) {
            only_positional = true;
            if (run && i + 1 < argc) {
                c->run = argv + i + 1;
                break;
            }
        } else if (!strcmp(a, "--run")) {
            run = true;
        } else if (a[1] == '-') {
            rc = long_option(c, argc, argv, &i);
        } else {
            rc = short_options(c, argc, argv, &i);
        }
        if (rc >= 0)
            return rc;
    }
    if (run && !c->run)
        return usage_error("--run wants a command:", "tlparse --run [OPTIONS] -- CMD [ARGS...]");
    if (run && c->opt.path)
        return usage_error("--run takes no PATH (the trace is the command's):", c->opt.path);
    if (!c->opt.path && !run && !c->opt.rank_failed)
        return usage_error("the following required argument was not provided:", "<PATH>");
    return -1;
}

/* The options the environment sets. It is read here, at the edge; the library takes options
 * only. */
static void options_from_env(struct cli *c)
{
    struct tl_options *opt = &c->opt;
    if (c->progress < 0 ? isatty(2) : c->progress) {
        opt->progress = tl_cli_bar_draw;
        opt->progress_ctx = &c->bar;
        opt->message = tl_cli_bar_message;
        opt->message_ctx = &c->bar;
    }
    const char *year = getenv("TLPARSE_YEAR"); /* reproducible raw.jsonl for tests */
    if (year && *year)
        opt->year = atoi(year);
    opt->no_threads = getenv("TLPARSE_NO_THREADS") != NULL;
    const char *term = getenv("TERM");
    opt->color = isatty(1) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));
}

/* --run: runs the program with tracing into trace_dir, which becomes the input. Returns -1
 * when there is a trace to read, else the exit code. */
static int run_program(struct cli *c, char *trace_dir, size_t size, int *run_status)
{
    struct tl_options *opt = &c->opt;
    *run_status = tl_cli_run_command(c->run, trace_dir, size);
    bool any = false;
    size_t ranks = *run_status < 0 ? 0 : tl_cli_rank_logs(trace_dir, &any);
    if (*run_status < 0 || !any) {
        if (*run_status >= 0 && rmdir(trace_dir) == 0)
            tl_cli_say("tlparse: error: %s wrote no trace (into %s, now removed): does it "
                       "call torch.compile or torch.export?",
                       c->run[0], trace_dir);
        return *run_status > 0 ? *run_status : TL_EXIT_ERROR;
    }
    opt->path = trace_dir;
    opt->all_ranks_html = ranks > 1 && !opt->summary;
    return -1;
}

/* --summary's text goes to stdout (a failed write fails the run: tl_cli_close). */
static void print_summary(struct tl_result *res)
{
    if (!res->summary)
        return;
    tl_cli_print(res->summary);
}

/* --fail-on, checked on the counts of a run that went well; of one whose logs were all read but
 * failed --strict or held nothing to check (said already), what the others hold is said too. */
static int check_fail_on(const struct cli *c, const struct tl_result *res, int rc)
{
    if (rc == TL_EXIT_ERROR && c->fail_on && res->has_counts && !res->ranks_left) {
        fail_on(c->fail_on, &res->counts, res->ranks);
        return rc;
    }
    if (rc != TL_EXIT_OK || !c->fail_on)
        return rc;
    if (!res->has_counts) {
        tl_cli_say("tlparse: error: --fail-on: nothing was read to check");
        return TL_EXIT_ERROR;
    }
    if (res->newest_of) { /* every rank, counted by the run (options.all_ranks_counts) */
        if (!res->has_folder_counts || res->folder_exit != TL_EXIT_OK)
            return res->has_folder_counts ? res->folder_exit : TL_EXIT_ERROR;
        return fail_on(c->fail_on, &res->folder_counts, res->folder_ranks);
    }
    if (res->ranks_left) {
        tl_cli_say("tlparse: --fail-on: %u rank%s could not be read", res->ranks_left,
                   res->ranks_left == 1 ? "" : "s");
        return TL_EXIT_ERROR;
    }
    return fail_on(c->fail_on, &res->counts, res->ranks);
}

/* The page to open: the report's index, else a single-page bundle. */
static void open_page(const struct tl_result *res)
{
    char page[4096];
    size_t blen = res->bundle_path ? strlen(res->bundle_path) : 0;
    snprintf(page, sizeof(page), "%s", res->index_path ? res->index_path : "");
    if (!page[0] && blen > 5 && !strcasecmp(res->bundle_path + blen - 5, ".html"))
        snprintf(page, sizeof(page), "%s", res->bundle_path);
    if (page[0])
        tl_cli_open_browser(page);
}

/* --serve: the report is served (tl_options.serving): said, and opened at its URL; a watch
 * tells its live report (res NULL), then its final one (not opened again). */
static void on_serving(void *ctx, const char *url, const char *root, const struct tl_result *res)
{
    struct cli *c = ctx;
    tl_cli_bar_clear(&c->bar);
    if (res) {
        say_done(&c->opt, res);
        c->said_done = true;
    }
    tl_cli_say("tlparse: serving %s%s at %s (Ctrl-C stops)",
               c->watch && !res ? "the live report " : "", root, url);
    if (!c->no_browser && !(c->watch && res))
        tl_cli_open_browser(url);
}

/* ---- --watch ------------------------------------------------------------------------------ */

struct watched {
    const struct cli *c;
    pid_t pid; /* --run's command, 0: none */
    int status;
    bool ended, failed;
};

static int job_running(void *ctx, int *status)
{
    struct watched *w = ctx;
    if (!w->ended) {
        /* not said here: the watch says it among its lines */
        int code = tl_cli_run_wait(w->c->run, w->pid, false, false);
        if (code == -2)
            return 1;
        w->ended = true;
        w->status = code < 0 ? TL_EXIT_ERROR : code;
    }
    *status = w->status;
    return 0;
}

static int watch_check(void *ctx, const struct tl_counts *counts)
{
    struct watched *w = ctx;
    if (w->failed || fail_on(w->c->fail_on, counts, 0) == TL_EXIT_OK)
        return 0;
    w->failed = true;
    return 1;
}

/* What the command wrote to its pseudo-terminal since the watch ended, onto standard output. */
static void pass_output(int fd)
{
    char buf[16384];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* nothing now (EAGAIN), or its end (EIO) */
        if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
            return;
        fflush(stdout);
    }
}

/* The watch's view on the screen (cli/screen.h). */
static void view_lines(void *ctx, const char *p, size_t n)
{
    tl_screen_lines(ctx, p, n);
}

static void view_job(void *ctx, const char *p, size_t n)
{
    tl_screen_job(ctx, p, n);
}

static void view_panel(void *ctx, const char *p, size_t n)
{
    tl_screen_set_panel(ctx, p, n);
}

static void view_draw(void *ctx)
{
    tl_screen_draw(ctx);
}

static void view_end(void *ctx)
{
    tl_screen_end(ctx);
}

/* --watch: the live view, then the report of what was written; the exit code (1 when --fail-on
 * stopped it; else the command's status when it failed; else the report's). */
static int watch(struct cli *c)
{
    struct tl_options *opt = &c->opt;
    struct watched wd = {.c = c};
    /* Each followed log is held open: as many as the hard limit allows (ranks by the hundred). */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    bool tty = isatty(1) == 1;
    struct winsize ws = {0};
    if (tty)
        ioctl(1, TIOCGWINSZ, &ws);
    struct tl_screen screen;
    tl_screen_init(&screen, 1, tty, ws.ws_row, ws.ws_col);
    struct tl_watch w = {.color = opt->color, .panel = tty, .width = tty ? screen.columns : 0};
    w.view = (struct tl_watch_view){.lines = view_lines,
                                    .job_bytes = view_job,
                                    .panel = view_panel,
                                    .draw = view_draw,
                                    .end = view_end,
                                    .ctx = &screen};
    char trace_dir[4096];
    char *title = NULL;
    int output = -1;
    if (opt->serve) /* Ctrl-C stops the serving once the command (which takes it) ended */
        tl_cli_catch_signals();
    if (c->run) {
        /* On a terminal, the command writes into a pseudo-terminal whose other end the watch
         * reads: its lines and the watch's come out in order, none drawn over. */
        if (tl_cli_run_start(c->run, trace_dir, sizeof(trace_dir), &wd.pid, tty ? &output : NULL) <
            0) {
            tl_screen_release(&screen);
            return TL_EXIT_ERROR;
        }
        opt->path = trace_dir;
        size_t n = 0;
        while (c->run[n])
            n++;
        title = tl_cli_quote_words((int)n, c->run);
        w.title = title;
        w.job = job_running;
        w.job_ctx = &wd;
        w.job_output_fd = output;
        w.ranks_report = !opt->summary; /* several rank logs: their report, as --run gives */
    } else {
        tl_cli_catch_signals();
    }
    if (c->fail_on) {
        w.check = watch_check;
        w.check_ctx = &wd;
    }
    w.poll = getenv("TLPARSE_WATCH_POLL") != NULL; /* tests: the poll without inotify */
    opt->progress = NULL;
    opt->message = NULL;
    struct tl_result res;
    int rc = tl_watch(opt, &w, &res);
    if (tl_screen_failed(&screen)) {
        tl_cli_say("tlparse: error: cannot write to stdout: %s",
                   strerror(tl_screen_failed(&screen)));
        rc = rc == TL_EXIT_OK ? TL_EXIT_ERROR : rc;
    }
    tl_screen_release(&screen);
    if (c->run && !wd.ended) {
        /* --fail-on stopped the watch (or it failed, or Ctrl-C): the command is stopped too, and
         * what it still writes is shown (a traceback), read as it comes so that it never waits
         * for room to write */
        if (wd.failed)
            tl_cli_say("tlparse: --fail-on: stopping %s", c->run[0]);
        kill(wd.pid, SIGTERM);
        int code;
        while ((code = tl_cli_run_wait(c->run, wd.pid, output < 0, true)) == -2) {
            pass_output(output);
            usleep(20000);
        }
        wd.status = code < 0 ? TL_EXIT_ERROR : code;
        wd.ended = true;
    }
    if (output >= 0) {
        pass_output(output);
        close(output);
    }
    free(title);
    if (c->run)
        tl_cli_say("tlparse: the trace is kept in %s", trace_dir);
    bool report = (rc == TL_EXIT_OK || rc == TL_EXIT_ERROR) && res.index_path;
    if (report && !c->said_done)
        say_done(opt, &res);
    if (wd.failed) { /* said of every rank when the report is of a folder's newest log */
        if (res.newest_of && res.has_folder_counts)
            fail_on(c->fail_on, &res.folder_counts, res.folder_ranks);
        else
            fail_on(c->fail_on, &res.counts, res.ranks);
        rc = TL_EXIT_ERROR;
    } else if (c->run && wd.status > 0) {
        rc = wd.status;
    }
    tl_result_release(&res);
    return rc;
}

static int run_cli(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "diff")) {
        char *cmdline = tl_cli_command_line(argc, argv);
        int rc = tl_cli_diff(argc - 1, argv + 1, cmdline);
        free(cmdline);
        return rc;
    }
    struct cli c;
    memset(&c, 0, sizeof(c));
    c.progress = -1;
    c.exit_now = -1;
    int rc = parse_args(&c, argc, argv);
    if (rc >= 0)
        return rc;
    struct tl_options *opt = &c.opt;
    opt->cancel = &tl_cli_cancel;
    options_from_env(&c);
    char *cmdline = tl_cli_command_line(argc, argv);
    opt->command_line = cmdline;
    opt->serving = on_serving;
    opt->serving_ctx = &c;

    if (c.watch) {
        rc = watch(&c);
        free(cmdline);
        return rc;
    }

    int run_status = 0;
    char trace_dir[4096];
    if (c.run && (rc = run_program(&c, trace_dir, sizeof(trace_dir), &run_status)) >= 0) {
        free(cmdline);
        return rc;
    }

    tl_cli_catch_signals();

    struct tl_result res;
    rc = tl_run(opt, &res);
    tl_cli_bar_clear(&c.bar);
    print_summary(&res);
    if (c.run)
        tl_cli_say("tlparse: the trace is kept in %s", trace_dir);
    /* a report was written (--strict failed on it, or not): it is named last */
    bool report = (rc == TL_EXIT_OK || rc == TL_EXIT_ERROR) && opt->summary == TL_SUMMARY_NONE &&
                  (res.index_path || res.bundle_path);
    bool open_it = report && rc == TL_EXIT_OK && !c.no_browser && !opt->serve;
    rc = check_fail_on(&c, &res, rc);
    if (open_it)
        open_page(&res);
    if (report && !c.said_done)
        say_done(opt, &res);
    tl_result_release(&res);
    free(cmdline);
    return run_status > 0 ? run_status : rc;
}

int main(int argc, char **argv)
{
    return tl_cli_close(run_cli(argc, argv));
}
