/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The allowlists of --redact (redact.c): the words, names and keys of PyTorch's that a redacted
 * report keeps. Data only, in a file of their own so that adding a word touches no code.
 */
#ifndef TL_REDACT_WORDS_H
#define TL_REDACT_WORDS_H

#include "base/config.h"

#include <stddef.h>

/* A list of words (static strings). */
struct tl_redact_words {
    const char *const *s;
    size_t n;
};

extern const struct tl_redact_words tl_redact_words_words;
extern const struct tl_redact_words tl_redact_words_code_names;
extern const struct tl_redact_words tl_redact_words_guard_suffixes;
extern const struct tl_redact_words tl_redact_words_code_roots;
extern const struct tl_redact_words tl_redact_words_keys;
extern const struct tl_redact_words tl_redact_words_verbatim;
extern const struct tl_redact_words tl_redact_words_path_keys;
extern const struct tl_redact_words tl_redact_words_code_keys;
extern const struct tl_redact_words tl_redact_words_line_keys;

#endif
