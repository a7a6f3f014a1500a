/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Text for a terminal, as the text summaries write it (`tlparse --summary`, `tlparse diff
 * --summary`): ANSI colours only when asked, and log text without control characters.
 */
#ifndef TL_TERMINAL_H
#define TL_TERMINAL_H

#include "base/config.h"
#include "base/buf.h"

#include <stdbool.h>
#include <string.h>

/** s in the colour of the SGR code ("1;31"), or as it is without color. */
static inline void tl_term_paint(struct tl_buf *out, bool color, const char *code, const char *s)
{
    if (color)
        tl_buf_addf(out, "\033[%sm%s\033[0m", code, s);
    else
        tl_buf_adds(out, s);
}

/** Log text (s may be NULL) with its control characters made printable. */
static inline void tl_term_safe(struct tl_buf *out, const char *s)
{
    if (s)
        tl_buf_add_printable(out, s, strlen(s));
}

#endif
