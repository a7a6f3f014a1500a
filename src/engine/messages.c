/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A run's messages: every line is made printable (log text in it holds no control for a
 * terminal) and goes to the options' callback (stderr by default); warnings name the log and line,
 * and stop after 20 of a kind (the Stats line counts them all).
 */
#include "base/config.h"
#include "engine/messages.h"
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define WARN_CAP 20

void tl_message_emit(void (*fn)(void *ctx, enum tl_message_kind kind, const char *line), void *ctx,
                     enum tl_message_kind kind, const char *line)
{
    /* Messages quote log text (names, reasons, file names): the one place where they leave,
     * so that no byte of a log reaches a terminal as a control. */
    struct tl_buf clean = TL_BUF_INIT;
    tl_buf_add_printable(&clean, line, strlen(line));
    if (fn)
        fn(ctx, kind, clean.buf);
    else
        fprintf(stderr, "%s\n", clean.buf);
    tl_buf_release(&clean);
}

static void emit(const struct tl_options *opt, enum tl_message_kind kind, const char *line)
{
    tl_message_emit(opt ? opt->message : NULL, opt ? opt->message_ctx : NULL, kind, line);
}

void tl_say(struct tl_messages *m, enum tl_message_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    emit(m->opt, kind, b.buf);
    tl_buf_release(&b);
}

void tl_warn_at(struct tl_messages *m, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                ...)
{
    uint64_t n = ++m->warned[kind];
    if (n > WARN_CAP)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (lineno)
        tl_say(m, TL_MSG_WARNING, "tlparse: warning: %s:%llu: %s", m->input,
               (unsigned long long)lineno, msg);
    else
        tl_say(m, TL_MSG_WARNING, "tlparse: warning: %s: %s", m->input, msg);
    if (n == WARN_CAP)
        tl_say(m, TL_MSG_WARNING,
               "tlparse: warning: %s: further messages of this kind are not shown; the Stats "
               "line counts them",
               m->input);
}

int tl_report_error(const struct tl_options *opt, const struct tl_err *err)
{
    struct tl_buf b = TL_BUF_INIT;
    int code;
    switch (err->code) {
    case TL_ERR_SIGNAL:
        tl_buf_adds(&b, "tlparse: interrupted; no report written");
        code = TL_EXIT_INTERRUPTED;
        break;
    case TL_ERR_USAGE:
        tl_buf_addf(&b, "tlparse: error: %s", err->msg);
        code = TL_EXIT_USAGE;
        break;
    default:
        tl_buf_addf(&b, "tlparse: error: %s", err->msg);
        code = TL_EXIT_ERROR;
        break;
    }
    emit(opt, TL_MSG_ERROR, b.buf);
    tl_buf_release(&b);
    return code;
}

void tl_say_truncated(void *msg, const char *format, uint64_t lines)
{
    struct tl_messages *m = msg;
    if (!lines) {
        tl_say(m, TL_MSG_WARNING,
               "tlparse: warning: %s is truncated (its %s data is cut off): no line of it could "
               "be read",
               m->input, format);
        return;
    }
    tl_say(m, TL_MSG_WARNING,
           "tlparse: warning: %s is truncated (its %s data is cut off): only its first %llu "
           "line%s could be read",
           m->input, format, (unsigned long long)lines, lines == 1 ? "" : "s");
}
