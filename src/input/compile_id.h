/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compile ids `[!ca/frame/fcid_attempt]` (spec core.md §6): four optional
 * unsigned parts, their display form, their folder name, and the two
 * normalisations used as keys. Depends on buf only.
 */
#ifndef TL_COMPILE_ID_H
#define TL_COMPILE_ID_H

#include "base/config.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    TL_CID_CA = 1,      /* compiled_autograd_id present */
    TL_CID_FRAME = 2,   /* frame_id present */
    TL_CID_FCID = 4,    /* frame_compile_id present */
    TL_CID_ATTEMPT = 8, /* attempt present */
};

struct tl_compile_id {
    uint32_t ca, frame, fcid, attempt;
    uint8_t has; /* TL_CID_* bits; a missing part's value is 0 */
};

/** Append the display form, e.g. [0/0], [0/0_1], [-/-], [!1/5/2_3]. */
void tl_cid_display(struct tl_buf *out, const struct tl_compile_id *id);
/** Append the folder name <ca>_<frame>_<fcid>_<attempt> with '-' for missing parts. */
void tl_cid_folder(struct tl_buf *out, const struct tl_compile_id *id);
/** Compile-directory key: attempt 0 when missing and fcid present (spec §1.8 step 8). */
struct tl_compile_id tl_cid_dir_key(struct tl_compile_id id);
/** Metrics key: attempt forced to 0 whenever fcid is present (spec §3.4 step 4). */
struct tl_compile_id tl_cid_metrics_key(struct tl_compile_id id);
/** Equality of all four parts and their presence. */
bool tl_cid_eq(const struct tl_compile_id *a, const struct tl_compile_id *b);

/** A fixed-size byte key for hash maps (17 bytes). */
#define TL_CID_KEY_LEN 17
void tl_cid_key(const struct tl_compile_id *id, char key[TL_CID_KEY_LEN]);

#endif
