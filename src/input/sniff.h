/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Is it a log? The first bytes of a file (decompressed) tell a TORCH_TRACE trace (a line with
 * a glog prefix), TORCH_LOGS text (torchlogs.h's detection), an empty file, or something else,
 * and why not. Only the first lines are looked at: a log with damaged lines further on is
 * still a log. Depends on str, glog and torchlogs.
 */
#ifndef TL_SNIFF_H
#define TL_SNIFF_H

#include "base/config.h"

#include <stdbool.h>
#include <stddef.h>

/** How many bytes of a file tl_sniff() wants to see (fewer at its end). */
#define TL_SNIFF_WINDOW ((size_t)256 * 1024)

enum tl_sniff_kind {
    TL_SNIFF_EMPTY, /* no bytes, or only empty lines */
    TL_SNIFF_TRACE, /* a line with a glog prefix (and not TORCH_LOGS text) */
    TL_SNIFF_TEXT,  /* TORCH_LOGS text */
    TL_SNIFF_NOT_LOG,
};

/**
 * What p[0..n) (the first bytes of a file; all of it when whole) is. For TL_SNIFF_NOT_LOG,
 * why says why in words that follow "FILE is not a TORCH_TRACE log or TORCH_LOGS text: "
 * ("its first lines are binary", "none of its 3 lines has a glog prefix or is a TORCH_LOGS
 * message"); why may be NULL.
 */
enum tl_sniff_kind tl_sniff(const char *p, size_t n, bool whole, char *why, size_t whylen);

#endif
