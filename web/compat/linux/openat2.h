/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linux/openat2.h for the WebAssembly build: the names output/folder.c uses. Without
 * SYS_openat2 it takes its plain openat path, so these are never passed to a kernel.
 */
#ifndef TL_WEB_LINUX_OPENAT2_H
#define TL_WEB_LINUX_OPENAT2_H

#include <stdint.h>

struct open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};

#define RESOLVE_NO_XDEV 0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08

#endif
