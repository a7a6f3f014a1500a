/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `tlparse diff [OPTIONS] BEFORE AFTER`: parse the options, call tl_diff_run(), apply
 * --fail-on to what it counted, print the text or JSON, open the page.
 */
#include "base/config.h"
#include "cli/cli.h"
#include "tlparse/tlparse.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("Usage: tlparse diff [OPTIONS] <BEFORE> <AFTER>\n\n"
          "Compare two runs of a model: which graph breaks, recompiles, specializations and\n"
          "failures are fixed or new, frames compiled more or fewer times, compile time per\n"
          "frame and in total, caches and graph sizes. Frames are matched by their code\n"
          "location and callers, not by compile id.\n\n"
          "Arguments:\n"
          "  <BEFORE>, <AFTER>  each a TORCH_TRACE log (or a folder of logs: its newest), a\n"
          "                     TORCH_LOGS text log, a report's summary.json, or a report\n"
          "                     folder holding one; - for standard input (one side only)\n\n"
          "Options:\n"
          "  -o <OUT>           output folder [default: tl_diff]: index.html, diff.json, and\n"
          "                     the report of each side that is a log in OUT/before, OUT/after\n"
          "      --overwrite    replace OUT if it exists (once the new diff is complete)\n"
          "      --summary      print the diff as text and write no folder\n"
          "      --json         print the diff as JSON (tlparse-diff/1) and write no folder\n"
          "      --fail-on <KINDS>\n"
          "                     exit 1 when AFTER is worse (comma-separated): new-failures,\n"
          "                     new-recompiles, new-graph-breaks, new-specializations (found\n"
          "                     only after, or more often), new (all four), slower:PCT (total\n"
          "                     compile time up by more than PCT percent)\n"
          "      --no-browser   do not open the page in a browser\n"
          "  -h, --help         print this help\n\n"
          "Exit codes: 0 ok, 1 error (or --fail-on found a regression), 2 bad arguments,\n"
          "130 interrupted.\n",
          f);
}

static int usage_error(const char *what, const char *arg)
{
    tl_cli_say("tlparse: error: %s%s%s", what, arg ? " " : "", arg ? arg : "");
    fputs("\nUsage: tlparse diff [OPTIONS] <BEFORE> <AFTER>\nFor more information, try "
          "'tlparse diff --help'.\n",
          stderr);
    return TL_EXIT_USAGE;
}

enum {
    F_FAILURES = 1 << 0,
    F_RECOMPILES = 1 << 1,
    F_BREAKS = 1 << 2,
    F_SPECS = 1 << 3,
    F_SLOWER = 1 << 4,
};

struct fail_on {
    unsigned kinds;
    double slower_pct;
};

static bool parse_fail_on(const char *value, struct fail_on *f)
{
    static const struct {
        const char *name;
        unsigned kinds;
    } names[] = {
        {"new-failures", F_FAILURES},
        {"new-recompiles", F_RECOMPILES},
        {"new-graph-breaks", F_BREAKS},
        {"new-specializations", F_SPECS},
        {"new", F_FAILURES | F_RECOMPILES | F_BREAKS | F_SPECS},
    };
    for (const char *p = value;;) {
        size_t n = strcspn(p, ",");
        bool known = false;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !known; i++)
            if (strlen(names[i].name) == n && !strncmp(names[i].name, p, n)) {
                f->kinds |= names[i].kinds;
                known = true;
            }
        if (!known && n > 7 && !strncmp(p, "slower:", 7)) {
            char num[32];
            size_t m = n - 7 < sizeof(num) - 1 ? n - 7 : sizeof(num) - 1;
            memcpy(num, p + 7, m);
            num[m] = '\0';
            if (m && num[m - 1] == '%')
                num[--m] = '\0';
            char *end;
            double v = strtod(num, &end);
            if (m && !*end && isfinite(v) && v >= 0) {
                f->kinds |= F_SLOWER;
                f->slower_pct = v;
                known = true;
            }
        }
        if (!known)
            return false;
        if (!p[n])
            return true;
        p += n + 1;
    }
}

/* Say what of the kinds the diff found; 1 when any, else 0. */
static int check_fail_on(const struct fail_on *f, const struct tl_diff_tally *t)
{
    const struct {
        unsigned kind;
        uint32_t n;
        const char *one, *many;
    } found[] = {
        {F_FAILURES, t->new_failures, "new failure", "new failures"},
        {F_RECOMPILES, t->new_recompiles, "new recompile", "new recompiles"},
        {F_BREAKS, t->new_graph_breaks, "new graph break", "new graph breaks"},
        {F_SPECS, t->new_specializations, "new specialization", "new specializations"},
    };
    char msg[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof(found) / sizeof(found[0]); i++) {
        if (!(f->kinds & found[i].kind) || !found[i].n)
            continue;
        int k = snprintf(msg + len, sizeof(msg) - len, "%s%u %s", len ? ", " : "", found[i].n,
                         found[i].n == 1 ? found[i].one : found[i].many);
        if (k > 0 && (size_t)k < sizeof(msg) - len)
            len += (size_t)k;
    }
    if ((f->kinds & F_SLOWER) && t->before_s > 0 && t->after_s >= 0) {
        double pct = 100 * (t->after_s - t->before_s) / t->before_s;
        if (pct > f->slower_pct) {
            int k = snprintf(msg + len, sizeof(msg) - len,
                             "%scompile time %.2f s -> %.2f s (+%.1f%%, more than %g%%)",
                             len ? ", " : "", t->before_s, t->after_s, pct, f->slower_pct);
            if (k > 0 && (size_t)k < sizeof(msg) - len)
                len += (size_t)k;
        }
    } else if (f->kinds & F_SLOWER) {
        tl_cli_say("tlparse: warning: --fail-on slower: a side has no compile times; not "
                   "checked");
    }
    if (!len)
        return TL_EXIT_OK;
    tl_cli_say("tlparse: --fail-on: %s", msg);
    return TL_EXIT_ERROR;
}

int tl_cli_diff(int argc, char **argv, const char *command_line)
{
    struct tl_diff_options opt;
    memset(&opt, 0, sizeof(opt));
    struct fail_on fail = {0, 0};
    bool no_browser = false, only_positional = false;
    const char *paths[2] = {NULL, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || !strcmp(a, "-")) {
            if (paths[1])
                return usage_error("unexpected argument", a);
            paths[paths[0] ? 1 : 0] = a;
        } else if (!strcmp(a, "--")) {
            only_positional = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return TL_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strncmp(a, "-o=", 3) || (a[1] == 'o' && a[2])) {
            const char *v = a[2] == '=' ? a + 3 : a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !*v)
                return usage_error("a value is required for", "-o <OUT>");
            opt.out_dir = v;
        } else if (!strcmp(a, "--overwrite")) {
            opt.overwrite = true;
        } else if (!strcmp(a, "--summary")) {
            opt.summary = TL_SUMMARY_TEXT;
        } else if (!strcmp(a, "--json")) {
            opt.summary = TL_SUMMARY_JSON;
        } else if (!strcmp(a, "--no-browser")) {
            no_browser = true;
        } else if (!strcmp(a, "--fail-on") || !strncmp(a, "--fail-on=", 10)) {
            const char *v = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !*v)
                return usage_error("a value is required for", "--fail-on <KINDS>");
            if (!parse_fail_on(v, &fail))
                return usage_error("--fail-on wants a comma-separated list of new-failures, "
                                   "new-recompiles, new-graph-breaks, new-specializations, new, "
                                   "slower:PCT; not",
                                   v);
        } else if (!strcmp(a, "--serve") || !strcmp(a, "--port") || !strncmp(a, "--port=", 7) ||
                   !strcmp(a, "--bind") || !strncmp(a, "--bind=", 7)) {
            return usage_error("cannot use", "--serve, --port or --bind with tlparse diff (it "
                                             "writes one page: open OUT/index.html)");
        } else {
            return usage_error("unexpected argument", a);
        }
    }
    if (!paths[1])
        return usage_error("the following required arguments were not provided:",
                           paths[0] ? "<AFTER>" : "<BEFORE> <AFTER>");
    if (!strcmp(paths[0], "-") && !strcmp(paths[1], "-"))
        return usage_error("only one side of a diff can be standard input:", "- -");
    if (opt.summary != TL_SUMMARY_NONE && opt.out_dir)
        return usage_error("cannot use", "-o with --summary or --json (they write no folder)");
    opt.before = paths[0];
    opt.after = paths[1];
    opt.command_line = command_line;
    opt.no_threads = getenv("TLPARSE_NO_THREADS") != NULL;
    opt.cancel = &tl_cli_cancel;
    const char *term = getenv("TERM");
    opt.color = isatty(1) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));
    tl_cli_catch_signals();

    struct tl_diff_result res;
    int rc = tl_diff_run(&opt, &res);
    if (res.summary)
        tl_cli_print(res.summary); /* a failed write fails the run: tl_cli_close */
    bool written = rc == TL_EXIT_OK && res.index_path;
    if (written)
        tl_cli_say("tlparse: the diff is %s", res.index_path);
    if (rc == TL_EXIT_OK && fail.kinds && res.has_tally)
        rc = check_fail_on(&fail, &res.tally);
    if (written && !no_browser)
        tl_cli_open_browser(res.index_path);
    tl_diff_result_release(&res);
    return rc;
}
