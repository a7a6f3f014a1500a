/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tlparse command: parse options (the reference's CLI, spec core.md §8, and ours, from
 * one table that also writes --help) and the environment (TLPARSE_YEAR, TLPARSE_NO_THREADS,
 * NO_COLOR), call tl_run(), print a summary on stdout when asked, map the
 * result to an exit code, open the report.
 */
#include "base/config.h"
#include "tlparse/tlparse.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum opt_id {
    O_LATEST,
    O_OUT,
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
    O_FROM_SUMMARIES,
    O_NAME_ORDER,
    O_SUMMARY,
    O_JSON,
    O_PROGRESS,
    O_NO_PROGRESS,
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
    {O_OVERWRITE, 0, "overwrite", NULL,
     "replace OUT if it exists (once the new report is complete)"},
    {O_STRICT, 0, "strict", NULL, "exit 1 if any line could not be parsed"},
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
     "in OUT/rank_N and a landing page across them"},
    {O_JOBS, 'j', "jobs", "N", "with --all-ranks-html: parse N ranks at once [default: cores]"},
    {O_RANK_ONLY, 0, "rank-only", NULL,
     "PATH is one rank's log: write its report and summary to OUT (OUT/rank_N on any machine), "
     "for --from-summaries"},
    {O_RANK, 0, "rank", "N", "with --rank-only: the log's rank [default: from its name]"},
    {O_FROM_SUMMARIES, 0, "from-summaries", NULL,
     "with --all-ranks-html: PATH holds rank_N/ reports of --rank-only runs; add the landing "
     "page to it"},
    {O_NAME_ORDER, 0, "name-order", NULL,
     "with --all-ranks-html: take rank logs and compile folders in name order, not in the order "
     "the file system lists them (the reference's): the same output on any file system"},
    {O_SUMMARY, 0, "summary", NULL,
     "print the diagnosis (graph breaks, recompiles, specializations, failures) and write no "
     "report"},
    {O_JSON, 0, "json", NULL, "print the diagnosis as JSON and write no report"},
    {O_PROGRESS, 0, "progress", NULL, "draw a progress bar on stderr (default: on a terminal)"},
    {O_NO_PROGRESS, 0, "no-progress", NULL, "no progress bar"},
    {O_HELP, 'h', "help", NULL, "print this help"},
    {O_VERSION, 'V', "version", NULL, "print the version"},
};

static void usage(FILE *f)
{
    fputs("Usage: tlparse [OPTIONS] <PATH>\n\n"
          "Turn a TORCH_TRACE structured log (or TORCH_LOGS text) into an HTML report, or\n"
          "say what is wrong with the compilation it records.\n\n"
          "Arguments:\n"
          "  <PATH>  the log file, or a folder of logs (its newest log is parsed)\n\n"
          "Options:\n",
          f);
    for (size_t i = 0; i < TL_ARRAY_LEN(specs); i++) {
        const struct option_spec *s = &specs[i];
        char left[64];
        int n = snprintf(left, sizeof(left), "%c%c%s%s%s%s%s", s->short_name ? '-' : ' ',
                         s->short_name ? s->short_name : ' ',
                         s->short_name && s->long_name ? ", " : "  ", s->long_name ? "--" : "",
                         s->long_name ? s->long_name : "", s->value ? " <" : "",
                         s->value ? s->value : "");
        if (s->value && n > 0 && (size_t)n + 1 < sizeof(left))
            strcat(left, ">");
        fprintf(f, "  %-34s %s\n", left, s->help);
    }
    fputs("\nLogs may be plain, gzip (.gz) or zstd (.zst) compressed. Exit codes: 0 ok, 1 error\n"
          "(or --strict found problems), 2 bad arguments, 130 interrupted.\n",
          f);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "tlparse: error: %s%s%s", what, arg ? " " : "", arg ? arg : "");
    fputs("\n\nUsage: tlparse [OPTIONS] <PATH>\nFor more information, try '--help'.\n", stderr);
    return TL_EXIT_USAGE;
}

static void on_signal(int sig)
{
    (void)sig;
    tl_interrupted = 1;
}

static void open_browser(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", 1);
        if (devnull >= 0) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        execlp("xdg-open", "xdg-open", path, (char *)NULL);
        _exit(127);
    }
    if (pid > 0) {
        int status;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fprintf(stderr, "tlparse: warning: could not open a browser; the report is %s\n", path);
    }
}

struct cli {
    struct tl_options opt;
    bool no_browser;
    int progress; /* -1: on a terminal */
    int exit_now; /* >= 0: --help, --version or an error said so */
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

/* Apply one option; value is its argument (NULL for flags). */
static void apply(struct cli *c, enum opt_id id, const char *value)
{
    struct tl_options *o = &c->opt;
    switch (id) {
    case O_LATEST:
        o->latest = true;
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
    case O_HELP:
        usage(stdout);
        c->exit_now = TL_EXIT_OK;
        break;
    case O_VERSION:
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

static int parse_args(struct cli *c, int argc, char **argv)
{
    bool only_positional = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = -1;
        if (only_positional || a[0] != '-' || !strcmp(a, "-")) {
            if (c->opt.path)
                return usage_error("unexpected argument", a);
            c->opt.path = a;
        } else if (!strcmp(a, "--")) {
            only_positional = true;
        } else if (a[1] == '-') {
            rc = long_option(c, argc, argv, &i);
        } else {
            rc = short_options(c, argc, argv, &i);
        }
        if (rc >= 0)
            return rc;
    }
    if (!c->opt.path)
        return usage_error("the following required argument was not provided:", "<PATH>");
    return -1;
}

int main(int argc, char **argv)
{
    struct cli c;
    memset(&c, 0, sizeof(c));
    c.progress = -1;
    c.exit_now = -1;
    int rc = parse_args(&c, argc, argv);
    if (rc >= 0)
        return rc;
    struct tl_options *opt = &c.opt;
    opt->progress = c.progress < 0 ? isatty(2) : c.progress;
    /* The environment is read here, at the edge; the library takes options only. */
    const char *year = getenv("TLPARSE_YEAR"); /* reproducible raw.jsonl for tests */
    if (year && *year)
        opt->year = atoi(year);
    opt->no_threads = getenv("TLPARSE_NO_THREADS") != NULL;
    const char *term = getenv("TERM");
    opt->color = isatty(1) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    struct tl_result res;
    rc = tl_run(opt, &res);
    if (res.summary) {
        fputs(res.summary, stdout);
        free(res.summary);
        if (fflush(stdout) != 0 && rc == TL_EXIT_OK) {
            fprintf(stderr, "tlparse: error: cannot write the summary to stdout\n");
            rc = TL_EXIT_ERROR;
        }
    }
    if (rc == TL_EXIT_OK && !c.no_browser && res.index_path[0])
        open_browser(res.index_path);
    return rc;
}
