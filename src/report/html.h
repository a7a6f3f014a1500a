/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTML escaping, one function per context (spec core.md §0.1). Every byte
 * that comes from a log goes through one of these; tl_buf_add of markup we
 * wrote ourselves is the only unescaped path. Table-driven: runs of safe
 * bytes are copied in bulk. Depends on buf only.
 *
 * Conventions for all escapers: output is appended to `out` (caller owns it);
 * bytes >= 0x80, including invalid UTF-8, pass through unchanged; a NUL byte
 * becomes U+FFFD ("\xEF\xBF\xBD"), which is what an HTML parser would turn it
 * into anyway, so every output is NUL-free and well-formed.
 */
#ifndef TL_HTML_H
#define TL_HTML_H

#include "base/config.h"
#include "base/buf.h"

#include <stddef.h>

/** Element text: & < > become &amp; &lt; &gt; (the reference's esc-text). */
void tl_html_text(struct tl_buf *out, const char *p, size_t n);

/**
 * Attribute values and every template value: & < > " ' become
 * &amp; &lt; &gt; &quot; &#39; (the reference's esc-full).
 */
void tl_html_attr(struct tl_buf *out, const char *p, size_t n);

/**
 * A URL for an href/src attribute: relative URLs and http:, https:, mailto:
 * URLs are kept; any other scheme (javascript:, data:, vbscript:, ... also
 * when disguised with case, whitespace or control characters) is replaced by
 * "#blocked:" followed by the URL, so it is shown but cannot run. The result
 * is escaped with tl_html_attr. The scheme is found as a browser finds it:
 * leading/trailing C0 controls and spaces are stripped, tab/CR/LF anywhere are
 * ignored, and a scheme is [A-Za-z][A-Za-z0-9+.-]* followed by ':' (compared
 * case-insensitively). "//host/path" counts as relative and is kept.
 */
void tl_html_url(struct tl_buf *out, const char *p, size_t n);

/**
 * A relative path of the report (a file we wrote) as an href: every byte
 * outside [A-Za-z0-9._~/-] is percent-encoded, so names holding '#', '?',
 * '%', spaces or quotes still lead to their file.
 */
void tl_html_path(struct tl_buf *out, const char *p, size_t n);

/**
 * A compile id ("[0/1]") as a link to href followed by the id (href "#": an anchor of this
 * page; "index.html#": of the index), both escaped; href NULL: named only, in <code>. A NULL
 * cid writes nothing.
 */
void tl_html_cid_link(struct tl_buf *out, const char *href, const char *cid);

static inline void tl_html_text_cstr(struct tl_buf *out, const char *s)
{
    tl_html_text(out, s, strlen(s));
}

static inline void tl_html_attr_cstr(struct tl_buf *out, const char *s)
{
    tl_html_attr(out, s, strlen(s));
}

#endif
