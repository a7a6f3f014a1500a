/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The single-page bundle (bundle_html.h): a loader page (assets/bundle.css, assets/bundle.js)
 * followed by one data element per file of the report, each file gzip-deflated and base64'd as
 * it streams through. Depends on base (buf, xalloc), report/html and zlib; knows nothing of
 * the files' meaning.
 */
#include "base/config.h"
#include "report/bundle_html.h"
#include "base/xalloc.h"
#include "report/assets.h"
#include "report/html.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/*
 * The page, in the order the browser parses it:
 *
 *   <!DOCTYPE html> <html> <head> charset, Content-Security-Policy, title, bundle.css,
 *   bundle.js </head> <body> <noscript>, <div id="tlb-bar">, <div id="tlb-view">
 *   then per file, one line per 64 KiB of base64:
 *     <script type="application/x-tlparse-file" data-path="PATH" data-size="N">BASE64</script>
 *     <script type="application/x-tlparse-more">BASE64</script>   (as many as needed)
 *   </body></html>
 *
 * Why a <script> of an unknown type: the HTML parser keeps its content as raw text (no
 * entities, no tags) up to the first "</script", and the browser neither runs nor renders
 * it. The content is base64 (A-Z a-z 0-9 + / =), which has no '<', so no byte of a file can
 * end the element; the path is an attribute value escaped by tl_html_attr, so no byte of a
 * name can leave its quotes (the loader reads it back with getAttribute, unescaped). The
 * data is gzip (not raw deflate or zlib) because that is what DecompressionStream('gzip')
 * takes in every current browser, and its CRC-32 lets the browser catch a damaged file.
 *
 * Why pieces of 64 KiB: on this project's 2-core VM, Chromium parsed 94 MB of base64 held in
 * one element in 5.0-7.4 s, in 1 MiB elements in 3.1-4.0 s, in 64-256 KiB ones in 2.5-3.2 s
 * (an element has a cost of its own, about 0.2 ms, so much smaller ones would not help). Each piece
 * is a whole number of base64 quads, so the loader decodes them one at a time without joining them,
 * and a line of the file stays short enough for any tool.
 *
 * The loader sits in <head>, before any data, so that it can show index.html as soon as the
 * parser has passed index.html's element, while the rest of a 100 MB page is still being
 * parsed: put index.html first for the fastest start (any order works).
 */

/* Network is forbidden outright: everything the report needs is in the page. 'unsafe-inline'
 * because the report's pages carry their scripts and styles inline (and onclick= attributes);
 * blob: for the frames that show .txt/.json files and for the "save" link; data: for images
 * a custom header might inline. No base-uri: the metrics pages use <base href="..">, which
 * the loader resolves itself (a base-uri rule would only log an error). */
#define TLB_CSP                                                                                    \
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "                  \
    "img-src data: blob:; font-src data:; media-src data: blob:; frame-src blob:; "                \
    "child-src blob:; connect-src 'none'; form-action 'none'"

#define TLB_FILE "application/x-tlparse-file"
#define TLB_MORE "application/x-tlparse-more"

/* Base64 characters per element (a multiple of 4, so that each piece decodes on its own). */
#define TLB_PIECE 65536

/* The zlib output buffer: deflate writes here, base64 reads from here. */
#define TLB_ZBUF (64 * 1024)

struct tl_bundle_html {
    z_stream z;
    bool in_file;
    /* 0-2 bytes of compressed data left over from the last batch, base64 needing groups of 3:
     * they are encoded with the next batch, or padded at the end of the file. */
    unsigned char carry[3];
    size_t ncarry;
    size_t piece; /* base64 characters in the current element */
    unsigned char zbuf[TLB_ZBUF];
};

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* zlib allocates through xalloc, so that running out of memory aborts as everywhere else and
 * no zlib call can fail for want of memory. */
static voidpf zalloc_x(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return tl_xcalloc(items, size);
}

static void zfree_x(voidpf opaque, voidpf p)
{
    (void)opaque;
    free(p);
}

static void encode3(char *o, const unsigned char *s)
{
    o[0] = b64_alphabet[s[0] >> 2];
    o[1] = b64_alphabet[((s[0] & 3) << 4) | (s[1] >> 4)];
    o[2] = b64_alphabet[((s[1] & 15) << 2) | (s[2] >> 6)];
    o[3] = b64_alphabet[s[2] & 63];
}

/* Closes a piece that is full and opens the next one of the same file. */
static void piece_room(struct tl_bundle_html *b, struct tl_buf *out)
{
    if (b->piece < TLB_PIECE)
        return;
    tl_buf_adds(out, "</script>\n<script type=\"" TLB_MORE "\">");
    b->piece = 0;
}

/* Base64 of the carry then p[0..n), in whole groups of 3; the last 0-2 bytes become the carry. */
static void b64_add(struct tl_bundle_html *b, struct tl_buf *out, const unsigned char *p, size_t n)
{
    if (b->ncarry) {
        while (b->ncarry < 3 && n) {
            b->carry[b->ncarry++] = *p++;
            n--;
        }
        if (b->ncarry < 3)
            return;
        piece_room(b, out);
        tl_buf_grow(out, 4);
        encode3(out->buf + out->len, b->carry);
        tl_buf_setlen(out, out->len + 4);
        b->piece += 4;
        b->ncarry = 0;
    }
    size_t groups = n / 3;
    while (groups) {
        piece_room(b, out);
        size_t k = (TLB_PIECE - b->piece) / 4;
        if (k > groups)
            k = groups;
        tl_buf_grow(out, k * 4);
        char *o = out->buf + out->len;
        for (size_t i = 0; i < k; i++, p += 3, o += 4)
            encode3(o, p);
        tl_buf_setlen(out, out->len + k * 4);
        b->piece += k * 4;
        groups -= k;
    }
    for (size_t i = 0; i < n % 3; i++)
        b->carry[b->ncarry++] = p[i];
}

/* The last group of a file: 1 or 2 carried bytes, with '=' padding. */
static void b64_finish(struct tl_bundle_html *b, struct tl_buf *out)
{
    if (!b->ncarry)
        return;
    unsigned char s[3] = {0, 0, 0};
    memcpy(s, b->carry, b->ncarry);
    char o[4];
    encode3(o, s);
    if (b->ncarry == 1)
        o[2] = '=';
    o[3] = '=';
    piece_room(b, out);
    tl_buf_add(out, o, 4);
    b->piece += 4;
    b->ncarry = 0;
}

static void die_zlib(const char *what, int rc, const z_stream *z)
{
    /* Only a bug can get here (a stream used out of order): memory errors abort in zalloc_x. */
    fprintf(stderr, "tlparse: fatal: zlib %s failed (%d%s%s)\n", what, rc, z->msg ? ": " : "",
            z->msg ? z->msg : "");
    abort();
}

/* Run deflate over the pending input with `flush`, base64'ing whatever it produces. */
static void pump(struct tl_bundle_html *b, struct tl_buf *out, int flush)
{
    for (;;) {
        b->z.next_out = b->zbuf;
        b->z.avail_out = TLB_ZBUF;
        int rc = deflate(&b->z, flush);
        if (rc == Z_STREAM_ERROR)
            die_zlib("deflate", rc, &b->z);
        b64_add(b, out, b->zbuf, TLB_ZBUF - b->z.avail_out);
        if (flush == Z_FINISH ? rc == Z_STREAM_END : (b->z.avail_out != 0 && !b->z.avail_in))
            return;
    }
}

struct tl_bundle_html *tl_bundle_html_begin(struct tl_buf *out, const char *title)
{
    struct tl_bundle_html *b = tl_xcalloc(1, sizeof(*b));
    b->z.zalloc = zalloc_x;
    b->z.zfree = zfree_x;
    /* windowBits 15 + 16: a gzip wrapper. Level 6 (zlib's default): on a report of a 200 MiB
     * log, level 1 wrote 20% more and 6 took twice as long; the bundle is made to be shared,
     * so its size matters more than the seconds spent once making it. */
    int rc = deflateInit2(&b->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (rc != Z_OK)
        die_zlib("deflateInit2", rc, &b->z);

    tl_buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"" TLB_CSP "\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"generator\" content=\"tlparse " TL_VERSION " bundle 1\">\n"
                     "<title>");
    tl_html_text_cstr(out, title ? title : "tlparse report");
    tl_buf_adds(out, "</title>\n<style>\n");
    tl_buf_adds(out, tl_asset_bundle_css);
    tl_buf_adds(out, "</style>\n<script>\n");
    tl_buf_adds(out, tl_asset_bundle_js);
    tl_buf_adds(out, "</script>\n</head>\n<body>\n"
                     "<noscript><p class=\"tlb-msg\">This report is a single-file bundle: its "
                     "pages are shown by a small script, so it needs JavaScript.</p></noscript>\n"
                     "<div id=\"tlb-bar\"><a id=\"tlb-home\" href=\"#/index.html\">");
    tl_html_text_cstr(out, title ? title : "tlparse report");
    tl_buf_adds(out, "</a><span id=\"tlb-path\"></span><a id=\"tlb-save\" hidden>save</a></div>\n"
                     "<div id=\"tlb-view\"><p class=\"tlb-msg\">Loading\xE2\x80\xA6</p></div>\n");
    return b;
}

void tl_bundle_html_file_begin(struct tl_bundle_html *b, struct tl_buf *out, const char *path,
                               uint64_t size)
{
    if (b->in_file)
        tl_bundle_html_file_end(b, out);
    b->in_file = true;
    b->ncarry = 0;
    b->piece = 0;
    tl_buf_adds(out, "<script type=\"" TLB_FILE "\" data-path=\"");
    tl_html_attr_cstr(out, path);
    tl_buf_adds(out, "\" data-size=\"");
    tl_buf_addu(out, (unsigned long long)size);
    tl_buf_adds(out, "\">");
}

void tl_bundle_html_file_data(struct tl_bundle_html *b, struct tl_buf *out, const void *p, size_t n)
{
    if (!b->in_file)
        return;
    const unsigned char *s = p;
    /* avail_in is a uInt: feed a huge buffer in slices. */
    while (n) {
        size_t k = n > (1u << 30) ? (1u << 30) : n;
        b->z.next_in = (Bytef *)s;
        b->z.avail_in = (uInt)k;
        pump(b, out, Z_NO_FLUSH);
        s += k;
        n -= k;
    }
}

void tl_bundle_html_file_end(struct tl_bundle_html *b, struct tl_buf *out)
{
    if (!b->in_file)
        return;
    b->z.next_in = NULL;
    b->z.avail_in = 0;
    pump(b, out, Z_FINISH);
    b64_finish(b, out);
    tl_buf_adds(out, "</script>\n");
    int rc = deflateReset(&b->z); /* the same window and state for the next file */
    if (rc != Z_OK)
        die_zlib("deflateReset", rc, &b->z);
    b->in_file = false;
}

void tl_bundle_html_end(struct tl_bundle_html *b, struct tl_buf *out)
{
    if (!b)
        return;
    tl_bundle_html_file_end(b, out);
    tl_buf_adds(out, "</body>\n</html>\n");
    deflateEnd(&b->z);
    free(b);
}
