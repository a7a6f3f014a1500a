/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why the caches missed (model/cachekey.h), in the diagnosis's three forms: the "misses" and
 * "bypasses" members of summary.json's "cache", lines of `--summary`, and a part of the
 * Diagnosis section. They read the cache-key model only; everything from the log is escaped.
 */
#ifndef TL_CACHE_MISS_H
#define TL_CACHE_MISS_H

#include "base/config.h"
#include "base/buf.h"
#include "base/json_write.h"
#include "model/cachekey.h"

#include <stdbool.h>

/** "misses": [...] and "bypasses": [...] into the open "cache" object; nothing when ck has
 *  neither (ck may be NULL). */
void tl_cachemiss_json(struct tl_json_doc *w, const struct tl_cachekey *ck);

/** The --summary lines after "Caches:"; nothing when there is no miss or bypass. */
void tl_cachemiss_text(struct tl_buf *out, const struct tl_cachekey *ck, bool color);

/** The Diagnosis section's part; compile ids link to href + id (href NULL: named only). */
void tl_cachemiss_html(struct tl_buf *out, const struct tl_cachekey *ck, const char *href);

/*
 * The misses of one log explained against another's entries (tl_cachekey_across): of the
 * ranks of a run (ranks true: the logs are rank numbers) or of the after side of a diff
 * against its before side. Nothing when a has no miss (a may be NULL).
 */
/** The items of an array: {"ranks", "compile_ids", "cache", "graph", "key", "against",
 *  "differs"} ("ranks" and against's "rank" only when ranks). */
void tl_cachemiss_across_json(struct tl_json_doc *w, const struct tl_ck_across *a, bool ranks);
/** A line per miss, "  Cache miss on rank 1 [0/0] (FX graph) against rank 0's [0/0]
 *  (stored): words; words". */
void tl_cachemiss_across_text(struct tl_buf *out, const struct tl_ck_across *a, bool ranks,
                              bool color);
/** A paragraph and a list per miss. */
void tl_cachemiss_across_html(struct tl_buf *out, const struct tl_ck_across *a, bool ranks);

#endif
