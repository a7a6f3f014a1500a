/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the command's files share (main.c: `tlparse PATH`, diff.c: `tlparse diff`, run.c:
 * --run, common.c, out.c: what the command prints). Not part of the library: the CLI only, which
 * uses only the public header.
 */
#ifndef TL_CLI_CLI_H
#define TL_CLI_CLI_H

#include "base/config.h"
#include "tlparse/tlparse.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/** The command as a shell would take it back, for the report's footer; free() it. */
char *tl_cli_command_line(int argc, char **argv);
/** The n words as a shell would take them back (quoted where needed); free() it. */
char *tl_cli_quote_words(int n, char *const *words);
/** Open a page in $BROWSER, else xdg-open when there is a display; else nothing. */
void tl_cli_open_browser(const char *path);
/* The progress bar on stderr (progress.c): a run's tl_options.progress (tl_cli_bar_draw, ctx
 * the bar) and its messages (tl_cli_bar_message: the bar cleared, the line on stderr). */
struct tl_cli_bar {
    bool shown;
    uint64_t start_ns, last_pos;
};
void tl_cli_bar_draw(void *ctx, uint64_t done, uint64_t total);
void tl_cli_bar_message(void *ctx, enum tl_message_kind kind, const char *line);
void tl_cli_bar_clear(struct tl_cli_bar *b);
/** "12.3 MB" style sizes into buf. */
void tl_cli_format_bytes(char *buf, size_t n, double bytes);

/** The cancel flag of the CLI's runs (tl_options.cancel): set by SIGINT, SIGTERM and SIGHUP
 * once tl_cli_catch_signals() was called. */
extern volatile sig_atomic_t tl_cli_cancel;
/** Handle SIGINT, SIGTERM and SIGHUP by setting tl_cli_cancel. */
void tl_cli_catch_signals(void);
/** The rank logs TORCH_TRACE wrote into dir (named as --all-ranks-html takes them), and
 * whether it wrote any file at all. */
size_t tl_cli_rank_logs(const char *dir, bool *any);
/** --run: cmd with TORCH_TRACE set to a new folder, made into dir (dirlen bytes): the
 * command's exit status (128+N when signal N ended it), or -1 when it could not be run. */
int tl_cli_run_command(char **cmd, char *dir, size_t dirlen);
/** --run's first half: the command started (Ctrl-C goes to it, not to tlparse) with
 * TORCH_TRACE set to a new folder, made into dir. Returns 0 and *pid, or -1 (said). output:
 * NULL, or where the reading end of a pseudo-terminal goes that the command writes its
 * standard output to (and its standard error, when that is the same terminal as tlparse's
 * standard output); -1 there when none could be made (the command then writes where tlparse
 * does). */
int tl_cli_run_start(char **cmd, char *dir, size_t dirlen, pid_t *pid, int *output);
/** Its second half: the command's exit status once it ended (128+N when signal N ended it;
 * said when not 0 and say), -1 on an error, or -2 when it still runs and wait is false. */
int tl_cli_run_wait(char **cmd, pid_t pid, bool wait, bool say);
/** A message line on stderr (printf format, no newline): what it quotes (paths, arguments,
 * which may be a log's file name) made printable, as the library's messages are. */
void tl_cli_say(const char *fmt, ...) TL_PRINTF(1, 2);
/** Text on stdout (a summary, JSON), as it is; a failed write is noted with its reason for
 * tl_cli_close. */
void tl_cli_print(const char *s);
/** At exit, coreutils' close_stdout: stdout flushed, closed and checked, then stderr. A write
 * to stdout that failed is said ("tlparse: error: cannot write to stdout: REASON") and makes
 * the exit code 1 (when it was 0); one to stderr makes it 1 silently; a reader gone (EPIPE)
 * ends the process as SIGPIPE would. Returns the exit code. */
int tl_cli_close(int rc);
/** `tlparse diff ...`: argv[0] is "diff". Returns the exit code. */
int tl_cli_diff(int argc, char **argv, const char *command_line);

#endif
