/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pages of a TORCH_LOGS text log (page_textlog.c): log.html, streamed a line at a time
 * (head, lines, tail), and index.html with the diagnosis and the compile ids. Depends on base
 * and the diagnosis model.
 */
#ifndef TL_TEXTLOG_H
#define TL_TEXTLOG_H

#include "base/config.h"
#include "base/buf.h"
#include "base/str.h"
#include "model/diagnosis.h"
#include "model/model.h"
#include "model/runinfo.h"
#include "report/pages.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** log.html: the head (title: the log's name), then one call per line, then the tail. */
void tl_page_textlog_head(struct tl_buf *out, const char *title);
/** A line; cid is its compile id ("[0/1]") or NULL, first_of_cid anchors it by that id. */
void tl_page_textlog_line(struct tl_buf *out, uint64_t lineno, const char *cid, bool first_of_cid,
                          struct tl_str text);
void tl_page_textlog_tail(struct tl_buf *out);

struct tl_textlog_index {
    const char *name;               /* the log, as given */
    const char *custom_header_html; /* raw, by design */
    const struct tl_diag *diag;
    uint64_t lines, messages, unrecognized;
    const struct tl_textlog_cid *cids; /* first-appearance order */
    size_t ncids;
    const struct tl_runinfo *info; /* the footer: what made the report; NULL: none */
};

/** index.html of a text log, streamed; -1 if a flush failed. */
int tl_page_textlog_index(const struct tl_page_sink *sink, const struct tl_textlog_index *p);

#endif
