/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A .zip archive written as a stream (`--bundle report.zip`): each file is deflated as it is
 * read, with its sizes and CRC in a data descriptor after it, and the central directory is
 * written at the end; ZIP64 records where sizes, offsets or the count of files need them.
 *
 * Written by hand on zlib (deflate, crc32), not with libzip: Debian's libzip has no static
 * archive and would bring libssl, libcrypto and libbz2 into the wheel's statically linked
 * binary and the .deb's dependencies, for the few hundred lines of the format we use (no
 * reading, encryption or other methods). libzip also writes an archive only at zip_close, from
 * sources it seeks in, where the output's stream (outdir.h) hands files over one at a time and
 * never seeks. libarchive would stream, but its Debian build pulls libxml2, liblzma, libzstd,
 * liblz4, libbz2, libacl and nettle into both. This writer is one pass at zlib's deflate
 * speed, with data descriptors and ZIP64, checked by python's zipfile (tests/unit/test_zip.c).
 * Depends on base (buf, err) and zlib.
 */
#ifndef TL_ZIP_H
#define TL_ZIP_H

#include "base/config.h"
#include "base/err.h"

#include <stddef.h>
#include <stdint.h>

struct tl_zip; /* opaque */

/** Start an archive written to fd (the caller opened it, and closes it after
 * tl_zip_close or tl_zip_free). */
struct tl_zip *tl_zip_new(int fd);
/**
 * Start a file of the archive: name ('/'-separated, UTF-8), its modification time (seconds
 * since the epoch, stored in UTC) and its expected size (to choose ZIP64 for big files).
 */
int tl_zip_file_begin(struct tl_zip *z, const char *name, int64_t mtime, uint64_t size,
                      struct tl_err *err);
/** The next bytes of the current file. */
int tl_zip_file_data(struct tl_zip *z, const void *p, size_t n, struct tl_err *err);
int tl_zip_file_end(struct tl_zip *z, struct tl_err *err);
/** Write the central directory and flush; the archive is complete. Does not free z. */
int tl_zip_close(struct tl_zip *z, struct tl_err *err);
void tl_zip_free(struct tl_zip *z);

#endif
