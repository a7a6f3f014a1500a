/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors as values: fallible functions return 0 on success and -1 on error,
 * and fill a caller-provided struct tl_err. Depends on nothing.
 */
#ifndef TL_ERR_H
#define TL_ERR_H

#include "base/config.h"

enum tl_err_code {
    TL_ERR_NONE = 0,
    TL_ERR_IO,     /* writing the report failed; any I/O error that is not the input's */
    TL_ERR_USAGE,  /* bad arguments */
    TL_ERR_INPUT,  /* the input cannot be used at all: not there, unreadable, not a log */
    TL_ERR_EXISTS, /* the output folder exists and --overwrite was not given */
    TL_ERR_SIGNAL, /* interrupted */
    TL_ERR_STOP,   /* a library callback asked to stop: not an error */
};

struct tl_err {
    enum tl_err_code code;
    char msg[8192]; /* room for two PATH_MAX paths and the OS error */
};

/** Fill err with a formatted message and TL_ERR_IO; returns -1. err may be NULL. */
int tl_error(struct tl_err *err, const char *fmt, ...) TL_PRINTF(2, 3);
/** Same with an explicit code. */
int tl_error_code(struct tl_err *err, enum tl_err_code code, const char *fmt, ...) TL_PRINTF(3, 4);

#endif
