/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MD5 of many messages at once. A payload check hashes thousands of independent messages;
 * MD5 is one long chain of dependent steps per message, so one message cannot use a vector
 * unit, but many can: on a CPU with AVX2 or AVX-512 sixteen messages go through sixteen 32-bit
 * lanes side by side (a lane takes the next message as soon as its own ends). Elsewhere each
 * message is hashed by libmd. Depends on libmd.
 */
#ifndef TL_MD5_H
#define TL_MD5_H

#include "base/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_md5_msg {
    const void *p;
    size_t n;
    uint8_t digest[16]; /* out */
};

/** The MD5 of each of m[0..n), into its digest. */
void tl_md5_many(struct tl_md5_msg *m, size_t n);

/** The lanes tl_md5_many uses on this CPU: "avx512", "avx2" or "none" (libmd). */
const char *tl_md5_lanes(void);

/**
 * Use lanes no wider than name ("avx512", "avx2", "none"), for tests and benchmarks that
 * compare them; false (and no change) if this CPU lacks them.
 */
bool tl_md5_set_lanes(const char *name);

/** md5 of p[0..n) as 32 lowercase hex digits plus NUL. */
void tl_md5_hex(const void *p, size_t n, char hex[33]);

/** digest as 32 lowercase hex digits and a NUL. */
void tl_md5_to_hex(const uint8_t digest[16], char hex[33]);

#endif
