/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --summary and --json of a report folder (`tlparse --summary tl_out/`): the diagnosis its
 * summary.json holds, read as input (input/reportdir.c), not made again from a log. --json
 * prints it as stored; --summary reads it back (model/diag_read.c) into the text summary; the
 * counts (for --fail-on) are its own.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "input/reportdir.h"
#include "model/diag_read.h"
#include "report/summary.h"

#include <string.h>

int tl_stored_run(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_buf json = TL_BUF_INIT;
    if (tl_report_dir_summary(opt->path, &json, &err) < 0) {
        tl_buf_release(&json);
        return tl_report_error(opt, &err);
    }
    struct tl_diag d;
    tl_diag_init(&d);
    struct tl_diag_source from;
    int rc = tl_diag_read(&d, json.buf, json.len, &from, &err);
    if (rc < 0) {
        tl_diag_release(&d);
        tl_buf_release(&json);
        tl_error_code(&err, TL_ERR_INPUT, "%s/summary.json: %s", opt->path, err.msg);
        return tl_report_error(opt, &err);
    }
    res->has_counts = true;
    tl_counts_of(&res->counts, &d);
    if (opt->summary == TL_SUMMARY_JSON) {
        res->summary = tl_buf_detach(&json, NULL); /* as stored */
    } else {
        /* the log it was made from, and where it was read: "t.log, from its report tl_out" */
        struct tl_buf name = TL_BUF_INIT;
        if (from.path[0])
            tl_buf_addf(&name, "%s, from its report %s", from.path, opt->path);
        else
            tl_buf_addf(&name, "the report %s", opt->path);
        struct tl_summary_source src = {name.buf, from.kind, NULL, NULL};
        struct tl_buf text = TL_BUF_INIT;
        tl_summary_text(&text, &d, &src, opt->color);
        res->summary = tl_buf_detach(&text, NULL);
        tl_buf_release(&name);
    }
    tl_diag_release(&d);
    tl_buf_release(&json);
    return TL_EXIT_OK;
}
