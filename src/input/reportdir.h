/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A report folder given as input (`tlparse --summary tl_out/`): a folder holding index.html;
 * its diagnosis is its summary.json (schema tlparse-summary/1), read as it is stored. A
 * report of the reference tlparse has none, a multi-rank report's is of another schema: each
 * is an error that says what to give instead. Depends on base (err, buf, json).
 */
#ifndef TL_REPORTDIR_H
#define TL_REPORTDIR_H

#include "base/config.h"
#include "base/buf.h"
#include "base/err.h"

#include <stdbool.h>

/* A summary.json bigger than this is not one of ours. */
#define TL_REPORTDIR_MAX_SUMMARY (512u << 20)

/** Append the file at path (a summary.json) to out: TL_ERR_INPUT when it cannot be opened or
 * is bigger than TL_REPORTDIR_MAX_SUMMARY, TL_ERR_IO when reading it fails. */
int tl_summary_file_read(const char *path, struct tl_buf *out, struct tl_err *err);

/** path is a folder holding index.html: a report folder (tlparse's, or the reference's). */
bool tl_report_dir_is(const char *path);

/**
 * Append the summary.json of the report folder dir to json, as stored, once it is known to be
 * a summary of one log (tlparse-summary/1). Errors are TL_ERR_INPUT (the folder has no
 * summary.json, it is no JSON object, or of another schema) or TL_ERR_IO; json then holds
 * what was appended so far (caller releases it either way).
 */
int tl_report_dir_summary(const char *dir, struct tl_buf *json, struct tl_err *err);

#endif
