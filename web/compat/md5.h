/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * md5.h for the WebAssembly build: libmd's MD5 interface (MD5_CTX, MD5Init, MD5Update,
 * MD5Final), which the library uses, over our own RFC 1321 MD5 in md5.c beside it.
 */
#ifndef TL_WEB_MD5_H
#define TL_WEB_MD5_H

#include <stddef.h>
#include <stdint.h>

#define MD5_BLOCK_LENGTH 64
#define MD5_DIGEST_LENGTH 16

typedef struct MD5Context {
    uint32_t state[4];
    uint64_t count; /* bytes hashed */
    uint8_t buffer[MD5_BLOCK_LENGTH];
} MD5_CTX;

void MD5Init(MD5_CTX *ctx);
void MD5Update(MD5_CTX *ctx, const uint8_t *p, size_t n);
void MD5Final(uint8_t digest[MD5_DIGEST_LENGTH], MD5_CTX *ctx);

#endif
