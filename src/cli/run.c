/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --run: a command run with TORCH_TRACE set to a new folder, Ctrl-C going to the command,
 * and what it wrote there counted (one log, or the logs of several ranks).
 */
#include "base/config.h"
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The rank logs TORCH_TRACE wrote into dir (named as --all-ranks-html takes them), and
 * whether it wrote any file at all. */
size_t tl_cli_rank_logs(const char *dir, bool *any)
{
    *any = false;
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        *any = true;
        n += tl_rank_of_log_name(e->d_name) >= 0;
    }
    closedir(d);
    return n;
}

/* The signals the command takes from the terminal, ignored by tlparse while it runs. */
static struct sigaction old_int, old_quit;

int tl_cli_run_start(char **cmd, char *dir, size_t dirlen, pid_t *pid)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dirlen, "%s/tlparse-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        tl_cli_say("tlparse: error: cannot create a folder for the trace (%s): %s", dir,
                   strerror(errno));
        return -1;
    }
    tl_cli_say("tlparse: running %s with TORCH_TRACE=%s", cmd[0], dir);
    struct sigaction ign;
    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    *pid = fork();
    if (*pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        setenv("TORCH_TRACE", dir, 1);
        execvp(cmd[0], cmd);
        tl_cli_say("tlparse: error: cannot run %s: %s", cmd[0], strerror(errno));
        _exit(127);
    }
    if (*pid < 0) {
        tl_cli_say("tlparse: error: cannot run %s: %s", cmd[0], strerror(errno));
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        return -1;
    }
    return 0;
}

int tl_cli_run_wait(char **cmd, pid_t pid, bool wait)
{
    int status = 0;
    pid_t got = waitpid(pid, &status, wait ? 0 : WNOHANG);
    while (got < 0 && errno == EINTR)
        got = waitpid(pid, &status, wait ? 0 : WNOHANG);
    if (got == 0)
        return -2; /* still running */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (got < 0) {
        tl_cli_say("tlparse: error: cannot run %s: %s", cmd[0], strerror(errno));
        return -1;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0)
        tl_cli_say("tlparse: %s exited with status %d; reporting on what it traced", cmd[0], code);
    return code;
}

/*
 * --run: cmd with TORCH_TRACE set to a new folder (dir, kept: it is the evidence). Ctrl-C
 * goes to the command, and tlparse still reports on what it traced. The command's exit
 * status (128+N when signal N ended it), or -1 when it could not be run.
 */
int tl_cli_run_command(char **cmd, char *dir, size_t dirlen)
{
    pid_t pid;
    if (tl_cli_run_start(cmd, dir, dirlen, &pid) < 0)
        return -1;
    return tl_cli_run_wait(cmd, pid, true);
}
