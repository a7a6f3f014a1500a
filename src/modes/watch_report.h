/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --watch's report folder, kept current (watch_report.c): the live log's or the ranks'
 * generations, the batch runs that stand in for them, and the end report.
 */
#ifndef TL_MODES_WATCH_REPORT_H
#define TL_MODES_WATCH_REPORT_H

#include "base/config.h"
#include "modes/watch_view.h"

void tl_watch_report_init(struct tl_watch_run *wt);
/** Whether l becomes the log the report is of, fed to it as it comes: the log a batch run of
 * PATH reports on now (PATH, or the newest log of the folder), unless every rank is reported. */
bool tl_watch_report_wanted(const struct tl_watch_run *wt, const struct tl_watch_log *l);
/** The followed log a batch run of PATH reports on now, when the report could be of it and is
 * not (it has an engine, not the ranks', and its live report did not fail): NULL otherwise. */
struct tl_watch_log *tl_watch_report_newest(struct tl_watch_run *wt);
/** Whether the live log is still the one a batch run of PATH reports on (the one it takes is
 * kept in wt->chosen for tl_watch_report_say_chosen). */
bool tl_watch_report_still_newest(struct tl_watch_run *wt);
/** What a batch run of the folder PATH says of the log it chose ("parsing X, the newest log
 * in PATH ..."), when it would not be given the log itself; of a folder of rank logs, that the
 * report is of the newest (res->newest_of set). */
void tl_watch_report_say_chosen(struct tl_watch_run *wt, struct tl_result *res);
/** The live report of the newest rank log ended with code, its result res: every rank of the
 * folder counted (--fail-on: res->folder_counts) as its batch run counts them, from the ranks'
 * own engines; a rank they did not count is read. */
void tl_watch_report_folder_counts(struct tl_watch_run *wt, struct tl_result *res, int code);
/** l->opt for the live report of l: a batch run's of its log, into the watch's folder, with
 * live.html and a first live.js, its messages kept (l->kept) for the end. */
void tl_watch_report_options(struct tl_watch_run *wt, struct tl_watch_log *l);
/** The report is not of one log any more: batch runs make it from now on. */
void tl_watch_report_give_up(struct tl_watch_run *wt);
/** l, a rank log, fed to the ranks' live report (made with the first): whether it is (then
 * l->eng is the rank's engine and l->ranked is set). */
bool tl_watch_report_add_rank(struct tl_watch_run *wt, struct tl_watch_log *l);
/** l, a rank log fed to the ranks' report, starts over (truncated or replaced; taken_by NULL),
 * or taken_by came, a log of its rank that sorts first, which a batch run reads instead (said
 * as it says it): its rank forgotten (its engine freed, its folder removed), to be added again
 * from the start of its log; the other ranks go on. */
void tl_watch_report_forget_rank(struct tl_watch_run *wt, struct tl_watch_log *l,
                                 const struct tl_watch_log *taken_by);
/** The ranks' live report is given up (its folder cannot be written, or finishing would not
 * make the batch run's report): batch runs make it from now on; the ranks' engines are still fed.
 */
void tl_watch_report_drop_ranks(struct tl_watch_run *wt);
/** The end of the ranks' live report, when there is one and it makes the batch run's report:
 * the ranks finished (each said, tl_watch_look), the landing page, the report committed. */
void tl_watch_report_finish_ranks(struct tl_watch_run *wt);
/** The generation being made ended (wait: wait for it): put in place, or why not said. */
void tl_watch_report_reap(struct tl_watch_run *wt, bool wait);
/** Once a second: a generation or a batch run when one is due, and live.js's heartbeat. */
void tl_watch_report_tick(struct tl_watch_run *wt);
/** A log's engine finished (tl_feed_on_end): what waited is said; the live report's last
 * live.js is written before it is committed. ctx: the log. */
void tl_watch_report_log_ended(void *ctx, struct tl_feed *f, const struct tl_counts *counts);
/** The messages kept of the live report's run, said as a batch run says them. */
void tl_watch_report_say_kept(struct tl_watch_run *wt, const struct tl_buf *kept);
/** Wait for a batch run of the report that is still going. */
void tl_watch_report_wait(struct tl_watch_run *wt);
/** The end report by a batch run of the whole logs, with live.html and a last live.js. */
int tl_watch_report_final(struct tl_watch_run *wt, struct tl_result *res);
void tl_watch_report_release(struct tl_watch_run *wt);

#endif
