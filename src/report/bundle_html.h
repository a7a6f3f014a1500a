/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A whole report as one HTML file (`--bundle report.html`): every page and artifact of the
 * report folder is embedded, compressed, and a small loader shows index.html and follows the
 * report's own links between its files offline (from file://, no network), decoding a file
 * only when it is opened, so a report of 100 MB opens as fast as its index.
 *
 * Streaming: the caller hands the files one at a time, each in chunks, and writes out's bytes
 * wherever it likes between calls (the emitter only appends to out, which the caller owns;
 * it may reset it after writing). Memory is constant: about 330 KB (zlib's state and a buffer),
 * whatever the size of a file. Nothing here fails: running out of memory aborts, as xmalloc does.
 * Depends on base, report/html and zlib (the files are deflated, as gzip, for the browser's
 * DecompressionStream). The page's format is described at the top of bundle_html.c.
 *
 * Order: hand index.html first. The page shows index.html as soon as the browser has parsed
 * it, while the rest is still being parsed (25 to 40 MB/s in Chromium here): on the report of
 * the 200 MiB bench log (a 99 MiB page), index.html first is painted 0.2 to 0.4 s after the
 * page is opened (all of it, 1.3 MB of index, after 1.3 to 1.8 s); in name order it comes after
 * chromium_events.json and every compile-id folder, 54 MB into the page, and is painted after
 * 2.4 to 4.8 s. Other files may come in any order (the biggest last is best: a link to a file
 * is answered once the parser has passed it).
 */
#ifndef TL_BUNDLE_HTML_H
#define TL_BUNDLE_HTML_H

#include "base/config.h"
#include "base/buf.h"

#include <stddef.h>
#include <stdint.h>

struct tl_bundle_html; /* opaque */

/** Start the page (title: the report's, for the browser tab, escaped here; NULL: "tlparse
 * report"). Free with tl_bundle_html_end. */
struct tl_bundle_html *tl_bundle_html_begin(struct tl_buf *out, const char *title);
/** A file of the report: its path in the folder ("index.html", "-_0_0_0/x.txt", '/'-separated,
 * as made safe by the report; any bytes are safe here, escaped) and its size in bytes (written
 * into the page, where the loader checks it). Ends the file before, if it was not ended. */
void tl_bundle_html_file_begin(struct tl_bundle_html *b, struct tl_buf *out, const char *path,
                               uint64_t size);
/** The next bytes of the current file (any number, any chunking: the page is the same).
 * Ignored outside a file. */
void tl_bundle_html_file_data(struct tl_bundle_html *b, struct tl_buf *out, const void *p,
                              size_t n);
void tl_bundle_html_file_end(struct tl_bundle_html *b, struct tl_buf *out);
/** The end of the page (ends the current file if needed); frees b. b may be NULL. */
void tl_bundle_html_end(struct tl_bundle_html *b, struct tl_buf *out);

#endif
