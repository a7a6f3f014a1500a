/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Temporary report folders of killed runs (leftovers.c): who owns one, and removing those
 * whose owner is gone; and removing a folder tree.
 */
#ifndef TL_OUTPUT_LEFTOVERS_H
#define TL_OUTPUT_LEFTOVERS_H

#include "base/config.h"
#include "base/buf.h"

#include <stddef.h>

/** Remove a folder tree without following symbolic links. */
int tl_remove_tree(const char *path);

/** Record this process as the owner of a new temporary folder (.tlparse-owner). */
int tl_owner_write(int dirfd);
/** Remove the owner file before the folder becomes the report. */
void tl_owner_remove(int dirfd);
/**
 * Remove the folders ".<base>.tlparse-XXXXXX" of dir whose owner process is gone (or that
 * have no owner and have not changed for ten minutes); their names are appended to names,
 * separated by ", ", when it is not NULL. Returns how many were removed.
 */
size_t tl_leftovers_remove(const char *dir, const char *base, struct tl_buf *names);

#endif
