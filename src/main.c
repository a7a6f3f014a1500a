/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tlparse command: parse options (the reference's CLI, spec core.md §8)
 * and the environment (TLPARSE_YEAR, TLPARSE_NO_THREADS), call tl_run(), map
 * the result to an exit code, open the report.
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

static const char usage_text[] =
    "Usage: tlparse [OPTIONS] <PATH>\n"
    "\n"
    "Turn a TORCH_TRACE structured log into an HTML report.\n"
    "\n"
    "Arguments:\n"
    "  <PATH>  the log file, or a folder of logs (its newest log is parsed)\n"
    "\n"
    "Options:\n"
    "      --latest                     PATH is a folder: parse its newest log\n"
    "  -o <OUT>                         output folder [default: tl_out]\n"
    "      --overwrite                  replace OUT if it exists (once the new report is "
    "complete)\n"
    "      --strict                     exit 1 if any line could not be parsed\n"
    "      --strict-compile-id          exit 1 if any entry has no compile id\n"
    "      --no-browser                 do not open the report in a browser\n"
    "      --custom-header-html <HTML>  HTML inserted at the top of index.html (not escaped)\n"
    "  -v, --verbose                    print every unknown field\n"
    "  -p, --plain-text                 write inductor output code as plain text\n"
    "  -e, --export                     export mode (not yet supported)\n"
    "  -i, --inductor-provenance        provenance tracking pages (not yet supported)\n"
    "      --all-ranks-html             one report across ranks (not yet supported)\n"
    "      --progress / --no-progress   force the progress bar on or off (default: on a tty)\n"
    "  -h, --help                       print this help\n"
    "  -V, --version                    print the version\n"
    "\n"
    "Logs may be plain, gzip (.gz) or zstd (.zst) compressed.\n";

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

/* Value of an option taking an argument: "-oX", "-o=X", "-o X", "--opt=X", "--opt X". */
static const char *take_value(int argc, char **argv, int *i, const char *arg, size_t name_len)
{
    if (arg[name_len] == '=')
        return arg + name_len + 1;
    if (arg[name_len] != '\0')
        return arg + name_len;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

int main(int argc, char **argv)
{
    struct tl_options opt;
    memset(&opt, 0, sizeof(opt));
    bool no_browser = false, only_positional = false;
    int progress = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || !strcmp(a, "-")) {
            if (opt.path)
                return usage_error("unexpected argument", a);
            opt.path = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_positional = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return TL_EXIT_OK;
        } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("tlparse %s\n", tl_version());
            return TL_EXIT_OK;
        } else if (!strcmp(a, "--latest")) {
            opt.latest = true;
        } else if (!strcmp(a, "--overwrite")) {
            opt.overwrite = true;
        } else if (!strcmp(a, "--strict")) {
            opt.strict = true;
        } else if (!strcmp(a, "--strict-compile-id")) {
            opt.strict_compile_id = true;
        } else if (!strcmp(a, "--no-browser")) {
            no_browser = true;
        } else if (!strcmp(a, "--verbose")) {
            opt.verbose = true;
        } else if (!strcmp(a, "--plain-text")) {
            opt.plain_text = true;
        } else if (!strcmp(a, "--export")) {
            opt.export_mode = true;
        } else if (!strcmp(a, "--inductor-provenance")) {
            opt.inductor_provenance = true;
        } else if (!strcmp(a, "--all-ranks-html")) {
            opt.all_ranks_html = true;
        } else if (!strcmp(a, "--progress")) {
            progress = 1;
        } else if (!strcmp(a, "--no-progress")) {
            progress = 0;
        } else if (!strncmp(a, "--custom-header-html", 20) && (a[20] == '\0' || a[20] == '=')) {
            opt.custom_header_html = take_value(argc, argv, &i, a, 20);
            if (!opt.custom_header_html)
                return usage_error("a value is required for", "--custom-header-html <HTML>");
        } else if (a[1] == 'o') {
            opt.out_dir = take_value(argc, argv, &i, a, 2);
            if (!opt.out_dir || !*opt.out_dir)
                return usage_error("a value is required for", "-o <OUT>");
        } else if (a[1] != '-') {
            /* Combined short flags: -vp, -pv ... */
            for (const char *f = a + 1; *f; f++) {
                if (*f == 'v')
                    opt.verbose = true;
                else if (*f == 'p')
                    opt.plain_text = true;
                else if (*f == 'e')
                    opt.export_mode = true;
                else if (*f == 'i')
                    opt.inductor_provenance = true;
                else if (*f == 'h') {
                    fputs(usage_text, stdout);
                    return TL_EXIT_OK;
                } else if (*f == 'V') {
                    printf("tlparse %s\n", tl_version());
                    return TL_EXIT_OK;
                } else if (*f == 'o') {
                    const char *v =
                        f[1] ? f + 1 + (f[1] == '=') : (i + 1 < argc ? argv[++i] : NULL);
                    if (!v || !*v)
                        return usage_error("a value is required for", "-o <OUT>");
                    opt.out_dir = v;
                    break;
                } else {
                    return usage_error("unexpected argument", a);
                }
            }
        } else {
            return usage_error("unexpected argument", a);
        }
    }
    if (!opt.path)
        return usage_error("the following required argument was not provided:", "<PATH>");
    opt.progress = progress < 0 ? isatty(2) : progress;
    /* The environment is read here, at the edge; the library takes options only. */
    const char *year = getenv("TLPARSE_YEAR"); /* reproducible raw.jsonl for tests */
    if (year && *year)
        opt.year = atoi(year);
    opt.no_threads = getenv("TLPARSE_NO_THREADS") != NULL;

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    struct tl_result res;
    int rc = tl_run(&opt, &res);
    if (rc == TL_EXIT_OK && !no_browser && res.index_path[0])
        open_browser(res.index_path);
    return rc;
}
