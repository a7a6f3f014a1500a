/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Views over one line of text, shared by the readers of PyTorch's wording in src/input
 * (pytext.c and the TORCH_LOGS reader's files): static inline helpers with short names, so a
 * source file includes it and a header never does. Depends on base/str.h only.
 */
#ifndef TL_TEXTVIEW_H
#define TL_TEXTVIEW_H

#include "base/config.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool dig(char c)
{
    return c >= '0' && c <= '9';
}

static inline bool blankc(char c)
{
    return c == ' ' || c == '\t';
}

static inline bool alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool identc(char c)
{
    return alpha(c) || dig(c) || c == '_';
}

static inline struct tl_str sub(struct tl_str s, size_t from, size_t to)
{
    return tl_str_make(s.p + from, to - from);
}

static inline struct tl_str after(struct tl_str s, size_t k)
{
    return tl_str_make(s.p + k, s.n - k);
}

/* The rest of s after the literal prefix lit (which s must start with). */
#define SKIP(s, lit) after((s), sizeof(lit) - 1)

static inline struct tl_str ltrim(struct tl_str s)
{
    while (s.n && blankc(*s.p))
        s.p++, s.n--;
    return s;
}

static inline struct tl_str rtrim(struct tl_str s)
{
    while (s.n && (blankc(s.p[s.n - 1]) || s.p[s.n - 1] == '\r'))
        s.n--;
    return s;
}

static inline struct tl_str trim(struct tl_str s)
{
    return rtrim(ltrim(s));
}

static inline bool starts(struct tl_str s, const char *lit)
{
    return tl_str_has_prefix(s, lit);
}

static inline long find(struct tl_str s, const char *lit)
{
    return tl_str_find(s, lit);
}

/* Last occurrence of lit in s, or -1; lit is a short literal, so this is O(s.n). */
static inline long rfind(struct tl_str s, const char *lit)
{
    size_t m = strlen(lit);
    if (m == 0 || m > s.n)
        return -1;
    for (size_t i = s.n - m + 1; i-- > 0;)
        if (s.p[i] == lit[0] && memcmp(s.p + i, lit, m) == 0)
            return (long)i;
    return -1;
}

/* 1 to 9 digits (so no overflow) into *v. */
static inline bool to_u32(struct tl_str s, uint32_t *v)
{
    if (s.n == 0 || s.n > 9)
        return false;
    uint32_t x = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (!dig(s.p[i]))
            return false;
        x = x * 10 + (uint32_t)(s.p[i] - '0');
    }
    *v = x;
    return true;
}

/* Length of the token at the start of s: up to a space outside brackets and parentheses, so
 * that "L['my key'].size()[0]" is one token. */
static inline size_t token_len(struct tl_str s)
{
    size_t depth = 0;
    size_t i = 0;
    for (; i < s.n; i++) {
        char c = s.p[i];
        if (c == '[' || c == '(')
            depth++;
        else if ((c == ']' || c == ')') && depth)
            depth--;
        else if (blankc(c) && depth == 0)
            break;
    }
    return i;
}

#endif
