/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the command line's two files share (main.c: `tlparse PATH`, main_diff.c: `tlparse
 * diff`). Not part of the library: the CLI only.
 */
#ifndef TL_MAIN_H
#define TL_MAIN_H

/** The command as a shell would take it back, for the report's footer; free() it. */
char *tl_cli_command_line(int argc, char **argv);
/** Open a page in $BROWSER, else xdg-open when there is a display; else nothing. */
void tl_cli_open_browser(const char *path);
/** Handle SIGINT, SIGTERM and SIGHUP by setting tl_interrupted. */
void tl_cli_catch_signals(void);
/** `tlparse diff ...`: argv[0] is "diff". Returns the exit code. */
int tl_cli_diff(int argc, char **argv, const char *command_line);

#endif
