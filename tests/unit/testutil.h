/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers the unit tests share (tests/unit/testutil.c). They use the C library only, no type
 * of tlcore, so that they do not depend on how src/ is laid out: a whole file read into
 * memory, a private scratch folder made and removed, the occurrences of a text, a monotonic
 * clock, and two exact comparisons of doubles.
 */
#ifndef TL_TESTUTIL_H
#define TL_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The whole file, NUL-terminated (caller frees), or NULL when it cannot be opened or read;
 * its size in *n unless n is NULL. */
char *tu_slurp(const char *path, size_t *n);
/** The same for the file rel of the folder dir (dir/rel). */
char *tu_slurp_in(const char *dir, const char *rel, size_t *n);
/** A new private folder /tmp/tl-test-NAME-XXXXXX (mkdtemp), its path in buf (size bytes);
 * 0, or -1 when it cannot be made or its path does not fit. */
int tu_mkdtemp(char *buf, size_t size, const char *name);
/** Remove the folder dir and everything in it, following no symbolic link (as rm -rf);
 * 0, or -1 when something could not be removed. */
int tu_rmtree(const char *dir);
/** How many times needle occurs in hay, counting overlapping occurrences. */
size_t tu_count(const char *hay, const char *needle);
/** Seconds on the monotonic clock. */
double tu_now_s(void);
/** a and b have the same bits: -0 is not 0, and NaNs differ by their payloads. */
bool tu_same_bits(double a, double b);
/** The distance in ulps between two finite doubles (+0 and -0 are 0 apart). */
uint64_t tu_ulps(double a, double b);

#endif
