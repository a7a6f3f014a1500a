/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors as values: tl_error() fills a struct tl_err with a formatted message and returns -1.
 */
#include "base/config.h"
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>

static int verror(struct tl_err *err, enum tl_err_code code, const char *fmt, va_list ap)
    TL_PRINTF(3, 0);

static int verror(struct tl_err *err, enum tl_err_code code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    }
    return -1;
}

int tl_error(struct tl_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(err, TL_ERR_IO, fmt, ap);
    va_end(ap);
    return -1;
}

int tl_error_code(struct tl_err *err, enum tl_err_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(err, code, fmt, ap);
    va_end(ap);
    return -1;
}
