/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lines after the first of a message of the TORCH_LOGS text; part of the text reader
 * (torchlogs.h), internal to src/input.
 */
#ifndef TL_TLOG_TAKE_H
#define TL_TLOG_TAKE_H

#include "base/config.h"
#include "base/str.h"
#include "input/tlog_slot.h"

#include <stdbool.h>

/**
 * Read one more line t (trimmed) of the message open in s, and say whether it belongs to it.
 * ind: the line was indented. force: the line carries the message's own prefix, so it belongs
 * whatever it says (it is still read for fields).
 */
bool tl_tlog_take(struct tl_tlog_slot *s, struct tl_str t, bool ind, bool force);

#endif
