/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_each_entry(), the library's entry lister: a mode with one sink (every usable record, as
 * the public struct tl_entry, to the caller's callback) and no output.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "modes/plan.h"

#include <stdlib.h>

int tl_each_entry(const struct tl_options *caller, int (*fn)(void *ctx, const struct tl_entry *e),
                  void *ctx)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_options taken;
    if (tl_options_take(&taken, caller, &err) < 0)
        return tl_report_error(caller, &err);
    const struct tl_options *opt = &taken;
    if (!fn || (!opt->path && !opt->mem_input)) {
        tl_error_code(&err, TL_ERR_USAGE, "tl_each_entry wants a log and a callback");
        return tl_report_error(opt, &err);
    }
    struct tl_messages msg = {.opt = opt};
    struct tl_reader *reader;
    char *path;
    if (tl_open_log(opt, &msg, &path, &reader, &err) < 0) {
        free(path);
        return tl_report_error(opt, &err);
    }
    const char *name = path ? path : "<memory>";
    bool text;
    int rc = tl_log_is_text(reader, &text, &err);
    if (rc == 0 && text)
        rc = tl_error_code(&err, TL_ERR_USAGE,
                           "%s is TORCH_LOGS text, not a TORCH_TRACE log: it has no entries", name);
    if (rc < 0) {
        tl_reader_free(reader);
        free(path);
        return tl_report_error(opt, &err);
    }
    struct tl_engine_job job = {.opt = opt, .reader = reader, .path = path, .name = name};
    struct tl_entries_params params = {fn, ctx};
    tl_engine_job_add(&job, &tl_sink_entries, &params);
    struct tl_engine_result sum;
    rc = tl_engine_run(&job, &sum, &err);
    free(path);
    if (rc < 0 && err.code != TL_ERR_STOP)
        return tl_report_error(opt, &err);
    return TL_EXIT_OK;
}
