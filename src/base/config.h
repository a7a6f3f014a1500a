/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Feature macros and compiler helpers; every .c file includes this first.
 * Nothing here may depend on another module.
 */
#ifndef TL_CONFIG_H
#define TL_CONFIG_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#define _FILE_OFFSET_BITS 64

#if defined(__GNUC__) || defined(__clang__)
#define TL_LIKELY(x) __builtin_expect(!!(x), 1)
#define TL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TL_NORETURN __attribute__((noreturn))
#define TL_FALLTHROUGH __attribute__((fallthrough))
#else
#define TL_LIKELY(x) (x)
#define TL_UNLIKELY(x) (x)
#define TL_PRINTF(f, a)
#define TL_NORETURN
#define TL_FALLTHROUGH
#endif

#define TL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
