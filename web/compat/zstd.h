/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zstd.h for the WebAssembly build, which has no libzstd yet: the reader's calls, decoding
 * failing at once, so that a .zst log is refused with the reader's own message
 * ("LOG: zstd: zstd is not built into this page").
 */
#ifndef TL_WEB_ZSTD_H
#define TL_WEB_ZSTD_H

#include <stddef.h>

typedef struct ZSTD_DCtx_s ZSTD_DCtx;
typedef struct {
    const void *src;
    size_t size;
    size_t pos;
} ZSTD_inBuffer;
typedef struct {
    void *dst;
    size_t size;
    size_t pos;
} ZSTD_outBuffer;

static inline ZSTD_DCtx *ZSTD_createDCtx(void)
{
    static char none; /* not NULL: the reader takes NULL for out of memory */
    return (ZSTD_DCtx *)(void *)&none;
}

static inline size_t ZSTD_freeDCtx(ZSTD_DCtx *c)
{
    (void)c;
    return 0;
}

static inline size_t ZSTD_DStreamInSize(void)
{
    return 1 << 17;
}

static inline size_t ZSTD_DStreamOutSize(void)
{
    return 1 << 17;
}

static inline size_t ZSTD_decompressStream(ZSTD_DCtx *c, ZSTD_outBuffer *o, ZSTD_inBuffer *i)
{
    (void)c;
    (void)o;
    (void)i;
    return (size_t)-1;
}

static inline unsigned ZSTD_isError(size_t code)
{
    return code > (size_t)-120;
}

static inline const char *ZSTD_getErrorName(size_t code)
{
    (void)code;
    return "zstd is not built into this page";
}

#endif
