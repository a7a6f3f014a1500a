/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The .zip format, as much of it as a report needs (APPNOTE.TXT 6.3): per file a local
 * header (flag 3: sizes and CRC follow the data; flag 11: the name is UTF-8), the deflated
 * data, a data descriptor; then the central directory, and, when 32 bits are not enough for
 * a size, an offset or 16 bits for the count, the ZIP64 extra fields and end records.
 */
#include "base/config.h"
#include "output/zip.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/xalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define LFH_SIG 0x04034b50u
#define DD_SIG 0x08074b50u
#define CDH_SIG 0x02014b50u
#define EOCD_SIG 0x06054b50u
#define EOCD64_SIG 0x06064b50u
#define LOC64_SIG 0x07064b50u
#define FLAGS ((1u << 3) | (1u << 11))
#define MAX32 0xffffffffu
/* A file this big or bigger gets ZIP64 sizes from its local header on: its deflated size
 * might pass 4 GiB (deflate can grow incompressible data by a few bytes per 16 KiB). */
#define BIG 0xf0000000u

struct entry {
    char *name;
    uint32_t crc;
    uint64_t csize, usize, offset;
    uint16_t time, date;
    bool zip64;      /* its local header and data descriptor have 64-bit sizes */
    bool superseded; /* a later file of the same name replaces it (see tl_zip_file_begin) */
};

struct tl_zip {
    int fd;
    uint64_t offset; /* bytes written so far */
    struct tl_buf out;
    struct entry *entries;
    size_t n, alloc;
    size_t live;           /* entries not superseded: the central directory's */
    struct tl_arena arena; /* the keys of names */
    struct tl_map names;   /* name -> index + 1 of its latest entry */
    bool open;             /* a file is being written */
    z_stream zs;
    bool zs_ready;
    unsigned char chunk[64 * 1024];
};

static void le16(struct tl_buf *b, uint32_t v)
{
    unsigned char c[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    tl_buf_add(b, c, 2);
}

static void le32(struct tl_buf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    tl_buf_add(b, c, 4);
}

static void le64(struct tl_buf *b, uint64_t v)
{
    le32(b, (uint32_t)v);
    le32(b, (uint32_t)(v >> 32));
}

static int flush_out(struct tl_zip *z, struct tl_err *err)
{
    size_t done = 0;
    while (done < z->out.len) {
        ssize_t w = write(z->fd, z->out.buf + done, z->out.len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return tl_error(err, "cannot write the archive: %s", strerror(w < 0 ? errno : EIO));
        done += (size_t)w;
    }
    z->offset += z->out.len;
    tl_buf_reset(&z->out);
    return 0;
}

/* Buffered: the archive is written in pieces of about 1 MiB. */
static int maybe_flush(struct tl_zip *z, struct tl_err *err)
{
    return z->out.len >= (1u << 20) ? flush_out(z, err) : 0;
}

/* The offset of the next byte (written or buffered). */
static uint64_t position(const struct tl_zip *z)
{
    return z->offset + z->out.len;
}

struct tl_zip *tl_zip_new(int fd)
{
    struct tl_zip *z = tl_xcalloc(1, sizeof(*z));
    z->fd = fd;
    tl_buf_init(&z->out, 1u << 20);
    tl_arena_init(&z->arena, 0);
    tl_map_init(&z->names, &z->arena);
    return z;
}

/* MS-DOS time and date of an instant, in UTC; before 1980 is 1980-01-01 00:00. */
static void dos_time(int64_t t, uint16_t *time_out, uint16_t *date_out)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if ((int64_t)tt != t || !gmtime_r(&tt, &tm) || tm.tm_year < 80 || tm.tm_year > 207) {
        *time_out = 0;
        *date_out = (uint16_t)((0 << 9) | (1 << 5) | 1);
        return;
    }
    *time_out = (uint16_t)((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
    *date_out = (uint16_t)(((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
}

int tl_zip_file_begin(struct tl_zip *z, const char *name, int64_t mtime, uint64_t size,
                      struct tl_err *err)
{
    size_t nlen = strlen(name);
    if (z->open || !nlen || nlen > 0xffff)
        return tl_error(err, "cannot add %s to the archive", name);
    /* A name given again (the report writes a file twice: dump_file/<name>.html of two
     * dumps of one name) replaces the earlier file, as in the folder: the earlier bytes
     * stay where they are, but the central directory, which every reader goes by, lists
     * only the last. unzip would otherwise ask whether to replace the file. */
    struct tl_map_entry *seen = tl_map_upsert(&z->names, tl_str_make(name, nlen), NULL);
    if (seen->value)
        z->entries[(uintptr_t)seen->value - 1].superseded = true;
    else
        z->live++;
    seen->value = (void *)(uintptr_t)(z->n + 1);
    TL_GROW(z->entries, z->n + 1, z->alloc);
    struct entry *e = &z->entries[z->n++];
    memset(e, 0, sizeof(*e));
    e->name = tl_xstrdup(name);
    e->offset = position(z);
    e->zip64 = size >= BIG;
    e->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    dos_time(mtime, &e->time, &e->date);
    struct tl_buf *b = &z->out;
    le32(b, LFH_SIG);
    le16(b, e->zip64 ? 45 : 20); /* version needed: 4.5 for ZIP64, 2.0 for deflate */
    le16(b, FLAGS);
    le16(b, 8); /* deflate */
    le16(b, e->time);
    le16(b, e->date);
    le32(b, 0); /* crc and sizes: in the data descriptor */
    le32(b, e->zip64 ? MAX32 : 0);
    le32(b, e->zip64 ? MAX32 : 0);
    le16(b, (uint32_t)nlen);
    le16(b, e->zip64 ? 20 : 0);
    tl_buf_add(b, name, nlen);
    if (e->zip64) {
        le16(b, 0x0001);
        le16(b, 16);
        le64(b, 0);
        le64(b, 0);
    }
    memset(&z->zs, 0, sizeof(z->zs));
    /* raw deflate (no zlib header): what a zip entry holds */
    if (deflateInit2(&z->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return tl_error(err, "cannot start compressing %s", name);
    z->zs_ready = true;
    z->open = true;
    return maybe_flush(z, err);
}

/* Deflate what zs holds (with flush), appending the output. */
static int pump(struct tl_zip *z, int flush, struct tl_err *err)
{
    struct entry *e = &z->entries[z->n - 1];
    for (;;) {
        z->zs.next_out = z->chunk;
        z->zs.avail_out = sizeof(z->chunk);
        int rc = deflate(&z->zs, flush);
        if (rc == Z_STREAM_ERROR)
            return tl_error(err, "cannot compress %s", e->name);
        size_t got = sizeof(z->chunk) - z->zs.avail_out;
        tl_buf_add(&z->out, z->chunk, got);
        e->csize += got;
        if (maybe_flush(z, err) < 0)
            return -1;
        if (flush == Z_FINISH ? rc == Z_STREAM_END : z->zs.avail_out != 0)
            return 0;
    }
}

int tl_zip_file_data(struct tl_zip *z, const void *p, size_t n, struct tl_err *err)
{
    struct entry *e = &z->entries[z->n - 1];
    const unsigned char *q = p;
    while (n > 0) {
        /* zlib counts in uInt: feed at most 1 GiB at a time */
        uInt take = n > (1u << 30) ? (1u << 30) : (uInt)n;
        e->crc = (uint32_t)crc32(e->crc, q, take);
        e->usize += take;
        z->zs.next_in = (Bytef *)(uintptr_t)q;
        z->zs.avail_in = take;
        if (pump(z, Z_NO_FLUSH, err) < 0)
            return -1;
        q += take;
        n -= take;
    }
    return 0;
}

int tl_zip_file_end(struct tl_zip *z, struct tl_err *err)
{
    struct entry *e = &z->entries[z->n - 1];
    z->zs.next_in = Z_NULL;
    z->zs.avail_in = 0;
    int rc = pump(z, Z_FINISH, err);
    deflateEnd(&z->zs);
    z->zs_ready = false;
    z->open = false;
    if (rc < 0)
        return -1;
    if (!e->zip64 && (e->csize >= MAX32 || e->usize >= MAX32))
        return tl_error(err, "%s grew past 4 GiB while it was written into the archive", e->name);
    struct tl_buf *b = &z->out;
    le32(b, DD_SIG);
    le32(b, e->crc);
    if (e->zip64) {
        le64(b, e->csize);
        le64(b, e->usize);
    } else {
        le32(b, (uint32_t)e->csize);
        le32(b, (uint32_t)e->usize);
    }
    return maybe_flush(z, err);
}

int tl_zip_close(struct tl_zip *z, struct tl_err *err)
{
    if (z->open)
        return tl_error(err, "the archive was closed in the middle of a file");
    struct tl_buf *b = &z->out;
    uint64_t cd_start = position(z);
    for (size_t i = 0; i < z->n; i++) {
        const struct entry *e = &z->entries[i];
        if (e->superseded)
            continue;
        bool big_u = e->usize >= MAX32, big_c = e->csize >= MAX32, big_o = e->offset >= MAX32;
        uint32_t extra = (big_u ? 8u : 0u) + (big_c ? 8u : 0u) + (big_o ? 8u : 0u);
        size_t nlen = strlen(e->name);
        le32(b, CDH_SIG);
        le16(b, (3u << 8) | 45u); /* made by: Unix, 4.5 */
        le16(b, e->zip64 || extra ? 45 : 20);
        le16(b, FLAGS);
        le16(b, 8);
        le16(b, e->time);
        le16(b, e->date);
        le32(b, e->crc);
        le32(b, big_c ? MAX32 : (uint32_t)e->csize);
        le32(b, big_u ? MAX32 : (uint32_t)e->usize);
        le16(b, (uint32_t)nlen);
        le16(b, extra ? extra + 4 : 0);
        le16(b, 0);                /* comment */
        le16(b, 0);                /* disk */
        le16(b, 0);                /* internal attributes */
        le32(b, (0100644u << 16)); /* a regular file, rw-r--r-- */
        le32(b, big_o ? MAX32 : (uint32_t)e->offset);
        tl_buf_add(b, e->name, nlen);
        if (extra) {
            le16(b, 0x0001);
            le16(b, extra);
            if (big_u)
                le64(b, e->usize);
            if (big_c)
                le64(b, e->csize);
            if (big_o)
                le64(b, e->offset);
        }
        if (maybe_flush(z, err) < 0)
            return -1;
    }
    uint64_t cd_end = position(z), cd_size = cd_end - cd_start;
    bool zip64 = z->live >= 0xffff || cd_size >= MAX32 || cd_start >= MAX32;
    if (zip64) {
        le32(b, EOCD64_SIG);
        le64(b, 44); /* the size of the rest of this record */
        le16(b, (3u << 8) | 45u);
        le16(b, 45);
        le32(b, 0);
        le32(b, 0);
        le64(b, z->live);
        le64(b, z->live);
        le64(b, cd_size);
        le64(b, cd_start);
        le32(b, LOC64_SIG);
        le32(b, 0);
        le64(b, cd_end);
        le32(b, 1);
    }
    le32(b, EOCD_SIG);
    le16(b, 0);
    le16(b, 0);
    le16(b, z->live >= 0xffff ? 0xffff : (uint32_t)z->live);
    le16(b, z->live >= 0xffff ? 0xffff : (uint32_t)z->live);
    le32(b, cd_size >= MAX32 ? MAX32 : (uint32_t)cd_size);
    le32(b, cd_start >= MAX32 ? MAX32 : (uint32_t)cd_start);
    le16(b, 0);
    return flush_out(z, err);
}

void tl_zip_free(struct tl_zip *z)
{
    if (!z)
        return;
    if (z->zs_ready)
        deflateEnd(&z->zs);
    for (size_t i = 0; i < z->n; i++)
        free(z->entries[i].name);
    free(z->entries);
    tl_map_release(&z->names);
    tl_arena_release(&z->arena);
    tl_buf_release(&z->out);
    free(z);
}
