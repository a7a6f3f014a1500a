/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis of TORCH_LOGS text, line by line (diag_text.c): the engine hands it every
 * line of a text log; the messages the text reader finds become facts of the model's
 * diagnosis, and the lines' compile ids are counted in the model's text facts.
 */
#ifndef TL_MODEL_DIAG_TEXT_H
#define TL_MODEL_DIAG_TEXT_H

#include "base/config.h"
#include "base/str.h"
#include "input/torchlogs.h"
#include "model/model.h"

#include <stdbool.h>
#include <stdint.h>

struct tl_diag_text;

/** A new diagnosis of text into model (its diag and text facts); free with tl_diag_text_free. */
struct tl_diag_text *tl_diag_text_new(struct tl_model *model);
/** The compile id of a split line, counted: its display form (valid for the run) or NULL, and
 * whether this is its first line. */
const char *tl_diag_text_cid(struct tl_diag_text *t, const struct tl_tlog_line *l, uint64_t lineno,
                             bool *first);
/** A line, to the text reader (its messages become facts). */
void tl_diag_text_feed(struct tl_diag_text *t, uint64_t lineno, struct tl_str line);
/** The text went quiet (a live view; more lines may come): the messages being read are said
 * as they are (tl_tlog_settle), and the warning held for the next message. Returns whether
 * anything was said. */
bool tl_diag_text_settle(struct tl_diag_text *t);
/** Whether a line after tl_diag_text_settle made what it said differ from a text without the
 * pause (a line went on a message said, or the next message replaced the warning said). */
bool tl_diag_text_diverged(const struct tl_diag_text *t);
/** The end of the text: the last message, then tl_diag_finish(); the text facts' counts. */
void tl_diag_text_finish(struct tl_diag_text *t);
/** Also frees the model's list of compile ids. */
void tl_diag_text_free(struct tl_diag_text *t);

#endif
