/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A diagnosis read back from a summary (tlparse-summary/1: a report folder's summary.json,
 * `tlparse --json`), for `tlparse --summary REPORT/`: the findings in the summary's order with
 * their advice as it was written, and what the text summary and the counts read of the rest.
 * What a summary does not keep is taken as it reads best: a list of compile ids or values is
 * as long as what it kept (a guard's distinct values are counted), a place of a recompile, a
 * limit or a frame is the start of its function. Depends on base (json) and the diagnosis.
 */
#ifndef TL_DIAG_READ_H
#define TL_DIAG_READ_H

#include "base/config.h"
#include "base/err.h"
#include "model/diagnosis.h"

#include <stddef.h>

/* What a summary says it was made from. */
struct tl_diag_source {
    const char *path; /* the input as given then; "" when it does not say */
    const char *kind; /* "torch_trace", "torch_logs" ("torch_trace" when it does not say) */
};

/**
 * Read the summary text (n bytes) into d, fresh from tl_diag_init(); tl_diag_finish() is not
 * to be called (the findings are the summary's). src's strings live in d. Returns -1 with err
 * filled (TL_ERR_INPUT) when text is not such a summary; d is then to be released all the
 * same.
 */
int tl_diag_read(struct tl_diag *d, const char *text, size_t n, struct tl_diag_source *src,
                 struct tl_err *err);

#endif
