/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis of a structured trace, record by record (diag_trace.c): the engine hands it
 * every usable record after the sinks saw it, and finishes it at the end of the log; the
 * findings go to the model's diagnosis (model->diag).
 */
#ifndef TL_MODEL_DIAG_TRACE_H
#define TL_MODEL_DIAG_TRACE_H

#include "base/config.h"
#include "base/arena.h"
#include "model/model.h"
#include "model/record.h"

#include <stdbool.h>
#include <stdint.h>

struct tl_diag_trace;

/** A new diagnosis of a trace; free with tl_diag_trace_free. */
struct tl_diag_trace *tl_diag_trace_new(void);
void tl_diag_trace_free(struct tl_diag_trace *t);
/** Whether it reads the payload of this record. */
bool tl_diag_trace_wants_payload(const struct tl_record *r);
/** The facts of a usable record (TL_REC_OK) into model->diag. rank: the log's rank, -1 while
 * none is known. Temporary memory comes from scratch. */
void tl_diag_trace_record(struct tl_diag_trace *t, struct tl_model *model,
                          const struct tl_record *r, int64_t rank, struct tl_arena *scratch);
/** The end of the log: what waited for a later record, then tl_diag_finish(). */
void tl_diag_trace_finish(struct tl_diag_trace *t, struct tl_model *model);

#endif
