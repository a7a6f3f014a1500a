/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank's summary read back from the "rank" member of its summary.json (written by
 * report/summary_ranks.c), for a landing page made from the summaries alone
 * (`tlparse --all-ranks-html --from-summaries OUT`). The file is untrusted: every member is
 * checked, and what is wrong is said in a sentence. Depends on base and model/ranks.
 */
#ifndef TL_RANKS_READ_H
#define TL_RANKS_READ_H

#include "base/config.h"
#include "base/arena.h"
#include "model/ranks.h"

#include <stddef.h>

/**
 * Parse text[0..n) into *out, its strings and arrays allocated in arena. Returns 0, or -1
 * with why filled ("rank.runtime[2].ops[0].name is not a string").
 */
int tl_rank_summary_parse(const char *text, size_t n, struct tl_rank_summary *out,
                          struct tl_arena *arena, char *why, size_t whylen);

#endif
