/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The messages of the library runs a test makes, captured (tl_options.message = on_message):
 * one line each in `messages`, "I ", "W " or "E " before it. Included by one test file each
 * (its own static buffer); release `messages` at the end.
 */
#ifndef TL_TEST_CAPTURE_H
#define TL_TEST_CAPTURE_H

#include "tlparse/tlparse.h"
#include "base/buf.h"

static struct tl_buf messages;

static void on_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    (void)ctx;
    tl_buf_addch(&messages, kind == TL_MSG_INFO ? 'I' : kind == TL_MSG_WARNING ? 'W' : 'E');
    tl_buf_addch(&messages, ' ');
    tl_buf_adds(&messages, line);
    tl_buf_addch(&messages, '\n');
}

#endif
