/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PyTorch's symbolic shape expressions, as its guards and specializations print them
 * ("Eq(s0, 32)", "8*((s77//2)) <= 4*s77"): where a symbol (s0, u3, zf1) starts, whether it is a
 * Python float's, and whether a guard on one symbol holds for every size. Text only; depends on
 * base (str).
 */
#ifndef TL_SYMEXPR_H
#define TL_SYMEXPR_H

#include "base/config.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>

/** Whether c may be part of a Python identifier (ASCII). */
bool tl_symexpr_ident_char(char c);
/** The symbol (s0, u3, zf1) that starts at p in expr, its length; 0 when none starts there. */
size_t tl_symexpr_symbol_at(const char *expr, const char *p);
/** Whether s ("zf0") is the symbol of a Python float. */
bool tl_symexpr_float_symbol(const char *s);
/**
 * Whether a guard on one symbol holds for every size (0 to 1024): integers, + - * // (floor),
 * Mod, parentheses and one comparison (<, <=, >, >=, ==, !=, Eq, Ne); anything else (another
 * symbol, a float, a function) cannot be told: false. NULL: false.
 */
bool tl_symexpr_always_holds(const char *expr);

#endif
