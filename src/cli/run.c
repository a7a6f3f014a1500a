/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --run: a command run with TORCH_TRACE set to a new folder, Ctrl-C going to the command,
 * and what it wrote there counted (one log, or the logs of several ranks).
 */
#include "base/config.h"
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
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

/* A pseudo-terminal for the command's output, its size that of tlparse's terminal: 0 and the
 * two ends, or -1. The command's newlines are kept as it wrote them (no "\r\n"): its bytes go
 * to tlparse's terminal, which adds its own. */
static int make_pty(int *master, int *slave)
{
    *master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*master < 0)
        return -1;
    char name[128];
    if (grantpt(*master) < 0 || unlockpt(*master) < 0 ||
        ptsname_r(*master, name, sizeof(name)) != 0 ||
        (*slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
        close(*master);
        return -1;
    }
    struct winsize ws;
    if (ioctl(1, TIOCGWINSZ, &ws) == 0)
        ioctl(*slave, TIOCSWINSZ, &ws);
    struct termios t;
    if (tcgetattr(*slave, &t) == 0) {
        t.c_oflag &= ~(tcflag_t)ONLCR;
        tcsetattr(*slave, TCSANOW, &t);
    }
    return 0;
}

/* Whether fds a and b are the same terminal. */
static bool same_tty(int a, int b)
{
    struct stat x, y;
    return isatty(a) && isatty(b) && fstat(a, &x) == 0 && fstat(b, &y) == 0 &&
           x.st_rdev == y.st_rdev;
}

int tl_cli_run_start(char **cmd, char *dir, size_t dirlen, pid_t *pid, int *output)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dirlen, "%s/tlparse-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        tl_cli_say("tlparse: error: cannot create a folder for the trace (%s): %s", dir,
                   strerror(errno));
        return -1;
    }
    tl_cli_say("tlparse: running %s with TORCH_TRACE=%s", cmd[0], dir);
    int master = -1, slave = -1;
    bool err_too = same_tty(1, 2);
    if (output && make_pty(&master, &slave) < 0)
        master = slave = -1;
    if (output)
        *output = master;
    struct sigaction ign;
    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    *pid = fork();
    if (*pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        if (slave >= 0) {
            dup2(slave, 1);
            if (err_too)
                dup2(slave, 2);
        }
        setenv("TORCH_TRACE", dir, 1);
        execvp(cmd[0], cmd);
        tl_cli_say("tlparse: error: cannot run %s: %s", cmd[0], strerror(errno));
        _exit(127);
    }
    if (slave >= 0)
        close(slave); /* the command's now: its end tells the master it is done */
    if (*pid < 0) {
        tl_cli_say("tlparse: error: cannot run %s: %s", cmd[0], strerror(errno));
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        if (master >= 0)
            close(master);
        if (output)
            *output = -1;
        return -1;
    }
    return 0;
}

int tl_cli_run_wait(char **cmd, pid_t pid, bool wait, bool say)
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
    if (code != 0 && say)
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
    if (tl_cli_run_start(cmd, dir, dirlen, &pid, NULL) < 0)
        return -1;
    return tl_cli_run_wait(cmd, pid, true, true);
}
