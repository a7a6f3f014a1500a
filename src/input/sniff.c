/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Is it a log (sniff.h): a glog prefix on one of the first lines, TORCH_LOGS text, or neither;
 * and, for a file that is neither, whether its first bytes are binary or text.
 */
#include "base/config.h"
#include "input/sniff.h"
#include "base/str.h"
#include "input/glog.h"
#include "input/torchlogs.h"

#include <stdio.h>
#include <string.h>

/* Binary: a NUL byte, or more than 1 in 100 bytes a control character no text has. */
static bool binary(const char *p, size_t n)
{
    size_t ctl = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0)
            return true;
        ctl += (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' &&
                c != 0x1b) ||
               c == 0x7f;
    }
    return ctl * 100 > n;
}

enum tl_sniff_kind tl_sniff(const char *p, size_t n, bool whole, char *why, size_t whylen)
{
    size_t lines = 0;
    bool glog = false, any = false;
    for (size_t i = 0; i < n && !glog;) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - p) : n;
        struct tl_str line = tl_str_make(p + i, e - i);
        if (line.n && line.p[line.n - 1] == '\r')
            line.n--;
        lines++;
        if (line.n) {
            struct tl_glog g;
            any = true;
            glog = tl_glog_parse(line, &g);
        }
        i = e + 1;
    }
    if (!any)
        return TL_SNIFF_EMPTY;
    if (tl_tlog_detect(p, n))
        return TL_SNIFF_TEXT;
    if (glog)
        return TL_SNIFF_TRACE;
    if (!why)
        return TL_SNIFF_NOT_LOG;
    if (binary(p, n < 64 * 1024 ? n : 64 * 1024))
        snprintf(why, whylen, "its first %s binary", whole && lines == 1 ? "line is" : "lines are");
    else if (whole && lines == 1)
        snprintf(why, whylen, "its one line has no glog prefix and is not a TORCH_LOGS message");
    else if (whole)
        snprintf(why, whylen, "none of its %zu line%s has a glog prefix or is a TORCH_LOGS message",
                 lines, lines == 1 ? "" : "s");
    else
        snprintf(why, whylen,
                 "none of its first %zu lines has a glog prefix or is a TORCH_LOGS message", lines);
    return TL_SNIFF_NOT_LOG;
}
