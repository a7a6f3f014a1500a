/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UTF-8 validation with an ASCII fast path. Depends on nothing.
 */
#ifndef TL_UTF8_H
#define TL_UTF8_H

#include "base/config.h"

#include <stdbool.h>
#include <stddef.h>

/** True if p[0..n) is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF). */
bool tl_utf8_valid(const char *p, size_t n);

/** Length of the longest prefix of p[0..n) that is well-formed UTF-8. */
size_t tl_utf8_valid_prefix(const char *p, size_t n);

struct tl_buf;
/** Append p[0..n) to out with every ill-formed sequence replaced by U+FFFD. */
void tl_utf8_sanitize(struct tl_buf *out, const char *p, size_t n);

#endif
