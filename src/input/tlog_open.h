/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What starts a message of the TORCH_LOGS text, and the fields of its first line; part of the
 * text reader (torchlogs.h), internal to src/input.
 */
#ifndef TL_TLOG_OPEN_H
#define TL_TLOG_OPEN_H

#include "base/config.h"
#include "base/str.h"
#include "input/tlog_slot.h"
#include "input/tlog_msg.h"

#include <stdbool.h>

/** Whether t (a line's body without leading blanks) starts a message, and of which kind. */
bool tl_tlog_start_kind(struct tl_str t, enum tl_tlog_kind *k);
/** A line that only TORCH_LOGS prints ("GUARDS:", "create_env", ...), for tl_tlog_detect. */
bool tl_tlog_marker_line(struct tl_str t);
/** Read the first line t (trimmed) of a message of kind k into the fields of s (just reset). */
void tl_tlog_open_fields(struct tl_tlog_slot *s, enum tl_tlog_kind k, struct tl_str t);

#endif
