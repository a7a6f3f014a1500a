/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every page shares: the start of its head (title, viewport, the shared stylesheet with
 * its dark mode) and the footer of the indexes, which says what made the report.
 */
#include "base/config.h"
#include "report/pages.h"
#include "report/assets.h"
#include "report/html.h"

#include <string.h>
#include <time.h>

void tl_page_head(struct tl_buf *out, const char *title)
{
    tl_buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"UTF-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>");
    tl_html_text_cstr(out, title);
    tl_buf_adds(out, "</title>\n<style>\n");
    tl_buf_adds(out, tl_asset_base_css);
    tl_buf_adds(out, "</style>\n");
}

void tl_page_head_cid(struct tl_buf *out, const char *prefix, const char *display)
{
    struct tl_buf t = TL_BUF_INIT;
    tl_buf_adds(&t, prefix);
    if (display) {
        tl_buf_addch(&t, ' ');
        tl_buf_adds(&t, display);
    }
    tl_page_head(out, t.buf);
    tl_buf_release(&t);
}

bool tl_page_utc(struct tl_buf *out, int64_t seconds, bool iso)
{
    time_t t = (time_t)seconds;
    struct tm tm;
    if ((int64_t)t != seconds || !gmtime_r(&t, &tm))
        return false;
    char s[64];
    size_t n = strftime(s, sizeof(s), iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M:%S UTC", &tm);
    if (!n)
        return false;
    tl_buf_add(out, s, n);
    return true;
}

void tl_page_pytorch_version(struct tl_buf *out, const char *version)
{
    if (!version)
        return;
    tl_buf_adds(out, "<p class='pytorch-version'>Logged by PyTorch <strong>");
    tl_html_text_cstr(out, version);
    tl_buf_adds(out, "</strong></p>\n");
}

void tl_page_redacted(struct tl_buf *out, const struct tl_runinfo *info)
{
    if (!info || !info->redacted)
        return;
    tl_buf_adds(out, "<p class='redacted' style='border:1px solid var(--line);border-left:4px "
                     "solid #bf8700;padding:0.5em 0.8em;max-width:60em;overflow-wrap:anywhere'>"
                     "<strong>Redacted</strong> with <code>");
    tl_html_text_cstr(out, info->redacted);
    tl_buf_adds(
        out, "</code>, to be shared without the model. Kept: the compiled functions' file names"
             " (unless <code>--redact=paths</code>), line numbers and names, compile ids, statuses,"
             " metrics, failure types, the words of PyTorch's messages, op names, tensor shapes,"
             " whole numbers and the structure of graphs and guards. Replaced by a hash"
             " (<code>h_1a2b3c4d</code>, the same for the same text within this report): the"
             " user's identifiers, attribute and tensor names, string literals, decimal constants,"
             " source lines, paths in messages other than Python files, link addresses, and any"
             " other word. Left out: comments in code, generated code"
             " (inductor's output code), dumped source files, payloads of other kinds,"
             " <code>raw.log</code> and <code>raw.jsonl</code>.</p>\n");
}

void tl_page_footer(struct tl_buf *out, const struct tl_runinfo *info)
{
    if (!info)
        return;
    tl_buf_adds(out, "<footer class='runinfo'>\n<p>tlparse ");
    tl_html_text_cstr(out, info->version ? info->version : "");
    if (info->revision && info->revision[0]) {
        tl_buf_adds(out, " (revision <code>");
        tl_html_text_cstr(out, info->revision);
        tl_buf_adds(out, "</code>)");
    }
    if (info->command_line) {
        tl_buf_adds(out, " · command: <code class='cmd'>");
        tl_html_text_cstr(out, info->command_line);
        tl_buf_adds(out, "</code>");
    }
    if (info->input) {
        tl_buf_adds(out, " · input: <code>");
        tl_html_text_cstr(out, info->input);
        tl_buf_adds(out, "</code>");
        if (info->has_stat) {
            tl_buf_addf(out, ", %llu bytes", (unsigned long long)info->input_size);
            struct tl_buf when = TL_BUF_INIT;
            if (tl_page_utc(&when, info->input_mtime, false)) {
                tl_buf_adds(out, ", modified ");
                tl_buf_add(out, when.buf, when.len);
            }
            tl_buf_release(&when);
        }
    }
    if (info->redacted) {
        tl_buf_adds(out, " · redacted (<code>");
        tl_html_text_cstr(out, info->redacted);
        tl_buf_adds(out, "</code>)");
    }
    tl_buf_adds(out, "</p>\n</footer>\n");
}
