/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the command's two entries (tlparse PATH, tlparse diff) share: Ctrl-C and friends set
 * tl_cli_cancel (the runs' cancel flag); the report opened in a browser; the command line as a
 * shell takes it back.
 */
#include "base/config.h"
#include "cli/cli.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t tl_cli_cancel;

static void on_signal(int sig)
{
    (void)sig;
    __atomic_store_n(&tl_cli_cancel, 1, __ATOMIC_RELAXED); /* read by other threads */
}

void tl_cli_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* ---- opening the report ------------------------------------------------------------------ */

static bool set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

/* Run argv[0] with argv; wait: its exit status, else 0 once it is started (in its own
 * session, reaped by init: a browser that stays open does not hold tlparse). -1: it could
 * not be started. */
static int spawn(const char *const argv[], bool wait)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!wait) {
            setsid();
            if (fork() != 0)
                _exit(0);
        }
        /* Quiet, unless it is a terminal browser waited for at the terminal. */
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0 && (!wait || !isatty(1))) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    if (!wait)
        return 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Open the report: with $BROWSER (its first entry; "%s" stands for the page, else the page is
 * its last argument; a terminal browser is waited for), else with xdg-open when there is a
 * display (DISPLAY, WAYLAND_DISPLAY). Without either, nothing: a CI job or an ssh session.
 */
void tl_cli_open_browser(const char *path)
{
    bool display = set("DISPLAY") || set("WAYLAND_DISPLAY");
    int rc;
    if (set("BROWSER")) {
        char cmd[4096];
        const char *b = getenv("BROWSER");
        size_t n = strcspn(b, ":");
        const char *pct = strstr(b, "%s");
        if (pct && (size_t)(pct - b) < n)
            snprintf(cmd, sizeof(cmd), "%.*s\"$1\"%.*s", (int)(pct - b), b,
                     (int)(n - (size_t)(pct - b) - 2), pct + 2);
        else
            snprintf(cmd, sizeof(cmd), "%.*s \"$1\"", (int)n, b);
        const char *argv[] = {"/bin/sh", "-c", cmd, "tlparse", path, NULL};
        rc = spawn(argv, !display && isatty(1));
    } else if (display) {
        const char *argv[] = {"xdg-open", path, NULL};
        rc = spawn(argv, true);
    } else {
        return;
    }
    if (rc != 0)
        tl_cli_say("tlparse: warning: could not open a browser; the report is %s", path);
}

/* ---- the command line ---------------------------------------------------------------------- */

/* The words as a shell would take them back, each single-quoted when it holds anything but
 * [A-Za-z0-9_@%+=:,./-], separated by spaces. */
char *tl_cli_quote_words(int n, char *const *words)
{
    size_t cap = 16;
    for (int i = 0; i < n; i++)
        cap += 4 * strlen(words[i]) + 3;
    char *out = malloc(cap), *w = out;
    if (!out)
        return NULL;
    *w = 0;
    for (int i = 0; i < n; i++) {
        const char *a = words[i];
        if (i)
            *w++ = ' ';
        if (*a &&
            strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") ==
                strlen(a)) {
            w += sprintf(w, "%s", a);
            continue;
        }
        *w++ = '\'';
        for (; *a; a++) {
            if (*a == '\'')
                w += sprintf(w, "'\\''");
            else
                *w++ = *a;
        }
        *w++ = '\'';
    }
    *w = 0;
    return out;
}

/* The command as a shell would take it back: "tlparse" and each argument quoted. For the
 * report's footer. */
char *tl_cli_command_line(int argc, char **argv)
{
    char *args = tl_cli_quote_words(argc - 1, argv + 1);
    if (!args)
        return NULL;
    char *out = malloc(strlen(args) + 16);
    if (out)
        sprintf(out, "tlparse%s%s", *args ? " " : "", args);
    free(args);
    return out;
}
