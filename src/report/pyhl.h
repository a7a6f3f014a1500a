/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Python syntax highlighting to HTML for inductor_output_code pages (spec
 * core.md §4.7): a single-pass tokenizer of our own that emits inline-styled
 * spans in colours close to GitHub's ("InspiredGitHub"). Any byte sequence
 * is accepted (invalid UTF-8 passes through, escaped). Depends on buf, html.
 */
#ifndef TL_PYHL_H
#define TL_PYHL_H

#include "base/config.h"
#include "base/buf.h"

#include <stddef.h>

/**
 * Append the highlighted page body for src[0..n):
 * `<pre style="background-color:#ffffff;">` newline, consecutive
 * `<span style="...">text</span>` runs covering every byte of src (escaped
 * with tl_html_attr, newlines kept), then `</pre>` newline. Spans never nest
 * and are never empty; neighbours always differ in style (whitespace joins
 * the span before it). As with every html.c escape, NUL comes out as U+FFFD;
 * otherwise the text content is exactly src. Linear time, any input.
 * out is the caller's; the result is appended.
 */
void tl_pyhl_render(struct tl_buf *out, const char *src, size_t n);

#endif
